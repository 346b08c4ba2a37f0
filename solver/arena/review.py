"""Review hand histories against a solved strategy: what each decision cost, in big blinds.

For every decision of a reviewed seat, the review gives the solution's
frequencies for the hand held there, the action taken, and its cost: the
solution's value of its own mix there minus its value of the action taken,
both with the solution playing both seats afterwards, in real Badugi (one
deck). The values are those of the decision's *information*: the opponent's
cards are not known to the player, so they are weighed by what the solution
believes of them, given the public actions, the cards the player has seen and
the solution's own strategy for the opponent.

How (Monte Carlo, :func:`decision_values`): each sample deals the opponent a
hand from the cards the player has not seen, replays the opponent's past
actions and draws on it (the canonical discard, new cards from the unseen
ones), weighs it by the solution's probability of every one of those actions,
then plays the hand out from the decision once for each action the cost
needs (the solution's mix there and the action taken; every legal action on
request), with the same cards and random stream for each (common random
numbers), the solution choosing every later action. Where the action taken is
the solution's only one there, its cost is 0 and nothing is played out. A
value is the weighted mean over samples; its standard error is reported. A player who plays the solution's
mix loses nothing on average; the costs of a player's decisions add up, on
average, to what the player loses against the solution (the
performance-difference identity: the solution is the opponent, so the
weighting is the true belief).

What the review maps, always with a flag on the decision: a raise beyond the
strategy's cap (played as a call), a fold when checking was free (played as a
check), a draw that keeps a dead card (played as the smallest legal draw), and
a discard other than the canonical one (valued as the canonical discard of the
same count).
"""

from __future__ import annotations

import csv
import io
import json
import math
import time
from dataclasses import dataclass, field

import numpy as np

import numba
from numba import njit

from abstractions.cards import Deck, format_cards
from abstractions.evaluator import value_shape
from abstractions.random import below, stream_seed
from abstractions.transitions import draw_is_legal

from ..cfr.walker import in_threads
from . import simulator
from .match import MatchGame, Player
from .phh import BIG_BLIND, BUTTON, PHH_PLAYER, HandHistory, PHHError

ROUND_NAMES = ("pre-draw", "after the 1st draw", "after the 2nd draw", "after the 3rd draw")
DEFAULT_SAMPLES = 128
# The least probability an opponent's past action counts with: an action the solution never takes
# with a sampled hand weighs that hand by this much (a tremble) instead of ruling it out, so a
# baseline that does what the solution never does still gets a belief.
TREMBLE = 1e-6


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
    # Filled by the review:
    probabilities: list[float] | None = None
    values: list[float] | None = None   # big blinds, per action (nan where not legal or not played out)
    stderr: float = 0.0                 # standard error of the cost, big blinds
    cost: float = 0.0                   # big blinds lost against the solution's mix
    samples: int = 0                    # opponent hands sampled (0: none, the action taken being the solution's only one)
    effective_samples: float | None = 0.0   # None where nothing was sampled


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
            if actor != seat:
                fail(move, f"{PHH_PLAYER[seat]} acts out of turn ({PHH_PLAYER[int(actor)]} is to "
                           f"{'draw' if is_draw else 'act'})")
            flags: list[str] = []
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
                    if not draw_is_legal(count, hs, d):
                        action = hs - count
                        flags.append(f"keeps a dead card: drawing {d} is valued as drawing {action}, the "
                                     "smallest draw the solution knows here")
                    elif 0 < d < hs and None not in thrown:
                        mask = simulator.canonical_mask(arr, d, cfg.suits)
                        canonical = sorted(known[i] for i in range(hs) if not mask >> i & 1)
                        if canonical != sorted(thrown):
                            flags.append(f"throws {self.cards_text(thrown)}, not the canonical "
                                         f"{self.cards_text(canonical)}: valued as the canonical draw of {d}")
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
                                      ipos.copy(), fpos.copy(), records.copy(), move.line, flags))
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


# ---------------------------------------------------------------- values

@njit(cache=True)
def _one_decision(player, game, i, first, dec_int, dec_float, dec_records, dec_hand, dec_seen, samples, seed,
                  every, probs, values, spread, stats):
    """The values of decision ``i`` (see the module's docstring); ``first``: its hand's first
    decision. ``dec_int`` rows: node, first child, round, phase, seat, is_draw, action. Unless
    ``every``, only the actions the cost needs are played out: those the solution's mix plays and
    the one taken (the others' values stay NaN)."""
    hs = game.hand_size
    n_cards = game.ranks * game.suits
    hero = dec_int[i, 4]
    opp = 1 - hero
    node, rnd, phase = dec_int[i, 0], dec_int[i, 2], dec_int[i, 3]
    hero_hand = dec_hand[i].copy()
    n_act = simulator.action_probabilities(player, node, rnd, phase, dec_float[i, 0], dec_records[i], hero_hand,
                                           game, probs[i])
    is_draw = dec_int[i, 5] == 1
    legal = np.ones(n_act, np.bool_)
    if is_draw:
        count, _ = value_shape(hero_hand, hs, game.suits)
        for a in range(n_act):
            legal[a] = draw_is_legal(count, hs, a)
    taken = dec_int[i, 6]
    needed = legal.copy()
    if not every:
        n_needed = 0
        for a in range(n_act):
            needed[a] = legal[a] and (probs[i, a] > 0.0 or a == taken)
            n_needed += needed[a]
        if n_needed == 1 and needed[taken]:
            # The solution's only action, taken: it costs 0 whatever the values, and nothing is
            # sampled (no belief is needed); stats[i, 0] < 0 says so.
            stats[i, 0], stats[i, 1], stats[i, 2] = -1.0, 0.0, 1.0
            for a in range(n_act):
                values[i, a] = np.nan
            spread[i] = 0.0
            return
    # The opponent's cards come from the cards the player has not seen; in a small deck, once
    # those run out, from the ones the player threw (the stub was remade from the muck).
    pool = np.empty(n_cards, np.int64)
    n_unseen = 0
    for c in range(n_cards):
        if dec_seen[i, c] == 0:
            pool[n_unseen] = c
            n_unseen += 1
    n_pool = n_unseen
    for c in range(n_cards):
        if dec_seen[i, c] == 1:
            held = False
            for k in range(hs):
                held = held or hero_hand[k] == c
            if not held:
                pool[n_pool] = c
                n_pool += 1
    work = np.empty(n_cards, np.int64)
    opp_hand = np.empty(hs, np.int64)
    cards = simulator.new_cards(n_cards, hs)
    hands, stub, muck, piles = cards.hands, cards.stub, cards.muck, cards.piles
    thrown = np.empty(n_cards, np.int64)
    ipos = np.empty(4, np.int64)
    fpos = np.empty(3)
    records = np.empty(dec_records.shape[1], np.int64)
    row = np.empty(max(hs + 1, probs.shape[1]), np.float64)
    payoff = np.empty(2)
    path = np.zeros(64, np.uint8)
    script = np.empty(1, np.int64)
    nothing = np.zeros(0, np.int64)
    players = (player, player)
    seat_player = np.zeros(2, np.int64)
    state = np.empty(1, np.uint64)
    total = np.zeros(n_act)
    w_sum = 0.0
    w_sq = 0.0
    # Per sample: the weighted cost-relevant values, for the spread of the mean.
    sample_values = np.empty((samples, n_act))
    sample_w = np.zeros(samples)
    for p in range(samples):
        state[0] = stream_seed(seed, np.uint64(i) * np.uint64(1 << 20) + np.uint64(p))
        for k in range(n_pool):
            work[k] = pool[k]
        top = 0
        w = 1.0 if n_pool >= hs else 0.0
        for k in range(min(hs, n_pool)):
            j = top + below(state, (n_unseen if top < n_unseen else n_pool) - top)
            work[top], work[j] = work[j], work[top]
            opp_hand[k] = work[top]
            top += 1
        n_thrown = 0
        trembled = False
        for j in range(first, i):
            if w == 0.0:
                break
            if dec_int[j, 4] != opp:
                continue
            n = simulator.action_probabilities(player, dec_int[j, 0], dec_int[j, 2], dec_int[j, 3], dec_float[j, 0],
                                               dec_records[j], opp_hand, game, row)
            a = dec_int[j, 6]
            p_a = row[a] if a < n else 0.0
            if p_a < TREMBLE:
                p_a = TREMBLE  # an action the solution never takes with this hand: a tremble
                trembled = True
            w *= p_a
            if dec_int[j, 5] == 1 and a > 0:
                mask = simulator.canonical_mask(opp_hand, a, game.suits)
                if mask < 0:
                    w = 0.0  # keeping that many would keep a dead card: not a draw of the model
                    break
                n_kept, n_thrown = simulator.split_kept(opp_hand, mask, thrown, n_thrown)
                if n_pool - top < hs - n_kept:
                    w = 0.0  # more cards drawn than this small deck has left for them
                    break
                for k in range(n_kept, hs):
                    jj = top + below(state, (n_unseen if top < n_unseen else n_pool) - top)
                    work[top], work[jj] = work[jj], work[top]
                    opp_hand[k] = work[top]
                    top += 1
        if w == 0.0:
            continue
        # The stub: the unseen cards nobody holds, in a random order; the muck: the thrown ones.
        n_stub = max(n_unseen - top, 0)
        for k in range(n_stub):
            stub[k] = work[top + k]
        simulator.shuffle(stub, n_stub, state)
        saved_stub = stub[:n_stub].copy()
        n_muck = 0
        for k in range(max(top, n_unseen), n_pool):
            muck[n_muck] = work[k]
            n_muck += 1
        for k in range(n_thrown):
            muck[n_muck] = thrown[k]
            n_muck += 1
        saved_muck = muck[:n_muck].copy()
        stream = state[0]
        for a in range(n_act):
            sample_values[p, a] = 0.0
            if not needed[a]:
                continue
            for k in range(hs):
                hands[hero, k] = hero_hand[k]
                hands[opp, k] = opp_hand[k]
            stub[:n_stub] = saved_stub
            muck[:n_muck] = saved_muck
            piles[0], piles[1], piles[2] = 0, n_stub, n_muck
            for k in range(4):
                ipos[k] = dec_int[i, k]
            for k in range(3):
                fpos[k] = dec_float[i, k]
            records[:] = dec_records[i]
            script[0] = a
            state[0] = stream
            simulator.play_on(ipos, fpos, records, cards, players, seat_player, state, game, payoff, path, 0, script,
                              nothing)
            sample_values[p, a] = payoff[hero]
            total[a] += w * payoff[hero]
        sample_w[p] = w
        w_sum += w
        w_sq += w * w
        if not trembled:
            stats[i, 2] += 1
    stats[i, 0] = w_sum
    stats[i, 1] = w_sum * w_sum / w_sq if w_sq > 0 else 0.0
    if w_sum <= 0.0:
        return
    for a in range(n_act):
        values[i, a] = total[a] / w_sum if needed[a] else np.nan
    # The spread of each sample's cost of the action taken (ratio estimator's linearisation).
    mean_cost = 0.0
    for a in range(n_act):
        if needed[a]:
            mean_cost += probs[i, a] * values[i, a]
    mean_cost -= values[i, taken]
    acc = 0.0
    for p in range(samples):
        if sample_w[p] == 0.0:
            continue
        c = -sample_values[p, taken]
        for a in range(n_act):
            if needed[a]:
                c += probs[i, a] * sample_values[p, a]
        acc += (sample_w[p] * (c - mean_cost)) ** 2
    spread[i] = math.sqrt(acc) / w_sum


@njit(cache=True, nogil=True)
def decision_values(player, game, todo, hand_first, dec_int, dec_float, dec_records, dec_hand, dec_seen, samples,
                    seed, every, probs, values, spread, stats):
    """The solution's probabilities and action values (chips, for the deciding seat) of every
    decision ``todo[k]``, independent of each other: one stream per decision and sample (threads
    may share the decisions out: the kernel lets go of the GIL)."""
    for k in range(len(todo)):
        i = todo[k]
        _one_decision(player, game, i, hand_first[i], dec_int, dec_float, dec_records, dec_hand, dec_seen, samples,
                      seed, every, probs, values, spread, stats)


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
        return sorted(self.decisions, key=lambda d: -d.cost)[:n]


def review_hands(histories: list[HandHistory], player: Player, game: MatchGame, seats: str = "both",
                 samples: int = DEFAULT_SAMPLES, seed: int = 0, every_action: bool = False) -> Review:
    """Replay ``histories`` and value every decision of ``seats`` ("both", or a player's name, or
    p1/p2) against ``player``'s strategy. The actions played out at a decision are those its cost
    needs (the solution's mix there and the action taken; none where the action taken is the
    solution's only one), or with ``every_action`` every legal action."""
    if samples < 1:
        raise ValueError("--samples must be at least 1")
    start = time.perf_counter()
    replayer = Replayer(game)
    hands = [replayer.replay(h, i) for i, h in enumerate(histories)]
    decisions = [d for h in hands for d in h.decisions]
    cfg = game.config
    hs, n_cards = cfg.hand_size, cfg.ranks * cfg.suits
    n = len(decisions)
    width = max(hs + 1, int(game.rules.n_actions.max()))
    dec_int = np.zeros((n, 7), np.int64)
    dec_float = np.zeros((n, 3))
    dec_records = np.zeros((n, max(cfg.draws, 1)), np.int64)
    dec_hand = np.zeros((n, hs), np.int64)
    dec_seen = np.zeros((n, n_cards), np.uint8)
    hand_first = np.zeros(n, np.int64)
    todo = []
    k = 0
    for h in hands:
        first = k
        for d in h.decisions:
            dec_int[k] = (*d.ipos, d.seat, int(d.is_draw), d.action)
            dec_float[k] = d.fpos
            dec_records[k] = d.records
            hand_first[k] = first
            if d.cards is not None:
                dec_hand[k] = d.cards
                dec_seen[k, d.seen] = 1
                if _reviewed(seats, h.history, d.seat):
                    todo.append(k)
            elif _reviewed(seats, h.history, d.seat) and seats != "both":
                note = f"{h.history.players[d.seat]}'s cards are not in the history here: not reviewed"
                if note not in h.flags:
                    h.flags.append(note)
            k += 1
    probs = np.zeros((n, width))
    values = np.full((n, width), np.nan)
    spread = np.zeros(n)
    stats = np.zeros((n, 3))
    if todo:
        arrays = game.player_arrays(player)
        todo_arr = np.array(todo, np.int64)
        threads = max(1, min(numba.get_num_threads(), len(todo)))

        def work(t):
            decision_values(arrays, game.rules, todo_arr[t::threads], hand_first, dec_int, dec_float, dec_records,
                            dec_hand, dec_seen, samples, seed, every_action, probs, values, spread, stats)

        in_threads(threads, work)
    big = cfg.big_blind
    for k in todo:
        d = decisions[k]
        n_act = len(d.labels)
        d.probabilities = probs[k, :n_act].tolist()
        if stats[k, 0] < 0:  # the solution's only action there, taken: 0, nothing sampled
            d.values, d.cost, d.samples, d.effective_samples = [float("nan")] * n_act, 0.0, 0, None
            continue
        d.samples = samples
        d.effective_samples = float(stats[k, 1])
        if stats[k, 0] == 0:
            d.flags.append("no opponent hand fits the cards seen here: no value")
            d.values = [float("nan")] * n_act
            d.cost = 0.0
            continue
        if stats[k, 2] == 0:
            d.flags.append("the opponent's actions are ones the solution never takes with any hand sampled: its "
                           "hands are weighed as if it trembled")
        v = values[k, :n_act] / big
        d.values = v.tolist()
        d.cost = float(np.nansum(probs[k, :n_act] * np.nan_to_num(v))) - float(v[d.action])
        d.stderr = float(spread[k]) / big
    return Review(player.name, cfg.describe(), hands, seats, samples, time.perf_counter() - start)


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


def _mix_text(d: Decision) -> str:
    return " ".join(f"{_action_name(d, a)} {p:.0%}" for a, p in enumerate(d.probabilities) if p >= 0.005)


def decision_rows(review: Review, deck: Deck) -> list[dict]:
    rows = []
    for h_i, h in enumerate(review.hands):
        for d in h.decisions:
            if d.probabilities is None:
                continue
            rows.append({"hand": h_i + 1, "source": h.history.source, "line": d.line,
                         "player": h.history.players[d.seat], "seat": "button" if d.seat == BUTTON else "big blind",
                         "round": ROUND_NAMES[d.round] if d.round < len(ROUND_NAMES) else f"round {d.round}",
                         "kind": "draw" if d.is_draw else "betting", "cards": format_cards(d.cards, deck),
                         "action": _action_name(d, d.action),
                         "solution": {_action_name(d, a): round(p, 4) for a, p in enumerate(d.probabilities)},
                         "values_bb": {_action_name(d, a): (None if math.isnan(v) else round(v, 4))
                                       for a, v in enumerate(d.values)},
                         "cost_bb": round(d.cost, 4), "stderr_bb": round(d.stderr, 4),
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
    names = ["hand", "source", "line", "player", "seat", "round", "kind", "cards", "action", "solution",
             "values_bb", "cost_bb", "stderr_bb", "effective_samples", "flags"]
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
             "the action taken)"]
    if per_hand:
        for h_i, h in enumerate(review.hands):
            reviewed = [d for d in h.decisions if d.probabilities is not None]
            if not reviewed:
                continue
            holes = " / ".join(f"{h.history.players[s]} ({'button' if s == BUTTON else 'big blind'}) "
                               f"{format_cards(h.holes[s], deck) if h.holes[s] else '????'}" for s in (BUTTON, BIG_BLIND))
            lines.append("")
            lines.append(f"{h.history.source}: {holes}")
            lines.append(f"  {'player':<16} {'round':<19} {'cards':<10} {'action':<8} {'cost bb':>8}  solution")
            for d in reviewed:
                name = _short(h.history.players[d.seat], 16)
                rnd = ROUND_NAMES[d.round] if d.round < len(ROUND_NAMES) else f"round {d.round}"
                lines.append(f"  {name:<16} {rnd:<19} {format_cards(d.cards, deck):<10} "
                             f"{_action_name(d, d.action):<8} {_bb(d.cost):>8}  {_mix_text(d)}")
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
    worst = [d for d in review.worst(5) if d.cost > 0]
    if worst:
        lines.append("worst decisions:")
        for d in worst:
            lines.append(f"  {_bb(d.cost):>7} bb  {review.hands[d.hand].history.where(d.line)}: {review.player_of(d)} "
                         f"{_action_name(d, d.action)} with {format_cards(d.cards, deck)} "
                         f"({ROUND_NAMES[d.round] if d.round < len(ROUND_NAMES) else d.round}); "
                         f"the solution: {_mix_text(d)}")
    flagged = sum(bool(d.flags) for d in review.decisions)
    if flagged:
        lines.append(f"{flagged} decision(s) flagged (see '!' in the hands)")
    return "\n".join(lines)
