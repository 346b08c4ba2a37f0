"""Scale-out on Ray (solver/cfr/distributed.py): subtrees in actors on a simulated two-node
cluster, the same bits as one process.

Ray is an optional extra: without it these tests skip, except where BADUGI_REQUIRE_RAY is set
(`.ci/run` installs the extra and sets it).
"""

import dataclasses
import os
import re
import shutil
import sys

import numpy as np
import pytest

from solver.cfr.engine import Engine
from solver.cfr.solve import RaySetup, solve
from solver.game.config import load_preset

try:
    import ray
    from ray.cluster_utils import Cluster
except ImportError:  # pragma: no cover - the default install has no Ray
    if os.environ.get("BADUGI_REQUIRE_RAY"):
        raise
    pytest.skip("Ray is not installed (pip install -e '.[ray]')", allow_module_level=True)

from solver.cfr.distributed import RayEngine, RayError, Shard, describe, piece_digests
from solver.cfr.files import SHARD_DIR, CheckpointError
from solver.cfr.combinations import engine_class, storage_name


@pytest.fixture(scope="module")
def cluster():
    """Two Ray nodes on this machine, each with its own CPUs and memory: actors land on both."""
    if ray.is_initialized():
        ray.shutdown()
    nodes = Cluster(initialize_head=True, head_node_args={"num_cpus": 2, "memory": 2 * 1024 ** 3})
    nodes.add_node(num_cpus=2, memory=2 * 1024 ** 3)
    nodes.wait_for_nodes()
    ray.init(address=nodes.address, logging_level="ERROR", log_to_driver=False)
    yield nodes.address
    ray.shutdown()
    nodes.shutdown()


def _streamed_ray(config):
    """The engine the combinations table gives a streamed game of ``config``'s storage on Ray."""
    return engine_class("streamed", storage_name(config.storage_bits), "ray")


def _tiny_triple():
    return dataclasses.replace(load_preset("tiny-double-draw"), draws=3, bets=(1.0, 1.0, 2.0, 2.0))


def _tiny_recall():
    """Tiny triple draw at cap 2 in an abstract game over a streamed tree: buckets, the whole
    history with a draw limit (the preset's kind of rule; its subtrees share slots in 12 groups)."""
    return dataclasses.replace(_tiny_triple(), cap=2, buckets=(3, 4, 3, 2), recall=3, draw_limit=1)


@pytest.mark.parametrize("actors", [1, 2, 3])
def test_actors_compute_the_one_process_bits(cluster, actors):
    """Single draw, 12 DCFR iterations: every regret and strategy sum equal bit for bit to one
    process's, whatever the number of actors; the game value and best responses too (to the
    last bit but one: Numba's fresh and cached builds of the best-response walk can differ in
    the last bit, in one process as well)."""
    config = load_preset("single-draw")
    one = Engine(config)
    one.run_iterations(12)
    engine = RayEngine(config, address=cluster, actors=actors, actor_cpus=0.5)
    try:
        assert len(engine.actors) == actors and sum(s.n_entries for s in engine.shards) + engine.trunk.n_entries \
            == one.layout.n_entries
        engine.run_iterations(12)
        assert np.array_equal(engine.regret, one.regret)
        assert np.array_equal(engine.strat_sum, one.strat_sum)
        # Each actor's seconds of update walks an iteration, for the progress line; then none new.
        assert re.fullmatch(r"actors " + "/".join([r"\d+\.\d\d"] * actors) + " s an iteration",
                            engine.progress_note())
        assert engine.progress_note() == "" and one.progress_note() == ""
        # Piece-by-piece digests (what the benchmark compares at cap 4, where gathering costs memory).
        assert engine.digests() == piece_digests(one.walker, one.regret, one.strat_sum, actors)
        if actors == 2:
            kept = one.regret[engine.shards[1].start[-1]]
            one.regret[engine.shards[1].start[-1]] = kept + 1.0
            assert engine.digests()[2] != piece_digests(one.walker, one.regret, one.strat_sum, actors)[2]
            assert engine.digests()[:2] == piece_digests(one.walker, one.regret, one.strat_sum, actors)[:2]
            one.regret[engine.shards[1].start[-1]] = kept
        a, b = engine.exploitability(), one.exploitability()
        for field in ("br_button", "br_big_blind", "game_value"):
            assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-13, abs=1e-15)
        # The strategy file's chunks, streamed from the shards (small chunks: many of them).
        ours = np.concatenate(list(engine.average_probability_chunks(max_entries=5000)))
        assert np.array_equal(ours, one.average_probabilities())
        if actors == 3:
            hosts = ray.get([actor.pid.remote() for actor in engine.actors])
            assert len(set(hosts)) == 3 and os.getpid() not in hosts
            assert "3 actor(s) own" in describe(engine)
    finally:
        engine.shutdown()


def test_strategy_file_and_resume_are_the_one_process_run(cluster, tmp_path):
    """Tiny triple draw: 8 iterations on two actors, resumed to 16 on three, writes the strategy
    file of 16 uninterrupted iterations in one process, byte for byte."""
    config = _tiny_triple()
    solve(config, iterations=16, out_dir=tmp_path / "one")
    solve(config, iterations=8, out_dir=tmp_path / "ray", ray=RaySetup(cluster, 2, 0.5))
    result = solve(config, iterations=16, out_dir=tmp_path / "ray", resume=True, ray=RaySetup(cluster, 3, 0.5))
    result.engine.shutdown()
    ours = (tmp_path / "ray" / "strategy.npz").read_bytes()
    assert ours == (tmp_path / "one" / "strategy.npz").read_bytes()


def test_checkpoints_are_written_shard_by_shard(cluster, tmp_path, capsys):
    """A Ray run's checkpoint holds the driver's trunk and names one shard file per actor (the
    actors write them); it resumes in one process (shards assembled) to the uninterrupted run's
    strategy; a missing shard is a one-line error."""
    from solver.cfr.files import load_checkpoint
    from solver.cli import main

    config = _tiny_triple()
    solve(config, iterations=12, out_dir=tmp_path / "one")
    solve(config, iterations=6, out_dir=tmp_path / "ray", ray=RaySetup(cluster, 3, 0.5)).engine.shutdown()
    data = load_checkpoint(tmp_path / "ray" / "checkpoint.npz")
    assert len(data["shards"]) == 3 and all(path.is_file() for path, _ in data["shards"])
    assert data["regret"].size < Engine(config).layout.n_entries  # the trunk only
    assert sorted(p.name for p in (tmp_path / "ray" / "checkpoint.shards").iterdir()) == \
        sorted(path.name for path, _ in data["shards"])
    shutil.copytree(tmp_path / "ray", tmp_path / "broken")
    solve(config, iterations=12, out_dir=tmp_path / "ray", resume=True)
    assert (tmp_path / "ray" / "strategy.npz").read_bytes() == (tmp_path / "one" / "strategy.npz").read_bytes()
    assert not (tmp_path / "ray" / "checkpoint.shards").exists()  # replaced by a whole checkpoint
    (tmp_path / "broken" / data["shards"][1][0].relative_to(tmp_path / "ray")).unlink()
    assert main(["solve", "--out", str(tmp_path / "broken"), "--resume", "--iterations", "14", "--quiet"]) == 2
    assert "a shard of the checkpoint is missing" in capsys.readouterr().err


def test_a_lost_actor_changes_nothing(cluster, tmp_path, monkeypatch):
    """An actor killed mid-run: new actors take the last checkpoint and the iterations since are
    run again; the strategy file is the uninterrupted run's."""
    import solver.cfr.solve as solve_module

    config = _tiny_triple()
    solve(config, iterations=20, out_dir=tmp_path / "one")
    monkeypatch.setattr(solve_module, "CHECKPOINT_SECONDS", 0.0)  # a checkpoint at every check
    monkeypatch.setattr(solve_module, "CHECKPOINT_SHARE", 0.0)
    killed = []
    original = RayEngine.run_iterations

    def run_and_kill(self, n):
        if self.iteration == 13 and not killed:
            killed.append(ray.get(self.actors[1].pid.remote()))
            ray.kill(self.actors[1])
        original(self, n)

    monkeypatch.setattr(RayEngine, "run_iterations", run_and_kill)
    lines = []
    result = solve(config, iterations=20, out_dir=tmp_path / "ray", ray=RaySetup(cluster, 2, 0.5),
                   progress=lines.append)
    result.engine.shutdown()
    assert killed and any("actor was lost during iteration 14" in line for line in lines)
    assert (tmp_path / "ray" / "strategy.npz").read_bytes() == (tmp_path / "one" / "strategy.npz").read_bytes()


def test_a_locked_game_on_actors_is_the_one_process_locked_solve(cluster, tmp_path):
    """Node locks on Ray: each actor plays, keeps (best responses) and reports (average strategy)
    the locks at its own nodes, the driver those of the trunk: after 30 iterations on 2 actors the
    storage, the certificate and the strategy file are the one-process locked solve's."""
    from solver.cfr.locks import LockFile

    lock = LockFile.parse("[[lock]]\nseat = 'big blind'\nhands = '1-card *'\nprobabilities = { pat = 0.0 }\n"
                          "[[lock]]\nseat = 'button'\nhistory = ''\nprobabilities = { c = 0.75 }\n", "test")
    config = load_preset("tiny-single-draw")
    one = solve(config, iterations=30, out_dir=tmp_path / "one", locks=lock)
    result = solve(config, iterations=30, out_dir=tmp_path / "ray", locks=lock, ray=RaySetup(cluster, 2, 0.5))
    engine = result.engine
    try:
        assert engine.locks.n_pairs == one.engine.locks.n_pairs > 0 and engine.scales is None
        assert np.array_equal(engine.regret, one.engine.regret)
        assert np.array_equal(engine.strat_sum, one.engine.strat_sum)
        assert np.array_equal(engine.average_sums(), one.engine.average_sums())
        a, b = engine.exploitability(), one.engine.exploitability()
        for field in ("br_button", "br_big_blind", "game_value"):
            assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-13, abs=1e-15)
    finally:
        engine.shutdown()
    assert (tmp_path / "ray" / "strategy.npz").read_bytes() == (tmp_path / "one" / "strategy.npz").read_bytes()
    assert (tmp_path / "ray" / "lock.toml").read_text() == (tmp_path / "one" / "lock.toml").read_text()


def test_a_failing_actor_call_is_an_error_not_a_lost_actor(cluster):
    """A call an actor raises on is a one-line RayError (the solve stops: run again it would fail
    again); only an actor that died is ActorLost (replaced from the checkpoint)."""
    from solver.cfr.actors import ActorLost, ray_results

    engine = RayEngine(load_preset("tiny-single-draw"), address=cluster, actors=2, actor_cpus=0.5)
    try:
        with pytest.raises(RayError, match="a Ray actor failed during a test: .*Error") as caught:
            bad = engine.actors[0].walk.remote(0, 0, {"no_such": 1}, np.zeros((1, 1, 1)))
            ray_results(ray, [bad], "during a test")
        assert not isinstance(caught.value, ActorLost)
        ray.kill(engine.actors[1])
        with pytest.raises(ActorLost, match="lost during a test"):
            ray_results(ray, [engine.actors[1].seconds.remote()], "during a test")
    finally:
        engine.shutdown()


def test_shards_cover_the_layout_once():
    config = load_preset("tiny-single-draw")
    engine = Engine(config)
    engine.run_iterations(3)
    layout, tree = engine.layout, engine.tree
    owned = np.zeros(tree.n_nodes, bool)
    for node in engine.walker.table_cuts.nodes:
        tree.mark_subtree(owned, int(node))
    parts = [Shard.of(layout, owned), Shard.of(layout, ~owned)]
    whole = np.full(layout.n_entries, np.nan, np.float32)
    for part in parts:
        part.put(part.take(engine.regret), whole)
    assert np.array_equal(whole, engine.regret)
    assert sum(p.n_entries for p in parts) == layout.n_entries


def test_what_ray_refuses(cluster, capsys):
    from solver.cli import main

    with pytest.raises(RayError, match="share slots"):
        RayEngine(dataclasses.replace(load_preset("tiny-double-draw"), recall=0), address=cluster, actors=2)
    with pytest.raises(RayError, match="at most that many actors"):
        _streamed_ray(_tiny_recall())(dataclasses.replace(_tiny_recall(), recall=2), address=cluster, actors=4)
    with pytest.raises(RayError, match="without draws"):
        RayEngine(load_preset("tiny-no-draw"), address=cluster, actors=2)
    with pytest.raises(RayError, match="--actor-memory is for streamed actors"):
        solve(load_preset("tiny-single-draw"), iterations=1, ray=RaySetup(cluster, 2, 0.5, 2 ** 30))
    from solver.cfr.locks import LockError, LockFile

    lock = LockFile.parse("[[lock]]\nseat = 'button'\nhistory = ''\nprobabilities = { r = 0.0 }\n", "test")
    with pytest.raises(LockError, match="node locking needs a game whose tree is built"):
        solve(_tiny_recall(), iterations=1, streamed=True, locks=lock, ray=RaySetup(cluster, 2, 0.5))
    assert main(["solve", "--preset", "tiny-single-draw", "--iterations", "2", "--ray", cluster,
                 "--actors", "0"]) == 2
    assert "--actors must be an integer of at least 1, got 0" in capsys.readouterr().err


# -- streamed actors (solver/cfr/streamed_ray.py) ----------------------------------------------
@pytest.mark.parametrize("actors", [2, 4])
@pytest.mark.parametrize("game", ["recall", "full", "recall-16-bit"])
def test_streamed_actors_compute_the_one_process_bits(cluster, actors, game):
    """Triple draw at cap 2 over a streamed tree, in a recall layout with buckets (float32 or
    16-bit storage) or at full resolution (every subtree its own group), its cut groups in 2 or 4
    actors: after 20 iterations the regrets and strategy sums (16-bit: the integers and every
    row's scales) are the one-process engine's bit for bit, and so are the abstract check, the
    certificate at full resolution (each actor walks its cuts in the real game) and the average
    strategy."""
    from solver.cfr.solve import make_engine
    from solver.game.setup import GameSetup

    config = _tiny_triple() if game == "full" else _tiny_recall()
    if game == "recall-16-bit":
        config = dataclasses.replace(config, storage_bits=16)
    assert config.cap == 2 and config.draws == 3 and (game != "full") == config.abstracted
    one = make_engine(GameSetup(config, streamed=True), streamed=True)
    assert one.storage_bits == config.storage_bits
    one.run_iterations(20)
    engine = _streamed_ray(config)(GameSetup(config, streamed=True), address=cluster, actors=actors, actor_cpus=0.5)
    try:
        engine.run_iterations(10)
        # Its groups dealt again (each actor's to the next: the storage moves), mid-run.
        engine.rebalance(engine.blocks[1:] + engine.blocks[:1])
        engine.run_iterations(10)
        assert engine.balanced is not None   # (dealt by measured cost after iteration 4, or kept)
        assert np.array_equal(engine.regret, one.regret) and np.array_equal(engine.strat_sum, one.strat_sum)
        assert engine.exploitability() == one.exploitability()
        assert engine.progress_exploitability() == one.progress_exploitability()
        owned = np.concatenate(engine.blocks)
        assert len(engine.blocks) == actors and np.array_equal(np.sort(owned), np.arange(len(engine.cut_group)))
        for block in engine.blocks:   # whole groups: no group is split between actors
            assert not set(engine.cut_group[block]) & set(np.delete(engine.cut_group, block))
        from solver.cfr.planning import game_parts

        trunk = game_parts(engine.setup).trunk_entries
        assert sum(int(base[-1]) for _, base in engine._owned) + trunk == one.layout.n_entries
        assert "4 streamed actor(s)" in describe(engine) or actors == 2
        assert np.array_equal(np.concatenate(list(engine.average_probability_chunks(5000))),
                              np.concatenate(list(one.average_probability_chunks(5000))))
        if game == "recall-16-bit":
            assert engine.regret.dtype == np.int16 and engine.storage_bits == 16
            regret_scale, sum_scale = engine._gather_scales()
            assert np.array_equal(regret_scale, one.storage.regret_scale)
            assert np.array_equal(sum_scale, one.storage.sum_scale)
        if game == "full":   # the real game itself: its checks are the certificate
            assert engine.exact_progress and engine.exploitability() == engine.progress_exploitability()
            assert len(np.unique(engine.cut_group)) == len(engine.cut_group)
    finally:
        engine.shutdown()


def test_streamed_actors_are_dealt_by_measured_cost(cluster, monkeypatch):
    """After the first iteration and three measured ones the groups are dealt again by the seconds
    their update walks took (here always: any gain), the storage moving with them; the progress
    line says each actor's seconds an iteration and the new deal; the bits are one process's. A
    deal that splits a group is refused."""
    import solver.cfr.solve as solve_module

    config = _tiny_recall()
    monkeypatch.setattr(sys.modules[_streamed_ray(config).__module__], "BALANCE_GAIN", -1.0)
    monkeypatch.setattr(solve_module, "PROGRESS_SECONDS", 0.0)
    lines = []
    one = solve(config, iterations=12, streamed=True)
    result = solve(config, iterations=12, streamed=True, ray=RaySetup(cluster, 3, 0.5), check_every=2,
                   progress=lines.append)
    engine = result.engine
    try:
        assert engine.balanced.iteration == 4 and engine.balanced.moved
        assert len(engine.balanced.before) == len(engine.balanced.after) == 3
        assert any("dealt by measured cost after iteration 4" in line for line in lines)
        assert any(re.search(r"\(actors \d+\.\d\d/\d+\.\d\d/\d+\.\d\d s an iteration", line) for line in lines)
        assert np.array_equal(engine.regret, one.engine.regret) and np.array_equal(engine.strat_sum,
                                                                                     one.engine.strat_sum)
        group = engine.cut_group
        split = [c for c in range(len(group)) if (group == group[c]).sum() > 1][0]
        blocks = [np.array([split]), np.delete(np.arange(len(group)), split), np.array([], np.int64)]
        with pytest.raises(RayError, match="whole groups"):
            engine.rebalance(blocks)
    finally:
        engine.shutdown()


@pytest.mark.parametrize("game", ["full", "recall-16-bit"])
def test_streamed_actors_use_the_memory_planned(cluster, tmp_path, game):
    """Each streamed actor's peak resident memory, over a solve that writes its checkpoint and
    strategy file (the storage gathered piece by piece), is within 20% of the plan's figure
    (solver.cfr.planning.plan_actors, what `badugi plan --machines` prints). The plan is of
    actors whose walks are compiled already (Numba's cache): a first solve compiles them."""
    from solver.cfr.planning import game_parts, plan_actors
    from solver.game.setup import GameSetup

    config = _tiny_triple() if game == "full" else dataclasses.replace(_tiny_recall(), storage_bits=16)
    setup = GameSetup(config, streamed=True)
    solve(setup, iterations=2, streamed=True, ray=RaySetup(cluster, 2, 0.5)).engine.shutdown()
    result = solve(setup, iterations=30, out_dir=tmp_path, streamed=True, ray=RaySetup(cluster, 2, 0.5))
    try:
        measured = result.engine.actor_memory()
        planned = plan_actors(game_parts(setup), 2, config.storage_bits, blocks=result.engine.blocks).bytes
    finally:
        result.engine.shutdown()
    for used, plan in zip(measured, planned):
        assert abs(used / plan - 1) <= 0.2, (measured, planned)


def test_a_game_one_actor_cannot_hold_solves_on_four(cluster, tmp_path):
    """Actors that ask Ray for less memory (its memory resource) than one actor of the whole game
    needs: one actor is refused in one line, naming the fewest that fit; four solve it, the
    one-process run bit for bit; a limit the cluster's nodes (2 GiB each) cannot place is refused."""
    from solver.cfr.planning import game_parts, plan_actors
    from solver.game.setup import GameSetup

    setup = GameSetup(_tiny_triple(), streamed=True)
    parts = game_parts(setup)
    one, four = plan_actors(parts, 1, threads=1).largest, plan_actors(parts, 4, threads=1).largest
    limit = (one + four) // 2
    assert four < limit < one
    with pytest.raises(RayError, match=r"the largest of 1 needs .* \(planned\): [234] actors would fit"):
        solve(setup, iterations=4, streamed=True, ray=RaySetup(cluster, 1, 0.5, limit))
    with pytest.raises(RayError, match="room for 0 actor"):
        solve(setup, iterations=4, streamed=True, ray=RaySetup(cluster, 4, 0.5, 3 * 2 ** 30))
    solve(setup, iterations=12, out_dir=tmp_path / "one", streamed=True)
    result = solve(setup, iterations=12, out_dir=tmp_path / "ray", streamed=True, ray=RaySetup(cluster, 4, 0.5, limit))
    try:
        assert max(result.engine.actor_memory()) <= 1.2 * limit
    finally:
        result.engine.shutdown()
    assert (tmp_path / "ray" / "strategy.npz").read_bytes() == (tmp_path / "one" / "strategy.npz").read_bytes()


@pytest.mark.parametrize("bits", [32, 16])
def test_a_streamed_solve_resumes_and_survives_a_lost_actor(cluster, tmp_path, monkeypatch, bits):
    """``solve`` of the streamed game on Ray (float32 or 16-bit storage): 8 iterations on two
    actors resumed to 16 on three write the one-process strategy file byte for byte; an actor
    killed at iteration 13 (a checkpoint at every check) is replaced from the checkpoint with the
    same result."""
    import solver.cfr.solve as solve_module

    config = dataclasses.replace(_tiny_recall(), storage_bits=bits)
    solve(config, iterations=16, out_dir=tmp_path / "one", streamed=True)
    first = solve(config, iterations=8, out_dir=tmp_path / "ray", streamed=True, ray=RaySetup(cluster, 2, 0.5))
    first.engine.shutdown()
    # Each actor wrote its part beside the checkpoint; one process resumes from them too.
    shards = sorted(p.name for p in (tmp_path / "ray" / SHARD_DIR).glob("*.npz"))
    assert shards == ["i8-s0of2.npz", "i8-s1of2.npz"]
    shutil.copytree(tmp_path / "ray", tmp_path / "here")
    solve(config, iterations=16, out_dir=tmp_path / "here", resume=True, streamed=True)
    assert (tmp_path / "here" / "strategy.npz").read_bytes() == (tmp_path / "one" / "strategy.npz").read_bytes()
    assert not (tmp_path / "here" / SHARD_DIR).exists()   # (replaced by a whole checkpoint)
    shutil.copytree(tmp_path / "ray", tmp_path / "broken")
    (tmp_path / "broken" / SHARD_DIR / shards[1]).unlink()
    with pytest.raises(CheckpointError, match="a shard of the checkpoint is missing"):
        solve(config, iterations=16, out_dir=tmp_path / "broken", resume=True, streamed=True,
              ray=RaySetup(cluster, 3, 0.5))
    result = solve(config, iterations=16, out_dir=tmp_path / "ray", resume=True, streamed=True,
                   ray=RaySetup(cluster, 3, 0.5))
    result.engine.shutdown()
    expected = (tmp_path / "one" / "strategy.npz").read_bytes()
    assert (tmp_path / "ray" / "strategy.npz").read_bytes() == expected
    # A compact strategy reads the rows' reach from the actors' shards as from a whole checkpoint.
    from solver.tables.compact import make_compact
    from solver.tables.strategy import load_strategy

    for name in ("one", "ray"):
        make_compact(tmp_path / name, tmp_path / f"{name}-compact", min_reach=1e-3)
    ours, theirs = load_strategy(tmp_path / "ray-compact"), load_strategy(tmp_path / "one-compact")
    assert np.array_equal(ours.probabilities, theirs.probabilities)
    if bits == 32:   # and a warm start its regrets (the same buckets: copied as they are)
        from solver.cfr.abstract import AbstractEngine
        from solver.cfr.warm import warm_start
        from solver.game.setup import GameSetup

        warm, one = AbstractEngine(GameSetup(config, streamed=True)), AbstractEngine(GameSetup(config, streamed=True))
        warm_start(warm, tmp_path / "ray")
        warm_start(one, tmp_path / "one")
        assert warm.iteration == 16 and np.array_equal(warm.regret, one.regret)

    monkeypatch.setattr(solve_module, "CHECKPOINT_SECONDS", 0.0)
    monkeypatch.setattr(solve_module, "CHECKPOINT_SHARE", 0.0)
    killed = []
    original = _streamed_ray(config).run_iterations

    def run_and_kill(self, n):
        if self.iteration == 13 and not killed:
            killed.append(True)
            ray.kill(self.actors[1])
        original(self, n)

    monkeypatch.setattr(_streamed_ray(config), "run_iterations", run_and_kill)
    lines = []
    result = solve(config, iterations=16, out_dir=tmp_path / "lost", streamed=True, ray=RaySetup(cluster, 2, 0.5),
                   progress=lines.append)
    result.engine.shutdown()
    assert killed and any("actor was lost during iteration 14" in line for line in lines)
    assert (tmp_path / "lost" / "strategy.npz").read_bytes() == expected
