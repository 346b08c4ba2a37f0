"""What checking the checksums costs when a checkpoint or strategy file is loaded.

    python scripts/bench/bench_checksums.py                  # a 4 GB checkpoint
    python scripts/bench/bench_checksums.py --gb 8 --json

Writes a checkpoint of ``--gb`` GB (regrets and strategy sums, float32, random
numbers) with the solver's own writer (:class:`solver.cfr.files.Checkpoint`)
into a scratch folder, then times, best of ``--runs``:

- ``checksum``: the checksum of the regrets and sums in memory (GB/s);
- ``checksum_mapped``: the checksum of a memory-mapped member, as a strategy
  file's probabilities are checked when it is loaded;
- ``load``: :func:`load_checkpoint` (reads and checks every array);
- ``load_unchecked``: the same arrays read as before checksums (``np.load``,
  through the zip's CRC-32), for comparison.

The file is read from the page cache (just written): a cold read adds the
disk's time, the same with or without checksums. The first call compiles the
checksum kernel (not timed; ``compile_seconds`` says how long, 0 when cached).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from solver.cfr import checksums  # noqa: E402
from solver.cfr.files import CHECKPOINT_NAME, Checkpoint, CheckpointState, load_checkpoint, read_arrays  # noqa: E402
from solver.game.config import load_preset  # noqa: E402


def _best(runs: int, call) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--gb", type=float, default=4.0, help="the checkpoint's storage in GB (default 4)")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--scratch", help="folder for the file (default: a temporary one, removed)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)

    entries = int(args.gb * 1e9 / 8)  # two float32 arrays
    rng = np.random.default_rng(0)
    regret = rng.standard_normal(entries, dtype=np.float32)
    strat_sum = rng.random(entries, dtype=np.float32)
    nbytes = regret.nbytes + strat_sum.nbytes

    start = time.perf_counter()
    checksums._word_sum_kernel(np.zeros(checksums.KERNEL_WORDS, np.uint64), np.uint64(0))
    compile_seconds = time.perf_counter() - start

    scratch = Path(args.scratch or tempfile.mkdtemp(prefix="bench-checksums-"))
    scratch.mkdir(parents=True, exist_ok=True)
    path = scratch / CHECKPOINT_NAME
    try:
        config = load_preset("double-draw")
        start = time.perf_counter()
        Checkpoint(config, "dcfr-ramp", 1, 0.0, np.zeros((0, 3)), CheckpointState(regret, strat_sum, [], None),
                   np.zeros((config.rounds, 1), np.int64)).save(path)
        write_seconds = time.perf_counter() - start
        in_memory = _best(args.runs, lambda: (checksums.checksum(regret), checksums.checksum(strat_sum)))
        del regret, strat_sum  # the loads below hold their own copy
        # The regrets memory-mapped, as load_strategy_file maps a strategy's probabilities.
        mapped = read_arrays(path, mapped="regret", skip=("strat_sum",))["regret"]
        assert isinstance(mapped, np.memmap)
        mapped_seconds = _best(args.runs, lambda: checksums.checksum(mapped))
        del mapped

        def unchecked():
            with np.load(path) as old:
                return old["regret"], old["strat_sum"]
        load_seconds, unchecked_seconds = [], []
        for _ in range(args.runs):  # alternating: the machine's load changes from minute to minute
            load_seconds.append(_best(1, lambda: load_checkpoint(path)))
            unchecked_seconds.append(_best(1, unchecked))
        load_seconds, unchecked_seconds = min(load_seconds), min(unchecked_seconds)
    finally:
        if args.scratch is None:
            shutil.rmtree(scratch, ignore_errors=True)

    gb = nbytes / 1e9
    result = {"file_gb": round(gb, 3), "threads": checksums.numba.get_num_threads(),
              "compile_seconds": round(compile_seconds, 2), "write_seconds": round(write_seconds, 2),
              "checksum_seconds": round(in_memory, 3), "checksum_gb_per_s": round(gb / in_memory, 2),
              "checksum_seconds_per_gb": round(in_memory / gb, 3),
              "checksum_mapped_gb_per_s": round(nbytes / 2e9 / mapped_seconds, 2),
              "load_seconds": round(load_seconds, 2), "load_unchecked_seconds": round(unchecked_seconds, 2)}
    if args.json:
        print(json.dumps(result))
    else:
        for key, value in result.items():
            print(f"{key:<28} {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
