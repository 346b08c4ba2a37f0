"""Review hand histories against a solved strategy: what each decision cost, in big blinds.

For every decision of a reviewed seat, the review gives the solution's
frequencies for the hand held there, the action taken, and its cost: the
solution's value of its own mix there minus its value of the action taken,
both with the solution playing both seats afterwards, in real Badugi (one
deck). The values are those of the decision's *information*: the opponent's
cards are not known to the player, so they are weighed by what the solution
believes of them, given the public actions, the cards the player has seen and
the solution's own strategy for the opponent.

How (Monte Carlo, :func:`review_seats`): the opponent's cards are a belief,
kept through each hand for each reviewed seat by a particle filter (512
hands): dealt from the cards the player has not seen, each action of the
opponent weighing each hand by the solution's probability of it, each of his
draws throwing a hand's canonical discard and dealing it new cards, a card the
player sees later ruling out the hands that hold it, and the hands drawn again
in proportion to their weights when the weight crowds onto a few. At a
decision, 128 of them (in proportion to their weights) value each action the
cost needs (the solution's mix there and the action taken; every legal action
on request) with the same cards and random stream for each (common random
numbers), the solution choosing every later action: in the last round's
betting exactly (no card is left to come: every line of the betting left,
weighed by the solution's mixes), before it by playing the hand out once.
Where the action taken is the solution's only one there, its cost is 0 and
nothing is sampled. A value is the mean over samples. A cost's 95% interval
is its spread over the belief's hands (the samples of one hand vary together:
a cluster-robust standard error, read with Student's t of the hands less
one): where a few hands carry the belief (his actions make the rest
unlikely), the interval is wide; a cost on fewer than 10
effective hands is marked uncertain, and the worst decisions are ranked by
the low end of the interval, not by noise. A player who plays the solution's
mix loses nothing on average; the costs of a player's decisions add up, on
average, to what the player loses against the solution (the
performance-difference identity: the solution is the opponent, so the
weighting is the true belief).

What the review maps, always with a flag on the decision: a raise beyond the
strategy's cap (played as a call; the betting that answers it in the history is
not reviewed), a fold when checking was free (played as a check). A draw that
keeps a dead card or throws other cards than the canonical ones is valued as
it was made: the hand played out with exactly those cards thrown.
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

import numba

from abstractions.cards import Deck, format_cards
from abstractions.evaluator import value_shape
from abstractions.transitions import draw_is_legal

from ..cfr.walker import in_threads
from . import simulator
from .match import MatchGame, Player
from .phh import BIG_BLIND, BUTTON, PHH_PLAYER, HandHistory, PHHError
from .review_values import review_seats

ROUND_NAMES = ("pre-draw", "after the 1st draw", "after the 2nd draw", "after the 3rd draw")
DEFAULT_SAMPLES = 128


PARTICLES = 512          # opponent hands the belief keeps (each reviewed seat of each hand)
FEW_SAMPLES = 10.0       # effective samples under which a cost is called uncertain


@dataclass
class Decision:
    """One decision of a replayed hand."""

    hand: int                      # index of the hand in the review
    seat: int                      # 0 button, 1 big blind
    round: int
    is_draw: bool
    action: int                    # action index (betting) or cards drawn
    labels: list[str]              # the actions there ("f", "k", "c", "b", "r" or draw counts "0".."4")
    cards: list[int] | None        # the player's hand there, if known
    seen: list[int]                # every card the player has held so far
    ipos: np.ndarray
    fpos: np.ndarray
    records: np.ndarray
    line: int = 0
    flags: list[str] = field(default_factory=list)
    place: str = ""                # the action's place in its hand: "action 7 ('p1 cbr 4')"
    thrown: list[int] | None = None  # a draw's cards thrown, where known
    kept: int = -1                 # a draw that kept other cards than the canonical ones: the positions kept
    # Filled by the review:
    probabilities: list[float] | None = None
    values: list[float] | None = None   # big blinds, per action (nan where not legal or not played out)
    taken_value: float = float("nan")   # big blinds, the action as it was taken (a draw: the cards it threw)
    cost: float = 0.0                   # big blinds lost against the solution's mix
    low: float = 0.0                    # the cost's 95% interval (over the belief's hands), big blinds
    high: float = 0.0
    samples: int = 0                    # opponent hands sampled (0: none, the action taken being the solution's only one)
    effective_samples: float | None = 0.0   # None where nothing was sampled

    @property
    def uncertain(self) -> bool:
        """Whether the cost rests on too few effective samples to say much."""
        return self.effective_samples is not None and self.effective_samples < FEW_SAMPLES


@dataclass
class ReplayedHand:
    history: HandHistory
    decisions: list[Decision]
    holes: list[list[int] | None]        # initial hands by seat
    final: list[list[int] | None]        # final hands by seat (shown or known)
    payoff: list[float] | None           # big blinds won by seat, when the end is known
    flags: list[str] = field(default_factory=list)


class Replayer:
    """Replays hand histories in a game: positions, legality, the mapping of off-tree actions."""

    def __init__(self, game: MatchGame):
        self.game = game
        self.config = game.config
        self.deck = Deck(self.config.ranks, self.config.suits)
        r = game.rules
        self.labels = [[[chr(x) for x in r.label[rnd, ph] if x] for ph in range(r.label.shape[1])]
                       for rnd in range(r.label.shape[0])]

    def cards_text(self, cards) -> str:
        return format_cards(cards, self.deck)

    def replay(self, history: HandHistory, index: int = 0) -> ReplayedHand:
        cfg, rules = self.config, self.game.rules
        hs = cfg.hand_size
        ipos, fpos = np.zeros(4, np.int64), np.zeros(3)
        records = np.zeros(max(cfg.draws, 1), np.int64)
        simulator.start_position(rules.start_contrib, ipos, fpos, records)
        holes: list[list[int] | None] = [None, None]
        hands: list[list[int | None] | None] = [None, None]
        seen: list[set] = [set(), set()]
        used: dict[int, str] = {}
        waiting = [0, 0]              # cards each seat is owed by its draw
        decisions: list[Decision] = []
        shown: list[list[int] | None] = [None, None]
        hand_flags: list[str] = []
        ended = None
        off_tree_round = -1

        def fail(move, message):
            raise PHHError(f"{history.where(move.line)}: {message}")

        def take(move, cards):
            # A card is dealt once, unless it was thrown since (a stub that runs out is remade from
            # the muck).
            for c in cards:
                if c is None:
                    continue
                if c in used:
                    fail(move, f"{self.cards_text([c])} is dealt twice (first {used[c]}) and was not thrown "
                               "in between")
                used[c] = f"line {move.line}" if move.line else "earlier"

        for move in history.moves:
            seat = move.seat
            if move.kind == "dh":
                if ended is not None:
                    fail(move, "cards dealt after the hand ended")
                if holes[seat] is None and hands[seat] is None:
                    if len(move.cards) != hs:
                        fail(move, f"{PHH_PLAYER[seat]} is dealt {len(move.cards)} cards; the game deals {hs}")
                    take(move, move.cards)
                    hands[seat] = list(move.cards)
                    holes[seat] = list(move.cards) if None not in move.cards else None
                    seen[seat].update(c for c in move.cards if c is not None)
                    continue
                if waiting[seat] != len(move.cards):
                    fail(move, f"{PHH_PLAYER[seat]} is dealt {len(move.cards)} cards but drew {waiting[seat]}")
                take(move, move.cards)
                hands[seat] = hands[seat] + list(move.cards)
                seen[seat].update(c for c in move.cards if c is not None)
                waiting[seat] = 0
                continue
            if move.kind == "sm":
                if move.cards:
                    if len(move.cards) != hs:
                        fail(move, f"{PHH_PLAYER[seat]} shows {len(move.cards)} cards; a hand has {hs}")
                    known = hands[seat]
                    if known is not None and None not in known and sorted(known) != sorted(move.cards):
                        fail(move, f"{PHH_PLAYER[seat]} shows {self.cards_text(move.cards)} but holds "
                                   f"{self.cards_text(known)}")
                    shown[seat] = list(move.cards)
                continue
            if ended is not None:
                fail(move, f"{move.text!r} after the hand ended")
            if hands[BUTTON] is None or hands[BIG_BLIND] is None:
                fail(move, f"{move.text!r} before both players were dealt")
            if any(waiting):
                late = PHH_PLAYER[0 if waiting[0] else 1]
                if move.kind != "sd":
                    fail(move, f"{move.text!r} before {late} got the cards of the draw")
            rnd, phase = int(ipos[2]), int(ipos[3])
            actor, is_draw = simulator.acting_seat(rules.n_pos, rules.n_out, rules.seat, rnd, phase)
            if is_draw and move.kind in ("f", "cc", "cbr") and off_tree_round == rnd:
                # The betting went on past the cap (PokerKit allows a fifth bet before the draw):
                # the raise beyond it was valued as a call, so the solution's tree is at the draw.
                name = PHH_PLAYER[seat]
                if move.kind == "f":
                    c = float(fpos[1 + seat])
                    ended = [0.0, 0.0]
                    ended[seat], ended[1 - seat] = -c, c
                    hand_flags.append(f"{name} folds to a bet beyond the cap ({history.at(move)}): the hand ends "
                                      "there, the pot as the solution's tree has it")
                else:
                    hand_flags.append(f"{name}'s {move.text!r} answers a bet beyond the cap ({history.at(move)}): "
                                      "not reviewed, the pot as the solution's tree has it")
                continue
            if actor != seat:
                fail(move, f"{PHH_PLAYER[seat]} acts out of turn ({PHH_PLAYER[int(actor)]} is to "
                           f"{'draw' if is_draw else 'act'})")
            flags: list[str] = []
            kept_mask = -1
            hand_now = hands[seat]
            known = None if hand_now is None or None in hand_now else list(hand_now)
            if is_draw:
                if move.kind != "sd":
                    fail(move, f"{move.text!r}: {PHH_PLAYER[seat]} is to draw (sd), not to bet")
                thrown = move.cards
                d = len(thrown)
                if d > hs:
                    fail(move, f"{PHH_PLAYER[seat]} throws {d} cards from a {hs}-card hand")
                if known is not None:
                    for c in thrown:
                        if c is not None and c not in known:
                            fail(move, f"{PHH_PLAYER[seat]} throws {self.cards_text([c])}, which is not in "
                                       f"the hand {self.cards_text(known)}")
                    arr = np.array(known, np.int64)
                    count, _ = value_shape(arr, hs, cfg.suits)
                    action = d
                    if None not in thrown and 0 < d < hs:
                        positions = sum(1 << i for i, c in enumerate(known) if c not in thrown)
                        if not draw_is_legal(count, hs, d):
                            kept_mask = positions
                            flags.append(f"keeps a dead card (throws {self.cards_text(thrown)}): valued as the "
                                         "draw it was; the solution never keeps a card that does not play")
                        else:
                            mask = simulator.canonical_mask(arr, d, cfg.suits)
                            canonical = sorted(known[i] for i in range(hs) if not mask >> i & 1)
                            if canonical != sorted(thrown):
                                kept_mask = positions
                                flags.append(f"throws {self.cards_text(thrown)}, not the canonical "
                                             f"{self.cards_text(canonical)}: valued as thrown")
                else:
                    action = d
                labels = [str(k) for k in range(hs + 1)]
            else:
                labels = self.labels[rnd][phase]
                action, flag = self._betting_action(move, labels, rnd, phase, seat, off_tree_round == rnd,
                                                    history.where(move.line))
                if flag:
                    flags.append(flag)
                    off_tree_round = rnd
            decisions.append(Decision(index, seat, rnd, is_draw, action, labels, known, sorted(seen[seat]),
                                      ipos.copy(), fpos.copy(), records.copy(), move.line, flags, history.at(move),
                                      list(move.cards) if is_draw and None not in move.cards else None, kept_mask))
            if is_draw:
                # The thrown cards leave the hand; the new ones come with the deal that follows.
                if hand_now is not None:
                    rest = list(hand_now)
                    for c in move.cards:
                        if c is not None:
                            rest.remove(c)
                        else:
                            rest.remove(next(x for x in rest if x is None))
                    hands[seat] = rest if len(rest) + len(move.cards) == hs else [None] * (hs - len(move.cards))
                for c in move.cards:
                    used.pop(c, None)
                waiting[seat] = len(move.cards)
            end = self.game.advance(ipos, fpos, records, action)
            if end == simulator.FOLDED:
                c = fpos[1 + seat]
                ended = [0.0, 0.0]
                ended[seat], ended[1 - seat] = -c, c
            elif end == simulator.SHOWDOWN_REACHED:
                ended = "showdown"
        final = [shown[s] if shown[s] is not None else
                 (list(hands[s]) if hands[s] is not None and None not in hands[s] else None) for s in (0, 1)]
        payoff = None
        if ended is None:
            hand_flags.append("the history stops before the hand ends")
        elif ended == "showdown":
            if final[0] is not None and final[1] is not None:
                payoff = self._showdown(final, float(fpos[1]))
        else:
            payoff = ended
        return ReplayedHand(history, decisions, holes, final, payoff, hand_flags)

    def _betting_action(self, move, labels, rnd, phase, seat, off_tree, where) -> tuple[int, str]:
        """The action index of a betting move, and a flag when it is mapped."""
        if move.kind == "sd":
            raise PHHError(f"{where}: {move.text!r}: {PHH_PLAYER[seat]} is to bet, not to draw")
        if move.kind == "f":
            if "f" in labels:
                return labels.index("f"), ""
            return labels.index("k"), "folds when checking is free: valued as a check"
        if move.kind == "cc":
            return labels.index("k" if "k" in labels else "c"), ""
        aggressive = "b" if "b" in labels else ("r" if "r" in labels else None)
        if aggressive is None:
            passive = "k" if "k" in labels else "c"
            return labels.index(passive), (f"raises beyond the cap of {self.config.cap} bets: valued as "
                                           f"{'a check' if passive == 'k' else 'a call'}")
        a = labels.index(aggressive)
        if not off_tree and move.amount is not None:
            # Fixed limit: the bettor's total in the round after a bet or raise is known.
            expected = float(self.game.rules.contrib[rnd, phase, a, seat])
            if not math.isclose(expected, move.amount, rel_tol=1e-6, abs_tol=1e-6):
                raise PHHError(f"{where}: {move.text!r} bets or raises to {move.amount:g} big blinds; the "
                               f"fixed-limit amount here is {expected:g}")
        return a, ""

    def _showdown(self, final, c0) -> list[float]:
        r = self.game.rules
        v = [simulator.hand_value(np.array(h, np.int64), r.suits, r.ranks, r.code_to_value) for h in final]
        won = c0 if v[0] < v[1] else (-c0 if v[0] > v[1] else 0.0)
        return [won, -won]


# A review's decisions, one row each (see :func:`review_hands`): ``ints`` (node, first child, round,
# phase, seat, is_draw, action, the positions a draw kept), ``floats`` (the pot when the round
# began, both contributions), ``records``, the deciding seat's ``hands`` and the cards it has
# ``seen``, and whether each is ``reviewed``; and what the review finds of each: the solution's
# mix, the values, the cost with its interval, the belief's weight and effective hands.
Decisions = namedtuple("Decisions", "ints floats records hands seen reviewed")
Findings = namedtuple("Findings", "probs values bounds stats")


# ---------------------------------------------------------------- the review

@dataclass
class Review:
    """Reviewed hands: every decision with its cost, and the totals."""

    strategy: str
    game: str
    hands: list[ReplayedHand]
    seats: str                       # which decisions were reviewed: "both", or a player's name
    samples: int
    seconds: float
    first_hand: int = 1              # the number of the first hand (hands count from 1 across the files)

    @property
    def decisions(self) -> list[Decision]:
        return [d for h in self.hands for d in h.decisions if d.probabilities is not None]

    def player_of(self, d: Decision) -> str:
        return self.hands[d.hand].history.players[d.seat]

    def hand_costs(self) -> dict[str, dict[int, float]]:
        """Each reviewed player's summed cost in each hand it was reviewed in: every hand where its
        cards are known, 0 where it made no decision (the opponent folded first)."""
        out: dict[str, dict[int, float]] = {}
        for h_i, h in enumerate(self.hands):
            for seat in (0, 1):
                if h.holes[seat] is not None and _reviewed(self.seats, h.history, seat):
                    out.setdefault(h.history.players[seat], {})[h_i] = 0.0
            for d in h.decisions:
                if d.probabilities is not None:
                    costs = out.setdefault(h.history.players[d.seat], {})
                    costs[h_i] = costs.get(h_i, 0.0) + d.cost
        return out

    def totals(self) -> dict:
        """Cost per player: in all, in betting and in draws, decisions, hands, per hand with its 95%
        interval over hands (the spread of the hands' sums: the cards, the mixed actions and the
        sampling all in it)."""
        out: dict = {}
        for h in self.hands:
            for d in h.decisions:
                if d.probabilities is None:
                    continue
                t = out.setdefault(h.history.players[d.seat], {"decisions": 0, "cost": 0.0, "betting": 0.0,
                                                                "draws": 0.0, "flagged": 0})
                t["decisions"] += 1
                t["cost"] += d.cost
                t["draws" if d.is_draw else "betting"] += d.cost
                t["flagged"] += bool(d.flags)
        for name, costs in self.hand_costs().items():
            t = out.setdefault(name, {"decisions": 0, "cost": 0.0, "betting": 0.0, "draws": 0.0, "flagged": 0})
            x = np.array(list(costs.values()))
            t["hands"] = len(x)
            t["per_hand"] = float(x.mean())
            t["per_hand_ci95"] = 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x)) if len(x) > 1 else float("inf")
        return out

    def worst(self, n: int = 5) -> list[Decision]:
        """The decisions known to cost most: ranked by the low end of their cost's 95% interval
        (a cost that rests on a few samples is not ranked by its noise), those above zero."""
        known = [d for d in self.decisions if d.low > 0]
        return sorted(known, key=lambda d: (-d.low, -d.cost))[:n]


def review_hands(histories: list[HandHistory], player: Player, game: MatchGame, seats: str = "both",
                 samples: int = DEFAULT_SAMPLES, seed: int = 0, every_action: bool = False) -> Review:
    """Replay ``histories`` and value every decision of ``seats`` ("both", or a player's name, or
    p1/p2) against ``player``'s strategy. The actions played out at a decision are those its cost
    needs (the solution's mix there and the action taken; none where the action taken is the
    solution's only one), or with ``every_action`` every legal action."""
    if samples < 1:
        raise ValueError("--samples must be at least 1")
    if game.config.ranks * game.config.suits > 63:
        raise ValueError("a review's beliefs hold a deck of at most 63 cards")
    seats_reviewed = seats
    start = time.perf_counter()
    replayer = Replayer(game)
    hands = [replayer.replay(h, i) for i, h in enumerate(histories)]
    decisions = [d for h in hands for d in h.decisions]
    cfg = game.config
    hs, n_cards = cfg.hand_size, cfg.ranks * cfg.suits
    n = len(decisions)
    width = max(hs + 1, int(game.rules.n_actions.max()))
    dec_int = np.zeros((n, 8), np.int64)
    dec_float = np.zeros((n, 3))
    dec_records = np.zeros((n, max(cfg.draws, 1)), np.int64)
    dec_hand = np.zeros((n, hs), np.int64)
    dec_seen = np.zeros((n, n_cards), np.uint8)
    todo = []
    tasks = []
    k = 0
    for h in hands:
        first = k
        seats = set()
        for d in h.decisions:
            dec_int[k] = (*d.ipos, d.seat, int(d.is_draw), d.action, d.kept)
            dec_float[k] = d.fpos
            dec_records[k] = d.records
            if d.cards is not None:
                dec_hand[k] = d.cards
                dec_seen[k, d.seen] = 1
                if _reviewed(seats_reviewed, h.history, d.seat):
                    todo.append(k)
                    seats.add(d.seat)
            elif _reviewed(seats_reviewed, h.history, d.seat) and seats_reviewed != "both":
                note = f"{h.history.players[d.seat]}'s cards are not in the history here: not reviewed"
                if note not in h.flags:
                    h.flags.append(note)
            k += 1
        tasks += [(first, k, seat) for seat in sorted(seats)]
    probs = np.zeros((n, width))
    values = np.full((n, width + 1), np.nan)
    bounds = np.zeros((n, 3))
    stats = np.zeros((n, 3))
    if todo:
        arrays = game.player_arrays(player)
        reviewed = np.zeros(n, np.bool_)
        reviewed[todo] = True
        task_arr = np.array(tasks, np.int64)
        threads = max(1, min(numba.get_num_threads(), len(tasks)))

        decisions_arrays = Decisions(dec_int, dec_float, dec_records, dec_hand, dec_seen, reviewed)
        findings = Findings(probs, values, bounds, stats)

        def work(t):
            review_seats(arrays, game.rules, task_arr[t::threads], decisions_arrays, samples, PARTICLES, seed,
                         every_action, findings)

        in_threads(threads, work)
    big = cfg.big_blind
    for k in todo:
        d = decisions[k]
        n_act = len(d.labels)
        d.probabilities = probs[k, :n_act].tolist()
        played = probs[k, :n_act][probs[k, :n_act] > 0]
        if len(played) >= 2 and np.all(played == played[0]):
            d.flags.append("the solution's mix here is uniform: a row its own play never reaches (or its compact "
                           "file dropped), so the cost is against an untested mix")
        if stats[k, 0] < 0:  # the solution's only action there, taken: 0, nothing sampled
            d.values, d.cost, d.samples, d.effective_samples = [float("nan")] * n_act, 0.0, 0, None
            continue
        d.samples = samples
        d.effective_samples = float(stats[k, 1])
        if stats[k, 0] == 0:
            d.flags.append("no opponent hand fits the cards seen here: no value")
            d.values = [float("nan")] * n_act
            d.cost, d.low, d.high = 0.0, -math.inf, math.inf
            continue
        if stats[k, 2] == 0:
            d.flags.append("the opponent's actions are ones the solution never takes with any hand sampled: its "
                           "hands are weighed as if it trembled")
        d.values = (values[k, :n_act] / big).tolist()
        d.taken_value = float(values[k, width] / big)
        d.cost, d.low, d.high = (float(x) / big for x in bounds[k])
        if d.uncertain:
            d.flags.append(f"uncertain: {d.effective_samples:.1f} effective samples of the opponent's hand (the rest "
                           "weigh little given his actions)")
    return Review(player.name, cfg.describe(), hands, seats_reviewed, samples, time.perf_counter() - start)


def _reviewed(seats: str, history: HandHistory, seat: int) -> bool:
    if seats == "both":
        return True
    if seats in ("p1", "p2"):
        return PHH_PLAYER[seat] == seats
    return history.players[seat] == seats


# ---------------------------------------------------------------- output

def _short(name: str, width: int) -> str:
    """A player's name in a column: its end when too long (a strategy's path ends in its name)."""
    return name if len(name) <= width else "…" + name[-(width - 1):]


def _bb(x: float) -> str:
    """Big blinds to three places, without a negative zero."""
    return f"{round(x, 3) + 0.0:.3f}"


def _action_name(d: Decision, a: int) -> str:
    if d.is_draw:
        return "pat" if a == 0 else f"draw {a}"
    return {"f": "fold", "k": "check", "c": "call", "b": "bet", "r": "raise"}[d.labels[a]]


def _taken_name(d: Decision, deck: Deck) -> str:
    """The action as it was taken: a draw that threw other cards than the canonical ones names them."""
    name = _action_name(d, d.action)
    return f"{name} ({format_cards(d.thrown, deck)})" if d.kept >= 0 and d.thrown else name


def _mix_text(d: Decision) -> str:
    return " ".join(f"{_action_name(d, a)} {p:.0%}" for a, p in enumerate(d.probabilities) if p >= 0.005)


def _interval(d: Decision) -> str:
    """The cost's 95% interval, ``[low, high]`` (``[?]`` where nothing is known)."""
    if d.effective_samples is None:
        return "exact"
    if not (math.isfinite(d.low) and math.isfinite(d.high)):
        return "[?]"
    return f"[{_bb(d.low)}, {_bb(d.high)}]"


def decision_rows(review: Review, deck: Deck) -> list[dict]:
    rows = []
    for h_i, h in enumerate(review.hands):
        for d in h.decisions:
            if d.probabilities is None:
                continue
            rows.append({"hand": review.first_hand + h_i, "source": h.history.source, "place": d.place, "line": d.line,
                         "player": h.history.players[d.seat], "seat": "button" if d.seat == BUTTON else "big blind",
                         "round": ROUND_NAMES[d.round] if d.round < len(ROUND_NAMES) else f"round {d.round}",
                         "kind": "draw" if d.is_draw else "betting", "cards": format_cards(d.cards, deck),
                         "action": _taken_name(d, deck),
                         "solution": {_action_name(d, a): round(p, 4) for a, p in enumerate(d.probabilities)},
                         "values_bb": {_action_name(d, a): (None if math.isnan(v) else round(v, 4))
                                       for a, v in enumerate(d.values)},
                         "taken_value_bb": None if math.isnan(d.taken_value) else round(d.taken_value, 4),
                         "cost_bb": round(d.cost, 4),
                         "cost_low_bb": _json_number(d.low), "cost_high_bb": _json_number(d.high),
                         "effective_samples": None if d.effective_samples is None else round(d.effective_samples, 1),
                         "flags": list(d.flags)})
    return rows


def _json_number(x):
    """A figure for JSON: floats to 4 places, and null for one that is not finite (the interval
    over a single hand)."""
    if isinstance(x, float):
        return round(x, 4) if math.isfinite(x) else None
    return x


def to_json(review: Review, deck: Deck) -> str:
    totals = review.totals()
    return json.dumps({"strategy": review.strategy, "game": review.game, "hands": len(review.hands),
                       "samples": review.samples, "seconds": round(review.seconds, 3),
                       "players": {k: {kk: _json_number(vv) for kk, vv in v.items()}
                                   for k, v in totals.items()},
                       "hand_costs": {k: [round(v.get(i, 0.0), 4) for i in range(len(review.hands))]
                                      for k, v in review.hand_costs().items()},
                       "hand_flags": {h.history.source: h.flags for h in review.hands if h.flags},
                       "decisions": decision_rows(review, deck)}, indent=1)


def to_csv(review: Review, deck: Deck) -> str:
    out = io.StringIO()
    rows = decision_rows(review, deck)
    names = ["hand", "source", "place", "line", "player", "seat", "round", "kind", "cards", "action", "solution",
             "values_bb", "taken_value_bb", "cost_bb", "cost_low_bb", "cost_high_bb", "effective_samples", "flags"]
    w = csv.DictWriter(out, names)
    w.writeheader()
    for r in rows:
        r = dict(r)
        r["solution"] = " ".join(f"{k}:{v:.3f}" for k, v in r["solution"].items())
        r["values_bb"] = " ".join(f"{k}:{'' if v is None else f'{v:.3f}'}" for k, v in r["values_bb"].items())
        r["flags"] = "; ".join(r["flags"])
        w.writerow(r)
    return out.getvalue()


def to_text(review: Review, deck: Deck, per_hand: bool = True) -> str:
    lines = [f"review of {len(review.hands):,} hand(s) against {review.strategy} ({review.game}); "
             f"{review.samples} samples a decision, {review.seconds:.1f} s",
             "cost: big blinds lost against the solution's mix there (its value of its mix minus its value of "
             "the action taken), with its 95% interval; ? marks a cost resting on under "
             f"{FEW_SAMPLES:.0f} effective samples"]
    if per_hand:
        for h_i, h in enumerate(review.hands):
            reviewed = [d for d in h.decisions if d.probabilities is not None]
            if not reviewed:
                continue
            holes = " / ".join(f"{h.history.players[s]} ({'button' if s == BUTTON else 'big blind'}) "
                               f"{format_cards(h.holes[s], deck) if h.holes[s] else '????'}" for s in (BUTTON, BIG_BLIND))
            lines.append("")
            lines.append(f"hand {review.first_hand + h_i} ({h.history.source}): {holes}")
            lines.append(f"  {'player':<16} {'round':<19} {'cards':<10} {'action':<16} {'cost bb':>8} "
                         f"{'95% interval':<17} solution")
            for d in reviewed:
                name = _short(h.history.players[d.seat], 16)
                rnd = ROUND_NAMES[d.round] if d.round < len(ROUND_NAMES) else f"round {d.round}"
                mark = "?" if d.uncertain else " "
                lines.append(f"  {name:<16} {rnd:<19} {format_cards(d.cards, deck):<10} "
                             f"{_taken_name(d, deck):<16} {_bb(d.cost):>8}{mark}{_interval(d):<17} {_mix_text(d)}")
                for f in d.flags:
                    lines.append(f"  {'':<16} ! {f}")
            for f in h.flags:
                lines.append(f"  ! {f}")
            costs = {}
            for d in reviewed:
                costs[h.history.players[d.seat]] = costs.get(h.history.players[d.seat], 0.0) + d.cost
            lines.append("  hand total: " + ", ".join(f"{k} {_bb(v)} bb" for k, v in costs.items()))
    lines.append("")
    lines.append("summary (big blinds lost to the solution; per hand with its 95% interval over hands)")
    lines.append(f"  {'player':<16} {'hands':>6} {'decisions':>9} {'total':>9} {'betting':>9} {'draws':>9} "
                 f"{'per hand':>9} {'+-':>7}")
    for name, t in review.totals().items():
        ci = t["per_hand_ci95"]
        lines.append(f"  {_short(name, 16):<16} {t['hands']:>6,} {t['decisions']:>9,} {_bb(t['cost']):>9} "
                     f"{_bb(t['betting']):>9} {_bb(t['draws']):>9} {_bb(t['per_hand']):>9} "
                     f"{'-' if math.isinf(ci) else _bb(ci):>7}")
    worst = review.worst(5)
    if worst:
        lines.append("worst decisions (ranked by the low end of their cost's 95% interval):")
        for d in worst:
            lines.append(f"  {_bb(d.cost):>7} bb {_interval(d)}  hand {review.first_hand + d.hand}, {d.place}: "
                         f"{review.player_of(d)} "
                         f"{_taken_name(d, deck)} with {format_cards(d.cards, deck)} "
                         f"({ROUND_NAMES[d.round] if d.round < len(ROUND_NAMES) else d.round}); "
                         f"the solution: {_mix_text(d)}")
    elif review.decisions:
        lines.append("worst decisions: none costs more than zero at the low end of its 95% interval")
    flagged = sum(bool(d.flags) for d in review.decisions)
    if flagged:
        lines.append(f"{flagged} decision(s) flagged (see '!' in the hands)")
    return "\n".join(lines)
