"""Monte Carlo CFR for games too big to walk whole: linear MCCFR in vector form over a streamed tree.

A full-width walk of triple draw at cap 4 visits 242 million public nodes
times 1,092 value classes: minutes per walk on two cores. This engine walks
a sample instead (Lanctot et al. 2009, "Monte Carlo sampling for regret
minimization in extensive games"; vector form as Johanson et al. 2012,
"Efficient Nash equilibrium approximation through Monte Carlo counterfactual
regret minimization"): each iteration, for each traverser, every action of
the traverser is walked, with whole vectors over value classes (draws and
showdowns stay exact), and one action of the opponent is sampled where he
acts, in proportion to his reach-weighted strategy. Regrets and strategy
sums are weighted by the iteration (linear CFR: Brown & Sandholm 2019), and
live in a layout by recall rule (:class:`solver.game.layout.RecallRule`):
rows shared by the public histories that differ only in forgotten rounds,
and by the value classes of a card bucket. A sampled walk visits a few
thousand to a few hundred thousand nodes, so an iteration costs milliseconds
to a second, not minutes.

A sampled walk is the update walk of every streamed game
(:func:`solver.cfr.streamed.update_streamed`: the trunk, the subtrees below
its cuts in threads, the trunk again) with a sampling policy of
:func:`solver.cfr.kernels.traverse` (``kernels.sampled_policy``); a cut the
opponent's samples never reach is skipped, which is most of them. Its
exploitability is measured exactly, at full resolution, by
:class:`solver.cfr.streamed.StreamedWalker`. Iterations are deterministic
given the seed, whatever the number of threads (one random stream per
iteration and traverser, and below it one for the trunk and one per cut).
"""

from __future__ import annotations

import numba
import numpy as np

from abstractions.transitions import DrawModel

from ..game.config import GameConfig
from ..game.plan import SolvePlan
from . import kernels
from .rules import LinearRule, Step, UpdateRule
from .streamed import StreamedEngine, cut_entries, group_chunks, streamed_arrays, streamed_setup, update_streamed
from .walker import normalised_slots, read_only


class SampledEngine(StreamedEngine):
    """Linear vector MCCFR over a streamed game (see the module docstring); the solve loop's
    interface (:class:`solver.cfr.protocol.SolverEngine`), its progress measured by the certificate."""

    algorithm = "mccfr"

    def __init__(self, config: GameConfig, seed: int = 0, check_memory: bool = True,
                 row_of: np.ndarray | None = None, sampling: int = kernels.SAMPLE_DRAWS):
        """``row_of``: the layout's class -> row maps (a checkpoint's); ``sampling``: where the
        opponent's actions are sampled (``kernels.SAMPLE_*``; none is full-width linear CFR)."""
        setup = streamed_setup(config, row_of, check_memory)
        if setup.config.storage_bits != 32:
            raise ValueError(f"{setup.config.describe()}: sampled walks keep float32 storage")
        self.setup, self.config = setup, setup.config
        self.seed = int(seed)
        self.sampling = sampling
        self.plan: SolvePlan = setup.plan
        self.model: DrawModel = setup.model
        self.layout = setup.layout
        self.game = setup.game
        self.cut_entries = cut_entries(self.game, self.layout)
        self.arrays = streamed_arrays(self.game, self.layout, self.model, self.cut_entries)
        self.cut_group = kernels.cut_groups(self.arrays.tree, self.layout.n_slots)
        self._chunks = None
        self.regret = np.zeros(self.layout.n_entries, dtype=np.float32)
        self.strat_sum = np.zeros(self.layout.n_entries, dtype=np.float32)
        self._delta = np.zeros(self.layout.n_entries, np.float32)
        self.iteration = 0

    # -- iterations (solver.cfr.rules.Iterating runs them) ----------------------------------
    def update_rule(self) -> UpdateRule:
        """A sampled update walk for the button, then one for the big blind
        (:func:`solver.cfr.streamed.update_streamed`), each with its own random stream; regrets
        and strategy sums weighted by the iteration's number (linear CFR)."""
        threads = numba.get_num_threads()
        if self._chunks is None or len(self._chunks[1]) != threads + 1:
            self._chunks = group_chunks(self.cut_group, threads)
        return LinearRule(self.seed, kernels.sampled_policy(self.sampling))

    def update_walk(self, seat: int, step: Step) -> None:
        arrays = self.arrays
        storage = kernels.Storage(read_only(self.regret), self.regret, self.strat_sum, self._delta)
        update_streamed(seat, step.policy, step.discount, self.model.deal_prob, arrays.tree, arrays.shape_record,
                        arrays.draws, storage, *self._chunks, arrays.no_record, seed=step.seed)

    def average_strategy(self, node_slot: int) -> np.ndarray:
        """(actions, classes) average strategy of one slot."""
        layout = self.layout
        rows = normalised_slots(layout, self.strat_sum, node_slot, node_slot + 1, np.float64)
        return layout.class_rows(rows, node_slot, layout.slot_offset[node_slot])
