"""No engine slower after the redesign (issue 58): the same work timed with two source trees in
ABBA order (before, after, after, before), each run a fresh process with its tree's own Numba
cache, its kernels compiled (or loaded) before anything is timed.

    git worktree add /tmp/before 8f55867
    python scripts/bench/redesign_abba.py --before /tmp/before --what single-draw cap2 cap4 --json

``single-draw``: the default preset solved to 0.1 mbb/hand (the solve's own seconds, checks
included); ``cap2``: triple draw at cap 2 in the triple-draw preset's abstraction, float32
storage, seconds of iterations 2 to 4; ``cap4``: the triple-draw preset itself (16-bit storage),
seconds of iterations 2 and 3 (about 14 GiB; set-up minutes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CODE = {
    "single-draw": """
from solver.cfr.solve import solve
from solver.game.config import load_preset
solve(load_preset("single-draw"), iterations=3)   # compiled (or loaded) before timing
print(solve(load_preset("single-draw"), target_mbb=0.1).seconds)
""",
    "cap2": """
import dataclasses, time
from solver.cfr.solve import make_engine
from solver.game.config import load_preset
from solver.game.setup import GameSetup
config = dataclasses.replace(load_preset("triple-draw"), cap=2, storage_bits=32)
engine = make_engine(GameSetup(config, streamed=True), streamed=True)
engine.run_iterations(1)
t0 = time.perf_counter()
engine.run_iterations(3)
print(time.perf_counter() - t0)
""",
    "cap4": """
import time
from solver.cfr.solve import make_engine
from solver.game.config import load_preset
from solver.game.setup import GameSetup
engine = make_engine(GameSetup(load_preset("triple-draw"), streamed=True), streamed=True)
engine.run_iterations(1)
t0 = time.perf_counter()
engine.run_iterations(2)
print(time.perf_counter() - t0)
""",
}


def run(source: Path, what: str) -> float:
    env = {**os.environ, "PYTHONPATH": str(source), "NUMBA_CACHE_DIR": str(source / ".cache" / "numba-abba")}
    out = subprocess.run([sys.executable, "-c", CODE[what]], cwd=source, env=env, capture_output=True, text=True)
    if out.returncode:
        raise SystemExit(f"{what} with {source} failed:\n{out.stderr[-2000:]}")
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, help="the source tree before (a worktree of the older commit)")
    parser.add_argument("--after", default=str(ROOT), help="the source tree after (default: this one)")
    parser.add_argument("--what", nargs="+", choices=sorted(CODE), default=["single-draw", "cap2"])
    parser.add_argument("--json", action="store_true", help="write results/benchmarks/redesign_abba.json")
    args = parser.parse_args()
    trees = {"before": Path(args.before).resolve(), "after": Path(args.after).resolve()}
    for name, tree in trees.items():
        if not (tree / "solver" / "cfr").is_dir():
            raise SystemExit(f"--{name} {tree}: not a source tree of this project")
    results = {}
    for what in args.what:
        seconds = {"before": [], "after": []}
        for name in ("before", "after", "after", "before"):
            t = run(trees[name], what)
            seconds[name].append(t)
            print(f"{what}: {name} {t:.2f} s", flush=True)
        mean = {k: sum(v) / len(v) for k, v in seconds.items()}
        results[what] = {"seconds": seconds, "after_over_before": mean["after"] / mean["before"]}
        print(f"{what}: before {mean['before']:.2f} s, after {mean['after']:.2f} s, "
              f"after/before {mean['after'] / mean['before']:.3f}", flush=True)
    if args.json:
        path = ROOT / "results" / "benchmarks" / "redesign_abba.json"
        commits = {name: subprocess.run(["git", "-C", str(tree), "rev-parse", "--short", "HEAD"], capture_output=True,
                                        text=True).stdout.strip() or "unknown" for name, tree in trees.items()}
        path.write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), **commits, "results": results}, indent=1) + "\n")
        print(f"written {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
