"""The solve loop: iterate, measure, report progress, checkpoint, stop.

Stops at the first of: ``iterations`` reached, exploitability at or below
``target_mbb``, ``time_limit`` seconds spent (time spent before a resume
counts). Exploitability is measured every so often, keeping its cost near a
tenth of the run time, and always at the end. Ctrl-C (SIGINT) or SIGTERM stops
the run at the end of the iteration under way: a checkpoint of that iteration
boundary is written and KeyboardInterrupt raised (a second signal stops at
once, during an iteration or during that checkpoint's write, keeping the
previous checkpoint whole: files are replaced atomically); the exception's text
says which checkpoint is on disk. ``resume=True`` continues from the checkpoint
in ``out_dir`` bit for bit.

A game solved in its abstract game is certified (the exact best response at full resolution)
at the end; ``certify_every=N`` certifies it also every N iterations, and ``certify_at`` at those
fractions of the time limit (the first iteration boundary at or past each), the certified curve
(iteration, seconds, mbb/hand) kept in the checkpoint and written to ``certified.csv``. Its
minutes are measurement, not solving: they count neither in ``seconds`` nor in the time limit
(the summary says how long they took).
"""

from __future__ import annotations

import csv
import dataclasses
import json
import math
import resource
import signal
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, NamedTuple

import numba
import numpy as np

from abstractions.files import atomic_write

from ..game.config import GameConfig
from ..game.setup import GameSetup
from ..game.plan import SolveTooLarge
from .actors import ActorLost
from .algorithms import DEFAULT_ALGORITHM
from .combinations import engine_class, storage_name
from .files import (CHECKPOINT_NAME, STRATEGY_NAME, Checkpoint, CheckpointError, load_checkpoint, remove_shards,
                    save_strategy)
from .locks import LOCK_FILE_NAME, LOCK_PAIRS_NAME, LockError, LockFile, save_locked_pairs
from .protocol import SolverEngine
from .walker import Exploitability

CHECK_SHARE = 0.1          # exploitability checks may take about this share of the time
CHECK_ALLOWANCE = 30.0     # seconds of checks a run may spend early, before the share binds
CHECKPOINT_SECONDS = 60.0  # periodic checkpoint on long runs
CHECKPOINT_SHARE = 20.0    # ... and at least this many times as long as the last one took to write
PROGRESS_SECONDS = 2.0     # at most one progress line this often
QUIET_SECONDS = 60.0       # between checks, a line at the first iteration boundary after this long without one
CERTIFIED_NAME = "certified.csv"  # the certified curve of a run certified during its run


@dataclass
class SolveResult:
    engine: SolverEngine
    exploitability: Exploitability
    iterations: int
    seconds: float
    stopped_by: str
    out_dir: Path | None
    convergence: list[tuple[int, float, float]]
    progress: Exploitability | None = None   # the last progress measure (the abstract game's, if streamed)
    certificate_seconds: float = 0.0
    certified: list = None   # (iteration, seconds, certified mbb/hand) taken during the run (certify_every)
    certificates_seconds: float = 0.0   # all certificates' time, the last included (this process's)
    warm_start: dict | None = None      # the run it began from (solver.cfr.warm.WarmStart.as_dict)
    certified_spread: float | None = None   # the certificates from the first of certify_at on: (max - min) / min


class Interrupted(KeyboardInterrupt):
    """A solve stopped by a signal at an iteration boundary; its text says where and what was kept."""


class StopRequests:
    """SIGINT and SIGTERM during a solve, remembered to be acted on at an iteration boundary (a
    checkpoint taken halfway through an iteration could not be resumed bit for bit). A second
    signal raises KeyboardInterrupt at once; later ones are ignored while the solve says what it
    kept. Outside the main thread, signals are left alone."""

    def __init__(self, say: Callable[[str], None]):
        self.say = say
        self.requested = False
        self.stopped_at_once = False
        self._previous = {}

    def _handle(self, signum, frame):
        if self.stopped_at_once:
            return
        if self.requested:
            self.stopped_at_once = True
            raise KeyboardInterrupt
        self.requested = True
        self.say("stopping at the end of this iteration (again to stop now, losing the work since the last "
                 "checkpoint)")

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                self._previous[sig] = signal.signal(sig, self._handle)
        return self

    def __exit__(self, *exc):
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        return False


def _file_identity(path: Path) -> tuple | None:
    """Which file is at ``path`` (None: none): an atomic replace gives it another identity."""
    try:
        stat = path.stat()
    except FileNotFoundError:
        return None
    return stat.st_ino, stat.st_mtime_ns, stat.st_size


def make_engine(game: GameConfig | GameSetup, algorithm: str = DEFAULT_ALGORITHM, row_of=None,
                streamed: bool | None = None, locks: LockFile | None = None, ray: RaySetup | None = None
                ) -> SolverEngine:
    """The engine a game needs: CFR over its built tree, or, when a solve over the built tree would
    not fit (or ``streamed`` asks for it), CFR in its abstract game over a streamed tree,
    certified at full resolution. ``game``: a config or its setup (whose plan is reused);
    ``row_of``: a checkpoint's row maps. ``locks``: decisions fixed (built trees only). ``ray``:
    the subtrees in Ray actors. The one place that picks (from :data:`solver.cfr.combinations.COMBINATIONS`): the solve
    loop then asks only the engine protocol (:mod:`solver.cfr.protocol`)."""
    setup = GameSetup.of(game)
    built = check_solvable(setup, locks, ray, streamed)
    setup = setup.decided(streamed=not built, row_of=row_of)
    storage = storage_name(setup.config.storage_bits)
    options = {} if ray is None else {"address": ray.address, "actors": ray.actors, "actor_cpus": ray.actor_cpus}
    if built:
        options["locks"] = locks
    elif ray is not None:
        options["actor_memory"] = ray.actor_memory
    chosen = engine_class("built" if built else "streamed", storage, "threads" if ray is None else "ray")
    return chosen(setup, algorithm, **options)


def check_solvable(game: GameConfig | GameSetup, locks: LockFile | None = None, ray: RaySetup | None = None,
                   streamed: bool | None = None) -> bool:
    """Whether :func:`make_engine` builds the game's tree (else it streams it); a ValueError
    (SolveTooLarge, LockError, RayError) for a solve it would refuse, found from the plan alone:
    before anything is built, compiled or printed."""
    setup = GameSetup.of(game)
    config, plan = setup.config, setup.plan
    built = not (setup.streamed if streamed is None else streamed)
    if built and config.storage_bits != 32:
        raise SolveTooLarge(f"{config.describe()}: 16-bit storage is the streamed abstract solver's; a solve over "
                            "the built tree keeps float32 (drop storage_bits or solve it streamed)")
    if built:
        plan.check_tree_fits()
        plan.check_fits()
        if locks is not None:
            locks.check_hands(config)  # (a rule that matches no decision is found with the tree)
        if ray is not None:
            from .actors import RayError, import_ray

            if ray.actor_memory is not None:
                raise RayError("--actor-memory is for streamed actors (--streamed): a built tree's actors each "
                               "build the whole tree")
            import_ray()
        return True
    if ray is not None:
        from .actors import import_ray

        import_ray()
    if locks is not None:
        raise LockError(f"{config.describe()}: node locking needs a game whose tree is built and solved at full "
                        "resolution; this one is solved in its abstract game over a streamed tree")
    # (Streamed, a game walks bucket vectors, or without buckets its value classes: the real game.)
    if not (plan.abstract_game_ready or not config.bucketed):
        raise SolveTooLarge(f"{config.describe()}: a streamed solve needs card buckets in every round and a recall "
                            "(see the triple-draw preset), or no buckets (full resolution)")
    if ray is None:
        plan.check_fits()
    return False


def check_resume(data: dict, path: Path, locks: LockFile | None) -> None:
    """A checkpoint (read by :func:`load_checkpoint`, which checks its game and algorithm) resumes
    only with the lock file it was solved with."""
    given = locks.text if locks is not None else ""
    if data["lock_toml"] != given:
        raise CheckpointError(f"{path} was solved " + ("without a lock file" if not data["lock_toml"]
                              else "with another lock file" if given else "with a lock file")
                              + ("; give the same --lock" if data["lock_toml"] else ""))


def _summary(result: SolveResult, compile_seconds: float | None) -> dict:
    e = result.engine
    x = result.exploitability
    return {
        "game": e.config.describe(),
        "config": e.config.to_dict(),
        "algorithm": e.algorithm,
        "iterations": result.iterations,
        "seconds": round(result.seconds, 3),
        "compile_seconds": None if compile_seconds is None else round(compile_seconds, 3),
        "threads": numba.get_num_threads(),
        "stopped_by": result.stopped_by,
        "game_value_mbb": x.game_value_mbb,
        "exploitability_mbb": x.exploitability_mbb,
        "br_button_mbb": 1000.0 * x.br_button,
        "br_big_blind_mbb": 1000.0 * x.br_big_blind,
        "value_seat": "button",
        "private_states": e.n_states,
        "betting_nodes": e.plan.counts.betting_nodes,
        "memory_bytes": e.plan.bytes,
        # This process's peak resident memory (a resumed run: since its resume).
        "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024),
        "exploitability_measured": "exactly, at full resolution" if e.exact_progress else
        "exactly, at full resolution (the certificate); progress was measured in the abstract game",
        **({} if e.exact_progress else {
            "abstract_exploitability_mbb": result.progress.exploitability_mbb,
            "certificate_seconds": round(result.certificate_seconds, 1)}),
        **({} if result.warm_start is None else {"warm_start": result.warm_start}),
        **({} if not result.certified else {
            "certified_curve": [[i, round(s, 3), x] for i, s, x in result.certified],
            "certificates_seconds": round(result.certificates_seconds, 1),
            "certified_curve_note": "certificates taken during the run (certified.csv); seconds are solving "
                                    "seconds: the certificates' own time is certificates_seconds (this process's)"}),
        **({} if result.certified_spread is None else {
            "certified_spread": round(result.certified_spread, 6),
            "certified_spread_note": "the certificates taken at the --certify-at fractions of the time limit and "
                                     "at the end: (largest - smallest) / smallest (converged by issue 59's rule "
                                     "at 0.03 or less)"}),
        **({} if e.locks is None else {
            "locks": {"file": LOCK_FILE_NAME, "rules": len(e.locks.lock_file.rules), "pairs_locked": e.locks.n_pairs,
                      "note": "exploitability is measured in the locked game: each best response keeps the "
                              "locks (badugi exploit measures what leaving them gains)"}}),
    }


def check_stopping_rules(iterations: int | None, target_mbb: float | None, time_limit: float | None) -> None:
    """ValueError unless at least one rule is given and each given one makes sense."""
    if iterations is None and target_mbb is None and time_limit is None:
        raise ValueError("give at least one stopping rule: iterations, target exploitability or time limit")
    if iterations is not None and iterations < 0:
        raise ValueError(f"iterations must be 0 or more, got {iterations}")
    if target_mbb is not None and not target_mbb > 0:
        raise ValueError(f"target exploitability must be positive, got {target_mbb}")
    if time_limit is not None and not time_limit > 0:
        raise ValueError(f"time limit must be positive, got {time_limit}")


class RaySetup(NamedTuple):
    """Where and how a solve runs on Ray: a cluster address (``local``: a runtime started on this
    machine), the number of actors owning subtrees, and the CPUs each asks for."""

    address: str = "local"
    actors: int = 2
    actor_cpus: float = 1.0
    actor_memory: int | None = None   # bytes each streamed actor asks Ray for (its memory resource)


@dataclass(frozen=True)
class SolveOptions:
    """How a solve runs (see :func:`solve`). ``streamed``: solve in the abstract game over a
    streamed tree even if the tree could be built (None: when it must). ``locks``: decisions
    fixed by a lock file (a resume must give the same one). ``ray``: run the subtrees in Ray
    actors (the same result, bit for bit). ``algorithm``: None is the default algorithm for a new
    run, and the checkpoint's own for a resumed one (a named one must be the checkpoint's).
    ``certify_every``: certify every so many iterations too (a game solved in its abstract
    game; the module docstring). ``certify_at``: certify also at these fractions of ``time_limit``
    (each between 0 and 1), at the first iteration boundary at or past each, whose certificates and the
    end's give the summary's ``certified_spread``. ``warm_from``: a new run begins from that run's checkpoint, the
    same game and recall rule in other buckets (:mod:`solver.cfr.warm`): its iteration and
    solving seconds count as this run's."""

    algorithm: str | None = None
    iterations: int | None = None
    target_mbb: float | None = None
    time_limit: float | None = None
    out_dir: str | Path | None = None
    resume: bool = False
    progress: Callable[[str], None] | None = None
    check_every: int | None = None
    streamed: bool | None = None
    locks: LockFile | None = None
    ray: RaySetup | None = None
    certify_every: int | None = None
    warm_from: str | Path | None = None
    certify_at: tuple[float, ...] | None = None

    def check(self) -> None:
        """ValueError (one line) for options that cannot go together, before anything is built."""
        check_stopping_rules(self.iterations, self.target_mbb, self.time_limit)
        if self.warm_from is not None and self.resume:
            raise ValueError("a warm start begins a new run; a resumed run goes on from its own checkpoint")
        if self.certify_every is not None and self.certify_every < 1:
            raise ValueError(f"certify every N iterations needs N of 1 or more, got {self.certify_every}")
        if self.certify_at:
            if self.time_limit is None:
                raise ValueError("certifying at fractions of the time limit needs a time limit")
            bad = [f for f in self.certify_at if not 0.0 < f < 1.0]
            if bad:
                raise ValueError(f"certify at fractions of the time limit between 0 and 1 (the end is certified "
                                 f"anyway), got {bad[0]:g}")


def solve(game: GameConfig | GameSetup, options: SolveOptions | None = None, **chosen) -> SolveResult:
    """Solve ``game`` (a config, or its setup: its plan is then not made again) as ``options``
    say, any of them given by name instead (``solve(config, iterations=100, out_dir=...)``);
    write results to ``out_dir`` if given. See the module docstring and :class:`SolveOptions`."""
    options = dataclasses.replace(options or SolveOptions(), **chosen)
    options.check()
    run = SolveRun(GameSetup.of(game), options)
    run.begin()
    run.iterate()
    return run.finish()


class SolveRun:
    """One solve's state, from its beginning (new, warm-started or resumed) through its loop of
    iterations, checks, certificates and checkpoints to its result (:func:`solve`)."""

    def __init__(self, setup: GameSetup, options: SolveOptions):
        self.setup, self.config, self.options = setup, setup.config, options
        self.say = options.progress or (lambda line: None)
        self.out = Path(options.out_dir) if options.out_dir is not None else None
        self.checkpoint_path = self.out / CHECKPOINT_NAME if self.out else None
        self.algorithm = options.algorithm
        self.certify_every = options.certify_every
        self.certify_at = sorted(set(options.certify_at or ()))
        self.spent = 0.0
        self.convergence: list[tuple[int, float, float]] = []
        self.certified: list[tuple[int, float, float]] = []
        self.warm_note = ""   # the warm start a run began from (JSON; kept in its checkpoint)
        self.saved_at = None  # the iteration of this run's checkpoint on disk
        self.compile_seconds = None
        self.certifying = 0.0  # this process's certificates' seconds: measurement, not counted in ``spent``
        self.last_certified = None  # this process's latest certificate (iteration, Exploitability, seconds)
        self.x = None
        self.stopped_by = None

    # -- the beginning ------------------------------------------------------------------------
    def begin(self) -> None:
        """The engine, new or from the checkpoint; kernels compiled before any timing."""
        if self.options.resume:
            self._resume()
        else:
            self._begin_new()
        engine = self.engine
        if self.certify_every is not None and engine.exact_progress:
            self.say("every progress check of this game is exact at full resolution already: --certify-every adds "
                     "nothing")
            self.certify_every = None
        if self.certify_at and engine.exact_progress:
            self.say("every progress check of this game is exact at full resolution already: --certify-at adds "
                     "nothing")
            self.certify_at = []
        if engine.locks is not None:
            self.say(engine.locks.describe())
        # Compile (or load from the cache) before timing, so run time is run time. (Not for a streamed
        # game: its check is a walk of minutes, thrown away here; its compiling counts in its first
        # iteration, and its summary's compile_seconds is null.)
        if engine.exact_progress:
            compile_start = time.perf_counter()
            engine.progress_exploitability()
            self.compile_seconds = time.perf_counter() - compile_start

    def _resume(self) -> None:
        options, path = self.options, self.checkpoint_path
        if path is None:
            raise ValueError("resume needs an output directory holding a checkpoint")
        data = load_checkpoint(path, self.config, self.algorithm)
        self.algorithm = str(data["algorithm"])
        check_resume(data, path, options.locks)
        # The checkpoint's own layout: a bucketed run resumes without clustering again.
        self.engine = make_engine(self.setup, self.algorithm, row_of=data["row_of"], streamed=options.streamed,
                                  locks=options.locks, ray=options.ray)
        # The engine takes the loaded arrays: copying them into its own would touch a second
        # copy of the storage (its zeros are never touched, so never resident): the triple-draw
        # preset's resume peaked at 24 GB and was killed for memory.
        self.engine.restore(data, path)
        self.spent = float(data["seconds"])
        self.convergence = [(int(i), float(s), float(x)) for i, s, x in data["convergence"]]
        self.certified = [(int(i), float(s), float(x)) for i, s, x in data["certified"]]
        self.warm_note = data["warm_start"]
        self.saved_at = int(data["iteration"])
        self.say(f"resumed at iteration {self.engine.iteration} ({self.spent:.1f} s spent before)")

    def _begin_new(self) -> None:
        options = self.options
        self.algorithm = self.algorithm or DEFAULT_ALGORITHM
        self.engine = make_engine(self.setup, self.algorithm, streamed=options.streamed, locks=options.locks,
                                  ray=options.ray)
        if options.warm_from is None:
            return
        from .warm import warm_start

        warm = warm_start(self.engine, options.warm_from)
        if options.iterations is not None and options.iterations <= warm.iteration:
            raise ValueError(f"the warm start's run has {warm.iteration} iterations already: give more than that "
                             "(--iterations counts them)")
        if options.time_limit is not None and options.time_limit <= warm.seconds:
            raise ValueError(f"the warm start's run solved {warm.seconds:.0f} s already: give a time limit above "
                             "that (--time-limit counts them)")
        self.spent = warm.seconds
        self.warm_note = json.dumps(warm.as_dict())
        self.say(f"warm start from {warm.run} ({warm.game}): iteration {warm.iteration}, {warm.seconds:.1f} s of "
                 "solving counted as this run's")

    # -- checkpoints and lost actors ------------------------------------------------------------
    def write_checkpoint(self) -> None:
        if not self.checkpoint_path:
            return
        engine, locks = self.engine, self.options.locks
        # (An engine with shards elsewhere writes them first; the checkpoint then names them.)
        state = engine.checkpoint_state(self.checkpoint_path)
        Checkpoint(self.config, self.algorithm, engine.iteration, self.spent,
                   np.array(self.convergence, dtype=np.float64).reshape(-1, 3), state, engine.layout.row_of,
                   locks.text if locks is not None else "", locks.base if locks is not None else "",
                   np.array(self.certified, dtype=np.float64).reshape(-1, 3), self.warm_note).save(self.checkpoint_path)
        self.saved_at = engine.iteration
        if not state.shards:  # a Ray run's shards, resumed in one process: replaced
            remove_shards(self.checkpoint_path.parent)

    def kept(self) -> str:
        """What a stop at once leaves on disk."""
        if self.checkpoint_path is None:
            return "nothing saved (no output directory)"
        if self.saved_at is None:
            return "no checkpoint written"
        return (f"the previous checkpoint at {self.checkpoint_path} (iteration {self.saved_at}) is kept (continue "
                "with --resume)")

    def write_last_checkpoint(self) -> str:
        """The checkpoint of a stopped run, at an iteration boundary (it resumes bit for bit); a
        second stop request during the write abandons it, the previous checkpoint staying whole.
        Returns what was kept."""
        path, iteration = self.checkpoint_path, self.engine.iteration
        if path is None:
            return f"interrupted at iteration {iteration}"
        done = f"interrupted at iteration {iteration}; checkpoint written to {path} (continue with --resume)"
        if self.saved_at == iteration and path.is_file():  # this iteration's is on disk already
            return done
        before = _file_identity(path)
        try:
            self.say(f"writing the checkpoint of iteration {iteration} (again to stop at once: "
                     + ("no checkpoint is kept)" if self.saved_at is None else
                        f"the one of iteration {self.saved_at} is kept)"))
            self.write_checkpoint()
        except KeyboardInterrupt:
            if _file_identity(path) == before:  # not replaced: the earlier file (or none) stands
                return f"interrupted again while writing the checkpoint of iteration {iteration}: {self.kept()}"
        return done

    def recover(self, lost: Exception) -> int:
        """A Ray actor was lost: new actors, every shard back to the last checkpoint (or to the
        start), the iterations since then run again (the same bits: the result is the
        uninterrupted run's). Returns the next check's iteration."""
        engine = self.engine
        engine.restart()
        if self.checkpoint_path is not None and self.checkpoint_path.is_file():
            engine.restore(load_checkpoint(self.checkpoint_path, self.config, self.algorithm), self.checkpoint_path)
        else:
            engine.reset_storage()
        self.convergence[:] = [row for row in self.convergence if row[0] <= engine.iteration]
        self.certified[:] = [row for row in self.certified if row[0] <= engine.iteration]
        self.say(f"{lost}: new actors resume from iteration {engine.iteration}")
        return engine.iteration + 1

    def spread(self) -> float | None:
        """(largest - smallest) / smallest of the certificates from the first ``certify_at`` fraction
        of the time limit on, the end's included (None without ``certify_at`` or two of them)."""
        values = fraction_certificates(self.certified, self.certify_at, self.options.time_limit)
        if len(values) < 2 or min(values) <= 0.0:
            return None
        return (max(values) - min(values)) / min(values)

    def take_certificate(self, abstract: Exploitability | None) -> None:
        """The exact certificate of this iteration, on the certified curve (its time apart)."""
        engine = self.engine
        self.say(f"iteration {engine.iteration}: certifying (exact best response at full resolution, "
                 f"about {engine.plan.certificate_seconds / 60:.0f} min, not counted as solving time)")
        t0 = time.perf_counter()
        try:
            cert = engine.exploitability()
        finally:
            self.certifying += time.perf_counter() - t0
        self.certified.append((engine.iteration, self.spent, cert.exploitability_mbb))
        self.last_certified = (engine.iteration, cert, time.perf_counter() - t0)
        said = ""
        if abstract is not None:
            checked = self.convergence[-1][0] if self.convergence else engine.iteration
            at = "" if checked == engine.iteration else f" at iteration {checked}"  # checks far apart
            said = f" (abstract {abstract.exploitability_mbb:.2f}{at})"
        self.say(f"iteration {engine.iteration}: certified {cert.exploitability_mbb:.2f} mbb/hand{said} after "
                 f"{self.spent:.0f} s solving; the certificate took {time.perf_counter() - t0:.0f} s")

    # -- the loop ----------------------------------------------------------------------------
    def _stop_rule(self) -> str | None:
        options, iteration = self.options, self.engine.iteration
        if options.iterations is not None and iteration >= options.iterations:
            return "iterations"
        if options.time_limit is not None and self.spent >= options.time_limit:
            return "time limit"
        if (options.target_mbb is not None and self.convergence and self.convergence[-1][0] == iteration
                and self.convergence[-1][2] <= options.target_mbb):
            return "target exploitability"
        return None

    def iterate(self) -> None:
        """Iterations, checks, certificates and checkpoints until a stopping rule holds or a stop is
        requested (Interrupted then, with what was kept)."""
        engine, options = self.engine, self.options
        certify_every = self.certify_every
        start = time.perf_counter()
        base = self.spent
        next_certify = (engine.iteration // certify_every + 1) * certify_every if certify_every else math.inf
        if (certify_every and engine.iteration > 0 and engine.iteration % certify_every == 0
                and (not self.certified or self.certified[-1][0] != engine.iteration)):
            self.take_certificate(None)  # a run stopped before its certificate was taken: taken now
        # Solving seconds at which to certify (certify_at), those a resumed run has not passed with a
        # certificate; one passed without (a run stopped before it) is taken now.
        due = [f * options.time_limit for f in self.certify_at
               if not any(s >= f * options.time_limit for _, s, _ in self.certified)]
        if due and self.spent >= due[0]:
            self.take_certificate(None)
            due = [t for t in due if t > self.spent]
        last_checkpoint = start

        def solving_seconds() -> float:
            """The run's solving seconds now (a resumed run's included, certificates' not)."""
            return base + time.perf_counter() - start - self.certifying

        last_said = last_quiet = -math.inf
        checkpoint_gap = CHECKPOINT_SECONDS
        iter_seconds = None
        check_seconds = 0.0
        checks_seconds = 0.0  # all checks of this process (the share binds on its own time)
        next_check = engine.iteration + 1
        stops = StopRequests(self.say)
        with stops:
            try:
                while not stops.requested:
                    self.stopped_by = self._stop_rule()
                    if self.stopped_by:
                        break
                    # Run up to the next check, in slices short enough to honour the time limit; a stop
                    # request ends the slice at an iteration boundary.
                    todo = next_check - engine.iteration
                    if options.iterations is not None:
                        todo = min(todo, options.iterations - engine.iteration)
                    if certify_every:
                        todo = min(todo, next_certify - engine.iteration)
                    if options.time_limit is not None and iter_seconds:
                        todo = min(todo, max(1, int((options.time_limit - self.spent) / iter_seconds)))
                    if due and iter_seconds:
                        todo = min(todo, max(1, math.ceil((due[0] - self.spent) / iter_seconds)))
                    t0 = time.perf_counter()
                    first = engine.iteration
                    try:
                        while engine.iteration < first + todo and not stops.requested:
                            engine.run_iterations(1)
                            if (engine.iteration < next_check
                                    and time.perf_counter() - max(last_said, last_quiet, start) >= QUIET_SECONDS):
                                # Far between checks (--check-every on a big game): a line without one
                                # (not where a check follows at once: it says its own).
                                self.say(_iteration_line(engine.iteration, solving_seconds(), options.iterations,
                                                         options.time_limit, (time.perf_counter() - t0)
                                                         / max(engine.iteration - first, 1), next_check))
                                last_quiet = time.perf_counter()  # (checks keep their own throttle)
                    except ActorLost as lost:
                        next_check = self.recover(lost)
                        continue
                    iter_seconds = (time.perf_counter() - t0) / max(engine.iteration - first, 1)
                    self.spent = solving_seconds()
                    if stops.requested:
                        break
                    if engine.iteration >= next_check or engine.iteration >= next_certify:
                        t0 = time.perf_counter()
                        try:
                            self.x = x = engine.progress_exploitability()
                        except ActorLost as lost:
                            next_check = self.recover(lost)
                            continue
                        check_seconds = time.perf_counter() - t0
                        self.spent = solving_seconds()
                        self.convergence.append((engine.iteration, self.spent, x.exploitability_mbb))
                        if time.perf_counter() - last_said >= PROGRESS_SECONDS:
                            note = engine.progress_note()
                            self.say(_progress_line(engine.iteration, x, self.spent, options.iterations,
                                                    options.target_mbb, options.time_limit, iter_seconds,
                                                    self.convergence) + (f"  ({note})" if note else ""))
                            last_said = time.perf_counter()
                        checks_seconds += check_seconds
                        next_check = engine.iteration + (options.check_every or next_check_gap(
                            engine.iteration, check_seconds, iter_seconds, checks_seconds,
                            time.perf_counter() - start - self.certifying))
                    if engine.iteration >= next_certify:
                        try:
                            self.take_certificate(self.x)
                        except ActorLost as lost:
                            next_check = self.recover(lost)
                            continue
                        next_certify += certify_every
                    if due and self.spent >= due[0]:
                        if not self.certified or self.certified[-1][0] != engine.iteration:
                            try:
                                self.take_certificate(self.x)
                            except ActorLost as lost:
                                next_check = self.recover(lost)
                                continue
                        due = [t for t in due if t > self.spent]
                    if self.checkpoint_path and time.perf_counter() - last_checkpoint > checkpoint_gap:
                        t0 = time.perf_counter()
                        try:
                            self.write_checkpoint()
                        except ActorLost as lost:
                            next_check = self.recover(lost)
                            continue
                        last_checkpoint = time.perf_counter()
                        # Big games: keep checkpoint writing to a few percent of the run.
                        checkpoint_gap = max(CHECKPOINT_SECONDS, CHECKPOINT_SHARE * (last_checkpoint - t0))
            except KeyboardInterrupt:
                raise Interrupted(f"stopped at once during iteration {engine.iteration + 1}: {self.kept()}") from None
            if stops.requested:
                # At an iteration boundary: the checkpoint resumes bit for bit.
                self.spent = solving_seconds()
                raise Interrupted(self.write_last_checkpoint())

    # -- the end -------------------------------------------------------------------------------
    def finish(self) -> SolveResult:
        """The last check, the checkpoint, the certificate (a game solved in its abstract game) and
        the run's files."""
        engine, x = self.engine, self.x
        if x is None or not self.convergence or self.convergence[-1][0] != engine.iteration:
            x = engine.progress_exploitability()
            if not self.convergence or self.convergence[-1][0] != engine.iteration:  # a finished run resumed
                self.convergence.append((engine.iteration, self.spent, x.exploitability_mbb))
        progress_x, certificate_seconds = x, 0.0
        self.write_checkpoint()  # before a certificate of minutes: nothing solved is lost to a stop then
        if not engine.exact_progress:
            if self.last_certified is not None and self.last_certified[0] == engine.iteration:
                x, certificate_seconds = self.last_certified[1:]  # certified at this iteration already
            else:
                # Progress was measured in the abstract game; what counts is the real game's, exactly.
                self.say(f"certifying: exact best response at full resolution (about "
                         f"{engine.plan.certificate_seconds / 60:.0f} min)")
                t0 = time.perf_counter()
                x = engine.exploitability()
                certificate_seconds = time.perf_counter() - t0
                self.certifying += certificate_seconds
                if ((self.certify_every or self.certify_at)
                        and (not self.certified or self.certified[-1][0] != engine.iteration)):
                    self.certified.append((engine.iteration, self.spent, x.exploitability_mbb))
                    self.write_checkpoint()  # the curve a resume goes on with holds this certificate too
        result = SolveResult(engine, x, engine.iteration, self.spent, self.stopped_by, self.out, self.convergence,
                             progress_x, certificate_seconds, self.certified, self.certifying,
                             json.loads(self.warm_note) if self.warm_note else None, self.spread())
        if self.out:
            write_outputs(result, self.compile_seconds)
        return result


def fraction_certificates(certified: list, certify_at, time_limit: float | None) -> list[float]:
    """The certified figures (mbb/hand) of a run's curve ``certified`` taken at or after the first
    of the fractions ``certify_at`` of ``time_limit`` (those fractions' and the end's); [] without."""
    if not certify_at or time_limit is None:
        return []
    first = min(certify_at) * time_limit
    return [x for _, s, x in certified if s >= first]


def next_check_gap(iteration: int, check_seconds: float, iter_seconds: float, checks_seconds: float,
                   elapsed: float) -> int:
    """Iterations from a progress check at ``iteration`` to the next one.

    In the long run a check every ``check_seconds / (CHECK_SHARE * iter_seconds)``
    iterations keeps checks at about ``CHECK_SHARE`` of the time. Early checks come
    closer together (every ``iteration // 2``) so the convergence curve has a
    shape, but only while all checks so far (``checks_seconds``, this one included)
    stay within ``CHECK_SHARE`` of the ``elapsed`` time or within
    ``CHECK_ALLOWANCE`` seconds: where a check costs a minute (the abstract
    game's best responses at cap 4) the early curve is thinner and the
    iterations it would have cost are run instead.
    """
    steady = max(1, math.ceil(check_seconds / (CHECK_SHARE * iter_seconds)))
    gap = min(steady, max(1, iteration // 2))
    if checks_seconds + check_seconds > CHECK_ALLOWANCE:
        # The next check may come once all checks, it included, are CHECK_SHARE of the time.
        need = (checks_seconds + check_seconds) / CHECK_SHARE - elapsed - check_seconds
        gap = max(gap, math.ceil(need / iter_seconds))
    return max(gap, 1)


def _limits_left(iteration, spent, iterations, time_limit, iter_seconds) -> list[float]:
    """Seconds left by the iteration limit and by the time limit (those given)."""
    remaining = []
    if iterations is not None:
        remaining.append((iterations - iteration) * iter_seconds)
    if time_limit is not None:
        remaining.append(max(time_limit - spent, 0.0))
    return remaining


def _eta(remaining: list[float]) -> str:
    return f"~{min(remaining):.0f}s left" if remaining else "remaining unknown"


def _iteration_line(iteration, spent, iterations, time_limit, iter_seconds, next_check) -> str:
    """A progress line between exploitability checks: the iteration, its seconds, the solving
    seconds so far and what is left by the iteration or time limit."""
    eta = _eta(_limits_left(iteration, spent, iterations, time_limit, iter_seconds))
    return (f"iteration {iteration}: {iter_seconds:.1f} s an iteration, {spent:.1f}s, {eta} "
            f"(next exploitability check at iteration {next_check})")


def _progress_line(iteration, x, spent, iterations, target_mbb, time_limit, iter_seconds, convergence) -> str:
    remaining = _limits_left(iteration, spent, iterations, time_limit, iter_seconds)
    if target_mbb is not None and len(convergence) >= 2:
        # Compare with a check about half the run back: neighbouring checks are noisy.
        i1, _, e1 = convergence[-1]
        i0, _, e0 = next(row for row in convergence if row[0] >= i1 // 2)
        if i0 == i1:
            i0, _, e0 = convergence[-2]
        if e1 <= target_mbb:
            remaining.append(0.0)
        elif 0 < e1 < e0 and i1 > i0:
            # Extrapolate the recent power law exploitability ~ iterations^-k.
            # In logs: a nearly flat stretch (k near 0) projects beyond any float.
            k = math.log(e0 / e1) / math.log(i1 / i0)
            log_need = math.log(i1) + math.log(e1 / target_mbb) / k
            if log_need < 40:
                remaining.append((math.exp(log_need) - i1) * iter_seconds)
    eta = _eta(remaining)
    return (f"iter {iteration:>6}  exploitability {x.exploitability_mbb:10.4f} mbb/hand  "
            f"value {x.game_value_mbb:9.3f} mbb  {spent:7.1f}s  {eta}")


def write_outputs(result: SolveResult, compile_seconds: float | None = 0.0) -> None:
    out = result.out_dir
    out.mkdir(parents=True, exist_ok=True)
    e = result.engine
    with atomic_write(out / "summary.json", "w") as f:
        f.write(json.dumps(_summary(result, compile_seconds), indent=2) + "\n")
    with atomic_write(out / "convergence.csv", "w") as f:
        writer = csv.writer(f)
        writer.writerow(["iteration", "seconds", "exploitability_mbb"])
        for i, s, x in result.convergence:
            writer.writerow([i, f"{s:.3f}", f"{x:.6g}"])
    if result.certified:
        with atomic_write(out / CERTIFIED_NAME, "w") as f:
            writer = csv.writer(f)
            writer.writerow(["iteration", "seconds", "exploitability_mbb"])
            for i, s, x in result.certified:
                writer.writerow([i, f"{s:.3f}", f"{x:.6g}"])
    elif (out / CERTIFIED_NAME).exists():  # a replaced run's
        (out / CERTIFIED_NAME).unlink()
    e.config.save(out / "config.toml")
    locks = e.locks
    if locks is not None:
        with atomic_write(out / LOCK_FILE_NAME, "w") as f:
            f.write(locks.lock_file.text)
        save_locked_pairs(locks, out / LOCK_PAIRS_NAME)
    else:
        for name in (LOCK_FILE_NAME, LOCK_PAIRS_NAME):  # a replaced locked run's
            if (out / name).exists():
                (out / name).unlink()
    x = result.exploitability
    save_strategy(out / STRATEGY_NAME, e.config, e.algorithm, result.iterations, e.tree, e.layout,
                  e.average_probability_chunks(), x.exploitability_mbb, x.game_value_mbb)
