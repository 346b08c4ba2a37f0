"""Simulator speed: hands per second on one core, compile excluded.

    python scripts/bench/bench_simulator.py            # 2,000,000 hands a pairing
    python scripts/bench/bench_simulator.py --json

Simple players (rule, station, random) in single and triple draw, and the
solved single-draw strategy (runs/single-draw, if solved) against the rule
player. Target: at least 100,000 hands per second per core for simple players.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from solver.game.config import load_preset  # noqa: E402
from solver.arena.match import MatchGame, load_player, play_match  # noqa: E402


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=2_000_000)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    t = time.perf_counter()
    play_match(load_preset("tiny-single-draw"), "rule", "random", hands=10, seed=0)  # compile or load
    first_call = time.perf_counter() - t
    # Real Badugi (triple draw, cap 4) is played without a built tree: its kernels too, untimed.
    play_match(load_preset("triple-draw"), "rule", "random", hands=10, seed=0)
    pairings = [("single-draw", "rule", "random"), ("single-draw", "station", "station"),
                ("triple-draw-bucketed", "rule", "random"), ("triple-draw", "rule", "random"),
                ("triple-draw", "station", "station")]
    runs = []
    for preset, a, b in pairings:
        game = MatchGame.of(load_preset(preset))
        r = play_match(game.config, a, b, args.hands, seed=1, game=game)
        runs.append({"game": preset, "a": a, "b": b, "hands": r.games, "seconds": r.seconds,
                     "hands_per_s": r.hands_per_second})
    if (ROOT / "runs" / "single-draw" / "strategy.npz").is_file():
        player = load_player(str(ROOT / "runs" / "single-draw"))
        r = play_match(None, player, "rule", args.hands, seed=1)
        runs.append({"game": "single-draw", "a": "solved strategy", "b": "rule", "hands": r.games,
                     "seconds": r.seconds, "hands_per_s": r.hands_per_second})
    report = {"first_call_s": first_call, "threads": 1, "runs": runs, "date": time.strftime("%Y-%m-%d")}
    if args.json:
        print(json.dumps(report))
    else:
        print(f"first call (compile or cache load): {first_call:.1f} s")
        for r in runs:
            print(f"{r['game']:<12} {r['a']:>16} vs {r['b']:<8} {r['hands']:>10,} hands {r['hands_per_s']:>12,.0f}/s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
