"""Microseconds per call of the draw kernels on the triple-draw preset's bucket game, reading its
transition rows as sets and as dense matrices (``DrawTables.dense``), and how far apart they are
(reach: the same bits; values: to rounding, the loops' multiply-adds fused differently).

    python scripts/bench/draw_rows.py [CALLS]

Each kernel (``_draw_reach``, ``_draw_value``) runs CALLS times (default 20,000) over every round
and draw count, on random reach and values; the two forms run in turns, twice. See
scripts/bench/NOTES.md, "Dense draw rows and prefetched storage rows".
"""
import dataclasses
import json
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, ".")

from solver.cfr import kernels  # noqa: E402
from solver.cfr.walker import draw_tables  # noqa: E402
from solver.game.config import load_preset  # noqa: E402
from solver.game.setup import GameSetup  # noqa: E402


@njit
def reach_calls(n, reach, strat, tables, agg, out):
    for _ in range(n):
        for rnd in range(3):
            for draw in range(5):
                kernels.draw_reach(reach, strat, draw, rnd, tables, agg, out)


@njit
def value_calls(n, value, tables, agg, out):
    for _ in range(n):
        for rnd in range(3):
            for draw in range(5):
                kernels.draw_value(value, draw, rnd, tables, agg, out)


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20_000
    config = dataclasses.replace(load_preset("triple-draw"), buckets=(64, 64, 40, 32))  # as measured (2026-12-03)
    game = GameSetup(config).bucket_game
    dense = draw_tables(game, config.rounds)
    empty = np.zeros((0, 0, 0, 0))
    sets = dense._replace(dense=empty, dense_t=empty)
    n = game.n_values
    rng = np.random.default_rng(0)
    reach, strat = rng.random(n), rng.random(n)
    agg, out, out2 = np.zeros(len(dense.set_size)), np.zeros(n), np.zeros(n)
    widths = [int(w) for w in (GameSetup(config).row_of.max(axis=1) + 1)]
    apart = {"reach": 0.0, "value": 0.0}
    for rnd in range(3):
        value = rng.normal(size=n)
        value[widths[rnd + 1]:] = 0.0  # padding states of the next round hold nothing
        for draw in range(5):
            kernels.draw_reach(reach * (np.arange(n) < widths[rnd]), strat, draw, rnd, dense, agg, out)
            kernels.draw_reach(reach * (np.arange(n) < widths[rnd]), strat, draw, rnd, sets, agg, out2)
            apart["reach"] = max(apart["reach"], float(np.abs(out - out2).max()))
            kernels.draw_value(value, draw, rnd, dense, agg, out)
            kernels.draw_value(value, draw, rnd, sets, agg, out2)
            apart["value"] = max(apart["value"], float(np.abs(out[:widths[rnd]] - out2[:widths[rnd]]).max()))
    timings = {}
    for turn in range(2):
        for name, tables in (("sets", sets), ("dense", dense)):
            for kernel, args in (("reach", (reach, strat, tables, agg, out)), ("value", (reach, tables, agg, out))):
                run = reach_calls if kernel == "reach" else value_calls
                run(1, *args)
                t0 = time.perf_counter()
                run(calls, *args)
                timings.setdefault(f"{kernel}_{name}_us", []).append(
                    round((time.perf_counter() - t0) / calls / 15 * 1e6, 3))
    print(json.dumps({"largest_difference": apart, **timings}))


if __name__ == "__main__":
    main()
