"""What a walk over the key graph could save: the parts of an abstract iteration that merging shares.

    python scripts/bench/key_graph.py --cap 1 --iterations 3

A walk that merged the histories of one key state would still do, for each history, the vector
arithmetic over buckets (its own reach in, its own values back: see BENCHMARKS.md, "Key states");
what it would do once per key state instead of once per history is the per-node work and the
traffic of the slot's storage rows. This measures both on triple draw at cap ``--cap`` with full
(unpruned) walks, so every iteration walks the same nodes:

- *per node against per entry*: seconds per iteration with 8, 32 and 64 buckets a round
  (recall 1 and every draw, all threads): the intercept of a line through them is the work per
  node, whatever the width;
- *storage traffic*: seconds per iteration on one thread with the preset's rule (30 million
  entries at 32 buckets and cap 1) against a rule whose whole storage fits in cache (recall 0,
  nothing kept: 11,488 entries), alternated (ABAB). The difference is what reading and writing
  the storage rows costs.

Prints a table; ``--json`` for the record.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def one(cap: int, buckets: int, recall: int, draws: bool, iterations: int) -> dict:
    from solver.cfr.abstract import AbstractEngine
    from solver.game.config import load_preset

    config = dataclasses.replace(load_preset("triple-draw"), cap=cap, buckets=(buckets,) * 4, recall=recall,
                                 remember_draws=draws, storage_bits=32)
    engine = AbstractEngine(config, pruned=False)
    engine.run_iterations(1)
    t0 = time.perf_counter()
    engine.run_iterations(iterations)
    return {"game": config.describe(), "buckets": buckets, "recall": recall, "remember_draws": draws,
            "entries": int(engine.layout.n_entries), "seconds_per_iteration": (time.perf_counter() - t0) / iterations}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cap", type=int, default=1)
    parser.add_argument("--iterations", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        b, recall, draws, its = args.one
        print(json.dumps(one(args.cap, int(b), int(recall), draws == "1", int(its))))
        return 0
    its = str(args.iterations)
    widths = [_in_process_cap(args.cap, [str(b), "1", "1", its], None) for b in (8, 32, 64)]
    traffic = []
    for _ in range(2):
        traffic.append(_in_process_cap(args.cap, ["32", "1", "1", its], 1))
        traffic.append(_in_process_cap(args.cap, ["32", "0", "0", its], 1))
    # a least-squares line through (width, seconds)
    xs = [w["buckets"] for w in widths]
    ys = [w["seconds_per_iteration"] for w in widths]
    mx, my = sum(xs) / 3, sum(ys) / 3
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    intercept = my - slope * mx
    big = [t["seconds_per_iteration"] for t in traffic if t["recall"] == 1]
    small = [t["seconds_per_iteration"] for t in traffic if t["recall"] == 0]
    data = {"cap": args.cap, "date": time.strftime("%Y-%m-%d"),
            "command": "python scripts/bench/key_graph.py " + " ".join(argv or sys.argv[1:]),
            "widths": widths, "traffic": traffic, "per_node_seconds": intercept, "per_bucket_seconds": slope,
            "storage_share_one_thread": 1 - (sum(small) / len(small)) / (sum(big) / len(big))}
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    print(f"triple draw cap {args.cap}, full walks")
    for w in widths:
        print(f"  {w['buckets']:3d} buckets (recall 1, every draw): {w['seconds_per_iteration']:.3f} s/iteration")
    print(f"  line: {intercept:.3f} s per iteration whatever the width + {slope * 1000:.2f} ms per bucket")
    for t in traffic:
        print(f"  one thread, {t['entries']:,} entries: {t['seconds_per_iteration']:.3f} s/iteration")
    print(f"  storage traffic: {data['storage_share_one_thread']:.0%} of a one-thread iteration")
    return 0


def _in_process_cap(cap: int, args: list[str], threads: int | None) -> dict:
    env = dict(os.environ, **({"NUMBA_NUM_THREADS": str(threads)} if threads else {}))
    out = subprocess.run([sys.executable, __file__, "--cap", str(cap), "--one", *args], env=env, check=True,
                         capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


if __name__ == "__main__":
    sys.exit(main())
