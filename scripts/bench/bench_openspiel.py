"""Our CFR against OpenSpiel's CFR+ on the same tiny Badugi model game (needs open-spiel).

    pip install -e '.[bench]'
    python scripts/bench/bench_openspiel.py --preset tiny-single-draw --target 0.1

The game (scripts/bench/openspiel_game.py) is exported once to Gambit EFG and
loaded as a native C++ game, so OpenSpiel's C++ CFR+ runs at full speed (its
cost on the Python game object, which calls back into Python at every state,
is reported too). Both solvers iterate until exploitability is at most the
target; only iteration time counts (exploitability checks are excluded), and
both game values are reported.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent.parent))
sys.path.insert(0, str(HERE))


def run_openspiel(config, target_mbb: float, max_iterations: int, check_every: int) -> dict:
    import pyspiel

    from openspiel_game import make_game, to_efg

    game = make_game(config)
    t0 = time.perf_counter()
    native = pyspiel.load_efg_game(to_efg(game))
    export_seconds = time.perf_counter() - t0
    solver = pyspiel.CFRPlusSolver(native)
    seconds, iterations, exploit = 0.0, 0, float("inf")
    while iterations < max_iterations and exploit > target_mbb:
        t0 = time.perf_counter()
        for _ in range(check_every):
            solver.evaluate_and_update_policy()
        seconds += time.perf_counter() - t0
        iterations += check_every
        exploit = 1000.0 * pyspiel.exploitability(native, solver.average_policy())
    value = pyspiel.expected_returns(native.new_initial_state(), solver.average_policy(), -1, True)[0]
    # The same CFR+ on the Python game object: a few iterations for its per-iteration cost.
    slow = pyspiel.CFRPlusSolver(game)
    t0 = time.perf_counter()
    for _ in range(3):
        slow.evaluate_and_update_policy()
    python_game_seconds_per_iteration = (time.perf_counter() - t0) / 3
    return {"solver": "OpenSpiel CFR+ (C++, native EFG game)", "iterations": iterations, "seconds": seconds,
            "exploitability_mbb": exploit, "game_value_mbb": 1000.0 * value, "export_seconds": export_seconds,
            "python_game_seconds_per_iteration": python_game_seconds_per_iteration}


def run_ours(config, algorithm: str, target_mbb: float, max_iterations: int, check_every: int) -> dict:
    from solver.cfr.engine import Engine

    engine = Engine(config, algorithm)
    engine.run_iterations(1)  # load kernels before timing
    engine = Engine(config, algorithm)
    seconds, exploit = 0.0, float("inf")
    while engine.iteration < max_iterations and exploit > target_mbb:
        t0 = time.perf_counter()
        engine.run_iterations(check_every)
        seconds += time.perf_counter() - t0
        x = engine.exploitability()
        exploit = x.exploitability_mbb
    return {"solver": f"ours, {algorithm}", "iterations": engine.iteration, "seconds": seconds,
            "exploitability_mbb": exploit, "game_value_mbb": x.game_value_mbb}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="tiny-single-draw")
    parser.add_argument("--target", type=float, default=0.1, help="exploitability target, mbb/hand")
    parser.add_argument("--max-iterations", type=int, default=20_000)
    parser.add_argument("--check-every", type=int, default=10)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    from solver.game.config import load_preset

    config = load_preset(args.preset)
    rows = [run_openspiel(config, args.target, args.max_iterations, args.check_every)]
    for algorithm in ("dcfr", "cfr+"):
        rows.append(run_ours(config, algorithm, args.target, args.max_iterations, args.check_every))
    base = rows[0]["seconds"]
    for row in rows:
        row["speedup_vs_openspiel"] = base / row["seconds"] if row["seconds"] > 0 else float("inf")
    result = {"game": config.describe(), "target_mbb": args.target, "runs": rows}
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['game']}: to {args.target} mbb/hand")
        print(f"{'solver':<40}{'iter':>7}{'seconds':>10}{'mbb/hand':>10}{'value mbb':>11}{'speedup':>9}")
        for r in rows:
            print(f"{r['solver']:<40}{r['iterations']:>7}{r['seconds']:>10.3f}{r['exploitability_mbb']:>10.4f}"
                  f"{r['game_value_mbb']:>11.4f}{r['speedup_vs_openspiel']:>9.0f}")
        print(f"OpenSpiel CFR+ on the Python game object: {rows[0]['python_game_seconds_per_iteration']:.2f} s "
              f"per iteration (EFG export {rows[0]['export_seconds']:.1f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
