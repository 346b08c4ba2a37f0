"""Recover a chart's table from its committed SVG: ``ev_by_hand.csv`` (tables published before
the EV chart had a table of its own) and ``convergence.csv`` (charts published without it).

    python scripts/tables_from_svg.py results/double-draw          # writes results/double-draw/ev_by_hand.csv
    python scripts/tables_from_svg.py runs/sd --check runs/sd/ev_by_hand.csv   # compare with a solve's table
    python scripts/tables_from_svg.py results/opponents/never-snows --convergence   # writes its convergence.csv
    python scripts/tables_from_svg.py results/single-draw --convergence --check results/single-draw/convergence.csv

The chart's SVG keeps every point: each marker is placed at (x, y) in pixels with six decimals,
the x ticks name the hand groups and the y ticks carry their values, so each seat's EV of each
dealt hand group is read back through the y axis's linear scale (to about 0.001 mbb on these
charts). The deal probability is not on the chart: the column is left empty. A convergence
chart's points are read the same way through its log axes (iterations and exploitability from
the first panel, seconds from the second). ``scripts/make_results.py --from-tables`` then draws
the charts from the tables.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

import numpy as np

SEAT_COLOURS = {"#c62828": "ev_button_mbb", "#1565c0": "ev_big_blind_mbb"}  # as charts.plot_deal_ev draws them


def _tick_value(label: str) -> float:
    """A tick label's value: ``1,000``, ``−1000``, ``$\\mathdefault{2\\times10^{3}}$``."""
    power = re.search(r"(?:([\d.]+)\\times\s*)?10\^\{([−-]?\d+)\}", label)
    if power:
        return float(power.group(1) or 1) * 10.0 ** int(power.group(2).replace("−", "-"))
    return float(label.replace("−", "-").replace(",", "").strip("$"))


def _scale(ticks: list[tuple[float, str]], log: bool, where: str):
    """pixel -> value through the ticks (a line fitted in value or log value); ValueError if not one."""
    pixels = [p for p, _ in ticks]
    values = [_tick_value(label) for _, label in ticks]
    values = np.log10(values) if log else np.array(values)
    if len(set(pixels)) < 2:
        raise ValueError(f"{where}: too few tick labels to read the axis from")
    slope, intercept = np.polyfit(pixels, values, 1)
    if max(abs(slope * np.array(pixels) + intercept - values)) > 1e-3 * max(1.0, max(abs(values))):
        raise ValueError(f"{where}: the ticks do not lie on one {'log ' if log else ''}scale")
    return (lambda p: 10.0 ** (slope * p + intercept)) if log else (lambda p: slope * p + intercept)


def convergence_rows(svg_path: Path) -> list[dict]:
    svg = svg_path.read_text()
    panels = re.split(r'<g id="axes_\d+">', svg)[1:3]
    points = []
    for panel in panels:
        panel = re.split(r'<g id="legend_\d+">', panel)[0]  # a legend's own marker is no point
        to_x = _scale(_ticks(panel, "x"), True, f"{svg_path} x")
        to_y = _scale(_ticks(panel, "y"), True, f"{svg_path} y")
        markers = re.findall(r'<use xlink:href="(#[^"]+)" x="([-\d.]+)" y="([-\d.]+)" style="fill: #1f77b4', panel)
        line = max({m[0] for m in markers}, key=[m[0] for m in markers].count)  # the line's marker, not a star
        points.append([(to_x(float(x)), to_y(float(y))) for href, x, y in markers if href == line])
    (by_iter, by_time) = points
    if len(by_iter) != len(by_time) or not by_iter:
        raise ValueError(f"{svg_path}: the two panels hold {len(by_iter)} and {len(by_time)} points")
    return [{"iteration": round(i), "seconds": round(s, 3), "exploitability_mbb": float(f"{x:.6g}")}
            for (i, x), (s, _) in zip(by_iter, by_time)]


def _ticks(svg: str, axis: str) -> list[tuple[float, str]]:
    """(pixel position, label) of each tick of ``axis`` ("x" or "y")."""
    out = []
    # A tick's group closes at its own indentation (matplotlib indents its SVG by depth).
    for _, block in re.findall(rf'\n( *)<g id="{axis}tick_\d+">(.*?)\n\1</g>', svg, re.S):
        use = re.search(r'<use xlink:href="#[^"]+" x="([-\d.]+)" y="([-\d.]+)"', block)
        label = re.search(r"<!-- (.*?) -->", block)
        if use and label:
            out.append((float(use.group(1) if axis == "x" else use.group(2)), label.group(1)))
    return out


def ev_rows(svg_path: Path) -> list[dict]:
    svg = svg_path.read_text()
    xticks = _ticks(svg, "x")
    yticks = [(y, float(label.replace("\u2212", "-").replace(",", ""))) for y, label in _ticks(svg, "y")]
    if len(xticks) < 2 or len(yticks) < 2:
        raise ValueError(f"{svg_path}: no tick labels to read the axes from")
    slope, intercept = np.polyfit([y for y, _ in yticks], [v for _, v in yticks], 1)
    residual = max(abs(slope * y + intercept - v) for y, v in yticks)
    if residual > 1e-3 * max(abs(v) for _, v in yticks):
        raise ValueError(f"{svg_path}: the y axis is not linear (residual {residual:g})")
    rows = {label: {"hand": label, "deal_prob": ""} for _, label in xticks}
    positions = np.array([x for x, _ in xticks])
    labels = [label for _, label in xticks]
    markers = re.findall(r'<use xlink:href="#[^"]+" x="([-\d.]+)" y="([-\d.]+)" style="fill: (#[0-9a-f]{6})', svg)
    for x, y, colour in markers:
        if colour not in SEAT_COLOURS:
            continue
        nearest = int(np.argmin(abs(positions - float(x))))
        if abs(positions[nearest] - float(x)) > 1e-3:  # a legend's marker, not a point
            continue
        rows[labels[nearest]][SEAT_COLOURS[colour]] = round(float(slope * float(y) + intercept), 2)
    missing = [label for label, row in rows.items() if len(row) != 4]
    if missing:
        raise ValueError(f"{svg_path}: no point for {', '.join(missing)}")
    return list(rows.values())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("directory", help="a folder holding ev_by_hand.svg")
    parser.add_argument("--check", help="compare with this table instead of writing one")
    parser.add_argument("--convergence", action="store_true", help="convergence.csv from convergence.svg")
    args = parser.parse_args(argv)
    if args.convergence:
        rows = convergence_rows(Path(args.directory) / "convergence.svg")
        if args.check:
            with open(args.check, newline="") as f:
                table = list(csv.DictReader(f))
            table = [r for r in table if int(r["iteration"]) > 0 and float(r["exploitability_mbb"]) > 0]
            assert [r["iteration"] for r in rows] == [int(r["iteration"]) for r in table], "iterations differ"
            worst = max(max(abs(r["seconds"] / max(float(t["seconds"]), 1e-3) - 1),
                            abs(r["exploitability_mbb"] / float(t["exploitability_mbb"]) - 1))
                        for r, t in zip(rows, table))
            print(f"{len(rows)} points; largest relative difference from {args.check}: {worst:.2g}")
            return 0 if worst < 1e-4 else 1
        out = Path(args.directory) / "convergence.csv"
        with open(out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=["iteration", "seconds", "exploitability_mbb"])
            writer.writeheader()
            writer.writerows(rows)
        print(f"wrote {out}: {len(rows)} points")
        return 0
    rows = ev_rows(Path(args.directory) / "ev_by_hand.svg")
    if args.check:
        with open(args.check, newline="") as f:
            table = {r["hand"]: r for r in csv.DictReader(f)}
        worst = max(abs(float(r[c]) - float(table[r["hand"]][c])) for r in rows for c in SEAT_COLOURS.values())
        print(f"{len(rows)} hand groups; largest difference from {args.check}: {worst:.4f} mbb/hand")
        return 0 if worst < 0.01 else 1
    out = Path(args.directory) / "ev_by_hand.csv"
    with open(out, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=["hand", "deal_prob", "ev_button_mbb", "ev_big_blind_mbb"])
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {out}: {len(rows)} hand groups")
    return 0


if __name__ == "__main__":
    sys.exit(main())
