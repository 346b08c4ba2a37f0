"""Where a cap-4 iteration of the triple-draw preset (16-bit storage) spends its time: per
iteration, the wall seconds and the thread-seconds (summed over the walking threads) of decoding
the groups' 16-bit rows, encoding them back, and walking the cut subtrees, and the main thread's
seconds of the storage's discount passes.

    python scripts/bench/cap4_phases.py [--iterations 4] [--before 2] [--source DIR] [--buckets 256/256/192/24]

The first ``--before`` iterations (compiling, and the cheapest, most pruned walks) are run
untimed. ``--source`` runs another tree's solver (a ``git worktree`` of an older commit) for a
before/after. ``--buckets`` times the preset with another spread of card buckets (one count a
round). Prints one JSON line per iteration.
"""
import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--iterations", type=int, default=4)
parser.add_argument("--before", type=int, default=2)
parser.add_argument("--source", default=str(Path(__file__).resolve().parents[2]))
parser.add_argument("--buckets", help="one count a round, e.g. 256/256/192/24 (default: the preset's)")
args = parser.parse_args()
sys.path.insert(0, args.source)

from solver.cfr import kernels  # noqa: E402
from solver.cfr.solve import make_engine  # noqa: E402
from solver.game.config import load_preset  # noqa: E402
from phase_timer import time_phases  # noqa: E402  (scripts/bench: this script's folder)

config = load_preset("triple-draw")
if args.buckets:
    config = dataclasses.replace(config, buckets=tuple(int(b) for b in args.buckets.split("/")))
t0 = time.perf_counter()
engine = make_engine(config)
print(json.dumps({"buckets": list(config.buckets), "build_seconds": round(time.perf_counter() - t0, 1)}), flush=True)
engine.run_iterations(args.before)
seconds = time_phases(engine, kernels)
for _ in range(args.iterations):
    seconds.clear()
    t0 = time.perf_counter()
    engine.run_iterations(1)
    wall = time.perf_counter() - t0
    print(json.dumps({"iteration": engine.iteration, "seconds": round(wall, 2),
                      **{k: round(v, 2) for k, v in sorted(seconds.items())}}), flush=True)
