"""16-bit storage (solver/cfr/quantized.py): the rounding, the discounts folded into row scales,
walks on each cut group's decoded buffers, the certificate, checkpoints and their damage."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from solver.cfr.abstract import AbstractEngine
from solver.cfr.checksums import checksum
from solver.cfr.files import CheckpointError, load_checkpoint
from solver.cfr.quantized import REGRET_LEVELS, SUM_LEVELS, QuantizedEngine, QuantizedStorage
from solver.cfr.solve import make_engine, solve
from solver.cfr.streamed import StreamedWalker
from solver.cli import main
from solver.game.config import ConfigError, load_preset
from solver.cfr.engine import Engine
from solver.game.plan import SolveTooLarge, plan_solve
from solver.tables.strategy import load_strategy

GAME = dataclasses.replace(load_preset("tiny-double-draw"), cap=2, buckets=(3, 4, 2), recall=1, remember_draws=True)
GAME16 = dataclasses.replace(GAME, storage_bits=16)


def _row_steps(engine: QuantizedEngine, scale: np.ndarray) -> np.ndarray:
    """Each entry's row scale (one step of its integer)."""
    widths = np.repeat(engine.storage.rows.slot_width, engine.game_layout.slot_actions.astype(np.int64))
    return np.repeat(scale, widths)


def test_a_row_rounds_to_within_one_step_of_its_largest_magnitude():
    engine = QuantizedEngine(GAME16)
    layout = engine.game_layout
    rng = np.random.default_rng(7)
    # rows of very different sizes, signs, and an all-zero slot
    regret = (rng.standard_normal(layout.n_entries) * 10.0 ** rng.integers(-6, 4, layout.n_entries)).astype(np.float32)
    sums = np.abs(regret) * 3
    regret[layout.slot_offset[5]:layout.slot_offset[6]] = 0.0
    storage = QuantizedStorage(layout)
    storage.load_float(regret, sums)
    for which, values, levels in (("regret", regret, REGRET_LEVELS), ("sum", sums, SUM_LEVELS)):
        scale = storage.regret_scale if which == "regret" else storage.sum_scale
        step = _row_steps(engine, scale)
        error = np.abs(storage.decoded(which) - values)
        assert (error <= 0.5 * step + 1e-6 * np.abs(values)).all()
        # a row's largest magnitude is its top integer
        assert np.isclose(step.max() * levels, np.abs(values).max(), rtol=1e-6)
    assert not storage.decoded("regret")[layout.slot_offset[5]:layout.slot_offset[6]].any()
    assert storage.regret.dtype == np.int16 and storage.strat_sum.dtype == np.uint16


@pytest.mark.parametrize("pos,neg,floor", [(0.5, 0.0, False), (0.8, 0.5, False), (1.0, 1.0, True), (0.0, 0.5, False),
                                           (0.9, 0.9, False)])
def test_a_discount_folds_into_the_row_scales_as_a_float_discount_would(pos, neg, floor):
    engine = QuantizedEngine(GAME16)
    layout = engine.game_layout
    rng = np.random.default_rng(3)
    regret = rng.standard_normal(layout.n_entries).astype(np.float32)
    storage = QuantizedStorage(layout)
    storage.load_float(regret, np.abs(regret))
    before = storage.decoded("regret")
    storage.discount(0, pos, neg, 0.25, floor)
    after = storage.decoded("regret")
    expected = np.where(before > 0, before * pos, before * neg)
    if floor:
        expected = np.maximum(expected, 0.0)
    seat0 = np.repeat(layout.slot_seat == 0, np.diff(layout.slot_offset))
    step = _row_steps(engine, storage.regret_scale)
    assert np.all(np.abs(after - np.where(seat0, expected, before)) <= step + 1e-7)
    sums_after = storage.decoded("sum")
    assert np.allclose(sums_after[seat0], 0.25 * np.abs(regret)[seat0], rtol=1e-3, atol=1e-4)


NO_DRAW = dataclasses.replace(load_preset("tiny-no-draw"), buckets=(3,), recall=0)


@pytest.mark.parametrize("algorithm", ["dcfr-ramp", "dcfr", "cfr+"])
@pytest.mark.parametrize("pruned", [True, False])
@pytest.mark.parametrize("game", [GAME, NO_DRAW], ids=["double", "no-draw"])
def test_the_first_iterations_leave_the_float_solvers_storage_rounded(algorithm, pruned, game):
    """From the same start, 16-bit storage after one, two and three iterations is the float32
    solver's to within a few steps of the largest entry (the walks, groups, trunk and discounts
    are the same; only the rounding differs). A game without draws has no cuts: the trunk is
    all of it."""
    exact = AbstractEngine(game, algorithm, pruned=pruned)
    rounded = QuantizedEngine(dataclasses.replace(game, storage_bits=16), algorithm, pruned=pruned)
    layout = rounded.game_layout
    seat_of_entry = np.repeat(layout.slot_seat, np.diff(layout.slot_offset))
    for iteration in (1, 2, 3):
        exact.run_iterations(1)
        rounded.run_iterations(1)
        storage = rounded.storage
        for which, values, scale in (("regret", exact.regret, storage.regret_scale),
                                     ("sum", exact.strat_sum, storage.sum_scale)):
            error = np.abs(storage.decoded(which) - values)
            # within a few steps of the largest entry: the strategies differ by the rounding (regret
            # matching turns a regret rounded to zero into a different action)
            assert error.max() <= 5e-4 * np.abs(values).max(), which
            if iteration == 1:
                # what the first walk (the button's, both seats playing uniformly) wrote: the
                # button's regrets, and the sums of the seat whose sums it adds, each within a step
                # of its own row (a skipped or forgotten row would not be)
                first = seat_of_entry == (0 if which == "regret" or not pruned else 1)
                bound = _row_steps(rounded, scale) + 1e-6 * np.abs(values).max()
                assert (error[first] <= bound[first]).all(), which


def test_the_certificate_of_group_walks_is_the_whole_walks_of_the_decoded_sums():
    engine = QuantizedEngine(GAME16)
    engine.run_iterations(30)
    whole = StreamedWalker(engine.game, engine.layout, engine.model)  # its own global entries
    assert engine.exploitability() == whole.exploitability(engine.storage.decoded("sum"))
    abstract = StreamedWalker(engine.game, engine.game_layout, engine.bucket_game)
    assert engine.progress_exploitability() == abstract.exploitability(engine.storage.decoded("sum"))


def test_sixteen_bits_certify_within_three_percent_of_float32_at_equal_iterations():
    exact, rounded = AbstractEngine(GAME), QuantizedEngine(GAME16)
    exact.run_iterations(200)
    rounded.run_iterations(200)
    a, b = exact.exploitability().exploitability_mbb, rounded.exploitability().exploitability_mbb
    assert abs(b / a - 1) < 0.03


def test_a_sixteen_bit_solve_resumes_bit_for_bit_and_writes_a_strategy(tmp_path):
    whole = solve(GAME16, iterations=30, out_dir=tmp_path / "whole")
    solve(GAME16, iterations=12, out_dir=tmp_path / "split")
    split = solve(GAME16, iterations=30, out_dir=tmp_path / "split", resume=True)
    assert split.exploitability == whole.exploitability
    a, b = load_checkpoint(tmp_path / "whole" / "checkpoint.npz"), load_checkpoint(tmp_path / "split" / "checkpoint.npz")
    for name in ("regret", "strat_sum"):
        assert a[name].dtype == (np.int16 if name == "regret" else np.uint16)
        assert np.array_equal(a[name], b[name])
    assert all(np.array_equal(x, y) for x, y in zip(a["row_scales"], b["row_scales"]))
    strategy = load_strategy(tmp_path / "whole")
    assert strategy.config.storage_bits == 16
    assert strategy.exploitability_mbb == pytest.approx(whole.exploitability.exploitability_mbb)
    engine = whole.engine
    expected = np.concatenate(list(engine.average_probability_chunks()))
    assert np.array_equal(np.asarray(strategy.probabilities), expected)


def _rewrite(path, **changes):
    """The checkpoint with arrays replaced (or removed: None) and its checksums made again: a
    file written wrong, not damaged on the way."""
    with np.load(path) as f:
        data = {name: f[name] for name in f.files}
    for name, value in changes.items():
        if value is None:
            del data[name]
        else:
            data[name] = value
    names = [name for name in data if not name.startswith("checksum")]
    data["checksum_names"] = np.array(names)
    data["checksum_values"] = np.array([checksum(data[name]) for name in names], np.uint64)
    np.savez(path, **data)


@pytest.mark.parametrize("change,message", [
    ("no scales", "no row scales"),
    ("float regrets", "int16 regrets and uint16 sums"),
    ("negative scale", "not finite, non-negative"),
])
def test_a_sixteen_bit_checkpoint_written_wrong_is_refused_in_one_line(tmp_path, change, message):
    solve(GAME16, iterations=5, out_dir=tmp_path)
    path = tmp_path / "checkpoint.npz"
    with np.load(path) as f:
        regret, sum_scale = f["regret"], f["sum_scale"]
    _rewrite(path, **{"no scales": {"regret_scale": None}, "float regrets": {"regret": regret.astype(np.float32)},
                      "negative scale": {"sum_scale": -np.abs(sum_scale) - 1}}[change])
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(path)


def test_the_setting_is_checked_and_planned():
    with pytest.raises(ConfigError, match="storage_bits"):
        dataclasses.replace(GAME, storage_bits=8)
    with pytest.raises(ConfigError, match="card buckets in every round and a recall"):
        dataclasses.replace(load_preset("tiny-double-draw"), storage_bits=16)
    assert "16-bit storage" in GAME16.describe()
    assert "storage_bits = 16" in GAME16.to_toml()
    assert isinstance(make_engine(GAME16), QuantizedEngine)
    preset = load_preset("triple-draw")
    assert preset.storage_bits == 16  # the preset keeps 16 bits: 64 buckets in every round fit
    small, big = plan_solve(preset), plan_solve(dataclasses.replace(preset, storage_bits=32))
    assert small.storage_entries == big.storage_entries and isinstance(small.bytes, int)
    # 4 bytes an entry (and 8 a row) against 12, besides each thread's buffers of a group: 5% planned
    # when draw counts split the subtrees 25 ways; the preset's draw_limit 3 tells 16 pairs apart
    assert small.bytes - small.group_buffer_bytes < 0.5 * big.bytes
    assert preset.draw_limit == 3
    assert small.group_buffer_bytes == int(8 * small.threads * 0.05 * 25 / 16 * small.storage_entries)
    # a rule that forgets the first round's draws at some round does not split the subtrees: planned whole
    forgetful = plan_solve(dataclasses.replace(preset, recall=2, remember_draws=False, storage_bits=16))
    assert forgetful.group_buffer_bytes == 8 * forgetful.threads * forgetful.storage_entries
    with pytest.raises(SolveTooLarge, match="16-bit storage is the streamed abstract solver's"):
        make_engine(GAME16, streamed=False)
    with pytest.raises(ValueError, match="16-bit storage"):
        Engine(GAME16, check_memory=False)
    with pytest.raises(ValueError, match="make_engine picks"):
        AbstractEngine(GAME16)


def test_the_cli_solves_a_sixteen_bit_config(tmp_path, capsys):
    path = tmp_path / "game.toml"
    path.write_text(GAME16.to_toml())
    assert main(["solve", "--config", str(path), "--iterations", "5", "--out", str(tmp_path / "run")]) == 0
    assert "16-bit storage" in capsys.readouterr().out
    path.write_text(GAME16.to_toml().replace("storage_bits = 16", "storage_bits = 12"))
    assert main(["solve", "--config", str(path), "--iterations", "5", "--out", str(tmp_path / "bad")]) == 2
    assert "storage_bits" in capsys.readouterr().err


def test_stochastic_rounding_keeps_additions_far_below_a_step():
    """A row whose largest sum is 65,535 steps, one entry of it gaining a hundredth of a step a
    walk: nearest rounding loses every addition, stochastic rounding adds them up (unbiased), and
    an entry already on a step stays there."""
    engine = QuantizedEngine(GAME16)
    layout = engine.game_layout
    slot = int(np.nonzero(layout.slot_round == 1)[0][0])
    slots, base = np.array([slot], np.int64), np.array([0], np.int64)
    width = int(layout.row_width[1])
    size = int(layout.slot_offset[slot + 1] - layout.slot_offset[slot])
    totals = {}
    for seed_base in (0, 1):
        storage = QuantizedStorage(layout)
        values = np.zeros(size, np.float32)
        values[0] = 65535.0   # the row's largest: one step is 1
        values[1] = 1000.0
        storage.encode("sum", slots, base, -1, values)
        for k in range(2000):
            storage.decode("sum", slots, base, values)
            values[2] += 0.01
            storage.encode("sum", slots, base, -1, values, seed=(seed_base and 1000 + k))
        storage.decode("sum", slots, base, values)
        totals[seed_base] = values[:3].copy()
    assert totals[0][2] == 0.0
    assert 20.0 - 5 * np.sqrt(20.0) < totals[1][2] < 20.0 + 5 * np.sqrt(20.0)
    assert totals[1][0] == 65535.0 and totals[1][1] == 1000.0
    assert width <= size


def test_a_row_below_the_smallest_step_is_stored_as_zero():
    """Strategy sums of rows reached with a probability near float32's smallest (subnormal
    values, whose step would underflow to zero) are stored as zero, not divided by: a cap-4
    solve in 64 last-round buckets met such a row after its first iteration."""
    engine = QuantizedEngine(GAME16)
    layout = engine.game_layout
    slot = int(np.nonzero(layout.slot_round == 1)[0][0])
    slots, base = np.array([slot], np.int64), np.array([0], np.int64)
    size = int(layout.slot_offset[slot + 1] - layout.slot_offset[slot])
    storage = QuantizedStorage(layout)
    values = np.zeros(size, np.float32)
    values[0] = np.float32(1e-44)  # subnormal: its step (over 65,535 levels) is zero in float32
    values[1] = np.float32(3e-45)
    for seed in (0, 7):
        storage.encode("sum", slots, base, -1, values, seed=seed)
        decoded = np.ones(size, np.float32)
        storage.decode("sum", slots, base, decoded)
        assert not decoded.any()
    values[0] = 1.0  # a row with a normal largest value keeps its place
    storage.encode("sum", slots, base, -1, values)
    storage.decode("sum", slots, base, decoded)
    assert decoded[0] == 1.0


def test_one_thread_or_two_give_the_same_bits():
    import numba

    results = []
    for threads in (1, 2):
        numba.set_num_threads(threads)
        try:
            engine = QuantizedEngine(GAME16)
            engine.run_iterations(8)
            results.append([a.tobytes() for a in (engine.storage.regret, engine.storage.strat_sum,
                                                  engine.storage.regret_scale, engine.storage.sum_scale)])
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert results[0] == results[1]


def test_a_checkpoint_with_other_row_scales_is_refused(tmp_path):
    engine = QuantizedEngine(GAME16)
    engine.run_iterations(2)
    state = engine.checkpoint_state(None)
    data = {"regret": state.regret.copy(), "strat_sum": state.strat_sum.copy(), "shards": [], "scales": None,
            "iteration": 2, "row_scales": (state.row_scales[0][:-1], state.row_scales[1][:-1])}
    with pytest.raises(CheckpointError, match="does not hold this game's 16-bit row scales"):
        QuantizedEngine(GAME16).restore(data, tmp_path / "x.npz")


def test_memory_is_checked_against_the_real_groups_unless_asked_not_to(monkeypatch):
    from solver.game import plan as plan_module

    monkeypatch.setattr(plan_module, "machine_memory_bytes", lambda: 1 << 20)   # a 1 MiB machine
    with pytest.raises(SolveTooLarge):
        QuantizedEngine(GAME16)
    QuantizedEngine(GAME16, check_memory=False).run_iterations(1)


def test_a_walks_rows_are_encoded_from_what_is_stored_plus_what_it_added():
    """A walk adds into zeroed buffers and only the rows it added to are encoded again, from what
    is stored plus the additions: rows without additions keep their integers and scale bit for
    bit; a row with additions holds the stored values plus them (to a step); a non-finite
    addition is refused."""
    from solver.cfr.quantized import NO_VALUES

    engine = QuantizedEngine(GAME16)
    layout = engine.game_layout
    slot = int(np.nonzero((layout.slot_round == 1) & (layout.slot_actions >= 2))[0][0])
    slots, base = np.array([slot], np.int64), np.array([0], np.int64)
    width = int(layout.row_width[1])
    size = int(layout.slot_offset[slot + 1] - layout.slot_offset[slot])
    rng = np.random.default_rng(3)
    for which, seed in (("regret", 0), ("sum", 11)):
        storage = QuantizedStorage(layout)
        start = rng.random(size).astype(np.float32) * 100.0
        if which == "regret":
            start -= 50.0
        storage.encode(which, slots, base, -1, start)
        q, scale = ((storage.regret, storage.regret_scale) if which == "regret"
                    else (storage.strat_sum, storage.sum_scale))
        lo = int(layout.slot_offset[slot])
        row0 = int(storage.rows.row_base[slot])
        q_before, scale_before = q[lo:lo + size].copy(), scale[row0:row0 + size // width].copy()
        stored = np.zeros(size, np.float32)
        storage.decode(which, slots, base, stored)
        added = np.zeros(size, np.float32)
        added[width:2 * width] = rng.random(width).astype(np.float32) * 10.0   # the second row only
        storage.encode(which, slots, base, -1, NO_VALUES, added, seed=seed)
        assert np.array_equal(q[lo:lo + width], q_before[:width]) and scale[row0] == scale_before[0]
        assert np.array_equal(q[lo + 2 * width:lo + size], q_before[2 * width:])
        after = np.zeros(size, np.float32)
        storage.decode(which, slots, base, after)
        expected = stored[width:2 * width] + added[width:2 * width]
        step = scale[row0 + 1]
        assert not np.array_equal(q[lo + width:lo + 2 * width], q_before[width:2 * width])
        assert np.abs(after[width:2 * width] - expected).max() <= 1.0001 * step
        added[width] = np.inf
        with pytest.raises(FloatingPointError, match="not finite"):
            storage.encode(which, slots, base, -1, NO_VALUES, added, seed=seed)


@pytest.mark.parametrize("which,seed", [("regret", 0), ("sum", 0), ("sum", 29)])
def test_the_walks_encoder_gives_the_bits_of_rounding_entry_by_entry(which, seed):
    """The walk's encoder (stored plus added, vectorised: a row's top from its bits) against the
    general one given the decoded rows as values (each entry summed, checked and rounded in turn):
    the same integers, scales and count of rows that are not finite, bit for bit, over rows of
    very different sizes, rows without additions, zero rows and rows holding inf or NaN."""
    from solver.cfr.quantized import NO_VALUES

    layout = QuantizedEngine(GAME16).game_layout
    rng = np.random.default_rng(5)
    n = layout.n_entries
    values = (rng.standard_normal(n) * 10.0 ** rng.integers(-30, 6, n)).astype(np.float32)
    if which == "sum":
        values = np.abs(values)
    slots = np.arange(layout.n_slots, dtype=np.int64)
    base = layout.slot_offset[:-1].copy()
    added = (rng.standard_normal(n) * 10.0 ** rng.integers(-8, 3, n) * (rng.random(n) < 0.7)).astype(np.float32)
    if which == "sum":
        added = np.abs(added)
    added[: 3 * int(layout.row_width[0])] = 0.0                      # rows without additions
    added[3 * int(layout.row_width[0]): 4 * int(layout.row_width[0])] = -0.0   # (-0.0 adds nothing)
    first = QuantizedStorage(layout)
    first.encode(which, slots, base, -1, values)
    lo, hi = layout.slot_offset[4], layout.slot_offset[5]
    added[lo:hi] = -first.decoded(which)[lo:hi]                   # rows that become zero
    added[layout.slot_offset[7]] = np.inf
    added[layout.slot_offset[9] + 1] = np.nan
    results = []
    for general in (False, True):
        storage = QuantizedStorage(layout)
        storage.encode(which, slots, base, -1, values)
        stored = storage.decoded(which) if general else NO_VALUES
        q, scale = ((storage.regret, storage.regret_scale) if which == "regret"
                    else (storage.strat_sum, storage.sum_scale))
        levels, low = (REGRET_LEVELS, -REGRET_LEVELS) if which == "regret" else (SUM_LEVELS, 0.0)
        from solver.cfr.quantized import encode_slots

        bad = encode_slots(slots, base, *storage._slot_args(), layout.slot_seat, -1, stored, added, False,
                           (low, levels), np.uint64(seed), q, scale, storage.hash_offset)
        results.append((bad, q.copy(), scale.view(np.uint32).copy()))
    (bad_a, q_a, s_a), (bad_b, q_b, s_b) = results
    assert bad_a == bad_b == 2
    assert np.array_equal(q_a, q_b) and np.array_equal(s_a, s_b)
    zero_rows = int(layout.slot_actions[4]) if which == "regret" else 0   # (sums: added made non-negative)
    assert (s_a == 0).sum() >= 2 + zero_rows   # the two rows that are not finite, and those made zero


@pytest.mark.parametrize("pos,neg,floor", [(0.5, 0.25, False), (1.0, 0.5, False), (0.7, 1.0, False), (1.0, 1.0, True),
                                           (0.3, 0.9, True)])
def test_a_regret_discount_scales_each_integer_toward_zero_by_its_signs_ratio(pos, neg, floor):
    """The discount of 16-bit regrets, entry by entry as NumPy computes it: the larger factor folded
    into the row scales, each integer times its sign's ratio to it, toward zero (negative ones
    zero with ``floor``), the other seat's rows untouched."""
    from solver.cfr.quantized import discount_rows

    engine = QuantizedEngine(GAME16)
    layout, rows = engine.game_layout, engine.storage.rows
    rng = np.random.default_rng(8)
    q = rng.integers(-32767, 32768, layout.n_entries).astype(np.int16)
    scale = rng.random(rows.n_rows).astype(np.float32)
    fold = max(pos, neg)
    seat_of = np.repeat(layout.slot_seat, np.diff(layout.slot_offset))
    ratio = np.where(q > 0, pos / fold, 0.0 if floor else neg / fold)
    expected = np.where(seat_of == 0, np.trunc(q * ratio), q).astype(np.int16)
    expected_scale = np.where(np.repeat(layout.slot_seat, layout.slot_actions.astype(np.int64)) == 0,
                              (scale.astype(np.float64) * fold).astype(np.float32), scale)
    discount_rows(layout.slot_seat, 0, rows.row_base, layout.slot_offset, rows.slot_width, layout.slot_actions, q,
                  scale, pos, neg, floor)
    assert np.array_equal(q, expected)
    assert np.array_equal(scale, expected_scale)


def test_an_encoder_that_consumes_leaves_the_additions_zero_and_the_same_bits():
    """With ``consume`` the walk's encoder zeroes every row of additions it reads and stores what it
    stores without it (and refuses what is not a walk's rows); after update walks, pruned or not,
    with or without a floor, the engine's buffers of additions are zero again (so no group zeroes
    them before its walk)."""
    from solver.cfr.quantized import NO_VALUES

    layout = QuantizedEngine(GAME16).game_layout
    rng = np.random.default_rng(2)
    n = layout.n_entries
    slots = np.arange(layout.n_slots, dtype=np.int64)
    base = layout.slot_offset[:-1].copy()
    added = (rng.standard_normal(n) * (rng.random(n) < 0.5)).astype(np.float32)
    added[layout.slot_offset[3]:layout.slot_offset[4]] = 0.0
    stored = []
    for consume in (False, True):
        storage = QuantizedStorage(layout)
        storage.encode("regret", slots, base, -1, added * 3)
        mine = added.copy()
        storage.encode("regret", slots, base, 0, NO_VALUES, mine, consume=consume)
        seat0 = np.repeat(layout.slot_seat, np.diff(layout.slot_offset)) == 0
        if consume:
            assert not mine[seat0].any() and np.array_equal(mine[~seat0], added[~seat0])
        else:
            assert np.array_equal(mine, added)
        stored.append((storage.regret.copy(), storage.regret_scale.copy()))
    assert np.array_equal(stored[0][0], stored[1][0]) and np.array_equal(stored[0][1], stored[1][1])
    with pytest.raises(ValueError, match="consume"):
        storage.encode("regret", slots, base, 0, NO_VALUES, mine, True, consume=True)
    for pruned, algorithm in ((True, "dcfr-ramp"), (False, "dcfr-ramp"), (True, "cfr+")):
        engine = QuantizedEngine(GAME16, algorithm=algorithm, pruned=pruned)
        engine.run_iterations(3)
        assert engine._buffers and all(not b.any() for part in engine._buffers for b in part[1:])
