"""Charts say what they show: every text inside the figure, no legend over a title, no empty
panel, colours at full strength with reach a bar on one scale a chart, rows sharing a card
bucket marked, titles wrapped evenly, pot / bet to call / whose turn on every situation (the
average pot of a game whose tree is never built too), and charts drawn again from a solve's
tables equal to those drawn from its strategy."""

import json
import re
import shutil
import textwrap
from pathlib import Path

import matplotlib
import numpy as np
import pytest

from solver.cfr.solve import solve
from solver.game.config import load_preset
from solver.game.tree import BET_SITUATIONS, BIG_BLIND, BUTTON, build_tree, situation_pots
from solver.tables import charts
from solver.tables.reports import Summary, summarise, summary_from_tables
from solver.tables.strategy import load_strategy

# The longest game name of results/: the one whose titles ran off the charts.
LONG_GAME = load_preset("triple-draw").describe()
FIRST_DRAW = len(BET_SITUATIONS)


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-double-draw")
    solve(load_preset("tiny-double-draw"), iterations=60, out_dir=out)
    return out


@pytest.fixture(scope="module")
def tree_less(tree_less_run):
    """A tiny triple draw with card buckets (3/4/3/2), solved without building its tree."""
    return tree_less_run(40)


@pytest.fixture
def figures(monkeypatch):
    """Every figure a chart function saves, drawn and kept open (instead of written)."""
    kept = []

    def keep(fig, path):
        fig.canvas.draw()
        kept.append((str(path), fig))
        return [path]

    monkeypatch.setattr(charts, "save_figure", keep)
    yield kept
    for _, fig in kept:
        matplotlib.pyplot.close(fig)


def _close(figures) -> None:
    for _, fig in figures:
        matplotlib.pyplot.close(fig)
    figures.clear()


def layout_problems(fig) -> list[str]:
    """Texts (titles, suptitle, axis and tick labels, legend entries, panel titles) that fall
    outside the figure, and legends or titles that overlap another text."""
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    problems = []
    hidden = set()  # tick labels of ticks outside the view: located but never drawn
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            low, high = sorted(axis.get_view_interval())
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                if not low - 1e-9 * abs(high - low) <= tick.get_loc() <= high + 1e-9 * abs(high - low):
                    hidden |= {id(tick.label1), id(tick.label2)}
    texts = [t for t in fig.findobj(matplotlib.text.Text)
             if t.get_visible() and t.get_text().strip() and id(t) not in hidden]
    extents = {id(t): t.get_window_extent(renderer) for t in texts}
    for t in texts:
        e = extents[id(t)]
        if e.x0 < box.x0 - 0.5 or e.y0 < box.y0 - 0.5 or e.x1 > box.x1 + 0.5 or e.y1 > box.y1 + 0.5:
            problems.append(f"outside the figure: {t.get_text()[:60]!r} {e.bounds} in {box.bounds}")
    legends = list(fig.legends) + [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    titles = [ax.title for ax in fig.axes] + [t for t in (fig._suptitle, fig._supxlabel) if t is not None]
    titles = [t for t in titles if t.get_text().strip()]
    for legend in legends:
        own = {id(t) for t in legend.get_texts()} | {id(legend.get_title())}
        frame = legend.get_window_extent(renderer)
        for t in texts:
            if id(t) not in own and frame.overlaps(extents[id(t)]):
                problems.append(f"legend over {t.get_text()[:60]!r}")
    for title in titles:
        for t in texts:
            if t is not title and extents[id(title)].overlaps(extents[id(t)]):
                problems.append(f"title {title.get_text()[:40]!r} over {t.get_text()[:40]!r}")
    for ax in fig.axes:  # tick labels side by side must not run into each other
        spans = sorted((extents[id(t)] for t in ax.get_xticklabels(which="both") if id(t) in extents), key=lambda e: e.x0)
        for a, b in zip(spans, spans[1:]):
            if a.x1 > b.x0 + 0.5:
                problems.append(f"x tick labels overlap at {a.x1:.0f} px")
    return problems


def _convergence_rows():
    """A long run: 66 iterations over 200 to 5,400 seconds (cap-4 triple draw's shape)."""
    its = np.unique(np.round(np.geomspace(1, 66, 14)).astype(int))
    seconds = np.geomspace(200, 5400, len(its))
    return [(int(i), float(s), float(6000 / i ** 0.75)) for i, s in zip(its, seconds)]


def test_every_chart_kind_keeps_its_texts_inside_and_apart(solved, figures, tmp_path):
    """Each chart kind, titled with the longest game name: no text outside the figure, no legend
    or title over another text, no overlapping x ticks, no side over 1,600 px."""
    summary = summarise(load_strategy(solved))
    hand = load_preset("tiny-double-draw").hand_size
    charts.plot_draw_situations(summary, hand, tmp_path, f"{LONG_GAME}: cards drawn by hand")
    charts.plot_betting_situations(summary, tmp_path, LONG_GAME)
    charts.plot_pat_snow_break(summary, tmp_path / "pat_snow_break", f"{LONG_GAME}: standing pat, snowing and breaking")
    charts.plot_deal_ev(summary, tmp_path / "ev_by_hand", f"{LONG_GAME}: expected value by dealt hand")
    rows = _convergence_rows()
    charts.plot_convergence({"triple-draw-cap4": rows}, tmp_path / "convergence", f"{LONG_GAME}: convergence")
    charts.plot_convergence({"triple-draw-cap4": rows}, tmp_path / "convergence_certified", f"{LONG_GAME}: convergence",
                            {"triple-draw-cap4"}, {"triple-draw-cap4": [(40, 3775.2, 470.1), (66, 5428.7, 265.2)]})
    charts.plot_abstraction_curve([
        {"buckets": [16, 16, 10, 8], "memory_bytes": 3.9e9, "seconds": 1821.0, "iterations": 35, "certified_mbb": 905.8},
        {"buckets": [64, 64, 40, 32], "memory_bytes": 14.7e9, "seconds": 5428.7, "iterations": 66,
         "certified_mbb": 265.2}], tmp_path / "abstraction_curve")
    names = {p.rsplit("/", 1)[-1] for p, _ in figures}
    assert {"draws_1", "draws_2", "betting_0_button", "betting_2_big-blind", "pat_snow_break", "ev_by_hand",
            "convergence", "convergence_certified", "abstraction_curve"} <= names
    for path, fig in figures:
        assert layout_problems(fig) == [], (path, layout_problems(fig))
        width, height = fig.get_size_inches() * charts.DPI
        assert width <= 1600 and height <= 1600, path


def test_the_abstraction_curve_names_the_solves_it_plots(figures, tmp_path):
    """The curve's heading names the game its points solved (buckets aside: they are the
    points') and the date of its data, and says so where the strategy committed beside it is
    none of them (results/triple-draw-cap4 was solved again in another abstraction since)."""
    game = "triple-draw Badugi, cap 4, bets 1/1/2/2, buckets {}, recall 1 round and every draw"
    rows = [{"game": game.format(b), "buckets": [int(x) for x in b.split("/")], "memory_bytes": m, "seconds": 1800.0,
             "iterations": 30, "certified_mbb": x}
            for b, m, x in (("16/16/10/8", 3.9e9, 905.8), ("64/64/40/32", 14.7e9, 265.2))]
    committed = "triple-draw Badugi, cap 4, bets 1/1/2/2, buckets 64/64/48/40, recall 3 rounds, 16-bit storage"
    charts.plot_abstraction_curve(rows, tmp_path / "curve", "2026-12-02", committed)
    heading = figures[-1][1]._suptitle.get_text().replace("\n", " ")
    assert "measured 2026-12-02" in heading and "recall 1 round and every draw" in heading
    assert "another abstraction than the strategy committed" in heading and "64/64/48/40" in heading
    assert "buckets 16" not in heading
    assert layout_problems(figures[-1][1]) == []
    charts.plot_abstraction_curve(rows, tmp_path / "curve", "2026-12-02", game.format("64/64/40/32"))
    assert "committed" not in figures[-1][1]._suptitle.get_text().replace("\n", " ")


def test_convergence_of_an_abstract_game_says_so_and_shows_the_certificate(figures, tmp_path):
    """The y axis names the abstract game where progress was measured there, and the certificate
    is a point of its own at its iteration and seconds."""
    rows = _convergence_rows()
    charts.plot_convergence({"run": rows}, tmp_path / "c", "game: convergence", {"run"}, {"run": [(66, 5428.7, 265.2)]})
    fig = figures[-1][1]
    by_iter, by_time = fig.axes[:2]
    assert "abstract game" in by_iter.get_ylabel()
    stars = [line for line in by_iter.get_lines() if line.get_marker() == "*"]
    assert len(stars) == 1 and list(stars[0].get_xdata()) == [66] and list(stars[0].get_ydata()) == [265.2]
    assert [list(line.get_xdata()) for line in by_time.get_lines() if line.get_marker() == "*"] == [[5428.7]]
    assert "certified" in " ".join(t.get_text() for t in fig.legends[0].get_texts())
    charts.plot_convergence({"run": rows}, tmp_path / "d", "game: convergence")  # exact progress: no such words
    plain = figures[-1][1].axes[0]
    assert "abstract" not in plain.get_ylabel() and not [x for x in plain.get_lines() if x.get_marker() == "*"]


def test_run_convergence_reads_the_certificate_from_summary_json(tmp_path):
    (tmp_path / "convergence.csv").write_text("iteration,seconds,exploitability_mbb\n1,2.0,900\n10,20.0,300\n")
    (tmp_path / "summary.json").write_text(json.dumps({"iterations": 10, "seconds": 21.5, "exploitability_mbb": 340.0,
                                                       "abstract_exploitability_mbb": 300.0}))
    run = charts.run_convergence(tmp_path)
    assert run.abstract and run.certificate == (10, 21.5, 340.0) and run.rows[-1] == (10, 20.0, 300.0)
    (tmp_path / "summary.json").write_text(json.dumps({"iterations": 10, "seconds": 21.5, "exploitability_mbb": 3.0}))
    assert charts.run_convergence(tmp_path) == (run.rows, False, None, [])


def test_run_convergence_reads_a_certified_curve_and_draws_it_joined(figures, tmp_path):
    """A run certified during its run (``certified.csv``) has every certificate on its chart, in
    order and joined; the summary's last one is not drawn twice."""
    (tmp_path / "convergence.csv").write_text("iteration,seconds,exploitability_mbb\n1,2.0,900\n10,20.0,300\n"
                                              "20,40.0,150\n")
    (tmp_path / "certified.csv").write_text("iteration,seconds,exploitability_mbb\n10,20.0,420\n20,40.0,260\n")
    (tmp_path / "summary.json").write_text(json.dumps({"iterations": 20, "seconds": 40.0, "exploitability_mbb": 260.0,
                                                       "abstract_exploitability_mbb": 150.0}))
    run = charts.run_convergence(tmp_path)
    assert run.certified == [(10, 20.0, 420.0), (20, 40.0, 260.0)] and run.certificate == (20, 40.0, 260.0)
    charts.convergence_chart([tmp_path], tmp_path / "chart", "game")
    by_iter, by_time = figures[-1][1].axes[:2]
    stars = [line for line in by_iter.get_lines() if line.get_marker() == "*"]
    assert len(stars) == 1 and list(stars[0].get_xdata()) == [10, 20] and list(stars[0].get_ydata()) == [420, 260]
    assert stars[0].get_linestyle() == "--"
    assert [list(line.get_xdata()) for line in by_time.get_lines() if line.get_marker() == "*"] == [[20.0, 40.0]]
    # A later summary (the run went on, certified at its end only): its point is added.
    (tmp_path / "summary.json").write_text(json.dumps({"iterations": 30, "seconds": 60.0, "exploitability_mbb": 200.0,
                                                       "abstract_exploitability_mbb": 90.0}))
    assert charts.run_convergence(tmp_path).certified[-1] == (30, 60.0, 200.0)


def _draw_summary(reach_a, reach_b, reach_c) -> Summary:
    """A hand-made summary of one draw: the big blind's draw and two of the button's."""
    labels = ["2-card A", "2-card 2"]
    config = load_preset("tiny-single-draw")
    keys = [(BIG_BLIND, 0, FIRST_DRAW), (BUTTON, 0, FIRST_DRAW + 1), (BUTTON, 0, FIRST_DRAW + 2)]
    out = Summary(labels, pots=situation_pots(config))
    for key, reach in zip(keys, (reach_a, reach_b, reach_c)):
        out.situation_reach[key] = np.array(reach, float)
        out.situation_freq[key] = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]])
    return out


def _reach_bars(ax) -> list[float]:
    """The widths of a panel's reach bars (its grey bars), row by row."""
    grey = matplotlib.colors.to_rgba(charts.REACH_COLOUR)
    return [p.get_width() for p in ax.patches if np.allclose(p.get_facecolor(), grey)]


def test_draw_charts_draw_no_empty_panel_and_measure_reach_on_one_scale(figures, tmp_path):
    """A situation no hand group reaches once in a million hands gets no panel (it is named at
    the foot instead); every cell drawn is at full strength, so its colour reads against the
    colour bar however rare the row; a row's reach bar measures its reach against the chart's
    most reached row, not its panel's, and the foot says so."""
    summary = _draw_summary([0.64, 0.16], [0.04, 0.0], [1e-9, 0.0])
    charts.plot_draw_situations(summary, 2, tmp_path, "game")
    fig = figures[-1][1]
    panels = [ax for ax in fig.axes if ax.images and ax.get_label() != "<colorbar>"]
    assert len(panels) == 2
    alpha = [ax.images[0].get_array()[:, 0, 3] for ax in panels]
    np.testing.assert_allclose(alpha[0], [1.0, 1.0])   # the rarer row as strong as the other
    np.testing.assert_allclose(alpha[1], [1.0, 0.0])   # blank: never there
    bars = [_reach_bars(ax) for ax in panels]
    full = max(bars[0])
    np.testing.assert_allclose(np.array(bars[0]) / full, charts.reach_bar(np.array([0.64, 0.16]), 0.64))
    np.testing.assert_allclose(np.array(bars[1]) / full, charts.reach_bar(np.array([0.04, 0.0]), 0.64))
    assert 0 < bars[1][0] < bars[0][1] < bars[0][0] and bars[1][1] == 0  # the first panel's scale
    assert [t.get_text() for t in panels[0].get_xticklabels()][-1] == "reach"
    foot = fig._supxlabel.get_text().replace("\n", " ")
    assert "not drawn" in foot and "drew 1" in foot and "grey bars (reach)" in foot and "fade" not in foot


def test_reach_bars_run_on_a_log_scale_from_one_in_a_million():
    """A stub at one in a million hands, full at the chart's most reached row, each decade the
    same step; nothing below one in a million."""
    top = 1e-2
    bars = charts.reach_bar(np.array([1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 8.9e-7, 0.0]), top)
    np.testing.assert_allclose(bars[:5], charts.MIN_REACH_BAR + (1 - charts.MIN_REACH_BAR) * np.array(
        [1.0, 0.75, 0.5, 0.25, 0.0]))
    assert list(bars[5:]) == [0.0, 0.0]


def test_betting_charts_measure_reach_on_one_scale(figures, tmp_path):
    labels = ["2-card A", "2-card 2"]
    summary = Summary(labels, pots=situation_pots(load_preset("tiny-single-draw")))
    for code, reach in ((0, [0.81, 0.09]), (3, [0.04, 0.0])):  # big blind first to act; facing a bet
        summary.situation_reach[(BIG_BLIND, 1, code)] = np.array(reach)
        summary.situation_freq[(BIG_BLIND, 1, code)] = np.array([[0, 0.5, 0, 0.5, 0], [0, 1.0, 0, 0, 0]])
    charts.plot_betting_situations(summary, tmp_path, "game")
    fig = figures[-1][1]
    grey = matplotlib.colors.to_rgba(charts.REACH_COLOUR)
    alphas = [sorted({round(p.get_facecolor()[3], 6) for p in ax.patches
                      if p.get_width() > 0 and not np.allclose(p.get_facecolor(), grey)}) for ax in fig.axes]
    assert alphas == [[1.0], [0.0, 1.0]]  # full strength wherever drawn; 0: never there
    bars = [_reach_bars(ax) for ax in fig.axes]
    full = bars[0][0]
    np.testing.assert_allclose(np.array(bars[0] + bars[1]) / full,
                               charts.reach_bar(np.array([0.81, 0.09, 0.04, 0.0]), 0.81))


def test_rows_are_left_out_exactly_as_the_readme_says(figures, tmp_path):
    """docs/charts.md: "A group that reaches none of the chart's situations once in a million hands is
    left out." A betting chart's rows are its own seat's (a row the other seat's chart needs is
    not drawn empty here), reach 8.9e-7 is out and 1e-6 in; a cell under the threshold in a row
    drawn is blank."""
    readme = " ".join((Path(__file__).resolve().parent.parent / "docs" / "charts.md").read_text().split())
    assert "A group that reaches none of the chart's situations once in a million hands is left out." in readme
    assert charts.MIN_GROUP_REACH == 1e-6
    labels = ["2-card A", "2-card 2", "1-card A"]
    summary = Summary(labels, pots=situation_pots(load_preset("tiny-single-draw")))
    freq = np.array([[0, 0.5, 0, 0.5, 0], [0, 1.0, 0, 0, 0], [0, 0.2, 0, 0.8, 0]])
    summary.situation_reach[(BIG_BLIND, 1, 0)] = np.array([0.5, 1e-6, 2e-6])
    summary.situation_reach[(BUTTON, 1, 1)] = np.array([0.4, 8.9e-7, 0.0])
    summary.situation_reach[(BUTTON, 1, 3)] = np.array([0.1, 0.0, 8.9e-7])
    for key in summary.situation_reach:
        summary.situation_freq[key] = freq
    charts.plot_betting_situations(summary, tmp_path, "game")
    rows = {path.rsplit("/", 1)[-1]: [t.get_text() for t in fig.axes[0].get_yticklabels()] for path, fig in figures}
    assert rows == {"betting_1_big-blind": labels, "betting_1_button": ["2-card A"]}
    big_blind = figures[0][1].axes[0]
    assert len(_reach_bars(big_blind)) == 3 and min(_reach_bars(big_blind)) > 0  # 1e-6: drawn
    _close(figures)
    draw = _draw_summary([0.5, 8.9e-7], [0.1, 1e-6], [0.2, 0.0])
    charts.plot_draw_situations(draw, 2, tmp_path, "game")
    panels = [ax for ax in figures[-1][1].axes if ax.images and ax.get_label() != "<colorbar>"]
    assert [ax.images[0].get_array()[:, 0, 3].tolist() for ax in panels] == [[1.0, 0.0], [1.0, 1.0], [1.0, 0.0]]


def test_balanced_wrapping_leaves_no_word_alone():
    """Titles wrap into as many lines as plain wrapping takes, each within the width, the words
    in order, the lines even: at every width the real game's heading needs, no line is a single
    word (plain wrapping left "storage" alone on the last line)."""
    heading = f"{LONG_GAME}: cards drawn by hand"
    lonely = [w for w in range(30, 140) if len(textwrap.wrap(LONG_GAME, w)[-1].split()) == 1]
    assert lonely, "plain wrapping leaves a word alone at some width"
    for text in (LONG_GAME, heading, charts.REACH_NOTE):
        for width in range(24, 160):
            lines = charts.balanced_wrap(text, width)
            assert " ".join(lines) == " ".join(text.split())
            assert len(lines) == len(textwrap.wrap(text, width, break_on_hyphens=False))
            assert all(len(line) <= width for line in lines)
            if len(lines) > 1:
                assert max(map(len, lines)) - min(map(len, lines)) <= max(len(w) for w in text.split()) + 1, width
                assert all(len(line.split()) > 1 for line in lines), (width, lines)
    assert charts.balanced_wrap("short", 40) == ["short"] and charts.balanced_wrap("", 40) == []


def test_rows_sharing_a_card_bucket_are_marked(tree_less, figures, tmp_path):
    """In a bucketed game, hand groups lying wholly in one card bucket of a round play one
    strategy: the rows of two or more such groups carry one mark, the foot says what it means,
    and before the first draw (where reach within a bucket is in proportion) their figures are
    the same. A group split over buckets is never marked. Charts from the tables mark the same."""
    from solver.tables.reports import class_groups, write_tables

    strategy = load_strategy(tree_less)
    summary = summarise(strategy)
    group_of, labels = class_groups(strategy)
    row_of = strategy.rows_layout.row_of
    assert sorted(summary.group_bucket) == [0, 1, 2, 3]
    for rnd, bucket in summary.group_bucket.items():
        for g in range(len(labels)):
            buckets = set(row_of[rnd][group_of == g].tolist())
            assert bucket[g] == (buckets.pop() if len(buckets) == 1 else -1), (rnd, g)
    write_tables(summary, strategy.config.hand_size, tmp_path)
    from_tables = summary_from_tables(tmp_path, strategy.config)
    assert sorted(from_tables.group_bucket) == sorted(summary.group_bucket)
    for rnd, bucket in summary.group_bucket.items():
        np.testing.assert_array_equal(from_tables.group_bucket[rnd], bucket)
    rows = np.arange(len(labels))
    marks = charts.bucket_marks(summary, 0, rows)
    assert marks[:2] == ["a", "a"] and len(set(m for m in marks if m)) >= 2
    for key, freq in summary.situation_freq.items():
        if key[1] == 0 and key[2] < FIRST_DRAW:   # betting before the first draw
            reached = summary.situation_reach[key] > 0
            for mark in set(marks) - {""}:
                alike = [g for g in rows if marks[g] == mark and reached[g]]
                for g in alike[1:]:
                    np.testing.assert_allclose(freq[g], freq[alike[0]], rtol=1e-9, err_msg=f"{key} {labels[g]}")
    charts.plot_betting_situations(summary, tmp_path, "game")
    fig = dict(figures)[str(tmp_path / "betting_0_button")]
    ticks = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert ticks[:2] == ["2-card 2 (a)", "2-card 3 (a)"]
    assert "one card bucket" in fig._supxlabel.get_text().replace("\n", " ")
    assert charts.bucket_marks(Summary(labels), 0, rows) == [""] * len(labels)  # a game without buckets
    one = Summary(labels, group_bucket={0: np.array([0, 1, 2, 3, 4, 5, -1])})
    assert charts.bucket_marks(one, 0, rows) == [""] * len(labels)  # a bucket of one group: nothing to mark
    split = Summary(labels, group_bucket={0: np.array([3, -1, -1, 3, 1, 1, 2])})   # -1: split over buckets
    assert charts.bucket_marks(split, 0, rows) == ["a", "", "", "a", "b", "b", ""]
    assert charts.bucket_marks(split, 0, rows[1:5]) == ["", "", "", ""]  # marks among the rows drawn only


def test_the_average_pot_of_a_game_whose_tree_is_never_built(tree_less, figures, tmp_path):
    """A tree-less strategy's summary (streamed walks) and a compact store's (walked a subtree
    at a time) have the average pot of every situation, within its range, the same from both;
    its charts say "avg" and its table has the pot column."""
    from solver.cfr.store import read_compact
    from solver.tables import compact
    from solver.tables.strategy import Strategy

    strategy = load_strategy(tree_less)
    assert strategy.tree is None
    summary = summarise(strategy)
    assert sorted(summary.situation_pot) == sorted(summary.situation_reach)
    spread = 0
    for key in summary.situation_reach:
        average, pot = summary.average_pot(key), summary.pots[key]
        assert pot.low - 1e-9 <= average <= pot.high + 1e-9, key
        spread += pot.high > pot.low
    assert spread  # some situation has histories of different pots: the average says something
    stored = tmp_path / "store"
    compact.make_compact(tree_less, stored, min_reach=1e-4, part_bytes=60_000)
    lazy, eager = summarise(load_strategy(stored)), summarise(Strategy(stored, read_compact(stored)))
    assert load_strategy(stored).store is not None
    assert sorted(lazy.situation_pot) == sorted(eager.situation_pot) == sorted(lazy.situation_reach)
    for key in lazy.situation_pot:
        np.testing.assert_allclose(lazy.situation_pot[key], eager.situation_pot[key], rtol=1e-9, err_msg=str(key))
    charts.plot_betting_situations(summary, tmp_path, "game")
    titles = " ".join(ax.get_title() for _, fig in figures for ax in fig.axes)
    assert "avg" in titles


def test_every_panel_names_whose_turn_the_pot_and_the_bet_to_call(solved, figures, tmp_path):
    summary = summarise(load_strategy(solved))
    charts.plot_betting_situations(summary, tmp_path, "game")
    charts.plot_draw_situations(summary, 2, tmp_path, "game")
    titles = {path.rsplit("/", 1)[-1]: [ax.get_title().replace("\n", " ") for ax in fig.axes if ax.get_title()]
              for path, fig in figures}
    button_after_draw_1 = titles["betting_1_button"]
    assert any("button faces the big blind's bet" in t and "to call" in t for t in button_after_draw_1)
    assert all(" pot " in f" {t}" for ts in titles.values() for t in ts)
    assert all(" he " not in f" {t} " for ts in titles.values() for t in ts)
    assert titles["draws_1"][0].startswith("big blind draws first")
    assert any(t.startswith("button draws after the big blind drew 1") for t in titles["draws_1"])
    suptitles = {path.rsplit("/", 1)[-1]: fig._suptitle.get_text() for path, fig in figures}
    assert "button betting after draw 1" in suptitles["betting_1_button"].replace("\n", " ")
    assert "big blind betting before draw 1" in suptitles["betting_0_big-blind"].replace("\n", " ")


@pytest.mark.parametrize("preset", ["tiny-double-draw", "single-draw"])
def test_situation_pots_are_the_trees_pots(preset):
    """The pot range and the bet to call of every (seat, round, situation), from the rounds'
    templates, are those of the built tree's decision nodes."""
    config = load_preset(preset)
    pots, tree = situation_pots(config), build_tree(config)
    seen = {}
    for node in np.nonzero(tree.kind <= 1)[0]:
        key = (int(tree.seat[node]), int(tree.round[node]), int(tree.situation[node]))
        pot = float(tree.contrib[node].sum())
        assert pots[key].to_call == pytest.approx(tree.contrib[node].max() - tree.contrib[node][key[0]])
        low, high = seen.get(key, (pot, pot))
        seen[key] = (min(low, pot), max(high, pot))
    assert sorted(seen) == sorted(pots)
    assert all(seen[k] == pytest.approx(pots[k][:2]) for k in seen)


def test_average_pot_lies_in_the_range(solved):
    summary = summarise(load_strategy(solved))
    assert summary.situation_pot
    for key in summary.situation_reach:
        average, pot = summary.average_pot(key), summary.pots[key]
        assert pot.low - 1e-9 <= average <= pot.high + 1e-9, key


def test_charts_from_tables_equal_charts_from_the_strategy(solved, figures, tmp_path):
    """``summary_from_tables`` reads back what the charts need from situations.csv,
    pat_snow_break.csv and ev_by_hand.csv (as rounded there); the charts drawn from it hold the
    same data as those drawn from the strategy, and a table without the pot column still draws,
    with the range only."""
    run = tmp_path / "run"
    shutil.copytree(solved, run)
    charts.write_charts(run)
    ours, theirs = summarise(load_strategy(run)), summary_from_tables(run)
    assert ours.group_labels == theirs.group_labels
    for key in ours.situation_reach:
        shown = ours.situation_reach[key] > 0
        np.testing.assert_allclose(theirs.situation_reach[key], ours.situation_reach[key], rtol=1e-5, atol=0)
        np.testing.assert_allclose(theirs.situation_freq[key][shown], ours.situation_freq[key][shown], atol=5e-5)
        np.testing.assert_allclose(theirs.situation_pot[key][shown], ours.situation_pot[key][shown], atol=5e-5)
    assert sorted(theirs.situation_reach) == sorted(ours.situation_reach)
    for s in (0, 1):
        np.testing.assert_allclose(theirs.deal_ev[s], ours.deal_ev[s], atol=5e-4)
    for key, m in ours.pat_snow_break.items():
        assert theirs.pat_snow_break[key]["pat"] == pytest.approx(m["pat"], abs=1e-6)
    _close(figures)
    hand = load_preset("tiny-double-draw").hand_size
    charts.plot_summary(ours, hand, tmp_path / "a", "game")
    drawn = [fig for _, fig in figures]
    _close(figures)
    charts.plot_summary(theirs, hand, tmp_path / "b", "game")
    for a, b in zip(drawn, [fig for _, fig in figures], strict=True):
        for x, y in zip(a.axes, b.axes, strict=True):
            for i, j in zip(x.images, y.images, strict=True):
                a_rgba, b_rgba = np.asarray(i.get_array()), np.asarray(j.get_array())
                np.testing.assert_allclose(a_rgba[..., 3], b_rgba[..., 3], atol=1e-4)  # fading
                # colours: at most one step of the 256-colour map apart (frequencies rounded to 4 decimals)
                np.testing.assert_allclose(a_rgba[..., :3], b_rgba[..., :3], atol=0.012)
            assert [p.get_width() for p in x.patches] == pytest.approx([p.get_width() for p in y.patches], abs=1e-4)
            for p, q in zip(x.lines, y.lines, strict=True):
                np.testing.assert_allclose(np.asarray(p.get_ydata(), float), np.asarray(q.get_ydata(), float),
                                           atol=1e-3)
    # Tables from before the pot column: still drawn, saying the pot's range only.
    text = (run / "situations.csv").read_text().splitlines()
    (run / "situations.csv").write_text("\n".join(line.rsplit(",", 1)[0] for line in text) + "\n")
    old = summary_from_tables(run)
    assert not old.situation_pot
    _close(figures)
    written = charts.redraw_from_tables(run)
    assert {p.name for p in written} >= {"draws_1", "betting_0_button", "ev_by_hand", "convergence"}
    titles = " ".join(ax.get_title() for _, fig in figures for ax in fig.axes)
    assert "avg" not in titles and "range over histories" in " ".join(
        fig._supxlabel.get_text() for _, fig in figures if fig._supxlabel is not None)


def test_summary_from_tables_names_a_missing_table(solved, tmp_path):
    (tmp_path / "summary.json").write_text((solved / "summary.json").read_text())
    with pytest.raises(ValueError, match="situations.csv: not found"):
        summary_from_tables(tmp_path)


def test_tables_recovered_from_a_charts_svg(solved, tmp_path):
    """scripts/tables_from_svg.py reads the EV and convergence charts' points back from their SVG
    (how results/ got ev_by_hand.csv for charts published before that table)."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
    from tables_from_svg import convergence_rows, ev_rows

    summary = summarise(load_strategy(solved))
    charts.plot_deal_ev(summary, tmp_path / "ev_by_hand", "game")
    rows = ev_rows(tmp_path / "ev_by_hand.svg")
    assert [r["hand"] for r in rows] == summary.group_labels
    for seat, column in ((BUTTON, "ev_button_mbb"), (BIG_BLIND, "ev_big_blind_mbb")):
        np.testing.assert_allclose([r[column] for r in rows], summary.deal_ev[seat], atol=0.006)
    run = _convergence_rows()
    charts.plot_convergence({"run": run}, tmp_path / "convergence", "game", {"run"}, {"run": [(66, 5428.7, 265.2)]})
    back = convergence_rows(tmp_path / "convergence.svg")
    assert [r["iteration"] for r in back] == [r[0] for r in run]
    np.testing.assert_allclose([r["seconds"] for r in back], [r[1] for r in run], rtol=1e-5)
    np.testing.assert_allclose([r["exploitability_mbb"] for r in back], [r[2] for r in run], rtol=1e-5)


def test_the_tables_write_the_charts_and_tables_badugi_plot_writes(solved, tmp_path, capsys):
    """``charts.write_charts`` writes every chart kind of a solve (PNG and SVG, each titled with
    the game) and its four CSV tables, the paths it returns; ``badugi plot`` writes the same
    files, byte for byte, through it. With ``convergence_only`` (``solve --no-charts``) the
    strategy is not read and the convergence chart is the same."""
    from solver.cli import main
    from solver.game.tree import street_name

    config = load_preset("tiny-double-draw")
    game = config.describe()
    ours, cli = tmp_path / "tables" / "run", tmp_path / "cli" / "run"  # one name: the convergence legend's label
    shutil.copytree(solved, ours)
    shutil.copytree(solved, cli)
    written = charts.write_charts(ours)
    charts_names = ([f"draws_{d}" for d in range(1, config.rounds)] + ["pat_snow_break"]
                    + [f"betting_{r}_{seat}" for r in range(config.rounds) for seat in ("big-blind", "button")]
                    + ["ev_by_hand", "convergence"])
    tables = ["draws.csv", "pat_snow_break.csv", "situations.csv", "ev_by_hand.csv"]
    assert sorted(p.name for p in written) == sorted([f"{n}.{s}" for n in charts_names for s in ("png", "svg")]
                                                      + tables)
    assert all(p.parent == ours and p.stat().st_size > 0 for p in written)
    titles = {"draws_1": f"{game}: cards drawn by hand", "pat_snow_break": f"{game}: standing pat",
              "betting_0_button": f"button betting {street_name(0)}",
              "ev_by_hand": f"{game}: expected value by dealt hand",
              "convergence": f"{game}: convergence"}
    for name, title in titles.items():   # (each line of a wrapped title is an SVG text of its own, named in a comment)
        said = " ".join(re.findall(r"<!-- (.*?) -->", (ours / f"{name}.svg").read_text()))
        assert title in said, (name, title)
    assert main(["plot", str(cli)]) == 0
    printed = capsys.readouterr().out
    assert printed == "wrote " + ", ".join(str(cli / p.name) for p in written) + "\n"
    for p in written:
        assert (cli / p.name).read_bytes() == p.read_bytes(), p.name
    alone = tmp_path / "alone" / "run"
    shutil.copytree(solved, alone)
    (alone / "strategy.npz").unlink()
    (alone / "checkpoint.npz").unlink()
    only = charts.write_charts(alone, convergence_only=True)
    assert [p.name for p in only] == ["convergence.png", "convergence.svg"]
    assert (alone / "convergence.svg").read_bytes() == (ours / "convergence.svg").read_bytes()


def test_no_chart_is_drawn_in_the_cli():
    """The commands (solver/commands.py) handle arguments and print: no function of them draws a
    chart, and of the chart module they use only write_charts (and constants)."""
    import ast
    from pathlib import Path

    import solver.commands

    tree = ast.parse(Path(solver.commands.__file__).read_text())
    defined = [n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    assert "cmd_plot" in defined  # the scan reads the real module
    assert [name for name in defined if "chart" in name.lower()] == []
    imported = {alias.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                and (n.module or "").endswith("tables.charts") for alias in n.names}
    assert "write_charts" in imported
    assert {name for name in imported if not name.isupper()} == {"write_charts"}
    calls = {n.func.attr for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)}
    assert not calls & {"plot_summary", "convergence_chart", "savefig", "write_tables"}
