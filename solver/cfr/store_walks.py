"""Walks of a stored strategy (:mod:`solver.cfr.store`) that read it a chunk at a time.

The whole-tree walks of a game too big to build (:mod:`solver.cfr.streamed`) read the strategy
from one array of every entry. Here each subtree gets its own small array instead: the slots
its decision nodes use, expanded from the store's chunks (the same bits as the whole file's),
and each node's first entry in it. The walks are the same kernel calls in the same order, so
they give the same bits as the streamed walks of the expanded file, with memory bounded by a
subtree's strategy (95 MB at cap 4) and the store's chunk cache rather than the whole strategy
(10.6 GB):

- :meth:`StoreWalks.walk`: a best-response or evaluate walk of the whole tree (the trunk
  collects the reach at every cut, each cut's subtree is walked from it on the threads, the
  trunk takes their values), with records at trunk nodes and a summary over every decision
  (charts): what :class:`solver.cfr.streamed.StreamedWalker` does;
- :meth:`StoreWalks.round_walk`: one round's subtree (or every round below it) of one history,
  generated and walked from a reach given, for the numbers of one spot
  (:mod:`solver.tables.spots`).
"""

from __future__ import annotations

from functools import cached_property
from typing import NamedTuple

import numba
import numpy as np

from abstractions.transitions import get_draw_model

from ..game.layout import StrategyLayout, key_slot, node_slots
from ..game.rounds import RoundTemplates
from ..game.tree import BET, DRAW, PublicTree, expand_tree
from . import kernels
from .kernels import Cuts, Record
from .streamed import WalkSummary
from .walker import (NO_STORAGE, Exploitability, NodeStats, action_columns, draw_tables, in_threads, read_only,
                     slot_strategy, tree_arrays, walk_over_cuts)


class LocalPlay(NamedTuple):
    """A subtree's strategy: the probabilities of the slots its nodes use, one slot after another,
    and each node's first entry among them (-1 at terminals)."""

    play: np.ndarray
    entry_offset: np.ndarray


def local_play(store, slots: np.ndarray) -> LocalPlay:
    """The probabilities of the ``slots`` (one per node, -1 at terminals) of ``store`` (a
    :class:`CompactStore` or :class:`LayoutRows`), each slot once, runs of consecutive slots read
    together."""
    decision = slots >= 0
    unique, inverse = np.unique(slots[decision], return_inverse=True)
    entry_offset = np.full(len(slots), -1, np.int64)
    if not len(unique):
        return LocalPlay(read_only(np.zeros(0, np.float32)), entry_offset)
    arrays_sizes = np.empty(len(unique), np.int64)
    breaks = np.flatnonzero(np.diff(unique) != 1) + 1
    runs = np.split(unique, breaks)
    pieces = []
    at = 0
    for run in runs:
        lo, hi = int(run[0]), int(run[-1]) + 1
        rows = store.probabilities(lo, hi)
        sizes = store.slot_sizes(lo, hi)
        arrays_sizes[at:at + len(run)] = sizes
        at += len(run)
        pieces.append(rows)
    play = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]
    starts = np.concatenate([[0], np.cumsum(arrays_sizes)[:-1]]).astype(np.int64)
    entry_offset[decision] = starts[inverse]
    return LocalPlay(read_only(play), entry_offset)


class LayoutRows:
    """A whole strategy in memory (a strategy file's, memory-mapped) read as a store is: slots by
    its layout's recall rule, rows as slices. What the walks of one spot take for a strategy
    file of a game too big to build."""

    by_rule = True
    tables = None

    def __init__(self, config, layout: StrategyLayout, probabilities: np.ndarray, where: str):
        self.config, self.layout, self.where = config, layout, where
        self.play = probabilities
        self.templates = RoundTemplates.of(config)
        self.lite = layout
        self.kernel_layout = layout.kernel_arrays()
        self.rule_arrays = layout.rule.kernel_arrays(layout.slot_offset)

    def node_slots(self, tree: PublicTree, earliest_record: int = -1, pot: float = 0.0) -> np.ndarray:
        out = np.empty(tree.n_nodes, np.int64)
        node_slots(tree.kind, tree.round, tree.phase, tree.pot + pot, tree.records, earliest_record, self.rule_arrays,
                   out)
        return out

    def slot_sizes(self, lo: int, hi: int) -> np.ndarray:
        return np.diff(self.layout.slot_offset[lo:hi + 1])

    def probabilities(self, lo: int, hi: int) -> np.ndarray:
        return np.asarray(self.play[self.layout.slot_offset[lo]:self.layout.slot_offset[hi]])

    def key_slot(self, rnd: int, phase: int, pot: float, records) -> int:
        full = np.full(max(self.config.draws, 1), -1, np.int64)
        full[:len(records)] = records
        return int(key_slot(self.rule_arrays, rnd, phase, float(pot), full, -1))

    def slot_strategy(self, slot: int) -> np.ndarray:
        return slot_strategy(self.layout, self.play, slot)


class StoreWalks:
    """Walks of a game by recall rule reading its strategy a subtree at a time from ``store`` (a
    :class:`CompactStore`, or a whole strategy as :class:`LayoutRows`)."""

    def __init__(self, store):
        if not store.by_rule:
            raise ValueError("walks of a store read a recall rule's keys; a built tree's store is read whole")
        self.store = store
        config = store.config
        self.config = config
        self.model = get_draw_model(config.ranks, config.suits, config.hand_size)
        self.n_states = self.model.n_values
        if self.n_states != store.lite.n_states:
            raise ValueError(f"{store.where}: its layout has {store.lite.n_states} classes, the game "
                             f"{self.n_states}")
        self.draws = draw_tables(self.model, config.rounds)
        self.templates = store.templates
        self.layout = store.kernel_layout
        self.trunk: PublicTree = expand_tree(self.templates, 0, last_round=0)
        trunk = self.trunk
        self.cut_nodes = np.nonzero((trunk.kind == BET) & (trunk.round == 1))[0].astype(np.int64) \
            if config.draws > 0 else np.zeros(0, np.int64)
        self.cut_index = np.full(trunk.n_nodes, -1, np.int64)
        self.cut_index[self.cut_nodes] = np.arange(len(self.cut_nodes))
        self.trunk_arrays = tree_arrays(trunk)
        slots = store.node_slots(trunk)
        if np.any(slots[(trunk.kind <= DRAW) & (self.cut_index < 0)] < 0):
            raise ValueError(f"{store.where}: the first round has histories its store has no slot for")
        slots[self.cut_index >= 0] = -1   # (the cuts' own slots are their subtrees')
        self.trunk_play = local_play(store, slots)

    # -- the whole tree
    @cached_property
    def shape(self) -> PublicTree:
        """The subtree below a second-round start (pot 0, first-round record unknown): every
        cut's, built on first use (1.4 million nodes at cap 4)."""
        return expand_tree(self.templates, 1)

    @cached_property
    def shape_arrays(self):
        return tree_arrays(self.shape)

    def _work(self, tree_sets) -> object:
        depth = max(t.max_depth for t in tree_sets)
        width = max(t.n_actions_max for t in tree_sets)
        return kernels.make_work(depth, width, self.n_states, len(self.draws.set_size),
                                 int(self.layout.row_width.max()))

    def cut_play(self, c: int) -> LocalPlay:
        """Cut ``c``'s subtree's strategy (its nodes' slots under the cut's pot and first-round record)."""
        node = int(self.cut_nodes[c])
        slots = self.store.node_slots(self.shape, int(self.trunk.records[node, 0]), float(self.trunk.pot[node]))
        return local_play(self.store, slots)

    def walk(self, traverser: int, policy: int, record: Record | None = None, shape_record: Record | None = None,
             threads: int | None = None) -> float:
        """One walk of the whole tree (``BEST_RESPONSE`` or ``EVALUATE``); the traverser's value
        (the deal-weighted sum). ``record``: trunk nodes to record and a summary to sum;
        ``shape_record``: the shape's action columns and situations for a summary (it records no
        node). The calls of :func:`solver.cfr.streamed.walk_streamed`, in its order."""
        deal = self.model.deal_prob
        trunk = self.trunk
        n = self.n_states
        record = record or kernels.no_record(trunk.n_nodes, n)
        n_cuts = len(self.cut_nodes)
        cuts = Cuts(self.cut_nodes, self.cut_index, np.zeros((max(n_cuts, 1), 3, n)), np.zeros((max(n_cuts, 1), n)))
        trees = [self.trunk_arrays] + ([self.shape_arrays] if n_cuts else [])
        work = self._work(trees)
        roots, root_reach, root_value = kernels.trunk_root(deal)
        trunk_layout = self.layout._replace(entry_offset=self.trunk_play.entry_offset)
        walk = (roots, root_reach, root_value, traverser, policy)
        groups = (kernels.NO_UPDATE, self.trunk_arrays, trunk_layout, self.draws, self.trunk_play.play, NO_STORAGE,
                  NO_STORAGE, cuts, work, record)

        def below() -> None:
            shape = self.shape
            shape_arrays = self.shape_arrays
            n_chunks = max(1, min(n_cuts, threads or numba.get_num_threads()))
            bounds = [chunk * n_cuts // n_chunks for chunk in range(n_chunks + 1)]
            base = shape_record or kernels.no_record(shape.n_nodes, n)
            sums = np.zeros((n_chunks,) + record.summary.shape)
            shape_cuts = Cuts(np.zeros(0, np.int64), np.full(shape.n_nodes, -1, np.int64), np.zeros((1, 3, n)),
                              np.zeros((1, n)))

            def walk_chunk(chunk: int) -> None:
                chunk_work = self._work(trees)
                contrib = np.empty((shape.n_nodes, 2))
                chunk_record = base._replace(summary=sums[chunk])
                for c in range(bounds[chunk], bounds[chunk + 1]):
                    # (kernels.walk_cut: a cut the opponent never reaches is worth 0, not walked)
                    if not cuts.reach[c, 1 - traverser].any():
                        cuts.value[c] = 0.0
                        continue
                    local = self.cut_play(c)
                    contrib[:] = shape.contrib + float(trunk.pot[self.cut_nodes[c]])
                    tree = shape_arrays._replace(contrib=contrib)
                    layout = self.layout._replace(entry_offset=local.entry_offset)
                    kernels.traverse(np.zeros(1, np.int64), cuts.reach[c:c + 1], cuts.value[c:c + 1], traverser,
                                     policy, kernels.FULL, kernels.NO_UPDATE, tree, layout, self.draws, local.play,
                                     NO_STORAGE, NO_STORAGE, shape_cuts, chunk_work, chunk_record)

            in_threads(n_chunks, walk_chunk)
            for chunk in range(n_chunks):
                record.summary[...] += sums[chunk]

        walk_over_cuts(walk, groups, n_cuts, below)
        self.last_cuts = cuts
        return kernels.root_total(deal, root_value[0])

    def summary(self) -> WalkSummary:
        """Reach-weighted action sums at every decision of the whole tree and each seat's value by
        dealt class: :meth:`solver.cfr.streamed.StreamedWalker.summary`'s two evaluate walks,
        a subtree at a time."""
        config, n = self.config, self.n_states
        mass = WalkSummary.sums(config, n)
        root = np.zeros((2, n))
        trunk = self.trunk
        shape = self.shape if len(self.cut_nodes) else trunk
        for seat in (0, 1):
            index = np.full(trunk.n_nodes, -1, np.int64)
            index[0] = 0
            summary = mass if seat == 0 else np.zeros((0, 0, 0, 0, 0))
            record = Record(index, np.zeros((1, 2, n)), np.zeros((1, 2, n)), summary, action_columns(trunk),
                            trunk.situation)
            shape_record = kernels.no_record(shape.n_nodes, n)._replace(column=action_columns(shape),
                                                                      situation=shape.situation)
            self.walk(seat, kernels.EVALUATE, record, shape_record)
            root[seat] = record.value[0, seat]
        return WalkSummary.of(mass, root)

    def exploitability(self) -> Exploitability:
        """The exact best responses against the stored strategy as it plays (every public history,
        every value class), and its value: the certificate of the store."""
        br_button = self.walk(0, kernels.BEST_RESPONSE)
        br_bb = self.walk(1, kernels.BEST_RESPONSE)
        return Exploitability(br_button, br_bb, self.walk(0, kernels.EVALUATE))

    @property
    def n_decisions(self) -> int:
        """Decision points of the whole tree."""
        trunk = self.trunk
        in_trunk = int(((trunk.kind <= DRAW) & (self.cut_index < 0)).sum())
        if not len(self.cut_nodes):
            return in_trunk
        return in_trunk + len(self.cut_nodes) * int((self.shape.kind <= DRAW).sum())

    def locate(self, history: str) -> tuple[int, int]:
        """``(cut, node)``: a valid history's node in the trunk (cut -1) or in the shape below cut
        ``cut`` (:meth:`solver.cfr.streamed.StreamedWalker.locate`)."""
        trunk, shape = self.trunk, self.shape
        cut, node = -1, 0
        for char in history.replace("/", ""):
            if cut < 0 and self.cut_index[node] >= 0:
                cut, node = int(self.cut_index[node]), 0
            tree = trunk if cut < 0 else shape
            node = next(c for c in tree.children(node) if chr(tree.action[c]) == char)
        if cut < 0 and self.cut_index[node] >= 0:
            cut, node = int(self.cut_index[node]), 0
        return cut, node

    def node_stats(self, trunk_nodes: np.ndarray | None = None, cut_nodes: dict | None = None):
        """``(cut, stats)`` batches as :meth:`solver.cfr.streamed.StreamedWalker.node_stats` makes
        them: trunk nodes from two walks of the whole tree, each cut's shape nodes from two walks
        of its subtree from the reach the first round's collecting walk brings it."""
        n = self.n_states
        if trunk_nodes is not None and len(trunk_nodes):
            index = np.full(self.trunk.n_nodes, -1, np.int64)
            index[trunk_nodes] = np.arange(len(trunk_nodes))
            k = len(trunk_nodes)
            record = kernels.no_record(self.trunk.n_nodes, n)._replace(index=index, reach=np.zeros((k, 2, n)),
                                                                      value=np.zeros((k, 2, n)))
            for seat in (0, 1):
                self.walk(seat, kernels.EVALUATE, record)
            yield -1, NodeStats(np.asarray(trunk_nodes), record.reach, record.value)
        if not cut_nodes:
            return
        reach = self.cut_reach()
        trunk = self.trunk
        for cut, nodes in cut_nodes.items():
            node = int(self.cut_nodes[cut])
            wanted = np.asarray(nodes, np.int64)
            _, record, _ = self.round_walk(1, float(trunk.pot[node]), trunk.records[node].astype(np.int64),
                                           reach[cut], lambda tree: wanted)
            yield cut, NodeStats(wanted, record.reach, record.value)

    # -- one history's rounds
    def round_walk(self, rnd: int, pot: float, records, reach: np.ndarray, record_nodes=None,
                   last_round: int | None = None) -> tuple[PublicTree, Record, Cuts]:
        """The subtree below round ``rnd``'s start after ``records`` (latest first) with each seat
        putting in ``pot``, walked from ``reach`` ((3, states): both seats' and chance's) by both
        seats; with ``last_round``, later rounds' starts are cuts whose reach is collected (one
        collecting walk) instead. Returns the tree, a record of both seats' reach and values at
        ``record_nodes(tree)`` (decision node ids; none if None), and the cuts."""
        tree = expand_tree(self.templates, rnd, pot, records, last_round)
        slots = self.store.node_slots(tree)
        n = self.n_states
        collect = last_round is not None and last_round < self.config.draws
        cut_nodes = np.nonzero((tree.kind == BET) & (tree.round > rnd))[0].astype(np.int64) if collect else \
            np.zeros(0, np.int64)
        decision = tree.kind <= DRAW
        decision[cut_nodes] = False
        if np.any(slots[decision] < 0):
            raise ValueError(f"{self.store.where}: a history below has no slot in the store")
        slots[cut_nodes] = -1
        local = local_play(self.store, slots)
        cut_index = np.full(tree.n_nodes, -1, np.int64)
        cut_index[cut_nodes] = np.arange(len(cut_nodes))
        cuts = Cuts(cut_nodes, cut_index, np.zeros((max(len(cut_nodes), 1), 3, n)),
                    np.zeros((max(len(cut_nodes), 1), n)))
        arrays = tree_arrays(tree)
        work = self._work([arrays])
        layout = self.layout._replace(entry_offset=local.entry_offset, merge_from=-1)
        nodes = np.zeros(0, np.int64) if record_nodes is None else np.asarray(record_nodes(tree), np.int64)
        index = np.full(tree.n_nodes, -1, np.int64)
        index[nodes] = np.arange(len(nodes))
        record = kernels.no_record(tree.n_nodes, n)._replace(index=index, reach=np.zeros((len(nodes), 2, n)),
                                                             value=np.zeros((len(nodes), 2, n)))
        root_reach = np.asarray(reach, np.float64).reshape(1, 3, n).copy()
        seats = (0,) if collect else (0, 1)
        # (The seats' walks are independent: one thread each, each with its own buffers and
        # record; the reach both record is the same.)
        records = [record._replace(reach=np.zeros_like(record.reach), value=np.zeros_like(record.value))
                   for _ in seats]

        def walk_seat(i: int) -> None:
            kernels.traverse(np.zeros(1, np.int64), root_reach, np.zeros((1, n)), seats[i], kernels.EVALUATE,
                             kernels.COLLECT if collect else kernels.FULL, kernels.NO_UPDATE, arrays, layout,
                             self.draws, local.play, NO_STORAGE, NO_STORAGE, cuts,
                             work if i == 0 else self._work([arrays]), records[i])

        if len(seats) > 1 and numba.get_num_threads() > 1:
            in_threads(len(seats), walk_seat)
        else:
            for i in range(len(seats)):
                walk_seat(i)
        record.reach[...] = records[0].reach
        for i, seat in enumerate(seats):
            record.value[:, seat] = records[i].value[:, seat]
        return tree, record, cuts

    def cut_reach(self) -> np.ndarray:
        """(cuts, 3, states): the reach at every second-round start, from the first round's
        collecting walk (every draw count walked, none merged: each cut's reach is its own)."""
        n = self.n_states
        n_cuts = len(self.cut_nodes)
        cuts = Cuts(self.cut_nodes, self.cut_index, np.zeros((max(n_cuts, 1), 3, n)), np.zeros((max(n_cuts, 1), n)))
        work = self._work([self.trunk_arrays])
        roots, root_reach, out = kernels.trunk_root(self.model.deal_prob)
        layout = self.layout._replace(entry_offset=self.trunk_play.entry_offset, merge_from=-1)
        kernels.traverse(roots, root_reach, out, 0, kernels.EVALUATE, kernels.COLLECT, kernels.NO_UPDATE,
                         self.trunk_arrays, layout, self.draws, self.trunk_play.play, NO_STORAGE, NO_STORAGE, cuts,
                         work, kernels.no_record(self.trunk.n_nodes, n))
        return cuts.reach
