"""The public game tree of heads-up fixed-limit Badugi, flattened into arrays.

Nodes are betting decisions, draw decisions (the public action is a card
count; which counts a hand may take is a per-state mask), fold terminals and
showdowns. The tree is generated once from the rounds' betting templates
(:mod:`solver.game.rounds`, a Numba kernel); the CFR kernels see only the
arrays (struct of arrays). Children of a node are contiguous
(``first_child .. first_child + n_children - 1``) and ids are allocated depth
first, so a node's descendants are one block of ids.

History notation (used by every table and command): betting rounds are
strings of ``f`` fold, ``k`` check, ``c`` call, ``b`` bet, ``r`` raise; a draw
round is two digits, the big blind's count then the button's; rounds are
separated by ``/``. ``ck/21/bc``: the button calls, the big blind checks; the
big blind draws 2, the button 1; the big blind bets, the button calls. A
decision point is named by the history before it (``ck/2`` is the button's
draw after the big blind drew 2).

Where strategies are stored is not the tree's business: see
:mod:`solver.game.layout`.

>>> tree = build_tree(load_preset("single-draw"))
>>> node = tree.node_at("ck/21/b")
>>> SEAT_NAMES[int(tree.seat[node])], KIND_NAMES[int(tree.kind[node])], tree.history(node)
('button', 'bet', 'ck/21/b')
>>> [chr(tree.action[c]) for c in tree.children(node)]
['f', 'c', 'r']
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple

import numpy as np

from .config import GameConfig, load_preset  # noqa: F401  (load_preset: doctest)
from .rounds import BET, BIG_BLIND, BUTTON, DRAW, FOLD, SHOWDOWN, RoundTemplates, TreeNodes, expand  # noqa: F401

KIND_NAMES = {BET: "bet", DRAW: "draw", FOLD: "fold", SHOWDOWN: "showdown"}
SEAT_NAMES = {BUTTON: "button", BIG_BLIND: "big blind"}
BET_LABELS = "fkcbr"
ACTION_NAMES = {"f": "fold", "k": "check", "c": "call", "b": "bet", "r": "raise"}


def action_name(label: str, kind: int) -> str:
    """A betting action's name, or a draw count as "pat" / "draw N"."""
    if kind == DRAW:
        return "pat" if label == "0" else f"draw {label}"
    return ACTION_NAMES[label]


# What a player faces at a decision (its *situation*), for strategy charts by situation. Betting:
# first to act in a round, checked to, the big blind's option after a limp, facing a bet (before
# the first draw: the blind), a raise, or a re-raise and more. Draws: the first drawer (the big
# blind), or the second after the first stood pat or drew 1, 2, ... cards.
BET_SITUATIONS = ("first in", "checked to", "after a limp", "facing a bet", "facing a raise", "facing a re-raise")
DRAW_SITUATIONS = ("first to draw",) + tuple(f"after he drew {d}" if d else "after he stood pat" for d in range(5))
N_SITUATIONS = len(BET_SITUATIONS) + len(DRAW_SITUATIONS)


def street_name(rnd: int) -> str:
    """Where a betting round is in the hand: ``before draw 1``, ``after draw 2`` ..."""
    return "before draw 1" if rnd == 0 else f"after draw {rnd}"


def situation_name(code: int, rnd: int) -> str:
    """A situation code's name (before the first draw a first bet is the big blind's)."""
    if code >= len(BET_SITUATIONS):
        return DRAW_SITUATIONS[code - len(BET_SITUATIONS)]
    if rnd == 0 and code == 3:
        return "facing the blind"
    return BET_SITUATIONS[code]


def situations(kind: np.ndarray, parent: np.ndarray, action: np.ndarray, node_round: np.ndarray) -> np.ndarray:
    """(nodes,) situation code of every decision node (-1 elsewhere): bets 0..5, draws 6..11 (see
    ``BET_SITUATIONS``, ``DRAW_SITUATIONS``). Parents come before children in node order."""
    n = len(kind)
    code = np.full(n, -1, np.int64)
    bets = np.zeros(n, np.int64)    # bets and raises so far in the node's round (the blind counts)
    labels = action.tobytes()
    for node in range(n):
        k = kind[node]
        if k > DRAW:
            continue
        p = parent[node]
        if k == DRAW:
            code[node] = len(BET_SITUATIONS) + (1 + labels[node] - 48 if p >= 0 and kind[p] == DRAW else 0)
            continue
        if p < 0 or kind[p] == DRAW:  # the first decision of a betting round
            bets[node], code[node] = round_opening(int(node_round[node]))
            continue
        bets[node], code[node] = bet_situation(int(bets[p]), chr(labels[node]))
    return code


def round_opening(rnd: int) -> tuple[int, int]:
    """(bets so far, situation code) at a betting round's first decision: the blind counts as a
    bet before the first draw."""
    return (1, 3) if rnd == 0 else (0, 0)


def bet_situation(bets_before: int, label: str) -> tuple[int, int]:
    """(bets so far, situation code) at the decision an action ``label`` leads to within a round."""
    bets = bets_before + (label in "br")
    return bets, 1 if label == "k" else 2 if label == "c" else 2 + min(bets, 3)


class SituationPot(NamedTuple):
    """The pot at a situation (both seats' chips, in big blinds), over every history of the game
    that leads to it, and the chips the player must put in to call (0 where he is not facing a bet)."""

    low: float
    high: float
    to_call: float


def situation_pots(config: GameConfig) -> dict:
    """(seat, round, situation code) -> :class:`SituationPot`, from the rounds' templates (no tree:
    the pot depends on the betting only, so this holds for games whose tree is never built).

    >>> pots = situation_pots(load_preset("single-draw"))
    >>> pots[(BUTTON, 0, 3)], pots[(BIG_BLIND, 1, 3)]   # facing the blind; the big blind facing a bet
    (SituationPot(low=1.5, high=1.5, to_call=0.5), SituationPot(low=4.0, high=10.0, to_call=2.0))
    """
    templates = RoundTemplates.of(config)
    first_draw = len(BET_SITUATIONS)
    ranges: dict = {}

    def add(key, pot, to_call):
        low, high, _ = ranges.get(key, (pot, pot, to_call))
        ranges[key] = (min(low, pot), max(high, pot), to_call)

    bb = config.big_blind
    for rnd, t in enumerate(templates.rounds):
        levels = templates.pot_levels[rnd]
        bets, code = {0: round_opening(rnd)[0]}, {0: round_opening(rnd)[1]}
        for p in range(t.n_positions):  # a position comes before its children
            for a in range(int(t.n_actions[p])):
                if t.kind[p, a] == BET:
                    child = int(t.target[p, a])
                    bets[child], code[child] = bet_situation(bets[p], chr(t.label[p, a]))
        for p in range(t.n_positions):
            seat, (button, big_blind) = int(t.seat[p]), t.position_contrib[p]
            mine, theirs = (button, big_blind) if seat == BUTTON else (big_blind, button)
            for level in levels:
                add((seat, rnd, code[p]), (2 * level + button + big_blind) / bb, (theirs - mine) / bb)
        if rnd < config.draws:
            for level in levels:
                for put_in in t.outcome_contrib:
                    pot = 2 * (level + put_in) / bb
                    add((BIG_BLIND, rnd, first_draw), pot, 0.0)
                    for d in range(config.hand_size + 1):
                        add((BUTTON, rnd, first_draw + 1 + d), pot, 0.0)
    return {key: SituationPot(*(float(x) for x in value)) for key, value in ranges.items()}


@dataclass(frozen=True)
class PublicTree:
    config: GameConfig
    kind: np.ndarray         # int8: BET, DRAW, FOLD, SHOWDOWN
    seat: np.ndarray         # int8: acting seat; for FOLD the seat that folded; -1 at showdown
    round: np.ndarray        # int8: betting round (draw nodes: the draw after that round)
    contrib: np.ndarray      # (n, 2) float64: chips each seat has put in
    parent: np.ndarray       # int32, -1 at the root
    action: np.ndarray       # uint8: label (ASCII) of the edge from the parent
    first_child: np.ndarray  # int32, -1 at terminals
    n_children: np.ndarray   # int8
    # Where each node stands in its round (see solver.game.rounds); present on generated trees.
    phase: np.ndarray | None = None    # int16: betting position or draw phase, -1 at terminals
    pot: np.ndarray | None = None      # float64: each seat's contribution when the node's round started
    records: np.ndarray | None = None  # (n, max(draws, 1)) int16: records of the rounds before, latest first

    ARRAYS = ("kind", "seat", "round", "contrib", "parent", "action", "first_child", "n_children")

    @property
    def n_nodes(self) -> int:
        return len(self.kind)

    @cached_property
    def n_action_rows(self) -> int:
        """Actions summed over decision nodes: a walk's work is this times the private states."""
        return int(self.n_children[self.kind <= DRAW].astype(np.int64).sum())

    def arrays(self) -> dict:
        """The tree as named arrays (what a strategy file stores)."""
        return {name: getattr(self, name) for name in self.ARRAYS}

    @classmethod
    def from_arrays(cls, config: GameConfig, arrays: dict) -> "PublicTree":
        return cls(config, **{name: np.asarray(arrays[name]) for name in cls.ARRAYS})

    @cached_property
    def subtree_end(self) -> np.ndarray:
        """One past the last descendant id of every node (ids are allocated depth-first, so a
        node's descendants are the block ``first_child[node]:subtree_end[node]``)."""
        end = np.arange(1, self.n_nodes + 1, dtype=np.int64)
        parent = self.parent
        # Children have larger ids than parents: one pass from the back settles every node.
        for node in range(self.n_nodes - 1, 0, -1):
            p = parent[node]
            if end[node] > end[p]:
                end[p] = end[node]
        return end

    def mark_subtree(self, mask: np.ndarray, node: int) -> None:
        """Set ``mask`` at ``node`` and at all its descendants."""
        mask[node] = True
        if self.first_child[node] >= 0:
            mask[self.first_child[node]:self.subtree_end[node]] = True

    @cached_property
    def situation(self) -> np.ndarray:
        """(nodes,) what the deciding player faces at each decision (see :func:`situations`)."""
        return situations(self.kind, self.parent, self.action, self.round)

    def children(self, node: int) -> range:
        first = int(self.first_child[node])
        return range(first, first + int(self.n_children[node])) if first >= 0 else range(0)

    def history(self, node: int) -> str:
        """The public history that leads to ``node`` (see the module notation)."""
        labels = []
        while self.parent[node] >= 0:
            parent = int(self.parent[node])
            label = chr(self.action[node])
            # A round ends after a betting action that leads to a draw or the next round.
            if self.kind[parent] == BET and self.kind[node] == DRAW:
                label += "/"
            elif self.kind[parent] == DRAW and self.seat[parent] == BUTTON:
                label += "/"
            labels.append(label)
            node = parent
        return "".join(reversed(labels))

    def node_at(self, history: str) -> int:
        """The node a history leads to; ValueError naming the first impossible step.

        The round separators must stand where :meth:`history` puts them; a
        missing final ``/`` is accepted (``ck`` names the same point as ``ck/``).
        """
        if not isinstance(history, str):
            raise ValueError(f"history must be text, got {type(history).__name__}")
        node, done = 0, ""
        for char in history:
            if char == "/":
                done += char
                continue
            match = [c for c in self.children(node) if chr(self.action[c]) == char]
            if not match:
                legal = "".join(chr(self.action[c]) for c in self.children(node))
                raise ValueError(f"history {history!r}: {char!r} is not possible after {done!r}"
                                 f" ({'possible: ' + legal if legal else 'the hand is over'})")
            node = match[0]
            done += char
        canonical = self.history(node)
        if history != canonical and history + "/" != canonical:
            raise ValueError(f"history {history!r}: rounds are separated as in {canonical!r}")
        return node


def build_tree(config: GameConfig) -> PublicTree:
    """Generate and flatten the public tree of ``config`` (with each node's phase, pot level and
    round records: see :mod:`solver.game.rounds`)."""
    return expand_tree(RoundTemplates.of(config), 0)


def expand_tree(templates: RoundTemplates, first_round: int, pot: float = 0.0, records=None,
                last_round: int | None = None) -> PublicTree:
    """The public tree below the first betting position of ``first_round`` (the whole tree for
    round 0), its round starting with contributions ``pot`` after the round ``records``; with
    ``last_round``, the first positions of later rounds are left as leaves."""
    config = templates.config
    last_round = config.draws if last_round is None else last_round
    n = templates.count_nodes(first_round, last_round)
    n_records = max(config.draws, 1)
    records_in = np.full(n_records, -1, np.int64)
    if records is not None:
        records_in[:len(records)] = records
    nodes = TreeNodes(kind=np.empty(n, np.int8), seat=np.empty(n, np.int8), round=np.empty(n, np.int8),
                      contrib=np.empty((n, 2)), parent=np.empty(n, np.int32), action=np.empty(n, np.uint8),
                      first_child=np.empty(n, np.int32), n_children=np.empty(n, np.int8),
                      phase=np.empty(n, np.int16), pot=np.empty(n), records=np.empty((n, n_records), np.int16))
    expand(templates.arrays, config.draws, config.hand_size, first_round, last_round, float(pot), records_in, n,
           nodes)
    return PublicTree(config, **nodes._asdict())


class StreamedGame:
    """A public tree too big to build, as a built *trunk* (the first round and its draws, cut at
    the second-round starts) and one *shape*: the subtree below a second-round start, the same
    below every cut but for the pot (its contributions are relative to the cut's) and the
    history above it (see :mod:`solver.cfr.streamed`, whose walks fill each cut from it)."""

    def __init__(self, templates: RoundTemplates):
        self.templates = templates
        self.config = templates.config
        self.trunk: PublicTree = expand_tree(templates, 0, last_round=0)
        trunk = self.trunk
        self.cut_nodes = np.nonzero((trunk.kind == BET) & (trunk.round == 1))[0].astype(np.int64)
        self.cut_pot = trunk.pot[self.cut_nodes].astype(np.float64)
        self.cut_record = trunk.records[self.cut_nodes, 0].astype(np.int64)
        # The subtree below a second-round start, pot 0, its first-round record unknown (-1).
        self.shape: PublicTree | None = expand_tree(templates, 1) if self.config.draws > 0 else None

    @property
    def n_nodes(self) -> int:
        """Nodes of the whole public tree."""
        shape = self.shape.n_nodes if self.shape is not None else 1
        return self.trunk.n_nodes + len(self.cut_nodes) * (shape - 1)



@dataclass(frozen=True)
class TreeCounts:
    betting_nodes: int
    draw_nodes: int
    terminal_nodes: int
    betting_rows: int   # action rows at betting nodes
    draw_rows: int      # action rows at draw nodes
    rows_by_round: tuple[int, ...] = ()  # action rows per round (a draw counts with the round before it)
    decisions_by_round: tuple[int, ...] = ()  # betting and draw nodes per round (the same)

    @property
    def nodes(self) -> int:
        return self.betting_nodes + self.draw_nodes + self.terminal_nodes


def count_tree(config: GameConfig) -> TreeCounts:
    """Node counts without building the tree (one round template at a time)."""
    templates = RoundTemplates.of(config)
    outcomes = (config.hand_size + 1) ** 2
    draw_nodes_per_round = 1 + (config.hand_size + 1)
    betting = draw = terminal = betting_rows = draw_rows = 0
    paths = 1  # how many copies of the current round the tree holds
    by_round, decisions_by_round = [], []
    for rnd, template in enumerate(templates.rounds):
        decisions, rows = template.n_positions, int(template.n_actions.astype(np.int64).sum())
        folds, continuing = int((template.kind == FOLD).sum()), template.n_outcomes
        betting += paths * decisions
        betting_rows += paths * rows
        by_round.append(paths * rows)
        decisions_by_round.append(paths * decisions)
        terminal += paths * folds
        if rnd == config.draws:
            terminal += paths * continuing  # showdowns
        else:
            draw += paths * continuing * draw_nodes_per_round
            round_draw_rows = paths * continuing * draw_nodes_per_round * (config.hand_size + 1)
            draw_rows += round_draw_rows
            by_round[-1] += round_draw_rows
            decisions_by_round[-1] += paths * continuing * draw_nodes_per_round
            paths *= continuing * outcomes
    return TreeCounts(betting, draw, terminal, betting_rows, draw_rows, tuple(by_round), tuple(decisions_by_round))
