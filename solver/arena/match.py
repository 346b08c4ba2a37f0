"""Head-to-head matches in real Badugi: players, duplicate deals, confidence intervals.

A player is a solved strategy directory or one of the baselines ``rule``,
``station`` and ``random`` (see :mod:`solver.arena.simulator`). Every deal is played
twice with the same deck and the seats swapped, so the luck of the cards
cancels; the per-deal figure is the mean of the two games, and the 95%
interval is mean +- 1.96 standard errors over deals.

>>> result = play_match(load_preset("tiny-single-draw"), "rule", "random", hands=2000, seed=1)
>>> result.deals, result.games
(1000, 2000)
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from abstractions.evaluator import get_evaluator

from ..cfr.store import CompactStore, is_store, no_store, read_strategy
from ..cfr.walker import Walker, read_only
from ..game.config import GameConfig, load_preset  # noqa: F401  (load_preset: doctest)
from ..game.layout import StrategyLayout, no_layout, no_rule
from ..game.rounds import RoundTemplates
from ..game.plan import SolveTooLarge, format_bytes
from ..game.setup import GameSetup
from ..game.tree import PublicTree
from . import simulator

BASELINES = ("rule", "station", "random")


@dataclass
class Player:
    """A player for the simulator: a baseline, or a solved strategy with its layout and tree, or a
    compact strategy's store (read whole but not expanded: :meth:`CompactStore.arena`)."""

    name: str
    code: int
    config: GameConfig | None = None           # the game a strategy was solved for
    probabilities: np.ndarray | None = None    # the strategy, laid out by ``layout``
    layout: StrategyLayout | None = None
    tree: PublicTree | None = None             # the strategy's public tree
    store: CompactStore | None = None          # a stored strategy (no ``probabilities``)
    counted: bool = False                      # a store's rows sampled from their counts

    @classmethod
    def of_strategy(cls, name: str, config: GameConfig, tree: PublicTree, layout: StrategyLayout,
                    probabilities: np.ndarray) -> "Player":
        """A strategy player: average probabilities (float32) laid out by ``layout``, or a compact
        strategy's counts in bytes (each row the same distribution unnormalised: the simulator
        samples either)."""
        if probabilities.dtype != np.uint8:
            probabilities = np.asarray(probabilities, dtype=np.float32)
        return cls(name, simulator.STRATEGY, config, probabilities, layout, tree)

    def arrays(self, rounds: int, n_states: int) -> simulator.PlayerArrays:
        """What the simulator kernels read of this player: its layout by node when the layout has
        one slot entry per node, else by its recall rule; a store's rows through its arena."""
        no_probabilities, no_weights = read_only(np.zeros(1, np.float32)), read_only(np.zeros(1, np.uint8))
        if self.store is not None:
            store = self.store
            return simulator.PlayerArrays(self.code, no_probabilities, no_weights, self.counted,
                                          store.kernel_layout, store.rule_arrays, True, store.arena(), True)
        if self.layout is None:
            return simulator.PlayerArrays(self.code, no_probabilities, no_weights, False, no_layout(rounds, n_states),
                                          no_rule(rounds), False, no_store(), False)
        layout = self.layout
        by_rule = len(layout.slot_of) == 0
        rule = layout.rule.kernel_arrays(layout.slot_offset) if by_rule else no_rule(rounds)
        counted = self.probabilities.dtype == np.uint8
        return simulator.PlayerArrays(self.code, no_probabilities if counted else read_only(self.probabilities),
                                      read_only(self.probabilities) if counted else no_weights, counted,
                                      layout.kernel_arrays(), rule, by_rule, no_store(), False)


def load_player(spec: str, weights: bool = False) -> Player:
    """``rule``, ``station``, ``random`` or a strategy directory; ValueError otherwise.
    ``weights``: a compact strategy sampled from its counts (a match: the expanded file's bytes
    are a quarter of float32's; a store's rows are its counts either way)."""
    if spec in BASELINES:
        return Player(spec, simulator.PLAYER_CODES[spec])
    path = Path(spec)
    if not path.is_dir():
        raise ValueError(f"player {spec!r} is neither a baseline ({', '.join(BASELINES)}) nor a strategy directory")
    if is_store(path):
        store = CompactStore(path)
        if store.by_rule:
            return Player(str(path), simulator.STRATEGY, store.config, store=store,
                          counted=weights and store.bits <= 8)
    saved = read_strategy(path, weights)
    return Player.of_strategy(str(path), saved.config, saved.tree, saved.layout, saved.probabilities)


def _game_of(config: GameConfig) -> GameConfig:
    """The game itself, without the abstraction a strategy was solved in."""
    return config.at_full_resolution()


def match_config(players: list[Player], config: GameConfig | None) -> GameConfig:
    """The game a match is played in: the strategies' (they must agree), else ``config``."""
    games = {_game_of(p.config) for p in players if p.config is not None}
    if len(games) > 1:
        raise ValueError("the strategies were solved for different games: "
                         + "; ".join(sorted(g.describe() for g in games)))
    if games:
        game = games.pop()
        if config is not None and _game_of(config) != game:
            raise ValueError(f"the strategies play {game.describe()}, not {config.describe()}")
        return game
    if config is None:
        raise ValueError("two baselines need a game: give --preset or --config")
    game = _game_of(config)
    if 2 * game.hand_size > game.ranks * game.suits:
        raise ValueError(f"a {game.ranks * game.suits}-card deck cannot deal two {game.hand_size}-card hands")
    return game


@dataclass
class MatchGame:
    """A game ready for the simulator: its config and the kernels' rules (no tree is built)."""

    config: GameConfig
    rules: simulator.GameRules
    n_states: int

    @classmethod
    def of(cls, config: GameConfig) -> "MatchGame":
        templates = RoundTemplates.of(config)
        ev = get_evaluator(config.ranks, config.suits, config.hand_size)
        codes = ev.value_codes.astype(np.int64)
        code_to_value = np.full(int(codes.max()) + 1, -1, dtype=np.int64)
        code_to_value[codes] = np.arange(len(codes))
        seat, label, kind, target, contrib, n_pos, n_out, start = templates.arrays
        rules = simulator.GameRules(seat, label, kind, target, contrib, n_pos, n_out, start,
                                    (label > 0).sum(axis=2).astype(np.int64), templates.subtree_sizes(),
                                    config.draws, config.hand_size, config.suits, config.ranks, code_to_value)
        return cls(config, rules, ev.n_values)

    def player_arrays(self, player: Player) -> simulator.PlayerArrays:
        return player.arrays(self.config.rounds, self.n_states)

    def advance(self, ipos, fpos, records, a) -> int:
        """Move a position by action ``a`` (:func:`simulator.advance`); returns the outcome."""
        if not hasattr(self, "_anyone"):
            self._anyone = self.player_arrays(Player("rule", simulator.RULE))
        return simulator.advance(ipos, fpos, records, a, self.rules, self._anyone)


@dataclass
class MatchResult:
    game: str
    player_a: str
    player_b: str
    deals: int
    seed: int
    mbb: float              # player A's mean, mbb/hand
    ci95: float             # half-width of the 95% interval, mbb/hand
    button_mbb: float       # A's mean with the button
    button_ci95: float
    big_blind_mbb: float    # A's mean in the big blind
    big_blind_ci95: float
    seconds: float

    @property
    def games(self) -> int:
        return 2 * self.deals

    @property
    def hands_per_second(self) -> float:
        return self.games / self.seconds if self.seconds > 0 else float("inf")

    def to_json(self) -> dict:
        return {"game": self.game, "player_a": self.player_a, "player_b": self.player_b, "deals": self.deals,
                "games": self.games, "seed": self.seed, "mbb_per_hand": self.mbb, "ci95_mbb": self.ci95,
                "button_mbb": self.button_mbb, "button_ci95_mbb": self.button_ci95,
                "big_blind_mbb": self.big_blind_mbb, "big_blind_ci95_mbb": self.big_blind_ci95,
                "seconds": self.seconds, "hands_per_second": self.hands_per_second}

    def describe(self) -> str:
        return (f"{self.player_a} vs {self.player_b} in {self.game}: {self.games:,} hands "
                f"({self.deals:,} duplicate deals, seed {self.seed})\n"
                f"  {self.player_a}: {self.mbb:+.1f} +- {self.ci95:.1f} mbb/hand (95%)\n"
                f"  with the button {self.button_mbb:+.1f} +- {self.button_ci95:.1f}, "
                f"in the big blind {self.big_blind_mbb:+.1f} +- {self.big_blind_ci95:.1f}\n"
                f"  {self.hands_per_second:,.0f} hands/s")


def _mean_ci(x: np.ndarray) -> tuple[float, float]:
    if len(x) < 2:
        return float(x.mean()) if len(x) else 0.0, float("inf")
    return float(x.mean()), 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))


CHUNK_DEALS = 250_000


@dataclass
class HandRecord:
    """One hand played from a chosen deck order."""

    history: str           # the public history of the hand, to its end
    hands: list[str]       # final hands by seat (button, big blind)
    payoff: list[float]    # chips won by seat


def play_hand(game: MatchGame, deck, button: Player, big_blind: Player, seed: int = 0) -> HandRecord:
    """Play one hand with the deck in the given order (card numbers; see ``abstractions.cards``)."""
    from abstractions.cards import Deck, format_cards

    cfg = game.config
    deck = np.asarray(deck, dtype=np.int64)
    if sorted(deck.tolist()) != list(range(cfg.ranks * cfg.suits)):
        raise ValueError(f"a deck order must hold each of the {cfg.ranks * cfg.suits} cards once")
    players = (game.player_arrays(button), game.player_arrays(big_blind))
    hands = np.empty((2, cfg.hand_size), np.int64)
    payoff = np.empty(2)
    state = np.array([seed], dtype=np.uint64)
    path = np.zeros(64, np.uint8)
    n = simulator.play_hand(deck, players, np.array([0, 1]), state, game.rules, hands, payoff, path,
                            np.zeros(0, np.int64))
    card_deck = Deck(cfg.ranks, cfg.suits)
    return HandRecord(history_of(bytes(path[:n]).decode()), [format_cards(sorted(h), card_deck) for h in hands.tolist()],
                      payoff.tolist())


def history_of(labels: str) -> str:
    """The history notation of a sequence of action labels: a "/" closes each betting round that
    a draw follows, and each draw pair."""
    out = []
    for i, label in enumerate(labels):
        if label.isdigit() and (i == 0 or not labels[i - 1].isdigit()):
            out.append("/")
        out.append(label)
        if label.isdigit() and i > 0 and labels[i - 1].isdigit() and (i < 2 or not labels[i - 2].isdigit()):
            out.append("/")
    return "".join(out)


def play_deals(game: MatchGame, player_a: Player, player_b: Player, deals: int, seed: int,
               progress=None) -> np.ndarray:
    """(deals, 2) chips won by A per deal: with the button, then in the big blind.

    Deals are played in chunks (``progress(done, deals)`` after each); deal ``i``
    depends only on the seed and ``i``, so chunking changes nothing.
    """
    players = (game.player_arrays(player_a), game.player_arrays(player_b))
    out = np.zeros((deals, 2))
    for lo in range(0, deals, CHUNK_DEALS):
        hi = min(lo + CHUNK_DEALS, deals)
        simulator.play_match(players, lo, hi, seed, game.rules, out)
        if progress is not None:
            progress(hi, deals)
    return out


def play_match(config: GameConfig | None, a: str | Player, b: str | Player, hands: int, seed: int = 0,
               game: MatchGame | None = None, progress=None) -> MatchResult:
    """``hands`` games (rounded up to whole duplicate pairs) of A against B."""
    if hands < 2:
        raise ValueError("a match needs at least 2 hands (one duplicate deal)")
    if seed < 0:
        raise ValueError("the seed must be a non-negative integer")
    player_a = a if isinstance(a, Player) else load_player(a)
    player_b = b if isinstance(b, Player) else load_player(b)
    config = match_config([player_a, player_b], config)
    game = game if game is not None and game.config == config else MatchGame.of(config)
    deals = (hands + 1) // 2
    start = time.perf_counter()
    chips = play_deals(game, player_a, player_b, deals, seed, progress)
    seconds = time.perf_counter() - start
    mbb = chips * 1000.0 / config.big_blind
    mean, ci = _mean_ci(mbb.mean(axis=1))
    button, button_ci = _mean_ci(mbb[:, 0])
    big_blind, big_blind_ci = _mean_ci(mbb[:, 1])
    return MatchResult(config.describe(), player_a.name, player_b.name, deals, seed, mean, ci,
                       button, button_ci, big_blind, big_blind_ci, seconds)


def hand_of_each_class(config: GameConfig) -> np.ndarray:
    """(N, hand_size): one real hand of each value class (the first in card order)."""
    from itertools import combinations

    ev = get_evaluator(config.ranks, config.suits, config.hand_size)
    hands = np.array(list(combinations(range(config.ranks * config.suits), config.hand_size)), dtype=np.int64)
    _, first = np.unique(ev.evaluate_batch(hands), return_index=True)
    return hands[first]


@dataclass
class ModelGame:
    """A game's built tree, a full-resolution layout over it and a walker: where fixed strategies
    (solved or baseline, as policies per value class) are played against each other exactly, in
    the solver's model (independent decks). The game must be one whose tree and one strategy per
    value class fit in memory."""

    config: object
    tree: object
    layout: StrategyLayout
    walker: Walker
    match: MatchGame
    hands: np.ndarray
    entry_seat: np.ndarray

    @classmethod
    def of(cls, config) -> "ModelGame":
        setup = GameSetup(config.at_full_resolution())
        plan = setup.plan
        plan.check_tree_fits()
        if not plan.fits:
            raise SolveTooLarge(f"{config.describe()}: exact values in the model (and best responses) need a "
                                f"strategy per value class on the built tree, about {format_bytes(plan.bytes)}, more than this machine's "
                                f"{format_bytes(plan.machine_bytes)} allows")
        tree, layout = setup.tree, setup.layout
        sizes = np.diff(layout.slot_offset)
        entry_seat = np.repeat(layout.slot_seat.astype(np.int8), sizes)
        return cls(config, tree, layout, Walker(tree, layout, setup.model), MatchGame.of(config),
                   hand_of_each_class(config), entry_seat)

    def policy(self, player: Player, seats=(0, 1), out: np.ndarray | None = None) -> np.ndarray:
        """A player's policy per value class at ``seats``' decisions, in this layout (float32)."""
        out = np.zeros(self.layout.n_entries, np.float32) if out is None else out
        tree = self.tree
        for seat in seats:
            simulator.fill_class_policy(self.match.player_arrays(player), seat, tree.kind, tree.seat,
                                        tree.round.astype(np.int64), tree.phase.astype(np.int64), tree.pot,
                                        tree.records.astype(np.int64), self.match.rules, self.walker.model.legal,
                                        self.hands, self.layout.kernel_arrays(), out)
        return out

    def seated(self, button: np.ndarray, big_blind: np.ndarray) -> np.ndarray:
        """One strategy: the button's decisions from ``button``, the big blind's from ``big_blind``."""
        return np.where(self.entry_seat == 0, button, big_blind)

    def mbb(self, value: float) -> float:
        return 1000.0 * value / self.config.big_blind

    def values(self, player: np.ndarray, opponent: np.ndarray) -> tuple[float, float]:
        """``player``'s value against ``opponent`` (mbb/hand, exact): with the button, in the big blind."""
        button = self.walker.evaluate(self.seated(player, opponent))
        big_blind = -self.walker.evaluate(self.seated(opponent, player))
        return self.mbb(button), self.mbb(big_blind)


def model_values(a: Player, b: Player, config: GameConfig | None = None) -> tuple[float, float]:
    """A's expected values against B in the solver's model (independent decks), mbb/hand, exact:
    (A with the button, A in the big blind), from one evaluate walk each. Their mean is
    what a duplicate match estimates in the model.

    Both players' policies per value class go into one full-resolution
    strategy (each seat's nodes from its player), which an evaluate walk plays;
    so the game's tree must be one this machine can build.
    """
    config = match_config([a, b], config)
    game = ModelGame.of(config)
    as_button, _ = game.values(game.policy(a, (0,)), game.policy(b, (1,)))
    _, as_big_blind = game.values(game.policy(a, (1,)), game.policy(b, (0,)))
    return as_button, as_big_blind


def hand_phh(game: MatchGame, deck, path: bytes, log: np.ndarray, names: list[str], final) -> str:
    """The PHH text of a hand the simulator played from ``deck`` (its action labels ``path`` and
    its draw ``log``; ``names`` and ``final`` hands by seat, button first)."""
    from .phh import HandWriter, hand_text

    cfg, rules = game.config, game.rules
    hs = cfg.hand_size
    w = HandWriter(cfg)
    w.deal(1, deck[hs:2 * hs])
    w.deal(0, deck[:hs])
    ipos, fpos = np.zeros(4, np.int64), np.zeros(3)
    records = np.zeros(max(cfg.draws, 1), np.int64)
    simulator.start_position(rules.start_contrib, ipos, fpos, records)
    at = 1
    end = simulator.GOES_ON
    for code in path:
        rnd, phase = int(ipos[2]), int(ipos[3])
        seat, is_draw = simulator.acting_seat(rules.n_pos, rules.n_out, rules.seat, rnd, phase)
        seat = int(seat)
        if is_draw:
            a = code - 48
            if a > 0:
                if log[at] != seat or log[at + 1] != a:
                    raise RuntimeError("the draw log does not follow the hand")  # a simulator bug
                w.draw(seat, log[at + 2:at + 2 + a], log[at + 2 + a:at + 2 + 2 * a])
                at += 2 + 2 * a
            else:
                w.draw(seat, [], [])
            if seat == 0:
                w.end_draws()
        else:
            labels = [chr(x) for x in rules.label[rnd, phase] if x]
            a = labels.index(chr(code))
            w.bet(seat, chr(code), float(rules.contrib[rnd, phase, a, seat]))
        end = game.advance(ipos, fpos, records, a)
    if end == simulator.SHOWDOWN_REACHED:
        # PokerKit's order: the last to bet or raise in the last round shows first, else the big blind.
        first = _last_aggressor(path, game)
        for seat in (first, 1 - first):
            w.show(seat, final[seat])
    return hand_text(cfg, names, w.actions)


def _last_aggressor(path: bytes, game: MatchGame) -> int:
    rules = game.rules
    ipos, fpos = np.zeros(4, np.int64), np.zeros(3)
    records = np.zeros(max(game.config.draws, 1), np.int64)
    simulator.start_position(rules.start_contrib, ipos, fpos, records)
    last = 1
    for code in path:
        rnd, phase = int(ipos[2]), int(ipos[3])
        seat, is_draw = simulator.acting_seat(rules.n_pos, rules.n_out, rules.seat, rnd, phase)
        if is_draw:
            a = code - 48
            last = 1
        else:
            labels = [chr(x) for x in rules.label[rnd, phase] if x]
            a = labels.index(chr(code))
            if chr(code) in "br":
                last = int(seat)
        game.advance(ipos, fpos, records, a)
    return last


def match_histories(config: GameConfig | None, a: str | Player, b: str | Player, hands: int,
                    seed: int = 0) -> list[str]:
    """The PHH texts of the first ``hands`` games of the match ``play_match`` plays with the same
    arguments (the same deals, seats and random streams), in its order: each deal with A on the
    button, then in the big blind."""
    from abstractions.random import mix, stream_seed

    player_a = a if isinstance(a, Player) else load_player(a)
    player_b = b if isinstance(b, Player) else load_player(b)
    config = match_config([player_a, player_b], config)
    game = MatchGame.of(config)
    players = (game.player_arrays(player_a), game.player_arrays(player_b))
    n_cards = config.ranks * config.suits
    hs = config.hand_size
    out = []
    deck = np.empty(n_cards, np.int64)
    hands_ = np.empty((2, hs), np.int64)
    payoff = np.empty(2)
    path = np.zeros(8 * (config.draws + 1) + 2 * config.draws + 2, np.uint8)
    log = np.zeros(1 + 2 * (config.draws + 1) * (2 + 2 * hs), np.int64)
    state = np.empty(1, np.uint64)
    for g in range(hands):
        i, seat_game = divmod(g, 2)
        start = stream_seed(seed, i)
        state[0] = start
        deck[:] = np.arange(n_cards)
        simulator.shuffle(deck, n_cards, state)
        seat_player = np.array([seat_game, 1 - seat_game], np.int64)
        state[0] = mix(start + np.uint64(seat_game + 1))
        log[0] = 0
        n = simulator.play_hand(deck, players, seat_player, state, game.rules, hands_, payoff, path, log)
        names = [(player_a.name, player_b.name)[seat_player[s]] for s in (0, 1)]
        out.append(hand_phh(game, deck.tolist(), bytes(path[:n]), log, names, hands_.tolist()))
    return out
