"""Figures of a long solve run in segments (resumed after stops), from its logs.

    /usr/bin/time -v badugi solve --preset triple-draw --out runs/triple-draw-cap4 ... > run1.log 2>&1
    /usr/bin/time -v badugi solve --preset triple-draw --out runs/triple-draw-cap4 --resume ... > run2.log 2>&1
    python scripts/bench/run_log.py run1.log run2.log --summary runs/triple-draw-cap4/summary.json --json \
        --solve 'badugi solve --preset triple-draw --out runs/triple-draw-cap4 ...'

Each log is one process: the solve's own lines (resumed at, progress, done) and GNU
time's report (peak resident memory, wall time, exit status). Prints one row per
segment and the whole run's figures (from the summary: iterations, seconds, the
certificate); ``--json`` for run_all.py (results/benchmarks/cap4.json).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path


def _wall_seconds(text: str) -> float | None:
    m = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", text)
    if not m:
        return None
    hours, minutes, seconds = m.groups()
    return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)


def segment(path: Path) -> dict:
    text = path.read_text(errors="replace")
    resumed = re.search(r"resumed at iteration (\d+)", text)
    iterations = [int(i) for i in re.findall(r"^iter\s+(\d+)", text, re.M)]
    stopped = re.search(r"interrupted at iteration (\d+)", text) or re.search(r"done \([^)]*\): (\d+) iterations", text)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", text)
    status = re.search(r"Exit status: (\d+)", text)
    killed = re.search(r"terminated by signal (\d+)", text)
    return {"log": path.name, "from_iteration": int(resumed.group(1)) if resumed else 0,
            "to_iteration": int(stopped.group(1)) if stopped else (max(iterations) if iterations else None),
            "wall_seconds": _wall_seconds(text), "peak_rss_bytes": int(rss.group(1)) * 1024 if rss else None,
            "ended": (f"killed by signal {killed.group(1)}" if killed else
                      "finished" if re.search(r"^done \(", text, re.M) else
                      "stopped (Ctrl-C, checkpoint written)" if re.search(r"interrupted at iteration", text) else
                      f"exit status {status.group(1)}" if status else "running")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("logs", nargs="+")
    parser.add_argument("--summary", help="the run's summary.json")
    parser.add_argument("--note", action="append", default=[], help="a line about the run (repeatable)")
    parser.add_argument("--solve", help="the solve command the logs are of, as run (quoted)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    data = {"command": " ".join(["python scripts/bench/run_log.py", *args.logs]
                                + (["--summary", args.summary] if args.summary else [])
                                + ([f"--solve '{args.solve}'"] if args.solve else [])),
            "solve_command": args.solve,
            "date": time.strftime("%Y-%m-%d"), "segments": [segment(Path(p)) for p in args.logs], "notes": args.note}
    if args.summary:
        s = json.loads(Path(args.summary).read_text())
        data["summary"] = {k: s.get(k) for k in ("game", "algorithm", "iterations", "seconds", "exploitability_mbb",
                                                  "abstract_exploitability_mbb", "game_value_mbb", "br_button_mbb",
                                                  "br_big_blind_mbb", "certificate_seconds", "memory_bytes",
                                                  "threads", "stopped_by", "peak_rss_bytes")}
    peaks = [s["peak_rss_bytes"] for s in data["segments"] if s["peak_rss_bytes"]]
    # GNU time's peaks where the logs have them, else the solve's own (summary.json's peak_rss_bytes)
    data["peak_rss_bytes"] = max(peaks) if peaks else data.get("summary", {}).get("peak_rss_bytes")
    if args.json:
        print(json.dumps(data, indent=2))
        return 0
    for s in data["segments"]:
        print(f"{s['log']}: iterations {s['from_iteration']}..{s['to_iteration']}, {s['wall_seconds'] or 0:.0f} s, "
              f"peak {(s['peak_rss_bytes'] or 0) / 2**30:.1f} GiB, {s['ended']}")
    if "summary" in data:
        s = data["summary"]
        print(f"{s['game']}: {s['iterations']} iterations in {s['seconds'] / 60:.0f} min, certified "
              f"{s['exploitability_mbb']:.1f} mbb/hand (certificate {s['certificate_seconds'] / 60:.1f} min)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
