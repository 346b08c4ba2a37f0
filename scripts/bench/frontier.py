"""The abstraction frontier, measured at convergence: certified exploitability against memory.

    python scripts/bench/frontier.py run --preset double-draw --cap 4 \
        --points 32:2 64:2 64:1d 64:0d 64/64/128:1d 128:1d 64:1 --out results/frontier/double-draw-cap4.jsonl
    python scripts/bench/frontier.py table results/frontier/double-draw-cap4.jsonl
    python scripts/bench/frontier.py plot results/frontier/*.jsonl --out results/frontier/frontier

``run``: each point is an abstraction of the game (``BUCKETS:RULE``): ``BUCKETS`` one count
for every round or one per round (``64/64/128``), ``RULE`` the rounds remembered, then ``d``
to keep every older round's draw counts, ``b`` to keep its number of bets
(``older_betting = "bets"``) or ``l`` who bet last in it (``"last"``; see :mod:`solver.game.history`), ``mN`` to
tell draw counts apart only up to N (``draw_limit = N``: ``2dm3`` remembers drawing four as drawing three), and
``r`` for the last round's buckets against the opponent's ranges by his last draw
(``last_round_buckets = "ranges"``), ``@16`` for 16-bit storage. Each is solved in its abstract
game (:class:`solver.cfr.abstract.AbstractEngine`, the default algorithm, pruned walks) and
checked every ``--step`` iterations: its abstract exploitability and its certificate (the exact
best response at full resolution). A point is *converged* when what remains is the
abstraction's, not the iterations': its abstract exploitability is at most a tenth of its
certified one, or its certified figure is flat (within 5%) over the last quarter of its run (an
abstraction that forgets cannot drive its abstract figure down: the abstract best response
remembers what the strategy forgets). A point that is not converged by ``--max`` iterations is
recorded as such. Every check is a JSON line of ``--out``; points already finished there are
skipped, so a run interrupted goes on where it stopped.

``--keep DIR`` keeps each point's final average strategy; ``--resolve GADGET:ITERATIONS:MIN_REACH[:FLOOR]``
also certifies it with its last rounds re-solved (:class:`solver.cfr.resolving.ResolvedCertifier`),
at the end of ``run`` or afterwards from the kept strategy (``resolve``); the chart draws that
figure as a triangle below its point.

``export`` writes the checks of runs as one JSON list (for results/); ``table`` prints the
finished points as a Markdown table (entries, GiB, iterations, solving minutes, abstract and
certified mbb/hand), or with ``--out F.csv`` writes them as CSV; ``plot`` draws certified exploitability against
strategy entries, one series per file, the frontier (points no other beats on both) joined.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

FLAT = 0.05          # the certified figure may move this much over the last quarter of a converged run
ABSTRACT_SHARE = 0.1  # or the abstract figure is at most this share of the certified one


def _say(line: str) -> None:
    print(line, file=sys.stderr, flush=True)


def parse_point(spec: str, rounds: int) -> dict:
    """``BUCKETS:RULE[@16]`` (see the module docstring) as config fields."""
    spec, _, bits = spec.partition("@")
    try:
        buckets_part, rule = spec.split(":")
        buckets = tuple(int(b) for b in buckets_part.split("/"))
        recall = int(rule[0])
        flags, _, limit = rule[1:].partition("m")
        draw_limit = int(limit) if limit else 0
    except (ValueError, IndexError):
        raise SystemExit(f"frontier: a point is BUCKETS:RULE (e.g. 64:1d or 64/64/128:2), got {spec!r}") from None
    if set(flags) - set("dblr") or {"b", "l"} <= set(flags) or len(buckets) not in (1, rounds):
        raise SystemExit(f"frontier: {spec!r}: RULE is the rounds remembered then 'd', one of 'b' or 'l', 'r' and "
                         f"'mN'; BUCKETS one count or {rounds}")
    if bits not in ("", "16", "32"):
        raise SystemExit(f"frontier: {spec!r}: a point's storage is @16 or @32")
    return {"buckets": buckets * rounds if len(buckets) == 1 else buckets, "recall": recall,
            "remember_draws": "d" in flags, "older_betting": "bets" if "b" in flags else "last" if "l" in flags else "forget",
            "draw_limit": draw_limit, "storage_bits": int(bits or 32),
            "last_round_buckets": "ranges" if "r" in flags else "strength"}


def converged(checks: list[dict]) -> str | None:
    """Why the run of these checks (in order) is converged, or None."""
    last = checks[-1]
    if last["abstract_mbb"] <= ABSTRACT_SHARE * last["certified_mbb"]:
        return "abstract at most a tenth of certified"
    quarter = [c["certified_mbb"] for c in checks if c["iterations"] >= 0.75 * last["iterations"]]
    if len(quarter) >= 2 and max(quarter) <= (1 + FLAT) * min(quarter):
        return "certified flat over the last quarter"
    return None


def _checks(path: Path) -> list[dict]:
    """Every check of a run: a JSON-lines file (``run``'s) or a JSON list (``export``'s)."""
    if not path.exists():
        return []
    if path.suffix == ".json":
        return json.loads(path.read_text())
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _done(out: Path) -> dict[str, dict]:
    return {row["point"]: row for row in _checks(out) if row.get("final")}


def parse_rule(text: str | None):
    """``GADGET:ITERATIONS:MIN_REACH[:FLOOR]`` (``maxmargin:200:1e-3``, ``resolve:200:1e-3:0.05``) as a
    re-solve rule, or None."""
    if not text:
        return None
    from solver.cfr.resolving import ResolveRule

    try:
        gadget, iterations, min_reach, *floor = text.split(":")
        if len(floor) > 1:
            raise ValueError("one floor at most")
        return ResolveRule(float(min_reach), int(iterations), gadget, float(floor[0]) if floor else 0.0).checked()
    except ValueError as error:
        raise SystemExit(f"frontier: --resolve is GADGET:ITERATIONS:MIN_REACH[:FLOOR] (e.g. maxmargin:200:1e-3): "
                         f"{error}") from None


def resolved_fields(setup, play, rule) -> dict:
    """The certificate of the strategy ``play`` (average probabilities in ``setup``'s layout) with
    its last rounds re-solved under ``rule`` (:class:`solver.cfr.resolving.ResolvedCertifier`)."""
    from solver.cfr.resolving import ResolvedCertifier
    from solver.cfr.streamed import StreamedWalker

    cert = ResolvedCertifier(StreamedWalker(setup.game, setup.layout, setup.model), rule).certify(play)
    floor = f":{rule.floor:g}" if rule.floor else ""
    return {"resolve_rule": f"{rule.gadget}:{rule.iterations}:{rule.min_reach:g}{floor}", "resolved_mbb": cert.exploitability_mbb,
            "resolved_subgames": cert.resolved, "resolve_seconds": round(cert.seconds, 1)}


def _config(preset: str, cap: int | None, spec: str):
    from solver.game.config import load_preset

    base = load_preset(preset)
    if cap is not None:
        base = dataclasses.replace(base, cap=cap)
    return dataclasses.replace(base, **parse_point(spec, base.rounds))


def _kept(keep: Path, preset: str, cap, spec: str) -> Path:
    return keep / f"{preset}-cap{cap}-{spec.replace('/', '-').replace(':', '_')}.npy"


def resolve(preset: str, cap: int | None, points: list[str], keep: Path, rule, out: Path) -> None:
    """Re-solved certificates of finished points from their kept strategies (``run --keep``): each
    point's final row again, with the re-solved fields, appended to ``out``."""
    import numpy as np
    from solver.game.setup import GameSetup

    finished = _done(out)
    for spec in points:
        path = _kept(keep, preset, cap, spec)
        if spec not in finished or not path.is_file():
            raise SystemExit(f"frontier: {spec}: no finished run in {out} with its strategy kept in {path}")
        config = _config(preset, cap, spec)
        row = dict(finished[spec], **resolved_fields(GameSetup.of(config, streamed=True), np.load(path), rule))
        with out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        _say(json.dumps(row))


def run(preset: str, cap: int | None, points: list[str], step: int, most: int, out: Path, keep: Path | None = None,
        rule=None) -> None:
    import numpy as np
    from solver.cfr.solve import make_engine

    out.parent.mkdir(parents=True, exist_ok=True)
    finished = _done(out)
    for spec in points:
        if spec in finished:
            _say(f"{spec}: done before ({finished[spec]['certified_mbb']:.1f} mbb/hand)")
            continue
        config = _config(preset, cap, spec)
        t0 = time.perf_counter()
        engine = make_engine(config, streamed=True)
        setup_s = time.perf_counter() - t0
        _say(f"{config.describe()}: {engine.layout.n_entries:,} entries, set up in {setup_s:.1f} s")
        checks, solving = [], 0.0
        while True:
            t0 = time.perf_counter()
            engine.run_iterations(step)
            solving += time.perf_counter() - t0
            abstract = engine.progress_exploitability()
            t0 = time.perf_counter()
            certified = engine.exploitability()
            row = {"point": spec, "game": config.describe(), "preset": preset, "cap": config.cap,
                   "buckets": list(config.buckets), "recall": config.recall, "remember_draws": config.remember_draws,
                   "older_betting": config.older_betting, "draw_limit": config.draw_limit,
                   "last_round_buckets": config.last_round_buckets, "entries": int(engine.layout.n_entries),
                   "memory_bytes": int(engine.plan.bytes), "iterations": engine.iteration,
                   "solving_seconds": round(solving, 1), "abstract_mbb": abstract.exploitability_mbb,
                   "certified_mbb": certified.exploitability_mbb, "game_value_mbb": certified.game_value_mbb,
                   "certificate_seconds": round(time.perf_counter() - t0, 1)}
            checks.append(row)
            why = converged(checks)
            if why or engine.iteration >= most:
                row.update(final=True, converged=why or f"not converged in {most} iterations")
                if keep is not None or rule is not None:
                    play = engine.average_probabilities()
                    if keep is not None:
                        keep.mkdir(parents=True, exist_ok=True)
                        np.save(_kept(keep, preset, cap, spec), play)
                    if rule is not None:
                        row.update(resolved_fields(engine.setup, play, rule))
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            _say(json.dumps(row))
            if row.get("final"):
                break
        del engine


def finished_rows(paths) -> list[dict]:
    rows = []
    for path in paths:
        rows += [r for r in _done(Path(path)).values()]
    return rows


def table(paths) -> str:
    lines = ["| game | abstraction | entries | GiB | iterations | solving min | abstract mbb/hand | "
             "certified mbb/hand | re-solved last rounds | converged |", "|---|---|---:|---:|---:|---:|---:|---:|---:|---|"]
    for r in sorted(finished_rows(paths), key=lambda r: (r["preset"], r["cap"], r["memory_bytes"])):
        what = r["game"].split(", buckets ")[-1]
        lines.append(f"| {r['preset']} cap {r['cap']} | buckets {what} | {r['entries']:,} | "
                     f"{r['memory_bytes'] / 2**30:.2f} | {r['iterations']} | {r['solving_seconds'] / 60:.1f} | "
                     f"{r['abstract_mbb']:.1f} | {r['certified_mbb']:.1f} | {_resolved(r)} | {r['converged']} |")
    return "\n".join(lines)


def _resolved(row: dict) -> str:
    if "resolved_mbb" not in row:
        return ""
    return f"{row['resolved_mbb']:.1f} ({row['resolve_rule']}, {row['resolve_seconds'] / 60:.0f} min)"


CSV_FIELDS = ("preset", "cap", "point", "game", "entries", "memory_bytes", "iterations", "solving_seconds",
              "abstract_mbb", "certified_mbb", "converged", "resolve_rule", "resolved_mbb", "resolve_seconds")


def table_csv(paths) -> str:
    """The finished points as CSV (results/frontier): one row each, the fields of :data:`CSV_FIELDS`."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_FIELDS)
    for r in sorted(finished_rows(paths), key=lambda r: (r["preset"], r["cap"], r["memory_bytes"])):
        writer.writerow([r.get(k, "") for k in CSV_FIELDS])
    return out.getvalue()


def pareto(rows: list[dict]) -> list[dict]:
    """The points no other beats on both entries and certified exploitability, by entries."""
    front, best = [], float("inf")
    for r in sorted(rows, key=lambda r: (r["entries"], r["certified_mbb"])):
        if r["certified_mbb"] < best:
            front.append(r)
            best = r["certified_mbb"]
    return front


def plot(paths, out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    games: dict[str, list[dict]] = {}   # one series per game, whatever file its points are in
    for path in paths:
        for r in _done(Path(path)).values():
            games.setdefault(f"{r['preset']} cap {r['cap']}", []).append(r)
    for label, rows in games.items():
        x = [r["entries"] for r in rows]
        y = [r["certified_mbb"] for r in rows]
        dots = ax.scatter(x, y, label=label, zorder=3)
        stacked: dict[int, int] = {}   # points of equal entries: each next label one line lower
        for r, xi, yi in zip(rows, x, y):
            below = stacked.get(xi, 0)
            stacked[xi] = below + 1
            ax.annotate(r["point"] + ("" if r["converged"].startswith(("abstract", "certified")) else " (not conv.)"),
                        (xi, yi), textcoords="offset points", xytext=(4, 4 - 11 * below), fontsize=8)
        for r in rows:
            if "resolved_mbb" in r:   # the same strategy with its last rounds re-solved: an arrow down
                ax.annotate("", (r["entries"], r["resolved_mbb"]), (r["entries"], r["certified_mbb"]),
                            arrowprops={"arrowstyle": "->", "color": dots.get_facecolor()[0]})
                ax.scatter([r["entries"]], [r["resolved_mbb"]], marker="v", color=dots.get_facecolor()[0], zorder=3)
        front = pareto(rows)
        ax.plot([r["entries"] for r in front], [r["certified_mbb"] for r in front],
                color=dots.get_facecolor()[0], alpha=0.6)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("strategy entries of the abstraction (log)")
    ax.set_ylabel("certified exploitability at convergence (mbb/hand, log)")
    ax.set_title("The abstraction frontier\npoints BUCKETS:RULE (rounds remembered; older rounds' d draws, "
                 "b bets, l last bettor kept;\nmN: draw counts told apart up to N; r: last round's buckets "
                 "against ranges)", fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    fig.tight_layout()
    written = []
    for suffix in (".png", ".svg"):
        path = out.with_suffix(suffix)
        path.parent.mkdir(parents=True, exist_ok=True)
        fig.savefig(path, dpi=120)
        written.append(path)
    plt.close(fig)
    return written


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("part", choices=["run", "resolve", "table", "plot", "export"])
    parser.add_argument("files", nargs="*", help="table, plot: the JSON-lines files of runs")
    parser.add_argument("--preset", default="double-draw")
    parser.add_argument("--cap", type=int, help="the preset's game at this cap")
    parser.add_argument("--points", nargs="+", default=["32:2", "64:2", "64:1d", "64:0d", "64:1"])
    parser.add_argument("--step", type=int, default=100, help="iterations between checks")
    parser.add_argument("--max", type=int, default=1000, help="iterations at most per point")
    parser.add_argument("--keep", metavar="DIR", help="run: keep each point's final average strategy in DIR (.npy); "
                        "resolve: read it from there")
    parser.add_argument("--resolve", metavar="RULE", help="run, resolve: also certify each finished point with its "
                        "last rounds re-solved: GADGET:ITERATIONS:MIN_REACH[:FLOOR] (maxmargin or resolve; re-solved "
                        "where the player's reach is at least MIN_REACH; FLOOR: Resolve's reach floor; "
                        "solver.cfr.resolving)")
    parser.add_argument("--out", help="run: the JSON-lines file; plot: the chart's path (without suffix); export: "
                        "the JSON file; table: a CSV file (else Markdown on stdout)")
    args = parser.parse_args(argv)
    rule = parse_rule(args.resolve)
    if args.part == "run":
        if not args.out:
            parser.error("run needs --out FILE.jsonl")
        run(args.preset, args.cap, args.points, args.step, args.max, Path(args.out),
            Path(args.keep) if args.keep else None, rule)
    elif args.part == "resolve":
        if not (args.out and args.keep and rule):
            parser.error("resolve needs --out FILE.jsonl (the run's), --keep DIR and --resolve RULE")
        resolve(args.preset, args.cap, args.points, Path(args.keep), rule, Path(args.out))
    elif args.part == "table":
        if args.out:   # (a CSV file for results/frontier)
            Path(args.out).write_text(table_csv(args.files))
        else:
            print(table(args.files))
    elif args.part == "export":
        if not args.out:
            parser.error("export needs --out FILE.json")
        rows = [row for path in args.files for row in _checks(Path(path))]
        Path(args.out).write_text(json.dumps(rows, indent=1) + "\n")
    else:
        if not args.out:
            parser.error("plot needs --out PATH")
        for path in plot(args.files, Path(args.out)):
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
