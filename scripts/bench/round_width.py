"""Seconds per iteration of the triple-draw preset (cap 4) with each round's vectors as wide as its
buckets (and every later round's) against the whole padded width (the most buckets of any round),
in one process on one engine: iterations alternate the two in ABBA order after the first
ITERATIONS_BEFORE (compiling and the first, slowest iterations), so both see the same storage.

    python scripts/bench/round_width.py [--pairs 6] [--before 2] [--cap 4] [--out FILE]

Prints one JSON line (and writes it to FILE): each iteration's seconds and mode, and the mean of
each mode.
"""
import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from solver.cfr.solve import make_engine  # noqa: E402
from solver.game.config import load_preset  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--pairs", type=int, default=6, help="pairs of iterations (one of each mode)")
parser.add_argument("--before", type=int, default=2, help="iterations first, not counted")
parser.add_argument("--cap", type=int, default=4)
parser.add_argument("--out", help="also write the JSON line here")
args = parser.parse_args()

config = dataclasses.replace(load_preset("triple-draw"), cap=args.cap)
t0 = time.perf_counter()
engine = make_engine(config)
setup = time.perf_counter() - t0
narrow = engine.arrays.draws
full = np.full(len(narrow.round_states), int(narrow.legal.shape[1]), np.int64)
modes = {"narrow": narrow, "padded": narrow._replace(round_states=full, round_width=full)}
before = []
for _ in range(args.before):
    t0 = time.perf_counter()
    engine.run_iterations(1)
    before.append(round(time.perf_counter() - t0, 2))
rows = []
for i in range(2 * args.pairs):
    mode = ("padded", "narrow", "narrow", "padded")[i % 4]
    engine.arrays = engine.arrays._replace(draws=modes[mode])
    t0 = time.perf_counter()
    engine.run_iterations(1)
    rows.append({"iteration": engine.iteration, "mode": mode, "seconds": round(time.perf_counter() - t0, 2)})
mean = {m: round(float(np.mean([r["seconds"] for r in rows if r["mode"] == m])), 2) for m in modes}
result = {"game": config.describe(), "round_states": [int(x) for x in narrow.round_states],
          "round_width": [int(x) for x in narrow.round_width], "setup_seconds": round(setup, 1),
          "first_iterations_seconds": before, "iterations": rows, "mean_seconds": mean,
          "padded_over_narrow": round(mean["padded"] / mean["narrow"], 3)}
print(json.dumps(result))
if args.out:
    Path(args.out).write_text(json.dumps(result, indent=1) + "\n")
