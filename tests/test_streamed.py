"""Games too big to build: layouts by recall rule, the streamed certificate, sampled CFR.

The streamed walks (a built trunk and one shape for every subtree below it) must give the
bits of the walks over a built tree; a recall rule that remembers everything must be the
full public tree; and the certificate must equal brute-force best responses on the
real-card reference game, triple draw included.
"""

import dataclasses
import re

import numpy as np
import pytest

import reference_game as ref
from abstractions.transitions import get_draw_model
from solver.cfr.engine import Engine
from solver.cfr.sampled import SampledEngine
from solver.cfr.streamed import StreamedWalker
from solver.game.setup import GameSetup
from solver.game.tree import StreamedGame
from solver.cfr import kernels
from solver.game.config import GameConfig, load_preset
from solver.game.layout import LayoutError, StrategyLayout
from solver.game.rounds import RoundTemplates
from solver.game.tree import DRAW, build_tree

TINY_TRIPLE = GameConfig(ranks=3, suits=2, hand_size=1, draws=3, cap=1, bets=(1.0, 1.0, 2.0, 2.0))


def streamed(config, layout):
    model = get_draw_model(config.ranks, config.suits, config.hand_size)
    return StreamedWalker(StreamedGame(RoundTemplates.of(config)), layout, model)


@pytest.mark.parametrize("preset, recall, buckets, draws", [
    ("tiny-single-draw", 1, (), False), ("tiny-double-draw", 2, (), False), ("tiny-double-draw", 1, (), False),
    ("tiny-double-draw", 0, (3, 4, 2), False), ("single-draw", 0, (), False), ("single-draw", 1, (40, 24), False),
    ("tiny-double-draw", 1, (), True), ("tiny-double-draw", 0, (3, 4, 2), True), ("single-draw", 0, (), True)])
def test_streamed_walks_are_the_built_tree_walks(preset, recall, buckets, draws):
    """Best responses and value of a strategy in a layout by recall rule: the streamed walks
    (trunk, one shape, cuts filled per walk) give the walks over the built tree (to the last bits:
    the compiler may order a sum differently where the kernel is inlined). ``draws``: the rule
    keeps the draw counts of the rounds it forgets."""
    config = dataclasses.replace(load_preset(preset), recall=recall, buckets=buckets, remember_draws=draws)
    engine = Engine(config)
    engine.run_iterations(40)
    assert engine.layout.rule is not None and engine.layout.shares_slots == (recall < config.draws)
    ours, theirs = streamed(config, engine.layout).exploitability(engine.strat_sum), engine.exploitability()
    for a, b in ((ours.br_button, theirs.br_button), (ours.br_big_blind, theirs.br_big_blind),
                 (ours.game_value, theirs.game_value)):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15)


def test_streamed_walks_of_a_strategy_that_leaves_cuts_unreached():
    """The current strategy of a dcfr-ramp solve (regrets reset at zero: many actions never
    taken) leaves some second-round starts unreached by one seat; such a cut is worth 0 to the
    other, and the streamed walks agree with the built tree's. (A compiled walk once kept such a
    cut's value from the walk before: the big blind's best response came out 1.56 for 0.65.)"""
    config = dataclasses.replace(load_preset("tiny-double-draw"), recall=2)
    engine = Engine(config, pruned=False)  # (its 40 iterations leave cuts unreached; pruned ones others)
    engine.run_iterations(40)
    walker = streamed(config, engine.layout)
    ours, theirs = walker.exploitability(engine.regret), engine.walker.exploitability(engine.regret)
    button_leaves = (walker.cuts.reach[:, 0].sum(axis=1) == 0).sum()
    assert button_leaves > 0  # cuts the big blind's best response must count as 0
    for a, b in ((ours.br_button, theirs.br_button), (ours.br_big_blind, theirs.br_big_blind),
                 (ours.game_value, theirs.game_value)):
        assert a == pytest.approx(b, rel=1e-12, abs=1e-15)
    # Best-response and evaluate walks skip what the opponent never reaches; a walk with a record
    # (here of no node) walks everything: the same bits, on both trees.
    n = engine.n_states
    unpruned = kernels.no_record(engine.tree.n_nodes, n)._replace(reach=np.zeros((1, 2, n)))
    shape_unpruned = walker.arrays.shape_record._replace(reach=np.zeros((1, 2, n)))
    trunk_unpruned = walker.arrays.no_record._replace(reach=np.zeros((1, 2, n)))
    for seat, policy in ((0, kernels.BEST_RESPONSE), (1, kernels.BEST_RESPONSE), (0, kernels.EVALUATE)):
        assert (engine.walker.walk(seat, policy, engine.regret, record=unpruned)
                == engine.walker.walk(seat, policy, engine.regret))
        assert (walker.walk(seat, policy, engine.regret, trunk_unpruned, shape_unpruned)
                == walker.walk(seat, policy, engine.regret))


@pytest.mark.parametrize("config, recall, draws", [
    (load_preset("tiny-double-draw"), 1, True), (load_preset("tiny-double-draw"), 0, False),
    (TINY_TRIPLE, 1, True), (TINY_TRIPLE, 2, False)])
def test_cut_entries_are_what_each_walk_finds(config, recall, draws):
    """The table of storage entries below every cut, built once, holds at every decision node what
    :func:`kernels.fill_cut` finds for that cut from the recall rule; walks reading it give the
    bits of walks that look each entry up."""
    from solver.cfr.streamed import NO_CUT_ENTRIES, cut_entries

    config = dataclasses.replace(config, recall=recall, remember_draws=draws)
    engine = Engine(config)
    engine.run_iterations(20)
    walker = streamed(config, engine.layout)
    game, shape = walker.game, walker.game.shape
    entries = cut_entries(game, engine.layout)
    assert entries.table.shape == (len(game.cut_nodes), int((shape.kind <= DRAW).sum()))
    contrib, offsets = np.empty((shape.n_nodes, 2)), np.empty(shape.n_nodes, np.int64)
    for c in range(len(game.cut_nodes)):
        kernels.fill_cut(walker.arrays.tree, c, contrib, offsets)
        assert np.array_equal(entries.table[c], offsets[entries.decisions])
    assert (entries.table >= 0).any() and len(np.unique(entries.table)) > len(game.cut_nodes)
    looked_up = StreamedWalker(game, engine.layout, walker.model, NO_CUT_ENTRIES)
    for policy in (kernels.BEST_RESPONSE, kernels.EVALUATE):
        for seat in (0, 1):
            assert walker.walk(seat, policy, engine.strat_sum) == looked_up.walk(seat, policy, engine.strat_sum)


def test_a_pruned_update_walk_is_the_full_walk():
    """A pruned update walk (``UPDATE_PRUNED``) skips what the opponent never reaches: the
    traverser's regrets are those of the full walk, and the sums it adds (the opponent's) are the
    ones the opponent's own full walk adds, on a strategy where many subtrees are skipped."""
    from solver.cfr.abstract import AbstractEngine
    from solver.cfr.streamed import update_streamed
    from solver.cfr.walker import read_only

    config = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 4, 2), recall=1, remember_draws=True)
    engine = AbstractEngine(config, pruned=False)
    engine.run_iterations(30)
    regret, sums = engine.regret.copy(), engine.strat_sum.copy()

    def walk(seat, policy):
        engine.regret[:], engine.strat_sum[:] = regret, sums
        adding = kernels.make_discount(sum_weight=2.5)
        arrays = engine.arrays
        storage = kernels.Storage(read_only(regret.copy()), engine.regret, engine.strat_sum, engine._delta)
        update_streamed(seat, policy, adding, engine.bucket_game.deal_prob, arrays.tree, arrays.shape_record,
                        arrays.draws, storage, *engine.chunks(2), arrays.no_record)
        cut_reach = arrays.tree.cuts.reach
        return engine.regret.copy(), engine.strat_sum.copy(), (cut_reach[:, 1 - seat].sum(axis=1) == 0).sum()

    seat_of = np.repeat(engine.layout.slot_seat, np.diff(engine.layout.slot_offset))
    for seat in (0, 1):
        pruned_regret, pruned_sums, skipped_cuts = walk(seat, kernels.UPDATE_PRUNED)
        full_regret, _, _ = walk(seat, kernels.UPDATE)
        _, their_sums, _ = walk(1 - seat, kernels.UPDATE)
        assert skipped_cuts > 0
        assert np.array_equal(pruned_regret, full_regret) and not np.array_equal(pruned_regret, regret)
        assert np.array_equal(pruned_sums[seat_of == seat], sums[seat_of == seat])
        assert np.array_equal(pruned_sums[seat_of != seat], their_sums[seat_of != seat])


def test_pruned_solves_keep_the_regrets_of_full_walks():
    """A pruned solve has the regrets of a solve walking everything, bit for bit, and the big
    blind's strategy sums (to the last bits); the button's sums are over the strategies the big blind faced (one
    update later), so they differ, and both averages converge alike."""
    from solver.cfr.abstract import AbstractEngine

    config = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 4, 2), recall=1, remember_draws=True)
    pruned, full = AbstractEngine(config), AbstractEngine(config, pruned=False)
    for engine in (pruned, full):
        engine.run_iterations(60)
    seat_of = np.repeat(pruned.layout.slot_seat, np.diff(pruned.layout.slot_offset))
    assert np.array_equal(pruned.regret, full.regret)
    # (the same terms, summed by another compiled function: equal to the last bits)
    assert np.allclose(pruned.strat_sum[seat_of == 1], full.strat_sum[seat_of == 1], rtol=1e-5, atol=0)
    assert not np.array_equal(pruned.strat_sum[seat_of == 0], full.strat_sum[seat_of == 0])
    ours, theirs = pruned.exploitability().exploitability_mbb, full.exploitability().exploitability_mbb
    assert abs(ours - theirs) < 0.05 * theirs


@pytest.mark.parametrize("preset", ["tiny-single-draw", "tiny-double-draw"])
def test_perfect_recall_by_rule_is_the_public_tree(preset):
    """Remembering every round is one slot per public node: a solve gives the same bits."""
    base = load_preset(preset)
    full, by_rule = Engine(base, "cfr"), Engine(dataclasses.replace(base, recall=base.draws), "cfr")
    assert by_rule.layout.n_slots == full.layout.n_slots == int((full.tree.kind <= DRAW).sum())
    assert not by_rule.layout.shares_slots
    for engine in (full, by_rule):
        engine.run_iterations(30)
    assert by_rule.exploitability() == full.exploitability()


@pytest.mark.parametrize("config, recall", [
    (load_preset("tiny-double-draw"), 0), (load_preset("tiny-double-draw"), 1),
    (dataclasses.replace(TINY_TRIPLE, cap=2), 1), (dataclasses.replace(TINY_TRIPLE, cap=2), 2)])
@pytest.mark.parametrize("draws", [False, True])
def test_recall_slots_are_the_histories_it_remembers(config, recall, draws):
    """Two decision nodes of the public tree share a slot exactly when their histories agree on
    what the rule remembers: the round, the pot at its start, the last ``recall`` round records
    (betting outcome and both draw counts), the draw counts of older rounds if ``remember_draws``,
    and the position in the round. Keys written here from the tree's annotations, not the rule's
    arithmetic."""
    config = dataclasses.replace(config, recall=recall, remember_draws=draws)
    tree = build_tree(config)
    layout = GameSetup(config).layout
    assert layout.rule.remembers_draws == (draws and recall < config.draws)
    h1 = (config.hand_size + 1) ** 2
    slot_of_key, key_of_slot = {}, {}
    for node in np.nonzero(tree.kind <= DRAW)[0]:
        r = int(tree.round[node])
        records = [int(x) for x in tree.records[node, :r]]
        older = tuple(x % h1 for x in records[recall:]) if draws else ()
        key = (r, round(float(tree.pot[node]), 9), tuple(records[:recall]), older, int(tree.phase[node]))
        slot = int(layout.slot_of[node])
        assert slot_of_key.setdefault(key, slot) == slot
        assert key_of_slot.setdefault(slot, key) == key
    assert len(slot_of_key) == layout.n_slots
    if draws and recall < config.draws:
        plain = dataclasses.replace(config, remember_draws=False)
        assert GameSetup(plain).layout.n_slots < layout.n_slots


def _as_full_recall(engine):
    """An engine's full-resolution strategy sums moved into a full-recall rule layout."""
    config = engine.config
    layout = StrategyLayout.by_recall(RoundTemplates.of(config), engine.model.legal, config.draws)
    on_tree = layout.materialize(engine.tree)
    storage = np.zeros(layout.n_entries, np.float32)
    for node in np.nonzero(engine.tree.kind <= DRAW)[0]:
        on_tree.rows(storage, on_tree.slot_of[node])[:] = engine.layout.rows(engine.strat_sum, engine.layout.slot_of[node])
    return layout, storage


@pytest.mark.parametrize("preset, cap", [("tiny-double-draw", None), ("single-draw", None), ("double-draw", 2)])
def test_certificate_equals_the_built_tree_best_response(preset, cap):
    """The certificate (streamed best response) of a solved strategy equals the engine's exact
    best response on the built tree, to 1e-9 relative."""
    config = load_preset(preset)
    if cap:
        config = dataclasses.replace(config, cap=cap)
    engine = Engine(config)
    engine.run_iterations(3 if cap else 30)
    layout, storage = _as_full_recall(engine)
    ours, theirs = streamed(config, layout).exploitability(storage), engine.exploitability()
    for a, b in ((ours.br_button, theirs.br_button), (ours.br_big_blind, theirs.br_big_blind),
                 (ours.game_value, theirs.game_value)):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("recall", [3, 1])
def test_certificate_equals_brute_force_on_tiny_triple_draw(recall, ref_args, storage_policy):
    """On a tiny triple-draw game, the certificate of a strategy (from a few sampled iterations)
    equals the brute-force best responses of the real-card reference game."""
    config = dataclasses.replace(TINY_TRIPLE, recall=recall)
    engine = SampledEngine(config, seed=3)
    engine.run_iterations(50)
    ours = engine.exploitability()
    tree = build_tree(config)
    policy = storage_policy(tree, engine.layout.materialize(tree), engine.strat_sum)
    br_button, br_bb, value = ref.best_response_values(*ref_args(config), policy)
    assert ours.br_button == pytest.approx(br_button, abs=1e-9)
    assert ours.br_big_blind == pytest.approx(br_bb, abs=1e-9)
    assert ours.game_value == pytest.approx(value, abs=1e-9)


def test_sampled_cfr_converges_to_the_lp_value(ref_args):
    """Full-width (no sampling) and sampled linear CFR on a tiny game approach the value of the
    real-card game's sequence-form LP; a seed fixes every bit."""
    config = GameConfig(ranks=3, suits=2, hand_size=2, draws=1, cap=1, bets=(1.0, 2.0))
    lp_value = ref.solve_lp(*ref_args(config), method="highs-ipm")
    full = SampledEngine(config, sampling=kernels.SAMPLE_NONE)
    full.run_iterations(2000)
    x = full.exploitability()
    assert x.exploitability_mbb < 0.2 and x.game_value == pytest.approx(lp_value, abs=2e-4)
    sampled, again = SampledEngine(config, seed=5), SampledEngine(config, seed=5)
    sampled.run_iterations(300)
    early = sampled.exploitability().exploitability_mbb
    sampled.run_iterations(6000)
    late = sampled.exploitability()
    assert late.exploitability_mbb < early / 3 and late.game_value == pytest.approx(lp_value, abs=0.01)
    again.run_iterations(6300)
    assert np.array_equal(again.strat_sum, sampled.strat_sum)


def test_a_streamed_full_resolution_solve_converges_to_the_lp_value(ref_args):
    """A game without buckets solved over its streamed tree (``streamed=True``) walks the real
    game itself: its checks are exact (no separate certificate) and it reaches the value of the
    real-card sequence-form LP; a game with buckets in some rounds only is refused."""
    from solver.cfr.abstract import AbstractEngine
    from solver.cfr.solve import make_engine
    from solver.game.plan import SolveTooLarge

    config = GameConfig(ranks=3, suits=2, hand_size=2, draws=1, cap=1, bets=(1.0, 2.0))
    lp_value = ref.solve_lp(*ref_args(config), method="highs-ipm")
    engine = make_engine(config, streamed=True)
    assert type(engine) is AbstractEngine and engine.exact_progress and engine.tree is None
    assert engine.game_layout is engine.layout and engine.n_states == engine.bucket_game.n_values
    engine.run_iterations(2000)
    x = engine.exploitability()
    assert x == engine.progress_exploitability()
    assert x.exploitability_mbb < 0.2 and x.game_value == pytest.approx(lp_value, abs=2e-4)
    with pytest.raises(SolveTooLarge, match="card buckets in every round and a recall"):
        make_engine(dataclasses.replace(config, buckets=(3, 0)), streamed=True)


def test_layout_files_from_before_remember_draws_still_load():
    """A layout written before rules could keep draw counts has no ``older`` array: it forgets
    older rounds whole, as it did."""
    config = dataclasses.replace(load_preset("tiny-double-draw"), recall=1)
    legal = get_draw_model(config.ranks, config.suits, config.hand_size).legal
    layout = StrategyLayout.by_recall(RoundTemplates.of(config), legal, 1)
    arrays = {k: v for k, v in layout.arrays().items() if not k.endswith("older")}
    assert len(arrays) == len(layout.arrays()) - 1
    loaded = StrategyLayout.from_arrays(arrays)
    assert loaded.rule.older == 1 and np.array_equal(loaded.rule.code_slot, layout.rule.code_slot)
    richer = StrategyLayout.by_recall(RoundTemplates.of(config), legal, 1, remember_draws=True)
    assert StrategyLayout.from_arrays(richer.arrays()).rule.older == (config.hand_size + 1) ** 2


def test_recall_layouts_refuse_what_cannot_be():
    templates = RoundTemplates.of(load_preset("triple-draw"))
    legal = get_draw_model().legal
    with pytest.raises(LayoutError, match="recall must be"):
        StrategyLayout.by_recall(templates, legal, 4)
    # (at cap 4 the whole history's keys fit the table since rounds that keep every record drop the pot
    # digit: 117 million codes; at cap 6 they do not)
    wide = RoundTemplates.of(dataclasses.replace(load_preset("triple-draw"), cap=6))
    with pytest.raises(LayoutError, match="remember fewer rounds"):
        StrategyLayout.by_recall(wide, legal, 3)
    one = StrategyLayout.by_recall(templates, legal, 1)
    assert one.shares_slots and one.rule.recall == 1
    # Round-one histories keep everything; later ones share: far fewer slots than decision nodes.
    assert one.n_slots < 100_000


@pytest.mark.parametrize("recall, draws", [(0, False), (1, False), (1, True), (0, True), (2, False)])
def test_abstract_updates_are_the_same_bits_on_any_number_of_threads(recall, draws):
    """Subtrees sharing a slot (a history the rule forgets) form one group, walked by one thread:
    groups never write the same entry, and a solve gives the same bits on one thread or two."""
    import numba
    from solver.cfr.abstract import AbstractEngine

    config = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 4, 2), recall=recall,
                                 remember_draws=draws)
    engines = []
    for threads in (1, 2):
        numba.set_num_threads(threads)
        try:
            engine = AbstractEngine(config)
            engine.run_iterations(25)
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
        engines.append(engine)
    assert np.array_equal(engines[0].regret, engines[1].regret)
    assert np.array_equal(engines[0].strat_sum, engines[1].strat_sum)
    # The groups, checked against each cut's slots as the built tree has them.
    engine, tree = engines[0], build_tree(config)
    slot_of = engine.game_layout.materialize(tree).slot_of
    group = engine.cut_group
    owner, cut_of = {}, _cut_of_nodes(tree)
    assert cut_of.max() + 1 == len(group)
    for node in np.nonzero((tree.kind <= DRAW) & (cut_of >= 0))[0]:
        g = group[cut_of[node]]
        assert owner.setdefault(int(slot_of[node]), g) == g
    n_groups = len(set(group.tolist()))
    assert (n_groups == len(group)) == (recall == config.draws)
    assert n_groups > 1 or (recall, draws) == (0, False)  # pot alone ties every subtree together


def _cut_of_nodes(tree):
    """The index of the second-round start above each node of a built tree (-1 above them), in
    the order a streamed game numbers its cuts (the trunk's node order is the built tree's)."""
    from solver.game.tree import BET
    cut_of = np.full(tree.n_nodes, -1, np.int64)
    cuts = np.nonzero((tree.kind == BET) & (tree.round == 1) & (tree.round[np.maximum(tree.parent, 0)] == 0))[0]
    for c, cut in enumerate(cuts):
        cut_of[cut] = c
    for node in range(tree.n_nodes):  # parents come before children
        if cut_of[node] < 0 and tree.parent[node] >= 0:
            cut_of[node] = cut_of[tree.parent[node]]
    return cut_of


def test_abstract_game_solve_is_certified_and_plays_without_a_tree(tmp_path):
    """A solve in the abstract game (bucket vectors, streamed tree, alternating updates): with a
    bucket per class it is the real game, and its certificate equals the abstract measure; its
    strategy file carries no tree, answers policy() through the recall rule and plays matches."""
    from solver.arena.match import play_match
    from solver.cfr.abstract import AbstractEngine
    from solver.cfr.solve import solve
    from solver.tables.strategy import load_strategy

    base = load_preset("tiny-double-draw")
    n = get_draw_model(base.ranks, base.suits, base.hand_size).n_values
    exact = AbstractEngine(dataclasses.replace(base, buckets=(n, n, n)))
    full = Engine(base)
    for engine in (exact, full):
        engine.run_iterations(200)
    assert exact.progress_exploitability().exploitability == pytest.approx(exact.exploitability().exploitability,
                                                                           rel=1e-9)
    assert exact.exploitability().exploitability_mbb < 2 * full.exploitability().exploitability_mbb

    config = dataclasses.replace(base, buckets=(3, 4, 2), recall=1, remember_draws=True)
    result = solve(config, iterations=60, out_dir=tmp_path / "run", streamed=True)
    summary = __import__("json").loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["exploitability_mbb"] == pytest.approx(result.exploitability.exploitability_mbb)
    assert summary["abstract_exploitability_mbb"] < summary["exploitability_mbb"]
    assert 50 * 2**20 < summary["peak_rss_bytes"] < 64 * 2**30  # measured (Python, Numba and the solve), in bytes
    strategy = load_strategy(tmp_path / "run")
    assert strategy.tree is None and strategy.layout.rule.recall == 1 and strategy.layout.rule.remembers_draws
    assert strategy.config == config
    policy = strategy.policy("ck/21/", "As2h")
    assert set(policy) <= {"k", "b"} and sum(policy.values()) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="too big to build, so there is no strategy table"):
        next(strategy.stats())
    match = play_match(None, str(tmp_path / "run"), "random", hands=20_000, seed=2)
    assert match.mbb - match.ci95 > 0
    resumed = solve(config, iterations=80, out_dir=tmp_path / "run", resume=True, streamed=True)
    again = solve(config, iterations=80, out_dir=tmp_path / "again", streamed=True)
    assert resumed.exploitability == again.exploitability


def test_certify_every_keeps_a_certified_curve_through_a_resume(tmp_path, capsys):
    """``certify_every``: the exact certificate every N iterations, the same numbers as a
    certificate of that iteration's storage; kept in the checkpoint through a resume (bit for bit
    the uninterrupted run's), written to certified.csv and the summary, the last one not taken
    twice, and not counted as solving time. A game whose progress is exact needs none: a note."""
    import json

    from solver.cfr.abstract import AbstractEngine
    from solver.cfr.solve import solve
    from solver.cli import main

    config = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 4, 2), recall=1, remember_draws=True)
    reference = AbstractEngine(config)
    expected = []
    for _ in range(3):
        reference.run_iterations(10)
        expected.append(reference.exploitability().exploitability_mbb)
    whole = solve(config, iterations=30, out_dir=tmp_path / "whole", streamed=True, certify_every=10)
    assert [row[0] for row in whole.certified] == [10, 20, 30]
    assert [row[2] for row in whole.certified] == expected
    assert whole.exploitability.exploitability_mbb == expected[-1]  # the last certificate, not a fourth
    assert 0 < whole.certificate_seconds < whole.certificates_seconds
    assert [s for _, s, _ in whole.certified] == sorted(s for _, s, _ in whole.certified)
    assert whole.certified[-1][1] == pytest.approx(whole.seconds)
    summary = json.loads((tmp_path / "whole" / "summary.json").read_text())
    assert [row[2] for row in summary["certified_curve"]] == expected
    lines = (tmp_path / "whole" / "certified.csv").read_text().splitlines()
    assert lines[0] == "iteration,seconds,exploitability_mbb" and [int(x.split(",")[0]) for x in lines[1:]] == [10, 20, 30]

    solve(config, iterations=15, out_dir=tmp_path / "split", streamed=True, certify_every=10)
    split = solve(config, iterations=30, out_dir=tmp_path / "split", streamed=True, certify_every=10, resume=True)
    assert [(i, x) for i, _, x in split.certified] == [(10, expected[0]), (15, split.certified[1][2]),
                                                       (20, expected[1]), (30, expected[2])]
    # A run stopped at a multiple of N before its certificate (here: solved without any) takes it
    # on resuming, then goes on.
    solve(config, iterations=10, out_dir=tmp_path / "late", streamed=True)
    late = solve(config, iterations=20, out_dir=tmp_path / "late", streamed=True, certify_every=10, resume=True)
    assert [(i, x) for i, _, x in late.certified] == [(10, expected[0]), (20, expected[1])]
    # A damaged curve (from before checksums, so that its own check is what refuses it) is one line.
    from solver.cfr.files import CHECKPOINT_NAME, CheckpointError

    with np.load(tmp_path / "split" / CHECKPOINT_NAME) as saved:
        data = {name: saved[name] for name in saved.files if not name.startswith("checksum_")}
    assert data["certified"].shape == (4, 3)
    data["certified"] = data["certified"][:, :2]
    np.savez(tmp_path / "split" / CHECKPOINT_NAME, **data)
    with pytest.raises(CheckpointError, match="certified curve is not rows of three numbers"):
        solve(config, iterations=40, out_dir=tmp_path / "split", streamed=True, resume=True)
    # A run without certify_every certifies at its end only and writes no certified.csv.
    plain = solve(config, iterations=10, out_dir=tmp_path / "whole", streamed=True, resume=False)
    assert plain.certified == [] and not (tmp_path / "whole" / "certified.csv").exists()

    # A game whose every check is exact: a note, and nothing more to certify.
    assert main(["solve", "--preset", "tiny-double-draw", "--iterations", "2", "--certify-every", "1",
                 "--out", str(tmp_path / "exact")]) == 0
    assert "exact at full resolution already: --certify-every adds nothing" in capsys.readouterr().out
    assert not (tmp_path / "exact" / "certified.csv").exists()


@pytest.fixture(scope="module")
def tree_less(tmp_path_factory):
    """A tiny triple draw (three draws, a recall that forgets) solved without building its tree,
    loaded twice: as saved (no tree), and with its tree built and its layout on it."""
    from solver.cfr.solve import solve
    from solver.tables.strategy import load_strategy

    config = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, bets=(1.0, 1.0, 2.0, 2.0),
                                 buckets=(3, 4, 3, 2), recall=1, remember_draws=True)
    run = tmp_path_factory.mktemp("tree-less") / "run"
    solve(config, iterations=30, out_dir=run, streamed=True)
    saved = load_strategy(run)
    assert saved.tree is None
    built = load_strategy(run)
    built.tree = build_tree(config)
    built.layout = built.layout.materialize(built.tree)
    return run, saved, built


def test_charts_of_a_tree_less_game_are_the_built_tree_summary(tree_less):
    """A strategy saved without its tree gets its summary (draw, pat/snow/break, betting and EV
    figures, and the average pot of each situation) from streamed evaluate walks: the same
    figures as the node-by-node summary of the same strategy on its built tree."""
    from solver.tables.charts import write_charts
    from solver.tables.reports import summarise

    run, saved, built = tree_less
    ours, theirs = summarise(saved), summarise(built)
    assert ours.group_labels == theirs.group_labels
    for field in ("draw_reach", "draw_freq", "bet_reach", "bet_freq", "situation_reach", "situation_freq", "deal_ev",
                  "situation_pot"):
        a, b = getattr(ours, field), getattr(theirs, field)
        assert sorted(a) == sorted(b) and len(a) > 0, field
        for key in a:
            np.testing.assert_allclose(a[key], b[key], rtol=1e-9, atol=1e-12, err_msg=f"{field} {key}")
    assert sorted(ours.pat_snow_break) == sorted(theirs.pat_snow_break)
    for key, m in ours.pat_snow_break.items():
        for name, value in m.items():
            assert value == pytest.approx(theirs.pat_snow_break[key][name], rel=1e-9, abs=1e-12)
    # Every round's draws are there, and the charts and CSVs are drawn from them.
    assert {rnd for _, rnd in ours.draw_freq} == {0, 1, 2}
    written = {p.name for p in write_charts(run)}
    assert {"draws_1.png", "draws_3.png", "betting_0_button.png", "betting_3_big-blind.png", "ev_by_hand.png",
            "draws.csv", "pat_snow_break.csv", "situations.csv"} <= written


@pytest.mark.parametrize("history", ["", "c", "ck/", "ck/1", "ck/21/", "ck/21/b", "ck/21/kk/00/", "ck/21/kk/00/bc/1"])
def test_reach_and_values_of_one_history_without_the_tree(tree_less, history):
    """``badugi show --history`` of a tree-less strategy: both seats' reach and values at one
    history, from walks of the subtree below its first round (the whole tree in the first
    round), equal those of the built tree's walks."""
    _, saved, built = tree_less
    ours, theirs = saved.history_stats(history), built.history_stats(history)
    np.testing.assert_allclose(ours.reach, theirs.reach, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ours.value, theirs.value, rtol=1e-9, atol=1e-12)
    assert ours.reach[0].sum() > 0
    decision = saved.decision(history)
    np.testing.assert_allclose(saved.decision_strategy(decision), built.decision_strategy(built.decision(history)))
    assert saved.streamed.needs_whole_walks(history) == (history.count("/") < 2)


def test_show_a_tree_less_strategy(tree_less, capsys):
    from solver.cli import main

    run = tree_less[0]
    assert main(["show", str(run), "--history", "ck/21/b"]) == 0
    table = capsys.readouterr().out
    assert "reached in" in table and "EV mbb" in table and "raise" in table
    assert main(["show", str(run), "--history", "ck/21/b", "--hand", "As2h"]) == 0
    assert "reach: " in capsys.readouterr().out
    assert main(["export", str(run), "--format", "csv"]) == 2
    assert "export the first round (--round 0), or the decisions below a second-round start" in capsys.readouterr().err
    assert main(["export", str(run), "--format", "csv", "--prefix", "ck/21/"]) == 0
    assert "ck/21/" in capsys.readouterr().out


@pytest.mark.parametrize("prefix, max_round", [("ck/21/", 2), ("ck/21/kk/00/", None), ("", 0), ("c", 0),
                                               ("cr", 1)])
def test_explorer_of_a_tree_less_game_is_the_built_tree_one(tree_less, prefix, max_round):
    """``badugi explore`` of a strategy saved without its tree (streamed walks: a subtree below
    the first draw, or the first round from whole-tree walks) writes the same page data as the
    same strategy on its built tree: the same histories, children, reach, frequencies, EV,
    opponent's range and per-class probabilities."""
    from solver.tables.explorer import explorer_data

    _, saved, built = tree_less
    ours = explorer_data(saved, prefix, max_round)
    theirs = explorer_data(built, prefix, max_round)

    def by_history(data):
        nodes = data["nodes"]
        out = {}
        for node in nodes.values():
            node = dict(node)
            node["children"] = [[label, nodes[child]["history"] if child >= 0 else None, end]
                                for label, child, end in node["children"]]
            out[node.pop("history")] = node
        return out

    a, b = by_history(ours), by_history(theirs)
    assert sorted(a) == sorted(b) and len(a) > 1
    assert ours["nodes"][ours["root"]]["history"] == theirs["nodes"][theirs["root"]]["history"]
    for history in a:
        x, y = a[history], b[history]
        for field in ("seat", "draw", "labels", "names", "children", "probs", "locked"):
            assert x[field] == y[field], (history, field)
        assert x["reached"] == pytest.approx(y["reached"], rel=1e-9, abs=1e-15)
        for g, h in zip(x["groups"], y["groups"]):
            assert g[0] == pytest.approx(h[0], rel=1e-6, abs=1e-15)
            np.testing.assert_allclose(g[1], h[1], atol=1e-7)
            assert (g[2] is None) == (h[2] is None) and (g[2] is None or g[2] == pytest.approx(h[2], abs=0.11))
        np.testing.assert_allclose(x["opponent"], y["opponent"], rtol=1e-3)
    for key in ("game", "n_states", "class_names", "group_labels", "prefix"):
        assert ours[key] == theirs[key]


def test_explorer_of_a_tree_less_game_refuses_what_it_cannot_hold(tree_less, tmp_path, capsys):
    from solver.cli import main

    run = tree_less[0]
    assert main(["explore", str(run), "--out", str(tmp_path / "x.html")]) == 2
    assert "--max-round 0" in capsys.readouterr().err
    assert main(["explore", str(run), "--prefix", "ck/9", "--out", str(tmp_path / "x.html")]) == 2
    assert "not possible" in capsys.readouterr().err
    assert main(["explore", str(run), "--prefix", "ck/21/kk/", "--out", str(tmp_path / "sub.html")]) == 0
    text = (tmp_path / "sub.html").read_text()
    assert "ck/21/kk/00/b" in text


def test_unsampled_mccfr_is_linear_cfr():
    """A sampled walk that samples nowhere is the full-width pruned walk of linear CFR: the first
    iteration gives the bits of the built-tree engine's, later ones its storage (regrets and sums
    t times the true ones, as its discounts kept as factors store them) to float32 rounding."""
    config = dataclasses.replace(load_preset("tiny-double-draw"), recall=2)  # perfect recall: one slot a node
    engine, sampled = Engine(config, "linear"), SampledEngine(config, sampling=kernels.SAMPLE_NONE)
    tree = engine.tree
    ours = sampled.layout.materialize(tree)
    spans = [(int(engine.layout.entry_offset[node]), int(ours.entry_offset[node]),
              int(tree.n_children[node]) * engine.n_states) for node in np.nonzero(tree.kind <= DRAW)[0]]

    def gather(storage, which):
        return np.concatenate([storage[span[which]:span[which] + span[2]] for span in spans])

    for t in (1, 2, 3, 4):
        for solver in (engine, sampled):
            solver.run_iterations(1)
        for theirs, mine in ((engine.regret, sampled.regret), (engine.strat_sum, sampled.strat_sum)):
            theirs, mine = gather(theirs, 0), gather(mine, 1)
            assert np.abs(theirs).max() > 0
            if t == 1:
                assert np.array_equal(mine, theirs)
            else:
                assert np.allclose(mine, theirs, rtol=0, atol=1e-6 * np.abs(theirs).max())


def test_sampled_iterations_depend_on_the_seed_alone():
    """Sampled iterations are the same bits for one seed, on one thread or two (each cut draws
    from its own stream), differ with the seed, and skip most cuts."""
    import numba

    config = dataclasses.replace(load_preset("tiny-double-draw"), recall=1)
    runs = {}
    threads = numba.get_num_threads()
    try:
        for name, seed, n_threads in (("a", 7, threads), ("again", 7, threads), ("one thread", 7, 1),
                                      ("other seed", 8, threads)):
            numba.set_num_threads(n_threads)
            engine = SampledEngine(config, seed=seed, sampling=kernels.SAMPLE_ALL)
            engine.run_iterations(20)
            runs[name] = engine
    finally:
        numba.set_num_threads(threads)
    a = runs["a"]
    for name in ("again", "one thread"):
        assert np.array_equal(runs[name].regret, a.regret) and np.array_equal(runs[name].strat_sum, a.strat_sum)
    assert not np.array_equal(runs["other seed"].regret, a.regret)
    # The last walk (the big blind's) skipped the cuts the button's samples never reach.
    unreached = (a.arrays.tree.cuts.reach[:, 0].sum(axis=1) == 0).sum()
    assert unreached > len(a.game.cut_nodes) // 2


def test_a_warm_start_copies_each_buckets_regrets_from_the_coarse_bucket_of_most_of_its_classes(tmp_path, capsys):
    """--warm-start: every fine row holds the regrets of the coarse bucket that holds most of its
    classes (by deal probability), the sums start empty, the iteration and seconds go on; equal
    buckets copy the regrets as they are (a pruned solve's with its factors applied); another
    game, rule or a resume is refused in one line."""
    import json

    from solver.cfr.abstract import AbstractEngine
    from solver.cfr.solve import solve
    from solver.cfr.warm import bucket_map, warm_start
    from solver.cli import main

    base = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, bets=(1.0, 1.0, 2.0, 2.0), recall=1,
                               remember_draws=True)
    coarse = dataclasses.replace(base, buckets=(2, 2, 2, 2))
    fine = dataclasses.replace(base, buckets=(3, 4, 3, 2))
    solved = solve(coarse, iterations=30, out_dir=tmp_path / "coarse", streamed=True)
    engine = AbstractEngine(fine)
    warm = warm_start(engine, tmp_path / "coarse")
    assert warm.iteration == 30 and engine.iteration == 30 and warm.seconds == pytest.approx(solved.seconds, abs=1e-3)
    assert not engine.strat_sum.any()
    # Row by row, against the maps: a class-weighted majority, checked by brute force.
    weight = engine.model.deal_prob
    fine_rows, coarse_rows = engine.layout.row_of, solved.engine.layout.row_of
    mapping = bucket_map(fine_rows, coarse_rows, weight)
    for r in range(fine.rounds):
        for b in range(fine.buckets[r]):
            mass = [weight[(fine_rows[r] == b) & (coarse_rows[r] == c)].sum() for c in range(coarse.buckets[r])]
            assert mapping[r, b] == int(np.argmax(mass))
    lay, old = engine.layout, solved.engine.layout
    for slot in range(0, lay.n_slots, max(1, lay.n_slots // 50)):
        r = lay.slot_round[slot]
        got = engine.regret[lay.slot_offset[slot]:lay.slot_offset[slot + 1]].reshape(lay.slot_actions[slot], -1)
        was = solved.engine.regret[old.slot_offset[slot]:old.slot_offset[slot + 1]].reshape(old.slot_actions[slot], -1)
        assert np.array_equal(got, was[:, mapping[r, :fine.buckets[r]]])
    # Equal buckets: the regrets themselves.
    same = AbstractEngine(coarse)
    warm_start(same, tmp_path / "coarse")
    assert np.array_equal(same.regret, solved.engine.regret)
    # It reads the regrets only (the sums, as big, are never used), so it checks them itself.
    from solver.cfr.files import CHECKPOINT_NAME, Checkpoint, CheckpointError, CheckpointState, load_checkpoint
    full = load_checkpoint(tmp_path / "coarse" / CHECKPOINT_NAME)
    part = load_checkpoint(tmp_path / "coarse" / CHECKPOINT_NAME, regrets_only=True)
    assert part["strat_sum"] is None and np.array_equal(part["regret"], full["regret"])
    damaged = full["regret"].copy()
    damaged[len(damaged) // 2] = np.nan
    (tmp_path / "nan").mkdir()

    def written(regret, warm_start=""):
        Checkpoint(full["config"], str(full["algorithm"]), int(full["iteration"]), float(full["seconds"]),
                   full["convergence"], CheckpointState(regret, full["strat_sum"], [], full["scales"]), full["row_of"],
                   warm_start=warm_start).save(tmp_path / "nan" / CHECKPOINT_NAME)

    written(damaged)
    with pytest.raises(CheckpointError, match="non-finite regrets"):
        warm_start(AbstractEngine(fine), tmp_path / "nan")
    for record in ("{not json", '["a list"]'):
        written(full["regret"], record)
        with pytest.raises(CheckpointError, match="warm-start record is not the JSON"):
            load_checkpoint(tmp_path / "nan" / CHECKPOINT_NAME)

    run = solve(fine, iterations=40, out_dir=tmp_path / "fine", streamed=True, warm_from=tmp_path / "coarse")
    assert run.iterations == 40 and run.seconds > solved.seconds
    summary = json.loads((tmp_path / "fine" / "summary.json").read_text())
    assert summary["warm_start"]["iterations"] == 30 and summary["warm_start"]["from"] == str(tmp_path / "coarse")
    resumed = solve(fine, iterations=45, out_dir=tmp_path / "fine", streamed=True, resume=True)
    assert resumed.warm_start == summary["warm_start"]

    other_rule = dataclasses.replace(fine, recall=2)
    with pytest.raises(ValueError, match="same recall rule"):
        solve(other_rule, iterations=35, streamed=True, warm_from=tmp_path / "coarse")
    with pytest.raises(ValueError, match="same game"):
        solve(dataclasses.replace(fine, cap=1), iterations=35, streamed=True, warm_from=tmp_path / "coarse")
    assert main(["solve", "--out", str(tmp_path / "fine"), "--resume", "--warm-start", str(tmp_path / "coarse"),
                 "--iterations", "50"]) == 2
    assert "--warm-start begins a new run" in capsys.readouterr().err
    assert main(["solve", "--preset", "tiny-double-draw", "--iterations", "2", "--warm-start", str(tmp_path / "nope"),
                 "--out", str(tmp_path / "x")]) == 2
    assert "a warm start needs a run's checkpoint: there is none" in capsys.readouterr().err
    # A built tree's pruned solve (its storage kept with factors) warms a built tree's solve too.
    dd = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(2, 2, 2))
    built = solve(dd, iterations=20, out_dir=tmp_path / "built")
    assert built.engine.scales is not None and not np.all(built.engine.scales.factors == 1.0)
    fine_built = solve(dataclasses.replace(dd, buckets=(3, 4, 2)), iterations=25, out_dir=tmp_path / "built-fine",
                       warm_from=tmp_path / "built")
    assert fine_built.iterations == 25 and fine_built.warm_start["iterations"] == 20
    with pytest.raises(ValueError, match="has 20 iterations already"):
        solve(dd, iterations=20, out_dir=tmp_path / "built-same", warm_from=tmp_path / "built")
    same = Engine(dd)
    warm_start(same, tmp_path / "built")
    true = np.where(built.engine.regret > 0, built.engine.regret * built.engine.scales.factors[0][0], 0)
    seat0 = np.repeat(built.engine.layout.slot_seat == 0, np.diff(built.engine.layout.slot_offset))
    assert np.allclose(same.regret[seat0], true[seat0], rtol=1e-6)


@pytest.mark.parametrize("floor", [False, True])
def test_settling_a_seat_is_its_discount_then_its_delta(floor):
    """``kernels.settle_seat`` leaves what the discount pass before a walk and the delta pass
    after it left: one seat's regrets discounted by sign, plus its delta (floored for CFR+), its
    delta zeroed; the other seat's entries, and their delta, untouched."""
    rng = np.random.default_rng(7)
    slot_offset = np.concatenate([[0], np.cumsum(rng.integers(1, 9, 40))]).astype(np.int64)
    slot_seat = rng.integers(0, 2, 40).astype(np.int64)
    regret = rng.normal(size=slot_offset[-1]).astype(np.float32)
    delta = rng.normal(size=slot_offset[-1]).astype(np.float32)
    seat_of = np.repeat(slot_seat, np.diff(slot_offset))
    delta[seat_of == 0] = 0.0  # a walk of seat 1 writes only his entries
    expected = regret.copy()
    kernels.discount_seat(expected, slot_offset, slot_seat, 1, 0.75, 0.5, False)
    expected[seat_of == 1] += delta[seat_of == 1]
    if floor:
        expected[(seat_of == 1) & (expected < 0)] = 0.0
    before = regret.copy()
    kernels.settle_seat(regret, delta, slot_offset, slot_seat, 1, 0.75, 0.5, floor)
    assert np.allclose(regret, expected, rtol=1e-6, atol=1e-7)
    assert np.array_equal(regret[seat_of == 0], before[seat_of == 0])
    assert not delta.any()
    assert (regret[seat_of == 1] != before[seat_of == 1]).all()


@pytest.fixture(scope="module")
def tree_less_limited(tmp_path_factory):
    """The tiny triple draw of ``tree_less`` with a draw limit: the button's draws of one and two
    cards share their subtrees' slots, so update walks merge them (``StrategyLayout.merge_from``)."""
    from solver.cfr.solve import solve
    from solver.tables.strategy import load_strategy

    config = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, bets=(1.0, 1.0, 2.0, 2.0),
                                 buckets=(3, 4, 3, 2), recall=1, remember_draws=True, draw_limit=1)
    run = tmp_path_factory.mktemp("tree-less-limited") / "run"
    solve(config, iterations=30, out_dir=run, streamed=True)
    saved = load_strategy(run)
    assert saved.layout.merge_from == 1
    built = load_strategy(run)
    built.tree = build_tree(config)
    built.layout = built.layout.materialize(built.tree)
    return saved, built


@pytest.mark.parametrize("history", ["ck/12/", "ck/22/", "ck/02/b", "ck/22/kk/12/", "ck/12/kk/22/bc/1"])
def test_one_history_below_a_merged_draw_count(tree_less_limited, history):
    """Reach and values at histories below the button's draws of one and two cards (merged in
    the solve's walks): each history's own, as the built tree's walks give them."""
    saved, built = tree_less_limited
    ours, theirs = saved.history_stats(history), built.history_stats(history)
    reach = np.asarray(ours.reach)
    assert reach.reshape(-1, reach.shape[-1]).sum(axis=1).min() > 0   # every seat reaches it
    np.testing.assert_allclose(ours.reach, theirs.reach, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ours.value, theirs.value, rtol=1e-9, atol=1e-12)


def test_certify_at_fractions_of_the_time_limit_and_the_spread_of_the_last_certificates(tmp_path, capsys):
    """``certify_at``: a certificate at the first iteration boundary past each fraction of the time
    limit (solving seconds; the certificates' own time apart), the same numbers as certifying that
    iteration's storage, and the end's; their spread in the summary and on the command's last lines.
    A run resumed past a fraction without its certificate takes it first. Bad fractions, and
    fractions without a time limit, are one line each."""
    import json

    from solver.cfr.abstract import AbstractEngine
    from solver.cfr.solve import solve
    from solver.cli import main

    config = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 4, 2), recall=1, remember_draws=True)

    def certificates(iterations):
        reference = AbstractEngine(config)
        out = []
        for i in iterations:
            reference.run_iterations(i - reference.iteration)
            out.append(reference.exploitability().exploitability_mbb)
        return out

    solve(config, iterations=2, streamed=True)   # (compiled first: a streamed game's first iteration compiles)
    limit = 1.5
    run = solve(config, time_limit=limit, out_dir=tmp_path / "run", streamed=True, certify_at=(0.75, 0.5))
    assert len(run.certified) == 3
    (i1, s1, x1), (i2, s2, x2), (i3, s3, x3) = run.certified
    assert i1 < i2 < i3 == run.iterations and 0.5 * limit <= s1 < 0.75 * limit <= s2 < s3 == pytest.approx(run.seconds)
    assert [x1, x2, x3] == certificates([i1, i2, i3])
    spread = (max(x1, x2, x3) - min(x1, x2, x3)) / min(x1, x2, x3)
    assert run.certified_spread == pytest.approx(spread)
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["certified_spread"] == pytest.approx(spread, abs=1e-6)

    # Stopped past half its time without a certificate, then resumed: taken at once, then at 3/4.
    first = solve(config, time_limit=0.6 * limit, out_dir=tmp_path / "resumed", streamed=True)
    resumed = solve(config, time_limit=limit, out_dir=tmp_path / "resumed", streamed=True, resume=True,
                    certify_at=(0.5, 0.75))
    assert [row[0] for row in resumed.certified][0] == first.iterations and len(resumed.certified) == 3
    assert resumed.certified[1][1] >= 0.75 * limit

    with pytest.raises(ValueError, match="needs a time limit"):
        solve(config, iterations=3, streamed=True, certify_at=(0.5,))
    assert main(["solve", "--config", str(tmp_path / "run" / "config.toml"), "--streamed", "--time-limit", "1",
                 "--certify-at", "0.5,0.8", "--no-charts", "--out", str(tmp_path / "cli")]) == 0
    said = capsys.readouterr().out
    assert "certified at 0.5, 0.8 of the time limit and at the end: " in said and "% apart (" in said
    # Checks far apart: a certificate between them says which iteration its abstract figure is from.
    assert main(["solve", "--config", str(tmp_path / "run" / "config.toml"), "--streamed", "--time-limit", "1",
                 "--certify-at", "0.5", "--check-every", "100000", "--no-charts", "--out", str(tmp_path / "far")]) == 0
    assert re.search(r"iteration \d+: certified [\d.]+ mbb/hand \(abstract [\d.]+ at iteration 1\)",
                     capsys.readouterr().out)
    for bad, message in (("1", "between 0 and 1"), ("0.5,x", "fractions of the time limit")):
        assert main(["solve", "--preset", "tiny-double-draw", "--time-limit", "1", "--certify-at", bad]) == 2
        assert message in capsys.readouterr().err
    assert main(["solve", "--preset", "tiny-double-draw", "--iterations", "2", "--certify-at", "0.5",
                 "--out", str(tmp_path / "none")]) != 0
    assert "--certify-at needs --time-limit" in capsys.readouterr().err
