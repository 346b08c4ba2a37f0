"""Seconds per iteration of the abstract-game solver, for before/after comparisons of the kernels.

    python scripts/bench/abstract_speed.py CAP ITERATIONS

Triple draw at cap CAP, recall 1 with every draw count, 32 buckets a round, all threads; two
warm-up iterations, then ITERATIONS timed. Run from a worktree of each side with its own
NUMBA_CACHE_DIR, alternating sides (see scripts/bench/NOTES.md).
"""
import dataclasses
import json
import sys
import time

sys.path.insert(0, ".")

from solver.cfr.abstract import AbstractEngine  # noqa: E402
from solver.game.config import load_preset  # noqa: E402

config = dataclasses.replace(load_preset("triple-draw"), cap=int(sys.argv[1]), buckets=(32, 32, 32, 32), recall=1,
                             remember_draws=True)
engine = AbstractEngine(config)
engine.run_iterations(2)
t0 = time.perf_counter()
engine.run_iterations(int(sys.argv[2]))
print(json.dumps({"s_per_it": (time.perf_counter() - t0) / int(sys.argv[2])}))
