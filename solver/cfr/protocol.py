"""What the solve loop asks of an engine: one small interface every engine implements.

The engines: :class:`solver.cfr.engine.Engine` (CFR over a built tree, full resolution or card
buckets), :class:`solver.cfr.distributed.RayEngine` (the same, its subtrees in Ray actors),
:class:`solver.cfr.abstract.AbstractEngine` (CFR in the abstract game over a streamed tree,
certified at full resolution), :class:`solver.cfr.streamed_ray.StreamedRayEngine` (the same,
its cut groups in Ray actors) and :class:`solver.cfr.sampled.SampledEngine` (sampled CFR over a
streamed tree). :func:`solver.cfr.solve.solve` iterates, measures, checkpoints and writes the
strategy of any of them through this interface alone, never asking which one it has
(``solver.cfr.solve.make_engine`` is the one place that picks). An engine whose storage lives
in other processes may raise ``solver.cfr.distributed.ActorLost`` from an iteration, a check or
a checkpoint; :meth:`SolverEngine.restart` then gives it new processes, empty, for
:meth:`SolverEngine.restore` or :meth:`SolverEngine.reset_storage` to fill.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Iterator, Protocol

import numpy as np

from .files import CheckpointError, CheckpointState  # noqa: F401  (CheckpointState: read from here too)

if TYPE_CHECKING:  # (annotations only)
    from ..game.config import GameConfig
    from ..game.layout import StrategyLayout
    from ..game.plan import SolvePlan
    from ..game.setup import GameSetup
    from ..game.tree import PublicTree
    from .locks import Locks
    from .walker import Exploitability


class SolverEngine(Protocol):
    """The interface of every engine (see the module docstring)."""

    setup: GameSetup               # the game, and everything built from it (solver.game.setup)
    config: GameConfig
    algorithm: str                 # the name a checkpoint and a strategy file record
    plan: SolvePlan
    layout: StrategyLayout         # where each decision's strategy is stored
    tree: PublicTree | None        # the built public tree (None: never built, read through the layout's rule)
    n_states: int                  # private states a walk's vectors run over
    iteration: int                 # iterations done
    locks: Locks | None            # decisions fixed by a lock file
    exact_progress: bool           # progress checks are exact at full resolution (else the certificate is)

    def run_iterations(self, n: int) -> None:
        """``n`` more iterations."""

    def progress_exploitability(self) -> Exploitability:
        """The measure of progress a solve checks every so often (cheap where it is not exact)."""

    def exploitability(self) -> Exploitability:
        """The certificate: exact best responses against the average strategy at full resolution."""

    def checkpoint_state(self, path: Path) -> CheckpointState:
        """The storage a checkpoint at ``path`` keeps (an engine with shards elsewhere writes them
        beside ``path`` first)."""

    def restore(self, data: dict, path: Path) -> None:
        """Take a checkpoint read from ``path`` by ``solver.cfr.files.load_checkpoint``: its
        storage (whole, or a Ray run's shards), its storage factors and its iteration;
        CheckpointError (one line) where it does not fit this engine's game."""

    def reset_storage(self) -> None:
        """Back to iteration 0: storage zero, no discounts kept."""

    def restart(self) -> None:
        """New processes for storage lost with them (the storage empty until :meth:`restore` or
        :meth:`reset_storage`); nothing where all the storage is in this process."""

    def shutdown(self) -> None:
        """Let go of any other processes (nothing where there are none)."""

    def average_probability_chunks(self, max_entries: int = 1 << 24) -> Iterator[np.ndarray]:
        """The average strategy in the layout's order, float32 chunks of whole slots."""

    def progress_note(self) -> str:
        """What a progress line adds (a Ray run: each actor's seconds an iteration); "" if nothing."""


PROTOCOL_METHODS = ("run_iterations", "progress_exploitability", "exploitability", "checkpoint_state", "restore",
                    "reset_storage", "restart", "shutdown", "average_probability_chunks", "progress_note")
PROTOCOL_ATTRIBUTES = tuple(SolverEngine.__annotations__)


class StorageHere:
    """The protocol's storage methods for an engine whose storage is in this process (regrets
    and strategy sums as two float32 arrays of its layout's entries, taken by ``load_storage``)."""

    def take_whole_storage(self, data: dict, path: Path) -> tuple[np.ndarray, np.ndarray]:
        """A whole (unsharded) checkpoint's regrets and sums, popped from ``data`` (the arrays
        themselves: copying a big game's would need its memory twice); CheckpointError if they
        are not this layout's size."""
        regret, strat_sum = data.pop("regret"), data.pop("strat_sum")
        if regret.size != self.layout.n_entries:
            raise CheckpointError(f"{path} does not match this game's tree ({regret.size} entries, expected "
                                  f"{self.layout.n_entries})")
        return regret, strat_sum

    def reset_storage(self) -> None:
        """Iteration 0: zero storage (and no discounts kept)."""
        n = self.layout.n_entries
        self.load_storage(np.zeros(n, np.float32), np.zeros(n, np.float32))
        self.iteration = 0

    def restart(self) -> None:
        """Nothing to restart: the storage is in this process."""

    def shutdown(self) -> None:
        """Nothing to let go of."""

    def progress_note(self) -> str:
        """Nothing to add to a progress line: the work is in this process."""
        return ""
