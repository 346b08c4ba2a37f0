"""Seconds per iteration of the abstract-game solver, for before/after comparisons of the kernels.

    python scripts/bench/abstract_speed.py CAP ITERATIONS [BUCKETS [RULE]]

Triple draw at cap CAP, BUCKETS a round (default 32) and the recall RULE (default ``1d``: one
round and every draw count; ``2``: two rounds), all threads; two warm-up iterations, then
ITERATIONS timed. Run from a worktree of each side with its own
NUMBA_CACHE_DIR, alternating sides (see scripts/bench/NOTES.md).
"""
import dataclasses
import json
import sys
import time

sys.path.insert(0, ".")

from solver.cfr.abstract import AbstractEngine  # noqa: E402
from solver.game.config import load_preset  # noqa: E402

buckets = int(sys.argv[3]) if len(sys.argv) > 3 else 32
rule = sys.argv[4] if len(sys.argv) > 4 else "1d"
config = dataclasses.replace(load_preset("triple-draw"), cap=int(sys.argv[1]), buckets=(buckets,) * 4,
                             recall=int(rule.rstrip("d")), remember_draws=rule.endswith("d"),
                             storage_bits=32)
engine = AbstractEngine(config)
engine.run_iterations(2)
t0 = time.perf_counter()
engine.run_iterations(int(sys.argv[2]))
print(json.dumps({"s_per_it": (time.perf_counter() - t0) / int(sys.argv[2])}))
