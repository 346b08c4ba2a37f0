"""What safe re-solving of the last round takes off a bucketed strategy, on a game whose tree is
built (single or double draw): certified at full resolution with and without it.

    python scripts/bench/resolve_built.py --preset single-draw --buckets 16 8 --iterations 400
    python scripts/bench/resolve_built.py --preset double-draw --cap 2 --buckets 32 32 16 --iterations 300

The blueprint is solved in card buckets (the default algorithm, ``--iterations``), then every
last-round subgame is re-solved for each seat at full resolution behind the Resolve gadget
(:mod:`solver.cfr.resolving`, ``--resolve-iterations`` DCFR iterations each) from the
blueprint's ranges there. Both strategies, the blueprint and the blueprint with every last round
re-solved, are written out class by class into one full-resolution array each and certified by
the exact best response (:class:`solver.cfr.walker.Walker`). Also printed: the same blueprint
with only its last round replaced by the full-resolution equilibrium of each subgame (no
gadget: *unsafe* re-solving), which can be worse than the blueprint.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from solver.cfr import kernels  # noqa: E402
from solver.cfr.kernels.resolve import resolve_round  # noqa: E402
from solver.cfr.resolving import LastRound  # noqa: E402
from solver.cfr.solve import make_engine  # noqa: E402
from solver.cfr.walker import Walker, class_strategy  # noqa: E402
from solver.game.codes import BET, DRAW  # noqa: E402
from solver.game.config import load_preset  # noqa: E402
from solver.game.setup import GameSetup  # noqa: E402


def full_resolution(setup: GameSetup, bucketed, sums) -> tuple[np.ndarray, object]:
    """The bucketed strategy in ``sums`` written class by class into a full-resolution array (of
    ``setup``'s layout: one row per class), and that layout."""
    tree, layout = setup.tree, setup.layout
    play = np.zeros(int(layout.slot_offset[-1]), np.float32)
    for node in np.nonzero(tree.kind <= DRAW)[0]:
        slot = int(layout.slot_of[node])
        play[layout.slot_offset[slot]:layout.slot_offset[slot + 1]] = class_strategy(bucketed, sums, int(node)).ravel()
    return play, layout


def last_round_roots(tree) -> np.ndarray:
    parent_kind = tree.kind[np.maximum(tree.parent, 0)]
    return np.nonzero((tree.kind == BET) & (tree.round == tree.config.draws) & (tree.parent >= 0)
                      & (parent_kind == DRAW))[0]


def subgame_nodes(tree, root: int) -> np.ndarray:
    """The decision nodes of the round under ``root``, indexed by template position."""
    block = np.concatenate([[root], np.arange(tree.first_child[root], tree.subtree_end[root])])
    block = block[tree.kind[block] == BET]
    out = np.full(int(tree.phase[block].max()) + 1, -1, np.int64)
    out[tree.phase[block]] = block
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="single-draw")
    parser.add_argument("--cap", type=int, default=None)
    parser.add_argument("--buckets", type=int, nargs="+", required=True, help="buckets per round")
    parser.add_argument("--iterations", type=int, default=300, help="blueprint iterations")
    parser.add_argument("--resolve-iterations", type=int, default=200)
    parser.add_argument("--accept", choices=("always", "safe"), default="always",
                        help="play a re-solved subgame always, or only where it leaves no opponent class more than "
                             "the blueprint did (checked exactly: then never more exploitable than the blueprint)")
    parser.add_argument("--floor", type=float, default=0.0, help="the gadget's reach floor (LastRound.resolve)")
    args = parser.parse_args(argv)
    config = load_preset(args.preset)
    changes = {"buckets": tuple(args.buckets)}
    if args.cap is not None:
        changes["cap"] = args.cap
    config = dataclasses.replace(config, **changes)
    t0 = time.perf_counter()
    engine = make_engine(config)
    engine.run_iterations(args.iterations)
    print(f"blueprint: {config.describe()}, {args.iterations} iterations "
          f"in {time.perf_counter() - t0:.1f} s", flush=True)
    sums = engine.average_sums()
    full = GameSetup(dataclasses.replace(config, buckets=()))
    tree, model = full.tree, full.model
    blueprint, layout = full_resolution(full, engine.layout, sums)
    walker = Walker(tree, layout, model)
    before = walker.exploitability(blueprint)
    print(f"blueprint certified {before.exploitability_mbb:.3f} mbb/hand", flush=True)

    roots = last_round_roots(tree)
    record = walker.record(roots)
    for seat in (0, 1):
        walker.walk(seat, kernels.EVALUATE, blueprint, record=record)
    last = LastRound(config)
    n = model.n_values
    safe, unsafe = blueprint.copy(), blueprint.copy()
    t1, gains, kept = time.perf_counter(), 0.0, 0
    for r, root in enumerate(roots):
        nodes = subgame_nodes(tree, int(root))
        ranges = record.reach[r]
        strategy = np.zeros((last.n_positions, last.n_actions, n))
        for p, node in enumerate(nodes):
            if node >= 0:
                strategy[p, :tree.n_children[node]] = class_strategy(layout, blueprint, int(node))
        pot = float(tree.pot[root])
        work = last.work(n)
        for player in (0, 1):
            resolved = last.resolve(pot, player, ranges, strategy, args.resolve_iterations, args.floor)
            worse = resolved.after - resolved.cbv
            tolerance = 1e-6 * max(np.abs(resolved.cbv).max(), 1e-300)
            accepted = args.accept == "always" or worse.max() <= tolerance
            kept += accepted
            if accepted:
                gains += resolved.gain(ranges[1 - player])
            work = last.work(n)
            resolve_round(last.arrays, pot, player, np.ascontiguousarray(ranges), np.full(n, -1e9),
                          args.resolve_iterations, work)
            equilibrium = last.average(work.avg, player)
            for p, node in enumerate(nodes):
                if node >= 0 and tree.seat[node] == player:
                    slot = int(layout.slot_of[node])
                    width = int(tree.n_children[node])
                    rows = slice(int(layout.slot_offset[slot]), int(layout.slot_offset[slot + 1]))
                    if accepted:
                        safe[rows] = resolved.strategy[p, :width].ravel()
                    unsafe[rows] = equilibrium[p, :width].ravel()
    seconds = time.perf_counter() - t1
    after, reckless = walker.exploitability(safe), walker.exploitability(unsafe)
    print(f"{len(roots)} last-round subgames re-solved for both seats in {seconds:.1f} s "
          f"({seconds / max(2 * len(roots), 1) * 1e3:.1f} ms each); {kept} of {2 * len(roots)} played")
    print(f"re-solved (safe) certified {after.exploitability_mbb:.3f} mbb/hand; unsafe {reckless.exploitability_mbb:.3f}; "
          f"blueprint {before.exploitability_mbb:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
