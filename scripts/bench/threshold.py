"""Thresholded strategies head to head and certified (BENCHMARKS.md, "Thresholded cap-4 strategies").

    python scripts/bench/threshold.py play runs/triple-draw-cap4-compact runs/triple-draw-cap4-previous \\
        --thresholds 0 0.05 0.1 0.15 --hands 1000000 --out /tmp/threshold.jsonl
    python scripts/bench/threshold.py certify runs/triple-draw-cap4-compact --thresholds 0.1 --out /tmp/threshold.jsonl

``play``: the strategy in NEW (a compact strategy or a run), each row thresholded at each
threshold (``solver.tables.threshold``: actions below that fraction of the row dropped), plays
OPPONENT (a strategy or a baseline) in real Badugi, duplicate, one deck; one JSON line per
threshold. ``certify``: the exact best response at full resolution to NEW thresholded (minutes at
cap 4, as a compact file's certificate). Thresholds are applied in memory; ``badugi compact
--threshold T`` writes a thresholded file.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))


def _write(out: str | None, row: dict) -> None:
    print(json.dumps(row), flush=True)
    if out:
        with open(out, "a") as f:
            f.write(json.dumps(row) + "\n")


def play(args) -> None:
    from solver.arena.match import Player, load_player, play_match
    from solver.tables.threshold import threshold_strategy

    new = load_player(args.new, weights=True)
    other = load_player(args.opponent, weights=True)
    for threshold in args.thresholds:  # (threshold 0 leaves the values as read: no copy)
        values = threshold_strategy(new.layout, new.probabilities.copy() if threshold > 0 else new.probabilities,
                                    threshold)
        player = Player.of_strategy(f"{args.new}@{threshold:g}", new.config, new.tree, new.layout, values)
        t0 = time.perf_counter()
        result = play_match(None, player, other, args.hands, args.seed)
        _write(args.out, {"kind": "play", "threshold": threshold, "opponent": args.opponent,
                          "seconds": round(time.perf_counter() - t0, 1), **result.to_json()})
        del values, player


def certify(args) -> None:
    from solver.cfr.compact_file import read_strategy
    from solver.tables.strategy import Strategy
    from solver.tables.threshold import threshold_strategy

    for threshold in args.thresholds:
        strategy = Strategy(args.new, read_strategy(Path(args.new)))
        probabilities = strategy.probabilities
        try:  # a compact file's probabilities are this process's own (read-only by default): in place
            probabilities.flags.writeable = True
        except ValueError:
            probabilities = probabilities.copy()
        probabilities = threshold_strategy(strategy.layout, probabilities, threshold)
        t0 = time.perf_counter()
        walker = strategy.walker if strategy.tree is not None else strategy.streamed
        x = walker.exploitability(probabilities)
        _write(args.out, {"kind": "certify", "strategy": args.new, "threshold": threshold,
                          "exploitability_mbb": x.exploitability_mbb, "game_value_mbb": x.game_value_mbb,
                          "br_button_mbb": 1000.0 * x.br_button, "br_big_blind_mbb": 1000.0 * x.br_big_blind,
                          "seconds": round(time.perf_counter() - t0, 1)})
        del strategy, probabilities


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("play", help="thresholded NEW against OPPONENT in real Badugi")
    p.add_argument("new")
    p.add_argument("opponent")
    p.add_argument("--hands", type=int, default=1_000_000)
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=play)
    c = sub.add_parser("certify", help="exact best response to thresholded NEW")
    c.add_argument("new")
    c.set_defaults(func=certify)
    for q in (p, c):
        q.add_argument("--thresholds", type=float, nargs="+", default=[0.0, 0.05, 0.1, 0.15])
        q.add_argument("--out", help="append each result as a JSON line here")
    args = parser.parse_args(argv)
    args.func(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
