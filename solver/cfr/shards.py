"""Storage shards of a built tree: the entries of the subtrees below some table cuts (what a
Ray actor owns, :mod:`solver.cfr.distributed`), or of the trunk above them, read from a
checkpoint's shard files and put together again (a Ray run resumed in one process)."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from ..game.layout import StrategyLayout
from .walker import Walker


class Shard(NamedTuple):
    """The storage entries one process owns: for each owned decision node (in node order), its
    slot's first entry in the whole layout, its length, and its first entry in the shard."""

    nodes: np.ndarray
    start: np.ndarray
    length: np.ndarray
    local: np.ndarray
    n_entries: int

    @classmethod
    def of(cls, layout: StrategyLayout, owned: np.ndarray) -> "Shard":
        """The shard of the decision nodes where ``owned`` is True."""
        nodes = np.nonzero(owned & (layout.slot_of >= 0))[0].astype(np.int64)
        slots = layout.slot_of[nodes]
        start = layout.slot_offset[slots].astype(np.int64)
        length = (layout.slot_offset[slots + 1] - layout.slot_offset[slots]).astype(np.int64)
        local = np.concatenate([[0], np.cumsum(length)[:-1]]).astype(np.int64) if len(nodes) else length.copy()
        return cls(nodes, start, length, local, int(length.sum()))

    def entry_offset(self, n_nodes: int) -> np.ndarray:
        """(public nodes,) the shard's first entry of each owned node, -1 elsewhere: the layout
        arrays a walk of the shard's own nodes takes."""
        out = np.full(n_nodes, -1, np.int64)
        out[self.nodes] = self.local
        return out

    def take(self, whole: np.ndarray) -> np.ndarray:
        """The shard's entries of a whole-layout array."""
        out = np.empty(self.n_entries, whole.dtype)
        _copy_runs(whole, self.start, out, self.local, self.length)
        return out

    def put(self, part: np.ndarray, whole: np.ndarray) -> None:
        """Write the shard's entries into a whole-layout array."""
        _copy_runs(part, self.local, whole, self.start, self.length)

    def in_range(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """The owned nodes whose slots start in entries ``a..b-1`` (chunks hold whole slots), as a
        mask, and each one's first entry in their concatenation."""
        mask = (self.start >= a) & (self.start < b)
        packed = np.concatenate([[0], np.cumsum(self.length[mask])[:-1]]).astype(np.int64) if mask.any() \
            else np.zeros(0, np.int64)
        return mask, packed

    def pack(self, part: np.ndarray, a: int, b: int) -> np.ndarray:
        """The shard's entries that lie in ``a..b-1``, concatenated in node order."""
        mask, packed = self.in_range(a, b)
        out = np.empty(int(self.length[mask].sum()), part.dtype)
        _copy_runs(part, self.local[mask], out, packed, self.length[mask])
        return out

    def unpack(self, values: np.ndarray, a: int, b: int, chunk: np.ndarray) -> None:
        """Place :meth:`pack`'s values into ``chunk``, which holds entries ``a..b-1``."""
        mask, packed = self.in_range(a, b)
        _copy_runs(values, packed, chunk, self.start[mask] - a, self.length[mask])




def copy_overlap(src_shard: Shard, src: np.ndarray, dst_shard: Shard, dst: np.ndarray) -> None:
    """Copy the entries of the nodes both shards own from ``src`` into ``dst``."""
    _, i, j = np.intersect1d(src_shard.nodes, dst_shard.nodes, assume_unique=True, return_indices=True)
    _copy_runs(src, src_shard.local[i], dst, dst_shard.local[j], dst_shard.length[j])


def read_shard(path, walker: Walker, cut_ids: np.ndarray) -> tuple[Shard, np.ndarray, np.ndarray]:
    """A shard file of a checkpoint: the shard of the cuts it says it holds, its regrets and
    sums; CheckpointError (one line) if missing, damaged or not those cuts'."""
    from .files import CheckpointError, load_shard

    cut_ids = np.asarray(cut_ids, np.int64)
    if len(cut_ids) and (cut_ids.min() < 0 or cut_ids.max() >= len(walker.table_cuts.nodes)):
        raise CheckpointError(f"{path}: its cuts are not this game's")
    shard = cut_shard(walker, cut_ids)
    regret, strat_sum, cuts = load_shard(path)
    if not np.array_equal(cuts, cut_ids) or regret.shape != (shard.n_entries,) or strat_sum.shape != regret.shape \
            or regret.dtype != np.float32 or strat_sum.dtype != np.float32:
        raise CheckpointError(f"{path} does not hold the shard the checkpoint names")
    if not (np.isfinite(regret).all() and np.isfinite(strat_sum).all()):
        raise CheckpointError(f"{path} is damaged: it holds non-finite numbers")
    return shard, regret, strat_sum


def cut_shard(walker: Walker, cut_ids: np.ndarray) -> Shard:
    """The shard of the subtrees below the table cuts ``cut_ids``."""
    return Shard.of(walker.layout, _owned_below(walker.tree, walker.table_cuts.nodes[cut_ids]))


def trunk_shard(walker: Walker) -> Shard:
    """The driver's part: every decision node above the table cuts."""
    return Shard.of(walker.layout, ~_owned_below(walker.tree, walker.table_cuts.nodes))


def assemble(walker: Walker, data: dict) -> tuple[np.ndarray, np.ndarray]:
    """A sharded checkpoint's whole regrets and sums (to resume it in one process)."""
    from .files import CheckpointError

    n = walker.layout.n_entries
    regret, strat_sum = np.zeros(n, np.float32), np.zeros(n, np.float32)
    trunk = trunk_shard(walker)
    if data["regret"].shape != (trunk.n_entries,):
        raise CheckpointError("the checkpoint's trunk does not match this game's tree")
    trunk.put(data["regret"], regret)
    trunk.put(data["strat_sum"], strat_sum)
    for path, cuts in data["shards"]:
        shard, r, ss = read_shard(path, walker, cuts)
        shard.put(r, regret)
        shard.put(ss, strat_sum)
    return regret, strat_sum


@numba.njit(cache=True)
def _copy_runs(src, src_start, dst, dst_start, length):
    for i in range(len(length)):
        a, b = src_start[i], dst_start[i]
        for j in range(length[i]):
            dst[b + j] = src[a + j]


def _owned_below(tree, cut_nodes: np.ndarray) -> np.ndarray:
    owned = np.zeros(tree.n_nodes, bool)
    for node in cut_nodes:
        tree.mark_subtree(owned, int(node))
    return owned
