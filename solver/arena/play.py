"""Play real Badugi in the terminal against a solved strategy (``badugi play``).

One deck, the rules of :mod:`solver.arena.simulator`; the strategy plays its
average strategy (mixed actions drawn from a seeded stream, the canonical
discard for its draws). You act by keystrokes: the legal actions are offered
with a letter each; at a draw you type how many cards to draw (the solver's
canonical discard: keep the best cards) or the cards to throw. At any prompt
``?`` shows the solution's mix for your hand in that spot; after a hand, ``r``
reviews it (the cost of each of your decisions, as ``badugi review`` does).
Every hand is written as a PHH file that ``badugi review`` reads back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from abstractions.cards import Deck, format_cards, parse_cards
from abstractions.evaluator import get_evaluator, value_shape
from abstractions.transitions import draw_is_legal

from . import simulator
from .match import MatchGame, Player
from .phh import HandWriter, hand_text, read_phh
from .review import review_hands, to_text

BUTTON, BIG_BLIND = 0, 1
SEAT_NAMES = ("button", "big blind")
WORDS = {"f": "fold", "k": "check", "c": "call", "b": "bet", "r": "raise"}
ROUNDS = ("pre-draw", "after the 1st draw", "after the 2nd draw", "after the 3rd draw")


class Quit(Exception):
    """The player asked to stop (q, end of input)."""


@dataclass
class Table:
    """A session: the game, the strategy, the score, where hands are written."""

    game: MatchGame
    player: Player
    out_dir: Path
    seed: int
    read: callable = input
    write: callable = print
    you: str = "you"
    score: float = 0.0              # big blinds won by you
    hands_played: int = 0
    files: list = field(default_factory=list)

    def __post_init__(self):
        cfg = self.game.config
        self.deck = Deck(cfg.ranks, cfg.suits)
        self.rng = np.random.default_rng(self.seed)
        # A stored strategy is asked a spot at a time (its chunks read as they are needed); any
        # other through the simulator's arrays.
        self.arrays = None if self.player.store is not None else self.game.player_arrays(self.player)
        self.evaluator = get_evaluator(cfg.ranks, cfg.suits, cfg.hand_size)
        rules = self.game.rules
        self.labels = [[[chr(x) for x in rules.label[r, p] if x] for p in range(rules.label.shape[1])]
                       for r in range(rules.label.shape[0])]

    # -- input
    def ask(self, prompt: str) -> str:
        try:
            answer = self.read(prompt)
        except EOFError:
            raise Quit() from None
        answer = answer.strip()
        if answer.lower() in ("q", "quit", "exit"):
            raise Quit()
        return answer

    def cards(self, cards) -> str:
        return format_cards(cards, self.deck)

    def mix_text(self, probs, labels, is_draw) -> str:
        names = [("pat" if a == 0 else f"draw {a}") if is_draw else WORDS[labels[a]] for a in range(len(probs))]
        return ", ".join(f"{n} {p:.0%}" for n, p in zip(names, probs) if p >= 0.005)

    def policy(self, ipos, fpos, records, hand) -> np.ndarray:
        """The solution's mix for ``hand`` at the position (what the simulator's players read)."""
        if self.arrays is None:
            return stored_policy(self.player.store, int(ipos[2]), int(ipos[3]), float(fpos[0]), records,
                                 self.hand_class(hand))
        out = np.zeros(max(self.game.config.hand_size + 1, int(self.game.rules.n_actions.max())))
        n = simulator.action_probabilities(self.arrays, int(ipos[0]), int(ipos[2]), int(ipos[3]), float(fpos[0]),
                                           records, np.array(hand, np.int64), self.game.rules, out)
        return out[:n]

    def hand_class(self, hand) -> int:
        return int(self.evaluator.evaluate(np.array(hand, np.int64)))

    def hand_name(self, hand) -> str:
        return self.evaluator.describe(self.hand_class(hand))

    # -- one hand
    def play_hand(self, your_seat: int) -> float:
        cfg, rules = self.game.config, self.game.rules
        hs = cfg.hand_size
        order = self.rng.permutation(cfg.ranks * cfg.suits).tolist()
        hands = [order[:hs], order[hs:2 * hs]]
        stub, muck = order[2 * hs:], []
        writer = HandWriter(cfg)
        writer.deal(BIG_BLIND, hands[BIG_BLIND])
        writer.deal(BUTTON, hands[BUTTON])
        ipos, fpos = np.zeros(4, np.int64), np.zeros(3)
        records = np.zeros(max(cfg.draws, 1), np.int64)
        simulator.start_position(rules.start_contrib, ipos, fpos, records)
        me, bot = your_seat, 1 - your_seat
        self.seat_of_you = me
        self.write("")
        where = "on the button" if me == BUTTON else "in the big blind"
        self.write(f"hand {self.hands_played + 1}: you are {where}; your cards {self.cards(hands[me])}")
        last_aggressor = BIG_BLIND
        while True:
            rnd, phase = int(ipos[2]), int(ipos[3])
            seat, is_draw = simulator.acting_seat(rules.n_pos, rules.n_out, rules.seat, rnd, phase)
            seat = int(seat)
            pot = float(fpos[1] + fpos[2])
            if is_draw:
                a, thrown = (self.your_draw(hands[me], ipos, fpos, records, rnd) if seat == me
                             else self.bot_draw(hands[bot], ipos, fpos, records))
                taken = []
                for _ in thrown:
                    if not stub:  # the stub is out: the muck, shuffled, is the new stub
                        stub, muck = [muck[i] for i in self.rng.permutation(len(muck))], []
                    taken.append(stub.pop(0))
                hands[seat] = [c for c in hands[seat] if c not in thrown] + taken
                muck += thrown
                writer.draw(seat, thrown, taken)
                if seat == BUTTON:
                    writer.end_draws()
                if seat == me:
                    self.write(f"  you {'stand pat' if a == 0 else f'draw {a}: your cards {self.cards(hands[me])}'}")
                else:
                    self.write(f"  the solver {'stands pat' if a == 0 else f'draws {a}'}")
            else:
                labels = self.labels[rnd][phase]
                if seat == me:
                    a = self.your_bet(labels, hands[me], ipos, fpos, records, rnd, pot)
                else:
                    probs = self.policy(ipos, fpos, records, hands[bot])
                    a = int(self.rng.choice(len(probs), p=probs / probs.sum()))
                    self.write(f"  the solver {WORDS[labels[a]]}s" if labels[a] != "f" else "  the solver folds")
                label = labels[a]
                if label in "br":
                    last_aggressor = seat
                writer.bet(seat, label, float(rules.contrib[rnd, phase, a, seat]))
            end = self.game.advance(ipos, fpos, records, a)
            if is_draw and seat == BUTTON:
                last_aggressor = BIG_BLIND
            if end == simulator.FOLDED:
                won = float(fpos[1 + seat]) * (1 if seat == bot else -1)
                pot = float(fpos[1] + fpos[2])
                break
            if end == simulator.SHOWDOWN_REACHED:
                for s in (last_aggressor, 1 - last_aggressor):
                    writer.show(s, hands[s])
                v = [simulator.hand_value(np.array(h, np.int64), rules.suits, rules.ranks, rules.code_to_value)
                     for h in hands]
                c0 = float(fpos[1])
                pot = 2 * c0
                self.write(f"  showdown: you {self.cards(hands[me])} ({self.hand_name(hands[me])}), the solver "
                           f"{self.cards(hands[bot])} ({self.hand_name(hands[bot])})")
                won = 0.0 if v[0] == v[1] else (c0 if v[me] < v[bot] else -c0)
                break
        won /= cfg.big_blind
        self.score += won
        self.hands_played += 1
        names = [self.you, "solver"] if me == BUTTON else ["solver", self.you]
        path = self.out_dir / f"hand-{self.hands_played:04d}.phh"
        path.write_text(hand_text(cfg, names, writer.actions), encoding="utf-8")
        self.files.append(path)
        result = f"you win {won:g} bb" if won > 0 else (f"you lose {-won:g} bb" if won < 0 else "split pot: 0 bb")
        self.write(f"  {result} (the pot {pot / cfg.big_blind:g} bb); score {self.score:+g} bb after "
                   f"{self.hands_played} hand(s) (written to {path})")
        return won

    def your_bet(self, labels, hand, ipos, fpos, records, rnd, pot) -> int:
        keys = {label: label for label in labels}
        menu = "  ".join(f"[{k}] {WORDS[k]}" for k in labels)
        mine = float(fpos[1 + self.seat_of_you])
        to_call = max(float(fpos[1]), float(fpos[2])) - mine
        owed = f"{to_call / self.game.config.big_blind:g} bb to call" if to_call > 0 else "nothing to call"
        while True:
            answer = self.ask(f"{ROUNDS[rnd]}, pot {pot:g} bb, {owed}, your cards {self.cards(hand)}: {menu}  "
                              "[?] advice > ")
            if answer == "?":
                probs = self.policy(ipos, fpos, records, hand)
                self.write(f"  the solution here: {self.mix_text(probs, labels, False)}")
                continue
            key = answer[:1].lower()
            if key in keys:
                return labels.index(key)
            self.write(f"  '{answer}' is not an action here: type one of {', '.join(labels)} (or ? or q)")

    def your_draw(self, hand, ipos, fpos, records, rnd) -> tuple[int, list[int]]:
        cfg = self.game.config
        hs = cfg.hand_size
        count, _ = value_shape(np.array(hand, np.int64), hs, cfg.suits)
        while True:
            answer = self.ask(f"draw {rnd + 1}, your cards {self.cards(hand)}: how many to draw (0-{hs}), or the "
                              "cards to throw  [?] advice > ")
            if answer == "?":
                probs = self.policy(ipos, fpos, records, hand)
                self.write(f"  the solution here: {self.mix_text(probs, [], True)}")
                continue
            if answer.isdigit():
                d = int(answer)
                if d > hs:
                    self.write(f"  a hand has {hs} cards: draw 0 to {hs}")
                    continue
                if not draw_is_legal(count, hs, d):
                    self.write(f"  drawing {d} keeps a card that does not play; draw {hs - count} or more, or 0")
                    continue
                return d, self.canonical_discard(hand, d)
            try:
                thrown = [int(c) for c in parse_cards(answer, self.deck)]
            except ValueError as e:
                self.write(f"  {e}")
                continue
            missing = [c for c in thrown if c not in hand]
            if missing:
                self.write(f"  {self.cards(missing)} is not in your hand")
                continue
            return len(thrown), thrown

    def bot_draw(self, hand, ipos, fpos, records) -> tuple[int, list[int]]:
        probs = self.policy(ipos, fpos, records, hand)
        d = int(self.rng.choice(len(probs), p=probs / probs.sum()))
        return d, self.canonical_discard(hand, d)

    def canonical_discard(self, hand, d) -> list[int]:
        """The cards the solver throws when ``hand`` draws ``d``: all but its best valid ones."""
        mask = simulator.canonical_mask(np.array(hand, np.int64), d, self.game.config.suits)
        return [c for i, c in enumerate(hand) if not mask >> i & 1]

    def review_last(self, samples: int) -> None:
        hands = read_phh(self.files[-1], self.game.config)
        review = review_hands(hands, self.player, self.game, self.you, samples, seed=self.hands_played)
        self.write(to_text(review, self.deck))


def stored_policy(store, rnd: int, phase: int, pot: float, records, value: int) -> np.ndarray:
    """A stored strategy's mix for hand class ``value`` at a position, read from its chunks: the
    numbers :func:`simulator.action_probabilities` reads from its arena (float32 probabilities,
    normalised again in float64)."""
    slot = store.key_slot(rnd, phase, pot, [int(r) for r in records[:rnd]])
    rows = store.slot_rows(slot)[:, store.lite.row_of[rnd, value]].astype(np.float64)
    total = 0.0
    for x in rows:
        total += x
    return rows / total if total > 0 else np.full(len(rows), 1.0 / len(rows))


def play_session(player: Player, out_dir: Path, hands: int | None, seat: str, seed: int, samples: int,
                 read=input, write=print) -> Table:
    """Hands against ``player`` until ``hands`` are played or the player quits; returns the table."""
    game = MatchGame.of(player.config.at_full_resolution())
    out_dir.mkdir(parents=True, exist_ok=True)
    table = Table(game, player, out_dir, seed, read, write)
    write(f"badugi play: {game.config.describe()} against {player.name}; hands are written to {out_dir}/")
    write("keys: the letter of an action, a draw count or the cards to throw, ? for the solution's advice, "
          "q to stop")
    try:
        while hands is None or table.hands_played < hands:
            your_seat = {"button": BUTTON, "big-blind": BIG_BLIND}.get(seat, table.hands_played % 2)
            table.play_hand(your_seat)
            if hands is not None and table.hands_played >= hands:
                answer = table.ask("[r] review this hand, [enter] finish > ")
            else:
                answer = table.ask("[enter] next hand, [r] review this hand, [q] stop > ")
            if answer.lower().startswith("r"):
                table.review_last(samples)
    except Quit:
        pass
    write(f"{table.hands_played} hand(s), score {table.score:+g} bb"
          + (f"; review them: badugi review {out_dir}/hand-*.phh --hero you" if table.hands_played else ""))
    return table
