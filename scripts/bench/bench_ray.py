"""Ray's overhead: double draw at cap 2 solved in one process and on a local Ray runtime.

    pip install -e '.[ray]'
    python scripts/bench/bench_ray.py                  # 2 actors, 20 iterations each way
    python scripts/bench/bench_ray.py --actors 2 --iterations 40 --json
    python scripts/bench/bench_ray.py --cap 4 --iterations 5        # double draw at cap 4

One process walks with all its threads; the Ray run's driver walks the trunk and
two actors (one CPU each, so one Numba thread each) walk the subtrees. Both
start from zero and run the same iterations (after a warm-up iteration that
is not timed), so their storage must end equal bit for bit (checked by
digests); the figures are seconds per iteration, peak resident memory per
process, and the bytes that cross between the driver and the actors per
iteration. Each side runs in its own process, one after the other (``--part``),
so neither's memory is held while the other runs: at cap 4 the one-process
engine's storage is 3.5 GiB and every Ray process builds the public tree.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import time

import numba

from solver.cfr.distributed import RayEngine, describe, piece_digests
from solver.cfr.engine import Engine
from solver.game.config import DEFAULT_BETS, GameConfig


PART_MARK = "bench_ray part: "


def _rss_of(pid: int) -> int:
    """Peak resident memory of a process on this machine (VmHWM), bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _one_process(config: GameConfig, iterations: int, actors: int) -> dict:
    one = Engine(config)
    one.run_iterations(1)
    t0 = time.perf_counter()
    one.run_iterations(iterations)
    seconds = (time.perf_counter() - t0) / iterations
    return {"seconds_per_iteration": seconds, "peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "digest": piece_digests(one.walker, one.regret, one.strat_sum, actors)}


def _ray(config: GameConfig, iterations: int, actors: int) -> dict:
    engine = RayEngine(config, actors=actors, actor_cpus=1.0)
    engine.run_iterations(1)
    t0 = time.perf_counter()
    engine.run_iterations(iterations)
    seconds = (time.perf_counter() - t0) / iterations
    digest = engine.digests()  # piece by piece: gathering the storage would double the memory
    pids = engine._ray.get([actor.pid.remote() for actor in engine.actors])
    n_cuts = len(engine.walker.table_cuts.nodes)
    result = {"seconds_per_iteration": seconds, "digest": digest,
              "driver_peak_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
              "actor_peak_rss_bytes": [_rss_of(pid) for pid in pids],
              # per update walk: 3 reach vectors down, 1 value vector up per subtree; two walks an iteration
              "bytes_per_iteration": 2 * n_cuts * 4 * engine.n_states * 8, "subtrees": n_cuts,
              "split": describe(engine)}
    engine.shutdown()
    return result


def _part(name: str, args) -> dict:
    """One side of the comparison in a process of its own; its JSON result."""
    cmd = [sys.executable, __file__, "--part", name, "--cap", str(args.cap), "--iterations", str(args.iterations),
           "--actors", str(args.actors)]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"the {name} part failed:\n{out.stderr[-2000:]}")
    # The part's own line (Ray may forward its actors' output to the driver's stdout too).
    line = next(line for line in reversed(out.stdout.splitlines()) if line.startswith(PART_MARK))
    return json.loads(line[len(PART_MARK):])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--cap", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--part", choices=["one", "ray"], help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    config = GameConfig(draws=2, cap=args.cap, bets=DEFAULT_BETS[2])
    if args.part == "one":
        print(PART_MARK + json.dumps(_one_process(config, args.iterations, args.actors)), flush=True)
        return 0
    if args.part == "ray":
        print(PART_MARK + json.dumps(_ray(config, args.iterations, args.actors)), flush=True)
        return 0

    one = _part("one", args)
    ray = _part("ray", args)
    one_seconds, ray_seconds = one["seconds_per_iteration"], ray["seconds_per_iteration"]
    same = [list(d) for d in one["digest"]] == [list(d) for d in ray["digest"]]
    traffic, plan = ray["bytes_per_iteration"], ray["split"]
    result = {
        "game": config.describe(), "cap": args.cap, "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
        "date": time.strftime("%Y-%m-%d"), "iterations": args.iterations, "actors": args.actors,
        "one_process_seconds_per_iteration": one_seconds, "ray_seconds_per_iteration": ray_seconds,
        "overhead": ray_seconds / one_seconds - 1.0, "same_bits": same,
        "one_process_peak_rss_bytes": one["peak_rss_bytes"], "driver_peak_rss_bytes": ray["driver_peak_rss_bytes"],
        "actor_peak_rss_bytes": ray["actor_peak_rss_bytes"],
        "bytes_per_iteration": traffic, "subtrees": ray["subtrees"], "split": plan,
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(f"{config.describe()}: one process {one_seconds:.3f} s/iteration ({numba.get_num_threads()} threads), "
              f"Ray with {args.actors} actors {ray_seconds:.3f} s/iteration ({100 * (ray_seconds / one_seconds - 1):+.1f}%)"
              f"; same bits: {same}; {traffic / 2**20:.1f} MiB per iteration; {plan}", file=sys.stderr)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
