"""The CFR engine: regrets and strategy sums of one game, updated walk by walk.

Lifecycle, each step a function of its own: the plan (:func:`plan_solve`,
refuses what does not fit), the public tree (:func:`build_tree`), the draw
model, the strategy layout (:meth:`StrategyLayout.for_config`: full
resolution or card buckets), the walker (:class:`Walker`), then the engine
allocates storage from the layout and iterates. Algorithms are flags of one
engine (a :class:`Schedule`), all with alternating updates:

- ``dcfr``   Discounted CFR, alpha=1.5, beta=0, gamma=2 (Brown & Sandholm 2019): the
  default. Positive regrets are scaled by t^a/(t^a+1), negative by 1/2, the
  average strategy by (t/(t+1))^g each iteration.
- ``cfr+``   CFR+ (Tammelin 2014): regrets floored at zero, linear averaging.
- ``linear`` Linear CFR: DCFR with alpha=beta=gamma=1.
- ``cfr``    vanilla CFR with uniform averaging.

>>> engine = Engine(load_preset("tiny-no-draw"))
>>> engine.run_iterations(100)
>>> round(engine.exploitability().exploitability_mbb, 3) < 0.5
True
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass

import numpy as np

from abstractions.transitions import DrawModel, get_draw_model

from ..game.config import GameConfig, load_preset  # noqa: F401  (load_preset: doctest)
from ..game.layout import StrategyLayout
from ..game.plan import SolvePlan, SolveTooLarge, format_bytes, plan_solve
from ..game.tree import PublicTree, build_tree
from . import kernels
from .kernels import Discount
from .walker import Exploitability, Walker, class_strategy, normalised_slots

ALGORITHMS = ("dcfr", "cfr+", "linear", "cfr")


@dataclass(frozen=True)
class Schedule:
    """Per-iteration discounts of regrets and strategy sums for each algorithm."""

    algorithm: str = "dcfr"
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {self.algorithm!r} (choose from {', '.join(ALGORITHMS)})")

    def discount(self, t: int) -> Discount:
        """The discount of iteration t >= 1: its scales apply to what was accumulated over
        iterations 1..t-1 (positive and negative regrets, strategy sums), ``floor`` > 0 floors
        regrets at zero, and ``sum_weight`` weighs the iteration's strategy."""
        prev = float(t - 1)
        if self.algorithm == "cfr":
            return Discount(1.0, 1.0, 0.0, 1.0, 1.0)
        if self.algorithm == "cfr+":
            return Discount(1.0, 1.0, 1.0, 1.0, float(t))
        alpha, beta, gamma = (1.0, 1.0, 1.0) if self.algorithm == "linear" else (self.alpha, self.beta, self.gamma)
        pos = prev ** alpha / (prev ** alpha + 1.0)
        neg = prev ** beta / (prev ** beta + 1.0)
        return Discount(pos, neg, 0.0, (prev / t) ** gamma, 1.0)


@contextmanager
def discounted_update(layout: StrategyLayout, regret: np.ndarray, strat_sum: np.ndarray, seats, discount: Discount):
    """Around the update walks of ``seats`` on a layout with shared slots: discount their regrets
    and strategy sums once, give the walks a discount that only adds (the iteration's strategy
    weight kept), and floor the regrets at zero after them for CFR+."""
    for seat in seats:
        kernels.discount_seat(regret, layout.slot_offset, layout.slot_seat, seat, discount.pos_scale,
                              discount.neg_scale, False)
        kernels.discount_seat(strat_sum, layout.slot_offset, layout.slot_seat, seat, discount.sum_scale,
                              discount.sum_scale, False)
    yield Discount(1.0, 1.0, 0.0, 1.0, discount.sum_weight)
    if discount.floor > 0.0:
        for seat in seats:
            kernels.discount_seat(regret, layout.slot_offset, layout.slot_seat, seat, 1.0, 1.0, True)


class Engine:
    """Range-vector CFR over the public tree of one game config."""

    def __init__(self, config: GameConfig, algorithm: str = "dcfr", check_memory: bool = True,
                 row_of: np.ndarray | None = None):
        """``row_of``: the layout's class -> row maps per round (as a checkpoint stores them);
        by default they come from the config (card buckets clustered, or full resolution)."""
        self.config = config
        self.schedule = Schedule(algorithm)
        self.plan: SolvePlan = plan_solve(config)
        if check_memory:
            self.plan.check_tree_fits()
        if check_memory and self.plan.streamed:
            raise SolveTooLarge(
                f"{config.describe()}: a solve over its built tree does not fit in this machine's "
                f"{format_bytes(self.plan.machine_bytes)}; it is solved streamed, in its abstract game "
                "(solve() and `badugi solve` do that)")
        if check_memory and not self.plan.fits:
            where = "with these buckets" if self.plan.bucketed else "at full resolution"
            raise SolveTooLarge(
                f"{config.describe()} needs {format_bytes(self.plan.bytes)} {where}, "
                f"more than this machine's {format_bytes(self.plan.machine_bytes)} allows; "
                "use a smaller cap, fewer draws or (fewer) card buckets")
        tree = build_tree(config)
        model = get_draw_model(config.ranks, config.suits, config.hand_size)
        layout = StrategyLayout.for_config(tree, model.legal, row_of)
        self.walker = Walker(tree, layout, model)
        self.regret = np.zeros(layout.n_entries, dtype=np.float32)
        self.strat_sum = np.zeros(layout.n_entries, dtype=np.float32)
        self.iteration = 0

    exact_progress = True  # its exploitability checks are exact: no separate certificate

    @property
    def algorithm(self) -> str:
        return self.schedule.algorithm

    @property
    def tree(self) -> PublicTree:
        return self.walker.tree

    @property
    def layout(self) -> StrategyLayout:
        return self.walker.layout

    @property
    def model(self) -> DrawModel:
        return self.walker.model

    @property
    def n_states(self) -> int:
        return self.walker.n_states

    def run_iterations(self, n: int) -> None:
        """``n`` iterations of alternating updates (button, then big blind). Where public nodes
        share slots, a walk visits a slot many times, so the iteration's discount is applied to
        the seat's storage once before its walk, which only adds (:func:`discounted_update`)."""
        shared = self.layout.shares_slots
        for _ in range(n):
            t = self.iteration + 1
            discount = self.schedule.discount(t)
            for seat in (0, 1):
                if shared:
                    with discounted_update(self.layout, self.regret, self.strat_sum, (seat,), discount) as adding:
                        self.walker.walk(seat, kernels.UPDATE, self.regret, adding, self.regret, self.strat_sum)
                else:
                    self.walker.walk(seat, kernels.UPDATE, self.regret, discount, self.regret, self.strat_sum)
            self.iteration = t

    def exploitability(self) -> Exploitability:
        """Exact best responses against the average strategy, and its game value."""
        return self.walker.exploitability(self.strat_sum)

    progress_exploitability = exploitability

    # -- the average strategy ----------------------------------------------
    def average_strategy(self, node: int) -> np.ndarray:
        """Average strategy at a decision node per value class: (n_actions, n_states), rows sum to 1
        over legal actions (with buckets, every class gets its bucket's strategy)."""
        return class_strategy(self.layout, self.strat_sum, node)

    def average_probability_chunks(self, max_entries: int = 1 << 24):
        """The average strategy in the layout's order, as float32 chunks of whole slots, so a big
        game's strategy can be written without a second full-size array."""
        for lo, hi in self.layout.slot_chunks(max_entries):
            yield normalised_slots(self.layout, self.strat_sum, lo, hi)

    def average_probabilities(self) -> np.ndarray:
        """The average strategy of every slot, laid out like the strategy sums (float32)."""
        return np.concatenate(list(self.average_probability_chunks()) or [np.zeros(0, np.float32)])
