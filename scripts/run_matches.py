"""Matches in real Badugi: solved strategies against baselines, the model gap, resolutions.

    python scripts/run_matches.py                    # 1,000,000 hands a match, seed 1
    python scripts/run_matches.py --hands 200000     # quicker, wider intervals
    python scripts/run_matches.py --games single-draw triple-draw-cap4   # these games; the others' rows stay
    python scripts/run_matches.py --games single-draw --previous runs/triple-draw-cap4-previous
        # and the committed cap-4 compact strategy against an earlier one's (a compact strategy or a run)

Needs the reference solves in runs/ (``python scripts/make_results.py``):
runs/single-draw and, where present, runs/double-draw, runs/triple-draw-cap1 (bucketed,
cap 1) and runs/triple-draw-cap4 (the real game, in its abstraction). A game whose public
tree is too big to build (cap-4 triple draw) has no exact value in the model beside its
matches.
Solves two small extra single-draw strategies for the resolution matches
(64 buckets a round; 50 iterations) into runs/ if they are missing.

Writes results/matches/matches.csv, model_gap.csv and README.md (the tables
and this command). Every match is duplicate (each deal twice, seats swapped);
intervals are 95%. ``--previous DIR`` plays results/triple-draw-cap4/compact (the committed
strategy as users get it) against the strategy in DIR, an earlier solve of the real game, both
as their counts (compact strategies: a quarter of the memory).
"""

from __future__ import annotations

import argparse
import csv
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.arena.match import load_player, match_config, model_values, play_match  # noqa: E402
from solver.game.plan import plan_solve  # noqa: E402

OUT = ROOT / "results" / "matches"
RUNS = ROOT / "runs"
BASELINES = ("rule", "station", "random")
GAMES = ("single-draw", "double-draw", "triple-draw-cap1", "triple-draw-cap4")
EXTRA = {  # name -> solve arguments
    "single-draw-b64": ["--config", "{config}", "--iterations", "1000"],
    "single-draw-50it": ["--preset", "single-draw", "--iterations", "50"],
}


def solve_extra(name: str) -> Path:
    run = RUNS / name
    if (run / "strategy.npz").is_file():
        return run
    args = list(EXTRA[name])
    if "{config}" in args:
        config = RUNS / f"{name}.toml"
        text = (ROOT / "solver" / "game" / "presets" / "single-draw.toml").read_text()
        config.write_text(text + "buckets = [64, 64]\n")
        args[args.index("{config}")] = str(config)
    subprocess.run([sys.executable, "-m", "solver.cli", "solve", *args, "--out", str(run), "--no-charts", "--quiet"],
                   check=True, cwd=ROOT)
    return run


def _read(path: Path) -> list[dict]:
    """A CSV of an earlier run, numbers as numbers (empty if none)."""
    if not path.is_file():
        return []
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    for row in rows:
        for key, value in row.items():
            try:
                row[key] = int(value) if value.lstrip("-").isdigit() else float(value)
            except ValueError:
                pass
    return rows


def summary(run: Path) -> dict:
    return json.loads((run / "summary.json").read_text())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--games", nargs="+", choices=GAMES,
                        help="games to play (default: every one solved in runs/); the others' rows in "
                             "results/matches/ stay as they are")
    parser.add_argument("--previous", metavar="DIR",
                        help="an earlier cap-4 strategy (a compact strategy or a run) for the committed "
                             "compact cap-4 strategy to play; without it, the row of the last one stays")
    args = parser.parse_args(argv)
    start = time.time()
    names = args.games or [name for name in GAMES if (RUNS / name / "strategy.npz").is_file()]
    missing = [name for name in names if not (RUNS / name / "strategy.npz").is_file()]
    if missing or not names:
        raise SystemExit(f"runs/{(missing or ['single-draw'])[0]} has no strategy: run python "
                         "scripts/make_results.py first")
    games = [(name, RUNS / name) for name in names]
    # Rows of games not played now are kept (their strategies may be gone from runs/); the
    # resolution matches are single draw's, played again with it.
    resolutions = "single-draw" in names
    rows = [r for r in _read(OUT / "matches.csv")
            if (r["game"] not in names or r["kind"] == "previous") and not (r["kind"] == "resolution" and resolutions)
            and not (r["kind"] == "previous" and args.previous)]
    gaps = [g for g in _read(OUT / "model_gap.csv") if Path(g["strategy"]).name not in names]

    def record(kind: str, game: str, result, model=None) -> None:
        rows.append({"kind": kind, "game": game, "a": result.player_a, "b": result.player_b,
                     "hands": result.games, "model_mbb": sum(model) / 2 if model else float("nan"),
                     "mbb": result.mbb, "ci95": result.ci95,
                     "button_mbb": result.button_mbb, "button_ci95": result.button_ci95,
                     "big_blind_mbb": result.big_blind_mbb, "big_blind_ci95": result.big_blind_ci95,
                     "hands_per_s": result.hands_per_second})
        print(result.describe(), flush=True)

    for name, run in games:
        player = load_player(str(run.relative_to(ROOT)))
        # The strategies that are beaten only in the model must be beaten here too.
        in_model = plan_solve(match_config([player], None)).fits  # model_values' walk at full resolution
        if name != "double-draw":
            for baseline in BASELINES:
                other = load_player(baseline)
                record("baseline", name, play_match(None, player, other, args.hands, args.seed),
                       model_values(player, other) if in_model else None)
        self_play = play_match(None, player, player, args.hands, args.seed)
        record("self-play", name, self_play)
        s = summary(run)
        gaps.append({"game": s["game"], "strategy": str(run.relative_to(ROOT)), "iterations": s["iterations"],
                     "exploitability_mbb": s["exploitability_mbb"], "model_value_mbb": s["game_value_mbb"],
                     "real_value_mbb": self_play.button_mbb, "real_ci95": self_play.button_ci95,
                     "gap_mbb": self_play.button_mbb - s["game_value_mbb"]})
        del player
    if args.previous:
        committed = ROOT / "results" / "triple-draw-cap4" / "compact"
        new, old = load_player(str(committed.relative_to(ROOT)), weights=True), load_player(args.previous, weights=True)
        record("previous", "triple-draw-cap4", play_match(None, new, old, args.hands, args.seed))
        del new, old
    if resolutions:
        full = load_player("runs/single-draw")
        for extra in EXTRA:
            other = load_player(str(solve_extra(extra).relative_to(ROOT)))
            record("resolution", "single-draw", play_match(None, full, other, args.hands, args.seed),
                   model_values(full, other))

    kinds = ("baseline", "self-play", "previous", "resolution")
    rows.sort(key=lambda r: (GAMES.index(r["game"]) if r["game"] in GAMES else len(GAMES), kinds.index(r["kind"])))
    gaps.sort(key=lambda g: GAMES.index(Path(g["strategy"]).name) if Path(g["strategy"]).name in GAMES else len(GAMES))
    OUT.mkdir(parents=True, exist_ok=True)
    with open(OUT / "matches.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        for r in rows:
            writer.writerow({k: (f"{v:.2f}" if isinstance(v, float) else v) for k, v in r.items()})
    with open(OUT / "model_gap.csv", "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(gaps[0]), lineterminator="\n")
        writer.writeheader()
        for g in gaps:
            writer.writerow({k: (f"{v:.3f}" if isinstance(v, float) else v) for k, v in g.items()})
    write_readme(rows, gaps, args, time.time() - start)
    print(f"results/matches/ written in {time.time() - start:.0f} s")
    return 0


def played(gap: dict) -> str:
    """The strategy a game's matches played, as its iterations and exploitability."""
    return f"{gap['iterations']} iterations, {gap['exploitability_mbb']:.3g} mbb/hand"


def committed_note(gap: dict) -> str:
    """Whether the strategy played is the solve results/ describes (same iterations and
    exploitability as its summary.json), said in words for the README's table."""
    path = ROOT / "results" / Path(gap["strategy"]).name / "summary.json"
    if not path.is_file():
        return "no reference solve"
    s = json.loads(path.read_text())
    if s["iterations"] == gap["iterations"] and abs(s["exploitability_mbb"] - gap["exploitability_mbb"]) <= (
            5e-4 * max(1.0, abs(s["exploitability_mbb"]))):
        return "the same solve"
    return (f"**another solve** ({s['iterations']} iterations, {s['exploitability_mbb']:.3g} mbb/hand): these "
            "matches were played by an earlier strategy, not the committed one")


def resolutions_said() -> str:
    """What the resolution matches' strategies are: from their runs, else (not played again: single
    draw not among the games) as the README said it last."""
    if all((RUNS / name / "summary.json").is_file() for name in EXTRA):
        extra = {name: summary(RUNS / name) for name in EXTRA}
        return ("The full-resolution single-draw strategy against a coarser one in the same game "
                f"(64 buckets a round, {extra['single-draw-b64']['iterations']} iterations, exploitability "
                f"{extra['single-draw-b64']['exploitability_mbb']:.3g} mbb/hand in the model) and an early one "
                f"({extra['single-draw-50it']['iterations']} iterations, "
                f"{extra['single-draw-50it']['exploitability_mbb']:.3g} mbb/hand).")
    said = (OUT / "README.md").read_text() if (OUT / "README.md").is_file() else ""
    for line in said.splitlines():
        if line.startswith("The full-resolution single-draw strategy against"):
            return line
    raise SystemExit("the resolution matches' runs (runs/single-draw-b64, runs/single-draw-50it) are not here "
                     "and results/matches/README.md does not say what they were: add --games single-draw")


def write_readme(rows, gaps, args, seconds) -> None:
    text = ["# Matches in real Badugi", "",
            f"`python scripts/run_matches.py --hands {args.hands} --seed {args.seed}"
            + (f" --games {' '.join(args.games)}" if args.games else "")
            + f"` ({seconds / 60:.1f} minutes on this project's 2-core machine, one core playing"
            + ("; the other games' rows are from an earlier run of the same command without --games" if args.games else "")
            + "). Real Badugi: one deck, discards mucked, "
            "replacements from the stub (`solver/arena/simulator.py`). Every match is duplicate: each deal is played "
            "twice with the seats swapped. Figures are player A's, mbb/hand, with 95% intervals "
            "(`matches.csv`).", "",
            "Baselines: `rule` pats a badugi and otherwise draws to its best cards, bets and raises 8-high "
            "badugis or better (and, with draws to come, three-card 5s or better), otherwise checks or calls, "
            "and folds the last round facing a bet without a badugi; `station` draws the same way and only "
            "checks and calls; `random` picks uniformly among legal actions.", "",
            "## Solved strategies against the baselines", "",
            "The last column is the same pairing's exact value in the solver's model (independent decks), from "
            "an evaluate walk over value classes (`model_mbb`; none where the game's tree is too big to build).",
            "",
            "| game | A | B | hands | A's mbb/hand | with the button | in the big blind | in the model |",
            "|---|---|---|---:|---:|---:|---:|---:|"]
    for r in rows:
        if r["kind"] == "baseline":
            text.append(f"| {r['game']} | `{r['a']}` | {r['b']} | {r['hands']:,} | **{r['mbb']:+.1f} ± {r['ci95']:.1f}** "
                        f"| {r['button_mbb']:+.1f} ± {r['button_ci95']:.1f} "
                        f"| {r['big_blind_mbb']:+.1f} ± {r['big_blind_ci95']:.1f} | "
                        + ("—" if r["model_mbb"] != r["model_mbb"] else f"{r['model_mbb']:+.1f}") + " |")
    previous = [r for r in rows if r["kind"] == "previous"]
    if previous:
        text += ["", "## The committed cap-4 strategy against an earlier one", "",
                 "The committed compact strategy (`results/triple-draw-cap4/compact`) against an earlier solve "
                 "of the real game (`--previous`; what its folder holds is in its `compact.json` or "
                 "`summary.json`).", "",
                 "| A | B | hands | A's mbb/hand | with the button | in the big blind |", "|---|---|---:|---:|---:|---:|"]
        for r in previous:
            text.append(f"| `{r['a']}` | `{r['b']}` | {r['hands']:,} | **{r['mbb']:+.1f} ± {r['ci95']:.1f}** "
                        f"| {r['button_mbb']:+.1f} ± {r['button_ci95']:.1f} "
                        f"| {r['big_blind_mbb']:+.1f} ± {r['big_blind_ci95']:.1f} |")
    text += ["", "## Which strategies played", "",
             "Each game's strategy, against the reference solve committed in `results/GAME/summary.json`:", "",
             "| game | strategy played | results/ holds |", "|---|---|---|"]
    for g in gaps:
        text.append(f"| {Path(g['strategy']).name} | {played(g)} | {committed_note(g)} |")
    text += ["", "## The model gap", "",
             "The solver's model gives each player a deck of his own; in the real game the cards one player "
             "holds or throws are not in the other's draws. A strategy playing itself shows the button's "
             "value in each (`model_gap.csv`).", "",
             "| game | exploitability in the model | button's value in the model | in real Badugi (self-play) | gap |",
             "|---|---:|---:|---:|---:|"]
    for g in gaps:
        text.append(f"| {g['game']} | {g['exploitability_mbb']:.3g} | {g['model_value_mbb']:+.1f} | "
                    f"{g['real_value_mbb']:+.1f} ± {g['real_ci95']:.1f} | {g['gap_mbb']:+.1f} |")
    text += ["", "## Resolutions", "", resolutions_said(), "",
             "| A | B | hands | A's mbb/hand in real Badugi | in the model |", "|---|---|---:|---:|---:|"]
    for r in rows:
        if r["kind"] == "resolution":
            text.append(f"| `{r['a']}` | `{r['b']}` | {r['hands']:,} | {r['mbb']:+.1f} ± {r['ci95']:.1f} "
                        f"| {r['model_mbb']:+.2f} |")
    speeds = [r["hands_per_s"] for r in rows]
    text += ["", f"Simulator speed in these matches: {min(speeds):,.0f} to {max(speeds):,.0f} hands/s on one core "
             "(strategy lookups included).", ""]
    (OUT / "README.md").write_text("\n".join(text))


if __name__ == "__main__":
    sys.exit(main())
