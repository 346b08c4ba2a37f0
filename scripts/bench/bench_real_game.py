"""The real game's machinery, measured: the abstract-game solver and its certificate.

    python scripts/bench/bench_real_game.py recall                 # double draw cap 4: what recall and buckets cost
    python scripts/bench/bench_real_game.py triple                 # triple draw cap 4 (the preset): one iteration, certificate
    python scripts/bench/bench_real_game.py recall --iterations 50 100 --buckets 32
    python scripts/bench/bench_real_game.py recall --recalls 1d --buckets 64   # recall 1, every draw kept

``recall``: double draw at cap 4 solved in its abstract game (streamed walks, bucket
vectors) for each (buckets, recall) pair, certified at full resolution after each
count of ``--iterations``: certified and abstract exploitability, seconds per
iteration, certificate seconds. Recall 2 remembers everything in double draw;
recall 1 forgets the first round at the last one; ``1d`` (``remember_draws``)
forgets only its betting, not its draw counts.

``triple``: the ``triple-draw`` preset: engine set-up, one abstract iteration, the
abstract best response and the full-resolution certificate of the strategy after
that iteration (minutes each; about 16 GiB).

Prints a table; ``--json`` for run_all.py.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numba  # noqa: E402

from solver.cfr.abstract import AbstractEngine  # noqa: E402
from solver.game.config import load_preset  # noqa: E402


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def recall_study(buckets_list, recalls, checkpoints, preset: str = "double-draw", cap: int | None = None) -> list[dict]:
    rows = []
    base = load_preset(preset)
    if cap is not None:
        base = dataclasses.replace(base, cap=cap)
    for buckets in buckets_list:
        for recall in recalls:
            config = dataclasses.replace(base, buckets=(buckets,) * base.rounds, recall=int(recall[0]),
                                         remember_draws=recall.endswith("d"))
            t0 = time.perf_counter()
            engine = AbstractEngine(config)
            setup = time.perf_counter() - t0
            _say(f"{config.describe()}: set up in {setup:.1f} s")
            spent = 0.0
            for target in checkpoints:
                t0 = time.perf_counter()
                engine.run_iterations(target - engine.iteration)
                spent += time.perf_counter() - t0
                t0 = time.perf_counter()
                abstract = engine.abstract_exploitability()
                abstract_s = time.perf_counter() - t0
                t0 = time.perf_counter()
                certified = engine.exploitability()
                certificate_s = time.perf_counter() - t0
                row = {"game": config.describe(), "buckets": buckets, "recall": recall, "iterations": target,
                       "seconds_per_iteration": spent / target, "setup_seconds": setup,
                       "abstract_mbb": abstract.exploitability_mbb, "certified_mbb": certified.exploitability_mbb,
                       "game_value_mbb": certified.game_value_mbb, "abstract_br_seconds": abstract_s,
                       "certificate_seconds": certificate_s, "entries": int(engine.layout.n_entries)}
                _say(json.dumps(row))
                rows.append(row)
    return rows


def triple() -> dict:
    config = load_preset("triple-draw")
    t0 = time.perf_counter()
    engine = AbstractEngine(config)
    setup = time.perf_counter() - t0
    _say(f"{config.describe()}: set up in {setup:.1f} s; {engine.layout.n_entries:,} entries")
    t0 = time.perf_counter()
    engine.run_iterations(1)
    first = time.perf_counter() - t0  # includes compiling or loading the kernels
    t0 = time.perf_counter()
    engine.run_iterations(1)
    iteration = time.perf_counter() - t0
    _say(f"iterations: first {first:.1f} s (with compile), second {iteration:.1f} s")
    t0 = time.perf_counter()
    abstract = engine.abstract_exploitability()
    abstract_s = time.perf_counter() - t0
    _say(f"abstract best response: {abstract.exploitability_mbb:.1f} mbb/hand in {abstract_s:.1f} s")
    t0 = time.perf_counter()
    certified = engine.exploitability()
    certificate_s = time.perf_counter() - t0
    _say(f"certificate: {certified.exploitability_mbb:.1f} mbb/hand in {certificate_s:.1f} s")
    return {"game": config.describe(), "entries": int(engine.layout.n_entries), "setup_seconds": setup,
            "first_iteration_seconds": first, "iteration_seconds": iteration, "iterations": engine.iteration,
            "abstract_mbb": abstract.exploitability_mbb, "abstract_br_seconds": abstract_s,
            "certified_mbb": certified.exploitability_mbb, "certificate_seconds": certificate_s}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=["recall", "triple", "all"])
    parser.add_argument("--buckets", type=int, nargs="+", default=[64, 32])
    parser.add_argument("--recalls", nargs="+", default=["2", "1d", "1"],
                        help="recall rules: rounds remembered, 'd' to keep every draw count too (e.g. 1d)")
    parser.add_argument("--iterations", type=int, nargs="+", default=[100, 200])
    parser.add_argument("--preset", default="double-draw", help="the game of the recall study (default double-draw)")
    parser.add_argument("--cap", type=int, help="its cap instead of the preset's")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    data = {"threads": numba.get_num_threads(), "date": time.strftime("%Y-%m-%d")}
    if args.part in ("recall", "all"):
        data["recall"] = recall_study(args.buckets, args.recalls, sorted(args.iterations), args.preset, args.cap)
    if args.part in ("triple", "all"):
        data["triple"] = triple()
    data["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    for row in data.get("recall", []):
        print(f"{row['game']}, {row['iterations']} its: "
              f"certified {row['certified_mbb']:.1f} mbb/hand (abstract {row['abstract_mbb']:.1f}), "
              f"{row['seconds_per_iteration']:.2f} s/it, certificate {row['certificate_seconds']:.1f} s")
    if "triple" in data:
        t = data["triple"]
        print(f"{t['game']}: {t['entries']:,} entries, set-up {t['setup_seconds']:.0f} s, "
              f"{t['iteration_seconds']:.0f} s an iteration, abstract best response {t['abstract_br_seconds']:.0f} s, "
              f"certificate {t['certificate_seconds']:.0f} s ({t['certified_mbb']:.0f} mbb/hand after "
              f"{t['iterations']} iterations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
