"""Streamed actors against one process (``solver.cfr.streamed_ray``): the triple-draw preset's
rule at cap 2 in float32 (or ``--buckets``), a few iterations each way, in one run: seconds per
iteration after ``--before`` untimed ones, and peak resident memory of the one process and of each
actor (a local Ray runtime on this machine).

    python scripts/bench/ray_streamed.py [--cap 2] [--buckets 64 64 48 40] [--bits 32] [--actors 2]
        [--actor-cpus 1] [--iterations 4] [--before 2] [--no-balance]

Prints one JSON line per side. Run each side in a process of its own (``--side one`` or
``--side ray``) so that peaks are not shared; without ``--side`` both run, one after the other,
each in a child process. The Ray side also prints each actor's planned peak
(``solver.cfr.planning.plan_actors``, what ``badugi plan --machines`` prints) beside the
measured one, each actor's seconds of update walks an iteration, and the deal by measured cost
(made after iteration 4 unless ``--no-balance``: with ``--before`` under 4 it falls in the timed
iterations, and moves the storage through the driver).
"""
import argparse
import dataclasses
import json
import resource
import subprocess
import sys
import time

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--cap", type=int, default=2)
parser.add_argument("--buckets", type=int, nargs=4, default=[64, 64, 48, 40])
parser.add_argument("--actors", type=int, default=2)
parser.add_argument("--iterations", type=int, default=4)
parser.add_argument("--before", type=int, default=2)
parser.add_argument("--bits", type=int, choices=[32, 16], default=32)
parser.add_argument("--actor-cpus", type=float, default=1.0)
parser.add_argument("--no-balance", action="store_true")
parser.add_argument("--side", choices=["one", "ray"])
args = parser.parse_args()

if args.side is None:
    for side in ("one", "ray"):
        subprocess.run([sys.executable, __file__, "--side", side, "--cap", str(args.cap), "--buckets",
                        *map(str, args.buckets), "--actors", str(args.actors), "--iterations", str(args.iterations),
                        "--before", str(args.before), "--actor-cpus", str(args.actor_cpus), "--bits", str(args.bits)]
                       + (["--no-balance"] if args.no_balance else []), check=True)
    sys.exit(0)

from solver.cfr.solve import make_engine  # noqa: E402
from solver.game.config import load_preset  # noqa: E402
from solver.game.setup import GameSetup  # noqa: E402

config = dataclasses.replace(load_preset("triple-draw"), cap=args.cap, buckets=tuple(args.buckets),
                             storage_bits=args.bits)
setup = GameSetup(config, streamed=True)
t0 = time.perf_counter()
if args.side == "one":
    engine = make_engine(setup, streamed=True)   # (AbstractEngine, or QuantizedEngine in 16 bits)
else:
    from solver.cfr.streamed_ray import StreamedRayEngine

    engine = StreamedRayEngine(setup, actors=args.actors, actor_cpus=args.actor_cpus, balance=not args.no_balance)
start = time.perf_counter() - t0
print(json.dumps({"side": args.side, "started_s": round(start, 1)}), flush=True)
engine.run_iterations(args.before)
if args.side == "ray":
    engine.progress_note()   # (the actors' seconds from here on)
t0 = time.perf_counter()
engine.run_iterations(args.iterations)
per = (time.perf_counter() - t0) / args.iterations
out = {"side": args.side, "entries": int(setup.abstract_layout.n_entries), "start_s": round(start, 1),
       "seconds_per_iteration": round(per, 3),
       "peak_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}
if args.side == "ray":
    out["actor_peak_bytes"] = engine.actor_memory()
    out["actor_plan_bytes"] = engine.actor_plan.bytes
    out["actors"] = args.actors
    out["actor_seconds"] = engine.progress_note()
    out["balance"] = None if engine.balanced is None else engine.balanced._asdict()
    engine.shutdown()
print(json.dumps(out), flush=True)
