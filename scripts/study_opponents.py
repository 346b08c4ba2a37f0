"""Worked examples of node locking and maximal exploitation, single draw (results/opponents/).

    python scripts/study_opponents.py                  # 1,000,000 hands a match, seed 1
    python scripts/study_opponents.py --hands 200000   # quicker, wider intervals

1. *How should the button draw against a big blind who never snows?* A solve
   with the big blind locked to never stand pat without a badugi
   (the shipped lock ``never-snows``), both players optimising the rest, against
   the equilibrium: values and the button's pat / snow / break rates.
2. *What is a calling station (or the rule player) worth?* ``badugi exploit``
   of the equilibrium against each: the exploiting strategy's value and the
   equilibrium's against the same opponent, exactly in the model and in real
   one-deck matches on the same deals.

Needs runs/single-draw (``badugi solve`` solves it if missing); writes
runs/single-draw-vs-no-snow, runs/single-draw-vs-station and
runs/single-draw-vs-rule, and results/opponents/ (study.json, README.md, the
locked solve's charts).
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from solver.arena.exploit import exploit  # noqa: E402
from solver.arena.match import load_player, model_values, play_match  # noqa: E402
from solver.cfr.locks import LockFile  # noqa: E402
from solver.cfr.solve import solve  # noqa: E402
from solver.game.config import load_preset  # noqa: E402
from solver.tables.charts import write_charts  # noqa: E402
from solver.tables.reports import summarise  # noqa: E402
from solver.tables.strategy import load_strategy  # noqa: E402

RUNS = ROOT / "runs"
OUT = ROOT / "results" / "opponents"
LOCK = "never-snows"  # shipped: solver/game/presets/locks/never-snows.toml


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def _solved(name: str, locks: LockFile | None = None) -> Path:
    run = RUNS / name
    lock_text = (run / "lock.toml").read_text() if (run / "lock.toml").is_file() else ""
    if not (run / "strategy.npz").is_file() or lock_text != (locks.text if locks else ""):
        _say(f"solving {name} (single draw to 0.1 mbb/hand)")
        if run.exists():
            shutil.rmtree(run)  # another lock's run
        solve(load_preset("single-draw"), target_mbb=0.1, out_dir=run, locks=locks, progress=_say)
    return run


def _match(a, b, hands: int, seed: int) -> dict:
    r = play_match(None, a, b, hands, seed)
    return {"mbb": r.mbb, "ci95": r.ci95, "button_mbb": r.button_mbb, "button_ci95": r.button_ci95,
            "big_blind_mbb": r.big_blind_mbb, "big_blind_ci95": r.big_blind_ci95, "hands": r.games}


def _button_draws(run: Path) -> dict:
    """The button's pat / snow / break shares of its draw decisions (reach-weighted)."""
    s = summarise(load_strategy(run)).pat_snow_break[(0, 0)]
    return {k: 100.0 * s[k] for k in ("pat", "snow", "break")}


def _draw_changes(before: Path, after: Path, min_reach: float = 1e-3, min_change: float = 0.02) -> list[dict]:
    """The button's hand groups whose draw frequencies changed most, among those it brings to the
    draw at least ``min_reach`` of hands in both strategies."""
    a, b = summarise(load_strategy(before)), summarise(load_strategy(after))
    rows = []
    for g, label in enumerate(a.group_labels):
        ra, rb = a.draw_reach[(0, 0)][g], b.draw_reach[(0, 0)][g]
        if min(ra, rb) < min_reach:
            continue
        fa, fb = a.draw_freq[(0, 0)][g], b.draw_freq[(0, 0)][g]
        change = float(abs(fa - fb).max())
        if change >= min_change:
            rows.append({"hand": label, "reach": float(rb), "change": change,
                         "before": [round(100 * float(x), 1) for x in fa],
                         "after": [round(100 * float(x), 1) for x in fb]})
    return sorted(rows, key=lambda r: -r["change"])


def never_snows(equilibrium: Path, hands: int, seed: int) -> dict:
    locked = _solved("single-draw-vs-no-snow", LockFile.read(LOCK))
    eq_summary = json.loads((equilibrium / "summary.json").read_text())
    locked_summary = json.loads((locked / "summary.json").read_text())
    eq_player, locked_player = load_player(str(equilibrium)), load_player(str(locked))
    # The button: equilibrium against the never-snowing big blind, then adapted to him.
    eq_button, _ = model_values(eq_player, locked_player)
    adapted_button, _ = model_values(locked_player, locked_player)
    charts = write_charts(locked, out=OUT / "never-snows")
    shutil.copy2(locked / "convergence.csv", OUT / "never-snows")  # its chart's table (make_results.py --from-tables)
    return {
        "lock": LOCK,
        "run": str(locked.relative_to(ROOT)),
        "locked_game_exploitability_mbb": locked_summary["exploitability_mbb"],
        "iterations": locked_summary["iterations"],
        "equilibrium_button_mbb": eq_summary["game_value_mbb"],
        "equilibrium_button_vs_no_snow_mbb": eq_button,
        "adapted_button_vs_no_snow_mbb": adapted_button,
        "button_draws_equilibrium": _button_draws(equilibrium),
        "button_draws_adapted": _button_draws(locked),
        "button_draw_changes": _draw_changes(equilibrium, locked),
        "matches": {
            "equilibrium_vs_no_snow": _match(str(equilibrium), str(locked), hands, seed),
            "adapted_self_play": _match(str(locked), str(locked), hands, seed),
        },
        "charts": [str(p.relative_to(ROOT)) for p in charts if p.suffix == ".png"],
    }


def exploits(equilibrium: Path, hands: int, seed: int) -> dict:
    out = {}
    for opponent in ("station", "rule"):
        run = RUNS / f"single-draw-vs-{opponent}"
        _say(f"exploiting {opponent}")
        if run.exists():
            shutil.rmtree(run)
        summary = exploit(equilibrium, opponent, out_dir=run)
        out[opponent] = {
            "run": str(run.relative_to(ROOT)),
            "exploiting_mbb": summary["exploiting_mean_mbb"],
            "equilibrium_mbb": summary["equilibrium_mean_mbb"],
            "gain_mbb": summary["gain_mbb"],
            "exploiting_by_seat_mbb": summary["exploiting_mbb"],
            "equilibrium_by_seat_mbb": summary["equilibrium_mbb"],
            "exploiting_exploitability_mbb": summary["exploitability_mbb"],
            "matches": {"exploiting": _match(str(run), opponent, hands, seed),
                        "equilibrium": _match(str(equilibrium), opponent, hands, seed)},
        }
    return out


def _pm(m: dict, key: str = "mbb") -> str:
    ci = "ci95" if key == "mbb" else key.replace("mbb", "ci95")
    return f"{m[key]:+.1f} ± {m[ci]:.1f}"


def render(study: dict) -> str:
    ns, ex = study["never_snows"], study["exploits"]
    lines = [
        "# Studying real opponents: node locking and maximal exploitation (single draw)",
        "",
        f"`{study['command']}` ({study['date']}; matches of {study['hands']:,} hands, duplicate, seed "
        f"{study['seed']}, 95% intervals). Values are the button's or the exploiter's, mbb/hand.",
        "",
        "## Against a big blind who never snows",
        "",
        f"The lock (`--lock {ns['lock']}`, solver/game/presets/locks/) fixes the big blind's draws without a badugi to never stand pat; "
        f"both players optimise everything else (`{ns['run']}`, {ns['iterations']} iterations, "
        f"{ns['locked_game_exploitability_mbb']:.3f} mbb/hand from equilibrium in the locked game).",
        "",
        "| the button | in the model | real one-deck match |",
        "|---|---:|---:|",
        f"| equilibrium, against the equilibrium big blind | {ns['equilibrium_button_mbb']:+.1f} | |",
        f"| equilibrium, against the never-snowing big blind | {ns['equilibrium_button_vs_no_snow_mbb']:+.1f} | "
        f"{_pm(ns['matches']['equilibrium_vs_no_snow'], 'button_mbb')} |",
        f"| adapted (the locked solve), against him | {ns['adapted_button_vs_no_snow_mbb']:+.1f} | "
        f"{_pm(ns['matches']['adapted_self_play'], 'button_mbb')} |",
        "",
        "How the button draws (share of its draw decisions, reach-weighted):",
        "",
        "| the button | pat % | snow % | break % |",
        "|---|---:|---:|---:|",
    ]
    for name, key in (("equilibrium", "button_draws_equilibrium"), ("adapted", "button_draws_adapted")):
        d = ns[key]
        lines.append(f"| {name} | {d['pat']:.1f} | {d['snow']:.1f} | {d['break']:.1f} |")
    lines += ["", "The hand groups whose draws changed most (the button's first draw, groups it brings there in "
              "at least 0.1% of hands; % pat / draw 1 / 2 / 3 / 4):", "",
              "| hand | reach % | equilibrium | adapted |", "|---|---:|---|---|"]
    for r in ns["button_draw_changes"]:
        lines.append(f"| {r['hand']} | {100 * r['reach']:.2f} | {' / '.join(f'{x:g}' for x in r['before'])} | "
                     f"{' / '.join(f'{x:g}' for x in r['after'])} |")
    lines += ["", "![cards drawn, against a big blind who never snows](never-snows/draws_1.png)", "",
              "## Exploiting the baselines", "",
              "`badugi exploit runs/single-draw --against OPPONENT`: the exact best response in each seat, "
              "ties broken by the equilibrium.", "",
              "| opponent | exploiting, model | equilibrium, model | gain | exploiting, match | equilibrium, match |",
              "|---|---:|---:|---:|---:|---:|"]
    for opponent, e in ex.items():
        lines.append(f"| {opponent} | {e['exploiting_mbb']:+.1f} | {e['equilibrium_mbb']:+.1f} | "
                     f"{e['gain_mbb']:+.1f} | {_pm(e['matches']['exploiting'])} | "
                     f"{_pm(e['matches']['equilibrium'])} |")
    lines += ["", "The exploiting strategies are far from equilibrium themselves (their own exploitability: "
              + ", ".join(f"{o} {e['exploiting_exploitability_mbb']:.0f}" for o, e in ex.items())
              + " mbb/hand): they win the most against that opponent and lose to anyone who knows it.", ""]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    t0 = time.perf_counter()
    equilibrium = _solved("single-draw")
    study = {"command": "python scripts/study_opponents.py" + (f" --hands {args.hands}" if args.hands != 1_000_000
                                                                 else ""),
             "date": time.strftime("%Y-%m-%d"), "hands": args.hands, "seed": args.seed,
             "equilibrium": str(equilibrium.relative_to(ROOT)),
             "never_snows": never_snows(equilibrium, args.hands, args.seed),
             "exploits": exploits(equilibrium, args.hands, args.seed)}
    study["seconds"] = round(time.perf_counter() - t0, 1)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "study.json").write_text(json.dumps(study, indent=2) + "\n")
    (OUT / "README.md").write_text(render(study))
    _say(f"wrote {OUT / 'study.json'} and {OUT / 'README.md'} in {study['seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
