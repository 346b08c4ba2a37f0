"""Loading a solved strategy and answering one policy() call: seconds and peak memory, this
checkout against an earlier commit.

    python scripts/bench/bench_load.py --before 74a7de1                   # double draw
    python scripts/bench/bench_load.py --before 74a7de1 --preset single-draw --runs 3

Each side solves the preset for one iteration into a scratch folder with its own
code (the earlier commit in a temporary git worktree, run with this Python
environment), then loads the strategy and answers one ``policy()`` call in a
fresh process; the two sides alternate ``--runs`` times. Peak memory is the
process's ``ru_maxrss``. A double-draw solve needs about 10 GiB and each side's
files about 14 GB of scratch disk. Prints a table; ``--json`` for run_all.py.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

MEASURE = """
import json, resource, sys, time
start = time.perf_counter()
from solver import load_strategy
strategy = load_strategy(sys.argv[1])
loaded = time.perf_counter()
policy = strategy.policy(sys.argv[2], sys.argv[3])
answered = time.perf_counter()
print(json.dumps({"load_seconds": loaded - start, "policy_seconds": answered - loaded,
                  "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024, "policy": policy}))
"""


def _run(code_root: Path, args: list[str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(code_root))
    return subprocess.run([sys.executable, *args], cwd=code_root, env=env, capture_output=True, text=True, check=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--before", required=True, help="the earlier commit to compare with")
    parser.add_argument("--preset", default="double-draw")
    parser.add_argument("--history", default="ck/")
    parser.add_argument("--hand", default="7h5d4d3s")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    scratch = Path(tempfile.mkdtemp(prefix="bench-load-"))
    worktree = scratch / "before-code"
    try:
        subprocess.run(["git", "worktree", "add", "--detach", str(worktree), args.before], cwd=ROOT, check=True,
                       capture_output=True)
        sides = {"before": worktree, "after": ROOT}
        for name, code in sides.items():
            print(f"{name}: solving {args.preset} for one iteration", file=sys.stderr, flush=True)
            _run(code, ["-m", "solver.cli", "solve", "--preset", args.preset, "--iterations", "1", "--no-charts",
                        "--quiet", "--out", str(scratch / name)])
            (scratch / name / "checkpoint.npz").unlink()  # only the strategy is read; free the disk
        runs = {name: [] for name in sides}
        for _ in range(args.runs):
            for name, code in sides.items():
                out = _run(code, ["-c", MEASURE, str(scratch / name), args.history, args.hand])
                runs[name].append(json.loads(out.stdout.strip().splitlines()[-1]))
        result = {"preset": args.preset, "before_commit": args.before, "history": args.history, "hand": args.hand,
                  "date": time.strftime("%Y-%m-%d"),
                  "strategy_bytes": {n: (scratch / n / "strategy.npz").stat().st_size for n in sides},
                  "runs": runs}
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, capture_output=True)
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{args.preset}: load_strategy + policy({args.history!r}, {args.hand!r}), {args.before} against now")
    for name, rows in result["runs"].items():
        for r in rows:
            print(f"  {name:<6} load {r['load_seconds']:6.2f} s  policy {r['policy_seconds']:7.4f} s  "
                  f"peak {r['peak_rss_bytes'] / 2**20:8.1f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
