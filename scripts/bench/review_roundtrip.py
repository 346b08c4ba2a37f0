"""The review's round trip (issue 35): a match written as PHH, replayed by PokerKit, reviewed.

    python scripts/bench/review_roundtrip.py                          # the committed cap-4 compact strategy
    python scripts/bench/review_roundtrip.py --strategy runs/single-draw --hands 1000 --json

Plays ``--hands`` hands of the strategy against a baseline (a duplicate match),
writes them as one .phhs file, replays every hand with PokerKit's engine (when
PokerKit is installed and the game is its fixed-limit Badugi), then reviews
both seats. Prints: the strategy's own cost per hand (0 within its interval
if the review is right), the baseline's summed cost per hand against its loss
in the match, hand by hand (the performance-difference identity), and the
times: loading the strategy, the match, PokerKit, the review's first call
(compiling its kernels, or loading them from Numba's cache) and the review of
all hands.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from solver.arena.match import MatchGame, load_player, match_histories  # noqa: E402
from solver.arena.phh import is_pokerkit_game, read_phh, write_phhs  # noqa: E402
from solver.arena.review import review_hands  # noqa: E402


def mean_ci(x) -> tuple[float, float]:
    x = np.asarray(x, dtype=float)
    return float(x.mean()), 1.96 * float(x.std(ddof=1)) / math.sqrt(len(x))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strategy", default=str(ROOT / "results" / "triple-draw-cap4" / "compact"))
    parser.add_argument("--against", default="rule", choices=("rule", "station", "random"))
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=128)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="also write results/benchmarks/review.json")
    parser.add_argument("--phh", help="also keep the hands written (a .phhs file)")
    args = parser.parse_args(argv)

    t = time.perf_counter()
    player = load_player(args.strategy)
    load_s = time.perf_counter() - t
    config = player.config.at_full_resolution()
    game = MatchGame.of(config)
    t = time.perf_counter()
    texts = match_histories(config, player, args.against, args.hands, args.seed)
    match_s = time.perf_counter() - t
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "hands.phhs"
        write_phhs(path, texts)
        if args.phh:
            write_phhs(args.phh, texts)
        pokerkit_s, pokerkit_hands = None, 0
        if is_pokerkit_game(config):
            import pokerkit

            t = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                for text in texts:
                    for state in pokerkit.HandHistory.loads(text):
                        pass
                    assert state.status is False
                    pokerkit_hands += 1
            pokerkit_s = time.perf_counter() - t
        hands = read_phh(path, config)
        t = time.perf_counter()
        review_hands(hands[:2], player, game, samples=2, seed=args.seed)
        first_s = time.perf_counter() - t
        t = time.perf_counter()
        review = review_hands(hands, player, game, samples=args.samples, seed=args.seed)
        review_s = time.perf_counter() - t
    name = player.name
    totals = review.totals()
    costs = review.hand_costs()
    payoff = [h.payoff[h.history.players.index(args.against)] / config.big_blind for h in review.hands]
    loss, loss_ci = mean_ci([-p for p in payoff])
    base_cost = [costs[args.against].get(i, 0.0) for i in range(len(review.hands))]
    diff, diff_ci = mean_ci(np.array(base_cost) + np.array(payoff))
    own, own_ci = totals[name]["per_hand"], totals[name]["per_hand_ci95"]
    base, base_ci = mean_ci(base_cost)
    result = {"strategy": args.strategy, "game": config.describe(), "against": args.against, "hands": len(texts),
              "samples": args.samples, "seed": args.seed, "decisions": len(review.decisions),
              "own_cost_bb": own, "own_cost_ci95": own_ci, "baseline_cost_bb": base, "baseline_cost_ci95": base_ci,
              "baseline_loss_bb": loss, "baseline_loss_ci95": loss_ci, "identity_gap_bb": diff,
              "identity_gap_ci95": diff_ci, "pokerkit_hands": pokerkit_hands, "load_seconds": load_s,
              "match_seconds": match_s, "pokerkit_seconds": pokerkit_s, "first_review_seconds": first_s,
              "review_seconds": review_s}
    print(f"{args.strategy} against {args.against}: {len(texts):,} hands, {len(review.decisions):,} decisions "
          f"reviewed, {args.samples} samples a decision")
    print(f"  PokerKit replayed {pokerkit_hands:,} hands" + (f" in {pokerkit_s:.1f} s" if pokerkit_s else
                                                             " (not its game: skipped)"))
    print(f"  strategy's own cost: {own:+.4f} +- {own_ci:.4f} bb/hand (0 if the review is right)")
    print(f"  {args.against}'s summed cost: {base:+.4f} +- {base_ci:.4f} bb/hand; its loss in the match "
          f"{loss:+.4f} +- {loss_ci:.4f}; hand by hand, cost minus loss {diff:+.4f} +- {diff_ci:.4f}")
    print(f"  seconds: load {load_s:.1f}, match and PHH {match_s:.1f}, review's first call {first_s:.1f}, "
          f"review {review_s:.1f}")
    if args.json:
        out = ROOT / "results" / "benchmarks" / "review.json"
        out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
