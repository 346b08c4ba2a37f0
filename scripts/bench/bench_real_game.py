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

``curve``: the abstraction curve of triple draw at cap 4: the ``triple-draw`` preset's
abstraction scaled (``--scales 0.25 0.5``: buckets 16/16/10/8 and 32/32/20/16, same recall),
each solved for ``--minutes`` and certified at full resolution; ``--runs DIR`` adds solves
already made (their ``summary.json``: the preset's own run); ``--plot FILE`` draws
certified exploitability against memory and against solving time.

    python scripts/bench/bench_real_game.py curve --scales 0.25 0.5 --minutes 30 --runs results/triple-draw-cap4 \
        --plot results/triple-draw-cap4/abstraction_curve

``triple``: the ``triple-draw`` preset: engine set-up, one abstract iteration, the
abstract best response and the full-resolution certificate of the strategy after
that iteration (minutes each; about 16 GiB).

``prune``: pruned walks (skipping what the opponent never reaches) against full walks in
the abstract solver: double draw at cap 4 (``--buckets`` a round, the whole history
remembered) solved both ways to each count of ``--iterations``: seconds per iteration,
abstract and certified exploitability; with ``--checkpoint FILE`` (a solve's, e.g. the
``triple-draw`` preset's), also iterations from that checkpoint, pruned and full in turn
(``--rounds`` of each) on one engine (nothing is written).

    python scripts/bench/bench_real_game.py prune --buckets 64 --iterations 100 200 \
        --checkpoint runs/triple-draw-cap4/checkpoint.npz --rounds 2

``entries``: the storage entries below every cut found once (a table) against looking
each one up from the recall rule at every walk: the ``triple-draw`` preset's abstraction
scaled by ``--scales`` (the first), ``--warm`` iterations first (compiling), then
``--rounds`` pairs of iterations with the table and without on one engine (in ABBA order:
iterations get dearer as a solve goes on), and one abstract best response each way; the
table's build time and size.

    python scripts/bench/bench_real_game.py entries --scales 1 --warm 1 --rounds 2

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
from solver.cfr.solve import make_engine  # noqa: E402
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
                                         remember_draws=recall.endswith("d"), storage_bits=32)
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


def curve(scales, minutes: float, runs=(), preset: str = "triple-draw") -> list[dict]:
    """Certified exploitability of the preset's abstraction at several sizes (see the docstring)."""
    from solver.cfr.solve import solve
    from solver.game.plan import plan_solve

    base = load_preset(preset)
    rows = []
    for scale in scales:
        config = dataclasses.replace(base, buckets=tuple(max(1, round(b * scale)) for b in base.buckets))
        _say(f"{config.describe()}: solving for {minutes:g} min, then certifying")
        # One progress check after the first iteration (solve() always makes it) and one at the end:
        # the budget goes to iterations.
        result = solve(config, time_limit=60.0 * minutes, check_every=10**9, progress=_say)
        x = result.exploitability
        rows.append({"game": config.describe(), "buckets": list(config.buckets), "memory_bytes": plan_solve(config).bytes,
                     "entries": int(result.engine.layout.n_entries), "iterations": result.iterations,
                     "seconds": result.seconds, "certified_mbb": x.exploitability_mbb,
                     "abstract_mbb": result.progress.exploitability_mbb, "game_value_mbb": x.game_value_mbb,
                     "certificate_seconds": result.certificate_seconds, "run": None})
        _say(json.dumps(rows[-1]))
        del result
    for run in runs:
        s = json.loads((Path(run) / "summary.json").read_text())
        rows.append({"game": s["game"], "buckets": s["config"]["buckets"], "memory_bytes": s["memory_bytes"],
                     "entries": None, "iterations": s["iterations"], "seconds": s["seconds"],
                     "certified_mbb": s["exploitability_mbb"], "abstract_mbb": s.get("abstract_exploitability_mbb"),
                     "game_value_mbb": s["game_value_mbb"], "certificate_seconds": s.get("certificate_seconds"),
                     "run": str(run)})
    return sorted(rows, key=lambda r: r["memory_bytes"])


def plot_curve(rows, path: Path) -> list[Path]:
    from solver.tables.charts import plot_abstraction_curve

    return plot_abstraction_curve(rows, path)


def triple() -> dict:
    config = load_preset("triple-draw")
    t0 = time.perf_counter()
    engine = make_engine(config, streamed=True)  # the preset's storage (16 bits)
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


def prune_study(buckets: int, checkpoints, checkpoint: str | None, rounds: int) -> dict:
    base = load_preset("double-draw")
    config = dataclasses.replace(base, buckets=(buckets,) * base.rounds, recall=base.draws)
    rows = []
    for pruned in (False, True):
        engine = AbstractEngine(config, pruned=pruned)
        engine.run_iterations(1)  # compiling
        seconds = 0.0
        for target in checkpoints:
            t0 = time.perf_counter()
            engine.run_iterations(target - engine.iteration)
            seconds += time.perf_counter() - t0
            abstract, certified = engine.abstract_exploitability(), engine.exploitability()
            rows.append({"game": config.describe(), "pruned": pruned, "iterations": target,
                         "seconds_per_iteration": seconds / (target - 1), "abstract_mbb": abstract.exploitability_mbb,
                         "certified_mbb": certified.exploitability_mbb})
            _say(f"{'pruned' if pruned else 'full'}: {target} its, {rows[-1]['seconds_per_iteration']:.3f} s/it, "
                 f"abstract {abstract.exploitability_mbb:.2f}, certified {certified.exploitability_mbb:.2f}")
    data = {"double": rows}
    if checkpoint and not Path(checkpoint).is_file():
        _say(f"no checkpoint at {checkpoint}: the timing from it is not run")
        data["checkpoint"] = {"missing": str(checkpoint)}
    elif checkpoint:
        from solver.cfr.files import load_checkpoint
        saved = load_checkpoint(Path(checkpoint))
        engine = AbstractEngine(saved["config"], str(saved["algorithm"]), row_of=saved["row_of"])
        engine.load_storage(saved["regret"], saved["strat_sum"])
        engine.iteration = int(saved["iteration"])
        del saved
        times = {"pruned": [], "full": []}
        for _ in range(rounds):
            for pruned in (True, False):
                engine.pruned = pruned
                t0 = time.perf_counter()
                engine.run_iterations(1)
                times["pruned" if pruned else "full"].append(time.perf_counter() - t0)
                _say(f"{engine.config.describe()}, iteration {engine.iteration}: "
                     f"{'pruned' if pruned else 'full'} {times['pruned' if pruned else 'full'][-1]:.1f} s")
        data["checkpoint"] = {"game": engine.config.describe(), "path": str(checkpoint),
                              "from_iteration": engine.iteration - 2 * rounds, **times}
    return data


def entries_study(scale: float, warm: int, rounds: int, preset: str = "triple-draw") -> dict:
    """Iterations and abstract best responses of one engine with and without its table of cut
    entries (see the module docstring). Iterations get dearer as a solve goes on, so each round
    takes the two in turn in the order of the round before reversed (ABBA); the walks are
    compiled first (the best response on a tiny game: the same types)."""
    from solver.cfr.streamed import NO_CUT_ENTRIES, StreamedWalker, cut_entries

    base = dataclasses.replace(load_preset(preset), storage_bits=32)  # the walker below reads float32 sums
    if preset == "triple-draw":  # the preset's buckets when this was measured (2026-12-02; 64 a round: 26.7 GiB)
        base = dataclasses.replace(base, buckets=(64, 64, 40, 32))
    config = dataclasses.replace(base, buckets=tuple(max(1, round(b * scale)) for b in base.buckets))
    tiny = AbstractEngine(dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 4, 2), recall=1,
                                              remember_draws=True))
    tiny.run_iterations(2)
    tiny.progress_exploitability()  # compiling the best-response walks
    engine = AbstractEngine(config)
    t0 = time.perf_counter()
    table = cut_entries(engine.game, engine.game_layout)
    build = time.perf_counter() - t0
    _say(f"{config.describe()}: table of {table.table.size:,} entries ({table.table.nbytes / 1e9:.2f} GB) "
         f"built in {build:.1f} s; {warm} iteration(s) to warm up")
    engine.run_iterations(warm)
    ways = {"table": table, "looked_up": NO_CUT_ENTRIES}
    times = {"table": [], "looked_up": []}
    order = ["table", "looked_up"]
    for _ in range(rounds):
        for name in order:
            engine.cut_entries = ways[name]
            t0 = time.perf_counter()
            engine.run_iterations(1)
            times[name].append(time.perf_counter() - t0)
            _say(f"iteration {engine.iteration}, {name}: {times[name][-1]:.1f} s")
        order.reverse()
    checks = {}
    for name in ("looked_up", "table"):
        walker = StreamedWalker(engine.game, engine.game_layout, engine.bucket_game, ways[name])
        t0 = time.perf_counter()
        walker.exploitability(engine.strat_sum)
        checks[name] = time.perf_counter() - t0
        _say(f"abstract best response, {name}: {checks[name]:.1f} s")
    return {"game": config.describe(), "build_seconds": build, "table_bytes": int(table.table.nbytes),
            "warm": warm, "iterations": times, "abstract_br_seconds": checks}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=["recall", "triple", "curve", "prune", "entries", "all"])
    parser.add_argument("--checkpoint", help="prune: also time iterations from this solve's checkpoint")
    parser.add_argument("--rounds", type=int, default=2,
                        help="prune: pruned and full iterations from the checkpoint; entries: iterations each way")
    parser.add_argument("--warm", type=int, default=1, help="entries: iterations before the timing")
    parser.add_argument("--scales", type=float, nargs="+", default=[0.25, 0.5],
                        help="curve: sizes of the preset's abstraction to solve (bucket counts scaled)")
    parser.add_argument("--minutes", type=float, default=30.0, help="curve: solving minutes per abstraction")
    parser.add_argument("--runs", nargs="*", default=[], help="curve: solve directories to add (summary.json)")
    parser.add_argument("--plot", help="curve: draw the chart to this path (.png and .svg)")
    parser.add_argument("--buckets", type=int, nargs="+", default=[64, 32])
    parser.add_argument("--recalls", nargs="+", default=["2", "1d", "1"],
                        help="recall rules: rounds remembered, 'd' to keep every draw count too (e.g. 1d)")
    parser.add_argument("--iterations", type=int, nargs="+", default=[100, 200])
    parser.add_argument("--preset", default="double-draw", help="the game of the recall study (default double-draw)")
    parser.add_argument("--cap", type=int, help="its cap instead of the preset's")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    data = {"threads": numba.get_num_threads(), "date": time.strftime("%Y-%m-%d"),
            "command": "python scripts/bench/bench_real_game.py " + " ".join(a for a in (argv or sys.argv[1:])
                                                                             if a != "--json")}
    if args.part in ("recall", "all"):
        data["recall"] = recall_study(args.buckets, args.recalls, sorted(args.iterations), args.preset, args.cap)
    if args.part in ("triple", "all"):
        data["triple"] = triple()
    if args.part == "prune":
        data["prune"] = prune_study(args.buckets[0], sorted(args.iterations), args.checkpoint, args.rounds)
    if args.part == "entries":
        data["entries"] = entries_study(args.scales[0], args.warm, args.rounds)
    if args.part == "curve":
        data["curve"] = curve(args.scales, args.minutes, args.runs)
        if args.plot:
            plot_curve(data["curve"], Path(args.plot))
    data["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    for row in data.get("recall", []):
        print(f"{row['game']}, {row['iterations']} its: "
              f"certified {row['certified_mbb']:.1f} mbb/hand (abstract {row['abstract_mbb']:.1f}), "
              f"{row['seconds_per_iteration']:.2f} s/it, certificate {row['certificate_seconds']:.1f} s")
    for row in data.get("curve", []):
        print(f"{row['game']}: {row['memory_bytes'] / 2**30:.2f} GiB, {row['iterations']} iterations in "
              f"{row['seconds'] / 60:.0f} min: certified {row['certified_mbb']:.1f} mbb/hand")
    for row in data.get("prune", {}).get("double", []):
        print(f"{row['game']}, {'pruned' if row['pruned'] else 'full walks'}, {row['iterations']} its: "
              f"{row['seconds_per_iteration']:.3f} s/it, abstract {row['abstract_mbb']:.2f} mbb/hand, "
              f"certified {row['certified_mbb']:.2f}")
    if "pruned" in data.get("prune", {}).get("checkpoint", {}):
        c = data["prune"]["checkpoint"]
        print(f"{c['game']}, from iteration {c['from_iteration']}: pruned "
              + ", ".join(f"{x:.0f}" for x in c["pruned"]) + " s; full " + ", ".join(f"{x:.0f}" for x in c["full"]) + " s")
    if "entries" in data:
        e = data["entries"]
        print(f"{e['game']}: table {e['table_bytes'] / 1e9:.2f} GB built in {e['build_seconds']:.1f} s; "
              f"an iteration {', '.join(f'{x:.1f}' for x in e['iterations']['table'])} s with it, "
              f"{', '.join(f'{x:.1f}' for x in e['iterations']['looked_up'])} s looking entries up; abstract best "
              f"response {e['abstract_br_seconds']['table']:.1f} against {e['abstract_br_seconds']['looked_up']:.1f} s")
    if "triple" in data:
        t = data["triple"]
        print(f"{t['game']}: {t['entries']:,} entries, set-up {t['setup_seconds']:.0f} s, "
              f"{t['iteration_seconds']:.0f} s an iteration, abstract best response {t['abstract_br_seconds']:.0f} s, "
              f"certificate {t['certificate_seconds']:.0f} s ({t['certified_mbb']:.0f} mbb/hand after "
              f"{t['iterations']} iterations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
