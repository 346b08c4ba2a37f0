"""Milliseconds per single-draw iteration (the default preset), the best of 5 loops of 40, with
the kernels of a given source tree (for a before/after: another commit's ``git archive``).

    python scripts/bench/iteration_time.py [--source DIR] [--threads 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--source", default=str(Path(__file__).resolve().parents[2]))
parser.add_argument("--threads", type=int, default=2)
args = parser.parse_args()
sys.path.insert(0, args.source)

import numba  # noqa: E402

from solver.cfr.engine import Engine  # noqa: E402
from solver.game.config import load_preset  # noqa: E402

numba.set_num_threads(args.threads)
engine = Engine(load_preset("single-draw"))
engine.run_iterations(3)  # compiled or loaded, and the tables touched
loops = []
for _ in range(5):
    start = time.perf_counter()
    engine.run_iterations(40)
    loops.append((time.perf_counter() - start) / 40)
print(f"{args.source}, {args.threads} thread(s): best {1000 * min(loops):.2f} ms an iteration, "
      f"median {1000 * sorted(loops)[2]:.2f}")
