"""What card buckets cost: exploitability at full resolution against the number of buckets.

    python scripts/bench/bench_buckets.py                        # double draw, cap 2: table, plot, CSV
    python scripts/bench/bench_buckets.py --redraw results/benchmarks/buckets.json   # the chart only
    python scripts/bench/bench_buckets.py --cap 1 --iterations 500 --buckets 16 64 256

Each game is solved with the same number of DCFR iterations; its average
strategy is then measured by an exact best response that sees value classes
(the bucketed engine expands bucket strategies to classes, so the best
response is the full-resolution one). The full-resolution solve, run the same
number of iterations, is the last row: bucketed rows above it show what
sharing strategies within buckets costs, plus convergence not yet reached.

Writes results/buckets/buckets.csv and exploitability_vs_buckets.png/svg;
``--json`` prints the figures for BENCHMARKS.md (run_all.py).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from abstractions.evaluator import get_evaluator  # noqa: E402
from solver.tables.charts import save_figure  # noqa: E402
from solver.game.config import load_preset  # noqa: E402
from solver.cfr.engine import Engine  # noqa: E402
from solver.game.plan import BYTES_PER_ENTRY  # noqa: E402

OUT = ROOT / "results" / "buckets"


def measure(config, iterations: int, checks: list[int]) -> dict:
    engine = Engine(config)
    start = time.perf_counter()
    curve = []
    for target in sorted(set(checks + [iterations])):
        engine.run_iterations(target - engine.iteration)
        x = engine.exploitability()
        curve.append((target, x.exploitability_mbb))
    seconds = time.perf_counter() - start
    return {
        "buckets_per_round": list(engine.layout.row_width.tolist()),
        "storage_entries": engine.layout.n_entries,
        "storage_bytes": engine.layout.n_entries * BYTES_PER_ENTRY,
        "iterations": iterations,
        "exploitability_mbb": curve[-1][1],
        "game_value_mbb": x.game_value_mbb,
        "seconds": seconds,
        "curve": curve,
    }


def plot(rows: list[dict], full: dict, path: Path, title: str) -> list[Path]:
    fig, ax = plt.subplots(figsize=(7, 4.5), constrained_layout=True)
    checks = [it for it, _ in full["curve"]]
    colours = plt.cm.viridis([0.15 + 0.7 * i / max(len(checks) - 1, 1) for i in range(len(checks))])
    xs = [r["buckets"] for r in rows]
    for i, (it, colour) in enumerate(zip(checks, colours)):
        ys = [r["curve"][i][1] for r in rows]
        ax.plot(xs, ys, marker="o", color=colour, label=f"after {it:,} iterations")
        ax.axhline(full["curve"][i][1], color=colour, linestyle="--", linewidth=1)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xticks(xs)
    ax.set_xticklabels([str(x) for x in xs])
    ax.set_xlabel("buckets per betting round")
    ax.set_ylabel("exploitability at full resolution (mbb/hand)")
    ax.grid(True, which="both", alpha=0.3)
    ax.plot([], [], color="grey", linestyle="--", label=f"full resolution ({full['buckets']:,} classes)")
    ax.legend()
    ax.set_title(title)
    return save_figure(fig, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="double-draw")
    parser.add_argument("--cap", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=250)
    parser.add_argument("--buckets", type=int, nargs="+", default=[4, 8, 16, 32, 64, 128, 256, 512])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--redraw", metavar="JSON",
                        help="only draw the chart again from a run's --json output (results/benchmarks/buckets.json)")
    args = parser.parse_args(argv)
    if args.redraw:
        report = json.loads(Path(args.redraw).read_text())
        plot(report["rows"], report["full"], OUT / "exploitability_vs_buckets",
             f"What card buckets cost\n{report['game']}")
        print(f"redrew {OUT / 'exploitability_vs_buckets'}.png and .svg from {args.redraw}", file=sys.stderr)
        return 0
    base = dataclasses.replace(load_preset(args.preset), cap=args.cap, buckets=())
    checks = [args.iterations // 5, args.iterations]
    rows = []
    for k in args.buckets:
        print(f"{k} buckets per round ...", file=sys.stderr, flush=True)
        row = measure(dataclasses.replace(base, buckets=(k,) * base.rounds), args.iterations, checks)
        rows.append({"buckets": k, **row})
    print("full resolution ...", file=sys.stderr, flush=True)
    n_classes = get_evaluator(base.ranks, base.suits, base.hand_size).n_values
    full = {"buckets": int(n_classes), **measure(base, args.iterations, checks)}
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "buckets.csv", "w", newline="") as f:
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(["buckets_per_round", "storage_entries", "storage_mib", "iterations",
                         "exploitability_mbb", "game_value_mbb", "seconds"])
        for r in rows + [full]:
            label = r["buckets"] if r is not full else f"full ({r['buckets']})"
            writer.writerow([label, r["storage_entries"], f"{r['storage_bytes'] / 2**20:.1f}", r["iterations"],
                             f"{r['exploitability_mbb']:.4f}", f"{r['game_value_mbb']:.3f}", f"{r['seconds']:.1f}"])
    title = f"What card buckets cost\n{base.describe()}"
    plot(rows, full, OUT / "exploitability_vs_buckets", title)
    import numba

    report = {"game": base.describe(), "iterations": args.iterations, "rows": rows, "full": full,
              "threads": numba.get_num_threads(), "date": time.strftime("%Y-%m-%d")}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"{'buckets':>10} {'storage MiB':>12} {'exploitability':>15} {'value':>9} {'seconds':>8}")
        for r in rows + [full]:
            print(f"{r['buckets']:>10} {r['storage_bytes'] / 2**20:>12.1f} {r['exploitability_mbb']:>15.3f} "
                  f"{r['game_value_mbb']:>9.2f} {r['seconds']:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
