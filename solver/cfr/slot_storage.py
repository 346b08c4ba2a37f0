"""Storage as a part: the regrets and strategy sums of some slots, in one form, with its walks' steps.

A streamed abstract solve (:mod:`solver.cfr.streamed_ray`) keeps its storage in pieces: the
driver holds the first round's slots (the trunk), each actor the slots of its cut groups. What
form a piece takes (float32 entries; 16-bit rows with scales, :mod:`solver.cfr.slot_storage16`)
is one class, a **storage part**, and the engine and its actors only call the part. A part is
made over some slots of a layout (``Part(layout, slots)``, the slots increasing, numbered
``0..k-1`` with their entries together: :class:`LocalSlots`) and gives:

- **its update rule**: ``rule(schedule, target, pruned)``, the :mod:`solver.cfr.rules` rule
  whose storage passes (``discount_storage`` or ``discount_rows``) the part implements; the
  engine's ``target`` runs each pass on every piece (the driver's and every actor's);
- **the walks' steps**: below the cuts, ``prepare_groups`` (once, with the actor's cut groups
  and its entry table), ``update_group`` and ``check_group`` (one group on thread ``k``), then
  ``settle`` (after one seat's walks below the cuts: the driver's trunk too); in the trunk,
  ``trunk_update`` (the arrays the trunk's walk reads and adds to), ``settle`` and
  ``after_trunk``, and ``sums`` (float32 strategy sums a check walks or averages);
- **its files and transfers**: ``regret`` and ``strat_sum`` (its entries, in its own dtype),
  ``piece``/``set_piece``, per-row arrays (``row_scales``/``set_row_scales``, None for a form
  without them, and ``row_ids``: its rows in the layout's numbering), ``shard_arrays`` and
  ``shard_targets`` (what a checkpoint shard holds beyond slots and entries), and the
  class-level ``whole`` (a whole storage in this form) and ``checkpoint_rows`` (a whole
  checkpoint's row arrays, checked).

Every entry receives the same operations in the same order as in one process (the contract of
``tests/test_contract.py``): a part only moves where the operations run. The class attributes
``bits`` (the config's ``storage_bits``), ``entry_bytes`` (bytes an entry of regrets and sums)
and ``note`` (how a description names the form) are what planning and descriptions read.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..game.layout import StrategyLayout
from . import kernels
from .rules import SettleRule, Step, UpdateRule
from .shards import index_runs
from .walker import NO_STORAGE, read_only


class RowMap(NamedTuple):
    """The action rows of a layout, numbered slot by slot, action by action: ``row_base[s]`` is
    slot ``s``'s first row, ``slot_width[s]`` its row width."""

    row_base: np.ndarray    # (slots,) int64
    slot_width: np.ndarray  # (slots,) int64
    n_rows: int


def row_map(layout: StrategyLayout) -> RowMap:
    actions = layout.slot_actions.astype(np.int64)
    base = np.concatenate([[0], np.cumsum(actions)]).astype(np.int64)
    return RowMap(base[:-1].copy(), layout.row_width[layout.slot_round.astype(np.int64)].astype(np.int64),
                  int(base[-1]))


class LocalSlots(NamedTuple):
    """Some slots of a layout, numbered ``0..k-1`` with their own entries: what a storage part
    of a Ray actor's piece is laid out by (:func:`local_slots`)."""

    slot_offset: np.ndarray    # (k + 1,) int64: each slot's first entry here
    slot_seat: np.ndarray
    slot_actions: np.ndarray
    slot_round: np.ndarray
    row_width: np.ndarray      # (rounds,) the layout's
    hash_offset: np.ndarray    # (k,) each slot's first entry in the layout (stochastic rounding hashes it)
    row_ids: np.ndarray        # (rows,) each row's number in the layout

    @property
    def n_slots(self) -> int:
        return len(self.slot_seat)

    @property
    def n_entries(self) -> int:
        return int(self.slot_offset[-1])


def local_slots(layout: StrategyLayout, slots: np.ndarray) -> LocalSlots:
    """The listed slots (increasing) of ``layout``, numbered ``0..k-1``, entries and rows in the
    layout's order."""
    slots = np.asarray(slots, np.int64)
    offsets = layout.slot_offset
    sizes = offsets[slots + 1] - offsets[slots]
    actions = layout.slot_actions[slots].astype(np.int64)
    rows = row_map(layout)
    row_ids = index_runs(rows.row_base[slots], actions)
    return LocalSlots(np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64), layout.slot_seat[slots],
                      layout.slot_actions[slots], layout.slot_round[slots], layout.row_width,
                      offsets[slots].astype(np.int64), row_ids.astype(np.int64))


class SlotPieces:
    """What every storage part transfers the same way: pieces of its ``regret`` and ``strat_sum``
    arrays, in its own dtype."""

    def piece(self, which: int, lo: int, hi: int) -> np.ndarray:
        """Entries ``lo..hi-1`` of its regrets (0) or sums (1), a copy."""
        return (self.regret, self.strat_sum)[which][lo:hi].copy()

    def set_piece(self, lo: int, regret: np.ndarray, strat_sum: np.ndarray) -> None:
        self.regret[lo:lo + len(regret)] = regret
        self.strat_sum[lo:lo + len(strat_sum)] = strat_sum


class Float32Slots(SlotPieces):
    """Float32 regrets and strategy sums of some slots, and the walks' regret delta (12 bytes an
    entry): the storage of :class:`solver.cfr.abstract.AbstractEngine`, a piece at a time. Walks
    read the regrets as they are and add to the delta and the sums; ``settle`` discounts a seat's
    regrets and adds the delta in one pass (:class:`solver.cfr.rules.SettleRule`)."""

    bits = 32
    entry_bytes = 8
    note = ""

    def __init__(self, layout: StrategyLayout, slots: np.ndarray):
        self.local = local_slots(layout, slots)
        self.slot_offset = self.local.slot_offset
        self.slot_seat = self.local.slot_seat.astype(np.int64)
        n = self.local.n_entries
        self.regret, self.strat_sum, self.delta = (np.zeros(n, np.float32) for _ in range(3))

    # -- the rule and its passes ------------------------------------------------------
    @staticmethod
    def rule(schedule, target, pruned: bool) -> UpdateRule:
        return SettleRule(schedule, target, pruned)

    def discount_storage(self, which: str, seat: int, pos_scale: float, neg_scale: float, floor: bool) -> None:
        """One seat's regrets or sums discounted in place (:func:`kernels.discount_seat`)."""
        kernels.discount_seat(self.regret if which == "regret" else self.strat_sum, self.slot_offset, self.slot_seat,
                              seat, pos_scale, neg_scale, floor)

    # -- walks below the cuts ---------------------------------------------------------
    def prepare_groups(self, group: np.ndarray, table: np.ndarray, threads: int) -> None:
        """Nothing to prepare: walks read the storage where it is (the table's entries are its own)."""

    def update_group(self, g: int, members: np.ndarray, k: int, tree, arrays, traverser: int, step: Step,
                     adding) -> None:
        """Group ``g``'s cuts ``members`` walked for an update (its delta and sums added to)."""
        kernels.walk_cut_chunk(members, step.policy != kernels.UPDATE, traverser, step.policy, adding, tree,
                               arrays.draws, read_only(self.regret), self.delta, self.strat_sum, arrays.shape_record,
                               np.uint64(0))

    def check_group(self, g: int, members: np.ndarray, k: int, tree, arrays, traverser: int, policy: int) -> None:
        """Group ``g``'s cuts walked against the average strategy (best response or evaluation)."""
        kernels.walk_cut_chunk(members, True, traverser, policy, kernels.NO_UPDATE, tree, arrays.draws,
                               read_only(self.strat_sum), NO_STORAGE, NO_STORAGE, arrays.shape_record, np.uint64(0))

    def settle(self, traverser: int, step: Step) -> None:
        """After the walks below the cuts: the seat's regrets discounted and its delta added."""
        pos_scale, neg_scale, floor = step.settle
        kernels.settle_seat(self.regret, self.delta, self.slot_offset, self.slot_seat, traverser, float(pos_scale),
                            float(neg_scale), bool(floor))

    # -- the trunk's walk --------------------------------------------------------------
    def trunk_update(self, traverser: int, step: Step) -> tuple:
        """(discount, play, regret, strategy sums) of the trunk's update walk: in place."""
        return kernels.make_discount(sum_weight=float(step.discount.sum_weight)), self.regret, self.regret, \
            self.strat_sum

    def after_trunk(self, traverser: int, step: Step) -> None:
        """Nothing: the trunk's walk added in place."""

    def sums(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        """Slots ``lo..hi-1``'s strategy sums as float32 (their entries, from ``slot_offset[lo]``)."""
        offsets = self.slot_offset
        hi = len(offsets) - 1 if hi is None else hi
        return self.strat_sum[int(offsets[lo]):int(offsets[hi])]

    # -- files and transfers ------------------------------------------------------------
    row_offset = None   # (no per-row arrays)

    @property
    def row_ids(self) -> np.ndarray:
        return self.local.row_ids[:0]

    def row_scales(self) -> tuple | None:
        return None

    def set_row_scales(self, regret_scale: np.ndarray, sum_scale: np.ndarray) -> None:
        raise TypeError("float32 storage keeps no row scales")

    def shard_arrays(self) -> dict:
        return {}

    def shard_targets(self) -> dict:
        return {"regret": self.regret, "strat_sum": self.strat_sum}

    @classmethod
    def whole(cls, layout: StrategyLayout, regret: np.ndarray, strat_sum: np.ndarray, scales=None) -> tuple:
        """A whole storage in this form: ``(regret, strat_sum, row scales)``."""
        return regret, strat_sum, None

    @classmethod
    def checkpoint_rows(cls, data: dict, path, layout: StrategyLayout) -> tuple | None:
        """A whole checkpoint's row arrays: none."""
        return None
