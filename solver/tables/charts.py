"""Charts drawn from solve outputs (matplotlib, no display needed)."""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib
import numpy as np

from abstractions.files import atomic_write

from ..game.tree import ACTION_NAMES, BET_LABELS, SEAT_NAMES

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "badugi"  # stable SVG ids: regenerated charts diff cleanly
import matplotlib.pyplot as plt  # noqa: E402


def save_figure(fig, path: Path) -> list[Path]:
    """Write a figure as PNG and SVG beside each other (each whole or not at all) and close it."""
    written = []
    try:
        for suffix in (".png", ".svg"):
            target = Path(path).with_suffix(suffix)
            with atomic_write(target) as f:
                fig.savefig(f, format=suffix[1:], dpi=110, metadata={"Date": None} if suffix == ".svg" else None)
            written.append(target)
    finally:
        plt.close(fig)
    return written


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
    plotted = any(r[0] > 0 and r[2] > 0 for rows in runs.values() for r in rows)
    for ax, xlabel in ((by_iter, "iterations"), (by_time, "seconds")):
        if not plotted:  # no iteration run yet: nothing to put on log axes
            ax.text(0.5, 0.5, "no iterations yet", ha="center", va="center", transform=ax.transAxes)
            ax.set_xlabel(xlabel)
            continue
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel(xlabel)
        ax.set_ylabel("exploitability (mbb/hand)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend()
    fig.suptitle(title)
    return save_figure(fig, path)


# Hand groups reaching a decision less often than this are left out of the charts:
# what a strategy does where it never goes is arbitrary.
MIN_GROUP_REACH = 1e-6
SEAT_ORDER = (1, 0)  # the big blind acts first after the draw; show it first
ACTION_COLOURS = {"f": "#9e9e9e", "k": "#4c9be8", "c": "#2e7d32", "b": "#f0a030", "r": "#c62828"}


LOCK_MARK = " [locked]"


def _labels(groups, shown, locked) -> list[str]:
    """Hand-group labels, marked where a lock fixes some of the group's decisions there."""
    return [groups[g] + (LOCK_MARK if locked is not None and locked[g] else "") for g in shown]


def _locked_title(summary, title: str) -> str:
    if summary.draw_locked or summary.bet_locked:
        return f"{title}\n[locked]: decisions of that hand group fixed by the run's lock.toml"
    return title


def plot_draw_heatmaps(summary, hand_size: int, path: Path, title: str) -> list[Path]:
    """Cards drawn by hand group: one heatmap per draw round (rows) and seat (columns)."""
    rounds = sorted({r for _, r in summary.draw_freq})
    if not rounds:
        return []
    groups = summary.group_labels
    fig, axes = plt.subplots(len(rounds), 2, figsize=(9, 0.22 * len(groups) * len(rounds) + 1.5), squeeze=False,
                             constrained_layout=True)
    image = None
    for row, rnd in enumerate(rounds):
        for col, seat in enumerate(SEAT_ORDER):
            ax = axes[row, col]
            freq = summary.draw_freq.get((seat, rnd))
            reach = summary.draw_reach.get((seat, rnd))
            if freq is None:
                ax.axis("off")
                continue
            shown = np.nonzero(reach >= MIN_GROUP_REACH)[0]
            image = ax.imshow(freq[shown], aspect="auto", cmap="viridis", vmin=0.0, vmax=1.0,
                              interpolation="nearest")
            ax.set_yticks(range(len(shown)), _labels(groups, shown, summary.draw_locked.get((seat, rnd))), fontsize=7)
            ax.set_xticks(range(hand_size + 1), [("pat" if d == 0 else str(d)) for d in range(hand_size + 1)])
            ax.set_xlabel("cards drawn")
            ax.set_title(f"draw {rnd + 1}, {SEAT_NAMES[seat]}", fontsize=10)
    if image is not None:
        fig.colorbar(image, ax=axes, shrink=0.6, label="frequency (weighted by how often the hand gets here)")
    fig.suptitle(_locked_title(summary, title))
    return save_figure(fig, path)


def plot_pat_snow_break(summary, path: Path, title: str) -> list[Path]:
    """Share of draw decisions that stand pat, snow (pat without a badugi) or break a badugi."""
    keys = sorted(summary.pat_snow_break, key=lambda k: (k[1], SEAT_ORDER.index(k[0])))
    if not keys:
        return []
    fig, ax = plt.subplots(figsize=(max(7, 1.8 * len(keys)), 4), constrained_layout=True)
    width = 0.25
    for i, measure in enumerate(("pat", "snow", "break")):
        values = [100 * summary.pat_snow_break[k][measure] for k in keys]
        bars = ax.bar(np.arange(len(keys)) + (i - 1) * width, values, width, label=measure)
        ax.bar_label(bars, fmt="%.1f", fontsize=7)
    ax.set_xticks(range(len(keys)), [f"draw {r + 1}\n{SEAT_NAMES[s]}" for s, r in keys])
    ax.set_ylabel("% of draw decisions (reach-weighted)")
    ax.set_title(title, fontsize=10)
    ax.legend()
    return save_figure(fig, path)


def plot_betting(summary, path: Path, title: str) -> list[Path]:
    """Betting action frequencies by hand group, per betting round and seat (stacked bars)."""
    rounds = sorted({r for _, r in summary.bet_freq})
    groups = summary.group_labels
    fig, axes = plt.subplots(len(rounds), 2, figsize=(10, 0.2 * len(groups) * len(rounds) + 1.5), squeeze=False,
                             constrained_layout=True)
    for row, rnd in enumerate(rounds):
        for col, seat in enumerate(SEAT_ORDER):
            ax = axes[row, col]
            freq = summary.bet_freq.get((seat, rnd))
            if freq is None:
                ax.axis("off")
                continue
            shown = np.nonzero(summary.bet_reach[(seat, rnd)] >= MIN_GROUP_REACH)[0]
            left = np.zeros(len(shown))
            for a, label in enumerate(BET_LABELS):
                values = np.nan_to_num(freq[shown, a])
                if values.any():
                    ax.barh(range(len(shown)), values, left=left, color=ACTION_COLOURS[label],
                            label=ACTION_NAMES[label], height=0.85)
                    left += values
            ax.set_yticks(range(len(shown)), _labels(groups, shown, summary.bet_locked.get((seat, rnd))), fontsize=7)
            ax.invert_yaxis()
            ax.set_xlim(0, 1)
            ax.set_xlabel("frequency")
            street = "before the draw" if rnd == 0 else f"after draw {rnd}"
            ax.set_title(f"{SEAT_NAMES[seat]}, betting {street}", fontsize=10)
            ax.legend(fontsize=7, loc="lower right")
    fig.suptitle(_locked_title(summary, title))
    return save_figure(fig, path)


def plot_deal_ev(summary, path: Path, title: str) -> list[Path]:
    """Expected value by dealt hand group for each seat."""
    groups = summary.group_labels
    fig, ax = plt.subplots(figsize=(10, 4), constrained_layout=True)
    x = np.arange(len(groups))
    for seat in SEAT_ORDER:
        ax.plot(x, summary.deal_ev[seat] / 1000.0, marker="o", markersize=3, label=SEAT_NAMES[seat])
    ax.axhline(0.0, color="black", linewidth=0.6)
    ax.set_xticks(x, groups, rotation=90, fontsize=7)
    ax.set_ylabel("expected value (big blinds per hand)")
    ax.set_xlabel("dealt hand (strongest left)")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    ax.legend()
    return save_figure(fig, path)
