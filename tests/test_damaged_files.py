"""A damaged strategy file, checkpoint or shard file is refused, never read as data.

Bytes are flipped inside one member of an intact zip (its central directory and
local headers as written, only the member's data wrong), the damage a disk or
a copy does; every command that reads the file must refuse it with one line
naming the file and the array (issue 32, item 1).
"""

import shutil
import struct
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from solver.cfr import checksums
from solver.cfr.checksums import Checksum, checksum
from solver.cfr.files import (CHECKPOINT_NAME, STRATEGY_NAME, CheckpointError, load_checkpoint, load_shard,
                              load_strategy_file, save_shard)
from solver.arena.match import match_histories
from solver.arena.phh import write_phhs
from solver.cli import main
from solver.game.config import load_preset


def member_data(path: Path, name: str) -> tuple[int, np.dtype, tuple]:
    """Where member ``name``'s array data starts in the zip at ``path``, its dtype and shape."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(f"{name}.npy")
    with open(path, "rb") as f:  # past the zip's reader, which checks the CRC as it reads
        f.seek(info.header_offset + 26)
        name_length, extra_length = struct.unpack("<HH", f.read(4))
        f.seek(info.header_offset + 30 + name_length + extra_length)
        version = np.lib.format.read_magic(f)
        header = {(1, 0): np.lib.format.read_array_header_1_0, (2, 0): np.lib.format.read_array_header_2_0}
        shape, _, dtype = header[version](f)
        return f.tell(), dtype, shape


def raw_array(path: Path, name: str) -> np.ndarray:
    """Member ``name``'s array as its bytes say, past any check."""
    start, dtype, shape = member_data(path, name)
    return np.fromfile(path, dtype=dtype, count=int(np.prod(shape)), offset=start).reshape(shape)


def flip_member_bytes(path: Path, name: str, count: int = 4) -> None:
    """XOR one bit of ``count`` entries' second byte in member ``name`` of the zip at ``path``,
    in place: the zip stays valid, only the member's data (and so its CRC) is wrong. A float32
    stays finite (a mantissa bit): the numbers are wrong, not absurd."""
    start, dtype, shape = member_data(path, name)
    entries = int(np.prod(shape))
    size = Path(path).stat().st_size
    with open(path, "r+b") as f:
        for k in range(count):
            at = start + (entries * (k + 1) // (count + 1)) * dtype.itemsize + 1
            f.seek(at)
            byte = f.read(1)[0]
            f.seek(at)
            f.write(bytes([byte ^ 0x40]))
    with zipfile.ZipFile(path) as archive:  # still a zip whose directory reads as written
        assert archive.testzip() == f"{name}.npy" and Path(path).stat().st_size == size


def _cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "solver.cli", *args], capture_output=True, text=True, cwd=cwd)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A real solve's directory (strategy and checkpoint)."""
    out = tmp_path_factory.mktemp("solved") / "run"
    proc = _cli("solve", "--preset", "tiny-single-draw", "--iterations", "50", "--out", str(out), "--quiet",
                "--no-charts")
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def damaged(run, tmp_path_factory):
    """A copy of ``run`` whose strategy's probabilities (the memory-mapped member) are damaged."""
    out = tmp_path_factory.mktemp("damaged") / "run"
    shutil.copytree(run, out)
    flip_member_bytes(out / STRATEGY_NAME, "probabilities")
    return out


def _refused(capsys, argv, path, array):
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, (argv, err)
    assert len(err.strip().splitlines()) == 1, (argv, err)
    assert str(path) in err and repr(array) in err and "damaged" in err, (argv, err)


def test_the_flip_changes_numbers_a_reader_would_use(run, damaged):
    # Without a check the damage is silent: the flipped file's probabilities are finite and differ.
    good, bad = raw_array(run / STRATEGY_NAME, "probabilities"), raw_array(damaged / STRATEGY_NAME, "probabilities")
    assert (good != bad).sum() == 4 and np.isfinite(bad).all()


def test_every_reader_of_a_strategy_refuses_a_damaged_one(run, damaged, tmp_path, capsys):
    path = damaged / STRATEGY_NAME
    lock = tmp_path / "lock.toml"
    lock.write_text(f"[[lock]]\nseat = 'button'\nstrategy = '{damaged}'\n")
    # Hands of the strategy's game, played by two baselines (a review checks its files first).
    write_phhs(tmp_path / "hands.phhs", match_histories(load_preset("tiny-single-draw"), "rule", "random", 2))
    for argv in (["show", str(damaged), "--history", "ck/"],
                 ["show", str(damaged), "--history", "ck/", "--hand", "As2h"],
                 ["export", str(damaged), "--out", str(tmp_path / "table.csv")],
                 ["match", str(damaged), "rule", "--hands", "100"],
                 ["match", "rule", str(damaged), "--hands", "100"],
                 ["explore", str(damaged), "--out", str(tmp_path / "explorer.html")],
                 ["plot", str(damaged), "--out", str(tmp_path / "charts")],
                 ["plot", str(run), str(damaged), "--out", str(tmp_path / "charts")],
                 ["exploit", str(damaged), "--against", "station", "--out", str(tmp_path / "exploit")],
                 ["exploit", str(run), "--against", str(damaged), "--out", str(tmp_path / "exploit2")],
                 ["compact", str(damaged), "--out", str(tmp_path / "compact")],
                 ["review", str(tmp_path / "hands.phhs"), "--strategy", str(damaged)],
                 ["play", "--strategy", str(damaged), "--out", str(tmp_path / "hands")],
                 ["solve", "--preset", "tiny-single-draw", "--iterations", "2", "--lock", str(lock), "--out",
                  str(tmp_path / "locked"), "--quiet", "--no-charts"]):
        _refused(capsys, argv, path, "probabilities")
    assert not (tmp_path / "table.csv").exists() and not (tmp_path / "explorer.html").exists()
    assert not (tmp_path / "compact").exists()


def test_every_subcommand_that_reads_a_strategy_is_covered():
    # A new subcommand reading strategies must join the test above (eval and plan read none).
    from solver.cli import build_parser

    commands = set(build_parser()._subparsers._group_actions[0].choices)
    assert commands == {"eval", "solve", "show", "export", "plot", "match", "explore", "exploit", "compact", "plan",
                        "review", "play"}


def test_a_damaged_strategy_is_one_line_from_the_command_line(damaged):
    proc = _cli("show", str(damaged), "--history", "ck/")
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    assert proc.stderr.strip() == (f"badugi show: error: {damaged / STRATEGY_NAME} is damaged: its array "
                                   "'probabilities' does not match its checksum")


@pytest.mark.parametrize("name", ["regret", "strat_sum", "convergence", "row_of"])
def test_resume_refuses_a_damaged_checkpoint(run, tmp_path, capsys, name):
    out = tmp_path / "run"
    shutil.copytree(run, out)
    flip_member_bytes(out / CHECKPOINT_NAME, name, count=1)
    _refused(capsys, ["solve", "--out", str(out), "--resume", "--iterations", "60", "--quiet", "--no-charts"],
             out / CHECKPOINT_NAME, name)
    with pytest.raises(CheckpointError, match=f"its array '{name}' does not match its checksum"):
        load_checkpoint(out / CHECKPOINT_NAME)


def test_a_damaged_tree_or_layout_array_is_named(run, tmp_path):
    for name in ("tree_contrib", "layout_slot_offset"):
        path = tmp_path / f"{name}.npz"
        shutil.copy(run / STRATEGY_NAME, path)
        flip_member_bytes(path, name, count=1)
        with pytest.raises(CheckpointError, match=f"{path} is damaged: its array '{name}'"):
            load_strategy_file(path)


def test_an_undamaged_file_loads_and_its_checksums_are_its_arrays(run):
    saved = load_strategy_file(run / STRATEGY_NAME)
    with np.load(run / STRATEGY_NAME) as data:
        sums = dict(zip(data["checksum_names"].tolist(), data["checksum_values"].tolist()))
        assert sums["probabilities"] == checksum(data["probabilities"])
        assert set(sums) == set(data.files) - {"checksum_names", "checksum_values"}
    assert np.array_equal(np.asarray(saved.probabilities), np.load(run / STRATEGY_NAME)["probabilities"])


def test_a_file_written_before_checksums_loads_with_a_note(run, tmp_path, capsys):
    old = tmp_path / "old"
    old.mkdir()
    with np.load(run / STRATEGY_NAME) as data:
        np.savez(old / STRATEGY_NAME, **{name: data[name] for name in data.files if not name.startswith("checksum")})
    assert main(["show", str(old), "--history", "ck/", "--hand", "As2h"]) == 0
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"note: {old / STRATEGY_NAME} was written before files carried checksums: damage to its "
                   "probabilities cannot be detected"]
    # Its other members still pass the zip's CRC-32: damage there is refused.
    flip_member_bytes(old / STRATEGY_NAME, "tree_contrib", count=1)
    with pytest.raises(CheckpointError, match="'tree_contrib' does not match its checksum"):
        load_strategy_file(old / STRATEGY_NAME)


def test_a_damaged_shard_file_is_refused(tmp_path):
    path = tmp_path / "i10-a0of2.npz"
    regret = np.linspace(-1, 1, 1001, dtype=np.float32)
    save_shard(path, regret, regret * 2, np.arange(3, dtype=np.int64))
    loaded = load_shard(path)
    assert np.array_equal(loaded[0], regret) and np.array_equal(loaded[2], np.arange(3))
    flip_member_bytes(path, "strat_sum", count=1)
    with pytest.raises(CheckpointError, match=f"{path} is damaged: its array 'strat_sum' does not match"):
        load_shard(path)
    with pytest.raises(CheckpointError, match="a shard of the checkpoint is missing"):
        load_shard(tmp_path / "gone.npz")


# -- the checksum itself --------------------------------------------------------
def test_any_one_bit_flipped_changes_the_checksum():
    data = np.random.default_rng(0).random(37, dtype=np.float32)  # 148 bytes: a partial last word
    reference = checksum(data)
    raw = data.view(np.uint8)
    for bit in range(8 * raw.size):
        raw[bit // 8] ^= 1 << (bit % 8)
        assert checksum(data) != reference, bit
        raw[bit // 8] ^= 1 << (bit % 8)
    assert checksum(data) == reference


def test_swapped_words_trailing_zeros_and_dtypes_change_the_checksum():
    words = np.arange(1, 9, dtype=np.uint64)
    swapped = words.copy()
    swapped[[2, 5]] = swapped[[5, 2]]
    assert checksum(words) != checksum(swapped)
    assert checksum(np.zeros(3, np.uint8)) != checksum(np.zeros(4, np.uint8))  # padding is not data
    assert checksum(np.zeros(0, np.float32)) == checksum(np.zeros(0, np.int64))  # no bytes, same sum


def test_streamed_parts_give_the_whole_arrays_checksum():
    data = np.random.default_rng(1).random(10_001, dtype=np.float32)
    for cuts in ([1], [3, 7, 8, 5000], list(range(1, 40, 3)), [9999]):
        stream = Checksum()
        for part in np.split(data, cuts):
            stream.update(part)
        assert stream.value == checksum(data), cuts


def test_the_parallel_kernel_and_numpy_agree():
    words = np.random.default_rng(2).integers(0, 2 ** 63, size=checksums.KERNEL_WORDS + 3, dtype=np.uint64)
    assert int(checksums._word_sum_kernel(words, np.uint64(5))) == checksums._word_sum_numpy(words, 5)
    assert checksums.word_sum(words, 5) == checksums._word_sum_numpy(words, 5)


def test_a_ray_actors_shard_file_round_trips_and_a_damaged_one_is_refused(tmp_path):
    # The actor class runs as plain Python without Ray: its save and the reader every actor uses.
    from solver.cfr.distributed import SubtreeActor, _game, read_shard, split_cuts
    from solver.game.config import load_preset

    config = load_preset("tiny-double-draw")
    walker = _game(config, None)
    cuts = split_cuts(walker, 2)[1]
    actor = SubtreeActor(config, walker.layout.row_of, cuts)
    actor.regret[:] = np.arange(len(actor.regret), dtype=np.float32) / 7
    path = tmp_path / "i3-a1of2.npz"
    actor.save(str(path))
    shard, regret, strat_sum = read_shard(path, walker, cuts)
    assert np.array_equal(regret, actor.regret) and np.array_equal(strat_sum, actor.strat_sum)
    flip_member_bytes(path, "regret", count=2)
    with pytest.raises(CheckpointError, match=f"{path} is damaged: its array 'regret' does not match"):
        read_shard(path, walker, cuts)
