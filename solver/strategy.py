"""Solved strategies as tables: policies for real hands, per-class rows, streamed exports.

A strategy directory (the output of ``badugi solve``) holds ``strategy.npz``:
the average strategy, one probability per (action row, value class).
:func:`load_strategy` rebuilds the tree and evaluates the strategy with the
same kernels the solver uses, so reach probabilities and expected values come
from one exact walk.

Table rows are per (seat, history, hand class) at each decision point:

- ``reach``: probability that a hand reaches the history with the acting seat
  holding that class, when both seats play the strategy (the acting seat's
  reach, chance included, times the opponent's total reach). Over the classes
  of one history it sums to the probability of reaching the history.
- action probabilities: ``f k c b r`` at betting points, ``d0``..``d4`` (cards
  drawn) at draw points; illegal draws are blank.
- ``ev_mbb``: the acting seat's expected value (mbb/hand) given that it
  reaches the history with that class, from the seat's own point of view.

>>> strategy = load_strategy("runs/single-draw")          # doctest: +SKIP
>>> strategy.policy("ck/", "As2h3d4c")                     # doctest: +SKIP
{'0': 1.0, '1': 0.0, '2': 0.0, '3': 0.0, '4': 0.0}
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import numpy as np

from abstractions.cards import parse_cards
from abstractions.evaluator import get_evaluator

from . import kernels
from .checkpoint import STRATEGY_NAME, load_strategy_file
from .engine import Engine
from .tree import BET, DRAW, SEAT_NAMES

BET_COLUMNS = ["f", "k", "c", "b", "r"]
STRATEGY_CACHE_NODES = 4096


def draw_columns(hand_size: int) -> list[str]:
    return [f"d{d}" for d in range(hand_size + 1)]


@dataclass
class NodeStats:
    """Reach and values of the decision nodes of one batch."""

    nodes: np.ndarray      # decision node ids
    reach: np.ndarray      # (k, 2, N) each seat's reach (own strategy and chance)
    value: np.ndarray      # (k, 2, N) each seat's value weighted by the opponent's reach


class Strategy:
    """A solved average strategy with its game tree; see the module docstring."""

    def __init__(self, directory: str | Path):
        self.directory = Path(directory)
        data = load_strategy_file(self.directory / STRATEGY_NAME)
        self.config = data["config"]
        self.algorithm = str(data["algorithm"])
        self.iteration = int(data["iteration"])
        self.exploitability_mbb = float(data["exploitability_mbb"])
        self.game_value_mbb = float(data["game_value_mbb"])
        self.engine = Engine(self.config, self.algorithm, check_memory=False,
                             strategy=np.ascontiguousarray(data["probabilities"], dtype=np.float32))
        self.tree = self.engine.tree
        self.evaluator = get_evaluator(self.config.ranks, self.config.suits, self.config.hand_size)
        self.n_states = self.engine.n_states
        self._node_strategy: dict[int, np.ndarray] = {}
        self._decision = self.tree.kind <= DRAW
        # Descendants of a node are the ids allocated while it was expanded: a contiguous block.
        self._subtree_end = _subtree_ends(self.tree.parent)

    # -- single decisions --------------------------------------------------
    def node(self, history: str) -> int:
        """The decision node a history names; ValueError if malformed or not a decision."""
        node = self.tree.node_at(history)
        if self.tree.kind[node] > DRAW:
            raise ValueError(f"history {history!r} ends the hand: there is no decision there")
        return node

    def labels(self, node: int) -> list[str]:
        return [chr(self.tree.action[c]) for c in self.tree.children(node)]

    def strategy_at(self, node: int) -> np.ndarray:
        """(n_actions, n_states) probabilities at a decision node."""
        if node not in self._node_strategy:
            if len(self._node_strategy) >= STRATEGY_CACHE_NODES:
                self._node_strategy.clear()  # big trees: keep memory bounded
            self._node_strategy[node] = self.engine.average_strategy(node)
        return self._node_strategy[node]

    def hand_class(self, cards) -> int:
        if isinstance(cards, str):
            cards = parse_cards(cards, self.evaluator.deck, count=self.config.hand_size)
        return self.evaluator.evaluate(np.asarray(cards))

    def policy(self, history: str, cards) -> dict[str, float]:
        """Legal actions (``f k c b r`` or draw counts ``"0"``-``"4"``) to probabilities."""
        node = self.node(history)
        value = self.hand_class(cards)
        probs = self.strategy_at(node)[:, value]
        legal = self.engine.model.legal[value] if self.tree.kind[node] == DRAW else None
        return {label: float(p) for a, (label, p) in enumerate(zip(self.labels(node), probs))
                if legal is None or legal[a]}

    def seat_name(self, node: int) -> str:
        return SEAT_NAMES[int(self.tree.seat[node])]

    # -- reach and values --------------------------------------------------
    def _mark_subtree(self, mask: np.ndarray, node: int) -> None:
        """Set ``mask`` at ``node`` and all its descendants (one contiguous id block)."""
        mask[node] = True
        if self.tree.first_child[node] >= 0:
            mask[self.tree.first_child[node]:self._subtree_end[node]] = True

    def _record(self, nodes: np.ndarray):
        index = np.full(self.tree.n_nodes, -1, dtype=np.int64)
        index[nodes] = np.arange(len(nodes))
        return (index, np.zeros((len(nodes), 2, self.n_states)), np.zeros((len(nodes), 2, self.n_states)))

    def stats(self, nodes=None) -> Iterator[NodeStats]:
        """Reach and values of decision nodes, in batches of at most one subtree.

        ``nodes``: decision node ids to cover (default all). Batches come in tree
        order: the first betting round and the draws after it, then each
        subtree below, so memory stays at one subtree whatever the game's size.
        """
        engine, tree = self.engine, self.tree
        wanted = np.zeros(tree.n_nodes, dtype=bool)
        wanted[np.nonzero(self._decision)[0] if nodes is None else np.asarray(nodes, dtype=np.int64)] = True
        wanted &= self._decision
        in_cut = np.zeros(tree.n_nodes, dtype=bool)
        for cut in engine.cut_nodes:
            self._mark_subtree(in_cut, int(cut))
        trunk = np.nonzero(wanted & ~in_cut)[0]
        params = engine.schedule.params(1)
        out = np.empty(self.n_states)
        if len(trunk) or not len(engine.cut_nodes):
            # Trunk values need the whole tree below them.
            record = self._record(trunk)
            for seat in (0, 1):
                engine._walk(seat, kernels.EVALUATE, params, record)
            yield NodeStats(trunk, record[1], record[2])
        if len(engine.cut_nodes):
            # The reach arriving at each cut: one walk of the first round (whole-tree walks may
            # cut elsewhere, in their own buffers).
            deal = engine.model.deal_prob
            engine.walk_subtree(0, deal, deal, 0, kernels.EVALUATE, engine.no_record, out, mode=kernels.COLLECT)
        for cut in engine.cut_nodes:
            block = np.arange(tree.first_child[cut], self._subtree_end[cut])
            chosen = np.concatenate([[cut], block])
            chosen = chosen[wanted[chosen]]
            if not len(chosen):
                continue
            record = self._record(chosen)
            c = engine.cut_index[cut]
            for seat in (0, 1):
                engine.walk_subtree(int(cut), engine.cut_reach[c, 0].copy(), engine.cut_reach[c, 1].copy(),
                                    seat, kernels.EVALUATE, record, out)
            yield NodeStats(chosen, record[1], record[2])

    def rows(self, rounds=None, prefix: str | None = None, min_reach: float = 0.0,
             kinds=None) -> Iterator[dict]:
        """Table rows (see the module docstring), streamed one subtree at a time."""
        tree = self.tree
        nodes = np.nonzero(self._decision)[0]
        if rounds is not None:
            nodes = nodes[np.isin(tree.round[nodes], list(rounds))]
        if kinds is not None:
            nodes = nodes[np.isin(tree.kind[nodes], [BET if k == "bet" else DRAW for k in kinds])]
        if prefix:
            inside = np.zeros(tree.n_nodes, dtype=bool)
            self._mark_subtree(inside, tree.node_at(prefix))  # ValueError names a bad prefix
            nodes = nodes[inside[nodes]]
        names = [self.evaluator.describe(v) for v in range(self.n_states)]
        legal = self.engine.model.legal
        columns = BET_COLUMNS + draw_columns(self.config.hand_size)
        for batch in self.stats(nodes):
            for i, node in enumerate(batch.nodes):
                node = int(node)
                seat = int(tree.seat[node])
                opp_total = batch.reach[i, 1 - seat].sum()
                reach = batch.reach[i, seat] * opp_total
                ev = batch.value[i, seat] / opp_total * 1000.0 if opp_total > 0 else np.full(self.n_states, np.nan)
                probs = self.strategy_at(node)
                labels = self.labels(node)
                is_draw = tree.kind[node] == DRAW
                history = tree.history(node)
                for value in np.nonzero(reach >= min_reach)[0] if min_reach > 0 else range(self.n_states):
                    row = {"seat": SEAT_NAMES[seat], "history": history, "round": int(tree.round[node]),
                           "kind": "draw" if is_draw else "bet", "class": int(value), "class_name": names[value],
                           "reach": float(reach[value]), "ev_mbb": float(ev[value])}
                    for column in columns:
                        row[column] = None
                    for a, label in enumerate(labels):
                        if is_draw:
                            if legal[value, a]:
                                row[f"d{label}"] = float(probs[a, value])
                        else:
                            row[label] = float(probs[a, value])
                    yield row

    def table_columns(self) -> list[str]:
        return (["seat", "history", "round", "kind", "class", "class_name", "reach", "ev_mbb"]
                + BET_COLUMNS + draw_columns(self.config.hand_size))


def _subtree_ends(parent: np.ndarray) -> np.ndarray:
    """One past the last descendant id of every node (ids are allocated depth-first)."""
    end = np.arange(1, len(parent) + 1, dtype=np.int64)
    # Children have larger ids than parents: one pass from the back settles every node.
    for node in range(len(parent) - 1, 0, -1):
        p = parent[node]
        if end[node] > end[p]:
            end[p] = end[node]
    return end


def load_strategy(directory: str | Path) -> Strategy:
    """The strategy a ``badugi solve`` run wrote to ``directory``."""
    return Strategy(directory)
