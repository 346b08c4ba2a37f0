"""The discount schedules side by side in the first iterations of an abstract game: abstract and
certified exploitability at the same iterations, and solving seconds.

    python scripts/bench/schedules.py --preset double-draw --cap 4 --point 64:2 \
        --algorithms dcfr-ramp dcfr linear cfr+ --at 10 20 40 80 --out /tmp/schedules.jsonl

At cap 4 a 2.5-hour solve buys about 80 iterations (110 s each for triple draw in 64 buckets,
recall 2), so what counts there is how far each schedule gets in its first tens of iterations,
not at convergence. ``--point`` is an abstraction as in ``frontier.py`` (``BUCKETS:RULE``); each
algorithm solves it in its abstract game (pruned walks), checked at each ``--at`` iteration.
Every check is one JSON line of ``--out``; ``table`` prints them as Markdown.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from frontier import parse_point  # noqa: E402


def run(preset: str, cap: int | None, point: str, algorithms: list[str], at: list[int], out: Path) -> None:
    from solver.cfr.solve import make_engine
    from solver.game.config import load_preset

    base = load_preset(preset)
    if cap is not None:
        base = dataclasses.replace(base, cap=cap)
    config = dataclasses.replace(base, **parse_point(point, base.rounds))
    out.parent.mkdir(parents=True, exist_ok=True)
    for algorithm in algorithms:
        engine = make_engine(config, algorithm, streamed=True)
        solving = 0.0
        for target in sorted(at):
            t0 = time.perf_counter()
            engine.run_iterations(target - engine.iteration)
            solving += time.perf_counter() - t0
            abstract = engine.progress_exploitability()
            certified = engine.exploitability()
            row = {"game": config.describe(), "point": point, "algorithm": algorithm, "iterations": target,
                   "solving_seconds": round(solving, 1), "abstract_mbb": abstract.exploitability_mbb,
                   "certified_mbb": certified.exploitability_mbb}
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(json.dumps(row), file=sys.stderr, flush=True)
        del engine


def table(path: Path) -> str:
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    its = sorted({r["iterations"] for r in rows})
    algorithms = list(dict.fromkeys(r["algorithm"] for r in rows))
    lines = ["| algorithm | " + " | ".join(f"{i} it: abstract / certified" for i in its) + " |",
             "|---|" + "---:|" * len(its)]
    for a in algorithms:
        cells = []
        for i in its:
            r = [x for x in rows if x["algorithm"] == a and x["iterations"] == i]
            cells.append(f"{r[-1]['abstract_mbb']:.1f} / {r[-1]['certified_mbb']:.1f}" if r else "")
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command")
    r = sub.add_parser("run")
    r.add_argument("--preset", default="double-draw")
    r.add_argument("--cap", type=int)
    r.add_argument("--point", default="64:2")
    r.add_argument("--algorithms", nargs="+", default=["dcfr-ramp", "dcfr", "linear", "cfr+"])
    r.add_argument("--at", nargs="+", type=int, default=[10, 20, 40, 80])
    r.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("table")
    t.add_argument("path", type=Path)
    args = parser.parse_args()
    if args.command == "run":
        run(args.preset, args.cap, args.point, args.algorithms, args.at, args.out)
    elif args.command == "table":
        print(table(args.path))
    else:
        parser.print_help()


if __name__ == "__main__":
    main()
