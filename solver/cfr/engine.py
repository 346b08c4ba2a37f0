"""The CFR engine: regrets and strategy sums of one game, updated walk by walk.

Lifecycle: a game's :class:`solver.game.setup.GameSetup` makes each step once, when first
asked (the plan, which refuses what does not fit; the public tree; the draw
model; the strategy layout, :meth:`GameSetup.layout_for`: full resolution or
card buckets); the engine builds the walker (:class:`Walker`) on them, then
allocates storage from the layout and iterates. The algorithms (dcfr-ramp, the
default, DCFR, CFR+, linear and vanilla CFR) are rows of one table,
:mod:`solver.cfr.algorithms`, which the engine reads through a :class:`Schedule`;
all use alternating updates.

Update walks are pruned wherever an algorithm's row allows it (``prunes``: all but
``dcfr``): a walk skips what the opponent never reaches and keeps the iteration's discounts
as factors instead of applying them to every entry (:class:`StorageScales`),
so a skipped subtree costs nothing; ``Engine(..., pruned=False)`` walks every
node and discounts every entry (the walks of before).

Every engine, this one included, answers the solve loop through one interface
(:class:`solver.cfr.protocol.SolverEngine`).

>>> engine = Engine(load_preset("tiny-no-draw"))
>>> engine.run_iterations(100)
>>> round(engine.exploitability().exploitability_mbb, 3) < 0.5
True
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from abstractions.transitions import DrawModel

from ..game.config import GameConfig, load_preset  # noqa: F401  (load_preset: doctest)
from ..game.layout import StrategyLayout
from ..game.plan import SolvePlan, SolveTooLarge, format_bytes
from ..game.setup import GameSetup
from ..game.tree import PublicTree
from . import algorithms, kernels
from .algorithms import ALGORITHMS, DEFAULT_ALGORITHM, Algorithm, find_algorithm  # noqa: F401
from .files import CheckpointError
from .kernels import Discount, make_discount
from .locks import LockError, LockFile, Locks, compile_locks, lock_strategy
from .protocol import CheckpointState, StorageHere
from .rules import DiscountFirstRule, Iterating, PlainRule, ScaledRule, Step, UpdateRule
from .walker import Exploitability, Walker, class_strategy, normalised_slots



@dataclass(frozen=True, init=False)
class Schedule:
    """Per-iteration discounts of regrets and strategy sums: an algorithm's row
    (:class:`solver.cfr.algorithms.Algorithm`, found by name) as the kernels take them."""

    row: Algorithm

    def __init__(self, algorithm: str | Algorithm = DEFAULT_ALGORITHM):
        object.__setattr__(self, "row", find_algorithm(algorithm))

    @property
    def algorithm(self) -> str:
        return self.row.name

    def discount(self, t: int) -> Discount:
        """The discount of iteration t >= 1 (:meth:`Algorithm.discount`) as the kernels take it."""
        return make_discount(**self.row.discount(t))


class StorageScales:
    """An iteration's discounts kept as per-seat factors instead of applied to every entry (for
    an algorithm whose row ``prunes``: each iteration scales a seat's negative regrets by 0 or by
    the positive ones' scale; DCFR's, halved every iteration, would fall below what float32
    storage can be divided by).

    A seat's true regret is its stored regret times ``factors[0, seat]`` where the stored one is
    positive and times ``factors[1, seat]`` where it is negative (0 once negative regrets have
    been reset: dcfr-ramp); its true strategy sum is the stored one times ``factors[2, seat]``.
    An iteration's discount multiplies the factors; an update walk's regrets are discounted and
    stored divided by the factor of their sign (``Discount.pos_store``, ``neg_store``), its
    strategy sums are added divided by the sums' factor. Entries a pruned walk skips are then
    right without being touched, so pruning saves their memory traffic instead of moving it into
    a discount pass. Regret matching and the average strategy are ratios within rows of one
    seat, which one factor per seat and sign does not change (regret matching reads positive
    regrets only).

    >>> scales = StorageScales()
    >>> d = Schedule("dcfr-ramp").discount(3)
    >>> scales.begin(d, 3)
    >>> w = scales.walk_discount(0, d, 3)
    >>> bool(w.pos_scale == d.pos_scale and w.pos_store == 1 / d.pos_scale and w.neg_scale == 0.0)
    True
    """

    def __init__(self, factors: np.ndarray | None = None):
        self.factors = np.ones((3, 2)) if factors is None else np.array(factors, dtype=np.float64).reshape(3, 2)

    def begin(self, discount: Discount, t: int) -> None:
        """Iteration ``t``'s discount of both seats' strategy sums (before either walk: each
        walk adds the other seat's sums). Iteration 1's scales apply to empty storage."""
        if t > 1:
            self.factors[2] *= discount.sum_scale

    def walk_discount(self, seat: int, discount: Discount, t: int) -> Discount:
        """Iteration ``t``'s discount of ``seat``'s regrets, and the discount its pruned update
        walk applies: old regrets times the running factors, new ones stored divided by them,
        the opponent's sums added divided by his sums' factor."""
        if t > 1:
            self.factors[0, seat] *= discount.pos_scale
            self.factors[1, seat] *= discount.neg_scale
        pos, neg = self.factors[0, seat], self.factors[1, seat]
        return make_discount(pos_scale=pos, neg_scale=neg, floor=discount.floor,
                             sum_weight=discount.sum_weight / self.factors[2, 1 - seat], pos_store=1.0 / pos,
                             neg_store=1.0 / neg if neg > 0.0 else 1.0 / pos)

    def unscale(self, layout: StrategyLayout, regret: np.ndarray, strat_sum: np.ndarray) -> None:
        """Turn ``regret`` and ``strat_sum``, stored as these factors hold them, into their true
        values in place (a pass over each seat's slots: what discounting every entry gives)."""
        for seat in (0, 1):
            kernels.discount_seat(regret, layout.slot_offset, layout.slot_seat, seat, self.factors[0, seat],
                                  self.factors[1, seat], False)
            kernels.discount_seat(strat_sum, layout.slot_offset, layout.slot_seat, seat, self.factors[2, seat],
                                  self.factors[2, seat], False)


class Engine(Iterating, StorageHere):
    """Range-vector CFR over the public tree of one game config."""

    _sealed_at: int | None = None  # the iteration of a locked game's average sums (``_sealed``), if made
    warm_startable = True  # its float32 storage in this process can be filled from a coarser run (solver.cfr.warm)

    def __init__(self, config: GameConfig | GameSetup, algorithm: str = DEFAULT_ALGORITHM, check_memory: bool = True,
                 row_of: np.ndarray | None = None, locks: LockFile | None = None, allocate: bool = True,
                 pruned: bool | None = None):
        """``row_of``: the layout's class -> row maps per round (as a checkpoint stores them);
        by default they come from the config (card buckets clustered, or full resolution).
        ``locks``: decisions fixed by a lock file (:mod:`solver.cfr.locks`). ``allocate``: False
        for a subclass that keeps its storage elsewhere (:mod:`solver.cfr.distributed`).
        ``pruned``: update walks skip what the opponent never reaches, with the discounts kept
        as factors (:class:`StorageScales`); None: wherever it applies (an algorithm whose row
        ``prunes``, rows not shared, no locks), False: every walk visits every node and
        discounts every entry it passes (the walks of before)."""
        setup = GameSetup.of(config, row_of, streamed=False)
        if setup.config.storage_bits != 32:
            raise ValueError(f"{setup.config.describe()}: 16-bit storage is the streamed abstract solver's "
                             "(solver.cfr.quantized); this engine keeps float32")
        self.setup, self.config = setup, setup.config
        self.schedule = Schedule(algorithm)
        self.plan: SolvePlan = setup.plan
        if check_memory:
            self.plan.check_tree_fits()
        if check_memory and self.plan.streamed:
            raise SolveTooLarge(
                f"{setup.config.describe()}: a solve over its built tree does not fit in this machine's "
                f"{format_bytes(self.plan.machine_bytes)}; it is solved streamed, in its abstract game "
                "(solve() and `badugi solve` do that)")
        if check_memory:
            self.plan.check_fits()
        tree, model, layout = setup.tree, setup.model, setup.layout
        self.walker = Walker(tree, layout, model)
        if allocate:
            self.regret = np.zeros(layout.n_entries, dtype=np.float32)
            self.strat_sum = np.zeros(layout.n_entries, dtype=np.float32)
        self.iteration = 0
        self.locks: Locks | None = None
        # The discounts kept as factors of a pruned solve (None: applied to the storage).
        self.scales: StorageScales | None = None
        if locks is not None:
            self.set_locks(compile_locks(locks, tree, model.legal))
        can_prune = self.schedule.row.prunes and not layout.shares_slots and self.locks is None
        if pruned and not can_prune:
            pruning = ", ".join(row.name for row in algorithms.ALGORITHMS if row.prunes)
            raise ValueError(f"pruned walks need one of {pruning}, rows not shared and no locks")
        if can_prune and pruned is not False:
            self.scales = StorageScales()

    def set_locks(self, locks: Locks) -> None:
        """Fix the decisions of ``locks`` from the next iteration on (see :mod:`solver.cfr.locks`):
        walks play the regrets with those rows replaced. Costs three more arrays of the storage's
        entries (float32): the rows played, the lock codes the walks read, and the average
        strategy's sums with locked rows replaced (made when asked for)."""
        self.check_lockable()
        if self.scales is not None:
            # Locked rows are played from a copy of the storage: walks that discount every entry.
            if self.iteration > 0:
                raise LockError("node locks are set before the first iteration")
            self.scales = None
        self.locks = locks
        self._play = np.empty_like(self.regret)
        # The tree's arrays as the lock kernel takes them, made once (it runs before every walk).
        tree = self.tree
        self._lock_tree = (tree.n_children.astype(np.int64), tree.kind, tree.round.astype(np.int64))
        self._lock_seat = tree.seat.astype(np.int64)
        # The walks play the locks: best responses keep them, partly locked regrets are their free choice's.
        self.walker.layout_arrays = self.walker.layout_arrays._replace(
            lock_code=locks.codes(self.tree, self.layout.entry_offset, self.layout.row_width, self.layout.n_entries))

    def check_lockable(self) -> None:
        """LockError unless this solve can be locked: an algorithm that allows it, at full resolution."""
        if not self.schedule.row.lockable:
            raise LockError(f"{self.algorithm} solves cannot be locked")
        if self.layout.bucketed or self.layout.shares_slots:
            raise LockError(f"{self.config.describe()}: node locking needs a game solved at full resolution "
                            "(no card buckets, the whole history remembered): a lock names hands, not buckets")

    def _lock(self, storage: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``storage`` with the locked rows replaced by the strategy they play, into ``out``."""
        locks, layout = self.locks, self.layout
        if out is not storage:
            np.copyto(out, storage)
        lock_strategy(storage, out, locks.pair_node, locks.pair_class, locks.pair_variant, locks.variants,
                      layout.entry_offset, *self._lock_tree, layout.row_width, layout.class_legal, self._lock_seat, -1)
        return out

    def _play_rows(self) -> np.ndarray:
        """What an update walk plays: the regrets, with locked rows replaced."""
        return self.regret if self.locks is None else self._lock(self.regret, self._play)

    def average_sums(self) -> np.ndarray:
        """The strategy sums, with locked rows replaced by their lock (a copy, if locked): the
        average strategy of a locked decision is its lock, even where it is never reached."""
        if self.locks is None:
            return self.strat_sum
        if self._sealed_at != self.iteration:
            self._sealed = self._lock(self.strat_sum, np.empty_like(self.strat_sum))
            self._sealed_at = self.iteration
        return self._sealed

    def load_storage(self, regret: np.ndarray, strat_sum: np.ndarray, scales: np.ndarray | None = None) -> None:
        """Take a checkpoint's regrets and strategy sums (the arrays themselves: copying them would
        touch a second copy of the storage), and the factors they are stored divided by (a
        pruned solve's; None: none)."""
        self.regret, self.strat_sum = regret, strat_sum
        self._sealed_at = None  # (a locked game's average sums, made again)
        self.set_scale_factors(scales)

    def set_scale_factors(self, scales: np.ndarray | None) -> None:
        """The factors a checkpoint's storage is divided by (:class:`StorageScales`; None: stored
        as it is, a checkpoint of walks that discount every entry)."""
        if self.scales is not None:
            self.scales = StorageScales(scales)
        elif scales is not None and not np.all(np.asarray(scales) == 1.0):
            raise ValueError("this checkpoint's storage is scaled (a pruned solve's); this engine walks unpruned")

    def scale_factors(self) -> np.ndarray | None:
        """What a checkpoint keeps of :class:`StorageScales` (None without it)."""
        return None if self.scales is None else self.scales.factors.copy()

    # -- the solve loop's interface (solver.cfr.protocol.SolverEngine) ------------------------
    exact_progress = True  # its exploitability checks are exact: no separate certificate

    def checkpoint_state(self, path) -> CheckpointState:
        """The storage as it is, and its factors (a pruned solve's)."""
        return CheckpointState(self.regret, self.strat_sum, [], self.scale_factors())

    def restore(self, data: dict, path) -> None:
        """Take a checkpoint's storage (the arrays themselves, popped from ``data``; a Ray run's
        shards assembled), its factors and its iteration."""
        if data["shards"]:
            from .shards import assemble

            regret, strat_sum = assemble(self.walker, data)
            if regret.size != self.layout.n_entries:
                raise CheckpointError(f"{path} does not match this game's tree ({regret.size} entries, expected "
                                      f"{self.layout.n_entries})")
        else:
            regret, strat_sum = self.take_whole_storage(data, path)
        self.load_storage(regret, strat_sum, data["scales"])
        self.iteration = int(data["iteration"])

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

    # -- iterations (solver.cfr.rules.Iterating runs them) ----------------------------------
    def update_rule(self) -> UpdateRule:
        """Pruned (the default where it applies): each seat's walk skips what the other never
        reaches, updating its own regrets and the other's strategy sums, with the discounts kept
        as factors (:class:`StorageScales`). Where public nodes share slots, a walk visits a slot
        many times, so the iteration's discount is applied to the seat's storage once before its
        walk, which only adds. Otherwise each walk discounts every entry it passes."""
        if self.scales is not None:
            return ScaledRule(self.schedule, self.scales)
        if self.layout.shares_slots:
            return DiscountFirstRule(self.schedule, self)
        return PlainRule(self.schedule)

    def update_walk(self, seat: int, step: Step) -> None:
        self._update_walk(seat, step.policy, step.discount)

    def discount_storage(self, which: str, seat: int, pos_scale: float, neg_scale: float, floor: bool) -> None:
        """Discount one seat's regrets or sums in place (positive ones times ``pos_scale``, others
        times ``neg_scale``; ``floor``: negative ones to 0)."""
        storage = self.regret if which == "regret" else self.strat_sum
        kernels.discount_seat(storage, self.layout.slot_offset, self.layout.slot_seat, seat, pos_scale, neg_scale,
                              floor)

    def _update_walk(self, seat: int, policy: int, discount: Discount) -> None:
        """One seat's update walk (``UPDATE`` plays the regrets with locked rows replaced; a Ray
        engine walks its actors' subtrees instead)."""
        play = self._play_rows() if policy == kernels.UPDATE else self.regret
        self.walker.walk(seat, policy, play, discount, self.regret, self.strat_sum)

    def exploitability(self) -> Exploitability:
        """Exact best responses against the average strategy, and its game value (in a locked
        game, best responses that keep the locks)."""
        # (A locked game's: each best response keeps the locks, a locked player may not leave them.)
        return self.walker.exploitability(self.average_sums())

    progress_exploitability = exploitability

    # -- the average strategy ----------------------------------------------
    def average_strategy(self, node: int) -> np.ndarray:
        """Average strategy at a decision node per value class: (n_actions, n_states), rows sum to 1
        over legal actions (with buckets, every class gets its bucket's strategy)."""
        return class_strategy(self.layout, self.average_sums(), node)

    def average_probability_chunks(self, max_entries: int = 1 << 24):
        """The average strategy in the layout's order, as float32 chunks of whole slots, so a big
        game's strategy can be written without a second full-size array."""
        sums = self.average_sums()
        for lo, hi in self.layout.slot_chunks(max_entries):
            yield normalised_slots(self.layout, sums, lo, hi)

    def average_probabilities(self) -> np.ndarray:
        """The average strategy of every slot, laid out like the strategy sums (float32)."""
        return np.concatenate(list(self.average_probability_chunks()) or [np.zeros(0, np.float32)])
