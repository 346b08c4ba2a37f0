"""Planning actors and clusters: the memory each streamed actor will hold, the fewest machines
that solve a game, and the time an iteration should take on them (``badugi plan --machines``;
:class:`solver.cfr.streamed_ray.StreamedRayEngine` refuses a solve its actors cannot hold).

A one-process solve's plan is :class:`solver.game.plan.SolvePlan`; this module plans the
actors of a streamed game from the same per-entry costs, counting each actor's groups as the
engine deals them."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..game.config import GameConfig
from ..game.plan import (BYTES_PER_ENTRY, BYTES_PER_NODE, QUANTIZED_BYTES_PER_ENTRY, QUANTIZED_BYTES_PER_ROW,
                         QUANTIZED_LOCAL_BYTES, STREAMED_DELTA_BYTES, format_bytes)
from ..game.setup import GameSetup
from . import kernels
from .actors import RayError
from .shards import TRANSFER_ENTRIES
from .streamed import StreamedArrays, group_chunks, streamed_arrays


# An actor's peak resident memory is planned as (GroupsActor): ACTOR_BASE_BYTES (a Ray worker
# with Python, NumPy, Numba and the walks compiled (cached): measured, an actor of a tiny game at
# 315 MB less what the terms below count for it) plus the larger of building the layout
# (LAYOUT_BUILD_FACTOR times its arrays, measured: 2.4 on full-resolution cap-4 triple draw, 2.6
# on the preset's rule at cap 2) and the solve's steady state: the trunk and shape, its cuts'
# entry tables, its storage and a transfer piece (both ways; the layout, every slot's, is let go
# once the actor has its entries: it is the driver's to keep). A first run after
# the walks' code changed compiles them in each actor: about 140 MB more, once. Measured against
# the plan: within 7% at cap 2 and cap 4 (BENCHMARKS.md, "Streamed actors").
ACTOR_BASE_BYTES = 250 << 20


LAYOUT_BUILD_FACTOR = 2.5


CUT_TABLE_BYTES = 4 * 8       # per decision node of its cuts: the entry table and the copies made finding its slots


class GameParts(NamedTuple):
    """What plans of a streamed game's actors read, found once (:func:`game_parts`)."""

    config: GameConfig
    cut_group: np.ndarray       # each cut's group (named by its first cut: kernels.cut_groups)
    cut_decisions: np.ndarray   # each cut's decision nodes
    group_entries: np.ndarray   # by group name: its storage entries (0 at cuts naming no group)
    group_rows: np.ndarray      # by group name: its action rows
    trunk_entries: int          # the driver's (the first round's slots)
    trunk_rows: int
    entries: int                # the whole storage
    layout_bytes: int           # the layout's and its recall rule's arrays, which every process holds
    built_nodes: int            # the trunk and one shape
    states: int                 # the private states walked (buckets, or value classes)


def game_parts(setup: GameSetup, arrays: StreamedArrays | None = None, group: np.ndarray | None = None
               ) -> GameParts:
    """The parts of ``setup``'s streamed game that its actors' memory depends on: the cut groups and
    each one's storage, found as the engine finds them (seconds; at cap 4 at full resolution, the
    layout of 91 million slots is built: about 5 GB, half a minute). ``arrays`` and ``group``:
    the walked game's arrays and cut groups, if made already."""
    layout = setup.walked_layout
    game = setup.game
    arrays = arrays or streamed_arrays(game, layout, setup.walked_states)
    group = kernels.cut_groups(arrays.tree, layout.n_slots) if group is None else group
    decisions, entries, rows = kernels.group_sizes(arrays.tree, layout.slot_offset, layout.slot_actions, group)
    trunk_slots = int((layout.slot_round == 0).sum())
    rule = layout.rule
    layout_bytes = sum(getattr(layout, name).nbytes for name in layout.ARRAYS) + sum(
        value.nbytes for value in vars(rule).values() if isinstance(value, np.ndarray))
    shape_nodes = game.shape.n_nodes if game.shape is not None else 0
    return GameParts(setup.config, group, decisions, entries, rows, int(layout.slot_offset[trunk_slots]),
                     int(layout.slot_actions[:trunk_slots].astype(np.int64).sum()), int(layout.n_entries),
                     int(layout_bytes), game.trunk.n_nodes + shape_nodes, setup.walked_states.n_values)


class ActorPlan(NamedTuple):
    """The planned memory of a streamed game's actors (:func:`plan_actors`)."""

    actors: int
    storage_bits: int
    blocks: list               # each actor's cuts
    entries: list              # each actor's storage entries
    bytes: list                # each actor's planned peak resident bytes
    fixed_bytes: int           # what every actor holds whatever its share (the process, the trunk and shape)
    driver_bytes: int          # the driver: the same fixed part, the trunk's storage and a strategy-file chunk
    gather_bytes: int          # the whole storage: what a deal by measured cost moves through the driver

    @property
    def largest(self) -> int:
        return max(self.bytes)


def plan_actors(parts: GameParts, actors: int, storage_bits: int = 32, threads: int = 1,
                blocks: list | None = None) -> ActorPlan:
    """Each of ``actors`` streamed actors' peak resident memory (its groups dealt as the engine
    deals them, or ``blocks``: each actor's cuts), on ``threads`` threads each, in float32 or
    16-bit storage."""
    blocks = owned_groups(parts.cut_group, actors) if blocks is None else blocks
    nodes = parts.built_nodes * (BYTES_PER_NODE + 24 * threads)
    fixed = ACTOR_BASE_BYTES + nodes          # (an actor lets the layout go once it has its entries)
    building = ACTOR_BASE_BYTES + int(LAYOUT_BUILD_FACTOR * parts.layout_bytes)
    entries, peaks = [], []
    for block in blocks:
        names = np.unique(parts.cut_group[block])
        n = int(parts.group_entries[names].sum())
        if storage_bits == 32:
            storage = n * (BYTES_PER_ENTRY + STREAMED_DELTA_BYTES)
        else:
            largest = int(parts.group_entries[names].max()) if len(names) else 0
            storage = (n * QUANTIZED_BYTES_PER_ENTRY + int(parts.group_rows[names].sum()) * QUANTIZED_BYTES_PER_ROW
                       + QUANTIZED_LOCAL_BYTES * threads * largest)
        cuts = int(parts.cut_decisions[block].sum()) * CUT_TABLE_BYTES + len(block) * 2 * 4 * parts.states * 8
        transfer = 2 * 4 * min(n, TRANSFER_ENTRIES) * 2   # a piece of each array, and its copy on the way
        entries.append(n)
        peaks.append(max(building, fixed + cuts + storage + transfer))
    per_entry = BYTES_PER_ENTRY + STREAMED_DELTA_BYTES if storage_bits == 32 else QUANTIZED_BYTES_PER_ENTRY
    # (a gather: both arrays whole, float32 or 16-bit integers with every row's two scales)
    rows = int(parts.group_rows.sum()) + parts.trunk_rows
    gather = 8 * parts.entries if storage_bits == 32 else 4 * parts.entries + QUANTIZED_BYTES_PER_ROW * rows
    chunk = (4 + 8 + 4) * (1 << 24)   # (a strategy-file chunk: its probabilities, their entries, a piece received)
    driver = fixed + parts.layout_bytes + parts.trunk_entries * per_entry + chunk   # (the driver keeps the layout)
    return ActorPlan(actors, storage_bits, blocks, entries, peaks, fixed, max(building, driver), gather)


def smallest_cluster(parts: GameParts, machine_bytes: int, storage_bits: int = 32, threads: int = 1,
                     share: float = 0.75) -> ActorPlan | None:
    """The plan of the fewest actors, one a machine of ``machine_bytes``, each within ``share`` of
    its machine (three quarters, as a one-process plan leaves a quarter to the system); None if
    even one group alone does not fit."""
    for actors in range(1, len(np.unique(parts.cut_group)) + 1):
        plan = plan_actors(parts, actors, storage_bits, threads)
        if plan.largest <= share * machine_bytes:
            return plan
    return None


def owned_groups(cut_group: np.ndarray, actors: int) -> list[np.ndarray]:
    """The cuts of each of ``actors`` actors: whole groups, as threads get them
    (:func:`solver.cfr.streamed.group_chunks`; each actor's cuts in increasing order)."""
    groups = len(np.unique(cut_group))
    if groups < actors:
        raise RayError(f"the game's subtrees form {groups} group(s) of shared slots: at most that many actors")
    return _chunks(*group_chunks(cut_group, actors))


def _chunks(cuts: np.ndarray, starts: np.ndarray) -> list[np.ndarray]:
    """:func:`solver.cfr.streamed.group_chunks`'s chunks as a list, one array each."""
    return [cuts[starts[k]:starts[k + 1]] for k in range(len(starts) - 1)]


# Core-nanoseconds per storage entry (regret and sum) per iteration, measured: double draw at cap
# 4, 1,174,752,852 storage entries, 3.41 s an iteration on 2 threads, checks included
# (BENCHMARKS.md "Double draw").
NS_PER_ENTRY_CORE = 2 * 3.41 / 1_174_752_852 * 1e9


NETWORK_BYTES_PER_SECOND = 1.25e9   # 10 Gbit/s


WALK_LATENCY_SECONDS = 0.005        # a round trip to every actor and back, per walk


class ClusterPlan(NamedTuple):
    """A solve of a streamed game (:mod:`solver.cfr.streamed_ray`) on a cluster of ``machines``
    alike: one streamed actor a machine (its cores as Numba threads) owning whole groups of the
    second-round subtrees, the driver keeping the first round. Memory as planned by
    :func:`solver.cfr.planning.plan_actors`: what each actor holds, tested against what the
    actors use."""

    machines: int
    machine_bytes: int
    cores: int
    storage_bits: int
    cuts: int
    groups: int
    actors: int
    entries: int                # storage entries of the whole game
    actor_entries: int          # the largest actor's
    actor_bytes: int            # the largest actor's planned peak
    fixed_bytes: int            # of which every actor holds whatever its share
    driver_bytes: int           # the driver's
    gather_bytes: int           # the whole storage, which a deal by measured cost moves through the driver
    smallest: int | None        # the fewest machines of this size whose actors fit, float32 storage
    smallest_bytes: int         # (its largest actor; None: an actor of one group each, the largest)
    smallest_16: int | None     # and with 16-bit storage
    smallest_16_bytes: int      # (0: 16 bits do not apply: a game without buckets and recall)
    network_bytes: int          # per iteration (two update walks), both ways
    seconds: float              # projected per iteration

    @property
    def fits(self) -> bool:
        return self.actor_bytes <= 0.75 * self.machine_bytes

    def describe(self) -> str:
        memory = format_bytes(self.machine_bytes)
        verdict = ("fits" if self.fits else "does not fit") + f" in three quarters of {memory}"
        bits = "float32" if self.storage_bits == 32 else "16-bit"

        def smallest(n, size):
            if not size:
                return "not for this game (16-bit storage needs card buckets in every round and a recall)"
            return (f"{n} machine(s), {format_bytes(size)} an actor" if n is not None else
                    f"none: an actor of one group alone needs {format_bytes(size)} (machines of "
                    f"{format_bytes(size / 0.75)})")

        return "\n".join([
            f"cluster:         {self.machines} machine(s) x {memory} x {self.cores} cores",
            f"subtrees:        {self.cuts:,} (below the second-round starts) in {self.groups:,} group(s) sharing no "
            f"slot; {self.actors} streamed actor(s), one a machine",
            f"storage:         {self.entries:,} entries ({bits}); the largest actor {self.actor_entries:,}",
            f"per actor:       {format_bytes(self.actor_bytes)} at its peak, {format_bytes(self.fixed_bytes)} of it "
            f"whatever its share (the process, the trunk and shape; the layout only while it starts): {verdict}",
            f"driver:          {format_bytes(self.driver_bytes)} (the trunk and a strategy-file chunk; the actors "
            "write their parts of checkpoints); dealing the groups again by measured cost moves "
            f"{format_bytes(self.gather_bytes)} through it, done only where that is a quarter of its machine",
            f"smallest:        of {memory} machines, float32: {smallest(self.smallest, self.smallest_bytes)}; "
            f"16-bit: {smallest(self.smallest_16, self.smallest_16_bytes)}",
            f"network:         {format_bytes(self.network_bytes)} an iteration (reach down, values up, "
            "two update walks)",
            f"time:            about {self.seconds:,.1f} s an iteration if the walk splits evenly over "
            f"{self.actors * self.cores} cores ({NS_PER_ENTRY_CORE:.1f} ns per entry and core, measured on "
            "double draw at cap 4)",
        ])

    def to_json(self) -> dict:
        return {**self._asdict(), "fits": self.fits}


def cluster_plan(config: GameConfig, machines: int, machine_bytes: int, cores: int) -> ClusterPlan:
    """The plan of solving ``config`` over its streamed tree (card buckets in every round and a
    recall, or none: full resolution) on ``machines`` machines of ``machine_bytes`` and
    ``cores`` each, and the fewest such machines that would do (no tree is built: the trunk,
    one shape and the layout; at full resolution at cap 4 about 5 GB and a minute)."""
    if machines < 1 or cores < 1 or machine_bytes <= 0:
        raise RayError("a cluster needs at least one machine, one core and some memory")
    if not config.draws:
        raise RayError(f"{config.describe()}: a game without draws has no subtrees to share out")
    if config.bucketed and not config.abstract_game_ready:
        raise RayError(f"{config.describe()}: streamed actors need card buckets in every round and a recall, or "
                       "none (full resolution)")
    parts = game_parts(GameSetup(config, streamed=True))
    groups = len(np.unique(parts.cut_group))
    actors = min(machines, groups)
    plan = plan_actors(parts, actors, config.storage_bits, cores)
    # (16-bit storage is the abstract game's: card buckets in every round and a recall)
    small = {bits: smallest_cluster(parts, machine_bytes, bits, cores) or plan_actors(parts, groups, bits, cores)
             for bits in ((32, 16) if config.abstract_game_ready else (32,))}
    network = 2 * len(parts.cut_group) * 4 * parts.states * 8
    seconds = parts.entries * NS_PER_ENTRY_CORE * 1e-9 / (actors * cores) \
        + network / NETWORK_BYTES_PER_SECOND / actors + 2 * WALK_LATENCY_SECONDS
    return ClusterPlan(machines, int(machine_bytes), cores, config.storage_bits, len(parts.cut_group), groups, actors,
                       parts.entries, max(plan.entries), plan.largest, plan.fixed_bytes, plan.driver_bytes,
                       plan.gather_bytes, *(x for bits in (32, 16) for x in (
                           (None, 0) if bits not in small else
                           (small[bits].actors if small[bits].largest <= 0.75 * machine_bytes else None,
                            small[bits].largest))), network, seconds)
