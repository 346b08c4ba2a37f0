"""Helpers shared by the test files (fixtures, so no test file imports another)."""

import dataclasses

import numpy as np
import pytest

from abstractions.evaluator import get_evaluator
from solver.cfr.walker import class_strategy


def _ref_args(cfg):
    """A config as the real-card reference (``tests/reference_game.py``) takes it."""
    return (cfg.ranks, cfg.suits, cfg.hand_size, cfg.draws, cfg.cap, cfg.bets)


def _class_policy(tree, config, strategy_at):
    """policy(seat, history, hand) for the reference code, from ``strategy_at(node)``:
    (actions, classes) probabilities."""
    evaluator = get_evaluator(config.ranks, config.suits, config.hand_size)
    values, nodes = {}, {}

    def policy(seat, history, hand):
        if history not in nodes:
            node = tree.node_at(history)
            assert tree.seat[node] == seat, (history, seat)
            labels = [chr(tree.action[c]) for c in tree.children(node)]
            nodes[history] = (labels, strategy_at(node))
        hand = tuple(hand)
        if hand not in values:
            values[hand] = evaluator.evaluate(np.array(hand))
        labels, probs = nodes[history]
        return {label: float(p) for label, p in zip(labels, probs[:, values[hand]]) if p > 0}

    return policy


@pytest.fixture
def ref_args():
    return _ref_args


@pytest.fixture
def engine_policy():
    """policy(seat, history, hand) over an engine's average strategy."""
    return lambda engine: _class_policy(engine.tree, engine.config, engine.average_strategy)


@pytest.fixture
def storage_policy():
    """policy(seat, history, hand) over a strategy stored in a layout (a fixed strategy), as
    walks play it."""
    return lambda tree, layout, storage: _class_policy(
        tree, tree.config, lambda node: class_strategy(layout, storage, node))


@pytest.fixture(scope="session")
def tree_less_run(tmp_path_factory):
    """solved(iterations) -> the run folder of a tiny triple draw with card buckets (3/4/3/2),
    recall 1 and draw counts remembered, solved in its abstract game over a streamed tree (no
    tree built); each count of iterations is solved once a session. Tests read these folders and
    write elsewhere."""
    from solver.cfr.solve import solve
    from solver.game.config import load_preset

    config = dataclasses.replace(load_preset("tiny-double-draw"), draws=3, bets=(1.0, 1.0, 2.0, 2.0),
                                 buckets=(3, 4, 3, 2), recall=1, remember_draws=True)
    runs = {}

    def solved(iterations: int):
        if iterations not in runs:
            directory = tmp_path_factory.mktemp(f"tree-less-{iterations}") / "run"
            solve(config, iterations=iterations, out_dir=directory, streamed=True)
            runs[iterations] = directory
        return runs[iterations]

    return solved
