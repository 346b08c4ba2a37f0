"""The CFR engine against independent references: sequence-form LPs and brute-force best responses."""

import dataclasses
import json
import subprocess
import sys

import numba
import numpy as np
import pytest

import reference_game as ref
from solver.cfr.files import CHECKPOINT_NAME, CheckpointError
from solver.cli import main
from solver.game.config import GameConfig, load_preset
from solver.cfr.algorithms import ALGORITHMS, algorithm_names
from solver.cfr.engine import Engine, Schedule, SolveTooLarge
from solver.cfr.solve import solve
from solver.game.tree import DRAW

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


@pytest.mark.parametrize("name", [pytest.param(name, marks=pytest.mark.slow) if name in SLOW_LP_GAMES else name
                                  for name in LP_GAMES])
def test_cfr_matches_sequence_form_lp(name, ref_args):
    """The value-class CFR reaches the game value of the real-card game: value classes lose nothing."""
    cfg = LP_GAMES[name]
    lp_value = ref.solve_lp(*ref_args(cfg), method="highs-ipm")
    engine = Engine(cfg)
    x = None
    while engine.iteration < 10_000 and (x is None or x.exploitability_mbb >= 0.01):
        engine.run_iterations(1000)
        x = engine.exploitability()
    assert x.exploitability_mbb < 0.01
    assert x.game_value == pytest.approx(lp_value, abs=1e-4)


@pytest.mark.parametrize("name", ["one draw cap 1, 2-card hands", "no-draw cap 2, 2-card hands"])
def test_best_response_agrees_with_brute_force_on_the_real_tree(name, ref_args, engine_policy):
    cfg = LP_GAMES[name]
    engine = Engine(cfg)
    engine.run_iterations(40)  # some strategy that is far from equilibrium
    ours = engine.exploitability()
    br_button, br_bb, value = ref.best_response_values(*ref_args(cfg), engine_policy(engine))
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
def test_fixed_strategies_exploitability_two_ways(name, fill, ref_args, storage_policy):
    """A fixed strategy, stored through the layout and evaluated by the walker (no solve, no
    strategy sums), against the real-card reference."""
    cfg = LP_GAMES[name]
    engine = Engine(cfg)
    tree, layout = engine.tree, engine.layout
    play = layout.storage_from_policy(lambda node: np.broadcast_to(fill(node, tree),
                                                                   (tree.n_children[node], engine.n_states)))
    ours = engine.walker.exploitability(play)
    assert not engine.strat_sum.any()
    br_button, br_bb, value = ref.best_response_values(*ref_args(cfg), storage_policy(tree, layout, play))
    assert ours.exploitability == pytest.approx((br_button + br_bb) / 2, abs=1e-9)
    assert ours.game_value == pytest.approx(value, abs=1e-9)
    assert ours.exploitability > 0.05  # far from equilibrium


@pytest.mark.parametrize("algorithm", algorithm_names())
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
    pos, neg, floor, sum_scale, weight, pos_store, neg_store = dcfr.discount(5)
    assert pos_store == neg_store == 1.0  # stored as computed (StorageScales sets them)
    assert pos == pytest.approx(4 ** 1.5 / (4 ** 1.5 + 1))
    assert neg == 0.5 and floor == 0.0 and weight == 1.0
    assert sum_scale == pytest.approx((4 / 5) ** 2)
    ramp = Schedule()  # the default: dcfr-ramp
    assert ramp.algorithm == "dcfr-ramp"
    for t, alpha in ((5, 1.05), (250, 3.5), (2000, 4.0)):
        pos, neg, floor, sum_scale, weight = ramp.discount(t)[:5]
        assert pos == pytest.approx((t - 1) ** alpha / ((t - 1) ** alpha + 1))
        assert neg == 0.0 and floor == 0.0 and weight == 1.0 and sum_scale == pytest.approx(((t - 1) / t) ** 4)
    assert ramp.discount(1).pos_scale == 0.0 and ramp.discount(1).sum_scale == 0.0
    assert list(Schedule("cfr+").discount(7)) == [1.0, 1.0, 1.0, 1.0, 7.0, 1.0, 1.0]
    assert list(Schedule("cfr").discount(7)) == [1.0, 1.0, 0.0, 1.0, 1.0, 1.0, 1.0]
    assert Schedule("linear").discount(3).pos_scale == pytest.approx(2 / 3)
    with pytest.raises(ValueError, match="unknown algorithm"):
        Schedule("sgd")


def _discounted_pruned_iterations(engine, n):
    """The pruned iterations the plain way: every entry of both seats' sums and of the walking
    seat's regrets discounted by a pass, then a pruned walk that only adds."""
    from solver.cfr import kernels

    layout = engine.layout
    for t in range(engine.iteration + 1, engine.iteration + n + 1):
        d = engine.schedule.discount(t)
        for seat in (0, 1):
            kernels.discount_seat(engine.strat_sum, layout.slot_offset, layout.slot_seat, seat, d.sum_scale,
                                  d.sum_scale, False)
        for seat in (0, 1):
            kernels.discount_seat(engine.regret, layout.slot_offset, layout.slot_seat, seat, d.pos_scale,
                                  d.neg_scale, False)
            engine.walker.walk(seat, kernels.UPDATE_PRUNED, engine.regret, kernels.make_discount(
                sum_weight=d.sum_weight), engine.regret, engine.strat_sum)
            if d.floor > 0.0:
                kernels.discount_seat(engine.regret, layout.slot_offset, layout.slot_seat, seat, 1.0, 1.0, True)
        engine.iteration = t


@pytest.mark.parametrize("algorithm", [row.name for row in ALGORITHMS if row.prunes])
@pytest.mark.parametrize("preset, buckets", [("tiny-double-draw", None), ("tiny-double-draw", (5, 4, 3)),
                                             ("single-draw", None)])
def test_scaled_storage_is_the_storage_discounted_entry_by_entry(algorithm, preset, buckets):
    """A pruned engine keeps the discounts as per-seat factors; its storage times them is what
    discounting every entry every iteration gives (to float32 rounding: three iterations, before
    a rounding can tip an action's regret across zero), and the walks skip subtrees."""
    config = load_preset(preset)
    if buckets:
        config = dataclasses.replace(config, buckets=buckets)
    scaled, plain = Engine(config, algorithm), Engine(config, algorithm, pruned=False)
    assert scaled.scales is not None and plain.scales is None
    scaled.run_iterations(3)
    _discounted_pruned_iterations(plain, 3)
    regret, sums = scaled.regret.copy(), scaled.strat_sum.copy()
    scaled.scales.unscale(plain.layout, regret, sums)
    if algorithm == "dcfr-ramp":  # negative regrets reset: what is stored below zero counts as zero
        assert scaled.scales.factors[1].tolist() == [0.0, 0.0]
        assert np.all(regret[scaled.regret < 0] == 0.0)
        expected = np.maximum(plain.regret, 0.0)
    else:
        expected = plain.regret
    assert np.max(np.abs(regret - expected)) <= 1e-5 * np.max(np.abs(expected))
    assert np.max(np.abs(sums - plain.strat_sum)) <= 1e-5 * np.max(plain.strat_sum)
    if algorithm in ("dcfr-ramp", "linear"):
        assert not np.all(scaled.scales.factors == 1.0)  # the discounts went into the factors


def test_pruned_walks_where_they_apply():
    assert Engine(load_preset("tiny-single-draw"), "dcfr").scales is None  # halved negatives: every entry
    with pytest.raises(ValueError, match="pruned walks need"):
        Engine(load_preset("tiny-single-draw"), "dcfr", pruned=True)
    bucketed = Engine(dataclasses.replace(load_preset("tiny-double-draw"), buckets=(5, 4, 3)))
    assert bucketed.scales is not None  # rows of classes shared, public nodes not
    assert Engine(dataclasses.replace(load_preset("tiny-double-draw"), recall=0)).scales is None


def test_the_command_offers_every_algorithm():
    from solver.cli import build_parser

    solve_parser = build_parser()._subparsers._group_actions[0].choices["solve"]
    choices = next(a.choices for a in solve_parser._actions if a.dest == "algorithm")
    assert tuple(choices) == algorithm_names() and ALGORITHMS[0].name == Schedule().algorithm


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
            assert engine.walker.threads() == threads
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
    import solver.cfr.walker as walker_module
    from solver.cfr import kernels

    cfg = GameConfig(draws=2, cap=1, bets=(1.0, 1.0, 2.0))
    uncut = Engine(cfg)
    uncut.walker.walk_cuts = uncut.walker.cuts(np.zeros(uncut.tree.n_nodes, dtype=bool))
    threads = numba.config.NUMBA_NUM_THREADS
    tree = uncut.tree
    first = (tree.kind == DRAW) & (tree.round == 0)
    n_big_blind = int((first & (tree.kind[np.maximum(tree.parent, 0)] != DRAW)).sum())
    n_button = int((first & (tree.kind[np.maximum(tree.parent, 0)] == DRAW)).sum())
    n_second_round = len(uncut.walker.table_cuts.nodes)
    assert n_big_blind < n_button < n_second_round
    per_thread = {"big blind's draws": n_big_blind, "button's draws": n_button,
                  "second round": n_second_round}[level] / threads
    monkeypatch.setattr(walker_module, "CUTS_PER_THREAD", per_thread)
    monkeypatch.setattr(walker_module, "PARALLEL_MIN_ENTRIES", 0)  # the parallel path, even if small
    cut = Engine(cfg)
    assert len(cut.walker.walk_cuts.nodes) == per_thread * threads
    for engine in (uncut, cut):
        engine.run_iterations(4)
    assert np.array_equal(cut.regret, uncut.regret)
    assert np.array_equal(cut.strat_sum, uncut.strat_sum)
    assert cut.exploitability() == uncut.exploitability()
    # Strategy tables record through whole-tree walks and their own cuts (second round); the
    # truth is one uncut walk recording every decision node.
    decision = np.nonzero(tree.kind <= DRAW)[0]
    truth = uncut.walker.record(decision)
    for seat in (0, 1):
        uncut.walker.walk(seat, kernels.EVALUATE, uncut.strat_sum, record=truth)
    for engine in (uncut, cut):
        seen = 0
        for batch in engine.walker.node_stats(engine.strat_sum):
            rows = truth.index[batch.nodes]
            assert np.allclose(batch.reach, truth.reach[rows], rtol=0, atol=1e-15)
            assert np.allclose(batch.value, truth.value[rows], rtol=0, atol=1e-12)
            seen += len(batch.nodes)
        assert seen == len(decision)


# Figures of commit 74a7de1, the engine before the strategy layout was redesigned: after the same
# iterations, best responses, game value and the average strategy's bytes must not move by one bit.
# (preset, buckets, algorithm, iterations, BR of the button, BR of the big blind, game value, sha256)
PINNED = [
    ("tiny-no-draw", None, "dcfr", 30, "0x1.810e228a213cfp-5", "-0x1.725bb95371361p-5",
     "0x1.77cf689e7d0d7p-5", "5e86263306ea48f7c307f53c298c9b2b0d32b7caf5093c654bd7de08b43a1f54"),
    ("tiny-no-draw", None, "cfr+", 30, "0x1.86e89f1b58a67p-5", "-0x1.6e77c423e0411p-5",
     "0x1.79647971926cep-5", "45199adc0d7102136f5ba757f8b9ee36262ea87003dbbd92cc174b77e92419eb"),
    ("tiny-no-draw", None, "linear", 30, "0x1.91bd0fb2adeebp-5", "-0x1.5c37ae19fc7d6p-5",
     "0x1.71adff22a2143p-5", "831567c6595bd386f9410949a70283dcb96d4216df5f2cf1c09be90c7acdf305"),
    ("tiny-no-draw", None, "cfr", 30, "0x1.ef994f68f1777p-5", "-0x1.b0c56fdeed65ap-6",
     "0x1.803966e3441d0p-5", "2c1d48999e3b5f1e2239b37def5de27fe7136486b8f50960833e48781d4c8ffd"),
    ("tiny-single-draw", None, "dcfr", 30, "0x1.45290ef6ccbf3p-4", "-0x1.3921aa35411a5p-5",
     "0x1.df7183314de50p-5", "be66f3dbeea87662f920091fd909977505d13f1cf0886982e3c5497b89e61acc"),
    ("tiny-single-draw", None, "cfr+", 30, "0x1.28b6800739ec0p-4", "-0x1.5d148aadab4a0p-5",
     "0x1.d14a0c1275db1p-5", "2cc584fd3784267fd87a1afc2c3bf4273b1ce2463b100003ba4735c8de98501a"),
    ("tiny-single-draw", None, "linear", 30, "0x1.6a391c91b81bap-4", "-0x1.2fc65383cfcf1p-5",
     "0x1.f8bcc532cdf3cp-5", "d3bb2dc92a902755116d2c55c352ae685930ce1700537ce30c36eef352f89fca"),
    ("tiny-single-draw", None, "cfr", 30, "0x1.c3397ba302d0ep-4", "0x1.e4381e132f800p-12",
     "0x1.770b2884391f8p-5", "0c50e6048ce4862b5eb4e48cd839ef0fd07cca9dfd220e3d03628837b6824d2e"),
    ("tiny-double-draw", None, "dcfr", 30, "0x1.09391b53ff451p-2", "0x1.f63b792ff8020p-5",
     "0x1.864d224304625p-4", "2e3bb1f35fd4078787e47b58fdea49a95b43d540894ebb58db2843ff01faa218"),
    ("tiny-double-draw", None, "cfr+", 30, "0x1.25bf643c4a0fdp-2", "0x1.88e9808078c19p-4",
     "0x1.dd06b2a50bc52p-4", "eddc622fc7473146d45e86d9ce1b68526b7d14b7d3785a7b3e27b48d2e2d7859"),
    ("tiny-double-draw", None, "linear", 30, "0x1.4a826a1063a96p-2", "0x1.f6e4cd7472bacp-4",
     "0x1.42004c838d16fp-4", "20c81a08c3ea3e50251acdf16a1f43f73fac9ad18bedb29fa30a906ad41b02d0"),
    ("tiny-double-draw", None, "cfr", 30, "0x1.c96d38c26e8cep-2", "0x1.2a40a5b8384f7p-2",
     "0x1.c3dfc09695e15p-4", "f163dfa2c028a9d793e9d68075346710674dc3173930b3d70c7185bb7978631e"),
    ("tiny-double-draw", (5, 4, 3), "dcfr", 30, "0x1.9ade45bf2e208p-2", "0x1.a0c2adbe4c9c3p-3",
     "0x1.113f52a8624d8p-4", "afd566f3c1ca652f60d95b1873694068170640e2ea9b8168b632e3f290441237"),
    ("single-draw", None, "dcfr", 40, "0x1.91d6ca5552d3ap-4", "-0x1.c73bef65dbbc7p-7",
     "0x1.817f1725aba7bp-5", "5251e25d6a525c17d6411429d052e5dcab291444f577319480b58a4fed0df162"),
    ("single-draw", (40, 24), "dcfr", 20, "0x1.50e1ccc2aa127p-2", "0x1.7528d9702cecap-3",
     "0x1.0ef821c956b47p-6", "a8ed9c0cb4fb29b51a24b81e621507919d24977613f0697c5d5f826d55f953d1"),
    # dcfr-ramp came after 74a7de1: pinned as of its introduction (commit after c58ed3e).
    ("tiny-single-draw", None, "dcfr-ramp", 30, "0x1.6a18bac0d66d1p-4", "-0x1.5f9e9363f4413p-5",
     "0x1.0677b3116e95ap-4", "9857e809bf11591482dea46df95f018ac26436604281ec1fa176d889634b8fcd"),
    ("tiny-double-draw", None, "dcfr-ramp", 30, "0x1.2105edd51be08p-2", "0x1.321c6437bd88dp-4",
     "0x1.b66e1d82f1371p-4", "44cdc1216df1a62732a482fa355c41515f73d12b3388f59f804e2400d102f2a6"),
]


@pytest.mark.parametrize("preset, buckets, algorithm, iterations, br_button, br_big_blind, value, digest", PINNED)
def test_figures_are_those_of_before_the_layout_redesign(preset, buckets, algorithm, iterations, br_button,
                                                         br_big_blind, value, digest):
    import dataclasses
    import hashlib

    config = load_preset(preset)
    if buckets:
        config = dataclasses.replace(config, buckets=buckets)
    # (The walks of before: every node visited, every entry discounted; pruned walks came after.)
    engine = Engine(config, algorithm, pruned=False)
    engine.run_iterations(iterations)
    x = engine.exploitability()
    got = (x.br_button, x.br_big_blind, x.game_value)
    pinned = tuple(float.fromhex(h) for h in (br_button, br_big_blind, value))
    # Numba compiles for the host CPU, and fastmath sums in the order its vector width gives: on
    # another CPU (AVX-512 on an AMD EPYC, 2026-12-02) the figures move in their last bits (1 to
    # 64 units in the last place). Where the bits are the pinned ones, so is the strategy.
    assert got == pytest.approx(pinned, rel=1e-12, abs=1e-15)
    if got == pinned:
        assert hashlib.sha256(engine.average_probabilities().tobytes()).hexdigest() == digest


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


def test_a_pruned_solve_keeps_its_scales_in_the_checkpoint_and_refuses_damaged_ones(tmp_path):
    cfg = load_preset("tiny-double-draw")
    solve(cfg, iterations=10, out_dir=tmp_path)
    with np.load(tmp_path / CHECKPOINT_NAME) as saved:
        # Rewritten without its checksums (a file from before them), so that the scales' own check
        # is what refuses it (with them, the checksum of 'scales' would: tests/test_damaged_files.py).
        data = {name: saved[name] for name in saved.files if not name.startswith("checksum_")}
    assert data["scales"].shape == (3, 2) and not np.all(data["scales"] == 1.0)
    data["scales"] = -data["scales"]
    np.savez(tmp_path / CHECKPOINT_NAME, **data)
    with pytest.raises(CheckpointError, match="storage scales"):
        solve(cfg, iterations=20, out_dir=tmp_path, resume=True)


def test_a_checkpoint_of_walks_of_every_entry_resumes_pruned(tmp_path):
    """A checkpoint without scales (format 2, or walks that discount every entry) holds true
    regrets and sums: a pruned engine takes them with factors of 1 and goes on converging."""
    from solver.cfr.files import Checkpoint, CheckpointState

    cfg = load_preset("tiny-double-draw")
    plain = Engine(cfg, pruned=False)
    plain.run_iterations(20)
    before = plain.exploitability().exploitability_mbb
    Checkpoint(cfg, "dcfr-ramp", 20, 1.0, np.zeros((0, 3)),
               CheckpointState(plain.regret.copy(), plain.strat_sum.copy(), [], None),
               plain.layout.row_of).save(tmp_path / CHECKPOINT_NAME)
    resumed = solve(cfg, iterations=300, out_dir=tmp_path, resume=True)
    assert resumed.engine.scales is not None and resumed.iterations == 300
    assert resumed.exploitability.exploitability_mbb < before / 5


def test_resume_refuses_other_config_and_damage(tmp_path):
    solve(load_preset("tiny-no-draw"), iterations=5, out_dir=tmp_path)
    with pytest.raises(CheckpointError, match="not single-draw"):
        solve(load_preset("tiny-single-draw"), iterations=10, out_dir=tmp_path, resume=True)
    with pytest.raises(CheckpointError, match=r"made with dcfr-ramp, not cfr\+"):
        solve(load_preset("tiny-no-draw"), algorithm="cfr+", iterations=10, out_dir=tmp_path, resume=True)
    # Without a named algorithm, a resume takes the checkpoint's (a run made before the default changed).
    solve(load_preset("tiny-no-draw"), algorithm="cfr", iterations=3, out_dir=tmp_path / "old")
    assert solve(load_preset("tiny-no-draw"), iterations=6, out_dir=tmp_path / "old",
                 resume=True).engine.algorithm == "cfr"
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
        Engine(load_preset("triple-draw").at_full_resolution())
    # The preset fits only streamed: the built-tree engine says so rather than build 242 million nodes
    # (in float32; the preset's own 16-bit storage is the streamed solver's alone).
    with pytest.raises(SolveTooLarge, match="streamed"):
        Engine(dataclasses.replace(load_preset("triple-draw"), storage_bits=32))
    with pytest.raises(ValueError, match="16-bit storage is the streamed"):
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
    assert summary["iterations"] == 40 and summary["algorithm"] == "dcfr-ramp"
    assert summary["config"]["draws"] == 1
    rows = (out / "convergence.csv").read_text().splitlines()
    assert rows[0] == "iteration,seconds,exploitability_mbb" and rows[-1].startswith("40,")
    assert (out / "convergence.png").stat().st_size > 1000
    again = _cli("solve", "--out", str(out), "--resume", "--iterations", "80", "--quiet")
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "summary.json").read_text())["iterations"] == 80


@pytest.mark.parametrize("args, message", [
    (["solve", "--preset", "nope", "--iterations", "1"], "unknown preset"),
    (["solve", "--preset", "tiny-no-draw", "--iterations", "-3"], "iterations"),
    (["solve", "--preset", "tiny-no-draw", "--target-exploitability", "0"], "target"),
])
def test_cli_solve_bad_input(args, message):
    proc = _cli(*args)
    assert proc.returncode == 2
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_cli_solve_refuses_a_game_too_big_for_memory(tmp_path):
    path = tmp_path / "full.toml"
    load_preset("triple-draw").at_full_resolution().save(path)
    proc = _cli("solve", "--config", str(path), "--iterations", "1", "--out", str(tmp_path / "run"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "more than this machine" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


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
    from solver.cfr.files import load_checkpoint
    saved = load_checkpoint(out / CHECKPOINT_NAME)
    done = int(saved["iteration"])
    assert done > 0
    again = _cli("solve", "--out", str(out), "--resume", "--iterations", str(done + 10), "--quiet")
    assert again.returncode == 0, again.stderr
    assert json.loads((out / "summary.json").read_text())["iterations"] == done + 10


@pytest.mark.parametrize("seat", [0, 1])
@pytest.mark.parametrize("n", [1, 3, 40, 43])  # the showdown scan runs in four chunks plus a remainder
def test_terminal_values_match_brute_force(seat, n):
    from solver.cfr import kernels

    rng = np.random.default_rng(seat)
    opp_reach = rng.random(n)
    opp_reach[rng.random(n) < 0.3] = 0.0
    # The kernel takes whole walk buffers and indices: reach[d, seat], out[d, k].
    reach = np.zeros((2, 2, n))
    reach[1, 1 - seat] = opp_reach
    out = np.full((1, 3, n), np.nan)
    contrib = np.array([3.0, 3.0])
    kernels.terminal_value(kernels.SHOWDOWN, contrib[seat], reach, 1, 1 - seat, out, 0, 2, n)
    showdown = out[0, 2]
    # Value classes are ordered by strength, 0 best: lower index wins, equal ties.
    brute = np.array([sum(r * 3.0 * np.sign(t - s) for t, r in enumerate(opp_reach)) for s in range(n)])
    assert np.allclose(showdown, brute)
    contrib = np.array([2.0, 4.0])
    kernels.terminal_value(kernels.FOLD, -contrib[seat], reach, 1, 1 - seat, out, 0, 1, n)  # the traverser folds
    fold = out[0, 1]
    assert np.allclose(fold, -contrib[seat] * opp_reach.sum())
    kernels.terminal_value(kernels.FOLD, contrib[1 - seat], reach, 1, 1 - seat, out, 0, 1, n)  # the opponent folds
    assert np.allclose(fold, contrib[1 - seat] * opp_reach.sum())


def test_progress_line_projects_the_time_to_target_and_survives_a_flat_start():
    """The progress line's time left: a power-law projection to the target (halving per
    doubling of iterations from 10 to 5 mbb: 1 mbb at iteration 1,000), capped by the time
    limit; a nearly flat start (3271.28 -> 3271.27, which once overflowed a float and stopped
    a double-draw solve after its first iteration) leaves only the time limit."""
    from types import SimpleNamespace

    from solver.cfr.solve import _progress_line

    x = SimpleNamespace(exploitability_mbb=5.0, game_value_mbb=1.0)
    line = _progress_line(200, x, 20.0, None, 1.0, None, 0.5, [(100, 10.0, 10.0), (200, 20.0, 5.0)])
    assert line.endswith("~400s left")  # 800 more iterations at 0.5 s
    line = _progress_line(200, x, 20.0, None, 1.0, 100.0, 0.5, [(100, 10.0, 10.0), (200, 20.0, 5.0)])
    assert line.endswith("~80s left")
    flat = [(1, 28.5, 3271.2751), (2, 57.0, 3271.27)]
    assert _progress_line(2, x, 57.0, None, 0.1, 1920.0, 28.5, flat).endswith("~1863s left")
    assert _progress_line(2, x, 57.0, None, 0.1, None, 28.5, flat).endswith("remaining unknown")


def test_checks_far_apart_leave_a_line_at_each_quiet_iteration(monkeypatch):
    """With checks every 5 iterations and no quiet stretch allowed, each iteration between
    checks says its own line (its number, the next check, the time left by the limit), and the
    checks still say theirs; with the default stretch (a minute) a quick game says only its
    checks."""
    from solver.cfr import solve as solving

    lines = []
    solve(load_preset("tiny-single-draw"), iterations=11, check_every=5, progress=lines.append)
    assert [line.split()[:2] for line in lines if not line.startswith("iter ")] == []
    monkeypatch.setattr(solving, "QUIET_SECONDS", 0.0)
    monkeypatch.setattr(solving, "PROGRESS_SECONDS", 0.0)  # (every check's line, however quick)
    lines.clear()
    solve(load_preset("tiny-single-draw"), iterations=11, time_limit=3600.0, check_every=5, progress=lines.append)
    checks = [int(line.split()[1]) for line in lines if line.startswith("iter ")]
    quiet = [line for line in lines if line.startswith("iteration ")]
    assert checks == [1, 6, 11]
    assert [int(line.split()[1].rstrip(":")) for line in quiet] == [2, 3, 4, 5, 7, 8, 9, 10]
    assert "(next exploitability check at iteration 6)" in quiet[0]
    assert "s an iteration" in quiet[0] and "s left" in quiet[0]


def _check_schedule(first, per_iteration, check, seconds):
    """The iterations a solve of ``seconds`` checks at, by ``next_check_gap``, when an iteration
    costs ``per_iteration`` (the first ``first``) and a check ``check``; and the time checks took."""
    from solver.cfr.solve import next_check_gap

    elapsed, iteration, checks, spent, next_check = 0.0, 0, [], 0.0, 1
    while elapsed < seconds:
        iteration += 1
        elapsed += first if iteration == 1 else per_iteration
        if iteration >= next_check:
            elapsed += check
            spent += check
            checks.append(iteration)
            next_check = iteration + next_check_gap(iteration, check, first if iteration == 1 else per_iteration,
                                                    spent, elapsed)
    return checks, spent, iteration


def test_checks_keep_to_their_share_of_the_time():
    """Cheap checks (single draw: 8 ms against 7 ms an iteration) come at 1, 2, 3, 4, 6, 9, 13,
    19, 28 and then every 12 iterations, as before; checks of a minute (the cap-4 preset's
    abstract best response, against 75 s an iteration) no longer crowd the start: after the
    first they keep within a tenth of the time, where the old cadence checked 13 times
    (1, 2, 3, 4, 6, 9, 13, 19, 27, ...) and ran 61 iterations in 90 minutes, not 65."""
    from solver.cfr.solve import CHECK_ALLOWANCE, CHECK_SHARE

    checks, spent, iterations = _check_schedule(0.01, 0.007, 0.008, 4.0)
    assert checks[:11] == [1, 2, 3, 4, 6, 9, 13, 19, 28, 40, 52]
    checks, spent, iterations = _check_schedule(155.0, 75.0, 60.0, 5400.0)
    assert checks[0] == 1 and checks[1] > 4
    assert spent > CHECK_ALLOWANCE and spent - 60.0 <= CHECK_SHARE * 5400.0
    assert len(checks) == 8 and checks[-1] >= 55  # the curve still reaches the end of the run
    assert iterations == 65  # 61 with the old cadence


@pytest.mark.parametrize("game", ["recall", "full"])
def test_cluster_plan_counts_what_streamed_actors_hold(game):
    """`badugi plan --machines`: each streamed actor's groups and storage entries are those the
    actors find (GroupsActor, run here in-process), whole groups covering every subtree once; the
    storage is the layout's, the network traffic its cuts' vectors, and the fewest machines of a
    size is the first count whose largest actor fits."""
    from solver.cfr.actors import RayError
    from solver.cfr.planning import cluster_plan, game_parts, plan_actors, smallest_cluster
    from solver.cfr.streamed_ray import GroupsActor
    from solver.game.setup import GameSetup

    config = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, bets=(1.0, 1.0, 2.0, 2.0))
    if game == "recall":
        config = dataclasses.replace(config, buckets=(3, 4, 3, 2), recall=3, draw_limit=1)
    setup = GameSetup(config, streamed=True)
    parts = game_parts(setup)
    groups = len(np.unique(parts.cut_group))
    assert groups == (12 if game == "recall" else len(parts.cut_group))
    plan = plan_actors(parts, 3)
    assert np.array_equal(np.sort(np.concatenate(plan.blocks)), np.arange(len(parts.cut_group)))
    for block, entries in zip(plan.blocks, plan.entries):
        actor = GroupsActor(config, setup.row_of, block)
        assert int(actor.entries()[1][-1]) == entries
    assert sum(plan.entries) + parts.trunk_entries == parts.entries == setup.walked_layout.n_entries
    assert plan.gather_bytes == 8 * parts.entries and min(plan.bytes) > plan.fixed_bytes
    rows = sum(len(GroupsActor(dataclasses.replace(config, storage_bits=16), setup.row_of, block).scales()[0])
               for block in plan.blocks) if game == "recall" else None
    if rows is not None:   # 16-bit: the integers and every row's two scales
        assert plan_actors(parts, 3, 16).gather_bytes == 4 * parts.entries + 8 * (rows + parts.trunk_rows)
    cluster = cluster_plan(config, 3, 64 * 2 ** 30, 2)
    assert (cluster.actors, cluster.groups, cluster.entries) == (3, groups, parts.entries)
    assert cluster.fits and cluster.smallest == 1 and cluster.network_bytes == 2 * len(parts.cut_group) * 4 * \
        parts.states * 8
    one = plan_actors(parts, 1).largest
    tight = smallest_cluster(parts, int(one / 0.75) - 1)   # one actor no longer fits
    assert tight is not None and tight.actors > 1 and tight.largest <= 0.75 * (int(one / 0.75) - 1)
    assert plan_actors(parts, tight.actors - 1).largest > 0.75 * (int(one / 0.75) - 1)
    assert not cluster_plan(config, 1, 2 ** 20, 1).fits and cluster_plan(config, 1, 2 ** 20, 1).smallest is None
    with pytest.raises(RayError, match="no subtrees"):
        cluster_plan(load_preset("tiny-no-draw"), 2, 2 ** 30, 2)
    with pytest.raises(RayError, match="card buckets in every round"):
        cluster_plan(dataclasses.replace(config, buckets=(3, 0, 0, 0), recall=-1, draw_limit=0), 2, 2 ** 30, 2)
