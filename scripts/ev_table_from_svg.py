"""Recover ``ev_by_hand.csv`` from a committed ``ev_by_hand.svg`` (tables published before the
EV chart had a table of its own).

    python scripts/ev_table_from_svg.py results/double-draw                # writes results/double-draw/ev_by_hand.csv
    python scripts/ev_table_from_svg.py runs/sd --check runs/sd/ev_by_hand.csv   # compare with a table written by a solve

The chart's SVG keeps every point: each marker is placed at (x, y) in pixels with six decimals,
the x ticks name the hand groups and the y ticks carry their values, so each seat's EV of each
dealt hand group is read back through the y axis's linear scale (to about 0.001 mbb on these
charts). The deal probability is not on the chart: the column is left empty. Charts of
``scripts/make_results.py --from-tables`` then draw the EV chart from the table.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

import numpy as np

SEAT_COLOURS = {"#c62828": "ev_button_mbb", "#1565c0": "ev_big_blind_mbb"}  # as charts.plot_deal_ev draws them


def _ticks(svg: str, axis: str) -> list[tuple[float, str]]:
    """(pixel position, label) of each tick of ``axis`` ("x" or "y")."""
    out = []
    for block in re.split(rf'<g id="{axis}tick_\d+">', svg)[1:]:
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
    parser.add_argument("--check", help="compare with this ev_by_hand.csv instead of writing one")
    args = parser.parse_args(argv)
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
