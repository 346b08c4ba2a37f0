"""Tests of the independent reference implementation (tests/reference_game.py).

Big LP timings are opt-in: REFERENCE_LP_BIG=1 pytest tests/test_reference_game.py -s
"""

import itertools
import os
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import reference_game as rg  # noqa: E402


def H(text, ranks=13, suits=4):
    return rg.parse_hand(text, ranks, suits)


def V(text):
    return rg.hand_value(H(text), 4)


# ---------------------------------------------------------------- evaluator

def test_evaluator_examples_from_rules():
    best = V("As2h3d4c")
    assert best == (4, (-3, -2, -1, 0))
    for h in [H("As2h3d5c"), H("AsAh2d3c"), H("KsQhJdTc")]:
        assert best > rg.hand_value(h, 4)
    assert V("KsQhJdTc") > V("As2h3d4d")  # any badugi beats any 3-card hand
    assert V("As2h3d4d") == (3, (-2, -1, 0))
    assert V("6h4d3sAh") == (3, (-3, -2, 0))
    assert V("7h5d4d3s") == (3, (-6, -3, -2))
    assert V("AdAs2d2c") == (2, (-1, 0))
    assert V("QdJd8d4d") == (1, (-3,))
    assert V("8h7d5c4s") > V("9s4c3h2d")
    assert V("Ts7h5c4d") > V("Th7d6cAs")
    assert V("5h3d5c3s") == V("KdQd3d5s") == (2, (-4, -2))
    assert V("Ad2d3s4s") == (2, (-2, 0))
    assert V("2c3c7h9s") == (3, (-8, -6, -1))
    assert V("Ah2c3d3c") == (3, (-2, -1, 0))
    assert V("6s5h4dAc") < V("6s4h3d2c")
    assert V("9s8h4d3c") < V("8s7h3d2c")
    assert V("10d9s8h7c") == V("Td9s8h7c")


def test_parse_rejects_garbage():
    for bad in ["As2h3d4x", "AsAs2d3c", "Zs2h3d4c", "As2h3"]:
        with pytest.raises(ValueError):
            rg.parse_hand(bad)


def test_greedy_property_and_draw_rules_small_deck():
    ranks, suits = 6, 4
    for h in itertools.combinations(range(ranks * suits), 4):
        key, sub = rg.best_subset(h, suits)
        m = key[0]
        assert rg.allowed_draws(h, suits) == sorted({0} | set(range(max(4 - m, 1), 5)))
        low = sorted(sub)  # card ints sort by rank first
        for k in range(m + 1):
            kk, kept = rg.best_subset(h, suits, k)
            assert kk == rg.subset_key(low[:k], suits)
            assert kept == rg.kept_cards(h, 4 - k, suits)


def test_kept_cards_examples():
    h = H("As2h3d4d")  # value 3-2-A
    assert rg.kept_cards(h, 1, 4) == H("As2h3d")
    assert rg.kept_cards(h, 2, 4) == H("As2h")
    assert rg.kept_cards(h, 4, 4) == ()
    assert rg.kept_cards(h, 0, 4) == h
    assert rg.allowed_draws(h, 4) == [0, 1, 2, 3, 4]
    q = H("QdJd8d4d")  # one-card hand: may keep at most one card
    assert rg.allowed_draws(q, 4) == [0, 3, 4]
    assert rg.kept_cards(q, 3, 4) == H("4d")
    # ties in value: lexicographically smallest card indices (As before Ac)
    t = H("AsAc2h2d")
    assert rg.kept_cards(t, 2, 4) == H("As2h")
    assert rg.kept_cards(t, 3, 4) == H("As")


# ---------------------------------------------------------------- public tree

def test_public_tree_structure():
    g = rg.get_game(3, 2, 2, 1, 2, (1, 2))
    acts = {n.history: n.actions for n in g.decision_nodes()}
    assert acts[""] == ["f", "c", "r"]
    assert acts["c"] == ["k", "r"]
    assert acts["r"] == ["f", "c"]
    assert acts["cr"] == ["f", "c"]
    assert acts["ck/"] == ["0", "1", "2"]
    assert acts["ck/2"] == ["0", "1", "2"]
    assert acts["ck/21/"] == ["k", "b"]
    assert acts["ck/21/k"] == ["k", "b"]
    assert acts["ck/21/b"] == ["f", "c", "r"]
    assert acts["ck/21/kb"] == ["f", "c", "r"]
    assert acts["ck/21/br"] == ["f", "c"]
    assert acts["ck/21/kbr"] == ["f", "c"]
    assert g.by_history["ck/21/"].player == rg.BIG_BLIND
    assert g.by_history["ck/2"].player == rg.BUTTON
    assert g.by_history["ck/"].player == rg.BIG_BLIND
    # betting decision nodes: 4 pre-draw + 3 round-0 endings x 9 draw outcomes x 6
    assert sum(n.kind == "bet" for n in g.nodes) == 4 + 3 * 9 * 6
    term = {n.history: n for n in g.terminals()}
    assert g.terminal_payoff_button(term["f"]) == -0.5
    assert g.terminal_payoff_button(term["rf"]) == 1.0
    assert g.terminal_payoff_button(term["crf"]) == -1.0
    assert g.terminal_payoff_button(term["rc/00/brf"]) == 4.0  # BB folds to the raise
    assert g.terminal_payoff_button(term["ck/12/kbf"]) == 1.0
    assert g.terminal_payoff_button(term["ck/12/kbrf"]) == -3.0
    assert g.terminal_payoff_button(term["ck/12/bf"]) == -1.0
    assert term["rc/00/brc"].kind == "showdown" and term["rc/00/brc"].contrib == (6.0, 6.0)
    assert term["crc/00/kk"].contrib == (2.0, 2.0)
    # cap 1: no raise pre-draw at all, big blind only checks after the limp
    g1 = rg.get_game(3, 2, 2, 1, 1, (1, 2))
    acts1 = {n.history: n.actions for n in g1.decision_nodes()}
    assert acts1[""] == ["f", "c"] and acts1["c"] == ["k"]
    assert acts1["ck/00/b"] == ["f", "c"]
    # hand size 3 with 3 suits: drawing 1 needs a 2-card value
    g3 = rg.get_game(3, 3, 3, 1, 1, (1, 2))
    assert g3.by_history["ck/"].actions == ["0", "1", "2", "3"]
    assert rg.legal_actions(3, 3, 3, 1, 1, (1, 2), "ck/", (0, 3, 6)) == ["0", "2", "3"]


# ---------------------------------------------------------------- hand derivations

def test_trivial_games_by_hand():
    # ranks=2, suits=1, one card, no draw, cap 1: A vs 2.  Button calls with A (+0.5),
    # is indifferent with the 2 (-0.5 either way) -> value 0.
    assert abs(rg.solve_lp(2, 1, 1, 0, 1, (1,))) < 1e-12
    u = rg.make_uniform_policy(2, 1, 1, 0, 1, (1,))
    b0, b1, v = rg.best_response_values(2, 1, 1, 0, 1, (1,), u)
    # uniform: folds half the time (-0.5), otherwise a 0-EV showdown
    assert v == pytest.approx(-0.25, abs=1e-12)
    assert b0 == pytest.approx(0.0, abs=1e-12)  # button's BR: always call
    assert b1 == pytest.approx(0.25, abs=1e-12)  # BB has no choice
    # one-card deck (always a tie), one draw, cap 1.  Uniform:
    # 1/2 fold (-0.5); else round 2: BB k -> (btn k: 0 | btn b -> BB f: +1, c: 0) = 0.25,
    #                                 BB b -> (btn f: -1 | c: 0) = -0.5   => -0.125
    # total = 0.5 * -0.5 + 0.5 * -0.125 = -0.3125
    cfg = (1, 1, 1, 1, 1, (1, 2))
    u = rg.make_uniform_policy(*cfg)
    b0, b1, v = rg.best_response_values(*cfg, u)
    assert v == pytest.approx(-0.3125, abs=1e-12)
    assert b0 == pytest.approx(0.25, abs=1e-12)
    assert b1 == pytest.approx(0.5, abs=1e-12)
    assert rg.solve_lp(*cfg) == pytest.approx(0.0, abs=1e-10)


def test_lp_matches_normal_form_enumeration():
    # independent solution: enumerate pure strategies, solve the matrix game
    v_lp = rg.solve_lp(3, 1, 1, 0, 2, (1,))
    v_nf = rg.normal_form_value(3, 1, 1, 2, (1,))
    assert v_lp == pytest.approx(v_nf, abs=1e-9)
    assert v_lp == pytest.approx(1 / 18, abs=1e-9)
    assert rg.solve_lp(2, 2, 1, 0, 1, (1,)) == pytest.approx(
        rg.normal_form_value(2, 2, 1, 1, (1,)), abs=1e-9)


@pytest.mark.parametrize("cfg", [(3, 2, 2, 0, 2, (1,)), (3, 2, 2, 1, 1, (1, 2))])
def test_factored_lp_equals_pairwise_lp(cfg):
    assert rg.solve_lp(*cfg) == pytest.approx(rg.solve_lp(*cfg, factored=False), abs=1e-9)


# ---------------------------------------------------------------- equilibrium checks

@pytest.mark.parametrize("cfg", [
    (2, 2, 2, 1, 2, (1, 2)),
    (3, 2, 2, 0, 2, (1,)),
    (3, 2, 2, 1, 1, (1, 2)),
    (3, 2, 2, 1, 2, (1, 2)),
])
def test_lp_equilibrium_is_unexploitable(cfg):
    t = time.perf_counter()
    value, pol = rg.solve_lp(*cfg, return_policy=True)
    print(f"\nLP {cfg}: value={value!r} in {time.perf_counter() - t:.2f}s")
    # perfect-recall (full private sequence) strategies
    b0, b1, v = rg.best_response_values(*cfg, pol, sequence_policy=True)
    assert v == pytest.approx(value, abs=1e-9)
    assert b0 == pytest.approx(value, abs=1e-8)
    assert b1 == pytest.approx(-value, abs=1e-8)
    assert (b0 + b1) / 2 < 1e-7
    # strategies keyed on the current hand only (reach-weighted average over past
    # hands) lose nothing in the independent-deck model
    c0, c1, w = rg.best_response_values(*cfg, pol)
    assert w == pytest.approx(value, abs=1e-8)
    assert (c0 + c1) / 2 < 1e-7


def test_explicit_enumeration_agrees_with_factored_evaluation():
    cfg = (2, 2, 2, 1, 2, (1, 2))
    value, pol = rg.solve_lp(*cfg, return_policy=True)
    assert rg.explicit_value(*cfg, pol, pol) == pytest.approx(value, abs=1e-9)
    u = rg.make_uniform_policy(*cfg)
    assert rg.explicit_value(*cfg, u, u) == pytest.approx(
        rg.best_response_values(*cfg, u)[2], abs=1e-12)
    # mixed: equilibrium button vs uniform big blind
    assert rg.explicit_value(*cfg, pol, u) >= value - 1e-9


def test_uniform_policy_is_exploitable():
    cfg = (3, 2, 2, 1, 1, (1, 2))
    u = rg.make_uniform_policy(*cfg)
    b0, b1, v = rg.best_response_values(*cfg, u)
    for x in (b0, b1, v):
        assert x == x and abs(x) < 100
    assert (b0 + b1) / 2 > 0.1
    assert b0 >= v and b1 >= -v
    assert rg.explicit_value(*cfg, u, u) == pytest.approx(v, abs=1e-12)


def test_policy_validation():
    cfg = (2, 1, 1, 0, 1, (1,))

    def bad(seat, history, hand):
        return {"r": 1.0}  # raise is illegal at cap 1

    with pytest.raises(ValueError):
        rg.best_response_values(*cfg, bad)


# ---------------------------------------------------------------- timings (opt-in)

BIG = [
    (3, 2, 2, 0, 2, (1,)),
    (3, 2, 2, 1, 1, (1, 2)),
    (4, 2, 2, 1, 2, (1, 2)),
    (3, 3, 3, 1, 1, (1, 2)),
]


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("REFERENCE_LP_BIG") != "1", reason="set REFERENCE_LP_BIG=1")
@pytest.mark.parametrize("cfg", BIG)
def test_lp_timing_big(cfg):
    t = time.perf_counter()
    value, pol = rg.solve_lp(*cfg, return_policy=True, method="highs-ipm")
    dt = time.perf_counter() - t
    b0, b1, _ = rg.best_response_values(*cfg, pol, sequence_policy=True)
    print(f"\nLP {cfg}: value={value!r} solve={dt:.1f}s expl={(b0 + b1) / 2:.2e}")
    assert (b0 + b1) / 2 < 1e-7
