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

Its exploitability is measured exactly, at full resolution, by
:class:`solver.cfr.streamed.StreamedWalker`. Iterations are deterministic
given the seed (one random stream per iteration and traverser).
"""

from __future__ import annotations

import numpy as np

from abstractions.random import stream_seed
from abstractions.transitions import DrawModel

from ..game.config import GameConfig
from ..game.plan import SolvePlan
from . import kernels
from .kernels import TreeArrays
from .streamed import StreamedEngine, streamed_setup
from .walker import draw_tables, normalised_slots, tree_arrays


class SampledEngine(StreamedEngine):
    """Linear vector MCCFR over a streamed game (see the module docstring); the solve loop's
    interface (:class:`solver.cfr.protocol.SolverEngine`), its progress measured by the certificate."""

    algorithm = "mccfr"

    def __init__(self, config: GameConfig, seed: int = 0, check_memory: bool = True,
                 row_of: np.ndarray | None = None, sampling: int = kernels.SAMPLE_DRAWS):
        """``row_of``: the layout's class -> row maps (a checkpoint's); ``sampling``: where the
        opponent's actions are sampled (``kernels.SAMPLE_*``; none is full-width linear CFR)."""
        setup = streamed_setup(config, row_of, check_memory)
        self.setup, self.config = setup, setup.config
        self.seed = int(seed)
        self.sampling = sampling
        self.plan: SolvePlan = setup.plan
        self.model: DrawModel = setup.model
        self.layout = setup.layout
        self.game = setup.game
        self._prepare_walk()
        self.regret = np.zeros(self.layout.n_entries, dtype=np.float32)
        self.strat_sum = np.zeros(self.layout.n_entries, dtype=np.float32)
        self.iteration = 0

    def _prepare_walk(self) -> None:
        """One tree for the sampled walks: the trunk, then the shape; a cut's children are the
        shape root's."""
        game = self.game
        trunk, shape = game.trunk, game.shape
        n_trunk = trunk.n_nodes
        parts = [trunk] if shape is None else [trunk, shape]
        first_child = np.concatenate([trunk.first_child.astype(np.int64)]
                                     + ([np.where(shape.first_child >= 0, shape.first_child.astype(np.int64) + n_trunk,
                                                  -1)] if shape is not None else []))
        n_children = np.concatenate([p.n_children.astype(np.int64) for p in parts])
        if shape is not None:
            first_child[game.cut_nodes] = shape.first_child[0] + n_trunk
            n_children[game.cut_nodes] = shape.n_children[0]
        trunk_arrays = tree_arrays(trunk)
        shape_depth = tree_arrays(shape).max_depth if shape is not None else 0
        tree = TreeArrays(np.concatenate([p.kind for p in parts]), np.concatenate([p.seat for p in parts]),
                          np.concatenate([p.contrib for p in parts]), first_child, n_children,
                          np.concatenate([p.round.astype(np.int64) for p in parts]),
                          trunk_arrays.max_depth + shape_depth + 1, max(int(p.n_children.max()) for p in parts))
        index = np.full(n_trunk, -1, np.int64)
        index[game.cut_nodes] = np.arange(len(game.cut_nodes))
        self.walk_tree = kernels.SampledTree(
            tree, n_trunk, np.concatenate([p.phase.astype(np.int64) for p in parts]),
            np.concatenate([p.pot.astype(np.float64) for p in parts]),
            np.concatenate([p.records.astype(np.int64) for p in parts]), index, game.cut_pot, game.cut_record,
            self.layout.materialize(trunk).entry_offset, self.layout.rule.kernel_arrays(self.layout.slot_offset),
            self.layout.kernel_arrays())
        self.draws = draw_tables(self.model, self.config.rounds)
        depth = tree.max_depth
        self.work = kernels.make_work(depth, tree.n_actions_max, self.n_states, self.model.n_sets,
                                      int(self.layout.row_width.max()))
        self.sampled = np.zeros(depth + 1, np.int64)
        self.entry_at = np.zeros(depth + 1, np.int64)

    def run_iterations(self, n: int) -> None:
        """``n`` iterations: a sampled walk for the button, then one for the big blind, each with its
        own random stream; the iteration's weight is its number (linear averaging)."""
        for _ in range(n):
            t = self.iteration + 1
            for traverser in (0, 1):
                rng = np.array([stream_seed(self.seed, 2 * t + traverser)], dtype=np.uint64)
                kernels.sampled_walk(traverser, float(t), self.sampling, rng, self.model.deal_prob, self.walk_tree,
                                     self.draws, self.regret, self.strat_sum, self.work, self.sampled, self.entry_at)
            self.iteration = t

    def average_strategy(self, node_slot: int) -> np.ndarray:
        """(actions, classes) average strategy of one slot."""
        layout = self.layout
        rows = normalised_slots(layout, self.strat_sum, node_slot, node_slot + 1, np.float64)
        return layout.class_rows(rows, node_slot, layout.slot_offset[node_slot])
