"""Streamed actors on Ray: an abstract solve over a streamed tree, its subtrees in actors, its storage a part.

A streamed game (:mod:`solver.cfr.streamed`) is a built trunk and one shape that every cut
(second-round start) fills with its pot, record and storage entries. Under a recall rule the
cuts' subtrees share slots; the cuts that share any slot, directly or through others, form a
*group* (:func:`kernels.cut_groups`), and no two groups share one. So a group is the unit of
ownership: each :class:`GroupsActor` owns whole groups, builds the trunk and the shape (not
the tree), finds the entries of its own cuts only, and keeps the regrets and strategy sums of
its groups' slots in its own numbering (its slots in increasing order, each slot's entries
together). The driver keeps the first round's slots (the trunk's, which no subtree shares),
walks the trunk, and sends each actor the reach at its cuts; the actor walks them, settles its
storage and sends their values back.

What form the storage takes is a **part** (:mod:`solver.cfr.slot_storage`): the driver's trunk
is one piece of it, each actor's slots another, and the engine and the actors only call the
part (its update rule, its walks' steps, its transfers and files). Which part a combination
uses is the combinations table's (:mod:`solver.cfr.combinations`).

Merged draw counts (``StrategyLayout.merge_from``) cross cut boundaries in the trunk: below a
merged draw count of the button's first draw, the driver's collecting walk leaves no reach at
the cut, whose owner skips it, and the cut of the first merged count, which its owner walks,
carries them all (the trunk's walk reads its value for each). Owners need not be the same.

Every entry receives the same operations in the same order as in one process
(:class:`solver.cfr.abstract.AbstractEngine`, or :class:`solver.cfr.quantized.QuantizedEngine`
in 16 bits: a group's walk adds to it in cut order, whatever thread or process walks the
group), so the storage is the one-process storage bit for bit. Checkpoints are written by the
actors, each its part, and the strategy file chunk by chunk from them: the driver never holds
the whole storage (but to deal the groups again by measured cost, once, where it fits).
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numba
import numpy as np

from ..game.config import GameConfig
from ..game.plan import format_bytes, machine_memory_bytes
from ..game.layout import no_rule
from ..game.setup import GameSetup
from . import kernels
from .abstract import AbstractEngine
from .actors import GatheredStorage, RayError, actor_seconds
from .combinations import storage_name, storage_part
from .engine import DEFAULT_ALGORITHM
from .files import SHARD_DIR, CheckpointError, keep_shards, load_slots_shard, save_slots_shard
from .planning import ActorPlan, game_parts, owned_groups, plan_actors, smallest_cluster
from .protocol import CheckpointState
from .rules import Step, UpdateRule
from .runners import RayRunner
from .shards import TRANSFER_ENTRIES, copy_slots, index_runs
from .slot_storage import local_slots, row_map
from .streamed import balance_groups, cut_entries, cut_members, streamed_arrays, trunk_walk
from .walker import NO_STORAGE, Exploitability, in_threads, normalised_slots, read_only, walk_over_cuts



# Streamed actors deal their groups again once, by the seconds their update walks took over this
# many iterations (after the first, which may compile), if the slowest actor's share falls by this.
BALANCE_ITERATIONS = 3
BALANCE_GAIN = 0.05


class Balance(NamedTuple):
    """The deal of groups by measured cost (:meth:`StreamedRayEngine.after_iteration`)."""

    iteration: int        # measured up to
    before: list          # each actor's seconds of update walks an iteration, as dealt
    after: list           # as the measured costs deal them
    moved: bool           # whether the groups were dealt again
    why: str = ""         # why not

    def describe(self) -> str:
        def shares(xs):
            return "/".join(f"{x:.2f}" for x in xs)

        if self.moved:
            return f"dealt by measured cost after iteration {self.iteration}: {shares(self.before)} -> " \
                   f"{shares(self.after)} s"
        return f"measured {shares(self.before)} s after iteration {self.iteration}: the deal kept ({self.why})"


class OwnCuts:
    """A streamed game's trunk and shape with some of its cuts only, numbered ``0..k-1`` in the
    order given: what an actor walks (its cut arrays and entry table hold its own cuts, not every
    cut's)."""

    def __init__(self, game, cut_ids: np.ndarray):
        self.templates, self.config, self.trunk, self.shape = game.templates, game.config, game.trunk, game.shape
        self.cut_nodes = game.cut_nodes[cut_ids]
        self.cut_pot = game.cut_pot[cut_ids]
        self.cut_record = game.cut_record[cut_ids]


class GroupsActor:
    """Whole cut groups of a streamed abstract solve: their storage (a part of
    :mod:`solver.cfr.slot_storage`, ``form``: by default the one the combinations table gives
    the config's storage) and the walks below their cuts (wrapped by ``ray.remote`` in
    :class:`StreamedRayEngine`)."""

    def __init__(self, config: GameConfig, row_of: np.ndarray | None, cut_ids: np.ndarray, threads: int = 0,
                 form: type | None = None):
        if threads > 0:
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        setup = GameSetup(config, row_of, streamed=True)
        layout = setup.walked_layout
        self.cut_ids = np.asarray(cut_ids, np.int64)   # (increasing: the one-process order)
        game = OwnCuts(setup.game, self.cut_ids)        # its cuts numbered 0..k-1
        entries = cut_entries(game, layout)
        table = entries.table
        known = table >= 0
        offsets = layout.slot_offset
        slot = np.searchsorted(offsets, table[known], side="right") - 1
        self.slots, inverse = np.unique(slot, return_inverse=True)
        form = storage_part("streamed", storage_name(config.storage_bits), "ray") if form is None else form
        self.storage = form(layout, self.slots)   # (its slots numbered 0..k-1, their entries together)
        self.slot_offset = self.storage.slot_offset
        table[known] = self.slot_offset[:-1][inverse.ravel()]   # local first entries, in place
        self.abstract = streamed_arrays(game, layout, setup.walked_states, entries)
        self.certify = (self.abstract if setup.solves_real_game
                        else streamed_arrays(game, setup.layout, setup.model, entries))
        # Its groups (each one's cuts, increasing, in local numbers), walked one call each and
        # timed: its threads take them as measured costs deal them (any deal: the same bits).
        group = kernels.cut_groups(self.abstract.tree, layout.n_slots)
        _, members = cut_members(group)
        self.groups = [np.array(m, np.int64) for m in members]
        self.storage.prepare_groups(group, table, numba.get_num_threads())
        # (its slots' arrays in the real game's layout: the average strategy it reports)
        real = setup.layout
        self._average = (real.slot_round[self.slots], real.slot_kind[self.slots], real.slot_actions[self.slots],
                         real.kernel_arrays())
        self.group_seconds = np.zeros(len(self.groups))
        self.update_seconds = 0.0
        self._deal()
        # Its walks read its entry table, not the recall rule: no reference to the layout's arrays
        # of every slot stays (2 GiB at full resolution at cap 4), so they are freed.
        rule = no_rule(config.rounds)
        self.abstract = self.abstract._replace(tree=self.abstract.tree._replace(rule=rule))
        self.certify = self.certify._replace(tree=self.certify.tree._replace(rule=rule))

    def _deal(self) -> None:
        """Its groups dealt to its threads: by the seconds their update walks took so far (by
        their number of cuts before any)."""
        cost = self.group_seconds.tolist() if self.group_seconds.any() else None
        self.thread_groups = [part for part in balance_groups(self.groups, numba.get_num_threads(), cost) if part]

    def entries(self) -> tuple[np.ndarray, np.ndarray]:
        """Its slots (layout numbering) and their first local entries (the last: the total)."""
        return self.slots, self.slot_offset

    def costs(self) -> tuple[list, np.ndarray]:
        """Its groups' cuts (the game's numbers) and the seconds their update walks took so far."""
        return [self.cut_ids[g] for g in self.groups], self.group_seconds.copy()

    def _walk(self, arrays, reach: np.ndarray, walk_group, timed: bool = False) -> np.ndarray:
        """Each group walked by ``walk_group(g, members, k, tree)`` on its thread ``k`` from the
        cuts' ``reach``; the cuts' values."""
        tree = arrays.tree
        tree.cuts.reach[...] = reach
        seconds = self.group_seconds

        def walk(k):
            for g in self.thread_groups[k]:   # (each group on one thread: its own seconds)
                t0 = time.perf_counter()
                walk_group(g, self.groups[g], k, tree)
                if timed:
                    seconds[g] += time.perf_counter() - t0

        in_threads(len(self.thread_groups), walk)
        return tree.cuts.value.copy()

    def update(self, traverser: int, step: Step, reach: np.ndarray) -> np.ndarray:
        """One seat's update walk below its cuts from ``reach`` (cuts, 3, states), as the rule's
        ``step`` asks, then its storage settled; the cuts' values (its threads then take its
        groups as the seconds so far deal them)."""
        t0 = time.perf_counter()
        arrays, storage = self.abstract, self.storage
        adding = kernels.make_discount(sum_weight=float(step.discount.sum_weight))
        values = self._walk(arrays, reach, lambda g, members, k, tree: storage.update_group(
            g, members, k, tree, arrays, traverser, step, adding), timed=True)
        storage.settle(traverser, step)
        self.update_seconds += time.perf_counter() - t0
        self._deal()
        return values

    def seconds(self) -> float:
        """Seconds its update walks took so far (the storage settled included)."""
        return self.update_seconds

    def check(self, traverser: int, policy: int, certify: bool, reach: np.ndarray) -> np.ndarray:
        """A best-response or evaluate walk below its cuts against its average strategy, in the
        abstract game or (``certify``) the real one at full resolution; the cuts' values."""
        arrays, storage = (self.certify if certify else self.abstract), self.storage
        return self._walk(arrays, reach, lambda g, members, k, tree: storage.check_group(
            g, members, k, tree, arrays, traverser, policy))

    def storage_pass(self, name: str, args: tuple) -> None:
        """One of the update rule's storage passes (``discount_storage``, ``discount_rows``...)."""
        getattr(self.storage, name)(*args)

    def get(self, which: int, lo: int, hi: int) -> np.ndarray:
        """Local entries ``lo..hi-1`` of its regrets (0) or strategy sums (1): a piece, so that
        no copy of the whole storage is ever made for a transfer."""
        return self.storage.piece(which, lo, hi)

    def set(self, lo: int, regret: np.ndarray, strat_sum: np.ndarray) -> None:
        """Its local entries from ``lo`` on (a piece of a checkpoint's storage)."""
        self.storage.set_piece(lo, regret, strat_sum)

    def average(self, lo: int, hi: int) -> np.ndarray:
        """The average strategy of its slots ``lo..hi-1`` (its own numbers), their entries in order:
        a piece of the strategy file, made where the sums are."""
        slot_round, slot_kind, slot_actions, arrays = self._average
        offsets = self.slot_offset
        out = np.empty(int(offsets[hi] - offsets[lo]), np.float32)
        kernels.average_slots(slot_round, slot_kind, slot_actions, offsets - offsets[lo], arrays,
                              read_only(self.storage.sums(lo, hi)), out, lo, hi)
        return out

    def save(self, path: str) -> str:
        """Write its part of a checkpoint (atomically) to ``path``, on storage the driver reaches:
        its slots, their entries and its storage (with its per-row arrays, if any)."""
        storage = self.storage
        arrays = {"slots": self.slots, "slot_offset": self.slot_offset, "regret": storage.regret,
                  "strat_sum": storage.strat_sum, "cut_ids": self.cut_ids, **storage.shard_arrays()}
        save_slots_shard(path, arrays)
        return path

    def load(self, paths: list) -> str:
        """Take its slots' storage from a checkpoint's shard files (written by any number of
        actors); "" or the one-line reason it cannot."""
        storage = self.storage
        covered = np.zeros(len(self.slots), bool)
        try:
            for path in paths:
                copy_slots(load_slots_shard(path, storage.row_offset is not None), self.slots, self.slot_offset,
                           storage.row_offset, storage.shard_targets(), covered)
        except CheckpointError as error:
            return str(error)
        if not covered.all():
            return f"the checkpoint's shards miss {int((~covered).sum()):,} of an actor's {len(covered):,} slots"
        return ""

    def scales(self) -> tuple | None:
        """Its rows' regret and sum scales (in the layout's row order), if its storage has them."""
        return self.storage.row_scales()

    def set_scales(self, regret_scale: np.ndarray, sum_scale: np.ndarray) -> None:
        self.storage.set_row_scales(regret_scale, sum_scale)

    def memory(self) -> int:
        """This process's peak resident memory in bytes (Linux)."""
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def local_pieces(slots: np.ndarray, slot_offset: np.ndarray, layout_offsets: np.ndarray,
                 most: int = TRANSFER_ENTRIES):
    """An actor's local entries in pieces of whole slots, about ``most`` entries each:
    ``(lo, hi, index)``, local entries ``lo..hi-1`` and the layout entry of each (so the driver
    never holds an index of every entry at once)."""
    sizes = np.diff(slot_offset)
    first = 0
    while first < len(slots):
        last = max(int(np.searchsorted(slot_offset, slot_offset[first] + most, side="right")) - 1, first + 1)
        last = min(last, len(slots))
        lo, hi = int(slot_offset[first]), int(slot_offset[last])
        yield lo, hi, index_runs(layout_offsets[slots[first:last]], sizes[first:last])
        first = last


class Everywhere:
    """What an update rule acts on: each storage pass it calls (``discount_storage``,
    ``discount_rows``...) done on the driver's trunk and in every actor."""

    def __init__(self, engine: StreamedRayEngine):
        self._engine = engine

    def __getattr__(self, name: str):
        return lambda *args: self._engine.storage_pass(name, args)


class StreamedRayEngine(GatheredStorage, AbstractEngine):
    """:class:`AbstractEngine` whose cut groups live in Ray actors (see the module docstring): the
    same iterations, checks and files, bit for bit. ``regret`` and ``strat_sum`` read as whole
    arrays gather every actor's (tests, and a deal by measured cost)."""

    warm_startable = False   # (its storage is in the actors)

    def __init__(self, config: GameConfig | GameSetup, algorithm: str = DEFAULT_ALGORITHM, address: str = "local",
                 actors: int = 2, row_of: np.ndarray | None = None, actor_cpus: float = 1.0,
                 actor_memory: int | None = None, balance: bool = True, form: type | None = None,
                 runner=None):
        """``actor_memory``: bytes each actor asks Ray for (its ``memory`` resource): a solve whose
        actors' planned peak (:func:`plan_actors`) is more, or that the cluster's nodes cannot
        place, is a one-line RayError. ``balance``: deal the groups again by their measured cost
        once (:meth:`after_iteration`). ``form``: the storage part (by default the combinations
        table's for the config's storage). ``runner``: where the actors live
        (:mod:`solver.cfr.runners`; by default Ray at ``address``)."""
        if actors < 1:
            raise RayError(f"--actors must be at least 1, got {actors}")
        self.runner = RayRunner(address, actors) if runner is None else runner
        self._n_actors, self._actor_cpus, self._actor_memory = actors, actor_cpus, actor_memory
        self._threads = self.runner.actor_threads(actor_cpus)   # each actor's Numba threads
        self.balance, self.balanced, self._balance_said = balance, None, False
        self.actors: list = []
        # The storage's form: a part (solver.cfr.slot_storage), the driver's trunk one piece of it
        # and each actor's slots another: the one-process storage, bit for bit.
        bits = (config.config if isinstance(config, GameSetup) else config).storage_bits
        self.form = storage_part("streamed", storage_name(bits), "ray") if form is None else form
        AbstractEngine.__init__(self, config, algorithm, check_memory=False, row_of=row_of)

    # -- setting up ---------------------------------------------------------
    def _prepare(self) -> None:
        # The driver walks the trunk only: no cut entries here (each actor finds its own).
        self.arrays = streamed_arrays(self.game, self.game_layout, self.bucket_game)
        self.cut_group = kernels.cut_groups(self.arrays.tree, self.game_layout.n_slots)
        self.blocks = owned_groups(self.cut_group, self._n_actors)
        self._parts = None
        if self._actor_memory is not None:
            self._check_actor_memory()
        self.certify_arrays = (self.arrays if self.setup.solves_real_game
                               else streamed_arrays(self.game, self.layout, self.model))
        trunk_slots = np.nonzero(self.game_layout.slot_round == 0)[0]
        if len(trunk_slots) and trunk_slots[-1] != len(trunk_slots) - 1:
            raise AssertionError("the first round's slots come first in a layout by recall")
        self._trunk_slots = trunk_slots   # (slots 0..k-1: the layout's numbering)

    @property
    def storage_bits(self) -> int:
        return self.form.bits

    @property
    def actor_plan(self) -> ActorPlan:
        """Its actors' planned memory (:func:`plan_actors`; the game's parts found on first use)."""
        if self._parts is None:
            self._parts = game_parts(self.setup, self.arrays, self.cut_group)
        return plan_actors(self._parts, self._n_actors, self.storage_bits, self._threads, self.blocks)

    def _check_actor_memory(self) -> None:
        """RayError unless each actor's planned peak is within its memory and the cluster's nodes
        can place every actor (their memory resources)."""
        limit, plan, threads = self._actor_memory, self.actor_plan, self._threads
        if plan.largest > limit:
            bits = self.storage_bits
            fewest = smallest_cluster(self._parts, limit, bits, threads, share=1.0)
            alone = plan_actors(self._parts, len(np.unique(self.cut_group)), bits, threads).largest
            advice = (f"{fewest.actors} actors would fit (the fewest that do)" if fewest is not None else
                      f"no number of actors fits (an actor of one group needs {format_bytes(alone)})")
            raise RayError(f"each actor may use {format_bytes(limit)} (--actor-memory), but the largest of "
                           f"{self._n_actors} needs {format_bytes(plan.largest)} (planned): {advice}")
        nodes = self.runner.node_memory()
        places = sum(int(memory // limit) for memory in nodes)
        if places < self._n_actors:
            raise RayError(f"the cluster's nodes have room for {places} actor(s) of {format_bytes(limit)} (Ray's "
                           f"memory resources: {', '.join(format_bytes(m) for m in nodes)}), not {self._n_actors}")

    def _allocate(self) -> None:
        self.restart()

    def restart(self) -> None:
        """Kill any actors and start new ones, every storage zero (then :meth:`load_storage` or
        :meth:`restore` gives them a checkpoint's)."""
        self.shutdown()
        self.actors = self.runner.start(GroupsActor, [(self.config, self.setup.row_of, block, self._threads, self.form)
                                                      for block in self.blocks], self._actor_cpus, self._actor_memory)
        self._run, self._costs_from = 0, None                     # iterations since the actors started
        self._said = (np.zeros(len(self.actors)), 0)             # actors' seconds and iterations at the last note
        self.trunk = self.form(self.game_layout, self._trunk_slots)
        self._owned = self._get(a.entries.remote() for a in self.actors)   # per actor: (slots, local offsets)

    def shutdown(self) -> None:
        """Kill the actors (their storage is lost: gather or checkpoint first)."""
        self.runner.kill(self.actors)
        self.actors = []

    def _get(self, futures):
        """The results of actor calls (:func:`solver.cfr.distributed.ray_results`: a dead actor is
        :class:`ActorLost`, a failed call a RayError)."""
        return self.runner.results(futures, f"during iteration {self.iteration + 1}")

    # -- the storage, whole -------------------------------------------------
    def _gather(self, which: int) -> np.ndarray:
        """Every entry's regret (0) or strategy sum (1), in the storage's dtype (its row arrays:
        :meth:`_gather_scales`)."""
        trunk = self.trunk
        part = (trunk.regret, trunk.strat_sum)[which]
        whole = np.zeros(self.game_layout.n_entries, part.dtype)
        whole[:len(part)] = part
        offsets = self.game_layout.slot_offset
        for (slots, base), actor in zip(self._owned, self.actors):   # one piece at a time
            for lo, hi, index in local_pieces(slots, base, offsets):
                whole[index] = self._get([actor.get.remote(which, lo, hi)])[0]
        return whole

    def _gather_scales(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Every row's regret and sum scales (None: the storage keeps none)."""
        if self.trunk.row_scales() is None:
            return None
        regret_scale, sum_scale = (np.zeros(row_map(self.game_layout).n_rows, np.float32) for _ in range(2))
        rows = self.trunk.row_ids
        regret_scale[rows], sum_scale[rows] = self.trunk.row_scales()
        for rows_of, actor in zip(self._actor_rows, self.actors):
            regret_scale[rows_of], sum_scale[rows_of] = self._get([actor.scales.remote()])[0]
        return regret_scale, sum_scale

    @property
    def _actor_rows(self) -> list:
        """Each actor's rows in the layout's row numbering."""
        return [local_slots(self.game_layout, slots).row_ids for slots, _ in self._owned]

    def load_storage(self, regret: np.ndarray, strat_sum: np.ndarray, scales=None) -> None:
        """Hand a checkpoint's storage to the driver's trunk and the actors, piece by piece: in
        the storage's form (with its row ``scales``, if it keeps them), or float32 storage put
        into it."""
        regret, strat_sum, scales = self.form.whole(self.game_layout, regret, strat_sum, scales)
        trunk = self.trunk
        n = len(trunk.regret)
        trunk.set_piece(0, regret[:n], strat_sum[:n])
        if scales is not None:
            rows = trunk.row_ids
            trunk.set_row_scales(scales[0][rows], scales[1][rows])
            self._get(a.set_scales.remote(scales[0][rows], scales[1][rows])
                      for a, rows in zip(self.actors, self._actor_rows))
        offsets = self.game_layout.slot_offset
        for (slots, base), actor in zip(self._owned, self.actors):   # one piece at a time
            for lo, hi, index in local_pieces(slots, base, offsets):
                self._get([actor.set.remote(lo, regret[index], strat_sum[index])])

    _written = ()  # the shard files of the last checkpoint written

    def checkpoint_state(self, path) -> CheckpointState:
        """Each actor writes its part beside the checkpoint ``path`` (a folder every machine
        reaches: :data:`SHARD_DIR`); the driver's trunk (with its row scales, if any) and the
        shard list go into the checkpoint itself, written after them. No process holds the whole
        storage. Shard files of older checkpoints than the one on disk are removed."""
        from pathlib import Path

        folder = Path(path).parent / SHARD_DIR
        folder.mkdir(parents=True, exist_ok=True)
        names = [f"{SHARD_DIR}/i{self.iteration}-s{k}of{len(self.actors)}.npz" for k in range(len(self.actors))]
        self._get(actor.save.remote(str(Path(path).parent / name)) for actor, name in zip(self.actors, names))
        keep_shards(Path(path).parent, names, self._written)
        self._written = names
        scales = self.trunk.row_scales()
        return CheckpointState(self.trunk.regret.copy(), self.trunk.strat_sum.copy(), list(zip(names, self.blocks)),
                               None, None if scales is None else tuple(x.copy() for x in scales))

    def restore(self, data: dict, path) -> None:
        """Take a checkpoint: one written by streamed actors (the driver's trunk, and each actor
        reads its slots from the shard files holding its cuts), or a whole one (with its row
        scales, if the storage keeps them), handed out piece by piece."""
        if data["shards"]:
            return self._restore_shards(data, path)
        if data["scales"] is not None and not np.all(data["scales"] == 1.0):
            raise CheckpointError(f"{path} holds a pruned solve's scaled storage; this game is streamed")
        regret, strat_sum = self.take_whole_storage(data, path)
        self.load_storage(regret, strat_sum, self.form.checkpoint_rows(data, path, self.game_layout))
        self.iteration = int(data["iteration"])

    def _restore_shards(self, data: dict, path) -> None:
        """:meth:`restore` of a checkpoint written by streamed actors (on any number of them)."""
        from pathlib import Path

        regret, strat_sum = data.pop("regret"), data.pop("strat_sum")
        trunk = self.trunk
        n = len(trunk.regret)
        if len(regret) != n or regret.dtype != trunk.regret.dtype:
            raise CheckpointError(f"{path} was not written by streamed actors of this game (its trunk holds "
                                  f"{len(regret):,} entries, this game's {n:,})")
        trunk.set_piece(0, regret, strat_sum)
        if trunk.row_scales() is not None:
            scales = data.pop("row_scales")
            if scales is None or len(scales[0]) != len(trunk.row_ids):
                raise CheckpointError(f"{path} does not hold this game's trunk row scales")
            trunk.set_row_scales(*scales)
        files = data["shards"]
        # (the checkpoint on disk until the next one replaces it: its shards are kept until then)
        self._written = [f"{SHARD_DIR}/{Path(name).name}" for name, _ in files]
        for block, actor in zip(self.blocks, self.actors):
            mine = [str(name) for name, cuts in files if np.intersect1d(cuts, block).size]
            problem = self._get([actor.load.remote(mine)])[0]
            if problem:
                raise CheckpointError(f"{path}: {problem}")
        self.iteration = int(data["iteration"])

    def reset_storage(self) -> None:
        self.restart()
        self.iteration = 0

    def average_probability_chunks(self, max_entries: int = 1 << 24):
        """The average strategy, chunk by chunk: the trunk's from the driver, each actor's slots
        from the actor (normalised where its sums are), so no process holds the whole table."""
        layout = self.layout
        trunk = len(self._trunk_slots)
        sums = self.trunk.sums()
        for lo, hi in layout.slot_chunks(max_entries):
            start = int(layout.slot_offset[lo])
            out = np.zeros(int(layout.slot_offset[hi]) - start, np.float32)
            if lo < trunk:
                part = normalised_slots(layout, sums, lo, min(hi, trunk))
                out[:len(part)] = part
            for (slots, base), actor in zip(self._owned, self.actors):
                k0, k1 = (int(k) for k in np.searchsorted(slots, [lo, hi]))
                if k1 > k0:
                    index = index_runs(layout.slot_offset[slots[k0:k1]] - start, np.diff(base)[k0:k1])
                    out[index] = self._get([actor.average.remote(k0, k1)])[0]
            yield out

    # -- iterations (solver.cfr.rules.Iterating runs them) ----------------------------------
    def update_rule(self) -> UpdateRule:
        """The storage part's rule (as :class:`AbstractEngine`'s in float32, or
        :class:`solver.cfr.quantized.QuantizedEngine`'s in 16 bits), each storage pass done on the
        driver's trunk and in every actor."""
        return self.form.rule(self.schedule, Everywhere(self), self.pruned)

    def storage_pass(self, name: str, args: tuple) -> None:
        """One of the rule's storage passes, on the trunk and then in every actor."""
        getattr(self.trunk, name)(*args)
        self._get(a.storage_pass.remote(name, args) for a in self.actors)

    def update_walk(self, seat: int, step: Step) -> None:
        """One seat's update walk: the trunk collects the reach at the cuts, the actors walk their
        groups, the trunk's storage is settled and its walk adds to it."""
        self._walk(self.arrays, self.bucket_game.deal_prob, seat, step.policy, self.trunk.trunk_update(seat, step),
                   lambda actor, reach: actor.update.remote(seat, step, reach), step)
        self.trunk.after_trunk(seat, step)

    def after_iteration(self) -> None:
        """Once, deal the groups again by their measured cost (the first iteration's walks may
        compile: not measured)."""
        self._run += 1
        if self.balance and self.balanced is None and len(self.actors) > 1:
            if self._run == 1:
                self._costs_from = self._group_costs()
            elif self._run == 1 + BALANCE_ITERATIONS:
                self._balance()

    # -- balance ------------------------------------------------------------------
    def _group_costs(self) -> dict:
        """Each group's cuts and the seconds its update walks took so far, by its name (first cut)."""
        costs = {}
        for cuts, seconds in self._get(a.costs.remote() for a in self.actors):
            for members, spent in zip(cuts, seconds):
                costs[int(members[0])] = (members, float(spent))
        return costs

    def _balance(self) -> None:
        """Deal the groups to the actors again by the seconds their update walks took over the
        last :data:`BALANCE_ITERATIONS` iterations (costliest first, each to the actor with the least
        so far), if that takes the slowest actor's share down by :data:`BALANCE_GAIN` at least:
        the storage moves through the driver (gathered, then handed out), so only where it takes a
        quarter of the driver's machine at most."""
        now = self._group_costs()
        cost = {name: now[name][1] - self._costs_from[name][1] for name in now}
        loads = [sum(cost[int(c)] for c in block if int(c) in cost) for block in self.blocks]
        names = sorted(now)
        members = [now[name][0].tolist() for name in names]
        deal = balance_groups(members, len(self.actors), [cost[name] for name in names])
        blocks = [np.array(sorted(c for g in part for c in members[g]), np.int64) for part in deal]
        new = [sum(cost[names[g]] for g in part) for part in deal]
        # The storage moves through the driver: not where it would take more than a quarter of it;
        # and no actor may plan to need more memory than its limit, or (none) a tenth more than the
        # largest needs now.
        fits = self.game_layout.n_entries * self.form.entry_bytes <= 0.25 * machine_memory_bytes()
        gain = all(len(b) for b in blocks) and max(new) < (1 - BALANCE_GAIN) * max(loads)
        why = "" if gain else "the gain is under 5%"
        if gain and not fits:
            why = "the storage is too big to move through the driver"
        elif gain:
            room = self._actor_memory or 1.1 * self.actor_plan.largest
            if plan_actors(self._parts, len(blocks), self.storage_bits, self._threads, blocks).largest > room:
                why = "an actor would need more memory"
        if not why:
            self.rebalance(blocks)
        per = BALANCE_ITERATIONS
        self.balanced = Balance(self.iteration, [x / per for x in loads], [x / per for x in new], not why, why)

    def rebalance(self, blocks: list) -> None:
        """Give the actors these cuts (whole groups each, every cut once): the storage gathered,
        new actors started on them, the storage handed out (the same bits)."""
        covered = np.sort(np.concatenate(blocks))
        if not np.array_equal(covered, np.arange(len(self.cut_group))) or any(
                set(self.cut_group[b]) & set(np.delete(self.cut_group, b)) for b in blocks):
            raise RayError("a deal of the subtrees must give every cut once, whole groups to each actor")
        regret, strat_sum = self.regret, self.strat_sum
        scales = self._gather_scales()
        self.blocks = [np.sort(np.asarray(b, np.int64)) for b in blocks]
        self.restart()
        self.load_storage(regret, strat_sum, scales)

    def progress_note(self) -> str:
        """Each actor's seconds of update walks an iteration since the last note, and the deal by
        measured cost when it was made."""
        try:
            totals = np.array(self._get(a.seconds.remote() for a in self.actors))
        except RayError:   # (a lost actor: the solve finds it at its next walk)
            return ""
        said, at = self._said
        done = self._run - at
        self._said = (totals, self._run)
        notes = [actor_seconds(totals - said, done)] if done > 0 else []
        if self.balanced is not None and not self._balance_said:
            self._balance_said = True
            notes.append(self.balanced.describe())
        return "; ".join(notes)

    def _walk(self, arrays, deal: np.ndarray, traverser: int, policy: int, storage: tuple, below,
              step: Step | None = None) -> float:
        """One whole walk (as :func:`solver.cfr.streamed.update_streamed` and
        :func:`~solver.cfr.streamed.walk_streamed` do it): the trunk collects the reach at the
        cuts, ``below(actor, reach)`` walks each actor's cuts and returns their values, the
        trunk's storage is settled (an update's ``step``) and the trunk walked with the
        values. ``storage``: the trunk's (discount, play, regret, strategy sums). Returns the
        root's value."""
        game, draws = arrays.tree, arrays.draws
        work, roots, root_reach, root_value = trunk_walk(game, draws, deal)
        walk = (roots, root_reach, root_value, traverser, policy)
        discount, play, regret, strat_sum = storage
        groups = (discount, game.trunk, game.trunk_layout, draws, read_only(play), regret, strat_sum, game.cuts,
                  work, arrays.no_record)

        def in_actors() -> None:
            reach = game.cuts.reach
            values = self._get(below(actor, reach[block]) for actor, block in zip(self.actors, self.blocks))
            for block, value in zip(self.blocks, values):
                game.cuts.value[block] = value
            if step is not None:
                self.trunk.settle(traverser, step)

        walk_over_cuts(walk, groups, len(game.cuts.nodes), in_actors)
        return kernels.root_total(deal, root_value[0])

    # -- checks -------------------------------------------------------------------
    def _check(self, certify: bool, traverser: int, policy: int) -> float:
        arrays = self.certify_arrays if certify else self.arrays
        deal = (self.model if certify else self.bucket_game).deal_prob
        storage = (kernels.NO_UPDATE, self.trunk.sums(), NO_STORAGE, NO_STORAGE)
        return self._walk(arrays, deal, traverser, policy, storage,
                          lambda actor, reach: actor.check.remote(traverser, policy, certify, reach))

    def _exploitability(self, certify: bool) -> Exploitability:
        return Exploitability(self._check(certify, 0, kernels.BEST_RESPONSE),
                              self._check(certify, 1, kernels.BEST_RESPONSE),
                              self._check(certify, 0, kernels.EVALUATE))

    def exploitability(self) -> Exploitability:
        """The certificate, at full resolution: each actor walks its cuts in the real game."""
        return self._exploitability(True)

    def progress_exploitability(self) -> Exploitability:
        return self._exploitability(False)

    def actor_memory(self) -> list[int]:
        """Each actor's peak resident bytes."""
        return self._get(a.memory.remote() for a in self.actors)

    def describe_storage(self) -> str:
        """One line: how the storage is split."""
        size = self.form.entry_bytes
        per = ", ".join(format_bytes(size * int(base[-1])) for _, base in self._owned)
        return (f"Ray: {len(self.actors)} streamed actor(s) own {len(self.cut_group)} subtrees in "
                f"{len(np.unique(self.cut_group))} groups ({per} of regrets and sums{self.form.note}); the driver "
                f"keeps the trunk ({format_bytes(size * len(self.trunk.regret))})")
