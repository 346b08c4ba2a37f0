"""Seconds of a run of iterations of the triple-draw preset (16-bit storage) from a saved state,
with the thread-seconds of each phase: an ABBA of two builds on the same regrets, later in a solve
than ``cap4_phases.py``'s first iterations.

    python scripts/bench/proxy_iterations.py [--cap 2] [--at 40] [--iterations 8] [--source DIR]

The state after ``--at`` iterations is saved once (``runs/proxy-iterations-capC-N.npz``) and
loaded by every later run, so each build walks the same regrets; one untimed iteration (compiling)
comes before the timed ones. ``--source`` runs another tree's solver (a ``git worktree`` of an older
commit). Give each build its own ``NUMBA_CACHE_DIR``, made fresh: a kernel's cached callers keep
the code of the callees they were compiled with, so one cache across builds can time the wrong
code. Prints one JSON line.
"""
import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--cap", type=int, default=2)
parser.add_argument("--at", type=int, default=40, help="iterations before the timed ones (saved once)")
parser.add_argument("--iterations", type=int, default=8)
parser.add_argument("--source", default=str(ROOT))
args = parser.parse_args()
if args.cap < 1 or args.at < 1 or args.iterations < 1:
    parser.error("--cap, --at and --iterations are at least 1")
sys.path.insert(0, args.source)

import numpy as np  # noqa: E402

from solver.cfr import kernels  # noqa: E402
from solver.cfr.solve import make_engine  # noqa: E402
from solver.game.config import load_preset  # noqa: E402
from phase_timer import time_phases  # noqa: E402  (scripts/bench: this script's folder)

config = dataclasses.replace(load_preset("triple-draw"), cap=args.cap)
engine = make_engine(config)
state = ROOT / "runs" / f"proxy-iterations-cap{args.cap}-{args.at}.npz"
if state.exists():
    saved = np.load(state)
    engine.load_storage(saved["regret"], saved["strat_sum"], (saved["regret_scale"], saved["sum_scale"]))
    engine.iteration = args.at
else:
    engine.run_iterations(args.at)
    storage = engine.storage
    state.parent.mkdir(exist_ok=True)
    np.savez(state, regret=storage.regret, strat_sum=storage.strat_sum, regret_scale=storage.regret_scale,
             sum_scale=storage.sum_scale)
engine.run_iterations(1)   # (compiling)
seconds = time_phases(engine, kernels)
t0 = time.perf_counter()
engine.run_iterations(args.iterations)
wall = time.perf_counter() - t0
print(json.dumps({"source": args.source, "cap": args.cap, "iterations": f"{args.at + 2} to {args.at + 1 + args.iterations}",
                  "seconds": round(wall, 2), **{k: round(v, 2) for k, v in sorted(seconds.items())}}), flush=True)
