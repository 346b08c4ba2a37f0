"""Regenerate results/: reference solves, their charts, compact CSVs and results/README.md.

    python scripts/make_results.py      # everything: single draw; double draw 60 min; triple draw cap 1 50 min, cap 4 150 min
    python scripts/make_results.py --games double-draw --double-minutes 120    # resume the double-draw solve for longer
    python scripts/make_results.py --games triple-draw-cap1 --triple-minutes 0  # publish the cap-1 triple-draw solve as it is
    python scripts/make_results.py --double-minutes 0 --triple-minutes 0 --cap4-minutes 0   # publish what is solved
    python scripts/make_results.py --games triple-draw-cap4 --cap4-minutes 0   # publish one game; the rest stays
    python scripts/make_results.py --from-tables   # redraw every chart of results/ from its tables (seconds)

Solves run in runs/ (large files stay there: checkpoints, strategy.npz); results/
receives summary.json, convergence.csv, charts (PNG, SVG) and draws.csv for each
game, and results/README.md is written from those files' numbers. The
double-draw solve resumes from its checkpoint, so the budget can be spread
over several runs; a run that already met its time limit or target is only
published again. Triple draw is the bucketed preset (``triple-draw-bucketed``:
cap 1, 256 buckets a round), solved for 50 minutes by default and resumable
the same way. The real game, triple draw at cap 4 (preset ``triple-draw``: an
abstraction, certified at full resolution), is solved for 150 minutes in all
(``--cap4-minutes``; resumable; certified at three quarters and seven eighths of that time and at
the end, about 5 minutes each, not counted as solving time; its abstract progress checks every 50
iterations rather than a tenth of the time, with a line at each iteration between them) into
runs/triple-draw-cap4 and published in results/triple-draw-cap4. The cost of buckets is measured separately by
``scripts/bench/bench_buckets.py`` (results/buckets/), which this script quotes.
"""

from __future__ import annotations

import argparse
import csv
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

GAMES = {"single-draw": "single-draw", "double-draw": "double-draw",  # results/ folder (and runs/ folder) -> preset
         "triple-draw-cap1": "triple-draw-bucketed", "triple-draw-cap4": "triple-draw"}
COPIED = ["summary.json", "convergence.csv", "draws.csv", "pat_snow_break.csv", "situations.csv", "ev_by_hand.csv"] + [
    f"{name}.{ext}" for name in ("pat_snow_break", "ev_by_hand", "convergence") for ext in ("png", "svg")]
OPTIONAL = ["certified.csv"]  # a run certified during its solve (--certify-every, --certify-at): the certified curve
CHART_GLOBS = ("draws_*.png", "draws_*.svg", "betting_*.png", "betting_*.svg")  # a file per draw, round and seat
# results/ folders that ship a compact strategy (README, "Compact strategies"), made by `badugi compact`
# with these options into runs/NAME-compact and, when its parts come to at most COMPACT_LIMIT bytes in
# all, certified and copied into results/NAME/compact. Cap 4 (BENCHMARKS.md, "The cap-4 compact
# strategy in recall 2"): every row at 6 bits and reach 2e-7 keeps 169 million rows in 158.9 MB; rows
# reached less than 3e-4 stepped coarser by their reach (--fine-reach) make it fit at 8 bits. The
# whole-history preset at reach 2e-7 kept 122 million rows in 61.7 MB but certified 2.3% above the full
# file (the bound is 2%); reach 5e-8 keeps 168 million in 69.2 MB, 1.5% ("The whole history at cap 4").
# At 128/128/96/40 reach 5e-8 keeps 179 million rows in 89.1 MB and certifies 2.5% above (+1.12 mbb/hand);
# reach 2e-8 keeps 214 million in 94.9 MB, 2.2% (+1.00): 8 bits cost about 1 mbb/hand, so the bound
# is now 2% or 1.0 mbb/hand ("The real game at 128/128/96/40"). At 256/256/192/24 reach 2e-8 keeps 195
# million rows in 90.2 MB, +1.11 mbb/hand (3.3%); reach 1e-8 with fine reach 1e-4 keeps 219 million in
# 113.5 MB, +0.73: over the limit ("The real game at 256/256/192/24")
COMPACT = {"triple-draw-cap4": ["--bits", "8", "--min-reach", "2e-8", "--fine-reach", "3e-4"]}
COMPACT_LIMIT = 100_000_000


SOLVING = [0.0]  # seconds this run spent solving (the README's chart time leaves them out)


def badugi(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "solver.cli", *args], check=True, cwd=ROOT)


def finished(run_dir: Path, stop: list[str]) -> bool:
    """Whether a run's last solve already met its time limit or target (resuming it would only
    measure it again: minutes to hours for the big games)."""
    path = run_dir / "summary.json"
    if not path.is_file() or not (run_dir / "strategy.npz").is_file():
        return False
    summary = json.loads(path.read_text())
    rules = dict(zip(stop[::2], stop[1::2]))
    limit, target = rules.get("--time-limit"), rules.get("--target-exploitability")
    return ((limit is not None and summary["seconds"] >= 0.99 * float(limit))
            or (target is not None and summary["exploitability_mbb"] <= float(target)))


def charts_current(run_dir: Path) -> bool:
    """Whether a run's tables and charts were drawn after its strategy was written (a solve draws
    them; for cap-4 triple draw drawing them again is two walks of minutes)."""
    strategy = (run_dir / "strategy.npz").stat().st_mtime
    files = [run_dir / name for name in COPIED if name not in ("summary.json", "convergence.csv")]  # (before it)
    return all(f.is_file() and f.stat().st_mtime >= strategy for f in files) and any(run_dir.glob("draws_*.png"))


def solve_and_publish(preset: str, run_dir: Path, stop: list[str], name: str) -> bool:
    """Solve (resuming), plot, copy the small files; False if there is nothing to publish."""
    resume = ["--resume"] if (run_dir / "checkpoint.npz").is_file() else []
    if stop and not finished(run_dir, stop):
        t0 = time.time()
        badugi("solve", "--preset", preset, "--out", str(run_dir), "--no-charts", *resume, *stop)
        SOLVING[0] += time.time() - t0
    if not (run_dir / "strategy.npz").is_file():
        return False
    if not charts_current(run_dir):
        badugi("plot", str(run_dir))
    target = ROOT / "results" / name
    target.mkdir(parents=True, exist_ok=True)
    for pattern in CHART_GLOBS + ("draws.png", "draws.svg", "betting.png", "betting.svg"):
        for old in target.glob(pattern):  # charts of an earlier publication (one tall file each before)
            old.unlink()
    optional = [name for name in OPTIONAL if (run_dir / name).is_file()]
    for file in COPIED + optional + [p.name for pattern in CHART_GLOBS for p in sorted(run_dir.glob(pattern))]:
        shutil.copy2(run_dir / file, target / file)
    if name in COMPACT:
        publish_compact(run_dir, name)
    return True


def publish_compact(run_dir: Path, name: str) -> None:
    """Make the run's compact strategy (unless one of its iteration is there), and when its parts
    fit in COMPACT_LIMIT, certify it (unless certified) and publish it: the certificate (minutes
    at cap 4) is not spent on a file that will not be published."""
    from solver.cfr.compact_file import read_manifest
    from solver.cfr.files import CheckpointError
    from solver.tables.compact import certify

    compact_dir = run_dir.parent / f"{name}-compact"
    iteration = json.loads((run_dir / "summary.json").read_text())["iterations"]
    try:
        manifest = read_manifest(compact_dir)
    except CheckpointError:
        manifest = None
    if manifest is None or manifest["iteration"] != iteration:
        badugi("compact", str(run_dir), "--out", str(compact_dir), "--force", "--no-certify", *COMPACT[name])
        manifest = read_manifest(compact_dir)
    if manifest["bytes"] > COMPACT_LIMIT:
        print(f"{name}: its compact strategy is {manifest['bytes'] / 1e6:.0f} MB, more than "
              f"{COMPACT_LIMIT / 1e6:.0f} MB: not published (results/{name}/compact left as it was)")
        return
    if "certificate" not in manifest:
        manifest = certify(compact_dir, say=print)
    target = ROOT / "results" / name / "compact"
    target.mkdir(parents=True, exist_ok=True)
    for old in target.glob("compact.*"):
        old.unlink()
    for file in ["compact.json"] + [part["file"] for part in manifest["parts"]]:
        shutil.copy2(compact_dir / file, target / file)


# results/ folders whose charts come from a solve's tables, and the game of those without a summary.json
TABLE_FOLDERS = {name: None for name in GAMES} | {"opponents/never-snows": "single-draw"}


def redraw_from_tables() -> list[Path]:
    """Every chart of results/ drawn again from the tables beside it (no strategy file needed:
    ``solver.tables.charts.redraw_from_tables``), and the abstraction curve from
    results/benchmarks/curve.json, and the CFR variants' convergence charts from their tables."""
    from solver.game.config import load_preset
    from solver.tables.charts import redraw_from_tables as redraw

    written = []
    for name, preset in TABLE_FOLDERS.items():
        folder = ROOT / "results" / name
        if (folder / "situations.csv").is_file():
            written += redraw(folder, load_preset(preset) if preset else None)
    sys.path.insert(0, str(ROOT / "scripts" / "bench"))
    from bench_solver import ALGORITHM_CHARTS, plot_algorithms

    for name in ALGORITHM_CHARTS:
        if (ROOT / "results" / "algorithms" / f"{name}-convergence.csv").is_file():
            written += plot_algorithms(name)
    written += abstraction_curve()
    return written


def abstraction_curve() -> list[Path]:
    """The abstraction curve from results/benchmarks/curve.json, beside the cap-4 strategy in
    results/triple-draw-cap4, saying which solves it plots and whether that strategy is one."""
    from solver.tables.charts import plot_abstraction_curve

    curve, folder = ROOT / "results" / "benchmarks" / "curve.json", ROOT / "results" / "triple-draw-cap4"
    if not (curve.is_file() and folder.is_dir()):
        return []
    data = json.loads(curve.read_text())
    committed = json.loads((folder / "summary.json").read_text())["game"] if (folder / "summary.json").is_file() \
        else None
    return plot_abstraction_curve(data["curve"], folder / "abstraction_curve", data.get("date"), committed)


def read_csv(name: str, file: str) -> list[dict]:
    with open(ROOT / "results" / name / file, newline="") as f:
        return list(csv.DictReader(f))


def describe_game(name: str) -> str:
    summary = json.loads((ROOT / "results" / name / "summary.json").read_text())
    lines = [f"## {summary['game']}", "",
             f"Solved with {summary['algorithm']} for {summary['iterations']} iterations "
             f"({summary['seconds']:.0f} s on {summary['threads']} threads): exploitability "
             f"**{summary['exploitability_mbb']:.3g} mbb/hand**; the button wins "
             f"**{summary['game_value_mbb']:.1f} mbb/hand** (`summary.json`).", ""]
    if "abstract_exploitability_mbb" in summary:
        lines[-1:-1] = ["", "Solved in an abstraction (the title's card buckets and recall: strategies are shared by "
                        "the classes of a bucket and by histories that differ only in what the recall forgets); "
                        "the exploitability above is the "
                        "certificate: exact best responses in the real game at full resolution (every public history "
                        f"and value class), {summary['certificate_seconds'] / 60:.0f} minutes. Within the abstract "
                        f"game the strategy is {summary['abstract_exploitability_mbb']:.4g} mbb/hand from equilibrium; "
                        "the rest is what the abstraction cannot express."]
        if summary["exploitability_mbb"] > 50:
            lines[-1:-1] = ["", f"A strategy {summary['exploitability_mbb']:.0f} mbb/hand from equilibrium after "
                            f"{summary['iterations']} iterations still plays many spots far from optimal: read the "
                            "frequencies below as the state of this solve, not as advice."]
    elif "buckets" in summary["game"]:
        lines[-1:-1] = ["", "Strategies are shared within card buckets (value classes grouped per round by "
                        "strength and draw potential); reach, draws and showdowns stay exact over value classes, "
                        "and the exploitability above is measured at full resolution: by a best response that "
                        "sees every value class."]
    for m in read_csv(name, "pat_snow_break.csv"):
        shares = (f" ({100 * float(m['snow_of_non_badugis']):.1f}% of its draws without a badugi), breaks in "
                  f"{100 * float(m['break_of_badugis']):.1f}% of its draws with one") if "break_of_badugis" in m else (
                  f", breaks a badugi in {100 * float(m['break']):.2f}% of draw decisions")
        lines.append(f"- Draw {m['draw']}, {m['seat']}: stands pat (snows included) in {100 * float(m['pat']):.1f}% "
                     f"of draw decisions, snows in {100 * float(m['snow']):.1f}%{shares} (`pat_snow_break.csv`).")
    rows = read_csv(name, "draws.csv")
    broken = [r for r in rows if r["hand"].startswith("badugi") and 1.0 - float(r["draw_0"]) >= 0.05]
    if broken:
        lines.append("- Badugis broken at least 5% of the time (`draws.csv`): " + "; ".join(
            f"{r['hand']} by the {r['seat']} at draw {r['draw']} ({100 * (1 - float(r['draw_0'])):.0f}%)"
            for r in broken) + ".")
    else:
        lines.append("- No badugi group is broken 5% of the time or more (`draws.csv`).")
    snows = [r for r in rows if not r["hand"].startswith("badugi") and float(r["draw_0"]) >= 0.5
             and float(r["reach"]) >= 1e-6]
    if snows:
        by_seat = {}
        for r in snows:
            by_seat.setdefault((r["seat"], r["draw"]), []).append(r["hand"])
        lines.append("- Hands stood pat more often than not without a badugi (`draws.csv`): " + "; ".join(
            f"{seat} at draw {draw}: {', '.join(hands)}" for (seat, draw), hands in by_seat.items()) + ".")
    folder = ROOT / "results" / name
    draws = sorted(p.name for p in folder.glob("draws_*.png"))
    betting = sorted(p.name for p in folder.glob("betting_*.png"))
    if draws or betting:
        lines += ["", "Cards drawn by hand, one chart per draw (the big blind draws first; the button's panels "
                  "follow what the big blind drew), and betting by situation (what the player faces), one chart per "
                  "round and seat; each panel names whose turn it is, the pot and the bet to call; a grey bar beside "
                  "each row says how often the hand gets there, on one scale per chart (`situations.csv` holds the "
                  "figures):", ""]
        lines += [f"![{p[:-4]}](./{name}/{p})" for p in draws] + [""]
        lines += ["<details><summary>betting charts</summary>", ""]
        lines += [f"![{p[:-4]}](./{name}/{p})" for p in betting] + ["", "</details>"]
    else:
        lines += ["", f"![draws](./{name}/draws.png)", "", f"![betting](./{name}/betting.png)"]
    lines += ["", f"![pat, snow, break](./{name}/pat_snow_break.png) ![ev](./{name}/ev_by_hand.png)", "",
              f"![convergence](./{name}/convergence.png)", ""]
    compact_manifest = ROOT / "results" / name / "compact" / "compact.json"
    if compact_manifest.is_file():
        m = json.loads(compact_manifest.read_text())
        certificate = m.get("certificate", {}).get("exploitability_mbb")
        store = f", a store of {m['chunks']} chunks read a chunk at a time" if m.get("chunks") else ""
        lines += [f"**Play and study it without solving**: `{name}/compact/` is the compact strategy "
                  f"({m['bytes'] / 1e6:.1f} MB in {len(m['parts'])} part(s) of at most 50 MB{store}; {m['bits']}-bit "
                  f"probabilities; {m['rows_kept']:,} of {m['rows']:,} rows kept, those its own play reaches at least "
                  f"{m['min_reach']:g} of the time)"
                  + (f", certified at full resolution at **{certificate:.1f} mbb/hand** as it plays (the full "
                     f"strategy file: {m['full_exploitability_mbb']:.1f})" if certificate is not None else "")
                  + f". `badugi show results/{name}/compact --history ck/ --hand 7h5d4c3s`, "
                  f"`badugi match results/{name}/compact rule`, `badugi explore results/{name}/compact` read it.", ""]
    return "\n".join(lines)


def describe_buckets() -> list[str]:
    path = ROOT / "results" / "buckets" / "buckets.csv"
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    full = rows[-1]
    lines = ["## What card buckets cost", "",
             "From `python scripts/bench/bench_buckets.py` (table in BENCHMARKS.md): double draw at cap 2, each "
             f"abstraction solved for {full['iterations']} DCFR iterations, then measured by a best response that "
             "sees value classes (`buckets/buckets.csv`).", "",
             "| buckets per round | strategy storage (MiB) | exploitability (mbb/hand) |", "|---:|---:|---:|"]
    lines += [f"| {r['buckets_per_round']} | {r['storage_mib']} | {float(r['exploitability_mbb']):.2f} |" for r in rows]
    lines += ["", "![exploitability against buckets](./buckets/exploitability_vs_buckets.png)", ""]
    return lines


def write_readme(games: list[str], seconds: float) -> None:
    solve_seconds = sum(json.loads((ROOT / "results" / g / "summary.json").read_text())["seconds"] for g in games)
    text = ["# Reference results", "",
            "Regenerated by `python scripts/make_results.py`: from scratch it takes the solves' own time "
            f"({solve_seconds / 60:.0f} minutes, the `seconds` of each `summary.json`) plus charts and "
            + (f"tables (this run: {seconds / 60:.1f} minutes) " if seconds >= 30 else "tables ")
            + "on this project's 2-core machine. "
            "Every number below is read "
            "from the files beside it. Strategies are the independent-deck model's (see the README, \"What it computes\"): "
            "each player draws from a deck of his own.", "",
            "How to read the charts: rows are hand groups by card count and top card, strongest first; "
            "a panel is one situation, its title saying whose turn it is (by seat), what he faces, the pot "
            "in big blinds (one figure, or the reach-weighted average and the range over the histories "
            "that lead there) and the bet to call; a frequency is weighted by how often each hand reaches "
            "the decision; colours are at full strength and a grey bar beside each row (reach, log scale) says "
            "how often the hand gets there, on one scale for the whole chart; rows marked alike ((a), (b), ...) "
            "lie in one card bucket and play one strategy; "
            "groups that reach a decision in under one hand in a million are left out, and so is a situation "
            "with no such group (named at the chart's foot). `situations.csv` holds the numbers behind the "
            "draw and betting charts, `ev_by_hand.csv` those of the EV chart; "
            "`python scripts/make_results.py --from-tables` redraws every chart from them.", ""]
    for name in games:
        text.append(describe_game(name))
    if (ROOT / "results" / "algorithms" / "single-draw-convergence.png").is_file():
        text += ["## The CFR variants on single draw", "",
                 "From `python scripts/bench/bench_solver.py algorithms` (see BENCHMARKS.md).", "",
                 "![algorithms](./algorithms/single-draw-convergence.png)", ""]
    text += describe_buckets()
    if (ROOT / "results" / "matches" / "README.md").is_file():
        text += ["## Matches in real Badugi", "",
                 "The strategies above played in real Badugi (one deck) against baselines and themselves, with "
                 "95% intervals: [matches/README.md](./matches/README.md), from `python scripts/run_matches.py`.", ""]
    if (ROOT / "results" / "opponents" / "README.md").is_file():
        text += ["## Studying real opponents", "",
                 "Node locking (a big blind who never snows) and maximal exploitation of the baselines, single draw, "
                 "valued in the model and in real matches: [opponents/README.md](./opponents/README.md), from "
                 "`python scripts/study_opponents.py`.", ""]
    if "triple-draw-cap4" not in games:
        text += ["## Not here yet", "",
                 "Triple draw at cap 4, the real game: `python scripts/make_results.py --cap4-minutes 150` solves "
                 "it in the `triple-draw` preset's abstraction and certifies it at full resolution (README, "
                 "\"The real game\"). The triple-draw-cap1 folder above is triple draw at cap 1 (one bet a "
                 "round).", ""]
    (ROOT / "results" / "README.md").write_text("\n".join(text))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--single-target", type=float, default=0.05, help="single draw: target mbb/hand")
    parser.add_argument("--double-minutes", type=float, default=60.0,
                        help="double draw: minutes of solving in all (0: publish an existing solve only)")
    parser.add_argument("--triple-minutes", type=float, default=50.0,
                        help="bucketed triple draw: minutes of solving (0: publish an existing solve only)")
    parser.add_argument("--cap4-minutes", type=float, default=150.0,
                        help="triple draw at cap 4: minutes of solving in all (0: publish an existing solve only)")
    parser.add_argument("--games", nargs="+", choices=GAMES, default=list(GAMES),
                        help="games to solve and publish (default all); the others' results stay as they are")
    parser.add_argument("--from-tables", action="store_true",
                        help="only redraw the charts of results/ from the tables there (no solve, no strategy "
                             "file), then write results/README.md")
    args = parser.parse_args(argv)
    start = time.time()
    if args.from_tables:
        written = redraw_from_tables()
        games = [name for name in GAMES if (ROOT / "results" / name / "summary.json").is_file()]
        write_readme(games, time.time() - start)
        print(f"redrew {len([p for p in written if p.suffix == '.png'])} charts of results/ from their tables "
              f"in {time.time() - start:.0f} s")
        return 0
    stops = {
        "single-draw": ["--target-exploitability", str(args.single_target), "--quiet"],
        "double-draw": ["--time-limit", str(args.double_minutes * 60), "--target-exploitability", "0.1"]
        if args.double_minutes > 0 else [],
        "triple-draw-cap1": ["--time-limit", str(args.triple_minutes * 60), "--target-exploitability", "0.1"]
        if args.triple_minutes > 0 else [],
        # certificates during the run (they do not count as solving time): the certified curve; the
        # abstract checks (about 50 s each) every 50 iterations, not a tenth of the solving time
        "triple-draw-cap4": ["--time-limit", str(args.cap4_minutes * 60), "--certify-at", "0.75,0.875",
                             "--check-every", "50"]
        if args.cap4_minutes > 0 else [],
    }
    published = [name for name in args.games
                 if solve_and_publish(GAMES[name], ROOT / "runs" / name, stops[name], name)]
    # The README describes every game published in results/, this run's or an earlier one's.
    games = [name for name in GAMES if (ROOT / "results" / name / "summary.json").is_file()]
    write_readme(games, time.time() - start - SOLVING[0])
    print(f"results/ regenerated in {time.time() - start:.0f} s: published {', '.join(published) or 'nothing new'}; "
          f"results/README.md describes {', '.join(games)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
