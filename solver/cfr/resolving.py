"""Safe re-solving of the last betting round at full resolution (Python side of
:mod:`solver.cfr.kernels.resolve`).

A strategy solved in card buckets plays the last round, where most of a game's key states are,
with a few dozen buckets of final strength. At a last-round subgame the blueprint's ranges and
the opponent's counterfactual best-response values give a one-round game over every value class
a side; :meth:`LastRound.resolve` solves it behind the Resolve gadget (Burch, Johanson and
Bowling 2014; Brown and Sandholm 2017), so the re-solved strategy leaves every opponent class at
most what the blueprint left it there.

>>> from solver.game.config import load_preset
>>> last = LastRound(load_preset("triple-draw"))
>>> last.n_positions, last.n_actions   # check or bet, then up to a bet and three raises
(10, 3)
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ..game.config import GameConfig
from ..game.rounds import RoundTemplates
from .kernels.resolve import ResolveWork, RoundArrays, resolve_round, round_values


class Resolved(NamedTuple):
    """A re-solved subgame: the player's strategy (positions, actions, classes; zero at the
    opponent's positions), the opponent's best-response values per class against the blueprint
    (``cbv``) and against the re-solved strategy (``after``), and the iterations run."""

    strategy: np.ndarray
    cbv: np.ndarray
    after: np.ndarray
    iterations: int

    def gain(self, opponent_reach: np.ndarray) -> float:
        """What re-solving took from the opponent's best response here, in the walk's units
        (weighted by his reach): at least zero up to the solve's precision."""
        return float(opponent_reach @ (self.cbv - self.after))


class LastRound:
    """The last betting round of ``config`` as a subgame over value classes (or any states
    sorted by strength, 0 best): walks and the safe re-solve."""

    def __init__(self, config: GameConfig):
        template = RoundTemplates.of(config).rounds[config.draws]
        self.template = template
        self.arrays = RoundArrays(template.seat.astype(np.int64), template.kind.astype(np.int64),
                                  template.target.astype(np.int64), template.contrib.astype(np.float64))

    @property
    def n_positions(self) -> int:
        return int(self.arrays.kind.shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.arrays.kind.shape[1])

    def work(self, n_states: int) -> ResolveWork:
        """Zeroed buffers for a re-solve over ``n_states`` classes."""
        t, a, n = self.n_positions, self.n_actions, n_states
        return ResolveWork(np.zeros((t, a, n)), np.zeros((2, n)), np.zeros((t, a, n)), np.zeros((t, a, n)),
                           np.zeros((t, 2, n)), np.zeros((t, a, n)), np.zeros((t, n)))

    def _check(self, pot: float, ranges: np.ndarray, play: np.ndarray | None = None) -> np.ndarray:
        ranges = np.ascontiguousarray(ranges, dtype=np.float64)
        if ranges.ndim != 2 or ranges.shape[0] != 2:
            raise ValueError(f"ranges must be (2, classes), not {ranges.shape}")
        if not np.all(np.isfinite(ranges)) or ranges.min() < 0.0:
            raise ValueError("ranges must be finite and non-negative")
        if not np.isfinite(pot) or pot < 0.0:
            raise ValueError(f"pot must be a non-negative number, not {pot}")
        if play is not None and play.shape != (self.n_positions, self.n_actions, ranges.shape[1]):
            raise ValueError(f"a strategy over this round is {(self.n_positions, self.n_actions, ranges.shape[1])}, "
                             f"not {play.shape}")
        return ranges

    def values(self, pot: float, traverser: int, play: np.ndarray, ranges: np.ndarray,
               best: bool = False) -> np.ndarray:
        """The traverser's counterfactual value per class at the round's start, both seats
        playing ``play`` (positions, actions, classes), or the traverser best-responding."""
        ranges = self._check(pot, ranges, play)
        work = self.work(ranges.shape[1])
        work.reach[0] = ranges
        round_values(self.arrays, float(pot), int(traverser), bool(best), np.ascontiguousarray(play, np.float64),
                     work.reach, work.child, work.value)
        return work.value[0].copy()

    def resolve(self, pot: float, player: int, ranges: np.ndarray, blueprint: np.ndarray,
                iterations: int = 200, floor: float = 0.0) -> Resolved:
        """Re-solve the round for ``player`` at pot level ``pot`` from both seats' ``ranges``,
        against what ``blueprint`` (positions, actions, classes: the player's probabilities at his
        positions) left the opponent. ``floor`` lifts the opponent's gadget reach to at least that
        share of its largest entry, so classes the blueprint never brings here still keep their
        values (a best response may bring them)."""
        ranges = self._check(pot, ranges, blueprint)
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations}")
        opponent = 1 - player
        cbv = self.values(pot, opponent, blueprint, ranges, best=True)
        gadget_ranges = ranges.copy()
        if floor > 0.0:
            gadget_ranges[opponent] = np.maximum(ranges[opponent], floor * ranges[opponent].max())
        work = self.work(ranges.shape[1])
        resolve_round(self.arrays, float(pot), int(player), gadget_ranges, cbv, int(iterations), work)
        strategy = self.average(work.avg, player)
        after = self.values(pot, opponent, strategy, ranges, best=True)
        return Resolved(strategy, cbv, after, int(iterations))

    def average(self, sums: np.ndarray, seat: int) -> np.ndarray:
        """Strategy sums normalised at ``seat``'s positions (uniform over legal actions where a
        class never came), zero elsewhere."""
        legal = (self.arrays.kind >= 0)[:, :, None]
        mine = (self.arrays.seat == seat)[:, None, None]
        sums = np.where(legal & mine, np.maximum(sums, 0.0), 0.0)
        total = sums.sum(axis=1, keepdims=True)
        uniform = np.broadcast_to(legal / legal.sum(axis=1, keepdims=True), sums.shape)
        out = np.where(total > 0.0, sums / np.where(total > 0.0, total, 1.0), uniform)
        return np.where(mine, out, 0.0)
