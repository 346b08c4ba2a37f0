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
    # The abandoned write left nothing (a first run's folder is made by its first write, if any).
    assert not out.exists() or [p.name for p in out.iterdir() if ".tmp" in p.name] == []
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


# -- every numeric setting has a range ---------------------------------------------------------

TINY = ("ranks = 3\nsuits = 2\nhand_size = 2\ndraws = 1\ncap = 1\nbets = [1.0, 2.0]\n"
        "small_blind = 0.5\nbig_blind = 1.0\n")


@pytest.mark.parametrize("key, value, message", [
    ("big_blind", "1e308", "big_blind: must be a number from 0.001 to 1000, got 1e+308"),
    ("small_blind", "1e-9", "small_blind: must be a number from 0.001 to 1000, got 1e-09"),
    ("big_blind", "inf", "big_blind: must be a number from 0.001 to 1000, got inf"),
    ("bets", "[1.0, 1e300]", "bets: each size a number from 0.001 to 1000, got 1e+300"),
    ("bets", "[1.0, nan]", "bets: each size a number from 0.001 to 1000, got nan"),
    ("bets", '"12"', "bets: must be a list of numbers, got '12'"),
    ("ranks", "14", "ranks: must be an integer from 1 to 13, got 14"),
    ("suits", "0", "suits: must be an integer from 1 to 4, got 0"),
    ("hand_size", "5", "hand_size: must be an integer from 1 to 4, got 5"),
    ("draws", "4", "draws: must be an integer from 0 to 3, got 4"),
    ("cap", "9", "cap: must be an integer from 1 to 8, got 9"),
    ("buckets", "[0, 10000]", "buckets: round 1 asks for 10000 buckets, but this game has only"),
    ("buckets", "[-1, 0]", "buckets: each count must be 0 (full resolution) or positive, got -1"),
    ("recall", "2", "recall: must be an integer from -1 to 1, got 2"),
])
def test_every_game_setting_has_a_range_checked_as_the_config_is_read(tmp_path, key, value, message):
    lines = [line for line in TINY.splitlines() if not line.startswith(f"{key} ")]
    path = tmp_path / "game.toml"
    path.write_text("\n".join(lines + [f"{key} = {value}"]) + "\n")
    for command in (["plan"], ["solve", "--iterations", "2", "--out", str(tmp_path / "run")]):
        proc = _cli(*command, "--config", str(path))
        _one_line_error(proc, f"config game.toml: {message}")
    assert not (tmp_path / "run").exists()


def test_blinds_and_bets_at_the_ends_of_their_ranges_solve(tmp_path):
    path = tmp_path / "game.toml"
    path.write_text(TINY.replace("big_blind = 1.0", "big_blind = 1000").replace("small_blind = 0.5",
                                                                                "small_blind = 0.001"))
    proc = _cli("solve", "--config", str(path), "--iterations", "3", "--out", str(tmp_path / "run"), "--quiet",
                "--no-charts")
    assert proc.returncode == 0, proc.stderr
    summary = (tmp_path / "run" / "summary.json").read_text()
    assert "NaN" not in summary and "Infinity" not in summary


def test_a_config_or_lock_file_that_is_not_utf8_is_named(tmp_path):
    path = tmp_path / "latin1.toml"
    path.write_bytes(TINY.encode() + "# caf\xe9\n".encode("latin-1"))
    _one_line_error(_cli("plan", "--config", str(path)), f"config {path}: not UTF-8 text")
    lock = tmp_path / "lock.toml"
    lock.write_bytes("# caf\xe9\n".encode("latin-1"))
    _one_line_error(_cli("solve", "--preset", "tiny-single-draw", "--lock", str(lock), "--iterations", "2",
                         "--out", str(tmp_path / "run")), f"lock file {lock}: not UTF-8 text")


@pytest.mark.parametrize("args, message", [
    (["eval", "--ranks", "0", "As"], "--ranks must be an integer from 1 to 13, got 0"),
    (["eval", "--suits", "5", "As"], "--suits must be an integer from 1 to 4, got 5"),
    (["eval", "--hand-size", "9", "As"], "--hand-size must be an integer from 1 to 4, got 9"),
    (["solve", "--iterations", "0"], "--iterations must be an integer of at least 1, got 0"),
    (["solve", "--check-every", "0", "--iterations", "3"], "--check-every must be an integer of at least 1, got 0"),
    (["solve", "--time-limit", "0"], "--time-limit must be a finite number above 0, got 0.0"),
    (["solve", "--time-limit", "-5"], "--time-limit must be a finite number above 0, got -5.0"),
    (["solve", "--time-limit", "nan"], "--time-limit must be a finite number above 0, got nan"),
    (["solve", "--time-limit", "inf"], "--time-limit must be a finite number above 0, got inf"),
    (["solve", "--target-exploitability", "0"], "--target-exploitability must be a finite number above 0, got 0.0"),
    (["solve", "--target-exploitability", "nan"], "--target-exploitability must be a finite number above 0"),
    (["solve", "--threads", "0"], "--threads must be an integer of at least 1, got 0"),
    (["solve", "--threads", "100000", "--iterations", "2"], "--threads must be 1 to"),
    (["solve", "--actors", "0", "--ray", "local"], "--actors must be an integer of at least 1, got 0"),
    (["solve", "--actor-cpus", "0", "--ray", "local"], "--actor-cpus must be a finite number above 0, got 0.0"),
    (["solve", "--resume", "--force", "--out", "somewhere"], "--resume continues the run in --out and --force"),
    (["solve", "--iterations", "many"], "argument --iterations: invalid int value: 'many'"),
    (["export", "nowhere", "--round", "-1"], "--round must be an integer of at least 0, got -1"),
    (["export", "nowhere", "--min-reach", "2"], "--min-reach must be a finite number from 0 to 1, got 2.0"),
    (["export", "nowhere", "--min-reach", "nan"], "--min-reach must be a finite number from 0 to 1, got nan"),
    (["match", "rule", "random", "--hands", "1"], "--hands must be an integer from 2 to 1,000,000,000, got 1"),
    (["match", "rule", "random", "--hands", "10000000000"], "--hands must be an integer from 2 to 1,000,000,000"),
    (["match", "rule", "random", "--seed", "-1"], "--seed must be an integer of at least 0, got -1"),
    (["explore", "nowhere", "--max-round", "-1"], "--max-round must be an integer of at least 0, got -1"),
    (["explore", "nowhere", "--max-mb", "0"], "--max-mb must be a finite number above 0, got 0.0"),
    (["explore", "nowhere", "--max-mb", "inf"], "--max-mb must be a finite number above 0, got inf"),
    (["plan", "--machines", "0"], "--machines must be an integer of at least 1, got 0"),
    (["plan", "--machines", "2", "--machine-memory", "-1", "--machine-cores", "4"],
     "--machine-memory must be a finite number above 0, got -1.0"),
    (["plan", "--machines", "2", "--machine-memory", "64", "--machine-cores", "0"],
     "--machine-cores must be an integer of at least 1, got 0"),
])
def test_every_numeric_option_has_a_range(tmp_path, args, message):
    proc = _cli(*args)
    _one_line_error(proc, f"badugi {args[0]}: error: {message}")


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny") / "run"
    proc = _cli("solve", "--preset", "tiny-single-draw", "--iterations", "5", "--out", str(out), "--quiet",
                "--no-charts")
    assert proc.returncode == 0, proc.stderr
    return out


def test_explore_max_round_beyond_the_game_is_refused(tiny_run, tmp_path):
    page = tmp_path / "page.html"
    proc = _cli("explore", str(tiny_run), "--max-round", "2", "--out", str(page))
    _one_line_error(proc, "--max-round must be 0 to 1 for single-draw Badugi", "got 2")
    assert not page.exists()
    assert _cli("explore", str(tiny_run), "--max-round", "1", "--out", str(page)).returncode == 0


# -- an error comes alone ----------------------------------------------------------------------

@pytest.mark.parametrize("args, message", [
    # A game too big for memory: refused before the "solving ..." header (and no directory made).
    (["solve", "--config", "{full}", "--iterations", "1", "--out", "{tmp}/big"], "more than this machine"),
    (["solve", "--preset", "tiny-no-draw", "--lock", "never-snows", "--iterations", "2", "--out", "{tmp}/locked"],
     "a badugi needs 4-card hands"),
    (["solve", "--out", "{run}", "--resume", "--preset", "tiny-no-draw", "--iterations", "9"],
     "checkpoint.npz is for single-draw Badugi"),
    (["solve", "--out", "{run}", "--resume", "--algorithm", "cfr", "--iterations", "9"], "was made with dcfr-ramp"),
    (["solve", "--out", "{run}", "--resume", "--lock", "never-raises", "--iterations", "9"],
     "was solved without a lock file"),
    (["show", "{run}", "--history", "", "--hand", "zz"], "bad card 'zz'"),
    (["match", "rule", "nobody", "--hands", "11"], "player 'nobody' is neither"),
])
def test_an_error_comes_alone_with_no_header_before_it(tiny_run, tmp_path, args, message):
    from solver.game.config import load_preset

    full = tmp_path / "full.toml"
    load_preset("triple-draw").at_full_resolution().save(full)
    args = [a.format(full=full, tmp=tmp_path, run=tiny_run) for a in args]
    proc = _cli(*args)
    _one_line_error(proc, message)
    assert not (tmp_path / "big").exists() and not (tmp_path / "locked").exists()
