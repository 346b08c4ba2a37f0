"""What merging the button's larger draw counts saves at cap 4 (``StrategyLayout.merge_from``):
iterations of the triple-draw preset (16-bit storage) on one engine, alternately with merged
walks and with tree walks (``solver.cfr.streamed.unmerged``) in ABBA order, so both see the same
stage of the solve; per iteration the wall seconds and the thread-seconds of walking the cut
subtrees, encoding and decoding. Then, with ``--checks``, the abstract game's best responses
(the progress check) timed both ways from the same strategy.

    python scripts/bench/merged_draws.py [--before 2] [--pairs 2] [--checks]

Prints one JSON line per iteration or check.
"""
import argparse
import json
import time

from solver.cfr import kernels
from solver.cfr.solve import make_engine
from solver.cfr.streamed import unmerged
from solver.game.config import load_preset
from phase_timer import time_phases  # (scripts/bench: this script's folder)

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--before", type=int, default=2, help="untimed iterations first (compiling)")
parser.add_argument("--pairs", type=int, default=2, help="ABBA pairs of timed iterations")
parser.add_argument("--checks", action="store_true", help="also time the abstract check both ways")
args = parser.parse_args()

engine = make_engine(load_preset("triple-draw"))
merged = engine.arrays
tree = unmerged(merged)
print(json.dumps({"merge_from": int(merged.tree.trunk_layout.merge_from)}), flush=True)
engine.run_iterations(args.before)
seconds = time_phases(engine, kernels, ("decode", "encode", "walk"))
order = ["merged", "tree", "tree", "merged"] * args.pairs
for walks in order:
    engine.arrays = merged if walks == "merged" else tree
    seconds.clear()
    t0 = time.perf_counter()
    engine.run_iterations(1)
    wall = time.perf_counter() - t0
    print(json.dumps({"iteration": engine.iteration, "walks": walks, "seconds": round(wall, 2),
                      **{k: round(v, 2) for k, v in sorted(seconds.items())}}), flush=True)
if args.checks:
    walker = engine.abstract_walker
    own = walker.arrays
    for walks in ("merged", "tree"):
        walker.arrays = own if walks == "merged" else unmerged(own)
        t0 = time.perf_counter()
        result = engine.progress_exploitability()
        print(json.dumps({"check": walks, "seconds": round(time.perf_counter() - t0, 2),
                          "abstract_mbb": round(result.exploitability_mbb, 4)}), flush=True)
