"""The streamed engine of parts, its actors in this process, against the one-process engines
(issue 58): the same iterations timed in ABBA order (one-process engine, parts, parts,
one-process engine), each run a fresh process, kernels compiled (or loaded) and one iteration
run before anything is timed.

    python scripts/bench/parts_in_process.py --actors 1 --json

The game: triple draw at cap 2 in the triple-draw preset's abstraction, float32 storage
(AbstractEngine) and 16-bit storage (QuantizedEngine), seconds of iterations 2 to 4. Both
compute the same bits (tests/test_contract.py).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import dataclasses, sys, time
from solver.cfr.runners import InProcess
from solver.cfr.solve import make_engine
from solver.cfr.streamed_ray import StreamedRayEngine
from solver.game.config import load_preset
from solver.game.setup import GameSetup
kind, bits, actors = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
setup = GameSetup(dataclasses.replace(load_preset("triple-draw"), cap=2, storage_bits=bits), streamed=True)
engine = (StreamedRayEngine(setup, actors=actors, runner=InProcess()) if kind == "parts"
          else make_engine(setup, streamed=True))
engine.run_iterations(1)
t0 = time.perf_counter()
engine.run_iterations(3)
print(time.perf_counter() - t0)
"""


def run(kind: str, bits: int, actors: int) -> float:
    out = subprocess.run([sys.executable, "-c", CODE, kind, str(bits), str(actors)], cwd=ROOT, capture_output=True,
                         text=True)
    if out.returncode:
        raise SystemExit(f"{kind} {bits}-bit failed:\n{out.stderr[-2000:]}")
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actors", type=int, default=1, help="in-process actors of the engine of parts")
    parser.add_argument("--json", action="store_true", help="write results/benchmarks/parts_in_process.json")
    args = parser.parse_args()
    if args.actors < 1:
        raise SystemExit(f"--actors must be at least 1, got {args.actors}")
    results = {}
    for bits in (32, 16):
        seconds = {"one": [], "parts": []}
        for kind in ("one", "parts", "parts", "one"):
            t = run(kind, bits, args.actors)
            seconds[kind].append(t)
            print(f"{bits}-bit: {kind} {t:.2f} s", flush=True)
        mean = {k: sum(v) / len(v) for k, v in seconds.items()}
        results[f"{bits}-bit"] = {"seconds": seconds, "parts_over_one": mean["parts"] / mean["one"]}
        print(f"{bits}-bit: one-process engine {mean['one']:.2f} s, parts {mean['parts']:.2f} s, "
              f"parts/one {mean['parts'] / mean['one']:.3f}", flush=True)
    if args.json:
        path = ROOT / "results" / "benchmarks" / "parts_in_process.json"
        commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip() or "unknown"
        path.write_text(json.dumps({"date": time.strftime("%Y-%m-%d"), "commit": commit, "actors": args.actors,
                                    "results": results}, indent=1) + "\n")
        print(f"written {path.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
