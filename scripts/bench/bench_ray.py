"""Ray's overhead: double draw at cap 2 solved in one process and on a local Ray runtime.

    pip install -e '.[ray]'
    python scripts/bench/bench_ray.py                  # 2 actors, 20 iterations each way
    python scripts/bench/bench_ray.py --actors 2 --iterations 40 --json
    python scripts/bench/bench_ray.py --cap 4 --iterations 5        # double draw at cap 4: needs more than
                                                                    # this 24 GiB machine (Ray's memory monitor
                                                                    # killed an actor here: each builds the tree)

One process walks with all its threads; the Ray run's driver walks the trunk and
two actors (one CPU each, so one Numba thread each) walk the subtrees. Both
start from zero and run the same iterations (after a warm-up iteration that
is not timed), so their storage must end equal bit for bit (checked); the
figures are seconds per iteration, peak resident memory per process, and the
bytes that cross between the driver and the actors per iteration.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import os
import resource
import sys
import time

import numba

from solver.cfr.distributed import RayEngine, describe
from solver.cfr.engine import Engine
from solver.game.config import DEFAULT_BETS, GameConfig


def _rss_of(pid: int) -> int:
    """Peak resident memory of a process on this machine (VmHWM), bytes."""
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--actors", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--cap", type=int, default=2)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    config = GameConfig(draws=2, cap=args.cap, bets=DEFAULT_BETS[2])

    one = Engine(config)
    one.run_iterations(1)
    t0 = time.perf_counter()
    one.run_iterations(args.iterations)
    one_seconds = (time.perf_counter() - t0) / args.iterations
    one_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    # Digests, not copies: at cap 4 the storage is 9 GiB, and the Ray run needs the memory.
    digest = (hashlib.sha256(one.regret.tobytes()).hexdigest(), hashlib.sha256(one.strat_sum.tobytes()).hexdigest())
    del one
    gc.collect()

    engine = RayEngine(config, actors=args.actors, actor_cpus=1.0)
    engine.run_iterations(1)
    t0 = time.perf_counter()
    engine.run_iterations(args.iterations)
    ray_seconds = (time.perf_counter() - t0) / args.iterations
    same = (hashlib.sha256(engine.regret.tobytes()).hexdigest(),
            hashlib.sha256(engine.strat_sum.tobytes()).hexdigest()) == digest
    pids = engine._ray.get([actor.pid.remote() for actor in engine.actors])
    actor_rss = [_rss_of(pid) for pid in pids]
    n_cuts = len(engine.walker.table_cuts.nodes)
    traffic = 2 * n_cuts * 4 * engine.n_states * 8  # per update walk: 3 reach vectors down, 1 value vector up
    plan = describe(engine)
    engine.shutdown()
    result = {
        "game": config.describe(), "cap": args.cap, "cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(),
        "date": time.strftime("%Y-%m-%d"), "iterations": args.iterations, "actors": args.actors,
        "one_process_seconds_per_iteration": one_seconds, "ray_seconds_per_iteration": ray_seconds,
        "overhead": ray_seconds / one_seconds - 1.0, "same_bits": same,
        "one_process_peak_rss_bytes": one_rss, "actor_peak_rss_bytes": actor_rss,
        "bytes_per_iteration": traffic, "subtrees": n_cuts, "split": plan,
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
