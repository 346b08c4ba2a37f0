"""Warm starts measured: a fine abstraction begun from a coarse one's regrets against the fine one
from nothing, abstract and certified exploitability against iterations and solving seconds (the
coarse run's included).

    python scripts/bench/warm_start.py --preset double-draw --cap 4 --coarse 16:2 --coarse-iterations 40 \
        --fine 64:2 --at 50 60 80 100 --out /tmp/warm_start.jsonl

Points are abstractions as in ``frontier.py`` (``BUCKETS:RULE``, the same rule for both). The
cold run is checked at the same iterations counted from its start, so rows with equal
iterations compare the same number of fine iterations plus the coarse ones; compare by
``solving_seconds`` for what the warm start cost.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from frontier import parse_point  # noqa: E402


def _row(out: Path, **row) -> None:
    with out.open("a") as f:
        f.write(json.dumps(row) + "\n")
    print(json.dumps(row), file=sys.stderr, flush=True)


def run(preset: str, cap: int | None, coarse: str, coarse_iterations: int, fine: str, at: list[int],
        out: Path) -> None:
    from solver.cfr.solve import make_engine, solve
    from solver.cfr.warm import warm_start
    from solver.game.config import load_preset

    base = load_preset(preset)
    if cap is not None:
        base = dataclasses.replace(base, cap=cap)
    coarse_config = dataclasses.replace(base, **parse_point(coarse, base.rounds))
    fine_config = dataclasses.replace(base, **parse_point(fine, base.rounds))
    out.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        solved = solve(coarse_config, iterations=coarse_iterations, out_dir=Path(tmp) / "coarse", streamed=True)
        _row(out, run="coarse", game=coarse_config.describe(), iterations=coarse_iterations,
             solving_seconds=round(solved.seconds, 1), abstract_mbb=solved.progress.exploitability_mbb,
             certified_mbb=solved.exploitability.exploitability_mbb)
        del solved
        for name in ("warm", "cold"):
            engine = make_engine(fine_config, streamed=True)
            solving = 0.0
            if name == "warm":
                solving = warm_start(engine, Path(tmp) / "coarse").seconds
            for target in sorted(at):
                goal = target if name == "warm" else target - coarse_iterations
                t0 = time.perf_counter()
                engine.run_iterations(max(goal - engine.iteration, 0))
                solving += time.perf_counter() - t0
                abstract = engine.progress_exploitability()
                certified = engine.exploitability()
                _row(out, run=name, game=fine_config.describe(), iterations=engine.iteration,
                     solving_seconds=round(solving, 1), abstract_mbb=abstract.exploitability_mbb,
                     certified_mbb=certified.exploitability_mbb)
            del engine


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="double-draw")
    parser.add_argument("--cap", type=int)
    parser.add_argument("--coarse", default="16:2")
    parser.add_argument("--coarse-iterations", type=int, default=40)
    parser.add_argument("--fine", default="64:2")
    parser.add_argument("--at", nargs="+", type=int, default=[50, 60, 80, 100])
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    run(args.preset, args.cap, args.coarse, args.coarse_iterations, args.fine, args.at, args.out)


if __name__ == "__main__":
    main()
