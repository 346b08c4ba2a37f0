"""Scale-out on Ray: the trunk in the driver, the subtrees below it in actors.

A walk (:meth:`Walker.walk`) is three steps: a ``COLLECT`` walk of the
trunk (the first betting round and its draws) stores the reach arriving at
each cut (a second-round start), the subtrees below the cuts are walked from
those reach vectors, and a ``TRUNK`` walk uses the values they return. Each
subtree reads and writes only its own storage. So the subtrees can live in
other processes, on other machines: each :class:`SubtreeActor` owns a
contiguous block of cuts and keeps their regrets and strategy sums in its own
memory (a :class:`Shard`: only its nodes' entries), the driver keeps the
trunk's. Per walk, an actor receives its cuts' reach (three vectors of 1,092
numbers per cut) and sends back their values (one vector per cut).

Every subtree is walked by the same kernel on the same numbers as in one
process (:func:`solver.cfr.walker.walk_cuts`), and the driver adds the root's value
in the same order (:func:`kernels.root_total`), so a run on any number of
actors is the one-process run bit for bit: regrets, strategy sums, game value,
exploitability.

Ray is an optional extra (``pip install -e '.[ray]'``); nothing here imports
it until a Ray engine is made.
"""

from __future__ import annotations

import hashlib
import os
import time
import numba
import numpy as np

from ..game.config import GameConfig
from ..game.plan import format_bytes
from ..game.setup import GameSetup
from . import kernels
from .actors import ActorLost, GatheredStorage, RayError, actor_seconds, connect, kill_actors, ray_results  # noqa: F401
from .engine import DEFAULT_ALGORITHM, Engine
from .files import SHARD_DIR, keep_shards, save_shard
from .kernels import Cuts
from .locks import compile_locks
from .protocol import CheckpointState
from .shards import Shard, assemble, copy_overlap, cut_shard, read_shard, trunk_shard  # noqa: F401
from .walker import NO_STORAGE, Exploitability, Walker, read_only, walk_cuts, walk_over_cuts


def _game(config: GameConfig, row_of: np.ndarray | None):
    """The tree, draw model, layout and walker every process builds for itself (deterministic)."""
    setup = GameSetup(config, row_of, streamed=False)
    return Walker(setup.tree, setup.layout, setup.model)


def storage_digests(regret: np.ndarray, strat_sum: np.ndarray) -> tuple[str, str]:
    """SHA-256 hex digests of a regret and a strategy-sum array (float32 bytes)."""
    return (hashlib.sha256(np.ascontiguousarray(regret, np.float32).tobytes()).hexdigest(),
            hashlib.sha256(np.ascontiguousarray(strat_sum, np.float32).tobytes()).hexdigest())


def piece_digests(walker: Walker, regret: np.ndarray, strat_sum: np.ndarray, n_actors: int) -> list[tuple[str, str]]:
    """Digests of whole (one-process) storage cut as a Ray run on ``n_actors`` actors cuts it (see
    :meth:`RayEngine.digests`)."""
    pieces = [trunk_shard(walker)] + [cut_shard(walker, block) for block in split_cuts(walker, n_actors)]
    return [storage_digests(piece.take(regret), piece.take(strat_sum)) for piece in pieces]


def split_cuts(walker: Walker, n_actors: int) -> list[np.ndarray]:
    """The table cuts (second-round starts) in ``n_actors`` contiguous blocks of about equal
    size in public nodes (each block's cut indices)."""
    tree, cuts = walker.tree, walker.table_cuts
    if not len(cuts.nodes):
        raise RayError(f"{tree.config.describe()}: a game without draws has no subtrees to share out")
    sizes = np.empty(len(cuts.nodes), np.float64)
    for c, node in enumerate(cuts.nodes):
        node = int(node)
        sizes[c] = 1 + tree.subtree_end[node] - tree.first_child[node]
    bounds = np.searchsorted(np.cumsum(sizes), sizes.sum() * np.arange(1, n_actors) / n_actors)
    return [block for block in np.split(np.arange(len(cuts.nodes)), bounds)]


class SubtreeActor:
    """The regrets and strategy sums of a block of subtrees, and the walks below their cuts
    (wrapped by ``ray.remote`` in :class:`RayEngine`; plain Python otherwise)."""

    def __init__(self, config: GameConfig, row_of: np.ndarray, cut_ids: np.ndarray, threads: int = 0,
                 lock_file=None):
        """``lock_file``: a locked solve's :class:`solver.cfr.locks.LockFile` (the locks at its
        own nodes are played, kept by best responses, and in its average strategy)."""
        if threads > 0:
            numba.set_num_threads(min(threads, numba.config.NUMBA_NUM_THREADS))
        walker = _game(config, row_of)
        self.walker = walker
        tree = walker.tree
        self.cut_ids = np.asarray(cut_ids, np.int64)
        nodes = walker.table_cuts.nodes[self.cut_ids]
        self.shard = cut_shard(walker, self.cut_ids)
        self.layout_arrays = walker.layout_arrays._replace(entry_offset=self.shard.entry_offset(tree.n_nodes))
        n = walker.n_states
        index = np.full(tree.n_nodes, -1, np.int64)
        index[nodes] = np.arange(len(nodes))
        self.cuts = Cuts(nodes, index, np.zeros((len(nodes), 3, n)), np.zeros((len(nodes), n)))
        self.regret = np.zeros(self.shard.n_entries, np.float32)
        self.strat_sum = np.zeros(self.shard.n_entries, np.float32)
        self.update_seconds = 0.0
        self.locks, self._play, self._sealed_sums = None, None, None
        if lock_file is not None:
            self.locks = compile_locks(lock_file, tree, walker.model.legal).within(self.layout_arrays.entry_offset)
            self.layout_arrays = self.layout_arrays._replace(lock_code=self.locks.codes(
                tree, self.layout_arrays.entry_offset, walker.layout.row_width, self.shard.n_entries))
            self._play = np.empty(self.shard.n_entries, np.float32)

    def _locked(self, storage: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """``storage`` with its locked rows replaced by their strategy (itself, unlocked)."""
        if self.locks is None:
            return storage
        w = self.walker
        return self.locks.play(w.tree, self.layout_arrays.entry_offset, w.layout.row_width, w.layout.class_legal,
                               storage, np.empty_like(storage) if out is None else out)

    def _sealed(self) -> np.ndarray:
        """The strategy sums with locked rows replaced by their lock, made once until the sums
        change (checks and the strategy file's chunks read them many times)."""
        if self.locks is None:
            return self.strat_sum
        if self._sealed_sums is None:
            self._sealed_sums = self._locked(self.strat_sum)
        return self._sealed_sums

    def walk(self, traverser: int, policy: int, discount: dict, reach: np.ndarray) -> np.ndarray:
        """Walk every owned subtree from ``reach`` (cuts, 3, N); their values (cuts, N). Update
        walks play and update the regrets; best-response and evaluate walks play the sums."""
        w = self.walker
        t0 = time.perf_counter()
        self.cuts.reach[:] = reach
        update = policy in (kernels.UPDATE, kernels.UPDATE_PRUNED)
        play = self._locked(self.regret, self._play) if update else self._sealed()
        if update:
            self._sealed_sums = None
        regret, strat_sum = (self.regret, self.strat_sum) if update else (NO_STORAGE, NO_STORAGE)
        groups = (kernels.make_discount(**discount), w.tree_arrays, self.layout_arrays, w.draws, read_only(play),
                  regret, strat_sum)
        walk_cuts(traverser, policy, groups, self.cuts, w.works, w.no_record, numba.get_num_threads())
        if update:
            self.update_seconds += time.perf_counter() - t0
        return self.cuts.value.copy()

    def seconds(self) -> float:
        """Seconds its update walks took so far."""
        return self.update_seconds

    def get(self) -> tuple[np.ndarray, np.ndarray]:
        return self.regret, self.strat_sum

    def set(self, regret: np.ndarray, strat_sum: np.ndarray) -> None:
        self.regret = np.array(regret, np.float32)
        self.strat_sum = np.array(strat_sum, np.float32)
        self._sealed_sums = None

    def save(self, path: str) -> str:
        """Write this actor's shard (atomically) to ``path``, on storage the driver can reach."""
        save_shard(path, self.regret, self.strat_sum, self.cut_ids)
        return path

    def load(self, shards: list) -> None:
        """Take this actor's entries from a checkpoint's shard files (written by any number of
        actors): every file holding some of its cuts."""
        mine = set(self.cut_ids.tolist())
        for path, cuts in shards:
            if mine & set(np.asarray(cuts).tolist()):
                shard, regret, strat_sum = read_shard(path, self.walker, cuts)
                copy_overlap(shard, regret, self.shard, self.regret)
                copy_overlap(shard, strat_sum, self.shard, self.strat_sum)
        self._sealed_sums = None

    def digests(self) -> tuple[str, str]:
        """SHA-256 of this shard's regrets and sums (packed as :meth:`Shard.take` packs them): to
        compare a run with another without sending the storage."""
        return storage_digests(self.regret, self.strat_sum)

    def sums_in(self, a: int, b: int) -> np.ndarray:
        """This shard's strategy sums of entries ``a..b-1``, packed (see :meth:`Shard.pack`); a locked
        row's are its lock's."""
        return self.shard.pack(self._sealed(), a, b)

    def pid(self) -> int:
        return os.getpid()


class RayEngine(GatheredStorage, Engine):
    """An :class:`Engine` whose subtrees live in Ray actors (see the module docstring): the same
    iterations, checks and files, bit for bit, with the storage split across processes.

    ``regret`` and ``strat_sum`` read as whole arrays gather every shard (for checkpoints and
    strategy files); assigning them hands each shard its part."""

    warm_startable = False   # (its storage is in the actors)

    def __init__(self, config: GameConfig | GameSetup, algorithm: str = DEFAULT_ALGORITHM, address: str = "local",
                 actors: int = 2,
                 row_of: np.ndarray | None = None, actor_cpus: float = 1.0, check_memory: bool = True,
                 locks=None):
        if actors < 1:
            raise RayError(f"--actors must be at least 1, got {actors}")
        ray = connect(address, actors)
        # The storage is split, not allocated here: only the tree must fit (every process builds it).
        Engine.__init__(self, config, algorithm, check_memory=False, row_of=row_of, allocate=False)
        self._lock_file = locks
        if locks is not None:   # (played where each part is stored)
            self.check_lockable()
            self.locks = compile_locks(locks, self.tree, self.model.legal)
            self.scales = None   # (locked rows are played from a copy: walks that discount every entry)
        if check_memory:
            self.plan.check_tree_fits()
        walker = self.walker
        if self.layout.shares_slots:
            raise RayError(f"{self.config.describe()}: its public nodes share slots (imperfect recall), so subtrees "
                           "cannot own their storage; solve it with --streamed (streamed actors own whole groups of "
                           "them) or in one process")
        self.blocks = split_cuts(walker, actors)
        self.trunk = trunk_shard(walker)
        self._trunk_layout = walker.layout_arrays._replace(entry_offset=self.trunk.entry_offset(self.tree.n_nodes))
        if self.locks is not None:
            offsets = self._trunk_layout.entry_offset
            self._trunk_locks = self.locks.within(offsets)
            self._trunk_layout = self._trunk_layout._replace(lock_code=self._trunk_locks.codes(
                self.tree, offsets, self.layout.row_width, self.trunk.n_entries))
        self._cuts = walker.table_cuts
        self._ray = ray
        self._actor_cpus = actor_cpus
        self.actors = []
        self.restart()
        self.shards = [cut_shard(walker, block) for block in self.blocks]

    # -- walks -------------------------------------------------------------
    def _walk(self, traverser: int, policy: int, discount) -> float:
        w, cuts = self.walker, self._cuts
        deal = w.model.deal_prob
        n = w.n_states
        root_value = np.zeros((1, n))
        update = policy in (kernels.UPDATE, kernels.UPDATE_PRUNED)
        play = read_only(self._trunk_locked(self._regret if update else self._strat_sum))
        regret, strat_sum = (self._regret, self._strat_sum) if update else (NO_STORAGE, NO_STORAGE)
        groups = (discount, w.tree_arrays, self._trunk_layout, w.draws, play, regret, strat_sum, cuts, w.works[0],
                  w.no_record)

        def below() -> None:   # (each actor walks its subtrees from the reach at their cuts)
            futures = [actor.walk.remote(traverser, policy, discount._asdict(), cuts.reach[block])
                       for actor, block in zip(self.actors, self.blocks)]
            results = ray_results(self._ray, futures, f"during iteration {self.iteration + 1}")
            for block, values in zip(self.blocks, results):
                cuts.value[block] = values

        walk_over_cuts((w.trunk_roots, w.trunk_reach, root_value, traverser, policy), groups, len(cuts.nodes), below)
        return kernels.root_total(deal, root_value[0])

    def _trunk_locked(self, storage: np.ndarray) -> np.ndarray:
        """The trunk's ``storage`` with its locked rows replaced by their strategy (itself, unlocked)."""
        if self.locks is None:
            return storage
        return self._trunk_locks.play(self.tree, self._trunk_layout.entry_offset, self.layout.row_width,
                                      self.layout.class_legal, storage, np.empty_like(storage))

    def _update_walk(self, seat: int, policy: int, discount) -> None:
        """Engine.run_iterations's update walks, over the actors' subtrees."""
        self._walk(seat, policy, discount)
        self._updates += 1

    def progress_note(self) -> str:
        """Each actor's seconds of update walks an iteration since the last note."""
        try:
            totals = np.array(self._ray.get([a.seconds.remote() for a in self.actors]))
        except self._ray.exceptions.RayError:   # (a lost actor: the solve finds it at its next walk)
            return ""
        note = actor_seconds(totals - self._said[0], (self._updates - self._said[1]) / 2)
        self._said = (totals, self._updates)
        return note

    def describe_storage(self) -> str:
        """One line: how the storage is split."""
        per = ", ".join(format_bytes(8 * shard.n_entries) for shard in self.shards)
        return (f"Ray: {len(self.actors)} actor(s) own {len(self.walker.table_cuts.nodes)} subtrees ({per} of "
                f"regrets and sums); the driver keeps the trunk ({format_bytes(8 * self.trunk.n_entries)})")

    def exploitability(self) -> Exploitability:
        no = kernels.NO_UPDATE
        return Exploitability(self._walk(0, kernels.BEST_RESPONSE, no), self._walk(1, kernels.BEST_RESPONSE, no),
                              self._walk(0, kernels.EVALUATE, no))

    progress_exploitability = exploitability

    def digests(self) -> list[tuple[str, str]]:
        """Digests of the storage piece by piece (the trunk, then each actor's shard), without
        gathering it: equal to :func:`piece_digests` of a one-process run's arrays."""
        trunk = storage_digests(self._regret, self._strat_sum)  # the driver keeps the trunk's entries only
        return [trunk] + [tuple(d) for d in ray_results(self._ray, [actor.digests.remote() for actor in self.actors],
                                                        "reading digests")]

    # -- the storage, whole -----------------------------------------------
    def _gather(self, which: int) -> np.ndarray:
        whole = np.zeros(self.layout.n_entries, np.float32)
        self.trunk.put((self._regret, self._strat_sum)[which], whole)
        for actor, shard in zip(self.actors, self.shards):
            shard.put(ray_results(self._ray, [actor.get.remote()], "gathering the storage")[0][which], whole)
        return whole


    def load_storage(self, regret: np.ndarray, strat_sum: np.ndarray, scales: np.ndarray | None = None) -> None:
        """Hand each shard its part of a checkpoint's arrays (``scales``: see Engine.load_storage)."""
        self.set_scale_factors(scales)
        self._regret, self._strat_sum = self.trunk.take(regret), self.trunk.take(strat_sum)
        ray_results(self._ray, [actor.set.remote(shard.take(regret), shard.take(strat_sum))
                                for actor, shard in zip(self.actors, self.shards)], "handing out the storage")

    def average_sums(self) -> np.ndarray:
        """Every shard's strategy sums, locked rows replaced by their lock."""
        sums = self.strat_sum
        if self.locks is not None:
            self.locks.play(self.tree, self.layout.entry_offset, self.layout.row_width, self.layout.class_legal, sums,
                            sums)
        return sums

    def average_probability_chunks(self, max_entries: int = 1 << 24):
        """The average strategy in the layout's order, chunk by chunk: each chunk's strategy sums
        come from the driver's trunk and each actor's entries in it, so no process holds the
        whole table."""
        layout = self.layout
        arrays = layout.kernel_arrays()
        for lo, hi in layout.slot_chunks(max_entries):
            a, b = int(layout.slot_offset[lo]), int(layout.slot_offset[hi])
            chunk = np.zeros(b - a, np.float32)
            self.trunk.unpack(self.trunk.pack(self._trunk_locked(self._strat_sum), a, b), a, b, chunk)
            parts = ray_results(self._ray, [actor.sums_in.remote(a, b) for actor in self.actors],
                                "writing the strategy file")
            for shard, values in zip(self.shards, parts):
                shard.unpack(values, a, b, chunk)
            out = np.empty(b - a, np.float32)
            kernels.average_slots(layout.slot_round, layout.slot_kind, layout.slot_actions, layout.slot_offset - a,
                                  arrays, chunk, out, lo, hi)
            yield out

    _written = ()  # the shard files of the last checkpoint written

    def checkpoint_state(self, path) -> CheckpointState:
        """Each actor writes its shard beside the checkpoint ``path`` (a folder every machine
        reaches); the driver's trunk and the shard list go into the checkpoint itself, written
        after them. Shard files of older checkpoints than the one on disk are removed."""
        from pathlib import Path

        folder = Path(path).parent / SHARD_DIR
        folder.mkdir(parents=True, exist_ok=True)
        tag = f"i{self.iteration}-"
        names = [f"{SHARD_DIR}/{tag}a{k}of{len(self.actors)}.npz" for k in range(len(self.actors))]
        ray_results(self._ray, [actor.save.remote(str(Path(path).parent / name))
                                for actor, name in zip(self.actors, names)], "writing the checkpoint")
        keep_shards(Path(path).parent, names, self._written)
        self._written = names
        return CheckpointState(self._regret, self._strat_sum, list(zip(names, self.blocks)), self.scale_factors())

    def restore(self, data: dict, path) -> None:
        """Take a checkpoint read by :func:`files.load_checkpoint`: a sharded one (the trunk
        here, each actor reads the shard files of its cuts) or a whole one; and its iteration."""
        self._restore_storage(data, path)
        self.iteration = int(data["iteration"])

    def _restore_storage(self, data: dict, path="the checkpoint") -> None:
        from pathlib import Path

        from .files import CheckpointError

        if not data["shards"]:
            self.load_storage(*self.take_whole_storage(data, path), data["scales"])
            return
        self.set_scale_factors(data["scales"])

        if data["regret"].shape != (self.trunk.n_entries,):
            raise CheckpointError("the checkpoint's trunk does not match this game's tree")
        self._regret = np.array(data.pop("regret"), np.float32)
        self._strat_sum = np.array(data.pop("strat_sum"), np.float32)
        shards = [(str(path), np.asarray(cuts)) for path, cuts in data["shards"]]
        # (the checkpoint on disk until the next one replaces it: its shards are kept until then)
        self._written = [f"{SHARD_DIR}/{Path(path).name}" for path, _ in shards]
        try:
            self._ray.get([actor.load.remote(shards) for actor in self.actors])
        except self._ray.exceptions.RayTaskError as error:
            cause = error.cause if isinstance(getattr(error, "cause", None), Exception) else error
            raise CheckpointError(str(cause).splitlines()[-1]) from None

    def restart(self) -> None:
        """Kill any actors, start new ones with empty shards and the driver's trunk empty (then
        :meth:`restore` or :meth:`reset_storage` gives them a checkpoint's or zeros)."""
        self.shutdown()
        remote = self._ray.remote(num_cpus=self._actor_cpus, max_restarts=0)(SubtreeActor)
        threads = max(1, int(self._actor_cpus))
        self.actors = [remote.remote(self.config, self.layout.row_of, block, threads, self._lock_file)
                       for block in self.blocks]
        self._updates, self._said = 0, (np.zeros(len(self.actors)), 0)   # update walks; at the last note
        self._regret = np.zeros(self.trunk.n_entries, np.float32)
        self._strat_sum = np.zeros(self.trunk.n_entries, np.float32)

    def shutdown(self) -> None:
        """Kill the actors (their shards are lost: gather or checkpoint first)."""
        kill_actors(self._ray, self.actors)
        self.actors = []


def describe(engine) -> str:
    """One line: how the storage is split (a built tree's :class:`RayEngine`, or a streamed game's
    :class:`solver.cfr.streamed_ray.StreamedRayEngine`)."""
    return engine.describe_storage()


__all__ = ["ActorLost", "RayEngine", "RayError", "Shard", "SubtreeActor", "assemble", "connect",
           "describe", "piece_digests", "split_cuts", "storage_digests"]




