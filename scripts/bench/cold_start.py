"""Seconds from launching ``badugi solve`` (the default preset) to its first iteration's line,
with Numba's cache empty and then with it filled.

    python scripts/bench/cold_start.py [--runs 3] [--badugi PATH ...] [--install] [--full]

Each cold run points NUMBA_CACHE_DIR at a new empty folder (Numba then reads and writes no
other cache: not the package's ``__pycache__``), starts ``badugi solve --out TMP``, reads its
output as it comes and stops the solve once the line of iteration 1 is printed. A warm run
follows in the same cache. The load average is printed beside each run: the machine is shared.

``--badugi`` (repeatable; default this checkout's ``.venv/bin/badugi``): the installs to compare,
measured in turn within each run (for a before/after, a checkout of the older commit with its own
venv). ``--full`` also runs each one's whole default solve (to 0.1 mbb/hand, kernels cached) and
prints its iterations and seconds.

``--install`` also times the README's first two steps, ``python3 -m venv`` and ``pip install -e .``
(from pip's own cache, so without downloads) in a new folder, before the cold run that uses it.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def first_iteration(badugi: str, cache: str) -> tuple[float, list[str]]:
    """Seconds from launch to the line of iteration 1, and the lines printed before it."""
    with tempfile.TemporaryDirectory() as out:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONUNBUFFERED="1")
        start = time.perf_counter()
        solve = subprocess.Popen([badugi, "solve", "--out", str(Path(out) / "run")], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, env=env, cwd=out)
        lines = []
        try:
            for line in solve.stdout:
                if line.startswith("iter      1 "):
                    return time.perf_counter() - start, lines
                lines.append(line.rstrip("\n"))
            raise SystemExit("badugi solve ended before its first iteration:\n" + "\n".join(lines))
        finally:
            solve.kill()
            solve.wait()


def install(folder: Path) -> tuple[str, float, float]:
    """The README's ``python3 -m venv .venv && .venv/bin/pip install -e .`` in ``folder``; the
    badugi it installed and each step's seconds."""
    venv = folder / ".venv"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    made = time.perf_counter()
    subprocess.run([str(venv / "bin" / "pip"), "install", "-q", "-e", str(ROOT)], check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    return str(venv / "bin" / "badugi"), made - start, time.perf_counter() - made


def full_solve(badugi: str, cache: str) -> str:
    """The default solve to its end with the kernels in ``cache``: its closing line."""
    with tempfile.TemporaryDirectory() as out:
        proc = subprocess.run([badugi, "solve", "--out", str(Path(out) / "run"), "--no-charts"], capture_output=True,
                              text=True, cwd=out, check=True, env=dict(os.environ, NUMBA_CACHE_DIR=cache))
    return next(line for line in proc.stdout.splitlines() if line.startswith("done"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--badugi", action="append", help="a badugi executable (repeatable)")
    parser.add_argument("--install", action="store_true", help="also time venv and pip install -e . per run")
    parser.add_argument("--full", action="store_true", help="also run each one's whole default solve, cached")
    args = parser.parse_args()
    for run in range(1, args.runs + 1):
        for given in args.badugi or [str(ROOT / ".venv" / "bin" / "badugi")]:
            with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as home:
                badugi, steps = given, ""
                if args.install:
                    badugi, venv_s, pip_s = install(Path(home))
                    steps = f"venv {venv_s:.1f} s, pip install -e . {pip_s:.1f} s, "
                load = os.getloadavg()[0]
                cold, lines = first_iteration(badugi, cache)
                warm, _ = first_iteration(badugi, cache)
                said = [line.strip() for line in lines if line.startswith("compil")]
                print(f"run {run}, {given}: load {load:.2f}: {steps}cold {cold:.1f} s to iteration 1, warm {warm:.1f} s; "
                      f"{len(said)} compile line(s), the last: {said[-1] if said else None}", flush=True)
                if args.full:
                    load = os.getloadavg()[0]
                    print(f"run {run}, {given}: load {load:.2f}: full default solve, cached: {full_solve(badugi, cache)}",
                          flush=True)


if __name__ == "__main__":
    main()
