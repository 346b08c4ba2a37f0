"""Update rules, and the one iteration schedule every engine runs.

An iteration is the same everywhere: the algorithm's discount of iteration ``t``, then an update
walk for the button and one for the big blind. What differs is how the discounts reach the
storage around those walks, and that is an **update rule**: hooks the schedule calls at the
points where each engine acted before the rules were parts (so every float operation keeps its
order, and the digests of tests/test_contract.py stay the same):

- :class:`ScaledRule`: a pruned walk over a built tree; the discounts kept as per-seat factors
  of the storage (:class:`solver.cfr.engine.StorageScales`), nothing discounted in place;
- :class:`DiscountFirstRule`: a walk that visits a slot many times (shared slots) or discounts
  nothing itself: the seat's regrets and sums discounted once before its walk, which only
  adds, and floored after it (CFR+);
- :class:`PlainRule`: a full walk over a built tree that discounts each entry it passes;
- :class:`SettleRule`: a streamed walk in float32: the sums discounted before the walks (both
  seats first where pruned), the regrets settled after the cut subtrees' walks (discount and
  delta in one pass), floored after the walk;
- :class:`RowScaleRule`: 16-bit storage: each discount folded into the row scales before the
  seat's walk, the walk's additions rounded stochastically from a seed of the iteration and seat;
- :class:`LinearRule`: sampled linear CFR: nothing discounted, the iteration's additions
  weighted by ``t``, each walk with its own random stream.

The engine supplies the rest: :meth:`Iterating.update_walk` (what is walked, where its storage is,
and where the walk runs) and the storage passes a rule asks for (``discount_storage``, or a 16-bit
storage's ``discount_rows``).
"""

from __future__ import annotations

from typing import NamedTuple

from abstractions.random import stream_seed

from . import kernels
from .kernels import Discount, make_discount


class Step(NamedTuple):
    """What a rule gives one seat's update walk."""

    policy: int                   # kernels.UPDATE, UPDATE_PRUNED or a sampled policy
    discount: Discount            # the discount the walk applies (or only its additions' weight)
    settle: tuple | None = None   # a streamed float32 walk's settling: (pos_scale, neg_scale, floor)
    floor: bool = False           # 16-bit storage: CFR+ floors the regrets it encodes
    seed: int = 0                 # 16-bit rounding, or a sampled walk's random stream


class UpdateRule:
    """The hooks (see the module docstring); by default an iteration's discount is the
    schedule's and nothing happens around the walks."""

    def __init__(self, schedule=None):
        self.schedule = schedule

    def discount(self, t: int) -> Discount | None:
        return self.schedule.discount(t)

    def begin(self, t: int, discount: Discount) -> None:
        """Before both walks of iteration ``t``."""

    def before_walk(self, seat: int, t: int, discount: Discount) -> Step:
        raise NotImplementedError

    def after_walk(self, seat: int, t: int, discount: Discount) -> None:
        """After ``seat``'s walk."""


class PlainRule(UpdateRule):
    def before_walk(self, seat, t, discount):
        return Step(kernels.UPDATE, discount)


class ScaledRule(UpdateRule):
    def __init__(self, schedule, scales):
        super().__init__(schedule)
        self.scales = scales

    def begin(self, t, discount):
        self.scales.begin(discount, t)

    def before_walk(self, seat, t, discount):
        return Step(kernels.UPDATE_PRUNED, self.scales.walk_discount(seat, discount, t))


class DiscountFirstRule(UpdateRule):
    """``storage``: an object with ``discount_storage(which, seat, pos_scale, neg_scale, floor)``."""

    def __init__(self, schedule, storage):
        super().__init__(schedule)
        self.storage = storage

    def before_walk(self, seat, t, discount):
        self.storage.discount_storage("regret", seat, discount.pos_scale, discount.neg_scale, False)
        self.storage.discount_storage("sum", seat, discount.sum_scale, discount.sum_scale, False)
        return Step(kernels.UPDATE, make_discount(sum_weight=discount.sum_weight))

    def after_walk(self, seat, t, discount):
        if discount.floor > 0.0:
            self.storage.discount_storage("regret", seat, 1.0, 1.0, True)


class SettleRule(UpdateRule):
    """``storage`` as for :class:`DiscountFirstRule`; ``pruned``: each seat's sums are added in
    the other's walk, so both are discounted before either walk."""

    def __init__(self, schedule, storage, pruned: bool):
        super().__init__(schedule)
        self.storage, self.pruned = storage, pruned

    def begin(self, t, discount):
        if self.pruned:
            for seat in (0, 1):
                self.storage.discount_storage("sum", seat, discount.sum_scale, discount.sum_scale, False)

    def before_walk(self, seat, t, discount):
        if not self.pruned:   # (the traverser's own sums are added in his walk: discounted before it)
            self.storage.discount_storage("sum", seat, discount.sum_scale, discount.sum_scale, False)
        return Step(kernels.UPDATE_PRUNED if self.pruned else kernels.UPDATE,
                    make_discount(sum_weight=discount.sum_weight),
                    settle=(discount.pos_scale, discount.neg_scale, discount.floor > 0.0))

    def after_walk(self, seat, t, discount):
        if discount.floor > 0.0:
            self.storage.discount_storage("regret", seat, 1.0, 1.0, True)


class RowScaleRule(UpdateRule):
    """``storage``: an object with ``discount_rows(seat, pos_scale, neg_scale, sum_scale)`` (a
    :class:`solver.cfr.quantized.QuantizedStorage`, or one spread over actors)."""

    def __init__(self, schedule, storage, pruned: bool = True):
        super().__init__(schedule)
        self.storage, self.pruned = storage, pruned

    def begin(self, t, discount):
        if self.pruned:
            for seat in (0, 1):
                self.storage.discount_rows(seat, 1.0, 1.0, discount.sum_scale)

    def before_walk(self, seat, t, discount):
        self.storage.discount_rows(seat, discount.pos_scale, discount.neg_scale,
                                   1.0 if self.pruned else discount.sum_scale)
        return Step(kernels.UPDATE_PRUNED if self.pruned else kernels.UPDATE,
                    make_discount(sum_weight=discount.sum_weight), floor=discount.floor > 0.0,
                    seed=int(stream_seed(t, seat)) or 1)


class LinearRule(UpdateRule):
    """Old regrets and sums stay as they are, iteration ``t``'s are added times ``t``: regrets
    (old / t + gained) * t (a discount that only adds), sums plus t times the reach-weighted
    strategy; each walk samples from its own stream of ``seed``."""

    def __init__(self, seed: int, policy: int):
        super().__init__(None)
        self.seed, self.policy = seed, policy

    def discount(self, t):
        weight = float(t)
        return make_discount(pos_scale=1.0 / weight, neg_scale=1.0 / weight, sum_weight=weight, pos_store=weight,
                             neg_store=weight)

    def before_walk(self, seat, t, discount):
        return Step(self.policy, discount, seed=stream_seed(self.seed, 2 * t + seat))


class Iterating:
    """The protocol's ``run_iterations``, once for every engine: an engine gives its rule
    (:meth:`update_rule`, made at each call: the storage it acts on may have been replaced) and
    its walk (:meth:`update_walk`)."""

    def run_iterations(self, n: int) -> None:
        """``n`` iterations of alternating updates (button, then big blind)."""
        rule = self.update_rule()
        for _ in range(n):
            t = self.iteration + 1
            discount = rule.discount(t)
            rule.begin(t, discount)
            for seat in (0, 1):
                self.update_walk(seat, rule.before_walk(seat, t, discount))
                rule.after_walk(seat, t, discount)
            self.iteration = t
            self.after_iteration()

    def update_rule(self) -> UpdateRule:
        raise NotImplementedError

    def update_walk(self, seat: int, step: Step) -> None:
        raise NotImplementedError

    def after_iteration(self) -> None:
        """After each iteration (a Ray run deals its groups by measured cost here)."""
