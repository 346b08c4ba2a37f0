"""Games too big to build: the public tree as a built trunk and one shape for every subtree below it.

Below the first betting round and its draws, every subtree starts the same way
(a second-round start) and has the same shape; only the pot and the history
above it differ. So the *trunk* (round one and its draws, cut at the
second-round starts) is built, and one *shape* (the subtree below a
second-round start, contributions relative to its pot) is built once. A walk
fills each cut's contributions and storage entries from the shape and the
cut's pot and first-round record, under the layout's recall rule
(:class:`solver.game.layout.RecallRule`), and walks it with the kernels of
every other walk. Memory is the shape (1.4 million nodes for triple draw at
cap 4, against 242 million in the whole tree) plus a walk's buffers per
thread plus the strategy, plus the storage entry of each decision node below
each cut (:func:`cut_entries`: 8 bytes a decision node, 0.7 GB at cap 4),
looked up once instead of at every walk.

:class:`StreamedWalker` gives the exact best response and game value of any
strategy in a layout by recall rule, at full resolution: every public history
and every value class (the certificate of a solve in an abstraction).
"""

from __future__ import annotations

from typing import Iterator, NamedTuple

import numba
import numpy as np

from abstractions.random import stream_seed
from abstractions.transitions import DrawModel

from ..game.config import GameConfig
from ..game.setup import GameSetup
from ..game.layout import LayoutError, StrategyLayout
from ..game.tree import BET_LABELS, DRAW, N_SITUATIONS, StreamedGame
from . import kernels
from .files import CheckpointError
from .kernels import CutEntries, Cuts, Discount, DrawTables, Record, Storage, StreamedTree
from .protocol import CheckpointState, StorageHere
from .rules import Iterating
from .shards import shards_into
from .walker import (NO_STORAGE, Exploitability, NodeStats, action_columns, draw_tables, in_threads, normalised_slots,
                     read_only, tree_arrays, walk_over_cuts)


class WalkSummary(NamedTuple):
    """What a summary walk sums (see :meth:`StreamedWalker.summary`)."""

    mass: np.ndarray   # (seat, round, situation, column, class): situations as
                       # ``solver.game.tree.situations`` codes (bets 0-5, draws 6-11); column 0 the reach of
                       # (seat to act holding the class) times the opponent's total reach, summed
                       # over decisions; column 1 + a that times the probability of action a
                       # (f k c b r at bets, cards drawn at draws)
    root_value: np.ndarray  # (seat, class): the seat's value (BB) by dealt class, deal-weighted
                            # over the opponent
    pot: np.ndarray         # (seat, round, situation, class): column 0 of ``mass`` times the pot at
                            # the decision (both seats' contributions, the tree's units), summed

    @staticmethod
    def sums(config: GameConfig, n_states: int) -> np.ndarray:
        """The array a summary walk sums into (``kernels.Record.summary``): the columns of
        ``mass``, then the pot's (the last)."""
        columns = 1 + max(len(BET_LABELS), config.hand_size + 1)
        return np.zeros((2, config.rounds, N_SITUATIONS, columns + 1, n_states))

    @classmethod
    def of(cls, sums: np.ndarray, root_value: np.ndarray) -> "WalkSummary":
        """The summary of a walk's :meth:`sums`."""
        return cls(sums[:, :, :, :-1], root_value, sums[:, :, :, -1])


def streamed_setup(game: GameConfig | GameSetup, row_of: np.ndarray | None = None,
                   check_memory: bool = True) -> GameSetup:
    """The setup of a game solved over its streamed tree (``row_of``: a checkpoint's row maps),
    its plan checked against this machine."""
    setup = GameSetup.of(game, row_of, streamed=True)
    if check_memory:
        setup.plan.check_fits()
    return setup


NO_CUT_ENTRIES = CutEntries(np.zeros(0, np.int64), np.zeros((0, 0), np.int64))


def cut_entries(game: StreamedGame, layout: StrategyLayout) -> CutEntries:
    """The storage entry of every decision node of the shape below every cut of ``game``
    under ``layout``'s recall rule (:data:`kernels.CutEntries`), found once (in parallel
    over the cuts) for all the walks to come. Layouts of one recall rule over one game (the
    abstract game's and the real game's: buckets or classes) have the same entries."""
    if game.shape is None or not len(game.cut_nodes):
        return NO_CUT_ENTRIES
    shape = game.shape
    decisions = np.nonzero(shape.kind <= DRAW)[0].astype(np.int64)
    rule = layout.rule.kernel_arrays(layout.slot_offset)
    table = kernels.cut_entry_table(decisions, shape.round.astype(np.int64), shape.phase.astype(np.int64),
                                    shape.pot.astype(np.float64), shape.records.astype(np.int64), game.cut_pot,
                                    game.cut_record, rule)
    return CutEntries(decisions, table)


class StreamedArrays(NamedTuple):
    """What the kernels walk a streamed game with, built once (:func:`streamed_arrays`)."""

    tree: StreamedTree     # the kernels' group of the trunk, the shape and the cuts
    draws: DrawTables      # the draw model's (a bucket game's, in an abstract game)
    no_record: Record      # the trunk's nodes: records nothing
    shape_record: Record   # the shape's nodes: records nothing


def streamed_arrays(game: StreamedGame, layout: StrategyLayout, model,
                    entries: CutEntries = NO_CUT_ENTRIES) -> StreamedArrays:
    """The kernels' arrays of ``game`` under ``layout`` (by recall rule) with the private states
    and draws of ``model`` (a :class:`DrawModel`, or a bucket game: ``n_values`` and the draw
    tables' arrays), and the game's cut ``entries`` (:func:`cut_entries`; empty: each walk looks
    them up)."""
    if layout.rule is None:
        raise LayoutError("a streamed walk needs a layout by recall rule")
    n = model.n_values
    trunk = game.trunk
    index = np.full(trunk.n_nodes, -1, dtype=np.int64)
    index[game.cut_nodes] = np.arange(len(game.cut_nodes))
    n_cuts = max(len(game.cut_nodes), 1)
    cuts = Cuts(game.cut_nodes, index, np.zeros((n_cuts, 3, n)), np.zeros((n_cuts, n)))
    shape = game.shape if game.shape is not None else trunk  # a no-draw game has no cuts
    shape_cuts = Cuts(np.zeros(0, np.int64), np.full(shape.n_nodes, -1, np.int64), np.zeros((1, 3, n)),
                      np.zeros((1, n)))
    tree = StreamedTree(tree_arrays(trunk), layout.materialize(trunk).kernel_arrays(), cuts, game.cut_pot,
                        game.cut_record, tree_arrays(shape), shape.phase.astype(np.int64), shape.pot.astype(np.float64),
                        shape.records.astype(np.int64), shape_cuts, layout.rule.kernel_arrays(layout.slot_offset),
                        entries)
    return StreamedArrays(tree, draw_tables(model, game.config.rounds), kernels.no_record(trunk.n_nodes, n),
                          kernels.no_record(shape.n_nodes, n))


def unmerged(arrays: StreamedArrays) -> StreamedArrays:
    """``arrays`` whose walks take every draw count's subtree, none merged
    (``StrategyLayout.merge_from``): the tree walk that merged walks are tested and measured
    against."""
    tree = arrays.tree
    return arrays._replace(tree=tree._replace(trunk_layout=tree.trunk_layout._replace(merge_from=-1)))


def trunk_walk(game: StreamedTree, draws: DrawTables, deal_prob: np.ndarray):
    """Buffers of a walk of the trunk: work buffers, and its ``roots``, ``root_reach`` and
    ``root_value`` (:func:`kernels.trunk_root`)."""
    max_depth, n_act_max, n_sets, max_width = kernels.walk_sizes(game, draws)
    return (kernels.make_work(max_depth, n_act_max, len(deal_prob), n_sets, max_width),
            *kernels.trunk_root(deal_prob))


def walk_streamed(traverser: int, policy: int, deal_prob: np.ndarray, game: StreamedTree, shape_record: Record,
                  draws: DrawTables, play: np.ndarray, n_threads: int, record: Record) -> float:
    """A whole-tree walk (``BEST_RESPONSE`` or ``EVALUATE``) of a streamed ``game``
    (:data:`kernels.StreamedTree`); returns sum_s deal(s) * value(s).

    The trunk is walked to collect the reach at each cut; the cuts' subtrees (the shape with
    each cut's contributions and entries: :func:`kernels.fill_cut`) are walked in ``n_threads``
    contiguous chunks, one thread each; the trunk walk then uses their values. A cut the
    opponent never reaches is worth 0 and not walked. ``record``: the trunk's; ``shape_record``:
    the shape's (every cut's: it records no node), whose summary each chunk sums apart, added in
    chunk order after the walks.
    """
    work, roots, root_reach, root_value = trunk_walk(game, draws, deal_prob)
    cuts = game.cuts
    n_cuts = len(cuts.nodes)
    walk = (roots, root_reach, root_value, traverser, policy)
    groups = (kernels.NO_UPDATE, game.trunk, game.trunk_layout, draws, play, NO_STORAGE, NO_STORAGE, cuts, work, record)

    def below() -> None:
        n_chunks = max(1, min(n_cuts, n_threads))
        bounds = [chunk * n_cuts // n_chunks for chunk in range(n_chunks + 1)]
        sums = np.zeros((n_chunks,) + record.summary.shape)
        order = np.arange(n_cuts, dtype=np.int64)
        in_threads(n_chunks, lambda chunk: kernels.walk_cut_chunk(
            order[bounds[chunk]:bounds[chunk + 1]], True, traverser, policy, kernels.NO_UPDATE, game, draws, play,
            NO_STORAGE, NO_STORAGE, shape_record._replace(summary=sums[chunk]), np.uint64(0)))
        for chunk in range(n_chunks):
            record.summary[...] += sums[chunk]

    walk_over_cuts(walk, groups, n_cuts, below)
    return kernels.root_total(deal_prob, root_value[0])


def update_streamed(traverser: int, policy: int, adding: Discount, deal_prob: np.ndarray, game: StreamedTree,
                    shape_record: Record, draws: DrawTables, storage: Storage, chunk_cuts: np.ndarray,
                    chunk_start: np.ndarray, record: Record, seed: int = 0, settle: tuple | None = None) -> float:
    """One seat's update walk over a streamed ``game`` (:data:`kernels.StreamedTree`; see
    :func:`walk_streamed`), whose public nodes share slots; returns the root value.

    The cut subtrees are walked in chunks of whole cut groups, one thread each
    (:func:`kernels.cut_groups`: chunk ``k`` walks cuts ``chunk_cuts[chunk_start[k]:chunk_start[k + 1]]``,
    each group's in increasing order), so no two threads write one entry and every entry
    receives its additions in one order whatever the number of threads. ``storage``
    (:data:`kernels.Storage`): strategy sums are added in place (no walk reads them); regrets go
    to ``storage.delta`` (zero on entry, zeroed again on return), added to ``storage.regret``
    after the walks, which read the iteration's strategy from ``storage.play`` (the regrets).
    The trunk (the first round, whose slots no subtree shares) is updated last, in place.
    ``policy``: ``UPDATE``, ``UPDATE_PRUNED`` (cuts and subtrees the opponent never reaches
    are skipped; the opponent's strategy sums are the ones added), or a sampled walk
    (``kernels.sampled_policy``: as pruned, one of the opponent's actions walked where he is
    sampled, so most cuts are skipped). ``adding``: a discount that only adds. A sampled walk
    draws in the trunk from stream 0 of ``seed`` (``abstractions.random.stream_seed``), the same
    numbers in both trunk walks, and below cut ``c`` from stream ``c + 1``: its result depends on
    the seed alone, not on the chunks. ``settle``: ``(slot_offset, slot_seat, pos_scale,
    neg_scale, floor)`` of the traverser's discount, applied with the delta in one pass
    (:func:`kernels.settle_seat`) before the trunk's walk adds in place; the regrets were not
    discounted before this walk. None: the delta is only added (a discount applied before).
    """
    work, roots, root_reach, root_value = trunk_walk(game, draws, deal_prob)
    seed = np.uint64(seed)
    cuts = game.cuts
    n_cuts = len(cuts.nodes)
    if policy in (kernels.UPDATE_SAMPLED_DRAWS, kernels.UPDATE_SAMPLED_ALL):
        # The collecting walk skips the cuts below actions not sampled: unreached.
        cuts.reach[:, 1 - traverser] = 0.0
    work.rng[0] = stream_seed(seed, 0)
    walk = (roots, root_reach, root_value, traverser, policy)
    if settle is not None and not n_cuts:  # one walk, in place: the discount first (the delta is zero)
        kernels.settle_seat(storage.regret, storage.delta, settle[0], settle[1], traverser, *settle[2:])
    groups = (adding, game.trunk, game.trunk_layout, draws, storage.play, storage.regret, storage.strat_sum, cuts,
              work, record)

    def below() -> None:
        pruned = policy != kernels.UPDATE
        in_threads(len(chunk_start) - 1, lambda chunk: kernels.walk_cut_chunk(
            chunk_cuts[chunk_start[chunk]:chunk_start[chunk + 1]], pruned, traverser, policy, adding, game, draws,
            storage.play, storage.delta, storage.strat_sum, shape_record, seed))
        if settle is None:
            kernels.add_delta(storage.regret, storage.delta)
        else:
            kernels.settle_seat(storage.regret, storage.delta, settle[0], settle[1], traverser, *settle[2:])
        work.rng[0] = stream_seed(seed, 0)  # the trunk's picks again

    walk_over_cuts(walk, groups, n_cuts, below)
    return kernels.root_total(deal_prob, root_value[0])


def balance_groups(members: list, threads: int, cost: list | None = None) -> list[list[int]]:
    """Groups (each a list of its cuts, increasing) dealt to ``threads``: costliest first, each to
    the thread with the least cost so far; per thread the indices of its groups, in the order
    dealt (a thread may get none). ``cost``: each group's (measured seconds, say); by default its
    number of cuts."""
    cost = [len(m) for m in members] if cost is None else list(cost)
    load, owned = [0] * threads, [[] for _ in range(threads)]
    for g in sorted(range(len(members)), key=lambda g: (-cost[g], -len(members[g]), int(members[g][0]))):
        k = min(range(threads), key=lambda t: (load[t], t))
        load[k] += cost[g]
        owned[k].append(g)
    return owned


def cut_members(cut_group: np.ndarray) -> tuple[list[int], list[list[int]]]:
    """Each group's name (its first cut) and its cuts, increasing, in the order of the names."""
    groups: dict[int, list[int]] = {}
    for c, g in enumerate(cut_group.tolist()):
        groups.setdefault(g, []).append(c)
    return list(groups), list(groups.values())


def group_chunks(cut_group: np.ndarray, threads: int, cost: dict | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Cuts in ``threads`` chunks, whole groups each (:func:`kernels.cut_groups`; dealt by
    :func:`balance_groups`, by ``cost``: each group's by its name, if given); within a chunk in
    increasing order: ``(cuts, starts)`` for :func:`update_streamed`."""
    names, members = cut_members(cut_group)
    costs = None if cost is None else [cost[name] for name in names]
    owned = [[c for g in part for c in members[g]] for part in balance_groups(members, threads, costs)]
    cuts = np.array([c for part in owned for c in sorted(part)], np.int64)
    starts = np.concatenate([[0], np.cumsum([len(part) for part in owned])]).astype(np.int64)
    return cuts, starts


class StreamedWalker:
    """Best-response and evaluate walks of a streamed game under a layout by recall rule."""

    def __init__(self, game: StreamedGame, layout: StrategyLayout, model: DrawModel,
                 entries: CutEntries | None = None):
        """``entries``: the game's :func:`cut_entries` under this layout's rule, if already
        built (else built at the first whole walk)."""
        self.game, self.layout, self.model = game, layout, model
        self._entries = entries
        self.n_states = model.n_values
        self.arrays = streamed_arrays(game, layout, model)
        self.cuts = self.arrays.tree.cuts
        self.trunk_columns = action_columns(game.trunk)
        self.shape_columns = action_columns(game.shape if game.shape is not None else game.trunk)

    @property
    def entries(self) -> CutEntries:
        """The game's :func:`cut_entries` under this walker's layout (built on first use)."""
        if self._entries is None:
            self._entries = cut_entries(self.game, self.layout)
        return self._entries

    def walk(self, traverser: int, policy: int, play: np.ndarray, record: Record | None = None,
             shape_record: Record | None = None) -> float:
        """One walk of the whole tree (``BEST_RESPONSE`` or ``EVALUATE``); the traverser's value.
        ``record``: trunk nodes to record, and a summary to sum (see ``kernels.Record``);
        ``shape_record``: the shape's action columns for a summary; its nodes are every cut's, so
        it must record none (index -1 throughout)."""
        arrays = self.arrays
        return walk_streamed(traverser, policy, self.model.deal_prob, arrays.tree._replace(cut_entries=self.entries),
                             shape_record or arrays.shape_record, arrays.draws, read_only(play),
                             numba.get_num_threads(), record or arrays.no_record)

    def locate(self, history: str) -> tuple[int, int]:
        """``(cut, node)``: a valid history's node in the trunk (cut -1) or in the shape below cut
        ``cut`` (a second-round start is the shape's root)."""
        trunk, shape = self.game.trunk, self.game.shape
        cut, node = -1, 0
        for char in history.replace("/", ""):
            if cut < 0 and self.cuts.index[node] >= 0:
                cut, node = int(self.cuts.index[node]), 0
            tree = trunk if cut < 0 else shape
            node = next(c for c in tree.children(node) if chr(tree.action[c]) == char)
        if cut < 0 and self.cuts.index[node] >= 0:
            cut, node = int(self.cuts.index[node]), 0
        return cut, node

    def history_stats(self, play: np.ndarray, history: str) -> NodeStats:
        """Both seats' reach and values at one valid history, both playing the strategy in
        ``play``. Below the first round: a walk of the first round for the reach at its subtree,
        then two walks of that subtree (seconds); in the first round: two walks of the whole
        tree (minutes for big games: see :attr:`needs_whole_walks`)."""
        cut, node = self.locate(history)
        nodes = np.array([node], np.int64)
        return next(self.node_stats(play, nodes if cut < 0 else None, {} if cut < 0 else {cut: nodes}))[1]

    def node_stats(self, play: np.ndarray, trunk_nodes: np.ndarray | None = None,
                   cut_nodes: dict[int, np.ndarray] | None = None) -> Iterator[tuple[int, NodeStats]]:
        """``(cut, stats)`` batches: both seats' reach and values at decision nodes of the trunk
        (cut -1; two walks of the whole tree) and of the shape below each cut in ``cut_nodes``
        (one walk of the first round for the reach at every cut, then two walks of each cut's
        subtree), both seats playing the strategy in ``play``."""
        n = self.n_states
        play = read_only(play)
        if trunk_nodes is not None and len(trunk_nodes):
            index = np.full(self.game.trunk.n_nodes, -1, np.int64)
            index[trunk_nodes] = np.arange(len(trunk_nodes))
            k = len(trunk_nodes)
            record = self.arrays.no_record._replace(index=index, reach=np.zeros((k, 2, n)), value=np.zeros((k, 2, n)))
            for seat in (0, 1):
                self.walk(seat, kernels.EVALUATE, play, record)
            yield -1, NodeStats(np.asarray(trunk_nodes), record.reach, record.value)
        if not cut_nodes:
            return
        shape = self.game.shape
        deal = self.model.deal_prob
        # (Every draw count walked: the reach collected at each cut is read as that history's own.)
        tree, draws = unmerged(self.arrays).tree, self.arrays.draws
        work = kernels.make_work(*kernels.walk_sizes(tree, draws)[:2], n, len(draws.set_size),
                                 int(tree.trunk_layout.row_width.max()))
        roots, root_reach, out = kernels.trunk_root(deal)
        kernels.traverse(roots, root_reach, out, 0, kernels.EVALUATE, kernels.COLLECT, kernels.NO_UPDATE, tree.trunk,
                         tree.trunk_layout, draws, play, NO_STORAGE, NO_STORAGE, tree.cuts, work, self.arrays.no_record)
        contrib, entry_offset = np.empty((shape.n_nodes, 2)), np.empty(shape.n_nodes, np.int64)
        for cut, nodes in cut_nodes.items():
            kernels.fill_cut(tree, cut, contrib, entry_offset)
            cut_tree = tree.shape._replace(contrib=contrib)
            layout = tree.trunk_layout._replace(entry_offset=entry_offset)
            index = np.full(shape.n_nodes, -1, np.int64)
            index[nodes] = np.arange(len(nodes))
            k = len(nodes)
            record = self.arrays.shape_record._replace(index=index, reach=np.zeros((k, 2, n)),
                                                       value=np.zeros((k, 2, n)))
            reach = tree.cuts.reach[cut:cut + 1].copy()
            for seat in (0, 1):
                kernels.traverse(roots, reach, out, seat, kernels.EVALUATE, kernels.FULL, kernels.NO_UPDATE, cut_tree,
                                 layout, draws, play, NO_STORAGE, NO_STORAGE, tree.shape_cuts, work, record)
            yield cut, NodeStats(np.asarray(nodes), record.reach, record.value)

    def needs_whole_walks(self, history: str) -> bool:
        """Whether :meth:`history_stats` at this history walks the whole tree (a first-round
        decision)."""
        return self.locate(history)[0] < 0

    def summary(self, play: np.ndarray) -> WalkSummary:
        """Reach-weighted action sums at every decision of the whole tree and each seat's value by
        dealt class, both seats playing the strategy in ``play``: two evaluate walks."""
        config, n = self.game.config, self.n_states
        mass = WalkSummary.sums(config, n)
        root = np.zeros((2, n))
        shape = self.game.shape if self.game.shape is not None else self.game.trunk
        for seat in (0, 1):
            index = np.full(self.game.trunk.n_nodes, -1, np.int64)
            index[0] = 0
            # (The sums do not depend on the traverser: the first walk makes them.)
            summary = mass if seat == 0 else np.zeros((0, 0, 0, 0, 0))
            record = Record(index, np.zeros((1, 2, n)), np.zeros((1, 2, n)), summary, self.trunk_columns,
                            self.game.trunk.situation)
            shape_record = self.arrays.shape_record._replace(column=self.shape_columns, situation=shape.situation)
            self.walk(seat, kernels.EVALUATE, play, record, shape_record)
            root[seat] = record.value[0, seat]
        return WalkSummary.of(mass, root)

    def evaluate(self, play: np.ndarray) -> float:
        return self.walk(0, kernels.EVALUATE, play)

    def exploitability(self, play: np.ndarray) -> Exploitability:
        """Exact best responses against the strategy in ``play`` at full resolution, and its value."""
        br_button = self.walk(0, kernels.BEST_RESPONSE, play)
        br_bb = self.walk(1, kernels.BEST_RESPONSE, play)
        return Exploitability(br_button, br_bb, self.evaluate(play))


class StreamedEngine(Iterating, StorageHere):
    """What engines over a streamed game share: no built tree (a strategy is read through its
    layout's rule), the certificate, the average strategy, and the rest of the solve loop's
    interface (:class:`solver.cfr.protocol.SolverEngine`). Subclasses set ``setup``, ``config``, ``plan``,
    ``model``, ``layout``, ``game``, ``regret``, ``strat_sum`` and ``iteration``, and run
    iterations."""

    _certifier = None
    cut_entries = None  # the game's cut_entries, where the engine built them for its own walks
    locks = None  # node locking needs a built tree
    exact_progress = True  # (an engine whose progress checks are cheaper, and not exact, says so)
    warm_startable = False  # (solver.cfr.warm fills the abstract engine's float32 storage only)

    @property
    def n_states(self) -> int:
        return self.model.n_values

    def load_storage(self, regret: np.ndarray, strat_sum: np.ndarray) -> None:
        """Take a checkpoint's regrets and strategy sums (the arrays themselves)."""
        self.regret, self.strat_sum = regret, strat_sum

    @property
    def tree(self):
        """The game's tree is never built: its strategy is read through the layout's rule."""
        return None

    @property
    def certifier(self) -> StreamedWalker:
        """The exact best response of the real game at full resolution (built on first use)."""
        if self._certifier is None:
            self._certifier = StreamedWalker(self.game, self.layout, self.model, self.cut_entries)
        return self._certifier

    def exploitability(self) -> Exploitability:
        """The certificate: exact best responses in the real game against the average strategy
        (every public history, every value class), and its value."""
        return self.certifier.exploitability(self.strat_sum)

    def progress_exploitability(self) -> Exploitability:
        """The certificate (an engine with a cheaper measure of progress overrides this)."""
        return self.exploitability()

    def checkpoint_state(self, path) -> CheckpointState:
        """The storage as it is (no factors: every iteration discounts every entry)."""
        return CheckpointState(self.regret, self.strat_sum, [], None)

    def restore(self, data: dict, path) -> None:
        """Take a checkpoint's storage (the arrays themselves, popped from ``data``; a streamed Ray
        run's shards assembled) and iteration."""
        if data["shards"]:
            shards_into(data, self.layout, False)
        regret, strat_sum = self.take_whole_storage(data, path)
        if data["scales"] is not None and not np.all(data["scales"] == 1.0):
            raise CheckpointError(f"{path} holds a pruned solve's scaled storage; this game is streamed")
        self.load_storage(regret, strat_sum)
        self.iteration = int(data["iteration"])

    def average_probability_chunks(self, max_entries: int = 1 << 24):
        for lo, hi in self.layout.slot_chunks(max_entries):
            yield normalised_slots(self.layout, self.strat_sum, lo, hi)

    def average_probabilities(self) -> np.ndarray:
        return np.concatenate(list(self.average_probability_chunks()) or [np.zeros(0, np.float32)])
