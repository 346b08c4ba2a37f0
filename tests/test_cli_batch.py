"""Issue 32, items 2, 4 and 5: evaluating a file of hands is a batch job; outputs are not
replaced without --force; errors name the path typed; failed runs leave no folders."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from abstractions.cards import FULL_DECK, Deck, format_cards, format_hands, parse_cards, parse_hands
from abstractions.evaluator import get_evaluator
from abstractions.files import atomic_write
from solver.cli import main
from solver.commands import EVAL_ERRORS_NAMED

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args, stdin=None, timeout=300):
    return subprocess.run([sys.executable, "-m", "solver.cli", *args], input=stdin, capture_output=True, text=True,
                          cwd=ROOT, timeout=timeout)


def _spellings(hands: np.ndarray, deck: Deck = FULL_DECK) -> list[str]:
    """The hands written in the notation's several ways (compact, any case, symbols, spaced, 10)."""
    lines = []
    for n, hand in enumerate(hands.tolist()):
        text = format_cards(hand, deck)
        kind = n % 6
        lines.append(text if kind == 0 else text.lower() if kind == 1 else format_cards(hand, deck, unicode=True)
                     if kind == 2 else format_cards(hand, deck, sep=" ").replace("T", "10") if kind == 3
                     else f"  {text};" if kind == 4 else text.replace("s", "♤"))
    return lines


def _expected_row(evaluator, cards) -> dict:
    """What `badugi eval --json` printed for one hand before it went batch (hand by hand)."""
    value = evaluator.evaluate(cards)
    deck = evaluator.deck
    return {"hand": format_cards(cards, deck), "value": value,
            "cards": format_cards(evaluator.best_subset(cards)[::-1], deck),
            "ranks": evaluator.value_rank_names(value), "name": evaluator.describe(value)}


# -- item 2: a file of hands is a batch ------------------------------------------------------------

def test_eval_of_thousands_of_lines_sharing_cards_prints_one_note_and_the_evaluators_values():
    evaluator = get_evaluator()
    rng = np.random.default_rng(32)
    hands = np.array([rng.choice(52, 4, replace=False) for _ in range(3000)])
    lines = _spellings(hands)
    proc = _cli("eval", "--json", "-", stdin="\n".join(lines) + "\n")
    assert proc.returncode == 0, proc.stderr[-2000:]
    # Random hands of one deck share cards all the time: one line says so (not one per pair).
    held = np.bincount(hands.ravel(), minlength=52)
    sharing = int((held[hands] > 1).any(axis=1).sum())
    assert sharing > 2900
    assert proc.stderr.splitlines() == [proc.stderr.strip()]
    assert proc.stderr.startswith(f"note: {sharing:,} of 3,000 lines share a card with another line")
    best = min(evaluator.evaluate(hand) for hand in hands)
    rows = [{**_expected_row(evaluator, hand), "wins": evaluator.evaluate(hand) == best} for hand in hands]
    assert proc.stdout.splitlines() == [json.dumps(row, ensure_ascii=False) for row in rows]
    # The table: the same values and names, then the winner.
    table = _cli("eval", "-", stdin="\n".join(lines))
    assert table.returncode == 0 and table.stderr == proc.stderr
    printed = table.stdout.splitlines()
    assert [line.split()[:3] for line in printed[:-1]] == [[row["hand"], "value", str(row["value"])] for row in rows]
    assert [line.split("  ")[-1] for line in printed[:-1]] == [row["name"] for row in rows]
    assert printed[-1].split(": ")[1].split(", ") == [row["hand"] for row in rows if row["wins"]]


def test_eval_names_the_first_bad_lines_counts_the_rest_and_evaluates_every_valid_line():
    lines = ["As2h3d4c", "7h5d4d3s"] * 400
    bad = [3, 10, 11, 50, 100, 101, 400, 700]  # (0-based) lines replaced by bad ones
    for n in bad:
        lines[n] = "As2h3dXx" if n % 2 else "KcKc2s3d"
    lines.insert(5, "")  # a blank line is skipped, and still counts in the line numbers
    proc = _cli("eval", "--json", "-", stdin="\n".join(lines))
    assert proc.returncode == 2
    stderr = proc.stderr.splitlines()
    numbers = [n + 1 + (n >= 5) for n in bad]
    assert [line.split(":")[:2] for line in stderr[:EVAL_ERRORS_NAMED]] == \
        [["badugi eval", f" line {n}"] for n in numbers[:EVAL_ERRORS_NAMED]]
    assert "duplicate card 'Kc'" in stderr[1] and "bad card 'Xx'" in stderr[0]
    assert stderr[EVAL_ERRORS_NAMED] == (f"badugi eval: and {len(bad) - EVAL_ERRORS_NAMED} more bad lines (of 800; "
                                         "every other line is evaluated)")
    assert stderr[EVAL_ERRORS_NAMED + 1].startswith("note: 792 of 792 lines share a card")
    assert len(stderr) == EVAL_ERRORS_NAMED + 2
    values = [json.loads(line)["value"] for line in proc.stdout.splitlines()]
    expected = [0 if text == "As2h3d4c" else 740 for n, text in enumerate(lines) if text and n - (n > 5) not in bad]
    assert len(values) == 792 and values == expected


def test_eval_on_the_command_line_is_one_deal_and_notes_each_pair():
    proc = _cli("eval", "As2h3d4c", "As5h6d7c", "Kc5h8d9s")
    assert proc.returncode == 0
    assert proc.stderr.splitlines() == [
        "note: hand 1 and hand 2 share As: they cannot both be dealt from one deck",
        "note: hand 2 and hand 3 share 5h: they cannot both be dealt from one deck"]


@pytest.mark.parametrize("ranks,suits,count", [(13, 4, 4), (13, 4, 2), (6, 3, 3), (4, 4, 1)])
def test_parse_hands_reads_what_parse_cards_reads_line_by_line(ranks, suits, count):
    deck = Deck(ranks, suits)
    rng = np.random.default_rng(ranks * suits + count)
    hands = np.array([rng.choice(deck.n_cards, count, replace=False) for _ in range(300)])
    lines = _spellings(hands, deck)
    # Errors of every kind: a card short, a duplicate, an unknown rank or suit, a card outside the
    # deck, a stray character, a non-ASCII letter in a line of the compact width.
    lines += [lines[0][:-2], lines[1][:2] * count, "Zs" * count, "Ax" * count, "Kc" * count, lines[2] + "!",
              "é" + lines[3][1:], "A s" + lines[4][2:], "", "1" * (2 * count)]
    parsed = parse_hands(lines, deck, count)
    read, errors = [], []
    for n, line in enumerate(lines):
        try:
            read.append((n, parse_cards(line, deck, count).tolist()))
        except ValueError as err:
            errors.append((n, str(err)))
    assert list(zip(parsed.lines.tolist(), parsed.cards.tolist())) == read
    assert parsed.errors == errors and len(errors) >= 8
    assert format_hands(parsed.cards, deck) == [format_cards(cards, deck) for _, cards in read]


@pytest.mark.parametrize("ranks,suits,count", [(13, 4, 4), (6, 3, 3), (5, 4, 4), (4, 2, 2)])
def test_best_subsets_are_best_subset_hand_by_hand(ranks, suits, count):
    evaluator = get_evaluator(ranks, suits, count)
    hands = np.array(list(itertools.combinations(range(ranks * suits), count)))
    if len(hands) > 5000:
        hands = hands[np.random.default_rng(0).choice(len(hands), 5000, replace=False)]
    hands = np.random.default_rng(1).permuted(hands, axis=1)  # in any order
    kept = evaluator.best_subsets(hands)
    assert [row[row >= 0].tolist() for row in kept] == [evaluator.best_subset(h)[::-1].tolist() for h in hands]
    with pytest.raises(ValueError, match="duplicate card"):
        evaluator.best_subsets([[0, 0] + list(range(1, count - 1))] if count > 2 else [[0, 0]])


# -- items 4 and 5: --out ---------------------------------------------------------------------------

@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    from solver.cfr.solve import solve
    from solver.game.config import load_preset

    out = tmp_path_factory.mktemp("tiny") / "run"
    solve(load_preset("tiny-single-draw"), iterations=10, out_dir=out)
    return out


@pytest.mark.parametrize("command,extra", [("export", ["--format", "csv"]), ("explore", [])])
def test_export_and_explore_refuse_an_existing_out_without_force(tiny_run, tmp_path, capsys, command, extra):
    mine = tmp_path / "mine.txt"
    mine.write_text("mine\n")
    assert main([command, str(tiny_run), *extra, "--out", str(mine)]) == 2
    assert capsys.readouterr().err == f"badugi {command}: error: --out {mine} exists: --force replaces it, " \
                                      "or give another --out\n"
    assert mine.read_text() == "mine\n"
    assert main([command, str(tiny_run), *extra, "--out", str(mine), "--force"]) == 0
    written = mine.read_text()
    assert written.startswith("seat,history,round" if command == "export" else "<!DOCTYPE html>"), written[:80]
    # A directory is never a file to replace.
    assert main([command, str(tiny_run), *extra, "--out", str(tmp_path), "--force"]) == 2
    assert capsys.readouterr().err.endswith(f"--out {tmp_path} is a directory; give a file name\n")
    # And --help says so.
    assert main([command, "--help"]) == 0
    assert "an existing file only with --force" in " ".join(capsys.readouterr().out.split())


@pytest.mark.parametrize("command", ["export", "explore"])
@pytest.mark.parametrize("where", ["missing-folder", "inside-a-file", "read-only"])
def test_a_bad_out_is_named_as_typed(tiny_run, tmp_path, capsys, monkeypatch, command, where):
    monkeypatch.chdir(tmp_path)
    Path("a-file").write_text("")
    Path("read-only").mkdir(mode=0o555)
    typed = {"missing-folder": "no/such/folder/out.txt", "inside-a-file": "a-file/out.txt",
             "read-only": "read-only/out.txt"}[where]
    if where == "read-only" and os.geteuid() == 0:
        # Root writes into any folder; not into sysfs.
        if not Path("/sys/kernel").is_dir():
            pytest.skip("root writes into a read-only folder, and there is no /sys")
        typed = "/sys/badugi-out.txt"
    assert main([command, str(tiny_run), "--out", typed]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"badugi {command}: error: --out {typed}: cannot write there (") and ".tmp" not in err
    assert len(err.splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "read-only"]


def test_atomic_write_errors_name_the_target_not_the_temporary_file(tmp_path):
    target = tmp_path / "no" / "table.csv"
    with pytest.raises(FileNotFoundError) as failed:
        with atomic_write(target, "w") as f:
            f.write("x")
    assert failed.value.filename == str(target) and str(target) in str(failed.value)
    assert ".tmp" not in str(failed.value)


def test_a_failed_exploit_or_locked_solve_leaves_no_folder(tiny_run, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert main(["exploit", str(tiny_run), "--against", "nobody", "--out", "new/exploit"]) == 2
    assert "player 'nobody'" in capsys.readouterr().err
    lock = tmp_path / "nowhere.toml"
    lock.write_text('[[lock]]\nhistory = "bbbbbbbbbb"\nprobabilities = { f = 1.0 }\n')
    assert main(["solve", "--preset", "tiny-single-draw", "--lock", str(lock), "--iterations", "2",
                 "--out", "new/locked", "--no-charts", "--quiet"]) == 2
    assert "names no decision" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nowhere.toml"]
    # A folder that was there before stays (empty), and a run that works makes its own.
    Path("kept").mkdir()
    assert main(["exploit", str(tiny_run), "--against", "nobody", "--out", "kept"]) == 2
    assert Path("kept").is_dir()
    assert main(["exploit", str(tiny_run), "--against", "station", "--out", "new/exploit", "--json"]) == 0
    assert (tmp_path / "new" / "exploit" / "strategy.npz").is_file()
