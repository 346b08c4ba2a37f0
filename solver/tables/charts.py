"""Charts drawn from solve outputs (matplotlib, no display needed)."""

from __future__ import annotations

import csv
import json
import re
import textwrap
from pathlib import Path
from typing import NamedTuple

import matplotlib
import numpy as np

from abstractions.files import atomic_write

from ..game.tree import ACTION_NAMES, BET_LABELS, BET_SITUATIONS, SEAT_NAMES, street_name

matplotlib.use("Agg")
matplotlib.rcParams["svg.hashsalt"] = "badugi"  # stable SVG ids: regenerated charts diff cleanly
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402


DPI = 110
MAX_SIDE_PX = 1600  # every chart fits a README page at full width: split or wrapped, never bigger


def save_figure(fig, path: Path) -> list[Path]:
    """Write a figure as PNG and SVG beside each other (each whole or not at all) and close it."""
    written = []
    try:
        for suffix in (".png", ".svg"):
            target = Path(path).with_suffix(suffix)
            with atomic_write(target) as f:
                fig.savefig(f, format=suffix[1:], dpi=DPI, metadata={"Date": None} if suffix == ".svg" else None)
            written.append(target)
    finally:
        plt.close(fig)
    return written



def read_convergence(path: Path) -> list[tuple[int, float, float]]:
    with open(path, newline="") as f:
        return [(int(r["iteration"]), float(r["seconds"]), float(r["exploitability_mbb"])) for r in csv.DictReader(f)]


class RunConvergence(NamedTuple):
    """A run's progress (iteration, seconds, mbb/hand), whether it was measured in the abstract
    game (a solve certified at full resolution at the end), and the certificate's point (or the
    certified curve, of a run certified during its run: ``certified.csv``)."""

    rows: list
    abstract: bool
    certificate: tuple | None   # (iteration, seconds, certified exploitability mbb/hand): the last
    certified: list = []        # every certificate, in order (the last is ``certificate``)


def run_convergence(directory: str | Path) -> RunConvergence:
    """A run directory's ``convergence.csv``, told by its ``summary.json`` what was measured."""
    directory = Path(directory)
    rows = read_convergence(directory / "convergence.csv")
    path = directory / "summary.json"
    summary = json.loads(path.read_text()) if path.is_file() else {}
    if "abstract_exploitability_mbb" not in summary:
        return RunConvergence(rows, False, None)
    last = (summary["iterations"], summary["seconds"], summary["exploitability_mbb"])
    curve = read_convergence(directory / "certified.csv") if (directory / "certified.csv").is_file() else []
    if not curve or curve[-1][0] != last[0]:
        curve.append(last)
    return RunConvergence(rows, True, last, curve)


def _log_ticks(axis, low: float, high: float) -> None:
    """Plain tick labels on a log axis, few enough never to overlap (1 2 5 a decade over up to
    three decades, powers of ten beyond), no minor labels."""
    decades = np.log10(max(high, low * 1.0001)) - np.log10(low)
    axis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0) if decades <= 3 else (1.0,)))
    axis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:,.0f}" if v >= 1 else f"{v:g}"))
    axis.set_minor_formatter(NullFormatter())


def plot_convergence(runs: dict[str, list[tuple[int, float, float]]], path: Path, title: str,
                     abstract: set | frozenset = frozenset(), certificates: dict | None = None) -> list[Path]:
    """Exploitability against iterations and seconds, log scales, one line per run; PNG and SVG.
    Runs named in ``abstract`` were measured in their abstract game (the y axis says so), and a
    run's certificates (``certificates``: label -> [(iteration, seconds, mbb/hand), ...], exact
    in the real game) are drawn as stars where they were measured, joined when more than one."""
    certificates = certificates or {}
    fig, (by_iter, by_time) = plt.subplots(1, 2, figsize=(10, 4.3), constrained_layout=True)
    xs = {0: [], 1: []}
    ys = []
    for label, rows in runs.items():
        rows = [r for r in rows if r[0] > 0 and r[2] > 0]
        name = f"{label}: abstract game" if label in abstract and len(abstract) < len(runs) else label
        line, = by_iter.plot([r[0] for r in rows], [r[2] for r in rows], marker=".", label=name)
        by_time.plot([max(r[1], 1e-3) for r in rows], [r[2] for r in rows], marker=".", color=line.get_color())
        xs[0] += [r[0] for r in rows]
        xs[1] += [max(r[1], 1e-3) for r in rows]
        ys += [r[2] for r in rows]
        points = [p for p in certificates.get(label, []) if p[0] > 0 and p[2] > 0]
        if points:
            style = dict(marker="*", markersize=13, linestyle="--" if len(points) > 1 else "none",
                         color=line.get_color(), markeredgecolor="black")
            by_iter.plot([p[0] for p in points], [p[2] for p in points], **style,
                         label=f"{label}: certified, real game (full resolution)"
                         if len(runs) > 1 else "certified: exact in the real game (full resolution)")
            by_time.plot([max(p[1], 1e-3) for p in points], [p[2] for p in points], **style)
            xs[0] += [p[0] for p in points]
            xs[1] += [max(p[1], 1e-3) for p in points]
            ys += [p[2] for p in points]
    plotted = bool(ys)
    if abstract and len(abstract) == len(runs):
        ylabel = "exploitability (mbb/hand)\nlines: in the abstract game"
    else:
        ylabel = "exploitability (mbb/hand)"
    for i, (ax, xlabel) in enumerate(((by_iter, "iterations"), (by_time, "seconds"))):
        ax.set_xlabel(xlabel)
        if not plotted:  # no iteration run yet: nothing to put on log axes
            ax.text(0.5, 0.5, "no iterations yet", ha="center", va="center", transform=ax.transAxes)
            continue
        ax.set_xscale("log")
        ax.set_yscale("log")
        _log_ticks(ax.xaxis, min(xs[i]), max(xs[i]))
        ax.set_ylabel(ylabel)
        ax.grid(True, which="both", alpha=0.3)
    if plotted:  # one legend for both panels, outside them
        handles, labels = by_iter.get_legend_handles_labels()
        # One row where the labels fit across the figure, else one a line.
        fig.legend(handles, labels, loc="outside lower center", fontsize=8,
                   ncols=len(labels) if sum(len(label) + 8 for label in labels) < 130 else 1)
    fig.suptitle(_wrap(title, fig, 12))
    return save_figure(fig, path)


# Hand groups reaching a decision less often than this (once in a million hands) are left out
# of the charts: what a strategy does where it never goes is arbitrary. A row is drawn where its
# group reaches one of its chart's situations this often; a cell where it reaches that panel's.
MIN_GROUP_REACH = 1e-6
SEAT_ORDER = (1, 0)  # the big blind acts first after the draw; show it first
ACTION_COLOURS = {"f": "#9e9e9e", "k": "#4c9be8", "c": "#2e7d32", "b": "#f0a030", "r": "#c62828"}
REACH_COLOUR = "#8c8c8c"
MIN_REACH_BAR = 0.08   # the bar of a row reached once in a million: short, but there


LOCK_MARK = " [locked]"


def _labels(groups, shown, locked) -> list[str]:
    """Hand-group labels, marked where a lock fixes some of the group's decisions there."""
    return [groups[g] + (LOCK_MARK if locked is not None and locked[g] else "") for g in shown]


def _locked_title(summary, title: str) -> str:
    if summary.draw_locked or summary.bet_locked:
        return f"{title}\n[locked]: the run's lock.toml fixes decisions of that hand group (wholly or some actions)"
    return title


ROW_INCHES = 0.2


def balanced_wrap(line: str, width: int) -> list[str]:
    """``line`` wrapped at spaces into as few lines of at most ``width`` characters as plain
    wrapping needs, those lines as even as they can be (the least sum of squared line lengths:
    with the number of lines fixed, their total is, so this is the least spread), so that a
    title ends on a full line, not one word left alone. Hyphenated words stay whole; a word
    longer than ``width`` is broken as plain wrapping breaks it.

    >>> balanced_wrap("triple-draw Badugi, cap 4, 16-bit storage", 36)
    ['triple-draw Badugi,', 'cap 4, 16-bit storage']
    """
    greedy = textwrap.wrap(line, width, break_on_hyphens=False)
    words = [word for word in line.split(" ") if word]   # (no break at a no-break space, as textwrap)
    if len(greedy) <= 1 or max(map(len, words)) > width:
        return greedy
    n, count = len(words), len(greedy)
    ends = np.cumsum([0] + [len(w) + 1 for w in words])   # a line of words[i:j]: ends[j] - ends[i] - 1 characters
    # best[k][j]: the least cost of words[:j] in k lines, and where its last line starts.
    best = [[(0.0, 0)] + [(np.inf, 0)] * n] + [[(np.inf, 0)] * (n + 1) for _ in range(count)]
    for k in range(1, count + 1):
        for j in range(k, n + 1):
            for i in range(j - 1, k - 2, -1):
                length = ends[j] - ends[i] - 1
                if length > width:
                    break
                cost = best[k - 1][i][0] + float(length) ** 2
                if cost < best[k][j][0]:
                    best[k][j] = (cost, i)
    lines, j = [], n
    for k in range(count, 0, -1):
        i = best[k][j][1]
        lines.append(" ".join(words[i:j]))
        j = i
    return lines[::-1]


def _wrap(text: str, fig, fontsize: float, inches: float | None = None) -> str:
    """``text`` with each line wrapped to fit ``inches`` (the figure's width by default) at
    ``fontsize`` points, evenly (:func:`balanced_wrap`): a title never runs off the figure."""
    inches = fig.get_figwidth() - 0.3 if inches is None else inches
    chars = max(12, int(inches * 72 / (0.62 * fontsize)))
    return "\n".join("\n".join(balanced_wrap(line, chars)) if line else line for line in text.split("\n"))


def _rows(summary, keys) -> np.ndarray:
    """Hand groups shown (the same rows in every panel of a figure): reached at least
    ``MIN_GROUP_REACH`` in any of ``keys``' situations."""
    reached = np.zeros(len(summary.group_labels), bool)
    for key in keys:
        reached |= summary.situation_reach[key] >= MIN_GROUP_REACH
    return np.nonzero(reached)[0]


def _shown(summary, keys) -> tuple[list, list]:
    """The situations drawn (some hand group there at least ``MIN_GROUP_REACH``: never an empty
    panel) and those left out."""
    shown = [k for k in keys if (summary.situation_reach[k] >= MIN_GROUP_REACH).any()]
    return shown, [k for k in keys if k not in shown]


def chart_scale(summary, keys, rows) -> float:
    """The reach whose bar is full in a chart: its most reached (situation, hand group). Every
    panel of a chart measures reach on this one scale."""
    top = max((float(summary.situation_reach[k][rows].max()) for k in keys if len(rows)), default=0.0)
    return top if top > 0 else 1.0


def _opacity(reach: np.ndarray) -> np.ndarray:
    """A cell's opacity: full wherever the group gets there once in a million hands (its colour
    always reads against the colour bar; how rare it is, its reach bar says), 0 (blank) below."""
    return np.where(reach >= MIN_GROUP_REACH, 1.0, 0.0)


def reach_bar(reach: np.ndarray, top: float) -> np.ndarray:
    """The length (0 to 1) of each row's reach bar: log scale from ``MIN_REACH_BAR`` at one in a
    million hands to 1 at ``top`` (the chart's most reached row: :func:`chart_scale`), so every
    decade of rarity shows; 0 (no bar) where the row is not drawn."""
    reach = np.asarray(reach, float)
    decades = max(np.log10(top / MIN_GROUP_REACH), 1e-9)
    filled = np.log10(np.maximum(reach, MIN_GROUP_REACH) / MIN_GROUP_REACH) / decades
    return np.where(reach >= MIN_GROUP_REACH, MIN_REACH_BAR + (1 - MIN_REACH_BAR) * np.clip(filled, 0, 1), 0.0)


def _reach_column(ax, reach: np.ndarray, top: float, left: float, width: float) -> float:
    """Each row's reach bar (:func:`reach_bar`) in a grey column of ``width`` from ``left`` (axis
    units) beside a panel's cells, parted from them by a line; returns the column's middle (for
    its tick)."""
    ax.axvline(left - 0.02 * width, color="black", linewidth=0.6)
    ax.barh(range(len(reach)), width * 0.92 * reach_bar(reach, top), left=left + 0.04 * width, height=0.7,
            color=REACH_COLOUR)
    return left + width / 2


REACH_NOTE = ("grey bars (reach): how often the hand gets there, log scale: a stub once in a million hands, "
              "full at the chart's most reached row")


def bucket_marks(summary, rnd: int, rows) -> list[str]:
    """A mark for each row drawn ("a", "b", ...; "" for none): rows marked alike hold hand groups
    that lie wholly in one card bucket of round ``rnd`` (:attr:`Summary.group_bucket`), so they
    play one strategy and their figures repeat; a bucket marks rows only where it holds two or
    more of those drawn."""
    bucket = summary.group_bucket.get(rnd)
    if bucket is None:
        return [""] * len(rows)
    shown = [int(bucket[g]) for g in rows]
    shared = [b for b in dict.fromkeys(shown) if b >= 0 and shown.count(b) > 1]
    names = {b: _mark_name(i) for i, b in enumerate(shared)}
    return [names.get(b, "") for b in shown]


def _mark_name(i: int) -> str:
    """a, b, ..., z, aa, ab, ...: lower case, apart from the ranks' names (A T J Q K)."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return letters[i] if i < len(letters) else _mark_name(i // len(letters) - 1) + letters[i % len(letters)]


BUCKET_NOTE = ("(a),\u00a0(b),\u00a0...: rows marked alike lie in one card bucket, so play one strategy at each "
               "decision (their figures differ only by the histories that lead there)")


def _share(x: float) -> str:
    return f"{100 * x:.2f}%" if x >= 1e-4 else "under 0.01%"


def _figure(n_panels: int, n_rows: int, panel_width: float):
    height = min(ROW_INCHES * n_rows + 2.9, MAX_SIDE_PX / DPI)
    width = min(max(panel_width * n_panels + 1.9, 6.5), MAX_SIDE_PX / DPI)
    fig, axes = plt.subplots(1, n_panels, figsize=(width, height), squeeze=False, sharey=True,
                             constrained_layout=True)
    return fig, axes[0]


def _group_labels(summary, rows, locked, marks) -> list[str]:
    """The rows' labels: lock marks (:func:`_labels`), then bucket marks (:func:`bucket_marks`)."""
    labels = _labels(summary.group_labels, rows, locked)
    return [label + (f" ({mark})" if mark else "") for label, mark in zip(labels, marks)]


def _foot(text: str, marks) -> str:
    """A chart's foot: ``text``, and what the bucket marks mean where a row has one."""
    return text + ("; " + BUCKET_NOTE if any(marks) else "")


def situation_text(seat: int, rnd: int, code: int) -> str:
    """Whose turn it is and what he faces, by seat name: ``button faces the big blind's raise``,
    ``button draws after the big blind drew 2``."""
    me, other = SEAT_NAMES[seat], SEAT_NAMES[1 - seat]
    first_draw = len(BET_SITUATIONS)
    if code == first_draw:
        return f"{me} draws first"
    if code > first_draw:
        drew = code - first_draw - 1
        return f"{me} draws after the {other} " + ("stood pat" if drew == 0 else f"drew {drew}")
    return {0: f"{me} acts first", 1: f"{me} acts after the {other} checked",
            2: f"{me} acts after the {other} limped",
            3: f"{me} faces the {other}'s " + ("blind" if rnd == 0 else "bet"),
            4: f"{me} faces the {other}'s raise", 5: f"{me} faces the {other}'s re-raise (or more)"}[code]


def pot_text(summary, key) -> str:
    """The pot at a situation and the bet to call, in big blinds: one figure where every history
    there has the same pot, else the reach-weighted average with the range, or the range alone
    where the average is unknown (tables written before it was kept)."""
    pot = summary.pots.get(key)
    if pot is None:
        return "pot unknown"
    if abs(pot.high - pot.low) < 1e-9:
        text = f"pot {pot.low:g} bb"
    else:
        average = summary.average_pot(key)
        span = f"{pot.low:g}-{pot.high:g}"
        text = f"pot {span} bb" if average is None else f"pot {average:.1f} bb avg ({span})"
    return text + (f", {pot.to_call:g} bb to call" if pot.to_call > 0 else "")


def _pot_note(summary) -> str:
    """What a panel's pot figure is, for the chart's foot."""
    if summary.situation_pot:
        return "pot: big blinds in the middle; avg: weighted by how often each hand gets there, (range) over histories"
    return "pot: big blinds in the middle, range over histories (this table does not keep the average)"


def _left_out(keys, describe) -> str:
    if not keys:
        return ""
    return "\nnot drawn (no hand group there once in a million hands): " + "; ".join(describe(k) for k in keys)


def plot_draw_situations(summary, hand_size: int, directory: Path, title: str) -> list[Path]:
    """Cards drawn by hand group, one file per draw (``draws_1`` ...): the big blind, who draws
    first, then the button after each of his draws; colours at full strength, each row's reach
    a bar beside it, on one scale for the chart; rows sharing a card bucket marked; a situation
    no hand group reaches once in a million is not drawn."""
    first = len(BET_SITUATIONS)
    rounds = sorted({r for (_, r, code) in summary.situation_freq if code >= first})
    written = []
    cmap = plt.get_cmap("viridis")
    for rnd in rounds:
        keys = [(seat, rnd, code) for seat, code in [(1, first)] + [(0, first + 1 + d) for d in range(hand_size + 1)]
                if (seat, rnd, code) in summary.situation_freq]
        keys, left_out = _shown(summary, keys)
        if not keys:
            continue
        rows = _rows(summary, keys)
        top = chart_scale(summary, keys, rows)
        marks = bucket_marks(summary, rnd, rows)
        fig, axes = _figure(len(keys), len(rows), 2.1)
        panel_inches = (fig.get_figwidth() - 1.9) / len(keys)
        for ax, key in zip(axes, keys):
            seat, _, code = key
            freq = np.nan_to_num(summary.situation_freq[key][rows])
            reach = summary.situation_reach[key][rows]
            image = cmap(freq)
            image[..., 3] = _opacity(reach)[:, None]
            ax.imshow(image, aspect="auto", interpolation="nearest")
            middle = _reach_column(ax, reach, top, hand_size + 0.6, 1.5)
            ax.set_xlim(-0.5, hand_size + 2.1)
            ax.set_xticks(list(range(hand_size + 1)) + [middle],
                          ["pat" if d == 0 else str(d) for d in range(hand_size + 1)] + ["reach"], fontsize=8)
            ax.set_title(_wrap(f"{situation_text(seat, rnd, code)}\n{pot_text(summary, key)}\n"
                               f"{_share(reach.sum())} of hands", fig, 8, panel_inches), fontsize=8)
        locked = [summary.draw_locked[(seat, rnd)] for seat in (0, 1) if (seat, rnd) in summary.draw_locked]
        axes[0].set_yticks(range(len(rows)),
                           _group_labels(summary, rows, np.any(locked, axis=0) if locked else None, marks), fontsize=7)
        fig.colorbar(plt.cm.ScalarMappable(cmap=cmap), ax=axes, shrink=0.5, label="share of the group's hands")
        fig.supxlabel(_wrap(_foot("cards drawn (pat: snows included), colours on the colour bar's scale; "
                                  + REACH_NOTE + "; " + _pot_note(summary), marks)
                            + _left_out(left_out, lambda k: situation_text(k[0], rnd, k[2])), fig, 8), fontsize=8)
        heading = f"{title}\ndraw {rnd + 1}: the big blind draws first, then the button"
        fig.suptitle(_wrap(_locked_title(summary, heading), fig, 10), fontsize=10)
        written += save_figure(fig, directory / f"draws_{rnd + 1}")
    return written


def plot_betting_situations(summary, directory: Path, title: str) -> list[Path]:
    """Betting by hand group, one file per round and seat (``betting_0_button`` ...), a panel per
    situation (first in, checked to, facing a bet, a raise, ...); the rows those the seat's
    situations reach once in a million hands; colours at full strength, each row's reach a bar
    beside it, on one scale for the chart; rows sharing a card bucket marked."""
    bets = len(BET_SITUATIONS)
    rounds = sorted({r for (_, r, code) in summary.situation_freq if code < bets})
    written = []
    for rnd in rounds:
        round_keys = [k for k in summary.situation_freq if k[1] == rnd and k[2] < bets]
        for seat in SEAT_ORDER:
            keys, left_out = _shown(summary, sorted(k for k in round_keys if k[0] == seat))
            if not keys:
                continue
            rows = _rows(summary, keys)
            top = chart_scale(summary, keys, rows)
            marks = bucket_marks(summary, rnd, rows)
            fig, axes = _figure(len(keys), len(rows), 2.4)
            panel_inches = (fig.get_figwidth() - 1.9) / len(keys)
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
                middle = _reach_column(ax, reach, top, 1.06, 0.34)
                ax.set_xlim(0, 1.4)
                ax.set_xticks([0, 0.5, 1, middle], ["0", "50%", "100%", "reach"], fontsize=7)
                ax.set_title(_wrap(f"{situation_text(seat, rnd, key[2])}\n{pot_text(summary, key)}\n"
                                   f"reached in {_share(reach.sum())} of hands", fig, 8, panel_inches), fontsize=8)
            axes[0].set_yticks(range(len(rows)),
                               _group_labels(summary, rows, summary.bet_locked.get((seat, rnd)), marks), fontsize=7)
            axes[0].set_ylim(len(rows) - 0.5, -0.5)   # the first row at the top, no margin
            handles = {ACTION_NAMES[label]: plt.Rectangle((0, 0), 1, 1, color=ACTION_COLOURS[label])
                       for label in BET_LABELS}
            fig.legend(handles.values(), handles.keys(), loc="outside right upper", fontsize=8)
            fig.supxlabel(_wrap(_foot("share of the group's hands taking each action; " + REACH_NOTE + "; "
                                      + _pot_note(summary), marks)
                                + _left_out(left_out, lambda k: situation_text(k[0], rnd, k[2])), fig, 8),
                          fontsize=8)
            heading = f"{title}\n{SEAT_NAMES[seat]} betting {street_name(rnd)}"
            fig.suptitle(_wrap(_locked_title(summary, heading), fig, 10), fontsize=10)
            written += save_figure(fig, directory / f"betting_{rnd}_{SEAT_NAMES[seat].replace(' ', '-')}")
    return written


def plot_pat_snow_break(summary, path: Path, title: str) -> list[Path]:
    """Standing pat (snows included) as a share of draw decisions, snowing as a share of those
    without a badugi, breaking as a share of those with one; per draw and seat."""
    keys = sorted(summary.pat_snow_break, key=lambda k: (k[1], SEAT_ORDER.index(k[0])))
    if not keys:
        return []
    fig, ax = plt.subplots(figsize=(max(7, 1.8 * len(keys)), 4.3), constrained_layout=True)
    width = 0.25
    measures = (("pat", "pat (snows included), % of draws"), ("snow_of_non_badugis", "snow, % of draws without a badugi"),
                ("break_of_badugis", "break, % of draws with a badugi"))
    for i, (measure, label) in enumerate(measures):
        values = [100 * np.nan_to_num(summary.pat_snow_break[k][measure]) for k in keys]
        bars = ax.bar(np.arange(len(keys)) + (i - 1) * width, values, width, label=label)
        ax.bar_label(bars, fmt="%.1f", fontsize=7)
    ax.set_xticks(range(len(keys)), [f"draw {r + 1}\n{SEAT_NAMES[s]}" for s, r in keys])
    ax.set_ylabel("% (reach-weighted)")
    ax.margins(y=0.12)  # room for the bars' labels
    fig.suptitle(_wrap(title, fig, 10), fontsize=10)
    fig.legend(loc="outside lower center", ncols=3, fontsize=8)
    return save_figure(fig, path)


def plot_deal_ev(summary, path: Path, title: str) -> list[Path]:
    """Expected value (mbb/hand) by dealt hand group for each seat; a line per card count."""
    groups = summary.group_labels
    fig, ax = plt.subplots(figsize=(10, 4.6), constrained_layout=True)
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
    fig.suptitle(_wrap(title, fig, 12))
    ax.grid(True, alpha=0.3)
    fig.legend(loc="outside lower center", ncols=2, fontsize=8)
    return save_figure(fig, path)


def plot_summary(summary, hand_size: int, directory: Path, game: str) -> list[Path]:
    """Every strategy chart of a summary (draws, pat/snow/break, betting, EV by hand) into ``directory``."""
    directory = Path(directory)
    written = plot_draw_situations(summary, hand_size, directory, f"{game}: cards drawn by hand")
    written += plot_pat_snow_break(summary, directory / "pat_snow_break", f"{game}: standing pat, snowing and breaking")
    written += plot_betting_situations(summary, directory, game)
    written += plot_deal_ev(summary, directory / "ev_by_hand", f"{game}: expected value by dealt hand")
    return written


def convergence_chart(directories: list, path: Path, game: str, games: dict | None = None) -> list[Path]:
    """The convergence chart of runs (their ``convergence.csv``, and ``summary.json`` for what was
    measured and the certificate), overlaid; runs of different games labelled by their game
    (``games``: directory -> its game, where they differ)."""
    runs, abstract, certificates = {}, set(), {}
    games = games or {}
    distinct = len(set(games.values())) > 1
    for d in directories:
        if not (Path(d) / "convergence.csv").is_file():
            continue
        label = f"{Path(d).name}: {games[d]}" if distinct else Path(d).name
        run = run_convergence(d)
        runs[label] = run.rows
        if run.abstract:
            abstract.add(label)
        if run.certificate is not None:
            certificates[label] = run.certified
    if not runs:
        return []
    return plot_convergence(runs, path, f"{game}: convergence" if not distinct else "convergence", abstract,
                            certificates)


def write_charts(directory: str | Path, runs: list | None = None, out: str | Path | None = None, *,
                 convergence_only: bool = False) -> list[Path]:
    """Every chart of a solve directory drawn from its strategy (draws, pat/snow/break, betting by
    situation, EV by hand, each as PNG and SVG) and its compact tables (draws.csv,
    pat_snow_break.csv, situations.csv, ev_by_hand.csv), into ``out`` (default: the directory),
    then the convergence chart of ``runs`` (default: the directory) overlaid. With
    ``convergence_only``, the directory's convergence chart alone, the game named by its
    ``summary.json``: the strategy is not read (``badugi solve --no-charts``). Returns the paths
    written, in that order."""
    from .reports import summarise, write_tables
    from .strategy import load_strategy

    directory = Path(directory)
    if convergence_only:
        game = json.loads((directory / "summary.json").read_text())["game"]
        out = Path(out or directory)
        out.mkdir(parents=True, exist_ok=True)
        return convergence_chart([directory], out / "convergence", game)
    strategy = load_strategy(directory)
    out = Path(out or directory)
    out.mkdir(parents=True, exist_ok=True)
    game = strategy.config.describe()
    summary = summarise(strategy)
    for old in list(out.glob("draws.png")) + list(out.glob("draws.svg")) + list(out.glob("betting.*")):
        old.unlink()  # one tall chart each before charts were split by situation
    written = plot_summary(summary, strategy.config.hand_size, out, game)
    dirs = [Path(d) for d in (runs or [directory])]
    games = {d: (load_strategy(d).config.describe() if d != directory else game) for d in dirs
             if (d / "convergence.csv").is_file()}
    written += convergence_chart(list(games), out / "convergence", game, games)
    return written + write_tables(summary, strategy.config.hand_size, out)


def redraw_from_tables(directory: str | Path, config=None) -> list[Path]:
    """Every chart of a solve directory drawn again from its tables (``situations.csv``,
    ``pat_snow_break.csv``, ``ev_by_hand.csv``, ``convergence.csv`` where there is one) and
    ``summary.json`` (or the game ``config``): what ``results/`` keeps, without the strategy (see
    :func:`solver.tables.reports.summary_from_tables`)."""
    from .reports import summary_from_tables

    directory = Path(directory)
    summary = summary_from_tables(directory, config)
    if config is None:
        meta = json.loads((directory / "summary.json").read_text())
        game, hand_size = meta["game"], meta["config"]["hand_size"]
    else:
        game, hand_size = config.describe(), config.hand_size
    for old in list(directory.glob("draws_*.png")) + list(directory.glob("draws_*.svg")) + \
            list(directory.glob("betting_*.png")) + list(directory.glob("betting_*.svg")):
        old.unlink()  # a chart for a situation no longer drawn must not stay behind
    written = plot_summary(summary, hand_size, directory, game)
    return written + convergence_chart([directory], directory / "convergence", game)


def curve_game(rows: list[dict]) -> str:
    """The game every point of an abstraction curve solved, its buckets left out (they are the
    points' own), or "" where the points' games differ otherwise."""
    games = {re.sub(r"buckets [0-9/]+, ", "", r.get("game", "")) for r in rows}
    return games.pop() if len(games) == 1 else ""


def plot_abstraction_curve(rows: list[dict], path: Path, solved: str | None = None,
                           committed: str | None = None) -> list[Path]:
    """Certified exploitability against memory and against solving time, one point per abstraction
    (``rows`` as ``scripts/bench/bench_real_game.py curve`` writes them: results/benchmarks/curve.json,
    each with its game). The heading names the game the points solved and when (``solved``, the
    data's date); where ``committed`` (the game of the strategy committed beside the chart) is
    none of the points' games, it says the curve is not that strategy's."""
    fig, (by_memory, by_time) = plt.subplots(1, 2, figsize=(10, 4.3), constrained_layout=True)
    for ax, key, scale, xlabel in ((by_memory, "memory_bytes", 2.0**30, "strategy memory (GiB)"),
                                   (by_time, "seconds", 60.0, "solving time (minutes, 2 threads)")):
        xs = [r[key] / scale for r in rows]
        ys = [r["certified_mbb"] for r in rows]
        ax.plot(xs, ys, marker="*", markersize=11, linestyle="none", color="#c62828",
                label="certified: exact in the real game")  # points of different runs: no line between them
        for x, y, r in zip(xs, ys, rows):
            ax.annotate("/".join(str(b) for b in r["buckets"]) + f"\n{r['iterations']} its", (x, y),
                        textcoords="offset points", xytext=(6, 4), fontsize=8)
        ax.set_xlabel(xlabel)
        ax.set_ylabel("certified exploitability (mbb/hand)")
        ax.margins(x=0.25, y=0.2)  # room for the points' labels
        ax.grid(True, alpha=0.3)
    game = curve_game(rows)
    heading = "Triple draw at cap 4: certified exploitability by abstraction size (buckets per round)"
    if game or solved:
        heading += "\n" + ", ".join(([f"measured {solved}"] if solved else []) + ([f"game: {game}"] if game else []))
    if committed and all(r.get("game") != committed for r in rows):
        heading += f"\nanother abstraction than the strategy committed beside this chart ({committed})"
    fig.suptitle(_wrap(heading, fig, 11), fontsize=11)
    return save_figure(fig, path)
