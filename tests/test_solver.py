"""The CFR engine against independent references: sequence-form LPs and brute-force best responses."""

import json
import subprocess
import sys

import numba
import numpy as np
import pytest

import reference_game as ref
from abstractions.evaluator import get_evaluator
from solver.checkpoint import CHECKPOINT_NAME, CheckpointError
from solver.cli import main
from solver.config import GameConfig, load_preset
from solver.engine import ALGORITHMS, Engine, Schedule, SolveTooLarge
from solver.solve import solve
from solver.tree import DRAW

# Tiny games small enough for an explicit perfect-recall tree with real cards.
# (ranks, suits, hand size, draws, cap, bets); the last two take a minute or more of LP.
LP_GAMES = {
    "no-draw cap 2, 2-card hands": GameConfig(ranks=3, suits=2, hand_size=2, draws=0, cap=2, bets=(1.0,)),
    "no-draw cap 1, 3-card hands": GameConfig(ranks=3, suits=3, hand_size=3, draws=0, cap=1, bets=(1.0,)),
    "one draw cap 1, 2-card hands": GameConfig(ranks=3, suits=2, hand_size=2, draws=1, cap=1, bets=(1.0, 2.0)),
    "one draw cap 2, 2-card hands": GameConfig(ranks=3, suits=2, hand_size=2, draws=1, cap=2, bets=(1.0, 2.0)),
    "one draw cap 1, 3 suits": GameConfig(ranks=3, suits=3, hand_size=2, draws=1, cap=1, bets=(1.0, 2.0)),
    "one draw cap 2, 4 ranks": GameConfig(ranks=4, suits=2, hand_size=2, draws=1, cap=2, bets=(1.0, 2.0)),
    "one draw cap 1, 3-card hands": GameConfig(ranks=3, suits=3, hand_size=3, draws=1, cap=1, bets=(1.0, 2.0)),
}
SLOW_LP_GAMES = {"one draw cap 2, 4 ranks", "one draw cap 1, 3-card hands"}


def _ref_args(cfg: GameConfig):
    return (cfg.ranks, cfg.suits, cfg.hand_size, cfg.draws, cfg.cap, cfg.bets)


def engine_policy(engine: Engine):
    """policy(seat, history, hand) over the engine's average strategy, for the reference code."""
    evaluator = get_evaluator(engine.config.ranks, engine.config.suits, engine.config.hand_size)
    tree = engine.tree
    cache = {}

    def policy(seat, history, hand):
        node = tree.node_at(history)
        assert tree.seat[node] == seat, (history, seat)
        if node not in cache:
            cache[node] = engine.average_strategy(node)
        value = evaluator.evaluate(np.array(hand))
        labels = [chr(tree.action[c]) for c in tree.children(node)]
        return {label: float(p) for label, p in zip(labels, cache[node][:, value]) if p > 0}

    return policy


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW_LP_GAMES else name
                                  for name in LP_GAMES])
def test_cfr_matches_sequence_form_lp(name):
    """The value-class CFR reaches the game value of the real-card game: value classes lose nothing."""
    cfg = LP_GAMES[name]
    lp_value = ref.solve_lp(*_ref_args(cfg), method="highs-ipm")
    engine = Engine(cfg)
    x = None
    while engine.iteration < 10_000 and (x is None or x.exploitability_mbb >= 0.01):
        engine.run_iterations(1000)
        x = engine.exploitability()
    assert x.exploitability_mbb < 0.01
    assert x.game_value == pytest.approx(lp_value, abs=1e-4)


@pytest.mark.parametrize("name", ["one draw cap 1, 2-card hands", "no-draw cap 2, 2-card hands"])
def test_best_response_agrees_with_brute_force_on_the_real_tree(name):
    cfg = LP_GAMES[name]
    engine = Engine(cfg)
    engine.run_iterations(40)  # some strategy that is far from equilibrium
    ours = engine.exploitability()
    br_button, br_bb, value = ref.best_response_values(*_ref_args(cfg), engine_policy(engine))
    assert ours.br_button == pytest.approx(br_button, abs=1e-9)
    assert ours.br_big_blind == pytest.approx(br_bb, abs=1e-9)
    assert ours.game_value == pytest.approx(value, abs=1e-9)


def _uniform(node, tree):
    return np.ones((tree.n_children[node], 1))


def _always_call(node, tree):
    # Call or check with everything; stand pat at draws.
    labels = [chr(tree.action[c]) for c in tree.children(node)]
    row = np.array([1.0 if label in "ck0" else 0.0 for label in labels])
    return row[:, None]


@pytest.mark.parametrize("fill", [_uniform, _always_call], ids=["uniform", "always-call"])
@pytest.mark.parametrize("name", ["one draw cap 1, 2-card hands", "no-draw cap 2, 2-card hands"])
def test_fixed_strategies_exploitability_two_ways(name, fill):
    cfg = LP_GAMES[name]
    engine = Engine(cfg)
    engine.set_average_strategy(lambda node, tree: np.broadcast_to(fill(node, tree),
                                                                    (tree.n_children[node], engine.n_states)))
    ours = engine.exploitability()
    br_button, br_bb, value = ref.best_response_values(*_ref_args(cfg), engine_policy(engine))
    assert ours.exploitability == pytest.approx((br_button + br_bb) / 2, abs=1e-9)
    assert ours.game_value == pytest.approx(value, abs=1e-9)
    assert ours.exploitability > 0.05  # far from equilibrium


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("preset", ["tiny-no-draw", "tiny-single-draw"])
def test_every_algorithm_converges(algorithm, preset):
    engine = Engine(load_preset(preset), algorithm)
    engine.run_iterations(20)
    early = engine.exploitability().exploitability_mbb
    engine.run_iterations(1500)
    late = engine.exploitability().exploitability_mbb
    assert late < early / 10
    assert late < (5.0 if algorithm == "cfr" else 0.5)


def test_schedules():
    dcfr = Schedule("dcfr")
    pos, neg, floor, sum_scale, weight = dcfr.params(5)
    assert pos == pytest.approx(4 ** 1.5 / (4 ** 1.5 + 1))
    assert neg == 0.5 and floor == 0.0 and weight == 1.0
    assert sum_scale == pytest.approx((4 / 5) ** 2)
    assert list(Schedule("cfr+").params(7)) == [1.0, 1.0, 1.0, 1.0, 7.0]
    assert list(Schedule("cfr").params(7)) == [1.0, 1.0, 0.0, 1.0, 1.0]
    assert Schedule("linear").params(3)[0] == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="unknown algorithm"):
        Schedule("sgd")


def test_average_strategy_is_a_distribution_over_legal_actions():
    engine = Engine(load_preset("tiny-double-draw"))
    engine.run_iterations(30)
    legal = engine.model.legal
    for node in np.nonzero(engine.tree.kind <= DRAW)[0][::7]:
        strategy = engine.average_strategy(int(node))
        assert np.allclose(strategy.sum(axis=0), 1.0)
        if engine.tree.kind[node] == DRAW:
            assert np.all(strategy.T[~legal[:, :strategy.shape[0]]] == 0.0)


def test_parallel_walk_is_deterministic_and_thread_independent():
    cfg = GameConfig(draws=1, cap=1, bets=(1.0, 2.0))  # big enough for the parallel path
    results = []
    for threads in (1, numba.config.NUMBA_NUM_THREADS, numba.config.NUMBA_NUM_THREADS):
        numba.set_num_threads(threads)
        try:
            engine = Engine(cfg)
            assert engine.threads() == threads
            engine.run_iterations(5)
            results.append((engine.regret.copy(), engine.strat_sum.copy(), engine.exploitability()))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    for regret, sums, x in results[1:]:
        assert np.array_equal(regret, results[0][0])
        assert np.array_equal(sums, results[0][1])
        assert x == results[0][2]


@pytest.mark.parametrize("level", ["big blind's draws", "button's draws", "second round"])
def test_where_walks_cut_changes_nothing(monkeypatch, level):
    """Walks cut at the first draws when there are enough subtrees per thread; results are the
    same bits as one uncut walk, and strategy tables (which cut at the second round) agree."""
    import solver.engine as engine_module
    from solver import kernels
    from solver.strategy import Strategy, _subtree_ends

    cfg = GameConfig(draws=2, cap=1, bets=(1.0, 1.0, 2.0))
    uncut = Engine(cfg)
    uncut._walk_cuts = uncut._cut_arrays(np.zeros(uncut.tree.n_nodes, dtype=bool))
    threads = numba.config.NUMBA_NUM_THREADS
    tree = uncut.tree
    first = (tree.kind == DRAW) & (tree.round == 0)
    n_big_blind = int((first & (tree.kind[np.maximum(tree.parent, 0)] != DRAW)).sum())
    n_button = int((first & (tree.kind[np.maximum(tree.parent, 0)] == DRAW)).sum())
    assert n_big_blind < n_button < len(uncut.cut_nodes)
    per_thread = {"big blind's draws": n_big_blind, "button's draws": n_button,
                  "second round": len(uncut.cut_nodes)}[level] / threads
    monkeypatch.setattr(engine_module, "CUTS_PER_THREAD", per_thread)
    monkeypatch.setattr(engine_module, "PARALLEL_MIN_ENTRIES", 0)  # the parallel path, even if small
    cut = Engine(cfg)
    assert len(cut._walk_cuts[0]) == per_thread * threads
    for engine in (uncut, cut):
        engine.run_iterations(4)
    assert np.array_equal(cut.regret, uncut.regret)
    assert np.array_equal(cut.strat_sum, uncut.strat_sum)
    assert cut.exploitability() == uncut.exploitability()
    # Strategy tables record through whole-tree walks and their own cuts (second round); the
    # truth is one uncut walk recording every decision node.
    decision = np.nonzero(tree.kind <= DRAW)[0]
    truth = Strategy._record(uncut, decision)
    for seat in (0, 1):
        uncut._walk(seat, kernels.EVALUATE, uncut.schedule.params(1), truth)
    for engine in (uncut, cut):
        stats = Strategy.__new__(Strategy)  # tables of the engine in hand, not of a saved solve
        stats.engine, stats.tree, stats.n_states = engine, engine.tree, engine.n_states
        stats._decision = engine.tree.kind <= DRAW
        stats._subtree_end = _subtree_ends(engine.tree.parent)
        seen = 0
        for batch in stats.stats():
            rows = truth[0][batch.nodes]
            assert np.allclose(batch.reach, truth[1][rows], rtol=0, atol=1e-15)
            assert np.allclose(batch.value, truth[2][rows], rtol=0, atol=1e-12)
            seen += len(batch.nodes)
        assert seen == len(decision)


# -- solve runs, checkpoints, the command line --------------------------------

def test_split_run_with_resume_is_bit_identical(tmp_path):
    cfg = load_preset("tiny-double-draw")
    whole = solve(cfg, iterations=60, out_dir=tmp_path / "whole")
    solve(cfg, iterations=30, out_dir=tmp_path / "split")
    resumed = solve(cfg, iterations=60, out_dir=tmp_path / "split", resume=True)
    assert np.array_equal(whole.engine.regret, resumed.engine.regret)
    assert np.array_equal(whole.engine.strat_sum, resumed.engine.strat_sum)
    assert whole.exploitability == resumed.exploitability
    summary = json.loads((tmp_path / "split" / "summary.json").read_text())
    assert summary["iterations"] == 60
    assert summary["exploitability_mbb"] == pytest.approx(resumed.exploitability.exploitability_mbb)


def test_resume_refuses_other_config_and_damage(tmp_path):
    solve(load_preset("tiny-no-draw"), iterations=5, out_dir=tmp_path)
    with pytest.raises(CheckpointError, match="not single-draw"):
        solve(load_preset("tiny-single-draw"), iterations=10, out_dir=tmp_path, resume=True)
    with pytest.raises(CheckpointError, match="made with dcfr"):
        solve(load_preset("tiny-no-draw"), "cfr+", iterations=10, out_dir=tmp_path, resume=True)
    checkpoint = tmp_path / CHECKPOINT_NAME
    data = checkpoint.read_bytes()
    checkpoint.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="damaged"):
        solve(load_preset("tiny-no-draw"), iterations=10, out_dir=tmp_path, resume=True)


def test_stopping_rules(tmp_path):
    cfg = load_preset("tiny-single-draw")
    by_target = solve(cfg, target_mbb=1.0, iterations=100_000)
    assert by_target.stopped_by == "target exploitability"
    assert by_target.exploitability.exploitability_mbb <= 1.0
    by_time = solve(cfg, time_limit=0.5)
    assert by_time.stopped_by == "time limit"
    with pytest.raises(ValueError, match="stopping rule"):
        solve(cfg)


def test_memory_plan_refuses_a_solve_that_cannot_fit():
    with pytest.raises(SolveTooLarge, match="does not fit|more than this machine"):
        Engine(load_preset("triple-draw"))


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "solver.cli", *args], capture_output=True, text=True)


def test_cli_solve_and_resume(tmp_path):
    out = tmp_path / "run"
    first = _cli("solve", "--preset", "tiny-single-draw", "--iterations", "40", "--out", str(out), "--quiet")
    assert first.returncode == 0, first.stderr
    summary = json.loads((out / "summary.json").read_text())
    for key in ("game_value_mbb", "exploitability_mbb", "iterations", "seconds", "algorithm", "config"):
        assert key in summary
    assert summary["iterations"] == 40 and summary["algorithm"] == "dcfr"
    assert summary["config"]["draws"] == 1
    rows = (out / "convergence.csv").read_text().splitlines()
    assert rows[0] == "iteration,seconds,exploitability_mbb" and rows[-1].startswith("40,")
    assert (out / "convergence.png").stat().st_size > 1000
    again = _cli("solve", "--out", str(out), "--resume", "--iterations", "80", "--quiet")
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "summary.json").read_text())["iterations"] == 80


@pytest.mark.parametrize("args, message", [
    (["solve", "--preset", "triple-draw", "--iterations", "1"], "more than this machine"),
    (["solve", "--preset", "nope", "--iterations", "1"], "unknown preset"),
    (["solve", "--preset", "tiny-no-draw", "--iterations", "-3"], "iterations"),
    (["solve", "--preset", "tiny-no-draw", "--target-exploitability", "0"], "target"),
])
def test_cli_solve_bad_input(args, message):
    proc = _cli(*args)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_resume_damaged_checkpoint(tmp_path):
    (tmp_path / CHECKPOINT_NAME).write_bytes(b"not a checkpoint")
    proc = _cli("solve", "--out", str(tmp_path), "--resume", "--iterations", "5")
    assert proc.returncode == 2 and "damaged" in proc.stderr and "Traceback" not in proc.stderr


def test_main_returns_two_on_bad_checkpoint(tmp_path, capsys):
    assert main(["solve", "--out", str(tmp_path), "--resume", "--iterations", "5"]) == 2
    assert "no checkpoint" in capsys.readouterr().err


@pytest.mark.parametrize("sig", ["SIGINT", "SIGTERM"])
def test_interrupt_writes_checkpoint_and_resume_continues(tmp_path, sig):
    import signal
    import time

    out = tmp_path / "run"
    # As from a terminal: a shell's background job would start with SIGINT ignored.
    proc = subprocess.Popen([sys.executable, "-m", "solver.cli", "solve", "--preset", "tiny-double-draw",
                             "--iterations", "100000000", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # Wait until it is iterating (a progress line), then interrupt.
    deadline = time.time() + 120
    while time.time() < deadline and "iter" not in (line := proc.stdout.readline()):
        pass
    time.sleep(0.5)
    proc.send_signal(getattr(signal, sig))
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, stderr
    assert "interrupted" in stderr and "Traceback" not in stderr
    from solver.checkpoint import load_checkpoint
    saved = load_checkpoint(out / CHECKPOINT_NAME)
    done = int(saved["iteration"])
    assert done > 0
    again = _cli("solve", "--out", str(out), "--resume", "--iterations", str(done + 10), "--quiet")
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "summary.json").read_text())["iterations"] == done + 10


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("n", [1, 3, 40, 43])  # the showdown scan runs in four chunks plus a remainder
def test_terminal_values_match_brute_force(seat, n):
    from solver import kernels

    rng = np.random.default_rng(seat)
    opp_reach = rng.random(n)
    opp_reach[rng.random(n) < 0.3] = 0.0
    # The kernel takes whole walk buffers and indices: reach[d, seat], out[d, k].
    reach = np.zeros((2, 2, n))
    reach[1, 1 - seat] = opp_reach
    out = np.full((1, 3, n), np.nan)
    contrib = np.array([3.0, 3.0])
    kernels._terminal_value(kernels.SHOWDOWN, contrib[seat], reach, 1, 1 - seat, out, 0, 2)
    showdown = out[0, 2]
    # Value classes are ordered by strength, 0 best: lower index wins, equal ties.
    brute = np.array([sum(r * 3.0 * np.sign(t - s) for t, r in enumerate(opp_reach)) for s in range(n)])
    assert np.allclose(showdown, brute)
    contrib = np.array([2.0, 4.0])
    kernels._terminal_value(kernels.FOLD, -contrib[seat], reach, 1, 1 - seat, out, 0, 1)  # the traverser folds
    fold = out[0, 1]
    assert np.allclose(fold, -contrib[seat] * opp_reach.sum())
    kernels._terminal_value(kernels.FOLD, contrib[1 - seat], reach, 1, 1 - seat, out, 0, 1)  # the opponent folds
    assert np.allclose(fold, contrib[1 - seat] * opp_reach.sum())
