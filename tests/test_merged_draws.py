"""Merged draw counts (``StrategyLayout.merge_from``, ``kernels.traverse``): where a recall rule
gives the button's larger draw counts one key at every later node, his update and best-response
walks take their subtrees once. The same updates as walking each one, up to float rounding."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from solver.cfr.abstract import AbstractEngine
from solver.cfr.quantized import QuantizedEngine
from solver.cfr.streamed import unmerged
from solver.game.config import load_preset
from solver.game.setup import GameSetup

TINY_TRIPLE = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, cap=2, bets=(1.0, 1.0, 2.0, 2.0),
                                  buckets=(3, 4, 3, 2))
DOUBLE_CAP2 = dataclasses.replace(load_preset("double-draw"), cap=2, buckets=(8, 8, 8), recall=1, draw_limit=3)
# The preset's rule (the whole history, draws of 3 or more as 3) at cap 1.
TRIPLE_CAP1 = dataclasses.replace(load_preset("triple-draw"), cap=1, buckets=(16, 16, 16, 16), storage_bits=32)


def _engine(config, merged: bool = True):
    setup = GameSetup(config, streamed=True)
    engine = (QuantizedEngine if config.storage_bits == 16 else AbstractEngine)(setup)
    if not merged:
        engine.arrays = unmerged(engine.arrays)
    return engine


def test_which_draw_counts_merge():
    """The button's counts merge from the rule's draw limit on; keeping nothing of older rounds
    merges them all; a rule that keeps every count merges none."""
    def first(config):
        return GameSetup(config, streamed=True).layout.merge_from

    assert first(load_preset("triple-draw")) == 3
    assert first(DOUBLE_CAP2) == 3
    assert first(dataclasses.replace(TINY_TRIPLE, recall=0)) == 0
    assert first(dataclasses.replace(TINY_TRIPLE, recall=1, draw_limit=1)) == 1
    assert first(dataclasses.replace(TINY_TRIPLE, recall=1)) == -1
    assert first(dataclasses.replace(TINY_TRIPLE, recall=0, remember_draws=True)) == -1
    assert first(dataclasses.replace(TINY_TRIPLE, recall=0, remember_draws=True, draw_limit=1)) == 1


@pytest.mark.parametrize("config, iterations", [
    (dataclasses.replace(TINY_TRIPLE, recall=0), (0, 3, 50)),
    (dataclasses.replace(TINY_TRIPLE, recall=2, draw_limit=1), (0, 3, 50)),
    (DOUBLE_CAP2, (0, 3, 50)),
    (TRIPLE_CAP1, (0, 3, 20)),
], ids=["tiny-recall-0", "tiny-recall-2-limit-1", "double-cap2", "triple-cap1"])
def test_a_merged_walk_makes_the_tree_walks_updates(config, iterations):
    """From the same storage, one iteration of merged walks leaves what one iteration of tree
    walks leaves, to 1e-5 of the largest entry, at several points of a solve, but for at most one
    entry in 100,000. (Entries whose exact value is 0, equal actions' regrets, come out as +-1e-15
    from rounding either way and regret matching turns the sign into different strategies: over
    many iterations the two drift apart, as a tree walk perturbed by 1e-7 does, BENCHMARKS.md,
    "Merged draw counts"; and even in one iteration such a tie can fall the other way at a node on
    another processor: on an AMD EPYC with AVX2, 25 regrets and 2 sums of triple-cap1's 5.9 million
    entries after iteration 3, where the rest agree to 1e-7.)"""
    merged = _engine(config)
    tree = _engine(config, merged=False)
    done = 0
    for at in iterations:
        merged.run_iterations(at - done)
        done = at
        regret, sums = merged.regret.copy(), merged.strat_sum.copy()
        tree.load_storage(regret, sums)
        tree.iteration = merged.iteration
        merged.run_iterations(1)
        tree.run_iterations(1)
        for a, b in ((merged.regret, tree.regret), (merged.strat_sum, tree.strat_sum)):
            far = np.abs(a - b) > 1e-5 * np.abs(b).max()
            assert far.sum() <= 1e-5 * len(b)
        merged.load_storage(regret, sums)
        merged.iteration = at
    assert not np.array_equal(regret, np.zeros_like(regret))


def test_sixteen_bit_storage_merges_too():
    """The 16-bit engine's merged walk: the same storage as its tree walk after one iteration
    from the same state, to one step of a row's scale in a few entries (a strategy sum's
    stochastic rounding may fall the other way when its addition differs in the last bits)."""
    config = dataclasses.replace(TRIPLE_CAP1, storage_bits=16, buckets=(8, 8, 8, 8))
    merged, tree = _engine(config), _engine(config, merged=False)
    merged.run_iterations(5)
    regret, sums = merged.regret.copy(), merged.strat_sum.copy()
    for engine in (merged, tree):
        engine.load_storage(regret, sums)
        engine.iteration = 5
    merged.run_iterations(1)
    tree.run_iterations(1)
    for which in ("regret", "sum"):
        a, b = (e.storage.decoded(which).astype(np.float64) for e in (merged, tree))
        far = np.abs(a - b) > 1e-5 * np.abs(b).max()
        assert far.mean() < 1e-3
        assert np.abs(a - b).max() <= 1e-3 * np.abs(b).max()


def test_a_certificate_is_the_same_merged():
    """Best responses at full resolution (the certificate) and the game value of one strategy,
    walked merged and not: the same figures."""
    config = dataclasses.replace(TINY_TRIPLE, recall=2, draw_limit=1)
    engine = _engine(config)
    engine.run_iterations(30)
    walker = engine.certifier   # classes at full resolution, read through the rule
    assert walker.arrays.tree.trunk_layout.merge_from == 1
    play = engine.strat_sum
    merged = walker.exploitability(play)
    walker.arrays = unmerged(walker.arrays)
    tree = walker.exploitability(play)
    for name in ("br_button", "br_big_blind", "game_value"):
        assert getattr(merged, name) == pytest.approx(getattr(tree, name), rel=1e-9, abs=1e-12)
    assert merged.exploitability_mbb > 0
