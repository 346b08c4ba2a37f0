"""Node locking: lock files, hand groups, locked solves (checked against brute force)."""

import json

import numpy as np
import pytest

import reference_game as ref
from abstractions.evaluator import get_evaluator
from solver.arena.match import ModelGame, load_player
from solver.cfr.engine import Engine
from solver.cfr.locks import LockError, LockFile, compile_locks, fixed_strategy_locks, hand_group
from solver.cfr.solve import solve
from solver.cli import main
from solver.game.config import load_preset
from solver.game.tree import DRAW, build_tree
from solver.tables.strategy import load_strategy

TINY = load_preset("tiny-single-draw")


def _lock(text):
    return LockFile.parse(text, "test")


@pytest.mark.parametrize("text, message", [
    ("", "no \\[\\[lock\\]\\] rules"),
    ("[[lock]]\nseat = 'dealer'\nprobabilities = { f = 1.0 }", "seat 'dealer'"),
    ("[[lock]]\nprobabilities = { fly = 1.0 }", "unknown action 'fly'"),
    ("[[lock]]\nprobabilities = { f = 1.5 }", "from 0 to 1"),
    ("[[lock]]\nprobabilities = { f = 0.6, c = 0.6 }", "sum to 1.2"),
    ("[[lock]]\nprobabilities = { f = 0.5, 2 = 0.5 }", "mixes betting actions and draw counts"),
    ("[[lock]]\nwhen = 'always'\nprobabilities = { f = 1.0 }", "unknown key 'when'"),
    ("[[lock]]\nhistory = 'ck/x'\nprobabilities = { f = 1.0 }", "not in the notation"),
    ("[[lock]]\nkind = 'draw'\nprobabilities = { f = 1.0 }", "has no action 'f'"),
    ("[lock\n", "not valid TOML"),
])
def test_bad_lock_files_are_one_line_errors(text, message):
    with pytest.raises(LockError, match=message):
        _lock(text)


def test_hand_groups_name_the_classes_they_say():
    ev = get_evaluator(13, 4, 4)
    counts = ev.value_card_count
    tops = np.array([ev.value_ranks(v)[0] for v in range(ev.n_values)])
    assert hand_group("*", 13, 4, 4).all()
    badugi = hand_group("badugi", 13, 4, 4)
    assert np.array_equal(badugi, counts == 4) and badugi.sum() == 715  # C(13, 4) rank sets
    assert np.array_equal(hand_group("not badugi", 13, 4, 4), counts < 4)
    assert np.array_equal(hand_group("badugi K", 13, 4, 4), (counts == 4) & (tops == 12))
    assert np.array_equal(hand_group("1-card *", 13, 4, 4), counts == 1) and (counts == 1).sum() == 13
    assert hand_group("classes 0-9", 13, 4, 4).sum() == 10 and hand_group("classes 0-9", 13, 4, 4)[:10].all()
    wheel = hand_group("As2h3d4c", 13, 4, 4)
    assert wheel.sum() == 1 and wheel[0]  # the best hand is class 0
    union = hand_group("badugi K, 3-card 5", 13, 4, 4)
    assert union.sum() == ((counts == 4) & (tops == 12)).sum() + ((counts == 3) & (tops == 4)).sum()
    for bad, message in (("badugi Z", "not a rank"), ("classes 5-99999", "classes run"), ("some hands", "not a hand group")):
        with pytest.raises(LockError, match=message):
            hand_group(bad, 13, 4, 4)
    with pytest.raises(LockError, match="needs 4-card hands"):
        hand_group("badugi", 3, 2, 2)


def test_rules_apply_where_possible_and_later_rules_win():
    tree = build_tree(TINY)
    engine = Engine(TINY)
    legal = engine.model.legal
    both = compile_locks(_lock("""
[[lock]]
seat = "big blind"
history = "*"
probabilities = { f = 0.0 }
[[lock]]
seat = "big blind"
history = "ck/00/kb"
probabilities = { c = 1.0 }
"""), tree, legal)
    facing_bet = tree.node_at("ck/00/kb")
    at = both.pair_node == facing_bet
    # Rule 2 overrides rule 1 at "ck/00/kb" (facing a bet after checking): every class calls there.
    rows = both.variants[both.pair_variant[at]]
    labels = [chr(tree.action[c]) for c in tree.children(facing_bet)]
    assert np.all(rows[:, labels.index("c")] == 1.0)
    # Rule 1 applies only where folding is possible (facing a bet), at every class.
    for node in np.unique(both.pair_node):
        assert "f" in "".join(chr(tree.action[c]) for c in tree.children(int(node)))
        assert (both.pair_node == node).sum() == engine.n_states
    with pytest.raises(LockError, match="names no decision"):
        compile_locks(_lock("[[lock]]\nseat = 'button'\nhistory = ''\nprobabilities = { pat = 0.0 }"), tree, legal)


@pytest.fixture(scope="module")
def equilibrium(tmp_path_factory):
    out = tmp_path_factory.mktemp("tiny-equilibrium")
    return solve(TINY, iterations=400, out_dir=out)


@pytest.mark.parametrize("seat", ["big blind", "button"])
def test_locking_a_seat_to_the_equilibrium_reproduces_its_value(equilibrium, seat):
    """A lock file fixing one seat to the equilibrium's own strategy (``strategy = DIR``): the
    other seat's best response to it is worth the equilibrium's best-response value, and the
    game value is the equilibrium's within the exploitabilities."""
    x = equilibrium.exploitability
    locked = Engine(TINY, locks=_lock(f"[[lock]]\nseat = '{seat}'\nstrategy = '{equilibrium.out_dir}'\n"))
    locked.run_iterations(400)
    y = locked.exploitability()
    if seat == "big blind":  # the button's best response to the equilibrium's big blind
        assert y.game_value_mbb == pytest.approx(1000 * x.br_button, abs=2 * y.exploitability_mbb + 1e-3)
    else:  # the big blind's best response to the equilibrium's button
        assert -y.game_value_mbb == pytest.approx(1000 * x.br_big_blind, abs=2 * y.exploitability_mbb + 1e-3)
    # (The two best-response values bracket the game value: they differ by twice the exploitability.)
    assert abs(y.game_value_mbb - x.game_value_mbb) <= 2 * x.exploitability_mbb + 2 * y.exploitability_mbb + 1e-3
    # The locked seat plays exactly the equilibrium.
    at = 1 if seat == "big blind" else 0
    eq = Engine(TINY)
    saved = load_strategy(equilibrium.out_dir)
    for node in np.nonzero((locked.tree.kind <= DRAW) & (locked.tree.seat == at))[0]:
        assert np.allclose(locked.average_strategy(node), saved.strategy_at(int(node)), atol=1e-6)
    assert eq.n_states == saved.n_states
    # A strategy of another game is refused in one line.
    with pytest.raises(LockError, match="is for"):
        Engine(load_preset("tiny-double-draw"), locks=_lock(f"[[lock]]\nstrategy = '{equilibrium.out_dir}'\n"))


def test_a_seat_locked_to_a_fixed_strategy_in_python(equilibrium):
    """The same through :func:`fixed_strategy_locks` (a strategy given as probabilities)."""
    probabilities = load_strategy(equilibrium.out_dir).probabilities
    locked = Engine(TINY)
    locked.set_locks(fixed_strategy_locks(locked.tree, locked.layout, np.asarray(probabilities), (1,)))
    locked.run_iterations(200)
    y = locked.exploitability()
    assert y.game_value_mbb == pytest.approx(1000 * equilibrium.exploitability.br_button,
                                             abs=2 * y.exploitability_mbb + 1e-3)


@pytest.mark.parametrize("baseline", ["random", "rule"])
def test_a_seat_locked_to_a_baseline_meets_the_brute_force_best_response(baseline, ref_args, engine_policy):
    """A big blind locked entirely to a baseline: the solved button is its best response, whose
    value the real-card reference computes by brute force."""
    game = ModelGame.of(TINY)
    policy = game.policy(load_player(baseline))
    locked = Engine(TINY)
    locked.set_locks(fixed_strategy_locks(locked.tree, locked.layout, policy, (1,)))
    locked.run_iterations(300)
    y = locked.exploitability()
    br_button, _, _ = ref.best_response_values(*ref_args(TINY), engine_policy(locked))
    assert y.game_value_mbb == pytest.approx(1000 * br_button, abs=max(0.05, 2 * y.exploitability_mbb))
    assert y.exploitability_mbb < 0.5


def test_a_partial_lock_is_kept_and_best_responses_respect_it(ref_args, engine_policy):
    """Never stand pat with a one-card hand (tiny game: two-card hands): the lock holds at every
    such decision; the best response that keeps it is worth less than the free one (brute force)
    and more than the strategy itself."""
    lock = _lock("[[lock]]\nseat = 'big blind'\nhands = '1-card *'\nprobabilities = { pat = 0.0 }")
    engine = Engine(TINY, locks=lock)
    engine.run_iterations(300)
    tree, locks = engine.tree, engine.locks
    for node in np.unique(locks.pair_node):
        probs = engine.average_strategy(int(node))
        classes = locks.classes_at(int(node))
        assert tree.kind[node] == DRAW and np.all(probs[0, classes] == 0.0)
        assert np.allclose(probs[:, classes].sum(axis=0), 1.0)
    kept = engine.exploitability()
    assert kept.exploitability_mbb < 1.0
    _, free_bb, value = ref.best_response_values(*ref_args(TINY), engine_policy(engine))
    assert value * 1000 == pytest.approx(kept.game_value_mbb, abs=1e-6)
    assert -1000 * value - 1e-9 <= 1000 * kept.br_big_blind <= 1000 * free_bb + 1e-9
    # The lock binds: without it, the big blind would stand pat sometimes and win more.
    assert 1000 * free_bb > 1000 * kept.br_big_blind + 1.0


def test_locked_solve_writes_its_lock_and_resumes_only_with_it(tmp_path):
    lock_path = tmp_path / "lock.toml"
    lock_path.write_text("[[lock]]\nseat = 'big blind'\nhands = '1-card *'\nprobabilities = { pat = 0.0 }\n")
    out = tmp_path / "run"
    assert main(["solve", "--preset", "tiny-single-draw", "--lock", str(lock_path), "--iterations", "50",
                 "--out", str(out), "--quiet", "--no-charts"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["locks"]["rules"] == 1 and summary["locks"]["pairs_locked"] > 0
    assert (out / "lock.toml").read_text() == lock_path.read_text()
    strategy = load_strategy(out)
    assert strategy.policy("ck/", "As2h")["0"] >= 0.0
    # A resume keeps the run's lock unless told otherwise; another lock is refused.
    assert main(["solve", "--out", str(out), "--resume", "--iterations", "60", "--quiet", "--no-charts"]) == 0
    other = tmp_path / "other.toml"
    other.write_text("[[lock]]\nseat = 'button'\nhistory = ''\nprobabilities = { r = 0.0 }\n")
    assert main(["solve", "--out", str(out), "--resume", "--lock", str(other), "--iterations", "70",
                 "--quiet", "--no-charts"]) == 2
    # Locking a game solved in buckets is refused in one line.
    assert main(["solve", "--preset", "triple-draw", "--lock", str(lock_path), "--iterations", "1",
                 "--out", str(tmp_path / "t"), "--quiet"]) == 2
    missing = tmp_path / "nope.toml"
    assert main(["solve", "--preset", "tiny-single-draw", "--lock", str(missing), "--iterations", "1",
                 "--out", str(tmp_path / "m"), "--quiet"]) == 2


def test_tables_and_charts_mark_locked_decisions(tmp_path, capsys):
    from solver.tables.reports import class_groups, summarise

    lock_path = tmp_path / "lock.toml"
    lock_path.write_text("[[lock]]\nseat = 'big blind'\nhands = '1-card *'\nprobabilities = { pat = 0.0 }\n")
    out = tmp_path / "run"
    assert main(["solve", "--preset", "tiny-single-draw", "--lock", str(lock_path), "--iterations", "30",
                 "--out", str(out), "--quiet", "--no-charts"]) == 0
    strategy = load_strategy(out)
    one_card = strategy.evaluator.value_card_count == 1
    rows = list(strategy.rows(kinds=["draw"]))
    assert rows and all(row["locked"] == (row["seat"] == "big blind" and bool(one_card[row["class"]]))
                        for row in rows)
    assert "locked" in strategy.table_columns()
    summary = summarise(strategy)
    group_of, labels = class_groups(strategy)
    locked_groups = {labels[g] for g in np.nonzero(summary.draw_locked[(1, 0)])[0]}
    assert locked_groups == {labels[g] for g in np.unique(group_of[one_card])}
    assert (0, 0) not in summary.draw_locked and not summary.bet_locked
    capsys.readouterr()
    assert main(["show", str(out), "--history", "ck/"]) == 0
    shown = capsys.readouterr().out
    assert "the run's lock.toml fixes" in shown and shown.rstrip().endswith("all")
    # An unlocked run's table has no such column.
    plain = tmp_path / "plain"
    solve(TINY, iterations=5, out_dir=plain)
    assert "locked" not in load_strategy(plain).table_columns()


def test_shipped_locks_apply_to_single_draw():
    from solver.cfr.locks import shipped_locks

    config = load_preset("single-draw")
    tree = build_tree(config)
    from abstractions.transitions import get_draw_model

    legal = get_draw_model(config.ranks, config.suits, config.hand_size).legal
    assert {"never-snows", "never-raises", "breaks-k-badugis"} <= set(shipped_locks())
    for name in shipped_locks():
        locks = compile_locks(LockFile.read(name), tree, legal)
        assert locks.n_pairs > 0, name
    with pytest.raises(LockError, match="no such file"):
        LockFile.read("no-such-lock")


@pytest.mark.parametrize("fixed", ["pat = 0.5", '"2" = 0.5', "pat = 0.9"])
def test_a_lock_with_a_fixed_share_converges_in_the_locked_game(fixed):
    """A share strictly between 0 and 1 fixed: the free actions' regrets are those of the choice
    among them, so the locked game converges (it stalled at 30 mbb/hand when they were measured
    against the whole node's value) and the fixed share holds exactly."""
    engine = Engine(TINY, locks=_lock(f"[[lock]]\nkind = 'draw'\nprobabilities = {{ {fixed} }}\n"))
    engine.run_iterations(1000)
    assert engine.exploitability().exploitability_mbb < 0.05
    label, p = fixed.replace('"', "").split(" = ")
    locks = engine.locks
    for node in np.unique(locks.pair_node)[:20]:
        probs = engine.average_strategy(int(node))
        classes = locks.classes_at(int(node))
        assert np.allclose(probs[0 if label == "pat" else int(label), classes], float(p), atol=1e-6)


def test_strategy_paths_are_read_from_the_lock_files_folder(equilibrium, tmp_path, monkeypatch):
    folder = tmp_path / "locks"
    folder.mkdir()
    import os

    relative = os.path.relpath(equilibrium.out_dir, folder)
    (folder / "eq.toml").write_text(f"[[lock]]\nseat = 'big blind'\nstrategy = '{relative}'\n")
    monkeypatch.chdir(tmp_path)
    lock = LockFile.read(folder / "eq.toml")
    assert lock.rules[0].strategy == str(equilibrium.out_dir.resolve())
    out = tmp_path / "run"
    assert main(["solve", "--preset", "tiny-single-draw", "--lock", str(folder / "eq.toml"), "--iterations", "5",
                 "--out", str(out), "--quiet", "--no-charts"]) == 0
    monkeypatch.chdir(folder.parent.parent)  # elsewhere: the run still reads and resumes
    assert load_strategy(out).locks.n_pairs > 0
    assert main(["solve", "--out", str(out), "--resume", "--iterations", "8", "--quiet", "--no-charts"]) == 0
    with pytest.raises(LockError, match="unknown action '7'"):
        _lock("[[lock]]\nprobabilities = { pat = 0.0, \"7\" = 0.0 }")
    with pytest.raises(LockError, match="lock rule 1: hands 'badugy'"):
        Engine(TINY, locks=_lock("[[lock]]\nhands = 'badugy'\nprobabilities = { pat = 0.0 }"))


def test_exploit_force_replaces_a_locked_run_whole(tmp_path, capsys):
    out = tmp_path / "run"
    assert main(["solve", "--preset", "tiny-single-draw", "--lock", "never-raises", "--iterations", "5",
                 "--out", str(out), "--quiet"]) == 2  # tiny single draw has no raise at cap 1
    lock = tmp_path / "lock.toml"
    lock.write_text("[[lock]]\nseat = 'big blind'\nhands = '1-card *'\nprobabilities = { pat = 0.0 }\n")
    assert main(["solve", "--preset", "tiny-single-draw", "--lock", str(lock), "--iterations", "5",
                 "--out", str(out), "--quiet"]) == 0
    eq = tmp_path / "eq"
    solve(TINY, iterations=20, out_dir=eq)
    capsys.readouterr()
    assert main(["exploit", str(eq), "--against", "station", "--out", str(out)]) == 2
    assert "--resume" not in capsys.readouterr().err
    assert main(["exploit", str(eq), "--against", "station", "--out", str(out), "--force"]) == 0
    left = {p.name for p in out.iterdir()}
    assert not left & {"checkpoint.npz", "lock.toml", "lock_pairs.npz", "convergence.csv", "draws_1.png"}, left
    assert load_strategy(out).locks is None
