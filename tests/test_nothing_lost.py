"""Nothing a user makes is lost, and every example shown to a user runs.

Stops at any moment resume to the run done in one go, byte for byte; a run directory, an
output file or a checkpoint is never overwritten by accident or left half written; the
config parser answers any text with a ConfigError, never a traceback (card text:
tests/test_cards.py).
"""

import dataclasses
import importlib.util
import itertools
import json
import os
import re
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import solver.cfr.solve as solve_module
from abstractions.cards import format_cards
from solver.cfr.files import CHECKPOINT_NAME, STRATEGY_NAME, load_checkpoint
from solver.cfr.solve import solve
from solver.cli import build_parser, main
from solver.commands import kernels_cached
from solver.game.config import ConfigError, GameConfig, _parse_toml, load_preset, preset_names

ROOT = Path(__file__).resolve().parents[1]
ITERATIONS = 24


def _cli(*args, cwd=None, env=None, **kwargs):
    return subprocess.run([sys.executable, "-m", "solver.cli", *args], capture_output=True, text=True, cwd=cwd,
                          env=env, **kwargs)


def _one_line_error(proc, *needles):
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def one_go(tmp_path_factory):
    """The reference: tiny double draw (threads, cut walks) run in one go, per algorithm."""
    runs = {}
    for algorithm in ("dcfr", "cfr"):
        out = tmp_path_factory.mktemp(f"one-go-{algorithm}")
        solve(load_preset("tiny-double-draw"), algorithm=algorithm, iterations=ITERATIONS, out_dir=out)
        runs[algorithm] = (out / STRATEGY_NAME).read_bytes()
    return runs


def _interrupt_on(monkeypatch, target: str, call: int):
    """Send this process SIGINT from inside the ``call``-th call of ``target``: an engine method
    (``run_iterations``: in the middle of an iteration; ``progress_exploitability``: during a
    check) or ``save_checkpoint`` (while a checkpoint is written: ``Checkpoint.save``)."""
    calls = {"n": 0}

    def interrupting(original):
        def wrapped(*args, **kwargs):
            calls["n"] += 1
            if calls["n"] == call:
                os.kill(os.getpid(), signal.SIGINT)
            return original(*args, **kwargs)
        return wrapped

    if target == "save_checkpoint":
        monkeypatch.setattr(solve_module, "CHECKPOINT_SECONDS", 0.0)  # a checkpoint every pass, however
        monkeypatch.setattr(solve_module, "CHECKPOINT_SHARE", 0.0)    # long the last one took (a loaded machine)
        from solver.cfr.files import Checkpoint

        monkeypatch.setattr(Checkpoint, "save", interrupting(Checkpoint.save))
        return
    make_engine = solve_module.make_engine

    def make(*args, **kwargs):
        engine = make_engine(*args, **kwargs)
        setattr(engine, target, interrupting(getattr(engine, target)))
        return engine

    monkeypatch.setattr(solve_module, "make_engine", make)


@pytest.mark.parametrize("algorithm, target, call", [
    ("dcfr", "run_iterations", 1),              # during the first iteration
    ("dcfr", "run_iterations", 9),              # mid-run
    ("dcfr", "run_iterations", ITERATIONS),     # during the last iteration
    ("dcfr", "progress_exploitability", 3),     # during an exploitability check
    ("dcfr", "save_checkpoint", 2),             # while a checkpoint is written
    ("cfr", "run_iterations", 7),
])
def test_a_stop_at_any_moment_then_resume_is_the_run_done_in_one_go(one_go, tmp_path, monkeypatch,
                                                                    algorithm, target, call):
    config = load_preset("tiny-double-draw")
    out = tmp_path / "run"
    # (Python's default handler, or SIG_IGN where the shell started the tests in the background.)
    handler = signal.getsignal(signal.SIGINT)
    with monkeypatch.context() as patch:
        _interrupt_on(patch, target, call)
        with pytest.raises(KeyboardInterrupt):
            # Checks (and so passes and checkpoints) every 4 iterations, not by the clock: the
            # call interrupted is mid-run however slow the machine (a pass sized by time could
            # make the second checkpoint the last one, written after the handler is given back).
            solve(config, algorithm=algorithm, iterations=ITERATIONS, out_dir=out, check_every=4)
    stopped_at = int(load_checkpoint(out / CHECKPOINT_NAME)["iteration"])
    assert 1 <= stopped_at <= ITERATIONS
    assert signal.getsignal(signal.SIGINT) is handler  # the handler is given back
    solve(config, algorithm=algorithm, iterations=ITERATIONS, out_dir=out, resume=True)
    assert (out / STRATEGY_NAME).read_bytes() == one_go[algorithm]


def test_a_second_signal_stops_at_once_and_keeps_the_last_checkpoint(tmp_path, monkeypatch):
    config = load_preset("tiny-double-draw")
    out = tmp_path / "run"
    solve(config, iterations=5, out_dir=out)
    before = (out / CHECKPOINT_NAME).read_bytes()
    original = solve_module.make_engine

    def make(*args, **kwargs):
        engine = original(*args, **kwargs)
        run = engine.run_iterations

        def twice(n):
            if engine.iteration == 7:
                os.kill(os.getpid(), signal.SIGINT)
                os.kill(os.getpid(), signal.SIGINT)
            return run(n)
        engine.run_iterations = twice
        return engine

    monkeypatch.setattr(solve_module, "make_engine", make)
    monkeypatch.setattr(solve_module, "CHECKPOINT_SECONDS", 1e9)
    with pytest.raises(KeyboardInterrupt):
        solve(config, iterations=30, out_dir=out, resume=True)
    assert (out / CHECKPOINT_NAME).read_bytes() == before


def test_a_solve_killed_while_writing_checkpoints_leaves_one_that_loads(tmp_path):
    """SIGKILL at random moments of a run that writes a checkpoint every pass: whatever is on
    disk afterwards is a whole checkpoint (or none yet), never a damaged one."""
    out = tmp_path / "run"
    script = ("import solver.cfr.solve as s; s.CHECKPOINT_SECONDS = 0.0; "
              "from solver.game.config import load_preset; "
              f"s.solve(load_preset('tiny-double-draw'), iterations=10**8, out_dir={str(out)!r}, check_every=10**6)")
    rng = np.random.default_rng(7)
    loaded = 0
    for _ in range(4):
        proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT)
        deadline = time.time() + 120
        while time.time() < deadline and not (out / CHECKPOINT_NAME).exists():
            time.sleep(0.05)
        time.sleep(float(rng.uniform(0.0, 1.0)))
        proc.kill()
        proc.wait()
        data = load_checkpoint(out / CHECKPOINT_NAME)
        assert int(data["iteration"]) >= 1
        loaded += 1
        leftovers = [p.name for p in out.iterdir() if ".tmp" in p.name]
        for name in leftovers:  # a killed writer's temporary file is never read
            (out / name).unlink()
    assert loaded == 4


def _limit_file_size(size):
    def limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails with EFBIG
        resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    return limit


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny") / "run"
    proc = _cli("solve", "--preset", "tiny-single-draw", "--iterations", "30", "--out", str(out), "--quiet")
    assert proc.returncode == 0, proc.stderr
    return out


def test_a_full_disk_is_a_one_line_error_and_earlier_files_stand(tiny_run, tmp_path):
    # A strategy and checkpoint: the run directory's earlier files are kept whole.
    out = tmp_path / "run"
    assert _cli("solve", "--preset", "tiny-double-draw", "--iterations", "5", "--out", str(out),
                "--quiet", "--no-charts").returncode == 0
    files = {p.name: p.read_bytes() for p in out.iterdir()}
    big = max(len(files[CHECKPOINT_NAME]), len(files[STRATEGY_NAME]))
    proc = _cli("solve", "--out", str(out), "--resume", "--iterations", "10", "--quiet", "--no-charts",
                preexec_fn=_limit_file_size(big // 2))
    _one_line_error(proc, "File too large")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == files
    # An export.
    keep = tmp_path / "keep.csv"
    keep.write_text("mine\n")
    proc = _cli("export", str(tiny_run), "--format", "csv", "--out", str(keep), "--force",
                preexec_fn=_limit_file_size(4096))
    _one_line_error(proc, "File too large")
    assert keep.read_text() == "mine\n" and [p.name for p in tmp_path.iterdir() if ".tmp" in p.name] == []


# -- the numbered points of "nothing lost, every example true" -------------------------------------

def test_1_an_interrupted_cli_run_resumes_to_the_bytes_of_one_go(tmp_path):
    out = tmp_path / "run"
    # As from a terminal: a shell's background job would start with SIGINT ignored.
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "solve", "--preset", "tiny-double-draw",
                             "--iterations", "100000000", "--out", str(out), "--check-every", "5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    while time.time() < deadline and "iter" not in proc.stdout.readline():
        pass
    time.sleep(0.3)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130 and "Traceback" not in stderr
    assert re.fullmatch(r"badugi solve: interrupted at iteration \d+; checkpoint written to .*--resume\)\n", stderr)
    done = int(load_checkpoint(out / CHECKPOINT_NAME)["iteration"])
    # What game and algorithm a checkpoint is, read without its storage (the CLI's first look: a
    # second copy of the triple-draw preset's 9.6 GB would not fit beside the solve's).
    light = load_checkpoint(out / CHECKPOINT_NAME, storage=False)
    assert light["regret"] is None and light["strat_sum"] is None and int(light["iteration"]) == done
    assert light["config"] == load_checkpoint(out / CHECKPOINT_NAME)["config"]
    assert _cli("solve", "--out", str(out), "--resume", "--iterations", str(done + 3), "--quiet",
                "--no-charts").returncode == 0
    whole = tmp_path / "whole"
    assert _cli("solve", "--preset", "tiny-double-draw", "--iterations", str(done + 3), "--out", str(whole),
                "--quiet", "--no-charts").returncode == 0
    assert (out / STRATEGY_NAME).read_bytes() == (whole / STRATEGY_NAME).read_bytes()


def test_2_a_run_directory_is_not_overwritten_without_force(tiny_run, tmp_path):
    out = tmp_path / "run"
    args = ["solve", "--preset", "tiny-no-draw", "--iterations", "3", "--out", str(out), "--quiet", "--no-charts"]
    assert _cli(*args).returncode == 0
    before = (out / STRATEGY_NAME).read_bytes()
    again = _cli(*args)
    _one_line_error(again, "holds a run already", "--force")
    other = _cli("solve", "--preset", "tiny-single-draw", "--iterations", "3", "--out", str(out), "--quiet")
    _one_line_error(other, "holds a run already")
    assert (out / STRATEGY_NAME).read_bytes() == before
    forced = _cli("solve", "--preset", "tiny-single-draw", "--iterations", "3", "--out", str(out), "--quiet",
                  "--no-charts", "--force")
    assert forced.returncode == 0 and (out / STRATEGY_NAME).read_bytes() != before


@pytest.mark.parametrize("make_out", ["an existing file", "below a file", "unwritable"])
def test_3_a_bad_out_is_refused_before_any_work(tmp_path, make_out):
    if make_out == "unwritable" and os.geteuid() == 0:
        out = Path("/proc/badugi-run")  # root writes anywhere else
    elif make_out == "unwritable":
        (tmp_path / "ro").mkdir(mode=0o500)
        out = tmp_path / "ro" / "run"
    else:
        (tmp_path / "file").write_text("mine")
        out = tmp_path / "file" if make_out == "an existing file" else tmp_path / "file" / "run"
    proc = _cli("solve", "--preset", "tiny-double-draw", "--iterations", "100000", "--out", str(out))
    _one_line_error(proc, "--out")
    assert "iter" not in proc.stdout  # refused before solving
    if make_out != "unwritable":
        assert (tmp_path / "file").read_text() == "mine"


def test_4_a_failing_export_leaves_an_existing_file_as_it_was(tiny_run, tmp_path):
    keep = tmp_path / "keep.json"
    keep.write_text('{"mine": 1}')
    proc = _cli("export", str(tiny_run), "--prefix", "zz/", "--out", str(keep), "--force")
    _one_line_error(proc)
    assert keep.read_text() == '{"mine": 1}'


def test_5_show_and_reach_say_when_a_hand_never_gets_there(tmp_path):
    from solver.tables.strategy import NEGLIGIBLE_REACH, load_strategy

    run = tmp_path / "run"
    solve(load_preset("tiny-single-draw"), iterations=300, out_dir=run)
    strategy = load_strategy(run)
    ev = strategy.evaluator
    # A decision point that some classes practically never reach, others often.
    found = None
    for batch in strategy.stats():
        for i, node in enumerate(batch.nodes):
            reach = batch.reach_of(i, int(strategy.tree.seat[node]))
            if reach.min() < NEGLIGIBLE_REACH and reach.max() > 1e-3:
                found = strategy.tree.history(int(node)), reach
                break
        if found:
            break
    history, reach = found
    never, often = int(np.argmin(reach)), int(np.argmax(reach))
    hand_of = {}
    for cards in itertools.combinations(range(ev.deck.n_cards), ev.hand_size):
        hand_of.setdefault(ev.evaluate(np.array(cards)), cards)
    rare, some = format_cards(hand_of[never], ev.deck), format_cards(hand_of[often], ev.deck)
    assert strategy.reach(history, rare) == reach[never] and strategy.reach(history, some) == reach[often]
    shown = _cli("show", str(run), "--history", history, "--hand", rare)
    assert shown.returncode == 0 and f"reach: {reach[never]:.3g}: with this hand" in shown.stdout
    assert "never gets here" in shown.stdout
    shown = _cli("show", str(run), "--history", history, "--hand", some)
    assert shown.returncode == 0 and f"reach: {reach[often]:.3g} (hands" in shown.stdout


def test_6_plan_lists_the_presets(capsys):
    assert main(["plan", "--preset", "list"]) == 0
    out = capsys.readouterr().out
    for name in preset_names():
        assert re.search(rf"^{re.escape(name)}\s", out, re.M)


def test_7_a_triple_draw_match_needs_no_tree(capsys):
    assert main(["match", "rule", "random", "--preset", "triple-draw", "--hands", "2000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["game"].startswith("triple-draw Badugi, cap 4") and data["games"] == 2000


def test_8_export_filters_that_match_nothing_say_so(tiny_run, tmp_path):
    out = tmp_path / "rows.json"
    proc = _cli("export", str(tiny_run), "--format", "json", "--round", "0", "--prefix", "ck/", "--kind", "bet",
                "--out", str(out))
    _one_line_error(proc, "no row", "--prefix ck/", "nothing written")
    assert not out.exists()


def test_9_more_buckets_than_classes_and_odd_hands_are_not_silent(capsys):
    with pytest.raises(ConfigError, match="only 1092 value classes"):
        GameConfig(draws=1, buckets=(4000, 0))
    assert main(["match", "rule", "random", "--preset", "tiny-single-draw", "--hands", "1001", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["games"] == 1002 and "rounded up to 1,002" in captured.err


def test_10_a_first_solve_says_it_is_compiling(tmp_path, monkeypatch, capsys):
    probe = "from solver.commands import kernels_cached; print(kernels_cached())"
    cold = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "empty-cache")})
    assert cold.stdout.strip() == "False", cold.stderr
    solve(load_preset("tiny-no-draw"), iterations=1)  # compiled and cached by now
    assert kernels_cached()
    monkeypatch.setattr("solver.commands.kernels_cached", lambda: False)
    assert main(["solve", "--preset", "tiny-no-draw", "--iterations", "2", "--out", str(tmp_path / "r"),
                 "--no-charts"]) == 0
    # Nothing compiled (the kernels are in the cache after all): nothing said about compiling.
    assert "compiling" not in capsys.readouterr().out
    # What Numba compiles during the solve is said on one line with its count and seconds (a new
    # kernel here, since the solver's own are cached by now).
    import numba

    from solver.cfr import solve as solve_module

    real = solve_module.solve

    def solve_compiling(*args, **kwargs):
        numba.njit(lambda x: 2 * x)(3)
        return real(*args, **kwargs)

    monkeypatch.setattr(solve_module, "solve", solve_compiling)
    assert main(["solve", "--preset", "tiny-no-draw", "--iterations", "2", "--out", str(tmp_path / "r2"),
                 "--no-charts"]) == 0
    assert re.search(r"^compiling the solver's kernels, once \(.*\) \.\.\. compiled 1 kernel in \d+\.\d s$",
                     capsys.readouterr().out, re.M)
    assert main(["solve", "--preset", "tiny-no-draw", "--iterations", "2", "--out", str(tmp_path / "r3"),
                 "--no-charts", "--quiet"]) == 0
    assert "compiling" not in capsys.readouterr().out


def test_11_eval_says_when_hands_share_a_card():
    proc = _cli("eval", "As2h3d4c", "As5h6d7c")
    assert proc.returncode == 0 and "share A" in proc.stderr and "cannot both be dealt" in proc.stderr
    apart = _cli("eval", "As2h3d4c", "Ah5s6c7d")
    assert apart.returncode == 0 and apart.stderr == ""


def test_12_version(capsys):
    assert main(["--version"]) == 0 and re.fullmatch(r"badugi \d+\.\d+\.\d+\n", capsys.readouterr().out)


# -- every example shown to a user runs ------------------------------------------------------------

TINY_BUCKETED = "tiny-bucketed.toml"


def _smaller(command: str) -> str:
    """An example made small enough for a test: big games swapped for tiny ones, long stopping
    rules for a few iterations, a million hands for a few thousand."""
    words = shlex.split(command)
    if words[0] != "badugi":
        return command  # a shell line that sets up an example (a config written with printf): as it is
    if words[:2] == ["badugi", "solve"]:
        words = [w for w in words]
        for rule in ("--time-limit", "--target-exploitability", "--iterations"):
            while rule in words:
                at = words.index(rule)
                del words[at:at + 2]
        # (A warm start goes on from its run's 3 iterations: 3 more. Certificates at fractions of the
        # time limit need one: a few seconds.)
        if "--certify-at" in words:
            words += ["--time-limit", "4", "--no-charts"]
        else:
            words += ["--iterations", "6" if "--warm-start" in words else "3", "--no-charts"]
        if "--resume" not in words:
            words.append("--force")
        swap = {"double-draw": "tiny-double-draw", "triple-draw-bucketed": None, "triple-draw": None}
        if "--preset" in words:
            at = words.index("--preset") + 1
            if words[at] in swap:
                if swap[words[at]] is None:
                    words[at - 1:at + 1] = ["--config", TINY_BUCKETED]
                else:
                    words[at] = swap[words[at]]
    if any(w.startswith(("runs/triple-draw-cap4", "results/triple-draw-cap4")) for w in words) and "--hand" in words:
        words[words.index("--hand") + 1] = "As2h"  # the cap-4 stand-ins are a tiny triple draw: one of its hands
    if words[:2] == ["badugi", "explore"] and not {"--out", "--prefix", "--max-round"} & set(words):
        # a served page (a game whose tree is never built, or --serve): on any free port, a moment
        if "--port" in words:
            at = words.index("--port")
            del words[at:at + 2]
        words += ["--port", "0", "--stop-after", "2"]
    if words[:2] == ["badugi", "match"]:
        if "--hands" in words:
            words[words.index("--hands") + 1] = "2000"
        else:
            words += ["--hands", "2000"]
    return shlex.join(words)


def _readme_examples() -> list[str]:
    """Every command of the README and of the guide's chapters in docs/."""
    text = "\n".join(path.read_text() for path in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))])
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        for line in block.splitlines():
            line = line.split("  #")[0].strip()
            if line and not line.startswith("#") and "python3 -m venv" not in line:
                commands.append(line)
    return commands


def _help_examples() -> list[str]:
    parser = build_parser()
    epilogs = [parser.epilog] + [p.epilog for p in parser._subparsers._group_actions[0].choices.values()]
    commands = []
    for epilog in epilogs:
        for line in (epilog or "").splitlines():
            match = re.match(r"\s+((?:echo .*?\| )?badugi .*?)(?:\s{2,}.*)?$", line)
            if match and match.group(1) not in commands:
                commands.append(match.group(1))
    return commands


@pytest.fixture
def example_dir(tmp_path, tree_less_run):
    """A working folder as a user's after the examples before: runs to show, a config to plan."""
    tiny = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 4, 2))
    tiny.save(tmp_path / TINY_BUCKETED)
    load_preset("tiny-single-draw").save(tmp_path / "my.toml")
    for run, preset in (("runs/a", "tiny-single-draw"), ("runs/b", "tiny-single-draw")):
        assert _cli("solve", "--preset", preset, "--iterations", "3", "--out", run, "--quiet",
                    cwd=tmp_path).returncode == 0
    # The committed cap-4 triple-draw run stands in as a tiny triple draw solved without its tree
    # (enough iterations that its raised first round is reached, as the examples' prefixes ask),
    shutil.copytree(tree_less_run(40), tmp_path / "runs" / "triple-draw-cap4")
    # and its compact strategy for the committed one (results/triple-draw-cap4/compact: a store of
    # 86 MB whose rows would take 10.6 GB as float32)
    from solver.tables.compact import make_compact

    make_compact(tmp_path / "runs" / "triple-draw-cap4", tmp_path / "results" / "triple-draw-cap4" / "compact",
                 bits=6, min_reach=2e-7)
    return tmp_path


def _run_examples(commands, cwd):
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    failed = []
    if importlib.util.find_spec("ray") is None and not os.environ.get("BADUGI_REQUIRE_RAY"):
        commands = [c for c in commands if "--ray" not in c]  # the optional extra is not installed
    for command in commands:
        small = _smaller(command) if not command.startswith("echo") else command
        proc = subprocess.run(["bash", "-c", small], capture_output=True, text=True, cwd=cwd, env=env,
                              timeout=600, stdin=subprocess.DEVNULL)  # (badugi play: no keys, no hands)
        if proc.returncode != 0 or "Traceback" in proc.stderr:
            failed.append(f"{small}: exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
    assert not failed, "\n".join(failed)


def test_every_readme_example_runs(example_dir):
    commands = _readme_examples()
    assert len(commands) >= 15 and any(c.startswith("badugi solve") for c in commands)
    _run_examples(commands, example_dir)
    # The Python examples, with what they print: tests/test_readme.py.


def test_every_help_example_runs(example_dir):
    commands = _help_examples()
    assert len(commands) >= 15
    _run_examples(commands, example_dir)


# -- parsers never answer with a traceback -----------------------------------------------------------

@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_any_toml_text_is_a_config_or_a_config_error(text):
    try:
        config = _parse_toml(text, "fuzz")
    except ConfigError:
        return
    assert isinstance(config, GameConfig)


_TOML_KEYS = ["ranks", "suits", "hand_size", "draws", "cap", "bets", "small_blind", "big_blind", "buckets",
              "recall", "pat_snow_break", "nope"]
_TOML_VALUES = st.one_of(st.integers(-5, 10**6), st.floats(allow_nan=True), st.booleans(),
                         st.text(max_size=5), st.lists(st.one_of(st.integers(-3, 5000), st.floats()), max_size=6))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(_TOML_KEYS), _TOML_VALUES, max_size=6))
def test_any_config_values_are_a_config_or_a_config_error(values):
    def toml(value):
        if isinstance(value, bool):
            return "true" if value else "false"
        if isinstance(value, list):
            return "[" + ", ".join(toml(v) for v in value) + "]"
        if isinstance(value, float):
            return {"nan": "nan", "inf": "inf", "-inf": "-inf"}.get(repr(value), repr(value))
        return json.dumps(value)
    text = "\n".join(f"{key} = {toml(value)}" for key, value in values.items())
    try:
        config = _parse_toml(text, "fuzz")
    except ConfigError:
        return
    assert isinstance(config, GameConfig)
