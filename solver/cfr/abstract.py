"""Solving a game too big to walk at full resolution: CFR in its abstract game, certified exactly.

A full-width walk of triple draw at cap 4 visits 242 million public nodes
with vectors over 1,092 value classes: several minutes. Sampled walks
(:mod:`solver.cfr.sampled`) are cheap but converge far too slowly here (on
double draw at cap 4 they stand at 166 mbb/hand after 18 minutes, where the
full-width solver is near 1). So this engine solves the *abstract game*: the
same public tree, walked whole, but each player's private state is his card
bucket (:class:`abstractions.buckets.BucketGame`: bucket transitions and an
ordered showdown), so a walk costs public nodes times buckets, not times
classes. Strategies live in a layout by recall rule
(:class:`solver.game.layout.RecallRule`); the same storage, read through the
class-to-bucket maps, is the strategy of the real game, and its
exploitability is measured there exactly, at full resolution, by
:class:`solver.cfr.streamed.StreamedWalker`: the certificate.

Iterations are dcfr-ramp, the default (or DCFR, CFR+, linear, vanilla), with alternating updates.
A walk's subtrees run in parallel. Public nodes share slots across subtrees,
so the subtrees come in *groups* (those sharing any slot, found once by
:func:`kernels.cut_groups`), and a thread walks whole groups: threads write
disjoint storage, and each entry gets its additions in one order whatever the
number of threads, so results are the same bits on any number (tested: 1 and 2). Strategy
sums are added in place, regrets through one delta array (the walk reads the
iteration's strategy from the regrets): 12 bytes an entry in all. (Updating
both seats at once, one thread each, is no faster per iteration and
converges far slower: on tiny double draw, DCFR with simultaneous updates
stood at 10 mbb/hand after 1,000 iterations against 0.4 alternating.) For the
same reason a walk only adds: a seat's regrets are discounted once an
iteration, with the walk's delta, in one pass after the subtrees' walks (they
read the regrets undiscounted, which regret matching does not tell apart), and
strategy sums once before the walk that adds to them.

Walks are pruned (``kernels.UPDATE_PRUNED``): below an opponent's action that
leaves his reach all zero (where some action has positive regret, regret
matching gives the others probability exactly zero) nothing changes any
storage, and the
subtree is skipped. For that, a walk adds the *opponent's* strategy sums
(his reach times his strategy) instead of the traverser's, so each seat's
average is over the strategies the other seat's walks faced; the regrets are
those of full walks (tested entry for entry). On the triple-draw preset an
iteration from its committed checkpoint takes about half the time
(BENCHMARKS.md, "Pruned walks"); ``pruned=False`` walks everything.
"""

from __future__ import annotations

import numba
import numpy as np

from abstractions.buckets import BucketGame
from abstractions.transitions import DrawModel

from ..game.config import GameConfig
from ..game.setup import GameSetup
from ..game.plan import SolvePlan
from . import kernels
from .engine import DEFAULT_ALGORITHM, Schedule
from .rules import SettleRule, Step, UpdateRule
from .streamed import (StreamedEngine, StreamedWalker, cut_entries, group_chunks, streamed_arrays, streamed_setup,
                       update_streamed)
from .walker import Exploitability, read_only


class AbstractEngine(StreamedEngine):
    """CFR in the abstract game of a config with card buckets in every round (see the module
    docstring); the solve loop's interface (:class:`solver.cfr.protocol.SolverEngine`)."""

    def __init__(self, config: GameConfig | GameSetup, algorithm: str = DEFAULT_ALGORITHM, check_memory: bool = True,
                 row_of: np.ndarray | None = None, pruned: bool = True):
        """``pruned``: walks skip what the opponent never reaches (``kernels.UPDATE_PRUNED``; each
        seat's average is then over the strategies the other seat's walks faced)."""
        self.pruned = pruned
        self.check_memory = check_memory
        setup = streamed_setup(config, row_of, check_memory)
        if setup.config.storage_bits != self.storage_bits:
            raise ValueError(f"{setup.config.describe()}: {type(self).__name__} keeps {self.storage_bits}-bit storage "
                             "(make_engine picks the engine a config's storage_bits asks for)")
        self.setup = setup
        self.config = setup.config
        self.schedule = Schedule(algorithm)
        self.plan: SolvePlan = setup.plan
        self.model: DrawModel = setup.model
        self.layout = setup.layout
        # (A game without card buckets walks its value classes: the real game, its checks exact.)
        self.bucket_game: BucketGame | DrawModel = setup.walked_states
        self.game_layout = setup.walked_layout
        self.exact_progress = setup.solves_real_game
        self.game = setup.game
        self._prepare()
        self.iteration = 0
        self._chunks = None
        self._abstract_walker = None
        self._allocate()

    def _allocate(self) -> None:
        """The storage: float32 regrets and strategy sums, and the walks' regret delta."""
        self.regret = np.zeros(self.layout.n_entries, dtype=np.float32)
        self.strat_sum = np.zeros(self.layout.n_entries, dtype=np.float32)
        self._delta = np.zeros(self.layout.n_entries, np.float32)

    exact_progress = False  # progress is measured in the abstract game; the certificate at the end
    storage_bits = 32       # float32 regrets and sums (solver.cfr.quantized.QuantizedEngine: 16)
    warm_startable = True   # float32 storage in this process: filled from a coarser run (solver.cfr.warm)

    @property
    def algorithm(self) -> str:
        return self.schedule.algorithm

    def _prepare(self) -> None:
        game = self.game
        # Every walk's storage entries below the cuts, found once (the certificate's too: one rule).
        self.cut_entries = cut_entries(game, self.game_layout)
        self.arrays = streamed_arrays(game, self.game_layout, self.bucket_game, self.cut_entries)
        self.cut_group = kernels.cut_groups(self.arrays.tree, self.game_layout.n_slots)

    def chunks(self, threads: int) -> tuple[np.ndarray, np.ndarray]:
        """Cuts in ``threads`` chunks of whole groups (:func:`solver.cfr.streamed.group_chunks`)."""
        return group_chunks(self.cut_group, threads)

    # -- iterations (solver.cfr.rules.Iterating runs them) ----------------------------------
    def update_rule(self) -> UpdateRule:
        """Each walk's subtree groups in parallel (see :func:`solver.cfr.streamed.update_streamed`):
        the sums discounted before the walks, the seat's regrets settled with its delta after the
        cut subtrees' walks, in one pass (the walks read them undiscounted: the same strategy),
        before the trunk's walk adds in place; CFR+ floors the trunk's too after it."""
        threads = numba.get_num_threads()
        if self._chunks is None or len(self._chunks[1]) != threads + 1:
            self._chunks = self.chunks(threads)
        return SettleRule(self.schedule, self, self.pruned)

    def discount_storage(self, which: str, seat: int, pos_scale: float, neg_scale: float, floor: bool) -> None:
        """Discount one seat's regrets or sums in place (see :func:`kernels.discount_seat`)."""
        layout = self.game_layout
        kernels.discount_seat(self.regret if which == "regret" else self.strat_sum, layout.slot_offset,
                              layout.slot_seat, seat, pos_scale, neg_scale, floor)

    def update_walk(self, seat: int, step: Step) -> None:
        layout = self.game_layout
        tree = self.arrays.tree._replace(cut_entries=self.cut_entries)  # (a benchmark swaps them)
        storage = kernels.Storage(read_only(self.regret), self.regret, self.strat_sum, self._delta)
        update_streamed(seat, step.policy, step.discount, self.bucket_game.deal_prob, tree, self.arrays.shape_record,
                        self.arrays.draws, storage, *self._chunks, self.arrays.no_record,
                        settle=(layout.slot_offset, layout.slot_seat, *step.settle))

    # -- measuring ---------------------------------------------------------
    @property
    def abstract_walker(self) -> StreamedWalker:
        """Best responses and values within the abstract game (built on first use)."""
        if self.setup.solves_real_game:
            return self.certifier   # (the same walks)
        if self._abstract_walker is None:
            self._abstract_walker = StreamedWalker(self.game, self.game_layout, self.bucket_game, self.cut_entries)
        return self._abstract_walker

    def progress_exploitability(self) -> Exploitability:
        """Best responses within the abstract game (bucket vectors): a cheap progress measure,
        blind to what the abstraction loses."""
        return self.abstract_walker.exploitability(self.strat_sum)

    def abstract_exploitability(self) -> Exploitability:
        """:meth:`progress_exploitability` (the name the scripts use)."""
        return self.progress_exploitability()
