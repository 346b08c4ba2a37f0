"""One engine protocol (solver.cfr.protocol) and one table of algorithms (solver.cfr.algorithms).

Every engine answers the solve loop through the same interface, the solve loop never asks which
engine it has, each engine's checkpoint resumes bit for bit through that interface, and an
algorithm's row is what --help, the README's table and the engine read.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
from pathlib import Path

import numpy as np
import pytest

from solver.cfr import algorithms
from solver.cfr.abstract import AbstractEngine
from solver.cfr.algorithms import ALGORITHMS, Algorithm, algorithm_help, algorithm_names, algorithm_table
from solver.cfr.distributed import RayEngine
from solver.cfr.engine import Engine, Schedule
from solver.cfr.files import Checkpoint, CheckpointError, load_checkpoint
from solver.cfr.kernels import make_discount
from solver.cfr.locks import LockError
from solver.cfr.protocol import PROTOCOL_ATTRIBUTES, PROTOCOL_METHODS, SolverEngine
from solver.cfr.quantized import QuantizedEngine
from solver.cfr.sampled import SampledEngine
from solver.cfr.streamed_ray import StreamedRayEngine
from solver.game.config import GameConfig, load_preset

ENGINES = (Engine, RayEngine, AbstractEngine, QuantizedEngine, SampledEngine, StreamedRayEngine)
SOLVE = Path(__file__).resolve().parent.parent / "solver" / "cfr" / "solve.py"
STREAMED = dataclasses.replace(load_preset("tiny-double-draw"), buckets=(3, 4, 2), recall=1, remember_draws=True)
SAMPLED = GameConfig(ranks=3, suits=2, hand_size=2, draws=1, cap=1, bets=(1.0, 2.0))

# Small engines of every kind that runs in one process (RayEngine and StreamedRayEngine:
# tests/test_ray.py, which needs Ray).
MAKERS = {
    "built, pruned": lambda: Engine(load_preset("tiny-double-draw")),
    "built, dcfr": lambda: Engine(load_preset("tiny-double-draw"), "dcfr"),
    "built, buckets": lambda: Engine(dataclasses.replace(load_preset("tiny-double-draw"), buckets=(5, 4, 3))),
    "abstract": lambda: AbstractEngine(STREAMED),
    "abstract, 16-bit": lambda: QuantizedEngine(dataclasses.replace(STREAMED, storage_bits=16)),
    "sampled": lambda: SampledEngine(SAMPLED, seed=4),
}


def test_the_protocol_lists_what_the_solve_loop_needs():
    methods = {name for name, value in vars(SolverEngine).items() if inspect.isfunction(value) and name[0] != "_"}
    assert methods == set(PROTOCOL_METHODS)
    assert {"config", "algorithm", "plan", "layout", "tree", "iteration", "locks", "exact_progress"} \
        <= set(PROTOCOL_ATTRIBUTES)


@pytest.mark.parametrize("engine_class", ENGINES, ids=lambda c: c.__name__)
@pytest.mark.parametrize("method", PROTOCOL_METHODS)
def test_every_engine_implements_every_method(engine_class, method):
    """Each engine class has its own implementation (not the protocol's empty one) taking the
    protocol's parameters."""
    implementation = getattr(engine_class, method, None)
    assert callable(implementation), f"{engine_class.__name__} has no {method}"
    assert implementation is not getattr(SolverEngine, method)
    wanted = list(inspect.signature(getattr(SolverEngine, method)).parameters)
    assert list(inspect.signature(implementation).parameters) == wanted


@pytest.mark.parametrize("kind", MAKERS)
def test_every_engine_has_every_attribute(kind):
    engine = MAKERS[kind]()
    for name in PROTOCOL_ATTRIBUTES:
        assert hasattr(engine, name), f"{kind}: no {name}"
    assert engine.iteration == 0 and isinstance(engine.algorithm, str) and isinstance(engine.exact_progress, bool)


def _engine_uses(tree: ast.AST) -> set[str]:
    """Attributes read off names that hold an engine in solve.py (``engine``, ``e``)."""
    return {node.attr for node in ast.walk(tree) if isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name) and node.value.id in ("engine", "e")}


def test_the_solve_loop_never_asks_which_engine_it_has():
    """solve.py calls no hasattr / isinstance / getattr / type, and reads nothing off an engine
    but the protocol's attributes and methods (make_engine, the one place that picks, builds them)."""
    tree = ast.parse(SOLVE.read_text())
    asking = [node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call)
              and isinstance(node.func, ast.Name) and node.func.id in ("hasattr", "isinstance", "getattr", "type")]
    assert asking == []
    assert _engine_uses(tree) <= set(PROTOCOL_METHODS) | set(PROTOCOL_ATTRIBUTES)
    assert "restore" in _engine_uses(tree) and "checkpoint_state" in _engine_uses(tree)  # (the scan sees calls)


def _checkpoint(engine, path: Path) -> Path:
    state = engine.checkpoint_state(path)
    Checkpoint(engine.config, engine.algorithm, engine.iteration, 1.0, np.zeros((0, 3)), state,
               engine.layout.row_of).save(path)
    return path


@pytest.mark.parametrize("kind", MAKERS)
def test_a_restored_checkpoint_resumes_bit_for_bit(kind, tmp_path):
    """Through the protocol alone: 5 iterations, a checkpoint, a new engine restored from it, 5
    more: the 10-iteration run's storage, bit for bit (a pruned solve's storage factors too)."""
    once = MAKERS[kind]()
    once.run_iterations(10)
    first = MAKERS[kind]()
    first.run_iterations(5)
    path = _checkpoint(first, tmp_path / "checkpoint.npz")
    resumed = MAKERS[kind]()
    resumed.restore(load_checkpoint(path, resumed.config, resumed.algorithm), path)
    assert resumed.iteration == 5
    resumed.run_iterations(5)
    for a, b in zip(resumed.checkpoint_state(path), once.checkpoint_state(path)):
        if isinstance(a, np.ndarray):
            assert a.tobytes() == b.tobytes()
        elif isinstance(a, tuple):   # 16-bit storage's row scales
            assert [x.tobytes() for x in a] == [y.tobytes() for y in b]
        else:
            assert a == b
    if kind == "built, pruned":
        assert once.checkpoint_state(path).scales is not None


@pytest.mark.parametrize("kind", ["built, pruned", "abstract", "abstract, 16-bit"])
def test_reset_storage_is_a_new_engine(kind):
    fresh, used = MAKERS[kind](), MAKERS[kind]()
    used.run_iterations(4)
    used.reset_storage()
    assert used.iteration == 0
    used.restart()  # (nothing to restart in one process)
    for engine in (fresh, used):
        engine.run_iterations(3)
    assert used.checkpoint_state(None)[0].tobytes() == fresh.checkpoint_state(None)[0].tobytes()
    assert used.checkpoint_state(None)[1].tobytes() == fresh.checkpoint_state(None)[1].tobytes()


@pytest.mark.parametrize("kind", ["built, pruned", "abstract", "abstract, 16-bit"])
def test_a_checkpoint_of_another_game_is_refused(kind, tmp_path):
    engine = MAKERS[kind]()
    data = {"regret": np.zeros(7, np.float32), "strat_sum": np.zeros(7, np.float32), "shards": [], "scales": None,
            "iteration": 3}
    with pytest.raises(CheckpointError, match=r"x\.npz does not match this game's tree \(7 entries, expected"):
        engine.restore(data, tmp_path / "x.npz")


def test_a_streamed_engine_refuses_a_built_tree_ray_runs_shards(tmp_path):
    """A streamed game resumes from streamed actors' shards (tests/test_ray.py), not from the
    shards of a built tree's actors, nor from missing ones."""
    from solver.cfr.files import save_shard

    save_shard(tmp_path / "s.npz", np.zeros(5, np.float32), np.zeros(5, np.float32), np.arange(2))
    for name, message in (("s.npz", "written by a Ray run of a built tree; this game is streamed"),
                          ("gone.npz", "a shard of the checkpoint is missing")):
        data = {"regret": np.zeros(7, np.float32), "strat_sum": np.zeros(7, np.float32),
                "shards": [(tmp_path / name, np.arange(2))], "scales": None, "iteration": 3}
        with pytest.raises(CheckpointError, match=message):
            MAKERS["abstract"]().restore(data, tmp_path / "x.npz")


# -- the table of algorithms ---------------------------------------------------------------------

@pytest.mark.parametrize("row", ALGORITHMS, ids=lambda row: row.name)
def test_each_row_is_what_help_the_readme_table_and_the_engine_read(row):
    assert f"{row.name}" in algorithm_help() and row.help in algorithm_help()
    assert f"| `{row.name}`" in algorithm_table() and f" | {row.help} |" in algorithm_table()
    engine = Engine(load_preset("tiny-single-draw"), row.name)
    assert engine.schedule.row is row and engine.algorithm == row.name
    assert (engine.scales is not None) == row.prunes
    for t in (1, 2, 7, 300):
        assert engine.schedule.discount(t) == make_discount(**row.discount(t))


FAKE = Algorithm("fake-linear", "a test's copy of linear CFR that never prunes and cannot be locked",
                 alpha=1.0, beta=1.0, gamma=1.0, prunes=False, lockable=False)


@pytest.fixture
def fake_row(monkeypatch):
    """A row added to the table for one test: nothing else to change."""
    monkeypatch.setattr(algorithms, "ALGORITHMS", algorithms.ALGORITHMS + (FAKE,))
    return FAKE


def test_a_new_row_flows_into_help_the_readme_table_and_the_engine(fake_row):
    from solver.cli import build_parser

    assert algorithm_names()[-1] == "fake-linear"
    assert f"fake-linear: {FAKE.help}" in algorithm_help()
    assert (f"| `fake-linear` | {FAKE.help} | no (on a built tree): every node walked, every entry discounted | no |"
            in algorithm_table().splitlines())
    solve_parser = build_parser()._subparsers._group_actions[0].choices["solve"]
    option = next(a for a in solve_parser._actions if a.dest == "algorithm")
    assert "fake-linear" in option.choices and FAKE.help in option.help
    config = load_preset("tiny-single-draw")
    fake, linear = Engine(config, "fake-linear"), Engine(config, "linear", pruned=False)
    assert fake.scales is None  # its row does not prune
    with pytest.raises(ValueError, match="pruned walks need one of dcfr-ramp, cfr\\+, linear, cfr,"):
        Engine(config, "fake-linear", pruned=True)
    for engine in (fake, linear):
        engine.run_iterations(12)
    assert fake.regret.tobytes() == linear.regret.tobytes() and fake.strat_sum.tobytes() == linear.strat_sum.tobytes()
    with pytest.raises(LockError, match="fake-linear solves cannot be locked"):
        fake.set_locks(None)


def test_unknown_algorithms_name_the_choices():
    with pytest.raises(ValueError, match=r"unknown algorithm 'sgd' \(choose from dcfr-ramp, dcfr, cfr\+, linear, "
                                         r"cfr\)"):
        Schedule("sgd")


def test_only_float32_engines_in_this_process_take_a_warm_start(tmp_path):
    """A warm start fills float32 storage held in this process (solver.cfr.warm asks the engine,
    not its class): 16-bit rows and sampled solves are refused in one line, before anything is read."""
    from solver.cfr.solve import solve
    from solver.cfr.warm import warm_start

    solve(STREAMED, iterations=2, out_dir=tmp_path / "coarse", streamed=True)
    assert AbstractEngine.warm_startable and Engine.warm_startable
    assert not (RayEngine.warm_startable or StreamedRayEngine.warm_startable or QuantizedEngine.warm_startable
                or SampledEngine.warm_startable)
    for kind in ("abstract, 16-bit", "sampled"):
        with pytest.raises(ValueError, match="a warm start begins a one-process solve with float32 storage"):
            warm_start(MAKERS[kind](), tmp_path / "coarse")
    assert warm_start(MAKERS["abstract"](), tmp_path / "coarse").iteration == 2


def test_one_table_of_combinations_builds_every_engine():
    """make_engine picks from solver.cfr.combinations.COMBINATIONS: every combination's engine implements
    the protocol, and a game lands on the combination of its tree, storage and runner."""
    from solver.cfr.combinations import COMBINATIONS, engine_class
    from solver.cfr.solve import make_engine

    assert {engine_class(*key) for key in COMBINATIONS} | {SampledEngine} == set(ENGINES)
    assert ("built", "16-bit", "threads") not in COMBINATIONS   # (refused by check_solvable, in one line)
    assert type(make_engine(load_preset("tiny-double-draw"))) is engine_class("built", "float32", "threads")
    assert type(make_engine(STREAMED, streamed=True)) is engine_class("streamed", "float32", "threads")
    sixteen = dataclasses.replace(STREAMED, storage_bits=16)
    assert type(make_engine(sixteen, streamed=True)) is engine_class("streamed", "16-bit", "threads")
