"""Seconds per iteration and memory of the triple-draw preset's abstraction of 2026-12-03 (buckets
64/64/40/32, where both storages fit; today's 64 a round needs 26.7 GiB in float32) with 32-bit
and with 16-bit storage.

    python scripts/bench/cap4_storage.py 32 3     # then: python scripts/bench/cap4_storage.py 16 3

One process per storage (both would not fit at once): the engine's set-up, then ITERATIONS
iterations each timed (the first compiles), the bytes its storage takes, and the process's peak
resident memory. Prints one JSON line.
"""
import dataclasses
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from solver.cfr.solve import make_engine  # noqa: E402
from solver.game.config import load_preset  # noqa: E402

bits, iterations = int(sys.argv[1]), int(sys.argv[2])
config = dataclasses.replace(load_preset("triple-draw"), buckets=(64, 64, 40, 32), storage_bits=bits)
t0 = time.perf_counter()
engine = make_engine(config)
setup = time.perf_counter() - t0
times = []
for _ in range(iterations):
    t0 = time.perf_counter()
    engine.run_iterations(1)
    times.append(round(time.perf_counter() - t0, 1))
storage = (engine.storage_bytes if bits == 16 else engine.regret.nbytes + engine.strat_sum.nbytes
           + engine._delta.nbytes)
print(json.dumps({"game": config.describe(), "storage_bits": bits, "setup_seconds": round(setup, 1),
                  "iteration_seconds": times, "entries": int(engine.layout.n_entries),
                  "storage_bytes_per_entry": round(storage / engine.layout.n_entries, 3),
                  "planned_bytes": int(engine.plan.bytes),
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
