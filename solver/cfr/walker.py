"""Walks of one game's public tree: everything a walk reads except the storage.

A :class:`Walker` is built once from the public tree, the strategy layout and
the draw model. It holds the kernels' argument groups, the cut subtrees (walks
run the subtrees below the cuts in parallel) and the thread policy, and runs
walks over any storage laid out by its layout:

- the engine's update walks (regrets and strategy sums),
- :meth:`Walker.exploitability` of any strategy: the strategy sums of a solve,
  the probabilities of a strategy file, or a fixed strategy built with
  :meth:`solver.game.layout.StrategyLayout.storage_from_policy`;
- :meth:`Walker.node_stats`: reach and values of chosen decision nodes, one
  subtree at a time (strategy tables and charts).

Exploitability is exact: a best response for each seat against the other's
strategy in the same tree, (BR value vs button + BR value vs big blind) / 2.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Callable, Iterator

import numba
import numpy as np

from abstractions.transitions import DrawModel

from ..game.layout import StrategyLayout
from ..game.tree import BET, BET_LABELS, DRAW, PublicTree
from . import kernels
from .kernels import Cuts, Discount, DrawTables, Record, TreeArrays

PARALLEL_MIN_ENTRIES = 200_000
CUTS_PER_THREAD = 8  # cut walks at the first draws only with this many subtrees per thread
NO_DISCOUNT = kernels.NO_UPDATE
NO_STORAGE = np.zeros(0, dtype=np.float32)


def read_only(storage: np.ndarray) -> np.ndarray:
    """A read-only view: the rows a walk plays have one Numba type (regrets, sums, or a
    memory-mapped strategy file), so the kernels compile once."""
    view = storage.view()
    view.flags.writeable = False
    return view


class WorkSets:
    """Work buffers (:func:`kernels.make_work`) of a tree's walks, one set per thread, made when
    first needed."""

    def __init__(self, tree: TreeArrays, n_states: int, n_sets: int, max_width: int):
        self.shape = (tree.max_depth, tree.n_actions_max, n_states, n_sets, max_width)
        self.sets = []

    def __getitem__(self, i: int):
        while len(self.sets) <= i:
            # Made by the kernel, not as numpy arrays: Numba aligns its allocations more widely
            # than numpy's 16 bytes, and the walks' vector loops over these buffers ran 6 % slower
            # on numpy's (single draw, one thread, measured).
            self.sets.append(kernels.make_work(*self.shape))
        return self.sets[i]


_pools: dict[int, ThreadPoolExecutor] = {}


def walk_over_cuts(walk: tuple, groups: tuple, n_cuts: int, below: Callable[[], None]) -> None:
    """The one walk of a tree cut into a trunk and the subtrees below its cuts: the trunk walked
    to collect the reach at each cut (``COLLECT``; the whole tree at once, ``FULL``, where there
    are no cuts), the subtrees walked by ``below`` (each caller's: threads over chunks of cuts,
    actors, a group's decoded rows), which leaves their values at the cuts, then the trunk walked
    again with those values (``TRUNK``). ``walk``: :func:`kernels.traverse`'s arguments before
    the mode (roots, their reach and values, traverser, policy); ``groups``: its arguments after
    it (discount to record)."""
    kernels.traverse(*walk, kernels.COLLECT if n_cuts else kernels.FULL, *groups)
    if n_cuts:
        below()
        kernels.traverse(*walk, kernels.TRUNK, *groups)


def walk_cuts(traverser: int, policy: int, groups: tuple, cuts: Cuts, works: WorkSets, record: Record,
              n_threads: int) -> None:
    """Walk the subtree below every cut of ``cuts`` from the reach in ``cuts.reach``, its value
    into ``cuts.value``: ``n_threads`` contiguous chunks of cuts, each on its own thread with its
    own work buffers (each subtree's arithmetic is the same in any chunk, or in any process, so
    the split changes no result; a Ray actor walking some of the cuts computes the same bits).
    ``groups``: the kernel's arguments from ``discount`` to ``strat_sum``. A record with a summary
    is walked on one thread (one summary)."""
    n_cuts = len(cuts.nodes)
    n_chunks = 1 if record.summary.shape[0] > 0 else max(1, min(n_cuts, n_threads))
    bounds = [chunk * n_cuts // n_chunks for chunk in range(n_chunks + 1)]

    def walk(chunk: int) -> None:
        lo, hi = bounds[chunk], bounds[chunk + 1]
        kernels.traverse(cuts.nodes[lo:hi], cuts.reach[lo:hi], cuts.value[lo:hi], traverser, policy, kernels.FULL,
                         *groups, cuts, works[chunk], record)

    in_threads(n_chunks, walk)


def in_threads(n_chunks: int, walk) -> None:
    """``walk(chunk)`` for each of ``n_chunks`` chunks, each on its own thread (chunk 0 on this
    one; the walks' kernels release the GIL); returns when all are done."""
    if n_chunks == 1:
        walk(0)
        return
    pool = _pools.get(n_chunks - 1) or _pools.setdefault(n_chunks - 1, ThreadPoolExecutor(n_chunks - 1))
    others = [pool.submit(walk, chunk) for chunk in range(1, n_chunks)]
    interrupted = None
    try:
        walk(0)
    finally:
        # The other threads write the storage: they finish before anything else reads it, even
        # when a signal arrives while waiting.
        while True:
            try:
                wait(others)
                break
            except KeyboardInterrupt as error:
                interrupted = error
    for future in others:
        future.result()
    if interrupted is not None:
        raise interrupted


def normalised_slots(layout: StrategyLayout, storage: np.ndarray, lo: int, hi: int, dtype=np.float32) -> np.ndarray:
    """The strategy a walk plays at slots ``lo..hi-1``, in the layout's entries: each slot's rows
    of ``storage`` (regrets, sums or probabilities) normalised per row position, negative
    weights counting as zero, uniform over legal actions where all are zero."""
    out = np.empty(int(layout.slot_offset[hi] - layout.slot_offset[lo]), dtype=dtype)
    kernels.average_slots(layout.slot_round, layout.slot_kind, layout.slot_actions, layout.slot_offset,
                          layout.kernel_arrays(), read_only(storage), out, lo, hi)
    return out


def class_strategy(layout: StrategyLayout, storage: np.ndarray, node: int) -> np.ndarray:
    """(actions, classes) the strategy a walk plays at a decision node (a bucket's for each of its
    classes), from ``storage``; columns sum to 1 over legal actions."""
    return slot_strategy(layout, storage, int(layout.slot_of[node]))


def slot_strategy(layout: StrategyLayout, storage: np.ndarray, slot: int) -> np.ndarray:
    """(actions, classes) the strategy a walk plays at one slot of ``layout``."""
    rows = normalised_slots(layout, storage, slot, slot + 1, np.float64)
    return layout.class_rows(rows, slot, layout.slot_offset[slot])


def action_columns(tree: PublicTree) -> np.ndarray:
    """Each node's action as a column of a walk's summary: a betting action's index in ``f k c
    b r``, a draw's count of cards (-1 at the root)."""
    table = np.full(256, -1, np.int64)
    for i, label in enumerate(BET_LABELS):
        table[ord(label)] = i
    for d in range(10):
        table[ord(str(d))] = d
    column = table[tree.action]
    column[tree.parent < 0] = -1
    return column


def tree_arrays(tree: PublicTree) -> TreeArrays:
    """What the kernels read of a tree, with its depth and widest node."""
    depth = np.zeros(tree.n_nodes, dtype=np.int64)
    # Parents come before children, so a few whole-array passes settle the depths.
    while True:
        new = np.where(tree.parent >= 0, depth[np.maximum(tree.parent, 0)] + 1, 0)
        if np.array_equal(new, depth):
            break
        depth = new
    decision = tree.kind <= DRAW
    return TreeArrays(tree.kind, tree.seat, tree.contrib, tree.first_child, tree.n_children.astype(np.int64),
                      tree.round.astype(np.int64), int(depth[decision].max()) + 1, int(tree.n_children.max()))


def draw_tables(model, rounds: int) -> DrawTables:
    """What the kernels read of a draw model, per round (a value-class model's tables are the same
    every round; a bucket game's are not). Tables are indexed through unsigned arrays: Numba
    adds a negative-index wraparound to every load through a signed index, which keeps the
    scatter and gather loops slow (keep_set is -1 where a draw is illegal; the kernels check
    legality first)."""
    legal, keep_set = model.legal, model.keep_set
    dense = _dense_rows(model, rounds) if legal.ndim == 3 else np.zeros((0, 0, 0, 0))
    if legal.ndim == 2:
        legal, keep_set = np.broadcast_to(legal, (rounds, *legal.shape)), np.broadcast_to(keep_set, (rounds, *keep_set.shape))
    # The sets each round's draws read (a bucket game's are its own round's, a value-class model's
    # are shared): the kernels visit only those (a bucket game's draws visited every round's).
    round_sets = np.zeros((rounds, 2), np.int64)
    for r in range(rounds):
        used = keep_set[r][(keep_set[r] >= 0) & legal[r]]
        if used.size:
            round_sets[r] = used.min(), used.max() + 1
    # Sets whose values are consecutive (w0, w0 + 1, ...; a bucket game's dense rows): the kernels
    # read them as runs, which vectorise, instead of scattering and gathering through set_value.
    starts, values = np.asarray(model.set_start, np.int64), np.asarray(model.set_value, np.int64)
    breaks = np.concatenate([[0], np.cumsum(np.diff(values) != 1)])  # steps that are not +1, up to each entry
    first, last = starts[:-1], np.maximum(starts[1:] - 1, starts[:-1])
    run = (starts[1:] > first) & (breaks[np.minimum(last, len(values) - 1)] == breaks[np.minimum(first, len(values) - 1)])
    keep_set = np.ascontiguousarray(np.where(keep_set >= 0, keep_set, 0).astype(np.uint64))
    # Walks take each round's vectors only as wide as its states (and every later round's): the
    # last round of the triple-draw preset has 16 buckets in vectors of 64 (``DrawTables``).
    states = getattr(model, "round_states", None)
    states = np.full(rounds, legal.shape[1], np.int64) if states is None else np.asarray(states, np.int64)[:rounds]
    width = np.maximum.accumulate(states[::-1])[::-1].copy()
    return DrawTables(np.ascontiguousarray(legal), keep_set, model.set_start.astype(np.uint64),
                      model.set_value.astype(np.uint64), model.set_prob, model.set_size, model.hand_size,
                      bool(getattr(model, "pat_moves", False)), round_sets, run, dense,
                      np.ascontiguousarray(dense.transpose(0, 1, 3, 2)), states, width)


DENSE_LIMIT = 64 << 20  # bytes of a bucket game's dense transition matrices (256 buckets: 7.9 MB)


def _dense_rows(game, rounds: int) -> np.ndarray:
    """A bucket game's transition rows as dense matrices (rounds, hand_size + 1, n, n): entry
    [r, d, v, w] is the probability that state v, drawing d after round r, holds w next round;
    zero where the draw is illegal and for padding states. The kernels read them instead of the
    rows' sets when there are any (a bucket's rows are dense: the lookups cost more than the
    zeros). Empty where they would take more than ``DENSE_LIMIT`` bytes."""
    n, sizes = game.n_values, game.hand_size + 1
    if rounds * sizes * n * n * 8 > DENSE_LIMIT:
        return np.zeros((0, 0, 0, 0))
    dense = np.zeros((rounds, sizes, n, n))
    r, v, d = np.nonzero((game.keep_set >= 0) & game.legal)
    for rnd, state, draw in zip(r, v, d):
        k = game.keep_set[rnd, state, draw]
        lo, hi = game.set_start[k], game.set_start[k + 1]
        dense[rnd, draw, state, game.set_value[lo:hi]] = game.set_prob[lo:hi]
    return dense


@dataclass(frozen=True)
class Exploitability:
    """Best-response values (BB/hand) against a strategy, and the game value."""

    br_button: float      # button's best-response value vs the big blind's strategy
    br_big_blind: float   # big blind's best-response value vs the button's strategy
    game_value: float     # button's value when both play the strategy

    @property
    def exploitability(self) -> float:
        return (self.br_button + self.br_big_blind) / 2.0

    @property
    def exploitability_mbb(self) -> float:
        return 1000.0 * self.exploitability

    @property
    def game_value_mbb(self) -> float:
        return 1000.0 * self.game_value


@dataclass
class NodeStats:
    """Reach and values of the decision nodes of one batch (both seats playing the strategy)."""

    nodes: np.ndarray      # decision node ids
    reach: np.ndarray      # (k, 2, N) each seat's reach (own strategy and chance)
    value: np.ndarray      # (k, 2, N) each seat's value weighted by the opponent's reach

    def reach_of(self, i: int, seat: int) -> np.ndarray:
        """(N,) probability that a hand reaches node ``i`` of the batch with ``seat`` holding each
        class: the seat's own reach times the opponent's total reach."""
        return self.reach[i, seat] * self.reach[i, 1 - seat].sum()

    def ev_mbb(self, i: int, seat: int) -> np.ndarray:
        """(N,) the seat's expected value (mbb/hand) at node ``i`` given that it holds each class
        there; NaN where the opponent never gets there."""
        opponent = self.reach[i, 1 - seat].sum()
        if opponent <= 0:
            return np.full(self.reach.shape[2], np.nan)
        return self.value[i, seat] / opponent * 1000.0


class Walker:
    """Walks of one public tree with one strategy layout; see the module docstring."""

    def __init__(self, tree: PublicTree, layout: StrategyLayout, model: DrawModel):
        self.tree, self.layout, self.model = tree, layout, model
        self.n_states = model.n_values
        self.tree_arrays = tree_arrays(tree)
        self.draws = draw_tables(model, tree.config.rounds)
        # Built trees walk every draw count (no ``merge_from``): a built engine's shared-slot
        # updates are made in place, each walk reading what the one before it wrote, so merging
        # would change that sequence (and its cut chunks would still walk the merged-away ones).
        self.layout_arrays = layout.kernel_arrays()._replace(merge_from=-1)
        # Independent subtrees for parallel walks and for strategy tables, cut at the start of the
        # second betting round. Walks cut higher when that still leaves enough subtrees to balance
        # the threads: at the big blind's first draws, or at the button's. The trunk is walked
        # serially, and its draws are a large share of a small game's work.
        parent_kind = tree.kind[np.maximum(tree.parent, 0)]
        table_cut = (tree.kind == BET) & (tree.round == 1) & (tree.parent >= 0) & (parent_kind == DRAW)
        self.table_cuts = self.cuts(table_cut)
        first_draws = (tree.kind == DRAW) & (tree.round == 0) & (tree.parent >= 0)
        walk_cut = table_cut
        for candidate in (first_draws & (parent_kind == BET), first_draws & (parent_kind == DRAW)):
            if candidate.sum() >= CUTS_PER_THREAD * numba.config.NUMBA_NUM_THREADS:
                walk_cut = candidate
                break
        self.walk_cuts = self.cuts(walk_cut)
        self.no_record = self.record([])
        # A walk from the root: its roots and reach (the kernel's code run as Python: nothing to compile;
        # with NUMBA_DISABLE_JIT the kernel is that code already).
        root = getattr(kernels.trunk_root, "py_func", kernels.trunk_root)
        self.trunk_roots, self.trunk_reach, _ = root(model.deal_prob)
        self.works = WorkSets(self.tree_arrays, self.n_states, len(self.draws.set_size), int(layout.row_width.max()))

    def cuts(self, is_cut: np.ndarray) -> Cuts:
        """Cut nodes, each node's cut index or -1, and reach and value buffers per cut."""
        nodes = np.nonzero(is_cut)[0].astype(np.int64)
        index = np.full(self.tree.n_nodes, -1, dtype=np.int64)
        index[nodes] = np.arange(len(nodes))
        n_cuts = max(len(nodes), 1)
        # both seats' reach and the traverser's chance-only reach; the traverser's value
        return Cuts(nodes, index, np.zeros((n_cuts, 3, self.n_states)), np.zeros((n_cuts, self.n_states)))

    def record(self, nodes) -> Record:
        """Buffers for a walk to record the reach and values of ``nodes``."""
        nodes = np.asarray(nodes, dtype=np.int64)
        index = np.full(self.tree.n_nodes, -1, dtype=np.int64)
        index[nodes] = np.arange(len(nodes))
        return kernels.no_record(0, self.n_states)._replace(
            index=index, reach=np.zeros((len(nodes), 2, self.n_states)), value=np.zeros((len(nodes), 2, self.n_states)))

    def threads(self) -> int:
        """Threads for a walk: one for small trees, where starting threads costs more than it saves,
        and where public nodes share slots (two subtrees would update one slot at once)."""
        work = self.tree.n_action_rows * self.n_states  # a walk's work does not shrink with buckets
        if work < PARALLEL_MIN_ENTRIES or self.layout.shares_slots:
            return 1
        return numba.get_num_threads()

    # -- walks -------------------------------------------------------------
    def walk(self, traverser: int, policy: int, play: np.ndarray, discount: Discount = NO_DISCOUNT,
             regret: np.ndarray = NO_STORAGE, strat_sum: np.ndarray = NO_STORAGE, record: Record | None = None) -> float:
        """One whole-tree walk (see :func:`kernels.traverse`); returns the traverser's value,
        sum over dealt classes of deal probability times value."""
        deal, cuts, record = self.model.deal_prob, self.walk_cuts, record or self.no_record
        groups = (discount, self.tree_arrays, self.layout_arrays, self.draws, read_only(play), regret, strat_sum)
        root_value = np.zeros((1, self.n_states))
        walk_over_cuts((self.trunk_roots, self.trunk_reach, root_value, traverser, policy),
                       (*groups, cuts, self.works[0], record), len(cuts.nodes),
                       lambda: walk_cuts(traverser, policy, groups, cuts, self.works, record, self.threads()))
        return kernels.root_total(deal, root_value[0])

    def walk_subtree(self, root: int, reach_button: np.ndarray, reach_bb: np.ndarray, traverser: int, play: np.ndarray,
                     record: Record, out_value: np.ndarray, mode: int = kernels.FULL) -> None:
        """One evaluate walk under ``root`` with the table cuts: ``FULL`` ignores cuts;
        ``COLLECT`` (from the root) only fills the cuts' reach."""
        # The chance-only reach is used by updates only.
        reach = np.stack([reach_button, reach_bb, reach_button])[None]
        kernels.traverse(np.array([root], np.int64), reach, out_value[None], traverser, kernels.EVALUATE, mode,
                         NO_DISCOUNT, self.tree_arrays, self.layout_arrays, self.draws, read_only(play), NO_STORAGE,
                         NO_STORAGE, self.table_cuts, self.works[0], record)

    def evaluate(self, play: np.ndarray, record: Record | None = None) -> float:
        """The button's value (BB/hand) when both seats play the strategy in ``play``."""
        return self.walk(0, kernels.EVALUATE, play, record=record)

    def exploitability(self, play: np.ndarray) -> Exploitability:
        """Exact best responses against the strategy in ``play`` (normalised per row: strategy
        sums or probabilities), and its game value (with node locks in the layout arrays, best
        responses that keep them)."""
        br_button = self.walk(0, kernels.BEST_RESPONSE, play)
        br_bb = self.walk(1, kernels.BEST_RESPONSE, play)
        return Exploitability(br_button, br_bb, self.evaluate(play))

    def node_stats(self, play: np.ndarray, nodes=None) -> Iterator[NodeStats]:
        """Reach and values of decision nodes under the strategy in ``play``, in batches of at most
        one subtree.

        ``nodes``: decision node ids to cover (default all). Batches come in tree
        order: the first betting round and the draws after it, then each
        subtree below, so memory stays at one subtree whatever the game's size.
        """
        tree, cuts = self.tree, self.table_cuts
        decision = tree.kind <= DRAW
        wanted = np.zeros(tree.n_nodes, dtype=bool)
        wanted[np.nonzero(decision)[0] if nodes is None else np.asarray(nodes, dtype=np.int64)] = True
        wanted &= decision
        in_cut = np.zeros(tree.n_nodes, dtype=bool)
        for cut in cuts.nodes:
            tree.mark_subtree(in_cut, int(cut))
        trunk = np.nonzero(wanted & ~in_cut)[0]
        out = np.empty(self.n_states)
        if len(trunk) or not len(cuts.nodes):
            # Trunk values need the whole tree below them.
            record = self.record(trunk)
            for seat in (0, 1):
                self.walk(seat, kernels.EVALUATE, play, record=record)
            yield NodeStats(trunk, record.reach, record.value)
        if len(cuts.nodes):
            # The reach arriving at each cut: one walk of the first round (whole-tree walks may
            # cut elsewhere, in their own buffers).
            deal = self.model.deal_prob
            self.walk_subtree(0, deal, deal, 0, play, self.no_record, out, mode=kernels.COLLECT)
        for c, cut in enumerate(cuts.nodes):
            block = np.arange(tree.first_child[cut], tree.subtree_end[cut])
            chosen = np.concatenate([[cut], block])
            chosen = chosen[wanted[chosen]]
            if not len(chosen):
                continue
            record = self.record(chosen)
            for seat in (0, 1):
                self.walk_subtree(int(cut), cuts.reach[c, 0].copy(), cuts.reach[c, 1].copy(), seat, play, record, out)
            yield NodeStats(chosen, record.reach, record.value)
