"""The public game tree of heads-up fixed-limit Badugi, flattened into arrays.

Nodes are betting decisions, draw decisions (the public action is a card
count; which counts a hand may take is a per-state mask), fold terminals and
showdowns. The tree is built once in Python; the CFR kernels see only the
arrays (struct of arrays). Children of a node are contiguous
(``first_child .. first_child + n_children - 1``).

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

import numpy as np

from .config import GameConfig, load_preset  # noqa: F401  (load_preset: doctest)

BET, DRAW, FOLD, SHOWDOWN = 0, 1, 2, 3
KIND_NAMES = {BET: "bet", DRAW: "draw", FOLD: "fold", SHOWDOWN: "showdown"}
BUTTON, BIG_BLIND = 0, 1
SEAT_NAMES = {BUTTON: "button", BIG_BLIND: "big blind"}
BET_LABELS = "fkcbr"


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


class _Builder:
    def __init__(self, config: GameConfig):
        self.cfg = config
        self.kind: list[int] = []
        self.seat: list[int] = []
        self.round: list[int] = []
        self.contrib: list[tuple[float, float]] = []
        self.parent: list[int] = []
        self.action: list[int] = []
        self.first_child: list[int] = []
        self.n_children: list[int] = []

    def add(self, kind, seat, rnd, contrib, parent, label) -> int:
        self.kind.append(kind)
        self.seat.append(seat)
        self.round.append(rnd)
        self.contrib.append(contrib)
        self.parent.append(parent)
        self.action.append(ord(label))
        self.first_child.append(-1)
        self.n_children.append(0)
        return len(self.kind) - 1

    def expand(self, node: int, state) -> None:
        """Allocate all children of ``node`` contiguously, then expand each."""
        specs = list(_child_specs(self.cfg, state))
        self.first_child[node] = len(self.kind)
        self.n_children[node] = len(specs)
        ids = [self.add(kind, seat, rnd, contrib, node, label) for label, kind, seat, rnd, contrib, _ in specs]
        for child, spec in zip(ids, specs):
            if spec[5] is not None:
                self.expand(child, spec[5])


# A state is ("bet", round, contrib, to_act, n_bets, facing) or ("draw", round, seat, contrib).
def _root_state(cfg: GameConfig):
    return ("bet", 0, (cfg.small_blind, cfg.big_blind), BUTTON, 1, True)


def _node_of_state(state):
    """(kind, seat, round, contrib) of the decision node a state describes."""
    if state[0] == "bet":
        _, rnd, contrib, to_act, _, _ = state
        return BET, to_act, rnd, contrib
    _, rnd, seat, contrib = state
    return DRAW, seat, rnd, contrib


def _after_round(cfg: GameConfig, rnd: int, contrib):
    """What follows a betting round that ended without a fold."""
    if rnd < cfg.draws:
        return ("draw", rnd, BIG_BLIND, contrib)
    return None  # showdown


def _child_specs(cfg: GameConfig, state):
    """Children of a decision state: (label, kind, seat, round, contrib, next state or None)."""
    if state[0] == "draw":
        _, rnd, seat, contrib = state
        for count in range(cfg.hand_size + 1):
            if seat == BIG_BLIND:
                nxt = ("draw", rnd, BUTTON, contrib)
            else:
                nxt = ("bet", rnd + 1, contrib, BIG_BLIND, 0, False)
            yield (str(count), *_node_of_state(nxt), nxt)
        return

    _, rnd, contrib, to_act, n_bets, facing = state
    other = 1 - to_act
    bet_size = cfg.bets[rnd]

    def ends(new_contrib):
        nxt = _after_round(cfg, rnd, new_contrib)
        if nxt is None:
            return (SHOWDOWN, -1, rnd, new_contrib, None)
        return (*_node_of_state(nxt), nxt)

    def put(amount_to, extra):
        new = list(contrib)
        new[to_act] = amount_to + extra
        return tuple(new)

    if facing:
        yield ("f", FOLD, to_act, rnd, contrib, None)
        called = put(contrib[other], 0.0)
        if rnd == 0 and n_bets == 1 and to_act == BUTTON:
            # The button's limp: the big blind still has the option.
            nxt = ("bet", rnd, called, BIG_BLIND, 1, False)
            yield ("c", *_node_of_state(nxt), nxt)
        else:
            yield ("c", *ends(called))
        if n_bets < cfg.cap:
            nxt = ("bet", rnd, put(contrib[other], bet_size), other, n_bets + 1, True)
            yield ("r", *_node_of_state(nxt), nxt)
        return

    # Not facing a bet: check, or bet (a raise when the blind counts as a bet).
    if to_act == BUTTON or rnd == 0:
        yield ("k", *ends(contrib))
    else:
        nxt = ("bet", rnd, contrib, BUTTON, 0, False)
        yield ("k", *_node_of_state(nxt), nxt)
    if n_bets < cfg.cap:
        nxt = ("bet", rnd, put(contrib[other], bet_size), other, n_bets + 1, True)
        yield ("b" if n_bets == 0 else "r", *_node_of_state(nxt), nxt)


def build_tree(config: GameConfig) -> PublicTree:
    """Build and flatten the public tree of ``config``."""
    b = _Builder(config)
    root_state = _root_state(config)
    kind, seat, rnd, contrib = _node_of_state(root_state)
    root = b.add(kind, seat, rnd, contrib, -1, "^")
    b.expand(root, root_state)
    return PublicTree(
        config=config,
        kind=np.array(b.kind, dtype=np.int8),
        seat=np.array(b.seat, dtype=np.int8),
        round=np.array(b.round, dtype=np.int8),
        contrib=np.array(b.contrib, dtype=np.float64),
        parent=np.array(b.parent, dtype=np.int32),
        action=np.array(b.action, dtype=np.uint8),
        first_child=np.array(b.first_child, dtype=np.int32),
        n_children=np.array(b.n_children, dtype=np.int8),
    )


@dataclass(frozen=True)
class TreeCounts:
    betting_nodes: int
    draw_nodes: int
    terminal_nodes: int
    betting_rows: int   # action rows at betting nodes
    draw_rows: int      # action rows at draw nodes
    rows_by_round: tuple[int, ...] = ()  # action rows per round (a draw counts with the round before it)

    @property
    def nodes(self) -> int:
        return self.betting_nodes + self.draw_nodes + self.terminal_nodes


def count_tree(config: GameConfig) -> TreeCounts:
    """Node counts without building the tree (one betting round at a time)."""

    def round_counts(rnd: int):
        # Walk one betting round: decision nodes, their action rows, fold terminals,
        # and the number of ways it ends without a fold.
        stack = [_root_state(config) if rnd == 0 else ("bet", rnd, (0.0, 0.0), BIG_BLIND, 0, False)]
        decisions = rows = folds = continuing = 0
        while stack:
            state = stack.pop()
            decisions += 1
            for label, kind, _, _, _, nxt in _child_specs(config, state):
                rows += 1
                if kind == FOLD:
                    folds += 1
                elif kind == BET and nxt[1] == rnd:
                    stack.append(nxt)
                else:
                    continuing += 1
        return decisions, rows, folds, continuing

    outcomes = (config.hand_size + 1) ** 2
    draw_nodes_per_round = 1 + (config.hand_size + 1)
    betting = draw = terminal = betting_rows = draw_rows = 0
    paths = 1  # how many copies of the current round the tree holds
    by_round = []
    for rnd in range(config.rounds):
        decisions, rows, folds, continuing = round_counts(rnd)
        betting += paths * decisions
        betting_rows += paths * rows
        by_round.append(paths * rows)
        terminal += paths * folds
        if rnd == config.draws:
            terminal += paths * continuing  # showdowns
        else:
            draw += paths * continuing * draw_nodes_per_round
            round_draw_rows = paths * continuing * draw_nodes_per_round * (config.hand_size + 1)
            draw_rows += round_draw_rows
            by_round[-1] += round_draw_rows
            paths *= continuing * outcomes
    return TreeCounts(betting, draw, terminal, betting_rows, draw_rows, tuple(by_round))
