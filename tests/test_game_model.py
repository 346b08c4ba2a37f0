"""Game model: configs and presets, the public tree, draw transitions, the planner."""

import dataclasses
import itertools
import json
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from abstractions.evaluator import get_evaluator
from abstractions.transitions import get_draw_model
from solver.cli import main
from solver.game.config import (DEFAULT_BETS, ConfigError, GameConfig, load_config_file, load_preset,
                           preset_names)
from solver.game.plan import plan_solve
from solver.game.tree import BET, BIG_BLIND, BUTTON, DRAW, FOLD, SHOWDOWN, build_tree, count_tree

# DESIGN section 4: betting decision nodes of the public tree.
DESIGN_SIZES = {
    (2, 1): 454, (2, 2): 56_704, (2, 3): 7_087_954,
    (3, 1): 1_006, (3, 2): 176_006, (3, 3): 30_801_006,
    (4, 1): 1_758, (4, 2): 395_508, (4, 3): 88_989_258,
}


# -- configs -----------------------------------------------------------------

def test_presets_load_and_round_trip(tmp_path):
    names = preset_names()
    for required in ("single-draw", "double-draw", "triple-draw"):
        assert required in names
    assert any(n.startswith("tiny-") for n in names)
    for name in names:
        cfg = load_preset(name)
        path = tmp_path / f"{name}.toml"
        cfg.save(path)
        assert load_config_file(path) == cfg
    assert load_preset("double-draw").bets == (1.0, 1.0, 2.0)
    assert load_preset("triple-draw").bets == (1.0, 1.0, 2.0, 2.0)
    assert load_preset("single-draw").cap == 4


@pytest.mark.parametrize("fields, named", [
    ({"draws": 4}, "draws"),
    ({"draws": 2, "bets": (1.0, 2.0)}, "bets"),
    ({"hand_size": 5}, "hand_size"),
    ({"ranks": 1, "suits": 1, "hand_size": 2}, "hand_size"),
    ({"cap": 0}, "cap"),
    ({"bets": (1.0, -2.0)}, "bets"),
    ({"small_blind": 2.0}, "small_blind"),
    ({"ranks": 14}, "ranks"),
    ({"suits": 0}, "suits"),
    ({"big_blind": float("nan")}, "big_blind"),
    ({"draws": 2, "bets": (1.0, 1.0, 2.0), "remember_draws": True}, "remember_draws: .* needs a recall of 0 to 1"),
    ({"draws": 2, "bets": (1.0, 1.0, 2.0), "recall": 2, "remember_draws": True}, "remember_draws"),
    ({"draws": 2, "bets": (1.0, 1.0, 2.0), "recall": 1, "remember_draws": 1}, "remember_draws: must be true or false"),
])
def test_invalid_config_names_the_field(fields, named):
    with pytest.raises(ConfigError, match=named):
        GameConfig(**fields)


@pytest.mark.parametrize("text, named", [
    ("draws = 2\ncap = [\n", "invalid TOML"),
    ("drawz = 1\n", "drawz"),
    ("draws = 1\nbets = [1, 2, 3]\n", "bets"),
    ("cap = 'four'\n", "cap"),
    ("ranks = 13\nsuits = 5\n", "suits"),
])
def test_malformed_toml_gives_one_line_error(tmp_path, text, named):
    path = tmp_path / "bad.toml"
    path.write_text(text)
    with pytest.raises(ConfigError, match=named) as info:
        load_config_file(path)
    assert "\n" not in str(info.value)


def test_remember_draws_round_trips_and_is_described(tmp_path):
    config = GameConfig(draws=3, cap=4, bets=DEFAULT_BETS[3], buckets=(8, 8, 8, 8), recall=1, remember_draws=True)
    config.save(tmp_path / "c.toml")
    assert "remember_draws = true" in (tmp_path / "c.toml").read_text()
    assert load_config_file(tmp_path / "c.toml") == config
    assert config.describe().endswith("recall 1 round and every draw")
    assert not config.at_full_resolution().remember_draws
    assert "remember_draws" not in GameConfig(draws=2, recall=1, bets=DEFAULT_BETS[2]).to_toml()


def test_last_round_buckets_round_trip_are_described_and_checked(tmp_path):
    from solver.game.config import LAST_ROUND_FEATURES
    from abstractions import buckets

    assert LAST_ROUND_FEATURES == buckets.LAST_ROUND_FEATURES
    config = GameConfig(draws=3, cap=2, bets=DEFAULT_BETS[3], buckets=(8, 8, 8, 6), recall=3,
                        last_round_buckets="ranges")
    config.save(tmp_path / "c.toml")
    assert 'last_round_buckets = "ranges"' in (tmp_path / "c.toml").read_text()
    assert load_config_file(tmp_path / "c.toml") == config
    assert "buckets 8/8/8/6 (the last round's against the opponent's ranges)" in config.describe()
    assert config.at_full_resolution().last_round_buckets == "strength"
    assert "last_round_buckets" not in dataclasses.replace(config, last_round_buckets="strength").to_toml()
    with pytest.raises(ConfigError, match="last_round_buckets: 'equity' is not a feature"):
        dataclasses.replace(config, last_round_buckets="equity")
    with pytest.raises(ConfigError, match="last_round_buckets: .* needs buckets in the last round"):
        dataclasses.replace(config, buckets=(8, 8, 8, 0))


def test_draws_alone_picks_default_bets(tmp_path):
    path = tmp_path / "dd.toml"
    path.write_text("draws = 2\ncap = 3\n")
    assert load_config_file(path).bets == DEFAULT_BETS[2]


# -- the public tree ---------------------------------------------------------

@pytest.mark.parametrize("cap, draws", sorted(DESIGN_SIZES))
def test_betting_node_counts_match_design(cap, draws):
    cfg = GameConfig(draws=draws, cap=cap, bets=DEFAULT_BETS[draws])
    assert count_tree(cfg).betting_nodes == DESIGN_SIZES[(cap, draws)]


@pytest.mark.parametrize("cap, draws, hand_size", [(1, 1, 4), (2, 1, 4), (4, 1, 4), (2, 2, 4), (3, 1, 2), (2, 0, 3)])
def test_built_tree_agrees_with_counts(cap, draws, hand_size):
    cfg = GameConfig(draws=draws, cap=cap, bets=DEFAULT_BETS[draws], hand_size=hand_size)
    tree, counts = build_tree(cfg), count_tree(cfg)
    assert (tree.kind == BET).sum() == counts.betting_nodes
    assert (tree.kind == DRAW).sum() == counts.draw_nodes
    assert ((tree.kind == FOLD) | (tree.kind == SHOWDOWN)).sum() == counts.terminal_nodes
    assert tree.n_action_rows == counts.betting_rows + counts.draw_rows
    # Every node's history leads back to it.
    for node in range(0, tree.n_nodes, max(1, tree.n_nodes // 300)):
        assert tree.node_at(tree.history(node)) == node
    # Zero-sum bookkeeping: at a showdown both seats have put in the same.
    showdown = tree.kind == SHOWDOWN
    assert np.allclose(tree.contrib[showdown, 0], tree.contrib[showdown, 1])


def test_tiny_tree_node_by_node():
    """Cap 1, one draw, 2-card hands: every node checked by hand."""
    cfg = GameConfig(ranks=3, suits=2, hand_size=2, draws=1, cap=1, bets=(1.0, 2.0))
    tree = build_tree(cfg)
    nodes = {tree.history(n): n for n in range(tree.n_nodes)}

    def check(history, kind, seat, contrib, actions=""):
        node = nodes[history]
        assert tree.kind[node] == kind, history
        assert tree.seat[node] == seat, history
        assert tuple(tree.contrib[node]) == contrib, history
        assert "".join(chr(tree.action[c]) for c in tree.children(node)) == actions, history

    # Round 1: the blind is the one bet allowed, so nobody raises.
    check("", BET, BUTTON, (0.5, 1.0), "fc")
    check("f", FOLD, BUTTON, (0.5, 1.0))
    check("c", BET, BIG_BLIND, (1.0, 1.0), "k")
    check("ck/", DRAW, BIG_BLIND, (1.0, 1.0), "012")
    for bb in "012":
        check(f"ck/{bb}", DRAW, BUTTON, (1.0, 1.0), "012")
        for btn in "012":
            h = f"ck/{bb}{btn}/"
            check(h, BET, BIG_BLIND, (1.0, 1.0), "kb")
            check(h + "k", BET, BUTTON, (1.0, 1.0), "kb")
            check(h + "kk", SHOWDOWN, -1, (1.0, 1.0))
            check(h + "kb", BET, BIG_BLIND, (3.0, 1.0), "fc")
            check(h + "kbf", FOLD, BIG_BLIND, (3.0, 1.0))
            check(h + "kbc", SHOWDOWN, -1, (3.0, 3.0))
            check(h + "b", BET, BUTTON, (1.0, 3.0), "fc")
            check(h + "bf", FOLD, BUTTON, (1.0, 3.0))
            check(h + "bc", SHOWDOWN, -1, (3.0, 3.0))
    # Root, f, c; the big blind's draw and three button draws; nine 9-node last rounds.
    assert tree.n_nodes == 3 + 1 + 3 + 9 * 9


def test_round_one_raises_follow_the_cap():
    tree = build_tree(GameConfig(draws=0, cap=3, bets=(1.0,)))
    histories = sorted(tree.history(n) for n in range(tree.n_nodes))
    assert "rrc" in histories and "crrc" in histories
    assert "rrr" not in histories and "crrr" not in histories  # blind + two raises = 3 bets
    assert tuple(tree.contrib[tree.node_at("rr")]) == (2.0, 3.0)
    assert tuple(tree.contrib[tree.node_at("crr")]) == (3.0, 2.0)


@pytest.mark.parametrize("history, problem", [
    ("x", "'x' is not possible"),
    ("ck/5", "'5' is not possible"),
    ("f/", "rounds are separated"),
    ("ckk", "'k' is not possible"),
    ("ck21", "rounds are separated"),
])
def test_bad_history_is_a_clear_error(history, problem):
    tree = build_tree(load_preset("single-draw"))
    with pytest.raises(ValueError, match=problem):
        tree.node_at(history)


def test_history_notation_example():
    tree = build_tree(load_preset("double-draw"))
    node = tree.node_at("ck/21/bc")
    assert tree.history(node) == "ck/21/bc/"
    assert tree.kind[node] == DRAW and tree.seat[node] == BIG_BLIND and tree.round[node] == 1
    assert tree.kind[tree.node_at("ck/2")] == DRAW and tree.seat[tree.node_at("ck/2")] == BUTTON


# -- transitions -------------------------------------------------------------

def test_transition_rows_sum_to_one_and_pat_keeps_class():
    model = get_draw_model()
    assert model.n_values == 1092
    rows = np.add.reduceat(model.set_prob, model.set_start[:-1])
    assert np.allclose(rows, 1.0, atol=1e-12)
    assert abs(model.deal_prob.sum() - 1.0) < 1e-12
    for v in (0, 400, 715, 1000, 1091):
        dist = model.next_distribution(v, 0)
        assert dist[v] == 1.0 and dist.sum() == 1.0


def test_known_draw_probabilities():
    ev, model = get_evaluator(), get_draw_model()
    a23 = ev.evaluate_text("As2h3d3c")  # three-card 3-2-A
    after = model.next_distribution(a23, 1)
    badugi = ev.value_card_count == 4
    assert after[badugi].sum() == pytest.approx(10 / 49, abs=1e-15)
    # The badugis made are 4-3-2-A (a 4 of the missing suit) up to K-3-2-A, 1/49 each.
    for top in range(3, 13):
        assert after[ev.value_of_ranks([0, 1, 2, top])] == pytest.approx(1 / 49, abs=1e-15)
    # Drawing 4 is a fresh deal.
    assert np.allclose(model.next_distribution(a23, 4), model.deal_prob)
    # Dealt badugi probability.
    assert model.deal_prob[badugi].sum() == pytest.approx(17160 / 270725, abs=1e-15)


def test_draw_legality():
    ev, model = get_evaluator(), get_draw_model()
    one_card = ev.evaluate_text("QdJd8d4d")
    assert list(model.legal[one_card]) == [True, False, False, True, True]
    two_card = ev.evaluate_text("AdAs2d2c")
    assert list(model.legal[two_card]) == [True, False, True, True, True]
    assert model.legal[0].all()
    with pytest.raises(ValueError, match="not allowed"):
        model.next_distribution(one_card, 1)


def _brute_transition(ranks, suits, hand_size, hand, draw):
    """Next-value distribution by dealing real cards: keep the best subset, draw from deck minus kept."""
    ev = get_evaluator(ranks, suits, hand_size)
    kept = ev.best_subset(hand, hand_size - draw) if draw < hand_size else np.array([], dtype=np.int64)
    rest = [c for c in range(ranks * suits) if c not in set(kept.tolist())]
    counts = {}
    for new in itertools.combinations(rest, draw):
        value = ev.evaluate(np.concatenate([kept, np.array(new, dtype=np.int64)]))
        counts[value] = counts.get(value, 0) + 1
    total = sum(counts.values())
    return {v: Fraction(c, total) for v, c in counts.items()}


@pytest.mark.parametrize("ranks, suits, hand_size", [(5, 3, 3), (4, 4, 4), (6, 2, 2)])
def test_transitions_match_real_card_enumeration(ranks, suits, hand_size):
    ev = get_evaluator(ranks, suits, hand_size)
    model = get_draw_model(ranks, suits, hand_size)
    rng = np.random.default_rng(7)
    hands = list(itertools.combinations(range(ranks * suits), hand_size))
    for index in rng.choice(len(hands), size=25, replace=False):
        hand = np.array(hands[index], dtype=np.int64)
        value = ev.evaluate(hand)
        for draw in range(1, hand_size + 1):
            if not model.legal[value, draw]:
                continue
            expected = _brute_transition(ranks, suits, hand_size, hand, draw)
            got = model.next_distribution(value, draw)
            for v in range(model.n_values):
                assert got[v] == pytest.approx(float(expected.get(v, 0)), abs=1e-12)


def test_draw_model_cache_survives_damage(tmp_path, monkeypatch):
    monkeypatch.setenv("BADUGI_CACHE_DIR", str(tmp_path))
    fresh = get_draw_model(4, 2, 2)
    files = list(tmp_path.glob("*.npz"))
    assert len(files) == 1
    files[0].write_bytes(b"garbage")
    again = get_draw_model(4, 2, 2)
    assert np.array_equal(again.set_prob, fresh.set_prob)


# -- the planner -------------------------------------------------------------

def test_plan_json(capsys):
    assert main(["plan", "--preset", "double-draw", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["betting_nodes"] == 395_508
    assert data["private_states"] == 1092
    assert data["entries"] == 395_508 * 1092
    for key in ("draw_nodes", "terminal_nodes", "bytes"):
        assert data[key] > 0
    # Regrets and strategy sums for ~1.08e6 action rows of 1,092 states: under 16 GB.
    assert data["bytes"] < 16e9


def test_plan_triple_draw_fits_only_in_its_abstraction(capsys, tmp_path):
    preset = load_preset("triple-draw")
    full = plan_solve(preset.at_full_resolution())
    assert full.counts.betting_nodes == 88_989_258
    assert not full.fits
    path = tmp_path / "full.toml"
    preset.at_full_resolution().save(path)
    assert main(["plan", "--config", str(path)]) == 0
    assert "does NOT fit" in capsys.readouterr().out
    # The preset: card buckets and the whole public history (draw counts up to three), walked streamed.
    plan = plan_solve(preset)
    assert plan.fits and plan.streamed and plan.bytes < full.bytes / 100
    assert main(["plan", "--preset", "triple-draw"]) == 0
    out = capsys.readouterr().out
    assert "walks stream it" in out and "certificate" in out and "fits" in out


def test_plan_bad_config_exit_code(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text("draws = 7\n")
    proc = subprocess.run([sys.executable, "-m", "solver.cli", "plan", "--config", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and "draws" in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("draws, cap, hand_size", [(1, 2, 2), (2, 1, 2), (3, 1, 2), (2, 3, 3)])
def test_generated_tree_equals_the_reference_game_tree(draws, cap, hand_size):
    """The tree generated from round templates has exactly the reference game's decision points
    (built independently by recursion in tests/reference_game.py), with the same seats and pots."""
    import reference_game as ref

    bets = DEFAULT_BETS[draws]
    cfg = GameConfig(ranks=3, suits=3, hand_size=hand_size, draws=draws, cap=cap, bets=bets)
    tree = build_tree(cfg)
    game = ref.get_game(cfg.ranks, cfg.suits, cfg.hand_size, cfg.draws, cfg.cap, cfg.bets)
    ours = {tree.history(int(n)): int(n) for n in np.nonzero(tree.kind <= DRAW)[0]}
    assert set(ours) == set(game.by_history)
    for history, node in ours.items():
        theirs = game.by_history[history]
        assert int(tree.seat[node]) == theirs.player
        assert tuple(tree.contrib[node]) == pytest.approx(theirs.contrib)
        assert [chr(tree.action[c]) for c in tree.children(node)] == theirs.actions
