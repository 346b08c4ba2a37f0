"""The command line refuses what makes no sense before doing or printing anything, and says what a
stop kept.

A second Ctrl-C while a stopped solve writes its checkpoint leaves the previous checkpoint whole
and says so; every numeric setting (game config keys and command-line options) has a range,
checked up front with a one-line error naming the setting; an error comes alone, with no header
line printed before it.
"""

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from solver.cfr.files import CHECKPOINT_NAME, TEST_PAUSE_VARIABLE, load_checkpoint

ROOT = Path(__file__).resolve().parents[1]


def _cli(*args, **kwargs):
    return subprocess.run([sys.executable, "-m", "solver.cli", *args], capture_output=True, text=True, cwd=ROOT,
                          **kwargs)


def _one_line_error(proc, *needles):
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stdout == "", proc.stdout  # nothing printed before the error
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


# -- a second Ctrl-C while the checkpoint is written -------------------------------------------

class _Solve:
    """A `badugi solve` in a subprocess whose checkpoint writes pause ``pause`` seconds before
    replacing the file; its progress lines are read as they come."""

    def __init__(self, *args, pause: float):
        env = dict(os.environ, **{TEST_PAUSE_VARIABLE: str(pause)})
        # As from a terminal: a shell's background job would start with SIGINT ignored.
        self.proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "solve", *args], cwd=ROOT, env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)

    def wait_for(self, start: str, timeout: float = 240.0) -> str:
        deadline = time.time() + timeout
        while time.time() < deadline:
            try:
                line = self.lines.get(timeout=1.0)
            except queue.Empty:
                if self.proc.poll() is not None and self.lines.empty():
                    break
                continue
            if line.startswith(start):
                return line
        self.proc.kill()
        pytest.fail(f"no line starting {start!r}; stderr: {self.proc.stderr.read()}")

    def finish(self) -> str:
        stderr = self.proc.stderr.read()
        self.proc.wait(timeout=120)
        return stderr


def _interrupt_twice(out: Path, *args) -> tuple[int, str]:
    """Interrupt a solve while iterating, then again while it writes the checkpoint."""
    run = _Solve("--out", str(out), "--iterations", "100000000", "--check-every", "1", "--no-charts", *args,
                 pause=60.0)
    run.wait_for("iter ")
    run.proc.send_signal(signal.SIGINT)
    line = run.wait_for("writing the checkpoint of iteration")
    iteration = int(re.search(r"iteration (\d+)", line)[1])
    run.proc.send_signal(signal.SIGINT)
    stderr = run.finish()
    assert run.proc.returncode == 130, stderr
    assert [p.name for p in out.iterdir() if ".tmp" in p.name] == []  # the abandoned write left nothing
    return iteration, stderr


def test_a_second_ctrl_c_during_the_checkpoint_write_keeps_the_previous_checkpoint(tmp_path):
    out = tmp_path / "run"
    first = _cli("solve", "--preset", "tiny-single-draw", "--iterations", "20", "--out", str(out), "--quiet",
                 "--no-charts")
    assert first.returncode == 0, first.stderr
    before = (out / CHECKPOINT_NAME).read_bytes()
    iteration, stderr = _interrupt_twice(out, "--resume")
    assert iteration > 20
    assert stderr == (f"badugi solve: interrupted again while writing the checkpoint of iteration {iteration}: "
                      f"the previous checkpoint at {out / CHECKPOINT_NAME} (iteration 20) is kept "
                      "(continue with --resume)\n")
    assert (out / CHECKPOINT_NAME).read_bytes() == before
    again = _cli("solve", "--out", str(out), "--resume", "--iterations", "25", "--quiet", "--no-charts")
    assert again.returncode == 0, again.stderr
    assert int(load_checkpoint(out / CHECKPOINT_NAME, storage=False)["iteration"]) == 25


def test_a_second_ctrl_c_during_the_first_checkpoint_write_says_none_was_written(tmp_path):
    out = tmp_path / "run"
    iteration, stderr = _interrupt_twice(out, "--preset", "tiny-single-draw")
    assert stderr == (f"badugi solve: interrupted again while writing the checkpoint of iteration {iteration}: "
                      "no checkpoint written\n")
    assert not (out / CHECKPOINT_NAME).exists()
    resume = _cli("solve", "--out", str(out), "--resume", "--iterations", "5")
    _one_line_error(resume, f"no checkpoint file at {out / CHECKPOINT_NAME}")


def test_one_ctrl_c_waits_for_the_checkpoint_write_and_says_it_was_written(tmp_path):
    out = tmp_path / "run"
    run = _Solve("--preset", "tiny-single-draw", "--out", str(out), "--iterations", "100000000", "--check-every",
                 "1", "--no-charts", pause=1.0)
    run.wait_for("iter ")
    run.proc.send_signal(signal.SIGINT)
    line = run.wait_for("writing the checkpoint of iteration")
    iteration = int(re.search(r"iteration (\d+)", line)[1])
    stderr = run.finish()
    assert run.proc.returncode == 130
    assert stderr == (f"badugi solve: interrupted at iteration {iteration}; checkpoint written to "
                      f"{out / CHECKPOINT_NAME} (continue with --resume)\n")
    assert int(load_checkpoint(out / CHECKPOINT_NAME, storage=False)["iteration"]) == iteration
