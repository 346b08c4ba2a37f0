"""16-bit storage as a part: some slots' regrets and sums in 16-bit rows with scales.

The storage part (:mod:`solver.cfr.slot_storage`) of :mod:`solver.cfr.quantized`'s form: each
regret an ``int16`` and each strategy sum a ``uint16``, one float32 scale a row for each (4
bytes an entry and 8 a row). Walks below the cuts run as
:class:`solver.cfr.quantized.QuantizedEngine` runs them: each group's regrets decoded into a
thread's float32 buffers (the groups' slots numbered locally, :func:`solver.cfr.quantized.group_plan`),
walked, and the rows the walk added to encoded again (the opponent's sums rounded
stochastically from the rule's seed, hashing the layout's entries: the one-process bits). The
trunk is decoded whole around its walk. Discounts are folded into the row scales
(:class:`solver.cfr.rules.RowScaleRule`).
"""

from __future__ import annotations

import numpy as np

from ..game.layout import StrategyLayout
from . import kernels
from .files import CheckpointError
from .quantized import QuantizedStorage, group_plan
from .rules import RowScaleRule, Step, UpdateRule
from .slot_storage import SlotPieces, local_slots, row_map
from .walker import NO_STORAGE, read_only


class Rows16Slots(SlotPieces):
    """Some slots' storage in 16-bit rows (see the module docstring)."""

    bits = 16
    entry_bytes = 4
    note = " in 16 bits"

    def __init__(self, layout: StrategyLayout, slots: np.ndarray):
        self.local = local_slots(layout, slots)
        self.store = QuantizedStorage(self.local)
        self.slot_offset = self.local.slot_offset
        self.row_offset = np.append(self.store.rows.row_base, self.store.rows.n_rows).astype(np.int64)
        self.plan = None
        self._buffers: list = []
        self._decoded = None

    @property
    def regret(self) -> np.ndarray:
        return self.store.regret

    @property
    def strat_sum(self) -> np.ndarray:
        return self.store.strat_sum

    # -- the rule and its pass ------------------------------------------------------------
    @staticmethod
    def rule(schedule, target, pruned: bool) -> UpdateRule:
        if not pruned:
            raise ValueError("16-bit storage in pieces walks pruned (each group's additions in one buffer)")
        return RowScaleRule(schedule, target, pruned=True)

    def discount_rows(self, seat: int, pos_scale: float, neg_scale: float, sum_scale: float) -> None:
        """One seat's regrets and sums discounted (:meth:`QuantizedStorage.discount`)."""
        self.store.discount(seat, float(pos_scale), float(neg_scale), float(sum_scale))

    # -- walks below the cuts -----------------------------------------------------------
    def prepare_groups(self, group: np.ndarray, table: np.ndarray, threads: int) -> None:
        """Each group's slots numbered locally (the entry table rewritten in place to them) and a
        thread's two float32 buffers (decoded regrets; the walk's additions) per thread."""
        self.plan = group_plan(group, table, self.local)
        n = max(self.plan.largest, 1)
        self._buffers = [[np.zeros(n, np.float32) for _ in range(2)] for _ in range(threads)]

    def _reached(self, members: np.ndarray, tree, traverser: int) -> bool:
        """Whether the opponent reaches a cut of the group (else its cuts' values are zero, what a
        pruned walk leaves at a cut it skips)."""
        if tree.cuts.reach[members, 1 - traverser].any():
            return True
        tree.cuts.value[members] = 0.0
        return False

    def update_group(self, g: int, members: np.ndarray, k: int, tree, arrays, traverser: int, step: Step,
                     adding) -> None:
        """Group ``g`` decoded, walked on thread ``k``'s buffers (the traverser's regret delta and
        the opponent's sums in one), and the rows it added to encoded again."""
        plan, store = self.plan, self.store
        members = plan.members[g]
        if not self._reached(members, tree, traverser):
            return
        play, delta = self._buffers[k]
        store.update_group(
            plan.slots[g], plan.local_base[g], plan.sizes[g], play, delta, delta, traverser, 1 - traverser,
            bool(step.floor), step.seed,
            lambda: kernels.walk_cut_chunk(members, True, traverser, step.policy, adding, tree, arrays.draws,
                                           read_only(play), delta, delta, arrays.shape_record, np.uint64(0)))

    def check_group(self, g: int, members: np.ndarray, k: int, tree, arrays, traverser: int, policy: int) -> None:
        """Group ``g``'s strategy sums decoded and walked against (best response or evaluation)."""
        plan = self.plan
        members = plan.members[g]
        if not self._reached(members, tree, traverser):
            return
        play = self._buffers[k][0]
        self.store.decode("sum", plan.slots[g], plan.local_base[g], play)
        kernels.walk_cut_chunk(members, True, traverser, policy, kernels.NO_UPDATE, tree, arrays.draws,
                               read_only(play), NO_STORAGE, NO_STORAGE, arrays.shape_record, np.uint64(0))

    def settle(self, traverser: int, step: Step) -> None:
        """Nothing: each group's rows were encoded after its walk."""

    # -- the trunk's walk --------------------------------------------------------------
    def trunk_update(self, traverser: int, step: Step) -> tuple:
        """The trunk's regrets and sums decoded: its walk reads and adds to them in place."""
        regret, sums = self.store.decoded("regret"), self.store.decoded("sum")
        self._decoded = regret, sums
        return kernels.make_discount(sum_weight=float(step.discount.sum_weight)), regret, regret, sums

    def after_trunk(self, traverser: int, step: Step) -> None:
        """The trunk's walked rows encoded again (as :meth:`QuantizedEngine._update` does)."""
        regret, sums = self._decoded
        self._decoded = None
        every = np.arange(self.local.n_slots, dtype=np.int64)
        base = self.local.slot_offset[:-1]
        self.store.encode("regret", every, base, traverser, regret, None, bool(step.floor))
        self.store.encode("sum", every, base, 1 - traverser, sums, seed=step.seed)

    def sums(self, lo: int = 0, hi: int | None = None) -> np.ndarray:
        return self.store.decoded("sum", lo, hi)

    # -- files and transfers ------------------------------------------------------------
    @property
    def row_ids(self) -> np.ndarray:
        return self.local.row_ids

    def row_scales(self) -> tuple:
        return self.store.regret_scale, self.store.sum_scale

    def set_row_scales(self, regret_scale: np.ndarray, sum_scale: np.ndarray) -> None:
        self.store.regret_scale[...] = regret_scale
        self.store.sum_scale[...] = sum_scale

    def shard_arrays(self) -> dict:
        return {"row_offset": self.row_offset, "regret_scale": self.store.regret_scale,
                "sum_scale": self.store.sum_scale}

    def shard_targets(self) -> dict:
        return {"regret": self.regret, "strat_sum": self.strat_sum, "regret_scale": self.store.regret_scale,
                "sum_scale": self.store.sum_scale}

    @classmethod
    def whole(cls, layout: StrategyLayout, regret: np.ndarray, strat_sum: np.ndarray, scales=None) -> tuple:
        """A whole storage in 16 bits: as given with its row ``scales``, or float32 rounded into it."""
        if scales is not None:
            return regret, strat_sum, scales
        whole = QuantizedStorage(layout)
        whole.load_float(regret, strat_sum)
        return whole.regret, whole.strat_sum, (whole.regret_scale, whole.sum_scale)

    @classmethod
    def checkpoint_rows(cls, data: dict, path, layout: StrategyLayout) -> tuple:
        """A whole checkpoint's row scales (popped from ``data``); CheckpointError if it has none of
        this layout's size."""
        scales = data.pop("row_scales", None)
        rows = row_map(layout).n_rows
        if scales is None or any(len(x) != rows for x in scales):
            raise CheckpointError(f"{path} does not hold this game's 16-bit row scales ({rows} rows)")
        return scales
