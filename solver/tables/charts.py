"""Charts drawn from solve outputs (matplotlib, no display needed)."""

from __future__ import annotations

import csv
from pathlib import Path

import matplotlib
import numpy as np

from abstractions.files import atomic_write

from ..game.tree import ACTION_NAMES, BET_LABELS, BET_SITUATIONS, SEAT_NAMES, situation_name

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
    if plotted:  # one legend for both panels, outside them
        fig.legend(*by_iter.get_legend_handles_labels(), loc="outside lower center", ncols=1 if len(runs) > 2 else
                   len(runs), fontsize=8)
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
        return f"{title}\n[locked]: the run's lock.toml fixes decisions of that hand group (wholly or some actions)"
    return title


MAX_HEIGHT_PX = 1600  # every chart fits a README page at full width: split, never taller
DPI = 110
ROW_INCHES = 0.2


def _rows(summary, keys) -> np.ndarray:
    """Hand groups shown (the same rows in every panel of a figure): reached at least
    ``MIN_GROUP_REACH`` in any of ``keys``' situations."""
    reached = np.zeros(len(summary.group_labels), bool)
    for key in keys:
        reached |= summary.situation_reach[key] >= MIN_GROUP_REACH
    return np.nonzero(reached)[0]


def _opacity(reach: np.ndarray) -> np.ndarray:
    """How strongly a row is drawn: by its reach against the panel's most reached row (square
    root, so the middle stays visible), never below 0.15; 0 where never reached."""
    top = reach.max() if len(reach) and reach.max() > 0 else 1.0
    return np.where(reach >= MIN_GROUP_REACH, np.clip(np.sqrt(reach / top), 0.15, 1.0), 0.0)


def _share(x: float) -> str:
    return f"{100 * x:.2f}%" if x >= 1e-4 else "under 0.01%"


def _figure(n_panels: int, n_rows: int, panel_width: float):
    height = min(ROW_INCHES * n_rows + 2.2, MAX_HEIGHT_PX / DPI)
    fig, axes = plt.subplots(1, n_panels, figsize=(max(panel_width * n_panels + 1.6, 6.5), height), squeeze=False,
                             sharey=True, constrained_layout=True)
    return fig, axes[0]


def _group_labels(summary, rows, locked) -> list[str]:
    return _labels(summary.group_labels, rows, locked)


def plot_draw_situations(summary, hand_size: int, directory: Path, title: str) -> list[Path]:
    """Cards drawn by hand group, one file per draw (``draws_1`` ...): the big blind, who draws
    first, then the button after each of his draws; rows faded by how often the hand gets there."""
    first = len(BET_SITUATIONS)
    rounds = sorted({r for (_, r, code) in summary.situation_freq if code >= first})
    written = []
    cmap = plt.get_cmap("viridis")
    for rnd in rounds:
        keys = [(seat, rnd, code) for seat, code in [(1, first)] + [(0, first + 1 + d) for d in range(hand_size + 1)]
                if (seat, rnd, code) in summary.situation_freq]
        rows = _rows(summary, keys)
        fig, axes = _figure(len(keys), len(rows), 1.7)
        for ax, key in zip(axes, keys):
            seat, _, code = key
            freq = np.nan_to_num(summary.situation_freq[key][rows])
            reach = summary.situation_reach[key][rows]
            image = cmap(freq)
            image[..., 3] = _opacity(reach)[:, None]
            ax.imshow(image, aspect="auto", interpolation="nearest")
            ax.set_xticks(range(hand_size + 1), ["pat" if d == 0 else str(d) for d in range(hand_size + 1)],
                          fontsize=8)
            ax.set_title(f"{SEAT_NAMES[seat]}\n{situation_name(code, rnd)}\n{_share(reach.sum())} of hands",
                         fontsize=8)
        locked = [summary.draw_locked[(seat, rnd)] for seat in (0, 1) if (seat, rnd) in summary.draw_locked]
        axes[0].set_yticks(range(len(rows)), _group_labels(summary, rows, np.any(locked, axis=0) if locked else None),
                           fontsize=7)
        fig.colorbar(plt.cm.ScalarMappable(cmap=cmap), ax=axes, shrink=0.5, label="frequency; faded: rarely there")
        fig.supxlabel("cards drawn (pat: snows included)", fontsize=8)
        fig.suptitle(_locked_title(summary, f"{title}: draw {rnd + 1}"), fontsize=10)
        written += save_figure(fig, directory / f"draws_{rnd + 1}")
    return written


def plot_betting_situations(summary, directory: Path, title: str) -> list[Path]:
    """Betting by hand group, one file per round and seat (``betting_0_button`` ...), a panel per
    situation (first in, checked to, facing a bet, a raise, ...); the rows of a round are the same
    for both seats; rows faded by how often the hand gets there."""
    bets = len(BET_SITUATIONS)
    rounds = sorted({r for (_, r, code) in summary.situation_freq if code < bets})
    written = []
    for rnd in rounds:
        round_keys = [k for k in summary.situation_freq if k[1] == rnd and k[2] < bets]
        rows = _rows(summary, round_keys)
        street = "before the draw" if rnd == 0 else f"after draw {rnd}"
        for seat in SEAT_ORDER:
            keys = sorted(k for k in round_keys if k[0] == seat)
            if not keys:
                continue
            fig, axes = _figure(len(keys), len(rows), 2.0)
            for ax, key in zip(axes, keys):
                freq = np.nan_to_num(summary.situation_freq[key][rows])
                reach = summary.situation_reach[key][rows]
                alpha = _opacity(reach)
                left = np.zeros(len(rows))
                for a, label in enumerate(BET_LABELS):
                    if freq[:, a].any():
                        colours = [(*matplotlib.colors.to_rgb(ACTION_COLOURS[label]), o) for o in alpha]
                        ax.barh(range(len(rows)), freq[:, a], left=left, color=colours, height=0.85,
                                label=ACTION_NAMES[label])
                        left += freq[:, a]
                ax.set_xlim(0, 1)
                ax.set_xticks([0, 0.5, 1], ["0", "50%", "100%"], fontsize=7)
                ax.set_title(f"{situation_name(key[2], rnd)}\nreached in {_share(reach.sum())} of hands", fontsize=8)
            axes[0].set_yticks(range(len(rows)), _group_labels(summary, rows, summary.bet_locked.get((seat, rnd))),
                               fontsize=7)
            axes[0].invert_yaxis()
            handles = {ACTION_NAMES[label]: plt.Rectangle((0, 0), 1, 1, color=ACTION_COLOURS[label])
                       for label in BET_LABELS}
            fig.legend(handles.values(), handles.keys(), loc="outside lower center", ncols=5, fontsize=8)
            fig.suptitle(_locked_title(summary, f"{title}: {SEAT_NAMES[seat]}, betting {street} "
                                                "(faded: rarely there)"), fontsize=10)
            written += save_figure(fig, directory / f"betting_{rnd}_{SEAT_NAMES[seat].replace(' ', '-')}")
    return written


def plot_pat_snow_break(summary, path: Path, title: str) -> list[Path]:
    """Standing pat (snows included) as a share of draw decisions, snowing as a share of those
    without a badugi, breaking as a share of those with one; per draw and seat."""
    keys = sorted(summary.pat_snow_break, key=lambda k: (k[1], SEAT_ORDER.index(k[0])))
    if not keys:
        return []
    fig, ax = plt.subplots(figsize=(max(7, 1.8 * len(keys)), 4), constrained_layout=True)
    width = 0.25
    measures = (("pat", "pat (snows included), % of draws"), ("snow_of_non_badugis", "snow, % of draws without a badugi"),
                ("break_of_badugis", "break, % of draws with a badugi"))
    for i, (measure, label) in enumerate(measures):
        values = [100 * np.nan_to_num(summary.pat_snow_break[k][measure]) for k in keys]
        bars = ax.bar(np.arange(len(keys)) + (i - 1) * width, values, width, label=label)
        ax.bar_label(bars, fmt="%.1f", fontsize=7)
    ax.set_xticks(range(len(keys)), [f"draw {r + 1}\n{SEAT_NAMES[s]}" for s, r in keys])
    ax.set_ylabel("% (reach-weighted)")
    ax.set_title(title, fontsize=10)
    fig.legend(loc="outside lower center", ncols=3, fontsize=8)
    return save_figure(fig, path)


def plot_deal_ev(summary, path: Path, title: str) -> list[Path]:
    """Expected value (mbb/hand) by dealt hand group for each seat; a line per card count."""
    groups = summary.group_labels
    fig, ax = plt.subplots(figsize=(10, 4.2), constrained_layout=True)
    x = np.arange(len(groups))
    counts = [label.rsplit(" ", 1)[0] for label in groups]
    for seat, colour in zip(SEAT_ORDER, ("#1565c0", "#c62828")):
        for i, count in enumerate(dict.fromkeys(counts)):
            members = [g for g in range(len(groups)) if counts[g] == count]
            ax.plot(x[members], summary.deal_ev[seat][members], marker="o", markersize=3, color=colour,
                    label=SEAT_NAMES[seat] if i == 0 else None)
    ax.axhline(0.0, color="black", linewidth=0.6)
    ax.set_xticks(x, groups, rotation=90, fontsize=7)
    ax.set_ylabel("expected value (mbb/hand)")
    ax.set_xlabel("dealt hand (strongest left; a line per card count)")
    ax.set_title(title)
    ax.grid(True, alpha=0.3)
    fig.legend(loc="outside right upper", fontsize=8)
    return save_figure(fig, path)
