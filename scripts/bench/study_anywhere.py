"""The real game's strategy read a spot at a time (issue 57): what a user waits for, and how much memory.

    python scripts/bench/study_anywhere.py                      # every figure, the committed strategy
    python scripts/bench/study_anywhere.py --only show review   # some of them
    python scripts/bench/study_anywhere.py --only spots --eager /tmp/v3   # 10,000 spots against the eager reader

Each command runs in a fresh process under ``/usr/bin/time -v`` (wall seconds and peak resident
memory), the kernels already compiled (a first run compiles them; it is not timed):

- ``show``: ``badugi show DIR --history "" --hand 7h5d4d3s`` and a last-round spot
  (``--history rc/11/kk/11/kk/00/ --hand Qh9d7c4s``), and a second-round one;
- ``review``: ``badugi review`` of 1,000 hands made by PokerKit's own engine
  (``pokerkit_hands.py --hands 1000 --seed 1``), default options;
- ``play``: ``badugi play`` until the first prompt (answered ``q``);
- ``match``: ``badugi match DIR rule --hands 1000000``;
- ``pair``: a review and a match side by side (two readers of the strategy at once);
- ``explorer``: ``badugi explore DIR`` served, opened in headless Chromium: seconds from the
  command's start to the first decision on screen, and from each click down to a last-round
  spot until the spot is on screen;
- ``spots``: 10,000 random decisions and hands, the lazy reader's policy against the whole-file
  reader's (``--eager``: a compact strategy of an earlier format, read whole; 13 GB), bit for bit.

Prints one line per figure and, with ``--json``, writes results/benchmarks/study_anywhere.json.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

BADUGI = [sys.executable, "-m", "solver.cli"]
DEFAULT = ROOT / "results" / "triple-draw-cap4" / "compact"


def timed(args: list[str], stdin: str | None = None, cwd=None) -> dict:
    """Wall seconds and peak resident MiB of one command in a fresh process."""
    proc = subprocess.run(["/usr/bin/time", "-v"] + args, input=stdin, capture_output=True, text=True, cwd=cwd)
    peak = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr).group(1)) / 1024
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    hours, minutes, seconds = (float(x) if x else 0.0 for x in wall.groups())
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args)} failed: {proc.stderr[-800:]}")
    return {"seconds": round(hours * 3600 + minutes * 60 + seconds, 2), "peak_mib": round(peak, 1),
            "stdout": proc.stdout}


def bench_show(strategy: Path) -> dict:
    out = {}
    for name, history, hand in (("first decision", "", "7h5d4d3s"),
                                ("last round", "rc/11/kk/11/kk/00/", "Qh9d7c4s"),
                                ("second round", "rc/11/", "Qh9d7c4s")):
        args = BADUGI + ["show", str(strategy), "--history", history, "--hand", hand]
        timed(args)  # (kernels compiled, files in the page cache)
        result = timed(args)
        out[name] = {"command": f"badugi show {strategy} --history '{history}' --hand {hand}",
                     "seconds": result["seconds"], "peak_mib": result["peak_mib"]}
    return out


def pokerkit_file(work: Path) -> Path:
    path = work / "pokerkit-1000.phhs"
    if not path.exists():
        subprocess.run([sys.executable, str(ROOT / "scripts" / "bench" / "pokerkit_hands.py"), "--hands", "1000",
                        "--seed", "1", "--out", str(path)], check=True, capture_output=True)
    return path


def bench_review(strategy: Path, work: Path) -> dict:
    hands = pokerkit_file(work)
    args = BADUGI + ["review", str(hands), "--summary"] + (["--strategy", str(strategy)] if strategy != DEFAULT else [])
    timed(args)
    result = timed(args)
    # The belief behind the costs: each decision's effective number of distinct opponent hands.
    subprocess.run(args + ["--json", str(work / "review.json"), "--force"], check=True, capture_output=True)
    rows = json.loads((work / "review.json").read_text())["decisions"]
    import numpy as np

    ess = np.array([r["effective_samples"] for r in rows if r["effective_samples"] is not None])
    rounds = {}
    for r in rows:
        if r["effective_samples"] is not None:
            rounds.setdefault(r["round"], []).append(r["effective_samples"])
    return {"command": "badugi review pokerkit-1000.phhs --summary", "seconds": result["seconds"],
            "peak_mib": result["peak_mib"], "decisions": _decisions(result["stdout"]),
            "effective_hands_median": float(np.median(ess)), "under_10": round(float((ess < 10).mean()), 4),
            "median_by_round": {k: float(np.median(v)) for k, v in rounds.items()}}


def _decisions(text: str) -> int:
    return sum(int(m.replace(",", "")) for m in re.findall(r"^\s+\S+\s+[\d,]+\s+([\d,]+)\s", text, re.M))


def bench_play(strategy: Path, work: Path) -> dict:
    args = BADUGI + ["play", "--out", str(work / "hands"), "--force"] + (
        ["--strategy", str(strategy)] if strategy != DEFAULT else [])
    timed(args, stdin="q\n")
    result = timed(args, stdin="q\n")
    assert "hand 1:" in result["stdout"]
    return {"command": "badugi play (answered q at the first prompt)", "seconds": result["seconds"],
            "peak_mib": result["peak_mib"]}


def bench_match(strategy: Path) -> dict:
    args = BADUGI + ["match", str(strategy), "rule", "--hands", "1000000"]
    timed(args + ["--hands", "2000"])
    result = timed(args)
    mbb = re.search(r": ([+-][\d.]+) \+- ([\d.]+) mbb/hand", result["stdout"])
    return {"command": f"badugi match {strategy} rule --hands 1000000", "seconds": result["seconds"],
            "peak_mib": result["peak_mib"], "mbb": float(mbb.group(1)), "ci95": float(mbb.group(2))}


def bench_pair(strategy: Path, work: Path) -> dict:
    """A review and a match at once, each in its own process."""
    hands = pokerkit_file(work)
    start = time.perf_counter()
    jobs = []
    for args in (BADUGI + ["review", str(hands), "--summary", "--strategy", str(strategy)],
                 BADUGI + ["match", str(strategy), "rule", "--hands", "1000000"]):
        jobs.append(subprocess.Popen(["/usr/bin/time", "-v"] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     text=True))
    peaks = []
    for job in jobs:
        _, err = job.communicate()
        if job.returncode != 0:
            raise SystemExit(f"a reader failed side by side: {err[-500:]}")
        peaks.append(int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", err).group(1)) / 1024)
    return {"seconds": round(time.perf_counter() - start, 2), "peak_mib": [round(p, 1) for p in peaks],
            "readers": ["review of 1,000 hands", "match of 1,000,000 hands"]}


def bench_explorer(strategy: Path) -> dict:
    """The served page in headless Chromium: the first decision, then clicks down to the last round."""
    import shutil

    from selenium import webdriver
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    from solver.game.config import load_preset
    from solver.game.rounds import RoundTemplates
    from solver.tables.explorer import child_points

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
    driver.get("about:blank")
    templates = RoundTemplates.of(load_preset("triple-draw"))
    start = time.perf_counter()
    server = subprocess.Popen(BADUGI + ["explore", str(strategy), "--port", "0", "--stop-after", "300"],
                              stdout=subprocess.PIPE, text=True)
    try:
        url = re.search(r"(http://\S+/)", server.stdout.readline()).group(1)

        def opened(history):
            WebDriverWait(driver, 60, poll_frequency=0.02,
                          ignored_exceptions=(StaleElementReferenceException,)).until(
                lambda d: d.find_element(By.ID, "history").text == history and not d.find_element(By.ID,
                                                                                                   "status").text)

        driver.get(url)
        opened("")
        first = time.perf_counter() - start
        clicks = []
        history = ""
        for label in ["r", "c", "1", "1", "k", "k", "1", "1", "k", "k", "0", "0", "k", "b"]:
            history = {a: child for a, child, _ in child_points(templates, history)}[label]
            t = time.perf_counter()
            driver.find_element(By.CSS_SELECTOR, f"#actions button[data-action='{label}']").click()
            opened(history)
            clicks.append((history, round(time.perf_counter() - t, 3)))
        peak = _peak_mib(server.pid)
    finally:
        server.terminate()
        server.wait()
        driver.quit()
    last_round = [s for h, s in clicks if h.count("/") >= 6]
    return {"first_decision_seconds": round(first, 2), "clicks": clicks,
            "last_round_click_seconds_max": max(last_round), "server_peak_mib": peak}


def _peak_mib(pid: int) -> float:
    """The peak resident memory of a running process (Linux: VmHWM)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return round(int(line.split()[1]) / 1024, 1)
    return float("nan")


def bench_spots(strategy: Path, eager_dir: Path, count: int, seed: int) -> dict:
    """Random decisions (a random walk of the rules) and hands: the lazy policy against the eager one."""
    import numpy as np

    from solver.game.rounds import locate
    from solver.tables.strategy import Strategy, load_strategy

    t = time.perf_counter()
    lazy = load_strategy(strategy)
    lazy_open = time.perf_counter() - t
    t = time.perf_counter()
    eager = Strategy(eager_dir)
    eager_open = time.perf_counter() - t
    assert lazy.store is not None and eager.store is None
    rng = np.random.default_rng(seed)
    n_cards = lazy.config.ranks * lazy.config.suits
    checked = same = 0
    lazy_seconds = 0.0
    rounds = [0, 0, 0, 0]
    while checked < count:
        history = ""
        while checked < count:
            try:
                at = locate(lazy.templates, history)
            except ValueError:
                break
            cards = rng.choice(n_cards, lazy.config.hand_size, replace=False)
            t = time.perf_counter()
            mine = lazy.policy(history, cards)
            lazy_seconds += time.perf_counter() - t
            theirs = eager.policy(history, cards)
            checked += 1
            same += mine == theirs
            rounds[at.round] += 1
            history += at.labels[int(rng.integers(len(at.labels)))]
            try:
                locate(lazy.templates, history + "/")
                history += "/"
            except ValueError:
                pass
    return {"spots": checked, "same_bits": same, "by_round": rounds, "lazy_open_seconds": round(lazy_open, 2),
            "eager_open_seconds": round(eager_open, 1), "lazy_ms_a_spot": round(1000 * lazy_seconds / checked, 3)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--strategy", default=str(DEFAULT))
    parser.add_argument("--only", nargs="+", choices=("show", "review", "play", "match", "pair", "explorer", "spots"))
    parser.add_argument("--eager", help="for spots: a compact strategy of an earlier format (read whole)")
    parser.add_argument("--spots", type=int, default=10_000)
    parser.add_argument("--json", action="store_true", help="also write results/benchmarks/study_anywhere.json")
    args = parser.parse_args(argv)
    strategy = Path(args.strategy)
    chosen = args.only or ["show", "review", "play", "match", "pair", "explorer"] + (["spots"] if args.eager else [])
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        for name in chosen:
            if name == "show":
                results[name] = bench_show(strategy)
            elif name == "review":
                results[name] = bench_review(strategy, work)
            elif name == "play":
                results[name] = bench_play(strategy, work)
            elif name == "match":
                results[name] = bench_match(strategy)
            elif name == "pair":
                results[name] = bench_pair(strategy, work)
            elif name == "explorer":
                results[name] = bench_explorer(strategy)
            elif name == "spots":
                if not args.eager:
                    raise SystemExit("--only spots needs --eager DIR (a compact strategy of an earlier format)")
                results[name] = bench_spots(strategy, Path(args.eager), args.spots, 1)
            print(f"{name}: {json.dumps(results[name])}", flush=True)
    if args.json:
        path = ROOT / "results" / "benchmarks" / "study_anywhere.json"
        path.write_text(json.dumps({"machine": f"{os.cpu_count()} cores", **results}, indent=1) + "\n")
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
