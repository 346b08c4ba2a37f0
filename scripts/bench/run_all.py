"""Run every benchmark and rewrite BENCHMARKS.md from their figures.

    pip install -e '.[test,bench]'
    python scripts/bench/run_all.py                      # everything but the hour-long double-draw solve
    python scripts/bench/run_all.py --only openspiel     # one benchmark; the others' last figures stay
    python scripts/bench/run_all.py --double-minutes 60  # also (re)run the double-draw solve, resumable
    python scripts/bench/run_all.py --render             # only rewrite BENCHMARKS.md from results/benchmarks/

Each benchmark's JSON goes to results/benchmarks/NAME.json; BENCHMARKS.md is
rendered from whatever JSON files are there, with the command behind each table.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "results" / "benchmarks"
PY = sys.executable

BENCHMARKS = {
    "evaluator": ["scripts/bench/bench_evaluator.py", "--hands", "5000000", "--pokerkit-hands", "20000", "--json"],
    "openspiel": ["scripts/bench/bench_openspiel.py", "--preset", "tiny-single-draw", "--target", "0.1", "--json"],
    "single": ["scripts/bench/bench_solver.py", "single", "--check-every", "5", "--json"],
    "throughput": ["scripts/bench/bench_solver.py", "throughput", "--json"],
    "algorithms": ["scripts/bench/bench_solver.py", "algorithms", "--iterations", "1000", "--check-every", "5",
                   "--json"],
    "caps": ["scripts/bench/bench_solver.py", "caps", "--rounds", "3", "--json"],
    # (from the checkpoint of the double-draw run: `run_all.py --only double` first)
    "walks": ["scripts/bench/bench_solver.py", "walks", "--rounds", "2", "--json"],
    "algorithms_double": ["scripts/bench/bench_solver.py", "algorithms", "--double", "--iterations", "600",
                          "--check-every", "10", "--json"],
    "scaling": ["scripts/bench/bench_solver.py", "scaling", "--budget", "150", "--json"],
    "memory": ["scripts/bench/bench_solver.py", "memory", "--json"],
    "buckets": ["scripts/bench/bench_buckets.py", "--json"],
    "simulator": ["scripts/bench/bench_simulator.py", "--json"],
    "load": ["scripts/bench/bench_load.py", "--before", "74a7de1", "--json"],
    "real": ["scripts/bench/bench_real_game.py", "all", "--json"],
    "recall": ["scripts/bench/bench_real_game.py", "recall", "--preset", "triple-draw", "--cap", "1", "--recalls", "3",
               "2", "1d", "1", "--buckets", "32", "--iterations", "100", "200", "--json"],
    "ray": ["scripts/bench/bench_ray.py", "--actors", "2", "--iterations", "20", "--json"],
    "ray_cap4": ["scripts/bench/bench_ray.py", "--cap", "4", "--actors", "2", "--iterations", "10", "--json"],
    "prune": ["scripts/bench/bench_real_game.py", "prune", "--buckets", "64", "--iterations", "100", "200",
              "--checkpoint", "runs/triple-draw-cap4/checkpoint.npz", "--rounds", "2", "--json"],
    "recall_buckets": ["scripts/bench/bench_real_game.py", "recall", "--preset", "triple-draw", "--cap", "1",
                       "--recalls", "0d", "1d", "--buckets", "16", "64", "--iterations", "100", "200", "--json"],
    "recall_floor": ["scripts/bench/bench_real_game.py", "recall", "--preset", "triple-draw", "--cap", "1",
                     "--recalls", "3", "--buckets", "64", "128", "--iterations", "200", "400", "--json"],
    "entries": ["scripts/bench/bench_real_game.py", "entries", "--scales", "1", "--warm", "1", "--rounds", "2",
                "--json"],
}


def _rule(recall: str) -> str:
    """A recall rule of the recall study, in words."""
    rounds = int(recall[0])
    text = f"{rounds} round{'' if rounds == 1 else 's'}"
    return text + " + every draw" if recall.endswith("d") else text


def run(name: str, args: list[str]) -> None:
    print(f"running {name}: python {' '.join(args)}", file=sys.stderr, flush=True)
    t0 = time.time()
    out = subprocess.run([PY, *args], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        raise SystemExit(f"benchmark {name} failed:\n{out.stderr[-2000:]}")
    data = json.loads(out.stdout[out.stdout.index("{"):])
    data["command"] = "python " + " ".join(a for a in args if a != "--json")
    data["wall_seconds"] = round(time.time() - t0, 1)
    DATA.mkdir(parents=True, exist_ok=True)
    target = DATA / f"{name}.json"
    if target.is_file():
        # Keep the run before this one: BENCHMARKS.md compares the two.
        (DATA / "previous").mkdir(exist_ok=True)
        target.replace(DATA / "previous" / f"{name}.json")
    target.write_text(json.dumps(data, indent=2, default=str) + "\n")


def _run_of(data: dict, solver: str) -> dict:
    return next(r for r in data["runs"] if r["solver"].startswith(solver))


# Headline figure of each benchmark, for the rerun comparison: (label, getter).
HEADLINES = {
    "evaluator": [("evaluator hands/s", lambda d: d["ours_hands_per_s"]),
                  ("× pokerkit", lambda d: d["ratio"])],
    "openspiel": [("OpenSpiel CFR+ seconds to target", lambda d: _run_of(d, "OpenSpiel")["seconds"]),
                  ("our DCFR seconds to target", lambda d: _run_of(d, "ours, dcfr")["seconds"]),
                  ("our DCFR: × OpenSpiel", lambda d: _run_of(d, "ours, dcfr")["speedup_vs_openspiel"])],
    "single": [("single draw: seconds to 0.1 mbb/hand", lambda d: d["seconds"]),
               ("cold compile seconds", lambda d: d["compile_cold_s"])],
    "throughput": [("share of copy bandwidth", lambda d: d["share_of_copy_bandwidth"]),
                   ("double draw cap 2: share of copy bandwidth", lambda d: d["games"][1]["share_of_copy_bandwidth"]),
                   ("single draw: seconds per iteration, 2 threads", lambda d: d["seconds_per_iteration"]["2"])],
    "algorithms": [(f"{alg}: exploitability after the run",
                    (lambda a: lambda d: next(r["exploitability_mbb"] for r in d["runs"] if r["algorithm"] == a))(alg))
                   for alg in ["dcfr-ramp", "dcfr", "cfr+", "linear", "cfr"]],
    "scaling": [("first scaling game: seconds per iteration", lambda d: d["games"][0]["seconds_per_iteration"])],
    "memory": [("double draw: peak resident bytes", lambda d: d["max_rss_bytes"])],
    "simulator": [("simulator hands/s, first pairing", lambda d: d["runs"][0]["hands_per_s"])],
    "load": [("double draw: seconds to load a strategy", lambda d: min(r["load_seconds"] for r in d["runs"]["after"])),
             ("double draw: peak memory loading a strategy", lambda d: d["runs"]["after"][0]["peak_rss_bytes"])],
}


def rerun_rows() -> list[str]:
    """Previous run against the latest, headline figures only."""
    rows = []
    for name, figures in HEADLINES.items():
        now, before = load(name), None
        path = DATA / "previous" / f"{name}.json"
        if now is None or not path.is_file():
            continue
        before = json.loads(path.read_text())
        # A run of another algorithm or check spacing is not a rerun: say so instead of a ratio.
        setup = lambda d: (d.get("algorithm", "dcfr"), d.get("check_every", 50))  # noqa: E731
        if name == "single" and setup(before) != setup(now):
            rows.append(f"| single draw: not compared (previous run {setup(before)[0]}, checks every "
                        f"{setup(before)[1]}; latest {setup(now)[0]}, every {setup(now)[1]}) | — | — | — |")
            figures = figures[1:]  # the compile time still compares
        for label, get in figures:
            try:
                a, b = float(get(before)), float(get(now))
            except (KeyError, IndexError, TypeError, StopIteration):
                continue
            rows.append(f"| {label} | {a:,.4g} | {b:,.4g} | {b / a:.2f} |" if a else f"| {label} | {a} | {b} | — |")
    if not rows:
        return []
    return ["## Rerun agreement", "",
            "Each `run_all.py` run keeps the one before it in `results/benchmarks/previous/`; headline figures of "
            "the two, side by side (the machine is shared, so single runs move by several percent):", "",
            "| figure | previous run | latest run | latest / previous |", "|---|---:|---:|---:|", *rows, "",
            "Not noise, 2026-12-02: the single-draw solve, the algorithms and the scaling runs of that day walk "
            "pruned (skipping what the opponent never reaches, the discounts kept as factors; `dcfr` still walks "
            "everything, and its figure is the same to the bit); the throughput table times walks of every node "
            "either way. The single-draw solve and the cold compile were also timed on a faster day than the "
            "run before (the same day's walks of every node: 4.08 s for 456 iterations, \"Single draw at full "
            "resolution\").", ""]


def cap4_rows() -> list[str]:
    """The triple-draw preset's solve (its segments' logs and summary: ``cap4.json``, from
    ``run_log.py``) and the abstraction curve (``curve.json``)."""
    out = []
    run = load("cap4")
    if run and run.get("summary"):
        s = run["summary"]
        out += ["## Triple draw at cap 4: the preset's solve and its certificate", "",
                f"`{run.get('command', 'python scripts/bench/run_log.py')}` ({run.get('date', '')}), over the "
                f"log{'s' if len(run['segments']) > 1 else ''} of `"
                + (run.get("solve_command") or "badugi solve --preset triple-draw --out runs/triple-draw-cap4 "
                   "--time-limit 9000 --check-every 10")
                + "` run under `/usr/bin/time -v`"
                + (" and resumed with `--resume` after each stop" if len(run["segments"]) > 1 else "")
                + " (2 threads, this project's machine).", "",
                f"{s['game']}: {s['iterations']} iterations"
                + (f" of {s['algorithm']}" if s.get("algorithm") else "")
                + f" in {s['seconds'] / 60:.0f} minutes of solving "
                f"({s['threads']} threads); planned memory {s['memory_bytes'] / 2**30:.1f} GiB. The certificate "
                f"(exact best responses at full resolution and the game value: three walks of the 242-million-node "
                f"tree) took {s['certificate_seconds'] / 60:.1f} minutes: exploitability "
                f"**{s['exploitability_mbb']:.1f} mbb/hand** (the button's best response wins {s['br_button_mbb']:+.1f} "
                f"against the big blind's strategy, the big blind's {s['br_big_blind_mbb']:+.1f} against the "
                f"button's), button's value "
                f"{s['game_value_mbb']:+.1f} mbb/hand; in the abstract game "
                f"{s['abstract_exploitability_mbb']:.1f} mbb/hand.", "",
                "| segment (log) | iterations | wall seconds | peak resident | how it ended |", "|---|---|---:|---:|---|"]
        for g in run["segments"]:
            peak = f"{g['peak_rss_bytes'] / 2**30:.1f} GiB" if g["peak_rss_bytes"] else "—"
            out.append(f"| {g['log']} | {g['from_iteration']}–{g['to_iteration'] if g['to_iteration'] is not None else '?'} "
                       f"| {fmt(g['wall_seconds'], 0)} | {peak} | {g['ended']} |")
        out += ["", *run.get("notes", []), ""]
    curve = load("curve")
    if curve and curve.get("curve"):
        out += ["## The abstraction curve: triple draw at cap 4", "",
                f"`{curve.get('command', 'python scripts/bench/bench_real_game.py curve')}` ({curve.get('date', '')}, "
                f"{curve['threads']} threads): the preset's abstraction "
                "at several sizes (bucket counts scaled, the same recall), each certified at full resolution; chart "
                "in `results/triple-draw-cap4/abstraction_curve.png`.", "",
                "| buckets | strategy memory | iterations | solving minutes | certified mbb/hand | abstract mbb/hand |",
                "|---|---:|---:|---:|---:|---:|"]
        for r in curve["curve"]:
            out.append(f"| {'/'.join(str(b) for b in r['buckets'])} | {r['memory_bytes'] / 2**30:.1f} GiB | "
                       f"{r['iterations']} | {r['seconds'] / 60:.0f} | {r['certified_mbb']:.1f} | "
                       f"{fmt(r['abstract_mbb'], 1)} |")
        for note in curve.get("notes", []):
            out += ["", note]
        out.append("")
    return out


def prune_rows() -> list[str]:
    """The section on pruned walks in the abstract solver."""
    prune = load("prune")
    if not prune:
        return []
    out = ["## Pruned walks in the abstract solver", "", f"`{prune['command']}` ({prune.get('date', '')}, "
           f"{prune['threads']} threads)", "",
           "A pruned walk skips every subtree below an opponent's action that leaves his reach all zero (where "
           "some action has positive regret, regret matching gives the others probability exactly zero); the "
           "traverser's regrets "
           "are the full walk's, and each seat's strategy sums are added in the other seat's walk (the strategies "
           "the other faced). Double draw at cap 4, solved both ways, each certified at full resolution:", "",
           "| walks | iterations | s/iteration | abstract mbb/hand | certified mbb/hand |", "|---|---:|---:|---:|---:|"]
    for r in prune["prune"]["double"]:
        out.append(f"| {'pruned' if r['pruned'] else 'full'} | {r['iterations']} | {r['seconds_per_iteration']:.3f} | "
                   f"{r['abstract_mbb']:.2f} | {r['certified_mbb']:.2f} |")
    c = prune["prune"].get("checkpoint")
    if c and "missing" in c:
        out += ["", f"(No checkpoint at {c['missing']}: the triple-draw timing was not run.)"]
    elif c:
        out += ["", f"{c['game']}, iterations from the checkpoint {c['path']} (iteration {c['from_iteration']}), "
                "pruned and full in turn on one engine: pruned " + ", ".join(f"{x:.0f}" for x in c["pruned"])
                + " s; full " + ", ".join(f"{x:.0f}" for x in c["full"]) + " s (the first of each may include "
                "compiling)."]
    for note in prune.get("notes", []):
        out += ["", note]
    return out + [""]


def entries_rows() -> list[str]:
    """The section on the table of storage entries below the cuts."""
    data = load("entries")
    if not data:
        return []
    e = data["entries"]
    its, br = e["iterations"], e["abstract_br_seconds"]
    out = ["## Storage entries found once", "", f"`{data['command']}` ({data.get('date', '')}, {data['threads']} "
           "threads)", "",
           "A streamed walk fills each cut's subtree from the one shape every cut shares; each decision node's "
           "storage entry comes from the recall rule (the node's key: round, phase, pot and the records kept, "
           "looked up in the rule's tables). Those entries are now found once, in a table of "
           f"{e['table_bytes'] / 1e9:.2f} GB built in {e['build_seconds']:.1f} s, instead of at every walk. "
           f"{e['game']}, after {e['warm']} iteration(s), one engine, iterations with the table and without in turn "
           "(ABBA: an iteration gets dearer as the solve goes on), then one abstract best response each way:",
           "", "| entries | iterations (s each) | mean | abstract best response |", "|---|---|---:|---:|"]
    for name, label in (("table", "from the table"), ("looked_up", "looked up at every walk")):
        xs = its[name]
        out.append(f"| {label} | {', '.join(f'{x:.1f}' for x in xs)} | {sum(xs) / len(xs):.1f} | "
                   f"{br[name]:.1f} s |")
    for note in data.get("notes", []):
        out += ["", note]
    return out + [""]


def load(name: str) -> dict | None:
    path = DATA / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def fmt(x, digits=3) -> str:
    if x is None:
        return "—"
    if isinstance(x, float):
        return f"{x:,.{digits}f}" if abs(x) < 1e5 else f"{x:,.0f}"
    return f"{x:,}" if isinstance(x, int) else str(x)


def render() -> str:
    out = ["# Benchmarks", "",
           "Generated by `python scripts/bench/run_all.py` from `results/benchmarks/*.json` (do not edit by "
           "hand). The machine is this project's development machine: 2 cores, 24 GiB, shared and noisy, so "
           "comparisons are taken within one run. Each table names the command that produced it.", ""]
    ev = load("evaluator")
    if ev:
        out += ["## Hand evaluator against pokerkit", "", f"`{ev['command']}` ({ev.get('date', '')})", "",
                "| evaluator | hands | hands/s | × pokerkit |", "|---|---:|---:|---:|",
                f"| ours: `Evaluator.evaluate_batch` (int8 cards, input checks included) | {ev['hands']:,} | "
                f"{ev['ours_hands_per_s']:,.0f} | {ev['ratio']:,.0f} |",
                f"| pokerkit {ev['pokerkit']}: `BadugiHand.from_game` | {ev['pokerkit_hands']:,} | "
                f"{ev['pokerkit_hands_per_s']:,.0f} | 1 |", "",
                f"Target: at least 10,000× pokerkit. Compile on an empty cache: table build "
                f"{ev['compile_cold_build_s']:.2f} s, first batch {ev['compile_cold_first_call_s']:.2f} s; "
                f"from the cache {ev['cached_build_s']:.2f} s and {ev['cached_first_call_s']:.2f} s.", ""]
    osp = load("openspiel")
    if osp:
        out += ["## Solver against OpenSpiel on the same tiny game", "", f"`{osp['command']}`", "",
                f"{osp['game']}, each solver to {osp['target_mbb']} mbb/hand; only iteration time counts.", "",
                "| solver | iterations | seconds | exploitability (mbb/hand) | game value (mbb/hand) | speed-up |",
                "|---|---:|---:|---:|---:|---:|"]
        for r in osp["runs"]:
            out.append(f"| {r['solver']} | {r['iterations']:,} | {r['seconds']:.3f} | {r['exploitability_mbb']:.4f} "
                       f"| {r['game_value_mbb']:.4f} | {r['speedup_vs_openspiel']:,.0f}× |")
        first = osp["runs"][0]
        out += ["", f"OpenSpiel's CFR+ on the Python game object (calling back into Python at every state) "
                f"costs {first['python_game_seconds_per_iteration']:.2f} s per iteration; the table uses the "
                f"game exported to EFG and loaded natively ({first['export_seconds']:.1f} s). Target: at least "
                "100× OpenSpiel's CFR+ to the same exploitability.", ""]
    single = load("single")
    if single:
        out += ["## Single draw at full resolution", "", f"`{single['command']}`", "",
                "| measure | figure |", "|---|---:|",
                f"| Numba compile of all solver kernels, empty cache | {single['compile_cold_s']:.1f} s |",
                f"| load from a warm cache | {single['load_warm_s']:.2f} s |",
                f"| {single.get('algorithm', 'dcfr')} iterations to {single['target_mbb']} mbb/hand (checked every "
                f"{single.get('check_every', 50)}) | {single['iterations']:,} |",
                f"| seconds to {single['target_mbb']} mbb/hand (compile excluded, checks included) | "
                f"{single['seconds']:.1f} s |",
                f"| threads | {single['numba_threads']} |",
                f"| button's game value | {single['game_value_mbb']:+.2f} mbb/hand |"]
        if "alone_seconds" in single:
            n = single["alone_iterations"]
            out += [f"| the same {n:,} iterations alone (no checks; fresh engine, median of "
                    f"{len(single['alone_seconds_all'])}), {'pruned walks' if single['alone_pruned'] else 'plain walks'}"
                    f" | {single['alone_seconds']:.2f} s |",
                    f"| {n:,} iterations with the walks of before (every node, every entry discounted), in turn "
                    f"with them | {single['plain_seconds']:.2f} s ({single['alone_seconds'] / single['plain_seconds']:.2f}"
                    " of it) |",
                    f"| exploitability after the {n:,} iterations alone | {single['alone_exploitability_mbb']:.4f} "
                    "mbb/hand |"]
        out += ["", "Targets: 0.1 mbb/hand in under a minute; cold compile under 30 s; issue 19: 0.1 mbb/hand in at "
                "most 500 iterations and 3 s (the iterations alone).", ""]
    tp = load("throughput")
    if tp:
        games = tp.get("games") or [{"game": tp["preset"], **tp, "table_bytes": 8 * tp["entries"]}]
        threads = list(games[0]["seconds_per_iteration"])
        lo, hi = tp.get("copy_bytes_per_s_range", [tp["copy_bytes_per_s"]] * 2)
        out += ["## Throughput against memory bandwidth", "", f"`{tp['command']}`", "",
                "Each iteration must move 24 bytes per storage entry (both walks read every regret; the owner's "
                "walk reads and writes its regrets and strategy sums) when its walks visit every node "
                "(`Engine(..., pruned=False)`, what this table times; the default pruned walks skip subtrees the "
                "opponent never reaches, so they move less: \"Single draw at full resolution\" and \"Double draw "
                "at full resolution\" compare the two). Copies and CFR timings alternate in "
                f"{tp.get('rounds', 1)} rounds; the share is against the median copy, in brackets against the "
                "fastest and the slowest copy of the run.", "",
                "| game | storage entries | regrets + sums | seconds per iteration, " + " / ".join(f"{k} thread(s)" for k in threads)
                + " | state-updates/s | table traffic | share of copy bandwidth |",
                "|---|---:|---:|---:|---:|---:|---:|"]
        for g in games:
            share = f"{100 * g['share_of_copy_bandwidth']:.1f} %"
            if "share_range" in g:
                share += f" ({100 * g['share_range'][0]:.1f}–{100 * g['share_range'][1]:.1f} %)"
            out.append(f"| {g['game']} | {g['entries']:,} | {g['table_bytes'] / 2**20:,.0f} MiB | "
                       + " / ".join(f"{v:.4f}" for v in g["seconds_per_iteration"].values())
                       + f" | {g['state_updates_per_s']:.3g} | {g['cfr_bytes_per_s'] / 1e9:.1f} GB/s | {share} |")
        out += ["", f"Plain copy, Numba `prange` on {tp['numba_threads']} threads, read + write: median "
                f"{tp['copy_bytes_per_s'] / 1e9:.1f} GB/s (range {lo / 1e9:.1f}–{hi / 1e9:.1f}); numpy "
                f"single-thread copy {tp['numpy_copy_bytes_per_s'] / 1e9:.1f} GB/s.", "",
                "Target: 30 % or more of the copy bandwidth.", ""]
    sc = load("scaling")
    double = load("double")
    if sc:
        out += ["## Scaling across presets and caps", "", f"`{sc['command']}` (each game stops at 0.1 mbb/hand "
                f"or {sc['budget_seconds']:.0f} s)", "",
                "| draws | cap | betting nodes | entries | planned memory | s/iteration | iterations to 1 | "
                "seconds to 1 | iterations to 0.1 | seconds to 0.1 |", "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for g in sc["games"]:
            out.append(f"| {g['draws']} | {g['cap']} | {g['betting_nodes']:,} | {g['entries']:,} | "
                       f"{g['planned_bytes'] / 2**30:.2f} GiB | {g['seconds_per_iteration']:.4f} | "
                       f"{fmt(g['iterations_to_1'])} | {fmt(g['seconds_to_1'], 1)} | {fmt(g['iterations_to_0.1'])} | "
                       f"{fmt(g['seconds_to_0.1'], 1)} |")
        if double:
            reached = double.get("reached_1_mbb_at")
            out.append(f"| 2 | 4 | 395,508 | 431,894,736 | {double['planned_bytes'] / 2**30:.2f} GiB | "
                       f"{double['seconds_per_iteration']:.2f} | {fmt(reached[0] if reached else None)} | "
                       f"{fmt(reached[1] if reached else None, 0)} | — | — |")
        out.append("")
    memory = load("memory")
    if double:
        reached = double.get("reached_1_mbb_at")
        out += ["## Double draw at full resolution (cap 4)", "", f"`{double['command']}` ({double.get('date', '')}; "
                f"algorithm {double.get('algorithm', 'dcfr')})", "",
                "| measure | figure |", "|---|---:|",
                f"| planned memory | {double['planned_bytes'] / 2**30:.2f} GiB |",
                f"| peak resident memory of this run | {double['max_rss_bytes'] / 2**30:.2f} GiB |",
                *([f"| peak resident memory of a whole solve with its outputs, now "
                   f"(`{memory['command']}`) | {memory['max_rss_bytes'] / 2**30:.2f} GiB |"] if memory else []),
                f"| seconds per iteration (checks every 20 iterations included) | {double['seconds_per_iteration']:.2f} |",
                f"| iterations and seconds to 1 mbb/hand | "
                + (f"{reached[0]:,} in {reached[1]:,.0f} s |" if reached else "not reached |"),
                f"| after {double['iterations']:,} iterations | {double['exploitability_mbb']:.3f} mbb/hand, "
                f"button's value {double['game_value_mbb']:+.2f} mbb/hand |", ""]
        walks = load("walks")
        if walks:
            p, q = walks["pruned_seconds_per_iteration"], walks["plain_seconds_per_iteration"]
            out += [f"Pruned walks against the walks of before (every node visited, every entry discounted), from "
                    f"the run's checkpoint at iteration {walks['from_iteration']}: `{walks['command']}` "
                    f"({walks['date']}), {walks['iterations']} iterations each way, {walks['rounds']} times in "
                    f"turn: {', '.join(f'{x:.2f}' for x in p)} s an iteration pruned, "
                    f"{', '.join(f'{x:.2f}' for x in q)} s walking everything "
                    f"(on average {sum(p) / len(p) / (sum(q) / len(q)):.2f} of it).", ""]
        out += ["Targets: fits in 16 GB; issue 19: 1 mbb/hand in at most 10 minutes.", ""]
    for ray in (load("ray"), load("ray_cap4")):
        if not ray:
            continue
        out += ["## Ray: subtrees in actors against one process" + (" (double draw, cap 4)" if ray.get("cap") == 4
                                                                      else ""), "",
                f"`{ray['command']}` ({ray['date']}; needs `pip install -e '.[ray]'`)", "",
                f"{ray['game']}, {ray['iterations']} iterations each way after one untimed: one process with "
                f"{ray['numba_threads']} Numba threads, against a local Ray runtime whose driver walks the trunk "
                f"and {ray['actors']} actors (one CPU, one thread each) walk the {ray['subtrees']} subtrees. "
                f"Storage equal bit for bit at the end: {'yes' if ray['same_bits'] else 'NO'}.", "",
                "| measure | one process | Ray |", "|---|---:|---:|",
                f"| seconds per iteration | {ray['one_process_seconds_per_iteration']:.3f} | "
                f"{ray['ray_seconds_per_iteration']:.3f} ({100 * ray['overhead']:+.1f}%) |",
                f"| peak resident memory | {ray['one_process_peak_rss_bytes'] / 2**30:.2f} GiB (the one-process "
                f"engine) | "
                + (f"driver: {ray['driver_peak_rss_bytes'] / 2**30:.2f} GiB; " if "driver_peak_rss_bytes" in ray else "")
                + "actors: " + ", ".join(f"{b / 2**30:.2f} GiB" for b in ray["actor_peak_rss_bytes"]) + " |",
                f"| bytes between driver and actors per iteration | 0 | {ray['bytes_per_iteration'] / 2**20:.1f} MiB |",
                "", "Target (issue 16): at most 15% per iteration over one process with two threads.", ""]
    alg = load("algorithms")
    if alg:
        out += ["## The algorithms on single draw", "", f"`{alg['command']}` (writes results/algorithms/)", "",
                "| algorithm | iterations | seconds | exploitability (mbb/hand) | iterations to 1 | iterations to 0.1 "
                "| seconds to 0.1 |", "|---|---:|---:|---:|---:|---:|---:|"]
        for r in alg["runs"]:
            out.append(f"| {r['algorithm']} | {r['iterations']:,} | {r['seconds']:.1f} | {r['exploitability_mbb']:.4f} | "
                       f"{fmt(r['iterations_to_1.0'])} | {fmt(r['iterations_to_0.1'])} | {fmt(r['seconds_to_0.1'], 1)} |")
        out += ["", "![convergence of the CFR variants](results/algorithms/single-draw-convergence.png)", ""]
    caps = load("caps")
    if caps:
        out += ["## What an entry costs at cap 2 and at cap 4", "", f"`{caps['command']}`", "",
                f"Double draw, one process with {caps['threads']} threads, the two games timed back to back in "
                f"{caps['rounds']} alternating rounds (medians; exploitability checks excluded). Entries are the "
                "layout's: every (decision node, action, value class), draw decisions included.", "",
                "| cap | betting nodes | entries | seconds per iteration | ns per entry |", "|---:|---:|---:|---:|---:|"]
        for g in caps["games"]:
            out.append(f"| {g['cap']} | {g['betting_nodes']:,} | {g['entries']:,} | {g['seconds_per_iteration']:.3f} | "
                       f"{g['ns_per_entry']:.2f} |")
        ratio = caps["cap4_over_cap2_per_entry"]
        out += ["", f"Cap 4 over cap 2, per entry: {ratio:.2f}"
                + (" (about the same)." if 0.8 <= ratio <= 1.25 else " (they differ: see why before quoting it).")
                + " What the 2026-12-02 run showed (prose, not regenerated): the \"twice as much an entry at cap 4\" "
                "of issue 19 (7.9 against 4.0 ns) compared figures of different runs and days (cap 2 from the scaling "
                "table's run, cap 4 from the hour-long double-draw run) on a machine whose memory speed moves by 2x "
                "between days (numpy's one-thread copy: 41 GB/s on the day of the throughput table, 18 GB/s on "
                "2026-12-02), and both divided by the plan's betting nodes times classes, not the layout's entries "
                "(each action, draw decisions included: 2.5 to 2.7 times as many). The storage sits in transparent "
                "huge pages (AnonHugePages at about 9 GB after the cap-4 walks), so page walks are not the cost "
                "either.", ""]
    dbl = load("algorithms_double")
    if dbl:
        out += ["## The default schedule against DCFR on double draw at cap 2", "",
                f"`{dbl['command']}` (writes results/algorithms/)", "",
                f"{dbl['game']}: each schedule until {dbl.get('target_mbb') or 1:g} mbb/hand, checked every "
                f"{dbl.get('check_every') or 10} iterations.", "",
                "| algorithm | iterations | seconds (checks included) | exploitability (mbb/hand) | iterations to 1 |",
                "|---|---:|---:|---:|---:|"]
        for r in dbl["runs"]:
            out.append(f"| {r['algorithm']} | {r['iterations']:,} | {r['seconds']:.1f} | {r['exploitability_mbb']:.4f} | "
                       f"{fmt(r['iterations_to_1.0'])} |")
        out += ["", f"![the two schedules on double draw]({dbl['chart']})", "",
                "`dcfr-ramp` (the default) is DCFR whose alpha ramps up with the iteration, alpha_t = min(4, 1 + t/100), "
                "with negative regrets reset each iteration and gamma 4. It was chosen on 2026-12-02 by an ad hoc "
                "sweep on single draw (prose, not regenerated by this command; iterations to 0.1 mbb/hand checked "
                "at multiples of 5, where the benchmark checks at 1, 6, 11, ...: DCFR's 1.5/0/2 855; gamma 4 and "
                "negatives reset 705; the ramp 475; a slower ramp, t/150, 465; t/50 560; starting at 0.75 505, at "
                "1.5 745; alpha falling instead, not reached in 1,000; predictive CFR+ 0.41 mbb/hand after 1,000). "
                "t/100 rather than t/150 because it was the one confirmed on double draw (above); the 10 iterations "
                "between them on single draw are within the check spacing's noise. In a bucketed game (double draw "
                "at cap 1, 16 buckets a round) both schedules reach the abstraction's floor (79.9 and 79.1 mbb/hand "
                "after 400 iterations).", ""]
    buckets = load("buckets")
    if buckets:
        out += ["## What card buckets cost", "", f"`{buckets['command']}` (writes results/buckets/)", "",
                f"{buckets['game']}: every row is solved with {buckets['iterations']:,} DCFR iterations, then its "
                "strategy is measured by an exact best response that sees value classes. Seconds are on "
                f"{buckets.get('threads', '?')} thread(s), checks included; a bucketed walk still costs "
                "O(nodes x classes), so buckets save memory, not time.", "",
                "| buckets per round | strategy storage | exploitability at full resolution (mbb/hand) | "
                "button's value (mbb/hand) | seconds |", "|---:|---:|---:|---:|---:|"]
        for r in buckets["rows"] + [buckets["full"]]:
            label = str(r["buckets"]) if r is not buckets["full"] else f"full ({r['buckets']:,} classes)"
            out.append(f"| {label} | {r['storage_bytes'] / 2**20:,.1f} MiB | {r['exploitability_mbb']:,.2f} | "
                       f"{r['game_value_mbb']:+.2f} | {r['seconds']:,.0f} |")
        out += ["", "![exploitability against buckets](results/buckets/exploitability_vs_buckets.png)", ""]
    sim = load("simulator")
    if sim:
        out += ["## Real-Badugi simulator", "", f"`{sim['command']}` (one core; first call "
                f"{sim['first_call_s']:.1f} s, compile or cache load, not counted)", "",
                "| game | A | B | hands | seconds | hands/s |", "|---|---|---|---:|---:|---:|"]
        for r in sim["runs"]:
            out.append(f"| {r['game']} | {r['a']} | {r['b']} | {r['hands']:,} | {r['seconds']:.2f} | "
                       f"{r['hands_per_s']:,.0f} |")
        out += ["", "Target: at least 100,000 hands per second per core for simple players.", ""]
    ld = load("load")
    if ld:
        out += ["## Loading a strategy", "", f"`{ld['command']}` ({ld['date']})", "",
                f"{ld['preset']}: `load_strategy(DIR)` then one `policy({ld['history']!r}, {ld['hand']!r})` in a fresh "
                f"process, each side reading a strategy its own code wrote (a one-iteration solve). Before "
                f"(commit {ld['before_commit']}) loading rebuilt an engine: the tree, the draw model and (for "
                "buckets) the clustering, and read the whole file; now the file carries its layout and tree and "
                "the probabilities are memory-mapped.", "",
                "| code | strategy file | load seconds | policy() seconds | peak resident memory |",
                "|---|---:|---:|---:|---:|"]
        for name, rows in ld["runs"].items():
            for r in rows:
                out.append(f"| {name} | {ld['strategy_bytes'][name] / 2**30:.2f} GiB | {r['load_seconds']:.2f} | "
                           f"{r['policy_seconds']:.3f} | {r['peak_rss_bytes'] / 2**20:,.0f} MiB |")
        out.append("")
    real = load("real")
    if real:
        out += ["## The real game: abstract solves and their certificate", "", f"`{real['command']}` "
                f"({real.get('date', '')}, {real['threads']} threads)", "",
                "Double draw at cap 4 solved in its abstract game (streamed walks over bucket vectors, "
                "alternating DCFR), certified by the exact full-resolution best response. Recall 2 remembers "
                "the whole history in double draw; recall 1 forgets the first round at the last one; "
                "\"1 + every draw\" (`remember_draws = true`) forgets only its betting, not its draw counts.", "",
                "| buckets | recall | iterations | certified mbb/hand | abstract mbb/hand | s/iteration | "
                "certificate s |", "|---:|---|---:|---:|---:|---:|---:|"]
        for r in real.get("recall", []):
            out.append(f"| {r['buckets']} | {_rule(str(r['recall']))} | {r['iterations']} | {r['certified_mbb']:.1f} | "
                       f"{r['abstract_mbb']:.1f} | {r['seconds_per_iteration']:.2f} | "
                       f"{r['certificate_seconds']:.1f} |")
        t = real.get("triple")
        if t:
            out += ["", f"{t['game']}: {t['entries']:,} strategy entries; set-up {t['setup_seconds']:.0f} s; "
                    f"{t['iteration_seconds']:.0f} s an iteration (the first, with compiling: "
                    f"{t['first_iteration_seconds']:.0f} s); abstract best response {t['abstract_br_seconds']:.0f} s; "
                    f"certificate {t['certificate_seconds']:.0f} s, {t['certified_mbb']:,.0f} mbb/hand after "
                    f"{t['iterations']} iterations (a measure of the machinery, not of a solved strategy)."]
        out.append("")
    out += prune_rows()
    out += entries_rows()
    study, sizes, floor = load("recall"), load("recall_buckets"), load("recall_floor")
    if study:
        commands = ", ".join(f"`{x['command']}` ({x.get('date', '')}, {x['threads']} threads)"
                             for x in (study, sizes, floor) if x)
        out += ["## What a recall rule costs: triple draw at cap 1", "", commands, "",
                "Triple draw without raises (570,102 betting nodes) is small enough to compare every recall "
                "rule in minutes, each certified at full resolution: 3 rounds remembers everything; 2 forgets "
                "the first round at the last; \"+ every draw\" keeps the draw counts of the rounds forgotten "
                "(their betting is what is lost). Seconds per iteration were measured with other work sharing the "
                "machine: compare them within one table only roughly.", "",
                "| buckets | recall | strategy entries | iterations | certified mbb/hand | abstract mbb/hand | "
                "s/iteration |", "|---:|---|---:|---:|---:|---:|---:|"]
        rows = study.get("recall", []) + (sizes or {}).get("recall", []) + (floor or {}).get("recall", [])
        for r in sorted(rows, key=lambda r: (r["buckets"], -r["entries"], r["iterations"])):
            out.append(f"| {r['buckets']} | {_rule(str(r['recall']))} | {r['entries']:,} | {r['iterations']} | "
                       f"{r['certified_mbb']:.1f} | {r['abstract_mbb']:.1f} | {r['seconds_per_iteration']:.2f} |")
        out.append("")
        if floor:
            by = {(r["buckets"], r["iterations"]): r for r in floor["recall"]}
            if all(k in by for k in ((64, 200), (64, 400), (128, 200), (128, 400))):
                out += ["**The floor of the buckets.** With the whole history remembered, an abstraction is as "
                        "good as its buckets and no better: triple draw at cap 1 stops falling at about "
                        f"{by[64, 400]['certified_mbb']:.0f} mbb/hand with 64 buckets a round "
                        f"({by[64, 200]['certified_mbb']:.1f} after 200 iterations, "
                        f"{by[64, 400]['certified_mbb']:.1f} after 400, with the abstract game solved to "
                        f"{by[64, 400]['abstract_mbb']:.1f}) and at about {by[128, 400]['certified_mbb']:.0f} "
                        f"with 128 ({by[128, 200]['certified_mbb']:.1f}, {by[128, 400]['certified_mbb']:.1f}). "
                        "A strategy certified at 25 mbb/hand needs more than 64 buckets in every round and all "
                        "of the history, even without raises. At cap 4 (bigger pots on the same card "
                        "mistakes) that abstraction has about 2e10 strategy entries at 128 buckets (the full "
                        "resolution's 1.9 TiB times 128/1,092: some 230 GiB at 12 bytes an entry; 128 "
                        "buckets with the preset's recall, 52 GiB), beyond this machine: the preset's "
                        "abstraction (64 buckets a round, older rounds' betting forgotten) stays above 25 "
                        "at any number of iterations.", ""]
    out += cap4_rows()
    out += rerun_rows()
    notes = ROOT / "scripts" / "bench" / "NOTES.md"
    if notes.is_file():
        out += [notes.read_text().strip(), ""]
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", choices=sorted(BENCHMARKS) + ["double"])
    parser.add_argument("--double-minutes", type=float, default=0.0)
    parser.add_argument("--render", action="store_true", help="only rewrite BENCHMARKS.md")
    args = parser.parse_args(argv)
    if not args.render:
        names = args.only or list(BENCHMARKS)
        for name in names:
            if name != "double":
                run(name, BENCHMARKS[name])
        if args.double_minutes > 0 or (args.only and "double" in args.only):
            run("double", ["scripts/bench/bench_solver.py", "double", "--minutes", str(args.double_minutes or 60),
                           "--check-every", "20", "--json"])
    (ROOT / "BENCHMARKS.md").write_text(render())
    print("BENCHMARKS.md rewritten", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
