"""CFR with card buckets: the regrets it aggregates, the strategies it shares, and its best response."""

import dataclasses

import numpy as np
import pytest

import reference_game as ref
from solver.game.config import GameConfig, load_preset
from solver.cfr.engine import Engine
from solver.game.plan import plan_solve
from solver.cfr import kernels
from solver.game.tree import DRAW

TINY_ONE_DRAW = GameConfig(ranks=3, suits=2, hand_size=2, draws=1, cap=1, bets=(1.0, 2.0))


def with_buckets(config, buckets):
    return dataclasses.replace(config, buckets=tuple(buckets))


def decision_nodes(engine):
    return np.nonzero(engine.tree.kind <= DRAW)[0]


def own_chance_reach(engine, node, seat):
    """The seat's chance-only reach of each class at ``node``: the deal pushed through the
    transition matrices of the seat's own draws on the path (own choices count 1)."""
    tree, model = engine.tree, engine.model
    path = []
    while tree.parent[node] >= 0:
        path.append(node)
        node = int(tree.parent[node])
    path.append(node)
    chance = model.deal_prob.copy()
    for child in reversed(path[:-1]):
        parent = int(tree.parent[child])
        if tree.kind[parent] == DRAW and tree.seat[parent] == seat:
            chance = chance @ model.dense(int(child - tree.first_child[parent]))
    return chance


def test_one_bucket_per_class_reproduces_full_resolution():
    """Identity buckets run the bucketed code path and agree with the full-resolution solver:
    step by step early on (up to float32 rounding), and at convergence on the game value."""
    base = load_preset("tiny-double-draw")
    full = Engine(base, "cfr")
    bucketed = Engine(with_buckets(base, [full.n_states] * base.rounds), "cfr")
    assert bucketed.layout.bucketed and bucketed.layout.n_entries == full.layout.n_entries
    full.run_iterations(5)
    bucketed.run_iterations(5)
    a, b = full.exploitability(), bucketed.exploitability()
    assert b.exploitability == pytest.approx(a.exploitability, rel=1e-6)
    assert b.game_value == pytest.approx(a.game_value, rel=1e-6)
    worst = max(np.abs(full.average_strategy(n) - bucketed.average_strategy(n)).max() for n in decision_nodes(full))
    assert worst < 1e-4

    full = Engine(TINY_ONE_DRAW)
    bucketed = Engine(with_buckets(TINY_ONE_DRAW, [full.n_states] * 2))
    full.run_iterations(2000)
    bucketed.run_iterations(2000)
    a, b = full.exploitability(), bucketed.exploitability()
    assert a.exploitability_mbb < 0.05 and b.exploitability_mbb < 0.05
    assert b.game_value_mbb == pytest.approx(a.game_value_mbb, abs=0.02)


def test_bucket_regret_sums_chance_weighted_class_regrets():
    """After one vanilla-CFR update of the button (uniform play before it), a bucket's regret is
    the sum over its classes of (own chance reach) x (the full-resolution class regret)."""
    base = load_preset("tiny-double-draw")
    full = Engine(base, "cfr")
    bucketed = Engine(with_buckets(base, [3, 4, 2]), "cfr")
    layout = bucketed.layout
    assert layout.row_width.tolist() == [3, 4, 2]
    for engine in (full, bucketed):
        # the button's half of iteration 1
        engine.walker.walk(0, kernels.UPDATE, engine.regret, engine.schedule.discount(1), engine.regret,
                           engine.strat_sum)
    checked = 0
    for node in decision_nodes(full):
        if full.tree.seat[node] != 0:
            continue
        chance = own_chance_reach(full, node, 0)
        slot = layout.slot_of[node]
        buckets = layout.row_of[layout.slot_round[slot]]
        expected = np.zeros((full.tree.n_children[node], layout.row_width[layout.slot_round[slot]]))
        full_rows = full.layout.rows(full.regret, full.layout.slot_of[node])
        for s in range(full.n_states):
            expected[:, buckets[s]] += chance[s] * full_rows[:, s]
        got = layout.rows(bucketed.regret, slot)
        assert np.allclose(got, expected, rtol=1e-5, atol=1e-7), node
        checked += np.count_nonzero(expected)
    assert checked > 1000


def test_strategy_is_shared_within_a_bucket():
    config = with_buckets(load_preset("tiny-double-draw"), [3, 4, 2])
    engine = Engine(config)
    engine.run_iterations(50)
    layout = engine.layout
    for node in decision_nodes(engine):
        strategy = engine.average_strategy(node)
        rnd = engine.tree.round[node]
        labels = layout.row_of[rnd]
        for b in range(layout.row_width[rnd]):
            members = strategy[:, labels == b]
            legal = engine.model.legal[labels == b] if engine.tree.kind[node] == DRAW else None
            assert np.allclose(members, members[:, :1]), (node, b)
            if legal is not None:
                assert (legal == legal[:1]).all()  # a bucket's classes have the same legal draws
        assert np.allclose(strategy.sum(axis=0), 1.0)


def test_bucketed_best_response_is_the_full_resolution_one(ref_args, engine_policy):
    """The best response to a bucketed strategy sees value classes: it equals the full-resolution
    engine's on the expanded strategy, and the brute-force best response on the real-card tree."""
    config = with_buckets(TINY_ONE_DRAW, [2, 2])
    bucketed = Engine(config)
    bucketed.run_iterations(300)
    ours = bucketed.exploitability()
    full = Engine(TINY_ONE_DRAW)
    theirs = full.walker.exploitability(full.layout.storage_from_policy(bucketed.average_strategy))
    assert ours.br_button == pytest.approx(theirs.br_button, abs=1e-8)  # float32 storage of the expanded strategy
    assert ours.br_big_blind == pytest.approx(theirs.br_big_blind, abs=1e-8)  # float32 storage of the expanded strategy
    assert ours.game_value == pytest.approx(theirs.game_value, abs=1e-8)  # float32 storage of the expanded strategy
    br_button, br_bb, value = ref.best_response_values(*ref_args(TINY_ONE_DRAW), engine_policy(bucketed))
    assert ours.br_button == pytest.approx(br_button, abs=1e-9)
    assert ours.br_big_blind == pytest.approx(br_bb, abs=1e-9)
    assert ours.game_value == pytest.approx(value, abs=1e-9)
    # Two buckets a round lose something real against a full-resolution opponent.
    full = Engine(TINY_ONE_DRAW)
    full.run_iterations(300)
    assert ours.exploitability_mbb > 10 * full.exploitability().exploitability_mbb


def test_more_buckets_cost_less():
    """Coarse to fine on tiny double draw: exploitability at full resolution falls as buckets grow."""
    base = load_preset("tiny-double-draw")
    figures = []
    for k in (1, 3, 10):
        engine = Engine(with_buckets(base, [k] * base.rounds))
        engine.run_iterations(300)
        figures.append(engine.exploitability().exploitability_mbb)
    assert figures[0] > figures[1] > figures[2]
    # Rounds can mix: buckets in the middle round only land between full resolution and 3 everywhere.
    mixed = Engine(with_buckets(base, [0, 5, 0]))
    mixed.run_iterations(300)
    full = Engine(base)
    full.run_iterations(300)
    assert full.exploitability().exploitability_mbb < mixed.exploitability().exploitability_mbb < figures[1]


def test_plan_counts_bucketed_storage():
    base = load_preset("tiny-double-draw")
    for buckets in ([3, 4, 2], [10, 10, 10], [0, 5, 0]):
        config = with_buckets(base, buckets)
        engine = Engine(config)
        assert plan_solve(config).storage_entries == engine.layout.n_entries
        assert engine.regret.size == engine.layout.n_entries
    full = plan_solve(load_preset("triple-draw").at_full_resolution())
    bucketed = plan_solve(with_buckets(load_preset("triple-draw").at_full_resolution(), [8, 8, 8, 8]))
    assert bucketed.full_resolution_bytes == full.bytes
    assert bucketed.storage_entries * 1092 == pytest.approx(full.storage_entries * 8, rel=1e-12)
    assert "full resolution" in bucketed.describe()


def test_bucketed_solve_resumes_and_loads_as_a_strategy(tmp_path):
    """A bucketed run resumes bit for bit, and its strategy file plays per class through its buckets."""
    from solver.cfr.solve import solve
    from solver.tables.strategy import load_strategy

    config = with_buckets(load_preset("tiny-double-draw"), [3, 4, 2])
    whole = solve(config, iterations=40, out_dir=tmp_path / "whole")
    solve(config, iterations=20, out_dir=tmp_path / "split")
    split = solve(config, iterations=40, out_dir=tmp_path / "split", resume=True)
    assert split.exploitability == whole.exploitability
    strategy = load_strategy(tmp_path / "whole")
    assert strategy.config == config
    assert strategy.exploitability_mbb == pytest.approx(whole.exploitability.exploitability_mbb)
    node = strategy.node("ck/")  # the big blind's first draw
    labels = strategy.layout.row_of[strategy.tree.round[node]]
    ev = strategy.evaluator
    deck_hands = {}
    for hand in ["As2h", "As3h", "Ah2h", "2s3s", "As4h", "3s4h"]:
        value = strategy.hand_class(hand)
        deck_hands.setdefault(int(labels[value]), []).append((hand, ev.describe(value)))
    shared = [hands for hands in deck_hands.values() if len({name for _, name in hands}) > 1]
    assert shared, "no two of these hands share a bucket"
    for hands in shared:
        first = strategy.policy("ck/", hands[0][0])
        for hand, _ in hands[1:]:
            assert strategy.policy("ck/", hand) == pytest.approx(first)


@pytest.mark.parametrize("buckets,recall", [((3, 4, 3, 2), 1), ((4, 4, 4, 4), 2)])
def test_the_abstract_games_rows_are_its_buckets_own_and_walks_skip_the_expansion(monkeypatch, buckets, recall):
    """In the abstract game every bucket has a row position of its own (rounds with fewer
    buckets than the widest pad theirs with states of no mass), so its walks regret-match rows in
    place and update them without the scatter through ``row_of``; the storage is the one the
    expanding walks leave (to rounding), padded rounds included. The real game's rows are
    shared by classes."""
    from solver.cfr.abstract import AbstractEngine
    from solver.game.layout import StrategyLayout

    config = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, bets=(1.0, 1.0, 2.0, 2.0),
                                 buckets=buckets, recall=recall, remember_draws=recall == 1)
    fast = AbstractEngine(config)
    assert fast.game_layout.own_rows and fast.game_layout.kernel_arrays().own_rows
    assert not fast.layout.own_rows and fast.layout.kernel_arrays().shared_rows
    fast.run_iterations(20)
    monkeypatch.setattr(StrategyLayout, "own_rows", property(lambda self: False))
    slow = AbstractEngine(config)
    assert not slow.game_layout.kernel_arrays().own_rows
    slow.run_iterations(20)
    for a, b in ((fast.regret, slow.regret), (fast.strat_sum, slow.strat_sum)):
        assert np.abs(b).max() > 0
        assert np.allclose(a, b, rtol=1e-6, atol=1e-7 * np.abs(b).max())


def test_the_abstract_game_shares_the_real_games_slots_and_key_table():
    """The abstract game's layout is the real game's slots and recall rule (the same arrays: at
    cap 4 the key table alone is 1.7 GiB), with the buckets' own rows; rows of other widths
    cannot share it."""
    from solver.cfr.abstract import AbstractEngine
    from solver.game.layout import LayoutError

    config = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, bets=(1.0, 1.0, 2.0, 2.0),
                                 buckets=(3, 4, 3, 2), recall=1, remember_draws=True)
    engine = AbstractEngine(config)
    real, abstract = engine.layout, engine.game_layout
    assert abstract.rule is real.rule and abstract.slot_offset is real.slot_offset
    assert abstract.slot_actions is real.slot_actions and abstract.row_of is not real.row_of
    assert (abstract.row_width == real.row_width).all() and abstract.own_rows and not real.own_rows
    narrower = np.minimum(real.row_of, 1)
    with pytest.raises(LayoutError, match="cannot share a layout"):
        real.with_rows(real.class_legal, narrower)


@pytest.mark.parametrize("buckets,recall", [((3, 4, 3, 2), 1), ((4, 4, 4, 4), 2)])
def test_dense_transition_rows_leave_the_storage_the_sets_leave(monkeypatch, buckets, recall):
    """The abstract game's draws read its transition rows as dense matrices (zero where a draw is
    illegal and for padding states); they add the same products in the same order as the rows'
    sets, so 20 iterations leave the same storage to rounding (the two loops' multiply-adds are
    fused differently: the preset's tables give the same bits, this tiny game's the last bits of
    a few values). The real game's tables stay sets (classes)."""
    from solver.cfr import walker
    from solver.cfr.abstract import AbstractEngine

    config = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, bets=(1.0, 1.0, 2.0, 2.0),
                                 buckets=buckets, recall=recall, remember_draws=recall == 1)
    dense = AbstractEngine(config)
    tables = dense.arrays.draws
    assert tables.dense.shape == (4, config.hand_size + 1, max(buckets), max(buckets))
    for r in range(3):
        rows = tables.dense[r].sum(axis=2)  # (draw, state): each legal draw of a real state sums to 1
        real = np.arange(max(buckets)) < buckets[r]
        assert np.allclose(rows.T[real][tables.legal[r][real]], 1.0)
        assert not rows.T[~real].any()
    assert not tables.dense[3].any()
    dense.run_iterations(20)
    monkeypatch.setattr(walker, "DENSE_LIMIT", 0)
    sets = AbstractEngine(config)
    assert sets.arrays.draws.dense.shape[0] == 0
    sets.run_iterations(20)
    for a, b in ((dense.regret, sets.regret), (dense.strat_sum, sets.strat_sum)):
        assert np.abs(b).max() > 0
        assert np.allclose(a, b, rtol=1e-6, atol=1e-7 * np.abs(b).max())


@pytest.mark.parametrize("buckets,recall,bits,pruned", [((3, 4, 3, 2), 1, 32, True), ((4, 4, 2, 2), 2, 16, True),
                                                        ((2, 4, 4, 3), 2, 32, False)])
def test_walks_take_each_rounds_vectors_only_as_wide_as_its_states(buckets, recall, bits, pruned):
    """A bucket game's vectors are padded to the most buckets of any round; walks take them at a
    node of round r only as wide as round r's buckets and every later round's (the preset's last
    round: 16 of 64). Update, best-response and evaluate walks give what the walks over the whole
    padded width give (to rounding: a showdown's prefix sums come in chunks of a quarter of the
    width), whether the rounds' buckets shrink, stay or grow."""
    from solver.cfr.abstract import AbstractEngine
    from solver.cfr.quantized import QuantizedEngine

    config = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, bets=(1.0, 1.0, 2.0, 2.0),
                                 buckets=buckets, recall=recall, remember_draws=recall == 1, storage_bits=bits)
    kind = QuantizedEngine if bits == 16 else AbstractEngine
    narrow, wide = kind(config, pruned=pruned), kind(config, pruned=pruned)
    tables = narrow.arrays.draws
    assert list(tables.round_states) == list(buckets)
    assert list(tables.round_width) == [max(buckets[r:]) for r in range(4)]
    full = np.full(4, max(buckets), np.int64)
    wide.arrays = wide.arrays._replace(draws=tables._replace(round_states=full, round_width=full))
    for engine in (narrow, wide):
        engine.run_iterations(20)
    # (16 bits: a rounding step, 1/32,767 of a row's largest entry, may fall either way.)
    tol = 1e-6 if bits == 32 else 1e-3
    for which in ("regret", "sum"):
        a, b = (_float_storage(engine, which) for engine in (narrow, wide))
        assert np.abs(b).max() > 0
        assert np.allclose(a, b, rtol=10 * tol, atol=tol * np.abs(b).max())
    walker = wide.abstract_walker
    walker.arrays = walker.arrays._replace(draws=walker.arrays.draws._replace(round_states=full, round_width=full))
    got, expected = narrow.progress_exploitability(), wide.progress_exploitability()
    for field in ("br_button", "br_big_blind", "game_value"):
        assert getattr(got, field) == pytest.approx(getattr(expected, field), rel=tol, abs=1e-9)
    assert got.exploitability > 0


def _float_storage(engine, which: str) -> np.ndarray:
    """An engine's regrets or strategy sums as float64 (16-bit storage decoded)."""
    if getattr(engine, "storage_bits", 32) == 16:
        return np.asarray(engine.storage.decoded(which, 0, engine.game_layout.n_slots), np.float64)
    return np.asarray(engine.regret if which == "regret" else engine.strat_sum, np.float64)


def test_the_last_rounds_buckets_against_ranges_reach_the_solver():
    """``last_round_buckets = "ranges"`` gives the layout the last round's map against the ranges
    (the earlier rounds' unchanged), and the solve is certified at full resolution as any other."""
    from abstractions.buckets import bucket_map

    base = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 3, 3))
    plain = Engine(base)
    ranges = Engine(dataclasses.replace(base, last_round_buckets="ranges"))
    c = base
    assert np.array_equal(ranges.layout.row_of[2][:ranges.model.n_values],
                          bucket_map(c.ranks, c.suits, c.hand_size, c.draws, 2, 3, last="ranges"))
    assert np.array_equal(ranges.layout.row_of[:2], plain.layout.row_of[:2])
    assert not np.array_equal(ranges.layout.row_of[2], plain.layout.row_of[2])
    ranges.run_iterations(100)
    assert 0.0 < ranges.exploitability().exploitability_mbb < float("inf")
