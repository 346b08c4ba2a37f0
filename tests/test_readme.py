"""The README and results/ say what a user will see.

The Python example prints what it shows when run on what the README's main command writes;
the presets table, results/README.md and results/matches quote the committed summaries'
figures; the algorithms' descriptions are the ones ``--help`` prints. (That every command
example runs: tests/test_nothing_lost.py.)
"""

import doctest
import json
import re
from pathlib import Path

import pytest

from solver.cfr.algorithms import ALGORITHMS, algorithm_table
from solver.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
# The whole guide: the README and the chapters it links in docs/ (figures and examples are tested wherever they are).
DOCS = {path.name: path.read_text() for path in sorted((ROOT / "docs").glob("*.md"))}
GUIDE = "\n".join([README, *DOCS.values()])
RESULTS = ROOT / "results"
PRESET_RESULTS = {"single-draw": "single-draw", "double-draw": "double-draw",
                  "triple-draw-bucketed": "triple-draw-cap1", "triple-draw": "triple-draw-cap4"}


def _summary(folder: str) -> dict:
    return json.loads((RESULTS / folder / "summary.json").read_text())


def _printed(value: float, text: str) -> bool:
    """``text`` is ``value`` as printed to the digits it shows."""
    digits = len(text.split(".")[1]) if "." in text else 0
    return abs(float(text.replace(",", "")) - value) <= 0.5 * 10 ** -digits + 1e-12


def test_the_python_example_prints_what_it_shows(tmp_path, monkeypatch):
    """Every ``>>>`` line of the README runs on what ``badugi solve`` writes, printing what the
    README shows."""
    blocks = re.findall(r"```python\n(.*?)```", GUIDE, re.S)
    assert blocks and all(">>>" in block for block in blocks)
    monkeypatch.chdir(tmp_path)
    assert main(["solve", "--quiet", "--no-charts"]) == 0  # the README's main command: runs/single-draw
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs: dict = {}
    for n, block in enumerate(blocks):
        test = parser.get_doctest(block, globs, f"README python block {n}", "README.md", 0)
        assert test.examples
        runner.run(test)
    assert runner.failures == 0, f"{runner.failures} README example(s) print something else (see above)"


def _presets_table() -> dict[str, dict]:
    start = README.index("<!-- presets-table")
    rows = {}
    for line in README[start:].splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0].startswith("`"):
            rows[cells[0].strip("`")] = {"memory": cells[2], "solved": cells[3], "exploitability": cells[4],
                                         "value": cells[5]}
    return rows


def test_the_presets_table_quotes_the_committed_solves():
    rows = _presets_table()
    assert set(rows) == set(PRESET_RESULTS)
    for preset, folder in PRESET_RESULTS.items():
        s, row = _summary(folder), rows[preset]
        assert _printed(s["exploitability_mbb"], row["exploitability"]), (preset, row)
        assert _printed(s["game_value_mbb"], row["value"].lstrip("+")), (preset, row)
        algorithm, iterations = re.match(r"(\S+), ([\d,]+) iterations", row["solved"]).groups()
        assert algorithm == s["algorithm"] and int(iterations.replace(",", "")) == s["iterations"], (preset, row)
        minutes = re.search(r"\((\d+) min\)", row["solved"])
        if minutes:
            assert int(minutes.group(1)) == round(s["seconds"] / 60), (preset, row)
        amount, unit = row["memory"].split()
        assert _printed(s["memory_bytes"] / 2 ** {"MiB": 20, "GiB": 30}[unit], amount), (preset, row)


def test_results_readme_quotes_the_summaries():
    text = (RESULTS / "README.md").read_text()
    sections = re.findall(r"^## (.*?)\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    described = 0
    for title, body in sections:
        found = re.search(r"Solved with (\S+) for (\d+) iterations \((\d+) s on (\d+) threads?\): "
                          r"exploitability \*\*([\d.]+) mbb/hand\*\*.*?the button wins \*\*([-+\d.]+) mbb/hand", body,
                          re.S)
        if not found:
            continue
        folder = re.search(r"\]\(\./([\w-]+)/", body).group(1)
        s = _summary(folder)
        algorithm, iterations, seconds, threads, exploitability, value = found.groups()
        assert (algorithm, int(iterations), int(seconds), int(threads)) == (
            s["algorithm"], s["iterations"], round(s["seconds"]), s["threads"]), title
        assert _printed(s["exploitability_mbb"], exploitability) and _printed(s["game_value_mbb"], value), title
        described += 1
    assert described == len(PRESET_RESULTS)
    # The time of the charts is a figure this run measured, never a placeholder.
    assert not re.search(r"\b0\.0 minutes", text)


def test_matches_say_which_strategy_played():
    """A match row of a strategy other than the committed one says so: results/matches never
    passes an earlier solve's matches off as the committed strategy's."""
    import csv

    with open(RESULTS / "matches" / "model_gap.csv", newline="") as f:
        gaps = list(csv.DictReader(f))
    text = (RESULTS / "matches" / "README.md").read_text()
    text = text[text.index("## Which strategies played"):]
    text = text[:text.index("\n## ", 1)]
    assert gaps
    for g in gaps:
        folder = Path(g["strategy"]).name
        s = _summary(folder)
        same = int(g["iterations"]) == s["iterations"] and _printed(s["exploitability_mbb"], g["exploitability_mbb"])
        row = re.search(rf"^\| {re.escape(folder)} \| (.*)$", text, re.M)
        assert row, folder
        assert ("the same solve" in row.group(1)) == same and ("another solve" in row.group(1)) != same, row.group(0)


def test_algorithms_are_described_once():
    """The README's algorithm table and ``--help`` are both made from solver.cfr.algorithms."""
    assert algorithm_table() in README
    solve_parser = build_parser()._subparsers._group_actions[0].choices["solve"]
    help_text = next(a.help for a in solve_parser._actions if a.dest == "algorithm")
    for row in ALGORITHMS:
        assert row.name in help_text and row.help in help_text


@pytest.mark.parametrize("claim", ["solved with `dcfr`", "15.1 GiB peak", "peak of 15.1 GiB", "export never overwrites"])
def test_stale_claims_are_gone(claim):
    assert claim not in GUIDE


def test_the_worked_opponent_examples_quote_results_opponents():
    """Every figure of the README's worked examples is one results/opponents/README.md shows."""
    block = DOCS["locking.md"][DOCS["locking.md"].index("Worked examples, single draw"):]
    study = (RESULTS / "opponents" / "README.md").read_text()
    figures = re.findall(r"[+]?\d[\d,]*\.\d+(?: ± \d+\.\d+)?|\b\d,\d{3}\b|\b\d{3}\b(?= and)", block)
    assert len(figures) >= 15
    for figure in figures:
        bare = figure.rstrip("%")
        assert bare in study or bare.replace(",", "") in study, figure


def test_the_readme_opens_with_what_a_user_gets():
    """The two commands come first, then a picture of a solve's output and the presets table,
    then a contents list whose every entry is a section of the README; no timing caveats
    before the user has learnt what the project does."""
    opening = README[:README.index("## Contents")]
    first_block = README.index("```bash")
    assert README.index(".venv/bin/badugi solve") < README.index("\n\n", first_block + 200)
    assert first_block < 1200 and "![" in opening and "<!-- presets-table" in opening
    for caveat in ("slow day", "busy machine", "newcomer", "earlier default"):
        assert caveat not in opening, caveat
    anchors = re.findall(r"\]\(#([\w-]+)\)", README[README.index("## Contents"):README.index("## What it computes")])
    headings = {re.sub(r"[^\w\- ]", "", h).strip().lower().replace(" ", "-")
                for h in re.findall(r"^#{2,3} (.*)$", README, re.M)}
    assert {"solve", "study", "play", "more"} <= set(anchors) and set(anchors) <= headings


def test_the_committed_compact_strategy_is_described_as_it_is():
    """The guide's figures of results/triple-draw-cap4/compact are its manifest's: its size, its
    chunks and parts, its rows, its certificate (they go stale when the file is written again)."""
    manifest = json.loads((RESULTS / "triple-draw-cap4" / "compact" / "compact.json").read_text())
    sentence = re.search(r"committed\*\* in `results/triple-draw-cap4/compact/` \((\w+) parts, ([\d.]+) MB,\s+a store "
                         r"of (\d+) chunks", GUIDE)
    assert sentence, "the README no longer describes the committed compact strategy"
    parts, megabytes, chunks = sentence.groups()
    assert {"two": 2, "three": 3}[parts] == len(manifest["parts"])
    assert _printed(manifest["bytes"] / 1e6, megabytes) and int(chunks) == manifest["chunks"]
    rows = re.search(r"([\d.,]+) million of its ([\d.,]+)\s+million\s+rows", GUIDE)
    assert _printed(manifest["rows_kept"] / 1e6, rows.group(1)) and _printed(manifest["rows"] / 1e6, rows.group(2))
    certified = re.search(r"\*\*certified ([\d.]+) mbb/hand\*\* at full resolution", GUIDE)
    assert _printed(manifest["certificate"]["exploitability_mbb"], certified.group(1))
    table = re.search(r"results/triple-draw-cap4/compact`\) \| [\d.]+ GB \| ([\d.]+) MB", GUIDE)
    assert _printed(manifest["bytes"] / 1e6, table.group(1))


def test_the_laptop_table_quotes_the_study_benchmark():
    """The guide's "Study it on a laptop" figures are those scripts/bench/study_anywhere.py last
    wrote to results/benchmarks/study_anywhere.json (they go stale when it is run again)."""
    bench = json.loads((RESULTS / "benchmarks" / "study_anywhere.json").read_text())
    table = GUIDE[GUIDE.index("**Study it on a laptop.**"):GUIDE.index("So a laptop of 4 GB")]
    rows = re.findall(r"^\| (.+?) \| ([\d.]+) s[^|]* \| (\d+) MiB \|$", table, re.M)
    measured = [bench["show"]["first decision"], bench["show"]["last round"], bench["show"]["second round"],
                bench["play"], bench["review"], bench["match"],
                {"seconds": bench["explorer"]["first_decision_seconds"],
                 "peak_mib": bench["explorer"]["server_peak_mib"]}]
    assert len(rows) == len(measured)
    for (what, seconds, mib), figures in zip(rows, measured):
        assert _printed(figures["seconds"], seconds) and _printed(figures["peak_mib"], mib), (what, figures)
    assert f"{bench['review']['decisions']:,} decisions" in table
    pair = re.search(r"side by side here: (\d+) and (\d+) MiB", GUIDE)
    assert [_printed(v, t) for v, t in zip(bench["pair"]["peak_mib"], pair.groups())] == [True, True]
    reviewed = re.search(r"decisions are reviewed in ([\d.]+) s in all", GUIDE)
    assert _printed(bench["review"]["seconds"], reviewed.group(1))


def _slug(heading: str) -> str:
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def test_the_readme_is_a_guide_and_docs_hold_the_rest():
    """README.md at most 600 lines; every chapter of docs/ is linked from it."""
    assert len(README.splitlines()) <= 600
    for name in DOCS:
        assert f"(docs/{name})" in README, f"docs/{name} is not linked from the README"


def test_every_link_of_the_guide_leads_somewhere():
    """Every relative link of README.md and docs/*.md names a file that exists, and an anchor
    that is one of its headings."""
    broken = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text()):
            if target.startswith(("http://", "https://", "mailto:")):
                continue
            path, _, anchor = target.partition("#")
            file = (page.parent / path).resolve() if path else page
            if not file.exists():
                broken.append(f"{page.name}: {target}")
            elif anchor and file.suffix == ".md" and anchor not in {
                    _slug(h) for h in re.findall(r"^#{1,6} (.*)$", file.read_text(), re.M)}:
                broken.append(f"{page.name}: {target}")
    assert broken == []

