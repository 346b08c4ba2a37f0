"""Benchmark: `badugi eval --json -` on every 4-card hand of a full deck (270,725 lines).

Writes the file (one hand a line, colex order, so neighbouring lines share cards), then
times the command as a user runs it, interpreter start included, ``--repeats`` times cold
(each with an empty ``NUMBA_CACHE_DIR``: the evaluator's kernels compile) and as many warm
(the on-disk cache). Each run's output is checked: one line per hand, at most one line on
stderr. The command's hands per second (wall time, start included) are set against the
evaluator's own rate (``Evaluator.evaluate_batch`` on the same hands in this process,
after a warm-up, as ``bench_evaluator.py`` measures it). ``--before COMMIT`` also runs
that commit's command on the first ``--before-hands`` lines (the hand-by-hand command
printed a note per pair of lines sharing a card, so all 270,725 never finish).

    python scripts/bench/bench_eval_batch.py --repeats 3 --before 08d91a7 --before-hands 2000
"""

from __future__ import annotations

import argparse
import itertools
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

from abstractions.cards import FULL_DECK, format_hands  # noqa: E402


def all_hands(hand_size: int = 4) -> np.ndarray:
    """Every hand of the full deck, colex order of the card numbers, int8."""
    return np.array(list(itertools.combinations(range(FULL_DECK.n_cards), hand_size)), dtype=np.int8)


def time_command(source: Path, file: Path, cache_dir: str | None, expect_lines: int) -> dict:
    """Seconds of `badugi eval --json -` on ``file`` in a fresh interpreter (``cache_dir``: an
    empty Numba cache), with its stderr lines; the output is checked."""
    env = {**os.environ, "PYTHONPATH": str(source)}
    env.pop("NUMBA_DISABLE_JIT", None)
    if cache_dir is not None:
        env["NUMBA_CACHE_DIR"] = cache_dir
    with open(file, "rb") as stdin, tempfile.TemporaryFile() as stdout:
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "solver.cli", "eval", "--json", "-"], stdin=stdin,
                              stdout=stdout, stderr=subprocess.PIPE, cwd=source, env=env)
        seconds = time.perf_counter() - start
        stdout.seek(0)
        lines = sum(1 for _ in stdout)
    stderr = done.stderr.decode("utf-8", "replace").splitlines()
    if done.returncode != 0 or lines != expect_lines:
        raise SystemExit(f"badugi eval failed (exit {done.returncode}, {lines} lines for {expect_lines}): "
                         + "\n".join(stderr[-5:]))
    return {"seconds": seconds, "stderr_lines": len(stderr), "stderr_first": stderr[0] if stderr else ""}


def start_seconds(repeats: int) -> float:
    """The floor under any badugi command: `badugi --version` (interpreter and imports), best of
    ``repeats``."""
    command = [sys.executable, "-m", "solver.cli", "--version"]
    return min(_timed(lambda: subprocess.run(command, cwd=REPO, capture_output=True, check=True))
               for _ in range(repeats))


def evaluator_rate(hands: np.ndarray, repeats: int) -> float:
    from abstractions.evaluator import get_evaluator

    evaluator = get_evaluator()
    evaluator.evaluate_batch(hands[:1000])  # compile or load from the cache
    best = min(_timed(lambda: evaluator.evaluate_batch(hands)) for _ in range(max(repeats, 5)))
    return len(hands) / best


def _timed(run) -> float:
    start = time.perf_counter()
    run()
    return time.perf_counter() - start


def before(commit: str, file: Path, hands: int, work: Path) -> dict:
    """The command of ``commit`` on the first ``hands`` lines of ``file`` (a git archive of it)."""
    source = work / f"badugi-{commit}"
    source.mkdir()
    archive = subprocess.run(["git", "archive", commit], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    part = work / f"first-{hands}.txt"
    with open(file) as full, open(part, "w") as out:
        out.writelines(itertools.islice(full, hands))
    return {"commit": commit, "hands": hands, **time_command(source, part, None, hands)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="warm runs; the best and the median are reported")
    parser.add_argument("--file", help="keep the hands file here (default: a temporary file)")
    parser.add_argument("--before", metavar="COMMIT", help="also time this commit's command on the first lines")
    parser.add_argument("--before-hands", type=int, default=2000, help="lines for --before (default 2000)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON instead of a table")
    args = parser.parse_args(argv)
    if args.repeats < 1 or args.before_hands < 2:
        parser.error("--repeats must be at least 1 and --before-hands at least 2")

    import numba

    hands = all_hands()
    with tempfile.TemporaryDirectory() as work:
        work = Path(work)
        file = Path(args.file) if args.file else work / "hands.txt"
        file.write_text("\n".join(format_hands(hands)) + "\n")
        colds = []
        for _ in range(args.repeats):
            with tempfile.TemporaryDirectory() as empty_cache:
                colds.append(time_command(REPO, file, empty_cache, len(hands)))
        warm = [time_command(REPO, file, None, len(hands)) for _ in range(args.repeats)]
        old = before(args.before, file, args.before_hands, work) if args.before else None
    seconds = sorted(run["seconds"] for run in warm)
    cold = sorted(run["seconds"] for run in colds)
    results = {
        "hands": len(hands),
        "file_mb": round(file.stat().st_size / 1e6, 2) if args.file else None,
        "cold_best_s": cold[0],
        "cold_median_s": cold[len(cold) // 2],
        "cold_worst_s": cold[-1],
        "warm_best_s": seconds[0],
        "warm_median_s": seconds[len(seconds) // 2],
        "start_s": start_seconds(args.repeats),
        "stderr_lines": max(run["stderr_lines"] for run in [*colds, *warm]),
        "stderr": colds[0]["stderr_first"],
        "command_hands_per_s": len(hands) / seconds[0],
        "evaluator_hands_per_s": evaluator_rate(hands, args.repeats),
        "before": old,
        "cpu_count": os.cpu_count(),
        "numba_threads": numba.get_num_threads(),
        "python": platform.python_version(),
    }
    results["evaluator_share"] = results["command_hands_per_s"] / results["evaluator_hands_per_s"]
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    print(f"badugi eval --json - on all {len(hands):,} four-card hands ({results['cpu_count']} CPUs, "
          f"Python {results['python']}); wall time with interpreter start:")
    print(f"  cold (empty Numba cache): {results['cold_best_s']:.2f} s best, {results['cold_median_s']:.2f} s median, "
          f"{results['cold_worst_s']:.2f} s worst of {args.repeats}")
    print(f"  warm (cached kernels):    {results['warm_best_s']:.2f} s best, {results['warm_median_s']:.2f} s median "
          f"of {args.repeats}")
    print(f"  of which starting Python and the badugi command (`badugi --version`): {results['start_s']:.2f} s")
    print(f"  stderr: {results['stderr_lines']} line(s): {results['stderr']}")
    print(f"  {results['command_hands_per_s']:,.0f} hands/s; the evaluator alone (evaluate_batch): "
          f"{results['evaluator_hands_per_s']:,.0f} hands/s, so the command runs at "
          f"{100 * results['evaluator_share']:.3f}% of the evaluator's rate")
    if old:
        print(f"  {old['commit']} on the first {old['hands']:,} lines: {old['seconds']:.2f} s, "
              f"{old['stderr_lines']:,} lines on stderr")
    return 0


if __name__ == "__main__":
    sys.exit(main())
