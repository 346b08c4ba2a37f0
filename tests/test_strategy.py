"""Strategy tables, exports and chart data of a solved strategy."""

import csv
import json
import subprocess
import sys
from collections import defaultdict

import numpy as np
import pytest

from solver.game.config import load_preset
from solver.tables.reports import summarise
from solver.cfr.solve import solve
from solver.tables.strategy import load_strategy
from solver.game.tree import DRAW

COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4}


@pytest.fixture(scope="module")
def solved(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-double-draw")
    solve(load_preset("tiny-double-draw"), iterations=200, out_dir=out)
    return out


@pytest.fixture(scope="module")
def strategy(solved):
    return load_strategy(solved)


@pytest.fixture(scope="module")
def table(strategy):
    rows = defaultdict(dict)
    for row in strategy.rows():
        rows[row["history"]][row["class"]] = row
    return rows


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "solver.cli", *args], capture_output=True, text=True)


def test_policy_agrees_with_table(strategy, table):
    rng = np.random.default_rng(3)
    deck = strategy.evaluator.deck
    histories = sorted(table)
    for _ in range(200):
        history = histories[rng.integers(len(histories))]
        cards = rng.choice(deck.n_cards, size=strategy.config.hand_size, replace=False)
        policy = strategy.policy(history, cards)
        row = table[history][strategy.evaluator.evaluate(cards)]
        for label, p in policy.items():
            column = f"d{label}" if row["kind"] == "draw" else label
            assert row[column] == pytest.approx(p, abs=1e-12)
        assert sum(policy.values()) == pytest.approx(1.0, abs=1e-6)
        # Only legal actions are offered; everything else in the row is blank.
        offered = {f"d{k}" if row["kind"] == "draw" else k for k in policy}
        for column in ("f", "k", "c", "b", "r", "d0", "d1", "d2"):
            assert (row[column] is None) == (column not in offered)


def test_policy_reads_text_hands(strategy):
    by_text = strategy.policy("ck/", "As2h")
    by_cards = strategy.policy("ck/", [0, 3])  # As = 0, 2h = 2*2+1
    assert by_text == by_cards
    assert set(by_text) <= {"0", "1", "2"}


@pytest.mark.parametrize("history, hand, problem", [
    ("ck/7", "As2h", "not possible"),
    ("ckx", "As2h", "not possible"),
    ("f", "As2h", "ends the hand"),
    ("ck/", "As", "expected 2 cards"),
    ("ck/", "AsZh", "bad card"),
    ("ck/", "As5h", "not in the 4-rank, 2-suit deck"),
])
def test_bad_history_or_hand(strategy, history, hand, problem):
    with pytest.raises(ValueError, match=problem):
        strategy.policy(history, hand)


def test_reach_and_values_are_consistent(strategy, table):
    # Dealt classes: reach at the first decision is the deal distribution.
    root = table[""]
    assert sum(r["reach"] for r in root.values()) == pytest.approx(1.0, abs=1e-12)
    assert [root[v]["reach"] for v in sorted(root)] == pytest.approx(list(strategy.walker.model.deal_prob))
    # The button's EV averaged over the deal is the game value.
    ev = sum(r["reach"] * r["ev_mbb"] for r in root.values())
    assert ev == pytest.approx(strategy.game_value_mbb, abs=1e-6)
    # Probability flows: reaching a child decision = reaching the parent times the action.
    tree = strategy.tree
    for history, rows in list(table.items())[::5]:
        node = tree.node_at(history)
        kind = "d" if tree.kind[node] == DRAW else ""
        for child in tree.children(node):
            child_history = tree.history(child)
            if child_history not in table:
                continue  # a terminal
            label = kind + chr(tree.action[child])
            flow = sum(r["reach"] * (r[label] or 0.0) for r in rows.values())
            assert sum(r["reach"] for r in table[child_history].values()) == pytest.approx(flow, abs=1e-12)


def _group(row, hand_size):
    count_word, rest = row["class_name"].split("-card ", 1)
    count = COUNT_WORDS[count_word]
    top = rest.split(":")[0]
    return f"badugi {top}" if count == hand_size == 4 else f"{count}-card {top}"


def test_chart_data_equals_recomputation_from_export(solved, strategy, tmp_path):
    out = tmp_path / "table.csv"
    proc = _cli("export", str(solved), "--format", "csv", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    hand_size = strategy.config.hand_size
    draw_mass = defaultdict(float)
    draw_action = defaultdict(float)
    bet_mass = defaultdict(float)
    bet_action = defaultdict(float)
    totals = defaultdict(float)
    situation_mass = defaultdict(float)
    situation_action = defaultdict(float)
    tree = strategy.tree
    with open(out, newline="") as f:
        for row in csv.DictReader(f):
            reach = float(row["reach"])
            seat = 0 if row["seat"] == "button" else 1
            key = (seat, int(row["round"]), _group(row, hand_size))
            code = int(tree.situation[tree.node_at(row["history"])])
            situation_mass[(seat, int(row["round"]), code, key[2])] += reach
            for column in [f"d{d}" for d in range(hand_size + 1)] + list("fkcbr"):
                if row.get(column):
                    situation_action[(seat, int(row["round"]), code, key[2], column)] += reach * float(row[column])
            badugi = row["class_name"].startswith(["one", "two", "three", "four"][hand_size - 1])
            if row["kind"] == "draw":
                draw_mass[key] += reach
                for d in range(hand_size + 1):
                    draw_action[key + (d,)] += reach * float(row[f"d{d}"] or 0.0)
                pat = reach * float(row["d0"] or 0.0)
                totals[(seat, int(row["round"]), "reach")] += reach
                totals[(seat, int(row["round"]), "pat")] += pat
                totals[(seat, int(row["round"]), "snow")] += 0.0 if badugi else pat
                totals[(seat, int(row["round"]), "break")] += reach - pat if badugi else 0.0
            else:
                bet_mass[key] += reach
                for a in "fkcbr":
                    bet_action[key + (a,)] += reach * float(row[a] or 0.0)
    summary = summarise(strategy)
    labels = summary.group_labels
    checked = 0
    for (seat, rnd, group), mass in draw_mass.items():
        g = labels.index(group)
        assert summary.draw_reach[(seat, rnd)][g] == pytest.approx(mass, rel=1e-4, abs=1e-9)
        if mass > 1e-9:
            freq = summary.draw_freq[(seat, rnd)][g]
            assert freq.sum() == pytest.approx(1.0, abs=1e-6)
            for d in range(hand_size + 1):
                assert freq[d] == pytest.approx(draw_action[(seat, rnd, group, d)] / mass, abs=1e-4)
            checked += 1
    for (seat, rnd, group), mass in bet_mass.items():
        g = labels.index(group)
        if mass > 1e-9:
            freq = summary.bet_freq[(seat, rnd)][g]
            assert np.nansum(freq) == pytest.approx(1.0, abs=1e-6)
            for a, label in enumerate("fkcbr"):
                assert freq[a] == pytest.approx(bet_action[(seat, rnd, group, label)] / mass, abs=1e-4)
            checked += 1
    for (seat, rnd), measures in summary.pat_snow_break.items():
        reach = totals[(seat, rnd, "reach")]
        for name in ("pat", "snow", "break"):
            assert measures[name] == pytest.approx(totals[(seat, rnd, name)] / reach, abs=1e-4)
        assert measures["snow"] <= measures["pat"] <= 1.0
    # By situation (what the player faces): the charts' figures from the same rows.
    for (seat, rnd, code, group), mass in situation_mass.items():
        g = labels.index(group)
        assert summary.situation_reach[(seat, rnd, code)][g] == pytest.approx(mass, rel=1e-4, abs=1e-9)
        if mass > 1e-9:
            freq = summary.situation_freq[(seat, rnd, code)][g]
            columns = [f"d{d}" for d in range(hand_size + 1)] if code >= 6 else list("fkcbr")
            for i, column in enumerate(columns):
                assert freq[i] == pytest.approx(situation_action[(seat, rnd, code, group, column)] / mass, abs=1e-4)
            checked += 1
    assert {code for (_, _, code) in summary.situation_freq} >= {0, 1, 2, 3, 4, 6, 7}
    assert checked > 20


def test_export_filters_and_json(solved):
    proc = _cli("export", str(solved), "--format", "json", "--round", "1", "--kind", "draw", "--min-reach", "1e-3")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in proc.stdout.splitlines()]
    assert rows and all(r["round"] == 1 and r["kind"] == "draw" and r["reach"] >= 1e-3 for r in rows)
    proc = _cli("export", str(solved), "--prefix", "ck/01/")
    lines = list(csv.DictReader(proc.stdout.splitlines()))
    assert lines and all(r["history"].startswith("ck/01/") for r in lines)
    bad = _cli("export", str(solved), "--prefix", "zz")
    assert bad.returncode == 2 and "'z' is not possible" in bad.stderr and "Traceback" not in bad.stderr


def test_show_and_plot(solved, tmp_path):
    one = _cli("show", str(solved), "--history", "ck/", "--hand", "As2h")
    assert one.returncode == 0, one.stderr
    assert "big blind's draw decision" in one.stdout and "pat" in one.stdout
    many = _cli("show", str(solved), "--history", "ck/")
    assert many.returncode == 0 and "reach %" in many.stdout and "EV mbb" in many.stdout
    bad = _cli("show", str(solved), "--history", "ck/", "--hand", "As2x")
    assert bad.returncode == 2 and "'2x'" in bad.stderr and "Traceback" not in bad.stderr
    missing = _cli("show", str(tmp_path), "--history", "")
    assert missing.returncode == 2 and "holds no strategy" in missing.stderr
    plot = _cli("plot", str(solved), "--out", str(tmp_path / "charts"))
    assert plot.returncode == 0, plot.stderr
    for name in ("draws_1", "draws_2", "pat_snow_break", "betting_0_button", "betting_2_big-blind", "ev_by_hand",
                 "convergence"):
        assert (tmp_path / "charts" / f"{name}.png").stat().st_size > 5000
        assert (tmp_path / "charts" / f"{name}.svg").stat().st_size > 5000
    from matplotlib.image import imread

    for png in (tmp_path / "charts").glob("*.png"):  # every chart readable at full width in a README
        assert imread(png).shape[0] <= 1600, png.name
    situations = list(csv.DictReader(open(tmp_path / "charts" / "situations.csv")))
    assert {"facing a bet", "checked to", "after he stood pat"} <= {r["situation"] for r in situations}
    rows = list(csv.DictReader(open(tmp_path / "charts" / "draws.csv")))
    assert rows and {"seat", "draw", "hand", "reach", "draw_0"} <= set(rows[0])


def test_a_bucketed_strategy_loads_without_clustering_engine_or_tree(tmp_path, monkeypatch):
    """The strategy file carries its layout and tree: loading and policy() cluster nothing,
    build no engine and no tree, and write nothing to an empty bucket cache."""
    import dataclasses

    import abstractions.buckets
    import solver.cfr.engine
    import solver.game.tree

    config = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 4, 2))
    result = solve(config, iterations=30, out_dir=tmp_path / "run")
    empty = tmp_path / "empty-cache"
    empty.mkdir()
    monkeypatch.setenv("BADUGI_CACHE_DIR", str(empty))

    def refuse(*args, **kwargs):
        raise AssertionError("loading a strategy must not cluster, build an engine or build a tree")

    monkeypatch.setattr(abstractions.buckets, "compute_bucket_map", refuse)
    monkeypatch.setattr(solver.cfr.engine.Engine, "__init__", refuse)
    monkeypatch.setattr(solver.game.tree, "build_tree", refuse)
    strategy = load_strategy(tmp_path / "run")
    assert strategy.layout.row_width.tolist() == [3, 4, 2]
    node = strategy.node("ck/")
    for hand in ("As2h", "As3s", "3s4h"):
        value = strategy.hand_class(hand)
        expected = result.engine.average_strategy(node)[:, value]
        policy = strategy.policy("ck/", hand)
        assert [policy.get(str(d), 0.0) for d in range(3)] == pytest.approx(expected.tolist(), abs=1e-7)
    assert list(empty.iterdir()) == []


def test_strategy_files_of_another_format_or_damaged_are_one_line_errors(solved, tmp_path):
    import shutil

    import numpy as np

    from solver.cfr.files import STRATEGY_NAME

    old = tmp_path / "old"
    old.mkdir()
    # A format-1 file: the probabilities and the config only.
    with np.load(solved / STRATEGY_NAME) as data:
        kept = {name: data[name] for name in ("kind", "config_toml", "algorithm", "iteration", "probabilities")}
    np.savez(old / STRATEGY_NAME, version=np.array(1), **kept)
    proc = _cli("show", str(old), "--history", "ck/", "--hand", "As2h")
    assert proc.returncode == 2 and "format 1" in proc.stderr and "--resume" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1
    damaged = tmp_path / "damaged"
    shutil.copytree(solved, damaged)
    data = (damaged / STRATEGY_NAME).read_bytes()
    (damaged / STRATEGY_NAME).write_bytes(data[: len(data) // 3])
    for args in (("show", str(damaged), "--history", "ck/", "--hand", "As2h"), ("export", str(damaged)),
                 ("match", str(damaged), "rule")):
        proc = _cli(*args)
        assert proc.returncode == 2 and "damaged" in proc.stderr and "Traceback" not in proc.stderr, args
