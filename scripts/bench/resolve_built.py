"""What re-solving the last round takes off a bucketed strategy, on a game whose tree is built
(single or double draw): certified at full resolution with and without it.

    python scripts/bench/resolve_built.py --preset single-draw --buckets 16 8 --iterations 300
    python scripts/bench/resolve_built.py --preset double-draw --cap 2 --buckets 32 32 16 --iterations 300 \\
        --gadget resolve --floor 0.05 --cache runs/dd2-32-32-16.npy

The blueprint is solved in card buckets (the default algorithm, ``--iterations``; its strategy
sums kept in ``--cache`` if given), then every last-round subgame is re-solved for each seat at
full resolution from the blueprint's ranges there (:func:`solver.cfr.resolving.resolved_full_resolution`:
``--gadget`` Maxmargin or Resolve, ``--resolve-iterations`` DCFR iterations each, re-solved where
the seat's reach is at least ``--min-reach``). Both strategies are certified by the exact best
response (:class:`solver.cfr.walker.Walker`). ``--unsafe`` also certifies the blueprint with each
subgame's own equilibrium from the same ranges (no gadget), which is known to be unsafe.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from solver.cfr.kernels.resolve import resolve_round  # noqa: E402
from solver.cfr.resolving import (GADGETS, LastRound, ResolveRule, class_by_class, last_round_reach,  # noqa: E402
                                  resolved_full_resolution, write_round)
from solver.cfr.solve import make_engine  # noqa: E402
from solver.cfr.walker import Walker  # noqa: E402
from solver.game.config import load_preset  # noqa: E402
from solver.game.setup import GameSetup  # noqa: E402


def unsafe_resolving(tree, layout, walker, play, config, iterations) -> np.ndarray:
    """The blueprint with each seat's last rounds replaced by the round's own equilibrium from
    the blueprint's ranges (the opponent may not leave: no gadget)."""
    last = LastRound(config)
    roots, positions, reach = last_round_reach(tree, layout, walker, play)
    out, n = play.copy(), walker.n_states
    for j, root in enumerate(roots):
        for player in (0, 1):
            work = last.work(n)
            resolve_round(last.arrays, float(tree.pot[root]), player, np.ascontiguousarray(reach[j]),
                          np.full(n, -1e9), iterations, False, work)
            write_round(out, tree, layout, positions[j], player, last.average(work.avg, player))
    return out


def reach_shares(tree, layout, walker, play) -> str:
    """How few of the (subgame, seat) pairs hold most of the seats' blueprint reach."""
    masses = np.sort(last_round_reach(tree, layout, walker, play)[2].sum(axis=2).ravel())[::-1]
    share = np.cumsum(masses) / max(masses.sum(), 1e-300)
    return (", ".join(f"{int(np.searchsorted(share, q)) + 1}" for q in (0.9, 0.99, 0.999))
            + f" of {len(masses)} (subgame, seat) pairs hold 90%, 99% and 99.9% of the seats' last-round reach")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="single-draw")
    parser.add_argument("--cap", type=int, default=None)
    parser.add_argument("--buckets", type=int, nargs="+", required=True, help="buckets per round")
    parser.add_argument("--iterations", type=int, default=300, help="blueprint iterations")
    parser.add_argument("--cache", metavar="FILE.npy", help="the blueprint's strategy sums: read if there, else saved")
    parser.add_argument("--gadget", choices=GADGETS, default="maxmargin")
    parser.add_argument("--resolve-iterations", type=int, default=200)
    parser.add_argument("--min-reach", type=float, default=0.0)
    parser.add_argument("--floor", type=float, default=0.0, help="Resolve's reach floor")
    parser.add_argument("--unsafe", action="store_true")
    args = parser.parse_args(argv)
    rule = ResolveRule(args.min_reach, args.resolve_iterations, args.gadget, args.floor).checked()
    changes = {"buckets": tuple(args.buckets)} | ({} if args.cap is None else {"cap": args.cap})
    config = dataclasses.replace(load_preset(args.preset), **changes)
    engine = make_engine(config)
    cache = Path(args.cache) if args.cache else None
    t0 = time.perf_counter()
    if cache is not None and cache.is_file():
        sums = np.load(cache)
        print(f"blueprint: {config.describe()}, strategy sums from {cache}", flush=True)
    else:
        engine.run_iterations(args.iterations)
        sums = engine.average_sums()
        print(f"blueprint: {config.describe()}, {args.iterations} iterations in {time.perf_counter() - t0:.1f} s",
              flush=True)
        if cache is not None:
            np.save(cache, sums)
    full = GameSetup(dataclasses.replace(config, buckets=()))
    tree, layout = full.tree, full.layout
    walker = Walker(tree, layout, full.model)
    blueprint = class_by_class(tree, layout, engine.layout, sums)
    before = walker.exploitability(blueprint)
    print(f"blueprint certified {before.exploitability_mbb:.3f} mbb/hand; {reach_shares(tree, layout, walker, blueprint)}",
          flush=True)
    t1 = time.perf_counter()
    combined = resolved_full_resolution(tree, layout, walker, blueprint, config, rule)
    seconds = time.perf_counter() - t1
    after = walker.exploitability(combined)
    print(f"{rule}: re-solved in {seconds:.1f} s; certified {after.exploitability_mbb:.3f} mbb/hand "
          f"(blueprint {before.exploitability_mbb:.3f})")
    if args.unsafe:
        unsafe = unsafe_resolving(tree, layout, walker, blueprint, config, args.resolve_iterations)
        print(f"unsafe (each round's own equilibrium): certified {walker.exploitability(unsafe).exploitability_mbb:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
