"""Solver benchmarks: compile time, time to target, algorithms side by side, throughput, double draw.

    python scripts/bench/bench_solver.py single        # compile (cold, warm) and single-draw time to 0.1 mbb/hand
    python scripts/bench/bench_solver.py algorithms    # every algorithm on single draw -> results/algorithms/
    python scripts/bench/bench_solver.py algorithms --double   # dcfr-ramp and dcfr on double draw at cap 2
    python scripts/bench/bench_solver.py caps --rounds 3       # an entry's cost at cap 2 and cap 4, back to back
    python scripts/bench/bench_solver.py throughput    # state-updates per second against copy bandwidth
    python scripts/bench/bench_solver.py scaling       # presets and caps: size, memory, time to 1 and 0.1 mbb
    python scripts/bench/bench_solver.py double --minutes 60   # double draw, full resolution (resumable)
    python scripts/bench/bench_solver.py walks --rounds 2      # from its checkpoint: pruned walks against plain

Each prints a plain-text table (``--json`` for JSON). Figures go to BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent.parent
sys.path.insert(0, str(ROOT))

COMPILE_SNIPPET = """
import time
t = time.perf_counter()
from solver.game.config import load_preset
from solver.cfr.engine import Engine
engine = Engine(load_preset('tiny-single-draw'))
engine.run_iterations(1)
engine.exploitability()
engine.average_probabilities()
print(time.perf_counter() - t)
"""


def machine() -> dict:
    import numba
    return {"cpus": os.cpu_count(), "numba_threads": numba.get_num_threads(), "numba": numba.__version__,
            "python": platform.python_version(), "date": time.strftime("%Y-%m-%d")}


def compile_seconds(cache_dir: str) -> float:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", COMPILE_SNIPPET], env=env, capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return float(out.stdout.strip().splitlines()[-1])


def bench_single(args) -> dict:
    from solver.game.config import load_preset
    from solver.cfr.solve import solve

    with tempfile.TemporaryDirectory() as cache:
        cold = compile_seconds(cache)
        warm = compile_seconds(cache)
    result = solve(load_preset("single-draw"), algorithm=args.algorithm, target_mbb=args.target, iterations=args.max_iterations,
                   check_every=args.check_every)
    return {**machine(), "compile_cold_s": cold, "load_warm_s": warm, "algorithm": args.algorithm,
            "check_every": args.check_every,
            "target_mbb": args.target, "iterations": result.iterations, "seconds": result.seconds,
            "exploitability_mbb": result.exploitability.exploitability_mbb,
            "game_value_mbb": result.exploitability.game_value_mbb,
            "seconds_per_iteration": result.seconds / max(result.iterations, 1),
            **iterations_alone(load_preset("single-draw"), args.algorithm, result.iterations, args.rounds)}


def iterations_alone(config, algorithm: str | None, iterations: int, rounds: int) -> dict:
    """``iterations`` of the solver with no check between them, timed ``rounds`` times on fresh
    engines (the median), against as many iterations of the walks of before (every node visited,
    every entry discounted: ``Engine(..., pruned=False)``) in alternating order; the default
    engine's exploitability after them (the solve's, bit for bit: checks change no storage)."""
    from solver.cfr.engine import DEFAULT_ALGORITHM, Engine

    algorithm = algorithm or DEFAULT_ALGORITHM
    times = {"pruned": [], "plain": []}
    exploitability, pruned = None, None
    for r in range(rounds):
        for name in (("pruned", "plain") if r % 2 == 0 else ("plain", "pruned")):
            engine = Engine(config, algorithm, pruned=None if name == "pruned" else False)
            start = time.perf_counter()
            engine.run_iterations(iterations)
            times[name].append(time.perf_counter() - start)
            if name == "pruned" and exploitability is None:
                exploitability, pruned = engine.exploitability().exploitability_mbb, engine.scales is not None
    median = {name: float(np.median(t)) for name, t in times.items()}
    return {"alone_iterations": iterations, "alone_seconds": median["pruned"], "alone_seconds_all": times["pruned"],
            "plain_seconds": median["plain"], "plain_seconds_all": times["plain"],
            "alone_exploitability_mbb": exploitability,
            "alone_pruned": pruned}


ALGORITHM_CHARTS = {"single-draw": "Single-draw Badugi (cap 4): {n} CFR variants",
                    "double-draw-cap2": "Double-draw Badugi (cap 2): the two DCFR schedules"}


def plot_algorithms(name: str, title: str | None = None) -> list[Path]:
    """results/algorithms/NAME-convergence.png drawn from its table (NAME-convergence.csv)."""
    from solver.tables.charts import plot_convergence

    runs = {}
    with open(ROOT / "results" / "algorithms" / f"{name}-convergence.csv", newline="") as f:
        for r in csv.DictReader(f):
            runs.setdefault(r["algorithm"], []).append(
                (int(r["iteration"]), float(r["seconds"]), float(r["exploitability_mbb"])))
    title = title or ALGORITHM_CHARTS[name].format(n=len(runs))
    return plot_convergence(runs, ROOT / "results" / "algorithms" / f"{name}-convergence", title)


def bench_algorithms(args) -> dict:
    """Every algorithm on single draw for ``--iterations``; with ``--double``, the two DCFR
    schedules on double draw at cap 2 until 1 mbb/hand (``--target``) or ``--iterations``."""
    from solver.game.config import DEFAULT_BETS, GameConfig, load_preset
    from solver.cfr.algorithms import DEFAULT_ALGORITHM, algorithm_names
    from solver.cfr.solve import solve

    out = ROOT / "results" / "algorithms"
    out.mkdir(parents=True, exist_ok=True)
    runs, rows = {}, []
    if args.double:
        config, algorithms, name = GameConfig(draws=2, cap=2, bets=DEFAULT_BETS[2]), (DEFAULT_ALGORITHM, "dcfr"), \
            "double-draw-cap2"
        title = "Double-draw Badugi (cap 2): the two DCFR schedules"
    else:
        config, algorithms, name = load_preset("single-draw"), algorithm_names(), "single-draw"
        title = f"Single-draw Badugi (cap 4): {len(algorithms)} CFR variants"
    for algorithm in algorithms:
        result = solve(config, algorithm=algorithm, iterations=args.iterations, check_every=args.check_every,
                       target_mbb=args.target if args.double else None)
        runs[algorithm] = result.convergence
        rows.append({"algorithm": algorithm, "iterations": result.iterations, "seconds": result.seconds,
                     "exploitability_mbb": result.exploitability.exploitability_mbb,
                     "game_value_mbb": result.exploitability.game_value_mbb,
                     **{f"iterations_to_{t}": next((i for i, _, x in result.convergence if x <= t), None)
                        for t in (1.0, 0.1)},
                     **{f"seconds_to_{t}": next((s for _, s, x in result.convergence if x <= t), None)
                        for t in (1.0, 0.1)}})
        print(f"  {algorithm}: {result.exploitability.exploitability_mbb:.4f} mbb after {result.iterations}",
              file=sys.stderr)
    with open(out / f"{name}-convergence.csv", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["algorithm", "iteration", "seconds", "exploitability_mbb"])
        for algorithm, conv in runs.items():
            for i, s, x in conv:
                writer.writerow([algorithm, i, f"{s:.3f}", f"{x:.6g}"])
    plot_algorithms(name, title)
    return {**machine(), "game": config.describe(), "chart": f"results/algorithms/{name}-convergence.png",
            "iterations": args.iterations, "check_every": args.check_every,
            "target_mbb": args.target if args.double else None, "runs": rows}


def bench_throughput(args) -> dict:
    """CFR table traffic per second against a plain copy's, on two games: single draw (its 42 MB of
    tables partly fit in the 32 MB cache; ``--preset`` picks another) and double draw at cap 2
    (0.5 GB: they do not).

    Copies and CFR timings alternate in rounds, so a change in the machine's state (the copy
    rate here moves between about 55 and 85 GB/s from run to run) shows in the spread instead of
    skewing one side; the share uses the median of all copies."""
    import numba
    from numba import njit, prange

    from solver.game.config import DEFAULT_BETS, GameConfig, load_preset
    from solver.cfr.engine import Engine

    @njit(parallel=True, cache=False)
    def parallel_copy(src, dst):
        for i in prange(len(src)):
            dst[i] = src[i]

    src = np.ones(args.copy_mb * (1 << 20) // 4, dtype=np.float32)
    dst = np.zeros_like(src)
    parallel_copy(src, dst)
    np.copyto(dst, src)
    first_game = args.preset or "single-draw"
    games = {first_game: (load_preset(first_game), args.iterations),
             "double draw (cap 2)": (GameConfig(draws=2, cap=2, bets=DEFAULT_BETS[2]), max(args.iterations // 10, 1))}
    engines = {}
    for name, (config, _) in games.items():
        # Walks of every node and entry (the 24 bytes an entry counted above); pruned walks skip some.
        engines[name] = Engine(config, pruned=False)
        engines[name].run_iterations(2)
    copies, numpy_copies = [], []
    timings = {name: {1: [], numba.config.NUMBA_NUM_THREADS: []} for name in games}
    for _ in range(args.rounds):
        copies += [_timed(lambda: parallel_copy(src, dst)) for _ in range(3)]
        numpy_copies.append(_timed(lambda: np.copyto(dst, src)))
        for name, (_, iterations) in games.items():
            for threads in timings[name]:
                numba.set_num_threads(threads)
                timings[name][threads].append(_timed(lambda: engines[name].run_iterations(iterations)) / iterations)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    copy_rates = 2 * src.nbytes / np.array(copies)  # bytes read + written per second
    copy_bw = float(np.median(copy_rates))
    rows = []
    for name, engine in engines.items():
        per_iter = {threads: float(np.median(t)) for threads, t in timings[name].items()}
        threads = max(per_iter)
        # Per iteration each walk reads every regret (strategies); the owner's walk reads and
        # writes its regrets and strategy sums: 2*4 + 4*4 bytes per entry.
        cfr_rate = engine.regret.size * 24 / per_iter[threads]
        rows.append({"game": name, "entries": int(engine.regret.size), "table_bytes": int(2 * engine.regret.nbytes),
                     "seconds_per_iteration": per_iter, "state_updates_per_s": engine.regret.size / per_iter[threads],
                     "cfr_bytes_per_s": cfr_rate, "share_of_copy_bandwidth": cfr_rate / copy_bw,
                     "share_range": [cfr_rate / float(copy_rates.max()), cfr_rate / float(copy_rates.min())]})
    first = rows[0]
    return {**machine(), "rounds": args.rounds, "copy_bytes_per_s": copy_bw,
            "copy_bytes_per_s_range": [float(copy_rates.min()), float(copy_rates.max())],
            "numpy_copy_bytes_per_s": float(np.median(2 * src.nbytes / np.array(numpy_copies))),
            "games": rows,
            # the single-draw figures at top level, as before
            "preset": first_game, "entries": first["entries"], "seconds_per_iteration": first["seconds_per_iteration"],
            "state_updates_per_s": first["state_updates_per_s"], "cfr_bytes_per_s": first["cfr_bytes_per_s"],
            "share_of_copy_bandwidth": first["share_of_copy_bandwidth"]}


def bench_double(args) -> dict:
    from solver.game.config import load_preset
    from solver.game.plan import plan_solve
    from solver.cfr.solve import solve

    config = load_preset("double-draw")
    plan = plan_solve(config)
    out = ROOT / "runs" / "double-draw"
    resume = (out / "checkpoint.npz").is_file()
    t0 = time.perf_counter()
    result = solve(config, algorithm=args.algorithm, target_mbb=1.0, time_limit=args.minutes * 60, out_dir=out,
                   resume=resume, check_every=args.check_every,
                   progress=lambda line: print(line, file=sys.stderr, flush=True))
    wall = time.perf_counter() - t0
    conv = result.convergence
    return {**machine(), "planned_bytes": plan.bytes, "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024,
            "algorithm": result.engine.algorithm,
            "iterations": result.iterations, "seconds": result.seconds, "wall_seconds_this_run": wall,
            "seconds_per_iteration": result.seconds / max(result.iterations, 1),
            "exploitability_mbb": result.exploitability.exploitability_mbb,
            "game_value_mbb": result.exploitability.game_value_mbb,
            "reached_1_mbb_at": next(((i, s) for i, s, x in conv if x <= 1.0), None),
            "convergence": conv}


def bench_walks(args) -> dict:
    """Pruned walks against the walks of before, from the double-draw run's checkpoint
    (``bench_solver.py double`` writes it): ``--iterations`` iterations each way, ``--rounds``
    times in alternating order, one engine at a time (two would not fit in memory)."""
    from solver.cfr.engine import Engine, StorageScales
    from solver.cfr.files import load_checkpoint
    from solver.game.config import load_preset

    config = load_preset("double-draw")
    path = ROOT / "runs" / "double-draw" / "checkpoint.npz"
    if not path.is_file():
        raise SystemExit(f"walks: no checkpoint at {path}: run `bench_solver.py double` first")
    times = {"pruned": [], "plain": []}
    iteration = None
    for r in range(args.rounds):
        for name in (("pruned", "plain") if r % 2 == 0 else ("plain", "pruned")):
            data = load_checkpoint(path, config)
            engine = Engine(config, str(data["algorithm"]), pruned=None if name == "pruned" else False)
            regret, sums, scales = data.pop("regret"), data.pop("strat_sum"), data["scales"]
            if name == "plain" and scales is not None:  # the true regrets and sums, in place, stored as they are
                StorageScales(scales).unscale(engine.layout, regret, sums)
                scales = None
            engine.load_storage(regret, sums, scales)
            engine.iteration = iteration = int(data["iteration"])
            del data, regret, sums
            start = time.perf_counter()
            engine.run_iterations(args.iterations)
            times[name].append((time.perf_counter() - start) / args.iterations)
            del engine
    return {**machine(), "from_iteration": iteration, "iterations": args.iterations, "rounds": args.rounds,
            "pruned_seconds_per_iteration": times["pruned"], "plain_seconds_per_iteration": times["plain"]}


def bench_memory(args) -> dict:
    """Peak resident memory of a whole double-draw solve: engine, walks, checkpoint and strategy file."""
    from solver.game.config import load_preset
    from solver.game.plan import plan_solve
    from solver.cfr.solve import solve

    config = load_preset("double-draw")
    with tempfile.TemporaryDirectory() as out:
        result = solve(config, iterations=args.memory_iterations, out_dir=out)
    return {**machine(), "iterations": result.iterations, "planned_bytes": plan_solve(config).bytes,
            "max_rss_bytes": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}


SCALING_GAMES = [(1, cap) for cap in (1, 2, 3, 4)] + [(2, 1), (2, 2)]


def bench_caps(args) -> dict:
    """What an entry costs at cap 2 and at cap 4 (double draw), timed back to back in alternating
    rounds so that the machine's state (its memory bandwidth moves by 2x between days here)
    weighs on both alike. Entries are the layout's: every (decision node, action, class),
    draw decisions included; checks excluded."""
    import numba

    from solver.cfr.engine import Engine
    from solver.game.config import DEFAULT_BETS, GameConfig

    # (What an entry costs when a walk visits every one: pruned walks skip some.)
    engines = {cap: Engine(GameConfig(draws=2, cap=cap, bets=DEFAULT_BETS[2]), pruned=False) for cap in (2, 4)}
    for engine in engines.values():
        engine.run_iterations(2)
    iterations = {2: 6, 4: 1}
    times = {cap: [] for cap in engines}
    for _ in range(args.rounds):
        for cap, engine in engines.items():
            times[cap].append(_timed(lambda: engine.run_iterations(iterations[cap])) / iterations[cap])
    rows = []
    for cap, engine in engines.items():
        seconds = float(np.median(times[cap]))
        rows.append({"cap": cap, "entries": int(engine.layout.n_entries), "betting_nodes": int((engine.tree.kind == 0).sum()),
                     "seconds_per_iteration": seconds, "ns_per_entry": seconds / engine.layout.n_entries * 1e9,
                     "all_seconds": times[cap]})
    return {**machine(), "threads": numba.get_num_threads(), "rounds": args.rounds, "games": rows,
            "cap4_over_cap2_per_entry": rows[1]["ns_per_entry"] / rows[0]["ns_per_entry"]}


def bench_scaling(args) -> dict:
    """Planned size, memory and time to 1 and 0.1 mbb/hand across draws and caps (time-boxed)."""
    from solver.game.config import DEFAULT_BETS, GameConfig
    from solver.game.plan import plan_solve
    from solver.cfr.solve import solve

    rows = []
    for draws, cap in SCALING_GAMES:
        config = GameConfig(draws=draws, cap=cap, bets=DEFAULT_BETS[draws])
        plan = plan_solve(config)
        result = solve(config, target_mbb=0.1, time_limit=args.budget, check_every=args.check_every)
        conv = result.convergence
        first = lambda target, col: next((row[col] for row in conv if row[2] <= target), None)  # noqa: E731
        rows.append({"draws": draws, "cap": cap, "betting_nodes": plan.counts.betting_nodes,
                     "entries": plan.entries, "planned_bytes": plan.bytes,
                     "seconds_per_iteration": result.seconds / max(result.iterations, 1),
                     "iterations_to_1": first(1.0, 0), "seconds_to_1": first(1.0, 1),
                     "iterations_to_0.1": first(0.1, 0), "seconds_to_0.1": first(0.1, 1),
                     "iterations": result.iterations, "exploitability_mbb": result.exploitability.exploitability_mbb,
                     "game_value_mbb": result.exploitability.game_value_mbb})
        print(f"  draws {draws} cap {cap}: {result.exploitability.exploitability_mbb:.4f} mbb after "
              f"{result.iterations} iterations, {result.seconds:.0f} s", file=sys.stderr)
    return {**machine(), "budget_seconds": args.budget, "games": rows}


def _timed(fn) -> float:
    t = time.perf_counter()
    fn()
    return time.perf_counter() - t


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("what", choices=["single", "algorithms", "throughput", "scaling", "memory", "double", "caps",
                                             "walks"])
    parser.add_argument("--algorithm", default=None, help="single, double: the algorithm (default: the solver's)")
    parser.add_argument("--target", type=float, default=None,
                        help="single: target mbb/hand (default 0.1); algorithms --double: default 1")
    parser.add_argument("--max-iterations", type=int, default=20_000)
    parser.add_argument("--iterations", type=int, default=1000, help="algorithms: iterations per run; "
                        "throughput: iterations per timing")
    parser.add_argument("--check-every", type=int, default=None)
    parser.add_argument("--preset", default=None, help="throughput: first game to time (default single-draw)")
    parser.add_argument("--rounds", type=int, default=7, help="throughput: alternating rounds of copies and CFR; single: rounds of the "
                        "iterations alone, pruned and plain")
    parser.add_argument("--copy-mb", type=int, default=1024, help="throughput: size of the copied array")
    parser.add_argument("--minutes", type=float, default=60.0, help="double: time budget (resumable)")
    parser.add_argument("--budget", type=float, default=240.0, help="scaling: seconds per game at most")
    parser.add_argument("--memory-iterations", type=int, default=2, help="memory: iterations of the double-draw solve")
    parser.add_argument("--double", action="store_true", help="algorithms: double draw at cap 2, to --target 1")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if args.what == "throughput" and args.iterations == 1000:
        args.iterations = 20
    if args.what == "walks" and args.iterations == 1000:
        args.iterations = 3
    if args.target is None:
        args.target = 1.0 if args.double else 0.1
    if args.algorithm is None and args.what == "single":  # (double: a resumed run keeps its own)
        from solver.cfr.engine import DEFAULT_ALGORITHM

        args.algorithm = DEFAULT_ALGORITHM
    if args.check_every is None:
        args.check_every = {"single": 50, "algorithms": 25, "double": 10, "scaling": 25}.get(args.what)
    result = {"single": bench_single, "algorithms": bench_algorithms, "throughput": bench_throughput,
              "scaling": bench_scaling, "memory": bench_memory, "double": bench_double,
              "caps": bench_caps, "walks": bench_walks}[args.what](args)
    if args.json:
        print(json.dumps(result, indent=2, default=str))
    else:
        for key, value in result.items():
            if key == "games" and args.what == "throughput":
                for g in value:
                    print(f"{g['game']:<28}{g['seconds_per_iteration']} s/iteration, "
                          f"{g['cfr_bytes_per_s'] / 1e9:.1f} GB/s, {100 * g['share_of_copy_bandwidth']:.1f} % of copy "
                          f"({100 * g['share_range'][0]:.1f}-{100 * g['share_range'][1]:.1f} %)")
                continue
            if key in ("convergence", "games"):
                continue
            if key == "runs":
                print(f"{'algorithm':<8}{'iter':>7}{'seconds':>9}{'mbb/hand':>11}{'it->1':>7}{'it->0.1':>8}{'s->0.1':>8}")
                for r in value:
                    s01 = f"{r['seconds_to_0.1']:.1f}" if r["seconds_to_0.1"] is not None else "-"
                    print(f"{r['algorithm']:<8}{r['iterations']:>7}{r['seconds']:>9.1f}{r['exploitability_mbb']:>11.4f}"
                          f"{str(r['iterations_to_1.0']):>7}{str(r['iterations_to_0.1']):>8}{s01:>8}")
                continue
            print(f"{key:<28}{value:.6g}" if isinstance(value, float) else f"{key:<28}{value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
