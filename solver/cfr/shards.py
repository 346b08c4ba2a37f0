"""Storage shards of a built tree: the entries of the subtrees below some table cuts (what a
Ray actor owns, :mod:`solver.cfr.distributed`), or of the trunk above them, read from a
checkpoint's shard files and put together again (a Ray run resumed in one process)."""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np

from ..game.layout import StrategyLayout
from .files import CheckpointError, load_slots_shard
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


# Entries an actor sends or takes in one call (float32 regrets and sums: 32 MB a piece, both ways).
TRANSFER_ENTRIES = 1 << 22


def copy_slots(src: dict, slots: np.ndarray, dst_offset: np.ndarray, dst_row_offset: np.ndarray | None,
               dst: dict, covered: np.ndarray, most: int = TRANSFER_ENTRIES) -> None:
    """Copy the storage of ``slots`` (increasing: a layout's numbers) that a checkpoint shard
    ``src`` (:func:`solver.cfr.files.load_slots_shard`) holds into ``dst`` (its regret and
    strat_sum arrays, and 16-bit row scales, laid out by ``dst_offset`` and ``dst_row_offset``:
    each listed slot's first entry and first row), marking them in ``covered``; pieces of about
    ``most`` entries. CheckpointError if a slot's size differs (another game's shard)."""
    common, i_src, i_dst = np.intersect1d(src["slots"], slots, assume_unique=True, return_indices=True)
    if not len(common):
        return
    src_offset = src["slot_offset"]
    sizes = src_offset[i_src + 1] - src_offset[i_src]
    if not np.array_equal(sizes, dst_offset[i_dst + 1] - dst_offset[i_dst]):
        raise CheckpointError("a shard of the checkpoint holds slots of another size: another game's")
    ends = np.cumsum(sizes)
    first = 0
    while first < len(common):
        last = max(int(np.searchsorted(ends, (ends[first - 1] if first else 0) + most, side="right")), first + 1)
        last = min(last, len(common))
        part = slice(first, last)
        source = index_runs(src_offset[i_src[part]], sizes[part])
        target = index_runs(dst_offset[i_dst[part]], sizes[part])
        for name in ("regret", "strat_sum"):
            dst[name][target] = src[name][source]
        first = last
    if dst_row_offset is not None:
        src_rows = src["row_offset"]
        rows = src_rows[i_src + 1] - src_rows[i_src]
        source, target = index_runs(src_rows[i_src], rows), index_runs(dst_row_offset[i_dst], rows)
        for name in ("regret_scale", "sum_scale"):
            dst[name][target] = src[name][source]
    covered[i_dst] = True


def assemble_shards(shards: list, layout, sixteen: bool) -> dict:
    """A streamed Ray run's checkpoint shards (their files) as whole-layout storage: regret and
    strat_sum (and 16-bit row scales); CheckpointError unless every slot but the first round's
    (the driver's) is in one."""
    n = layout.n_entries
    dtypes = (np.int16, np.uint16) if sixteen else (np.float32, np.float32)
    whole = {"regret": np.zeros(n, dtypes[0]), "strat_sum": np.zeros(n, dtypes[1])}
    every = np.arange(layout.n_slots, dtype=np.int64)
    row_offset = None
    if sixteen:
        actions = layout.slot_actions.astype(np.int64)
        row_offset = np.concatenate([[0], np.cumsum(actions)]).astype(np.int64)
        whole["regret_scale"] = np.zeros(int(row_offset[-1]), np.float32)
        whole["sum_scale"] = np.zeros(int(row_offset[-1]), np.float32)
    covered = np.zeros(layout.n_slots, bool)
    for path, _ in shards:
        copy_slots(load_slots_shard(path, sixteen), every, layout.slot_offset, row_offset, whole, covered)
    covered[layout.slot_round == 0] = True
    if not covered.all():
        raise CheckpointError(f"the checkpoint's shards hold {int(covered.sum()):,} of the game's {len(covered):,} "
                              "slots: some are missing")
    return whole


def index_runs(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """The indices of runs ``starts[k] .. starts[k] + sizes[k] - 1``, one after another (a set of
    slots' entries, or rows, in some array)."""
    sizes = np.asarray(sizes, np.int64)
    return np.repeat(np.asarray(starts, np.int64) - np.concatenate([[0], np.cumsum(sizes)[:-1]]), sizes) \
        + np.arange(int(sizes.sum()))


def shards_into(data: dict, layout: StrategyLayout, sixteen: bool) -> None:
    """A checkpoint written by streamed Ray actors (``data``: its trunk and shard list) made whole
    in place, as a one-process checkpoint of ``layout``'s storage (16-bit: with every row's
    scales); CheckpointError if a shard is missing, damaged, of a built tree's actors or of
    another game."""
    whole = assemble_shards(data["shards"], layout, sixteen)
    for name in ("regret", "strat_sum"):   # (a half not read stays unread: None)
        if data.get(name) is not None:
            whole[name][:len(data[name])] = data[name]
            data[name] = whole[name]
    data["shards"] = []
    if sixteen:
        rows = len(data["row_scales"][0])
        whole["regret_scale"][:rows], whole["sum_scale"][:rows] = data["row_scales"]
        data["row_scales"] = (whole["regret_scale"], whole["sum_scale"])
