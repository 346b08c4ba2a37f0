"""16-bit storage for the abstract solver: regrets and strategy sums in 16 bits, a scale per action row.

A game solved in its abstract game (:mod:`solver.cfr.abstract`) keeps, with
``storage_bits = 16`` in its config, each regret as an ``int16`` and each
strategy sum as a ``uint16``, and per *action row* (one action of one slot:
``row_width`` entries, see :mod:`solver.game.layout`) one float32 scale for
each: an entry is its integer times its row's scale, and a row's scale is its
largest magnitude over 32,767 (regrets) or 65,535 (sums). That is 4 bytes an
entry plus 8 a row, against 12 an entry for float32 storage and its delta.

Walks still add in float32. The cuts of a streamed game come in *groups* that
share slots (:func:`solver.cfr.kernels.cut_groups`); a thread walking a group
first *decodes* the group's regrets into its own float32 buffer (:class:`GroupPlan`
gives each group's slots a compact local numbering, and each cut's decision
nodes their local entries), walks the group's cuts on it exactly as the float32
solver walks the whole storage, adding the traverser's regret delta and the
strategy sums into a zeroed buffer, then *encodes* the rows the walk added to:
what is stored plus the additions. So a walk's additions are summed in float32
before one rounding per entry, rows a pruned walk never visits are not touched,
and the buffers are one group's (a few percent of the storage each, for the
presets). Decoding and encoding every row each walk was three quarters of a
cap-4 iteration's thread time early in a solve (BENCHMARKS.md, "A cap-4
iteration in 16 bits"). The trunk (the first round) is decoded and
encoded whole around each walk. Discounts are folded into the row scales where
they scale a row uniformly (every strategy-sum discount; a regret discount that
treats both signs alike) and applied to the integers otherwise (dcfr-ramp's
reset of negative regrets zeroes them).

Rounding: a regret is rounded to the nearest step of its row's scale (at most
half a step, 1/65,534 of its row's largest regret, a walk). A strategy sum is
rounded *stochastically* (up with probability the fraction of a step, from a
hash of the iteration, the seat and the entry): late in a solve an iteration
adds a few thousandths of a row's largest sum, and nearest rounding would lose
every addition below half a step; unbiased rounding adds them up, and the same
seed gives the same bits on every run and every resume. On double draw at cap 4
(64 buckets, recall 1 and every draw) the certificate after equal iterations is
that of float32 storage or lower (BENCHMARKS.md, "16-bit storage").
"""

from __future__ import annotations

from typing import NamedTuple

import numba
import numpy as np
from numba import njit, prange

from ..game.layout import StrategyLayout
from ..game.plan import QUANTIZED_LOCAL_BYTES, SolveTooLarge, format_bytes
from abstractions.random import GOLDEN, mix

from . import kernels
from .abstract import AbstractEngine
from .files import CheckpointError
from .kernels import Discount
from .protocol import CheckpointState
from .rules import RowScaleRule, Step, UpdateRule
from .shards import shards_into
from .slot_storage import LocalSlots, row_map
from .streamed import StreamedWalker, balance_groups, trunk_walk
from .walker import NO_STORAGE, Exploitability, in_threads, read_only, walk_over_cuts

REGRET_LEVELS = 32767.0   # int16: a regret row's largest magnitude maps to this
SUM_LEVELS = 65535.0      # uint16: a strategy-sum row's largest value
NO_ADDED = np.zeros(0, np.float32)
NO_VALUES = np.zeros(0, np.float32)  # encode_slots: the rows as stored


# -- kernels -------------------------------------------------------------------
@njit(cache=True, nogil=True)
def decode_slots(slots, local_base, slot_offset, row_base, slot_width, slot_actions, slot_seat, seat, q, scale, out):
    """``out[local_base[k] + i] = q[slot_offset[s] + i] * scale[row]`` for each listed slot
    ``s = slots[k]`` of ``seat`` (all seats if ``seat`` < 0), every entry of its rows."""
    for k in range(len(slots)):
        s = slots[k]
        if seat >= 0 and slot_seat[s] != seat:
            continue
        width = np.uint64(slot_width[s])
        for a in range(slot_actions[s]):
            f = scale[row_base[s] + a]
            # Unsigned offsets: a signed index is wrapped for negative values, which keeps the loop
            # from vectorising (2.2 times slower, BENCHMARKS.md "16-bit rows, vectorised").
            src = np.uint64(slot_offset[s]) + np.uint64(a) * width
            dst = np.uint64(local_base[k]) + np.uint64(a) * width
            for b in range(width):
                out[dst + b] = np.float32(q[src + b] * f)


@njit(cache=True)
def _any_added(added, src, width):
    """Whether a walk added anything to the row of ``width`` entries at ``src``."""
    for b in range(width):
        if added[src + b] != 0.0:
            return True
    return False


@njit(cache=True, inline="always")
def _consume(added, src, width):
    """The row of ``width`` additions at ``src`` zero again (read: see ``consume``)."""
    for b in range(width):
        added[src + b] = 0.0


@njit(cache=True, inline="always")
def _zero_row(q, dst, width, scale, row):
    """A row stored as zero: its integers and its scale."""
    scale[row] = 0.0
    for b in range(width):
        q[dst + b] = 0


ABS_BITS = np.uint64(0x7FFFFFFFFFFFFFFF)   # a float64's bits but its sign
INF_BITS = np.uint64(0x7FF0000000000000)   # the bits of infinity: a magnitude's at or above it is not finite


@njit(cache=True, nogil=True)
def encode_added_rows(slots, local_base, slot_offset, row_base, slot_width, slot_actions, slot_seat, seat, added,
                      bounds, seed, q, scale, hash_offset, consume):
    """:func:`encode_slots` of a walk's rows: what is stored plus ``added``, without floor; the
    count of rows that are not finite (each then zero). Its own loop, not a branch of the general
    one, and vectorised: unsigned offsets (a signed index is wrapped for negative values, which
    keeps a loop scalar), each row's values summed once into a scratch row, and their largest
    magnitude found as the largest of their bits without the sign (an integer maximum vectorises
    where a float one does not; a value that is not finite has bits at or above infinity's). The
    same steps and integers as summing, checking and rounding entry by entry (tests/test_quantized.py):
    2.5 times faster alone, 1.4 times in a cap-4 iteration (BENCHMARKS.md, "16-bit rows,
    vectorised")."""
    low, levels = bounds
    widest = 0
    for k in range(len(slots)):
        widest = max(widest, slot_width[slots[k]])
    xs = np.empty(widest + 1, np.float64)
    xb = xs.view(np.uint64)
    bad = 0
    for k in range(len(slots)):
        s = slots[k]
        if seat >= 0 and slot_seat[s] != seat:
            continue
        width = np.uint64(slot_width[s])
        for a in range(slot_actions[s]):
            src = np.uint64(local_base[k]) + np.uint64(a) * width
            dst = np.uint64(slot_offset[s]) + np.uint64(a) * width
            row = row_base[s] + a
            if not _any_added(added, src, width):
                continue
            old = scale[row]
            for b in range(width):
                xs[b] = np.float64(np.float32(q[dst + b] * old)) + np.float64(added[src + b])
            if consume:
                _consume(added, src, width)
            top = np.uint64(0)
            for b in range(width):
                top = max(top, xb[b] & ABS_BITS)
            if top >= INF_BITS:
                bad += 1
                _zero_row(q, dst, width, scale, row)
                continue
            xb[width] = top
            step = np.float32(xs[width] / levels)
            if step == 0.0:
                _zero_row(q, dst, width, scale, row)
                continue
            scale[row] = step
            inv = 1.0 / np.float64(step)
            if seed == 0:
                for b in range(width):
                    q[dst + b] = min(max(np.rint(xs[b] * inv), low), levels)
            else:
                hashed = np.uint64(hash_offset[s]) + np.uint64(a) * width
                for b in range(width):
                    u = float(mix(seed + (hashed + np.uint64(b)) * GOLDEN) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
                    q[dst + b] = min(max(np.floor(xs[b] * inv + u), low), levels)
    return bad


@njit(cache=True, nogil=True)
def encode_slots(slots, local_base, slot_offset, row_base, slot_width, slot_actions, slot_seat, seat, values, added,
                 floor, bounds, seed, q, scale, hash_offset):
    """Rows of the listed slots of ``seat`` (all seats if ``seat`` < 0) back into 16 bits:
    ``values`` (empty: the rows as stored, read as :func:`decode_slots` reads them) plus
    ``added`` (if not empty) at their local entries, negative ones zero with ``floor``, each row
    scaled to its largest magnitude over ``levels`` (integers clipped to ``low..levels``:
    ``bounds`` is ``(low, levels)``). With
    ``added``, a row to which nothing was added is left as it is stored (a walk adds to the rows
    it visits; encoding the others again would only cost their time and their rounding).
    Rounding is to the nearest step, or with ``seed`` != 0 *stochastic*: up with probability the
    fraction of a step, from a hash of ``seed`` and the entry (unbiased, so additions far below a
    step still add up; the same bits on every run): the entry as ``hash_offset`` numbers its slot's
    (the layout's ``slot_offset``; a Ray actor's storage, numbered its own way, hashes the
    layout's entries). Returns the number of rows holding a non-finite value (stored as zero)."""
    low, levels = bounds
    with_added = len(added) > 0
    stored = len(values) == 0
    if stored and with_added and not floor:
        # A walk's rows (BENCHMARKS.md, "A cap-4 iteration in 16 bits" and "16-bit rows, vectorised").
        return encode_added_rows(slots, local_base, slot_offset, row_base, slot_width, slot_actions, slot_seat, seat,
                                 added, bounds, seed, q, scale, hash_offset, False)
    bad = 0
    for k in range(len(slots)):
        s = slots[k]
        if seat >= 0 and slot_seat[s] != seat:
            continue
        width = slot_width[s]
        for a in range(slot_actions[s]):
            src = local_base[k] + a * width
            row = row_base[s] + a
            dst = slot_offset[s] + a * width
            hashed = hash_offset[s] + a * width
            if with_added and not _any_added(added, np.uint64(src), np.uint64(width)):
                continue
            old = scale[row]
            # The row's largest magnitude, and whether every value is finite (x - x is NaN where x
            # is not).
            top = 0.0
            check = 0.0
            for b in range(width):
                x = np.float64(np.float32(q[dst + b] * old) if stored else values[src + b])
                if with_added:
                    x += np.float64(added[src + b])
                if floor and x < 0.0:
                    x = 0.0
                check += x - x
                top = max(top, abs(x))
            finite = check == 0.0
            step = np.float32(top / levels)
            if step == 0.0 or not finite:  # (a row whose step underflows float32, below 1e-41, is zero)
                bad += 0 if finite else 1
                _zero_row(q, dst, width, scale, row)
                continue
            scale[row] = step
            inv = 1.0 / np.float64(step)
            if seed == 0:
                for b in range(width):
                    x = np.float64(np.float32(q[dst + b] * old) if stored else values[src + b])
                    if with_added:
                        x += np.float64(added[src + b])
                    if floor and x < 0.0:
                        x = 0.0
                    q[dst + b] = min(max(np.rint(x * inv), low), levels)
            else:
                for b in range(width):
                    x = np.float64(np.float32(q[dst + b] * old) if stored else values[src + b])
                    if with_added:
                        x += np.float64(added[src + b])
                    if floor and x < 0.0:
                        x = 0.0
                    u = float(mix(seed + np.uint64(hashed + b) * GOLDEN) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
                    q[dst + b] = min(max(np.floor(x * inv + u), low), levels)
    return bad


@njit(cache=True, parallel=True)
def discount_rows(slot_seat, seat, row_base, slot_offset, slot_width, slot_actions, q, scale, pos_scale, neg_scale,
                  floor):
    """A seat's 16-bit regrets discounted in place: positive ones times ``pos_scale``, negative
    ones times ``neg_scale`` (the larger folded into the row scale, the integers of the other sign
    rescaled by the ratio), then with ``floor`` negative ones zero."""
    fold = max(pos_scale, neg_scale)
    pos_ratio = pos_scale / fold if fold > 0.0 else 0.0
    neg_ratio = neg_scale / fold if fold > 0.0 else 0.0
    neg_low = 0.0 if floor else neg_ratio
    for s in prange(len(slot_seat)):
        if slot_seat[s] != seat:
            continue
        width = slot_width[s]
        for a in range(slot_actions[s]):
            row = row_base[s] + a
            scale[row] = np.float32(scale[row] * fold)
            if pos_ratio == 1.0 and neg_ratio == 1.0 and not floor:
                continue
            # Each integer times its sign's ratio (0 for a negative one with ``floor``), toward zero
            # (a halving decays to 0); a ratio of 1 leaves an integer as it is. Without branches
            # and with unsigned offsets, so the loop vectorises.
            start = np.uint64(slot_offset[s]) + np.uint64(a) * np.uint64(width)
            for b in range(np.uint64(width)):
                v = q[start + b]
                q[start + b] = np.trunc(v * (pos_ratio if v > 0 else neg_low))


@njit(cache=True, parallel=True)
def scale_seat_rows(slot_seat, seat, row_base, slot_actions, scale, factor):
    """Every row scale of ``seat``'s slots times ``factor`` (a strategy-sum discount)."""
    for s in prange(len(slot_seat)):
        if slot_seat[s] == seat:
            for a in range(slot_actions[s]):
                scale[row_base[s] + a] = np.float32(scale[row_base[s] + a] * factor)


# -- storage ---------------------------------------------------------------------
class QuantizedStorage:
    """A layout's regrets and strategy sums in 16 bits with a float32 scale per action row (or
    some of its slots': :class:`LocalSlots`)."""

    def __init__(self, layout: StrategyLayout | LocalSlots, regret=None, regret_scale=None, strat_sum=None,
                 sum_scale=None):
        self.layout = layout
        self.hash_offset = getattr(layout, "hash_offset", layout.slot_offset)
        self.rows = row_map(layout)
        n, r = layout.n_entries, self.rows.n_rows
        self.regret = np.zeros(n, np.int16) if regret is None else regret
        self.regret_scale = np.zeros(r, np.float32) if regret_scale is None else regret_scale
        self.strat_sum = np.zeros(n, np.uint16) if strat_sum is None else strat_sum
        self.sum_scale = np.zeros(r, np.float32) if sum_scale is None else sum_scale

    @property
    def nbytes(self) -> int:
        return sum(a.nbytes for a in (self.regret, self.regret_scale, self.strat_sum, self.sum_scale))

    def _slot_args(self):
        layout = self.layout
        return layout.slot_offset, self.rows.row_base, self.rows.slot_width, layout.slot_actions

    def decode(self, which: str, slots: np.ndarray, local_base: np.ndarray, out: np.ndarray, seat: int = -1) -> None:
        """The listed slots' regrets (``which`` = "regret") or sums into ``out`` at ``local_base``
        (only ``seat``'s slots, if given)."""
        q, scale = (self.regret, self.regret_scale) if which == "regret" else (self.strat_sum, self.sum_scale)
        decode_slots(slots, local_base, *self._slot_args(), self.layout.slot_seat, seat, q, scale, out)

    def encode(self, which: str, slots: np.ndarray, local_base: np.ndarray, seat: int, values: np.ndarray,
               added: np.ndarray | None = None, floor: bool = False, seed: int = 0, consume: bool = False) -> None:
        """``seat``'s rows among the listed slots (all with ``seat`` -1) from ``values`` (plus
        ``added``) at ``local_base`` back into 16 bits (``seed``: stochastic rounding, see
        :func:`encode_slots`); FloatingPointError if a value is not finite. With ``consume`` (a
        walk's rows: the stored values plus ``added``, without floor), every row of ``added`` read
        is left zero (:func:`encode_added_rows`)."""
        if which == "regret":
            q, scale, levels, low = self.regret, self.regret_scale, REGRET_LEVELS, -REGRET_LEVELS
        else:
            q, scale, levels, low = self.strat_sum, self.sum_scale, SUM_LEVELS, 0.0
        if consume:
            if floor or len(values) or added is None:
                raise ValueError("consume: only a walk's additions to the stored rows, without floor, are consumed")
            bad = encode_added_rows(slots, local_base, *self._slot_args(), self.layout.slot_seat, seat, added,
                                    (low, levels), np.uint64(seed), q, scale, self.hash_offset, True)
        else:
            bad = encode_slots(slots, local_base, *self._slot_args(), self.layout.slot_seat, seat, values,
                               NO_ADDED if added is None else added, floor, (low, levels), np.uint64(seed), q, scale,
                               self.hash_offset)
        if bad:
            raise FloatingPointError(f"{bad} rows of {which}s hold values that are not finite numbers")

    def update_group(self, slots: np.ndarray, local_base: np.ndarray, size: int, play: np.ndarray,
                     added: np.ndarray, sums: np.ndarray, traverser: int, summed: int, floor: bool, seed: int,
                     walk) -> None:
        """One group's part of an update walk: its regrets decoded into ``play``, ``walk()`` adding
        the traverser's regret delta into ``added`` and ``summed``'s strategy sums into ``sums``
        (one buffer in a pruned walk: no slot is both seats'), then the rows it added to encoded
        from what is stored plus the additions. The additions must be zero before the walk (the
        sums are not decoded first); the encoders leave every row they read zero again, so
        buffers made zero need no zeroing between groups (a memory pass over the whole storage a
        walk, BENCHMARKS.md "16-bit rows, vectorised"). With ``floor`` (CFR+, the general
        encoder), and after an error, the buffers are zeroed here."""
        self.decode("regret", slots, local_base, play)
        try:
            walk()
            self.encode("regret", slots, local_base, traverser, NO_VALUES, added, floor, consume=not floor)
            self.encode("sum", slots, local_base, summed, NO_VALUES, sums, seed=seed, consume=True)
        except BaseException:
            floor = True
            raise
        finally:
            if floor:
                added[:size] = 0.0
                sums[:size] = 0.0

    def discount(self, seat: int, pos_scale: float, neg_scale: float, sum_scale: float, floor: bool = False) -> None:
        """One seat's regrets (and, with ``sum_scale`` != 1, its strategy sums) discounted in place."""
        layout, rows = self.layout, self.rows
        if pos_scale != 1.0 or neg_scale != 1.0 or floor:
            discount_rows(layout.slot_seat, seat, rows.row_base, layout.slot_offset, rows.slot_width,
                          layout.slot_actions, self.regret, self.regret_scale, pos_scale, neg_scale, floor)
        if sum_scale != 1.0:
            scale_seat_rows(layout.slot_seat, seat, rows.row_base, layout.slot_actions, self.sum_scale, sum_scale)

    def decoded(self, which: str, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """Slots ``lo..hi-1``'s regrets or sums as float32 (their entries, from ``slot_offset[lo]``)."""
        layout = self.layout
        hi = layout.n_slots if hi is None else hi
        out = np.empty(int(layout.slot_offset[hi] - layout.slot_offset[lo]), np.float32)
        slots = np.arange(lo, hi, dtype=np.int64)
        self.decode(which, slots, layout.slot_offset[lo:hi] - layout.slot_offset[lo], out)
        return out

    def load_float(self, regret: np.ndarray, strat_sum: np.ndarray) -> None:
        """Float32 storage rounded into this one (every row)."""
        slots = np.arange(self.layout.n_slots, dtype=np.int64)
        base = self.layout.slot_offset[:-1]
        self.encode("regret", slots, base, -1, regret)
        self.encode("sum", slots, base, -1, strat_sum)


# -- groups ------------------------------------------------------------------------
class GroupPlan(NamedTuple):
    """Each cut group's slots, numbered locally, and each cut's decision entries in that numbering."""

    members: list          # per group: its cuts, increasing
    slots: list            # per group: its slots, increasing (int64)
    local_base: list       # per group: each slot's first local entry (int64)
    table: np.ndarray      # (cuts, shape decisions) int64: local first entry (-1: no slot), the
    #                        :data:`kernels.CutEntries` table of walks on a group's buffers
    group_of_cut: np.ndarray  # (cuts,) the index of each cut's group in ``members``
    sizes: list            # per group: its local entries
    largest: int           # local entries of the largest group


def group_plan(cut_group: np.ndarray, table: np.ndarray, layout: StrategyLayout) -> GroupPlan:
    """The :class:`GroupPlan` of cuts grouped by ``cut_group`` (:func:`kernels.cut_groups`) whose
    decision nodes have the global first entries ``table`` (:func:`solver.cfr.streamed.cut_entries`),
    which becomes the plan's local table (rewritten in place: one table in memory, not two)."""
    names = np.unique(cut_group)
    index = np.searchsorted(names, cut_group)
    members, slots_of, bases, sizes = [], [], [], []
    offsets = layout.slot_offset
    for g in range(len(names)):
        cuts = np.nonzero(index == g)[0].astype(np.int64)
        entries = table[cuts]
        known = entries >= 0
        slot = np.searchsorted(offsets, entries[known], side="right") - 1
        slots, inverse = np.unique(slot, return_inverse=True)
        base = np.concatenate([[0], np.cumsum(offsets[slots + 1] - offsets[slots])]).astype(np.int64)
        block = np.full(entries.shape, -1, np.int64)
        block[known] = base[:-1][inverse.ravel()]
        table[cuts] = block   # (in place: rows of other groups are not read again)
        members.append(cuts)
        slots_of.append(slots.astype(np.int64))
        bases.append(base[:-1].copy())
        sizes.append(int(base[-1]))
    return GroupPlan(members, slots_of, bases, table, index.astype(np.int64), sizes, max(sizes, default=0))


# -- the engine ------------------------------------------------------------------------
def thread_groups(plan: GroupPlan, threads: int) -> list[list[int]]:
    """Groups per thread (:func:`solver.cfr.streamed.balance_groups`), each thread's in increasing
    order of their first cut."""
    owned = balance_groups(plan.members, threads)
    return [sorted(part, key=lambda g: int(plan.members[g][0])) for part in owned if part] or [[]]


class QuantizedEngine(AbstractEngine):
    """:class:`solver.cfr.abstract.AbstractEngine` with 16-bit storage (see the module docstring):
    the same walks, on each cut group's decoded buffers."""

    storage_bits = 16
    warm_startable = False  # (16-bit rows keep scales that do not carry across buckets)

    def _prepare(self) -> None:
        super()._prepare()
        # The walks read every cut's entries in its group's local numbering, made in the table itself:
        # the global entries are gone (a walker built from ``cut_entries``, None, finds its own).
        self.groups = group_plan(self.cut_group, self.cut_entries.table, self.game_layout)
        self._local_entries = self.cut_entries
        self.cut_entries = None
        self.arrays = self.arrays._replace(tree=self.arrays.tree._replace(cut_entries=self._local_entries))
        layout = self.game_layout
        self._trunk_slots = np.nonzero(layout.slot_round == 0)[0].astype(np.int64)
        if len(self._trunk_slots) and self._trunk_slots[-1] != len(self._trunk_slots) - 1:
            raise AssertionError("the first round's slots come first in a layout by recall")
        self._trunk_base = layout.slot_offset[self._trunk_slots]
        self._buffers: list = []
        self._check_groups_fit()

    def _check_groups_fit(self) -> None:
        """SolveTooLarge if the storage and every thread's buffers of the largest cut group (known
        only now: the plan assumed a share) do not fit this machine."""
        plan = self.plan
        threads = max(plan.threads, numba.get_num_threads(), 1)
        per_entry = QUANTIZED_LOCAL_BYTES if self.pruned else QUANTIZED_LOCAL_BYTES + 4  # (a full walk: 3 buffers)
        need = plan.bytes - plan.group_buffer_bytes + per_entry * self.groups.largest * threads
        if self.check_memory and need > 0.75 * plan.machine_bytes:
            raise SolveTooLarge(f"{self.config.describe()} needs {format_bytes(need)} with 16-bit storage (its largest "
                                f"group of subtrees holds {self.groups.largest / max(plan.storage_entries, 1):.0%} "
                                f"of the strategy), more than this machine's {format_bytes(plan.machine_bytes)} "
                                "allows; use fewer buckets, a recall that keeps the first round's draws, or 32-bit "
                                "storage")

    def _allocate(self) -> None:
        self.storage = QuantizedStorage(self.game_layout)

    # -- storage the protocol sees --------------------------------------------------
    @property
    def regret(self) -> np.ndarray:
        return self.storage.regret

    @property
    def strat_sum(self) -> np.ndarray:
        return self.storage.strat_sum

    def load_storage(self, regret: np.ndarray, strat_sum: np.ndarray, scales=None) -> None:
        """Float32 storage (rounded into 16 bits), or 16-bit storage with its row ``scales``."""
        if scales is None:
            self.storage = QuantizedStorage(self.game_layout)
            self.storage.load_float(regret, strat_sum)
        else:
            self.storage = QuantizedStorage(self.game_layout, regret, scales[0], strat_sum, scales[1])

    def reset_storage(self) -> None:
        self.storage = QuantizedStorage(self.game_layout)
        self.iteration = 0

    def checkpoint_state(self, path) -> CheckpointState:
        s = self.storage
        return CheckpointState(s.regret, s.strat_sum, [], None, (s.regret_scale, s.sum_scale))

    def restore(self, data: dict, path) -> None:
        if data["shards"]:   # (a streamed Ray run's: assembled)
            shards_into(data, self.layout, True)
        if data["scales"] is not None and not np.all(data["scales"] == 1.0):
            raise CheckpointError(f"{path} holds a pruned solve's scaled storage; this game is streamed")
        regret, strat_sum = self.take_whole_storage(data, path)
        scales = data.pop("row_scales", None)
        rows = self.storage.rows.n_rows
        if scales is None or any(len(x) != rows for x in scales):
            raise CheckpointError(f"{path} does not hold this game's 16-bit row scales ({rows} rows)")
        self.load_storage(regret, strat_sum, scales)
        self.iteration = int(data["iteration"])

    @property
    def storage_bytes(self) -> int:
        """Bytes of the storage and the threads' group buffers."""
        return self.storage.nbytes + sum(b.nbytes for part in self._buffers for b in part)

    # -- walks ------------------------------------------------------------------------------
    def _thread_buffers(self, threads: int) -> list:
        """Per thread: a group's decoded regrets, and the walk's additions to it (a pruned walk's
        regret delta at the traverser's slots and the opponent's strategy sums at his: one
        buffer, as no slot is both seats'; a full walk's sums are the traverser's, in a third)."""
        n = max(self.groups.largest, 1)
        while len(self._buffers) < threads:
            self._buffers.append([np.zeros(n, np.float32), np.zeros(n, np.float32)])
        if not self.pruned:
            for part in self._buffers:
                if len(part) < 3:
                    part.append(np.zeros(n, np.float32))
        return self._buffers

    def _trunk(self, which: str) -> np.ndarray:
        """The first round's regrets or sums as float32 (its slots come first: entries from 0)."""
        return self.storage.decoded(which, 0, len(self._trunk_slots))

    # -- iterations (solver.cfr.rules.Iterating runs them) ----------------------------------
    def update_rule(self) -> UpdateRule:
        """As :class:`solver.cfr.abstract.AbstractEngine`'s iterations, the discounts folded into
        the 16-bit storage and each walk on its groups' decoded buffers."""
        self._walk_chunks = thread_groups(self.groups, numba.get_num_threads())
        return RowScaleRule(self.schedule, self, self.pruned)

    def discount_rows(self, seat: int, pos_scale: float, neg_scale: float, sum_scale: float) -> None:
        self.storage.discount(seat, pos_scale, neg_scale, sum_scale)

    def update_walk(self, seat: int, step: Step) -> None:
        self._update(seat, step.discount, step.floor, self._walk_chunks, step.seed)

    def _update(self, traverser: int, adding: Discount, floor: bool, chunks: list[list[int]], seed: int) -> None:
        """One seat's update walk (see :func:`solver.cfr.streamed.update_streamed`); the strategy
        sums it adds are rounded stochastically from ``seed`` (the iteration's and seat's)."""
        storage, plan, arrays = self.storage, self.groups, self.arrays
        game, draws = arrays.tree, arrays.draws
        policy = kernels.UPDATE_PRUNED if self.pruned else kernels.UPDATE
        summed = 1 - traverser if self.pruned else traverser  # the seat whose strategy sums the walk adds
        trunk_regret, trunk_sum = self._trunk("regret"), self._trunk("sum")
        work, roots, root_reach, root_value = trunk_walk(game, draws, self.bucket_game.deal_prob)
        walk = (roots, root_reach, root_value, traverser, policy)
        trunk = (adding, game.trunk, game.trunk_layout, draws, read_only(trunk_regret), trunk_regret, trunk_sum,
                 game.cuts, work, arrays.no_record)
        buffers = self._thread_buffers(len(chunks))
        reach = game.cuts.reach

        def run(k: int) -> None:
            play, delta = buffers[k][:2]
            sums = delta if self.pruned else buffers[k][2]
            for g in chunks[k]:
                members = plan.members[g]
                if self.pruned and not reach[members, 1 - traverser].any():
                    game.cuts.value[members] = 0.0   # (what a pruned walk leaves at a cut it skips)
                    continue
                storage.update_group(
                    plan.slots[g], plan.local_base[g], plan.sizes[g], play, delta, sums, traverser, summed, floor, seed,
                    lambda: kernels.walk_cut_chunk(members, self.pruned, traverser, policy, adding, game, draws,
                                                   read_only(play), delta, sums, arrays.shape_record, np.uint64(0)))

        walk_over_cuts(walk, trunk, len(game.cuts.nodes), lambda: in_threads(len(chunks), run))
        storage.encode("regret", self._trunk_slots, self._trunk_base, traverser, trunk_regret, None, floor)
        storage.encode("sum", self._trunk_slots, self._trunk_base, summed, trunk_sum, seed=seed)

    def _walk(self, walker: StreamedWalker, traverser: int, policy: int) -> float:
        """A best-response or evaluate walk of ``walker``'s game against the average strategy, each
        group's strategy sums decoded in turn (see :func:`solver.cfr.streamed.walk_streamed`)."""
        storage, plan = self.storage, self.groups
        arrays = walker.arrays
        game, draws = arrays.tree._replace(cut_entries=self._local_entries), arrays.draws
        trunk_sum = self._trunk("sum")
        work, roots, root_reach, root_value = trunk_walk(game, draws, walker.model.deal_prob)
        walk = (roots, root_reach, root_value, traverser, policy)
        trunk = (kernels.NO_UPDATE, game.trunk, game.trunk_layout, draws, read_only(trunk_sum), NO_STORAGE, NO_STORAGE,
                 game.cuts, work, arrays.no_record)
        chunks = thread_groups(plan, numba.get_num_threads())
        buffers = self._thread_buffers(len(chunks))
        reach = game.cuts.reach

        def run(k: int) -> None:
            play = buffers[k][0]
            for g in chunks[k]:
                members = plan.members[g]
                if not reach[members, 1 - traverser].any():
                    game.cuts.value[members] = 0.0
                    continue
                storage.decode("sum", plan.slots[g], plan.local_base[g], play)
                kernels.walk_cut_chunk(members, True, traverser, policy, kernels.NO_UPDATE, game, draws,
                                       read_only(play), NO_STORAGE, NO_STORAGE, arrays.shape_record, np.uint64(0))

        walk_over_cuts(walk, trunk, len(game.cuts.nodes), lambda: in_threads(len(chunks), run))
        return kernels.root_total(walker.model.deal_prob, root_value[0])

    def _exploitability(self, walker: StreamedWalker) -> Exploitability:
        return Exploitability(self._walk(walker, 0, kernels.BEST_RESPONSE), self._walk(walker, 1, kernels.BEST_RESPONSE),
                              self._walk(walker, 0, kernels.EVALUATE))

    def exploitability(self) -> Exploitability:
        """The certificate (exact best responses at full resolution) of the 16-bit average strategy."""
        return self._exploitability(self.certifier)

    def progress_exploitability(self) -> Exploitability:
        return self._exploitability(self.abstract_walker)

    def average_probability_chunks(self, max_entries: int = 1 << 24):
        return average_chunks(self.layout, self.storage, max_entries)


def average_chunks(layout: StrategyLayout, storage: QuantizedStorage, max_entries: int = 1 << 24):
    """The average strategy of 16-bit ``storage`` (of ``layout``'s entries) in the layout's order,
    float32 chunks of whole slots."""
    arrays = layout.kernel_arrays()
    for lo, hi in layout.slot_chunks(max_entries):
        sums = storage.decoded("sum", lo, hi)
        out = np.empty(len(sums), np.float32)
        kernels.average_slots(layout.slot_round, layout.slot_kind, layout.slot_actions,
                              layout.slot_offset - layout.slot_offset[lo], arrays, read_only(sums), out, lo, hi)
        yield out
