"""A first solve with an empty Numba cache: what compiles before the first iteration, and how
the compilation is said (one line that ends, nothing printed twice)."""

from __future__ import annotations

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from numba import njit

from solver.cfr.compiling import CLEAR_LINE, compile_report

ROOT = Path(__file__).resolve().parents[1]

# Runs the CLI's solve in a fresh process and writes, after its output, one JSON line with the
# kernels Numba compiled (outermost only, with their argument types) before iteration 1.
PROBE = r"""
import json, sys
from numba.core import event

class Seen(event.Listener):
    depth, kernels, iterated = 0, [], False
    def on_start(self, ev):
        if self.depth == 0 and not self.iterated:
            self.kernels.append([ev.data["dispatcher"].py_func.__name__, str(ev.data["args"])])
        self.depth += 1
    def on_end(self, ev):
        self.depth -= 1

seen = Seen()
with event.install_listener("numba:compile", seen):
    import solver.cfr.solve as solve_module
    from solver.cli import main
    real = solve_module.solve
    def solve(*args, progress, **kwargs):
        def say(line):
            seen.iterated = seen.iterated or line.startswith("iter ")
            progress(line)
        return real(*args, progress=say, **kwargs)
    solve_module.solve = solve
    code = main(sys.argv[1:])
print(json.dumps(seen.kernels))
sys.exit(code)
"""


def test_a_cold_solve_compiles_one_walk_kernel_and_says_so_on_one_line(tmp_path):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty-cache")}
    proc = subprocess.run([sys.executable, "-c", PROBE, "solve", "--preset", "tiny-single-draw", "--iterations", "3",
                           "--out", str(tmp_path / "run")], capture_output=True, text=True, cwd=ROOT, env=env)
    assert proc.returncode == 0, proc.stderr
    *lines, kernels = proc.stdout.splitlines()
    compiled = [name for name, _ in json.loads(kernels)]
    # Every walk before the first progress line (update, best response, evaluate) runs one kernel,
    # compiled once: no per-policy copies, no kernel calling another that compiles it again.
    assert compiled.count("traverse") == 1, compiled
    assert not {"traverse_roots", "traverse_all", "traverse_cuts", "trunk_root"} & set(compiled), compiled
    # Each line once; the compilation before iteration 1 is one line, ended before the next.
    assert len(lines) == len(set(lines)), proc.stdout
    first_iteration = next(i for i, line in enumerate(lines) if line.startswith("iter      1 "))
    said = [line for line in lines[:first_iteration] if line.startswith("compil")]
    assert len(said) == 1, proc.stdout
    assert re.fullmatch(r"compiling the solver's kernels, once \(about \d+ s on 2 cores; later runs load them in "
                        r"about a second\) \.\.\. compiled \d+ kernels in \d+\.\d s", said[0]), said[0]
    # A later compilation (the strategy file's, the charts') is a line of its own, ended too.
    assert all(re.fullmatch(r"compiling \.\.\. compiled \d+ kernels? in \d+\.\d s", line)
               for line in lines[first_iteration:] if line.startswith("compil")), proc.stdout
    # With the kernels cached, a second solve says nothing about compiling the solver's kernels.
    again = subprocess.run([sys.executable, "-m", "solver.cli", "solve", "--preset", "tiny-single-draw",
                            "--iterations", "3", "--out", str(tmp_path / "again"), "--no-charts"],
                           capture_output=True, text=True, cwd=ROOT, env=env)
    assert again.returncode == 0, again.stderr
    assert not [line for line in again.stdout.splitlines() if line.startswith("compil")], again.stdout


def test_a_terminal_sees_one_status_line_rewritten_in_place():
    out = io.StringIO()
    with compile_report(out, "compiling the kernels", tty=True) as report:
        njit(lambda x: x + 1)(1)
        njit(lambda x: x + 2)(1)
        report.end_line()
        print("iter 1", file=out)
    text = out.getvalue()
    assert report.count == 2
    lines = text.split("\n")
    assert lines[1:] == ["iter 1", ""]
    # The first line: a status naming each kernel as it starts (cut to the terminal's width, so a
    # rewrite never leaves a wrapped row behind), then its end, all in place.
    states = lines[0].split(CLEAR_LINE)[1:]
    assert len(states) == 3
    assert all(s.startswith("compiling the kernels ... test_a_terminal_sees_one_status_line")
               and len(s) < shutil.get_terminal_size().columns for s in states[:2]), states
    assert re.fullmatch(r"compiling the kernels \.\.\. compiled 2 kernels in \d+\.\d s", states[-1])


def test_no_compilation_no_line():
    out = io.StringIO()
    with compile_report(out, tty=False) as report:
        report.end_line()
    assert out.getvalue() == "" and report.count == 0
