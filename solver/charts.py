"""Charts drawn from solve outputs (matplotlib, no display needed)."""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_convergence(path: Path) -> list[tuple[int, float, float]]:
    with open(path, newline="") as f:
        return [(int(r["iteration"]), float(r["seconds"]), float(r["exploitability_mbb"])) for r in csv.DictReader(f)]


def plot_convergence(runs: dict[str, list[tuple[int, float, float]]], path: Path, title: str) -> list[Path]:
    """Exploitability against iterations and seconds, log scales, one line per run; PNG and SVG."""
    fig, (by_iter, by_time) = plt.subplots(1, 2, figsize=(10, 4), constrained_layout=True)
    for label, rows in runs.items():
        rows = [r for r in rows if r[0] > 0 and r[2] > 0]
        by_iter.plot([r[0] for r in rows], [r[2] for r in rows], marker=".", label=label)
        by_time.plot([max(r[1], 1e-3) for r in rows], [r[2] for r in rows], marker=".", label=label)
    for ax, xlabel in ((by_iter, "iterations"), (by_time, "seconds")):
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("exploitability (mbb/hand)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    written = []
    for suffix in (".png", ".svg"):
        target = Path(path).with_suffix(suffix)
        fig.savefig(target, dpi=120)
        written.append(target)
    plt.close(fig)
    return written
