"""Versioned, self-describing checkpoints and strategy files (``.npz``, no pickles).

Every file carries what it is (``kind``), its format ``version``, the game
config (as TOML text), the algorithm and the iteration. Files are written
through :func:`abstractions.files.atomic_write`, so a crash while writing
leaves the previous file intact.

- A **checkpoint** holds the seconds spent, the convergence history, the
  regret and strategy-sum arrays, and the layout's class -> row maps, so a
  resumed bucketed solve does not depend on clustering the same buckets again.
- A **strategy file** holds the average strategy (one probability per layout
  entry) with everything needed to read it: the strategy layout, the public
  tree, and the exploitability and game value measured when it was written.
  Reading it builds nothing: no engine, no clustering, and the probabilities
  are memory-mapped, so a policy lookup in a multi-gigabyte file reads a few
  rows.

Every array is written with its checksum (:mod:`solver.cfr.checksums`; the
members ``checksum_names`` and ``checksum_values``), checked whenever it is
read, so a damaged file is refused with one line naming it and the array. A
file with checksums is read straight from its members' bytes (its checksums
are faster than the zip's CRC-32, and a memory-mapped member skips that CRC).
A file written before checksums still loads: its arrays are read through the
zip's CRC-32, except a strategy file's memory-mapped probabilities, read
unchecked after a one-line note on standard error.
"""

from __future__ import annotations

import json
import os
import struct
import sys
import time
import tomllib
import zipfile
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from abstractions.files import atomic_write

from .checksums import Checksum, checksum

from ..game.config import ConfigError, GameConfig
from ..game.layout import LayoutError, StrategyLayout
from ..game.tree import PublicTree

# 3: a pruned solve's storage scales (``scales``); 2: the layout (``row_of``); 1 still loads.
CHECKPOINT_VERSION = 3
STRATEGY_VERSION = 2
CHECKPOINT_NAME = "checkpoint.npz"
STRATEGY_NAME = "strategy.npz"
TREE_PREFIX, LAYOUT_PREFIX = "tree_", "layout_"
ALIGN = 64               # memory-mapped arrays start at multiples of this in the file
PAD_FIELD_ID = 0xB4D6    # the zip extra field that pads them there
ZIP_DATE = (1980, 1, 1, 0, 0, 0)  # every member's date: equal arrays, equal files
CHECKSUM_NAMES, CHECKSUM_VALUES = "checksum_names", "checksum_values"  # each array's checksum, by name
# Tests only: seconds a checkpoint write waits, its arrays written, before it replaces the file
# (a window in which to interrupt it, as a multi-gigabyte write gives one).
TEST_PAUSE_VARIABLE = "BADUGI_TEST_CHECKPOINT_PAUSE"


class CheckpointError(ValueError):
    """A checkpoint or strategy file that cannot be used: damaged, another format, another game."""


class FormatVersionError(CheckpointError):
    """A file of a format version this solver does not read."""

    def __init__(self, message: str, version: int):
        super().__init__(message)
        self.version = version


def _header(kind: str, version: int, config: GameConfig, algorithm: str, iteration: int) -> dict:
    """The self-description every file carries: what it is, format, game, algorithm, iteration."""
    return {"kind": np.array(kind), "version": np.array(version), "config_toml": np.array(config.to_toml()),
            "algorithm": np.array(algorithm), "iteration": np.array(iteration, dtype=np.int64)}


@contextmanager
def _abandonable(archive: zipfile.ZipFile):
    """A zip being written that an exception (a second Ctrl-C above all) may abandon mid-member:
    closed when whole; abandoned, it is dropped without a word (its temporary file is removed
    whole by atomic_write), where zipfile would refuse to close it with a member still open and
    print a traceback when it is collected."""
    try:
        yield archive
    except BaseException:
        archive.fp = None  # nothing more is written: close() and the finaliser do nothing
        raise
    archive.close()


def _write_npz(path: Path, arrays: dict, streamed: tuple[str, int, object] | None = None,
               pause: float = 0.0) -> None:
    """An uncompressed ``.npz`` (the format of ``np.savez``), written atomically, with each
    array's checksum. ``streamed`` = (name, size, float32 chunks): one big array written chunk
    by chunk, never held whole. ``pause``: seconds to wait before the file is replaced (tests)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    sums = {}
    with atomic_write(path) as f, _abandonable(zipfile.ZipFile(f, "w", zipfile.ZIP_STORED,
                                                               allowZip64=True)) as archive:
        def member(name: str) -> zipfile.ZipInfo:
            # A fixed member date: the same arrays make the same bytes (runs compare by checksum).
            return zipfile.ZipInfo(f"{name}.npy", date_time=ZIP_DATE)

        for name, value in arrays.items():
            value = np.asarray(value)
            sums[name] = checksum(value)
            with archive.open(member(name), "w", force_zip64=True) as entry:
                np.lib.format.write_array(entry, value, allow_pickle=False)
        if streamed is not None:
            name, size, chunks = streamed
            info = member(name)
            # Pad the local header (an extra field) so the array's data starts 64-byte aligned
            # in the file: readers memory-map it. The header is 30 bytes, the name, this field
            # and the 20-byte ZIP64 field; numpy pads its own header to 64 bytes.
            fixed = 30 + len(info.filename.encode()) + 4 + 20
            pad = -(archive.fp.tell() + fixed) % ALIGN
            info.extra = struct.pack("<HH", PAD_FIELD_ID, pad) + bytes(pad)
            stream = Checksum()
            with archive.open(info, "w", force_zip64=True) as entry:
                np.lib.format.write_array_header_2_0(entry, {"descr": np.lib.format.dtype_to_descr(
                    np.dtype(np.float32)), "fortran_order": False, "shape": (size,)})
                written = 0
                for chunk in chunks:
                    chunk = np.ascontiguousarray(chunk, dtype=np.float32)
                    stream.update(chunk)
                    entry.write(chunk.tobytes())
                    written += len(chunk)
                if written != size:
                    raise ValueError(f"{name} has {written} entries, expected {size}")
            sums[name] = stream.value
        for name, value in ((CHECKSUM_NAMES, np.array(list(sums))),
                            (CHECKSUM_VALUES, np.array(list(sums.values()), np.uint64))):
            with archive.open(member(name), "w", force_zip64=True) as entry:
                np.lib.format.write_array(entry, value, allow_pickle=False)
        if pause > 0:
            time.sleep(pause)


def _read(path: Path, kind: str, versions: tuple[int, ...], mapped: str | None = None, skip: tuple = ()) -> dict:
    """Every array of a file of ``kind`` (``mapped``: that one memory-mapped, read-only; ``skip``:
    those not read, None in the result), with ``config`` parsed; CheckpointError with a one-line
    reason otherwise."""
    path = Path(path)
    what = kind.split("-")[1]
    if not path.is_file():
        raise CheckpointError(f"no {what} file at {path}")
    arrays = read_arrays(path, mapped, skip)
    checked = check_arrays(path, arrays)
    if str(arrays.get("kind", "")) != kind:
        raise CheckpointError(f"{path} is not a {kind} file")
    version = int(arrays.get("version", -1))
    if version not in versions:
        raise FormatVersionError(f"{path} has format version {version}, this solver reads {versions[-1]}", version)
    try:
        arrays["config"] = GameConfig.from_dict(tomllib.loads(str(arrays["config_toml"])), str(path))
    except (KeyError, tomllib.TOMLDecodeError, ConfigError) as err:
        raise CheckpointError(f"{path} has a damaged game config: {err}") from None
    if not checked and arrays.get(mapped) is not None:
        note_unchecked(path, mapped)
    return arrays


def read_arrays(path: Path, mapped: str | None = None, skip: tuple = ()) -> dict:
    """Every array of an ``.npz`` file (``mapped``: that one memory-mapped, read-only; ``skip``:
    those not read, None in the result); CheckpointError with a one-line reason otherwise.
    Their checksums are not checked yet (:func:`check_arrays`). A file with checksums is read
    straight from its members' bytes, not through the zip's CRC-32 (a second, slower check of
    the same bytes); a file without is read through it."""
    try:
        with zipfile.ZipFile(path) as archive:
            members = archive.infolist()
        direct = any(info.filename == f"{CHECKSUM_NAMES}.npy" for info in members)
        arrays = {}
        with np.load(path, allow_pickle=False) as data:
            for info in members:
                name = info.filename[:-4] if info.filename.endswith(".npy") else info.filename
                if name in skip:
                    arrays[name] = None
                elif info.compress_type == zipfile.ZIP_STORED and (name == mapped or (
                        direct and name not in (CHECKSUM_NAMES, CHECKSUM_VALUES))):
                    arrays[name] = _member_array(path, info, mapped=name == mapped)
                else:
                    try:
                        arrays[name] = data[name]
                    except zipfile.BadZipFile as err:
                        if "CRC" not in str(err):
                            raise
                        raise CheckpointError(f"{path} is damaged: its array {name!r} does not match its "
                                              "checksum (the zip's CRC-32)") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError, struct.error) as err:
        if isinstance(err, CheckpointError):
            raise
        raise CheckpointError(f"{path} is damaged or not a badugi file ({type(err).__name__}: {err})") from None
    return arrays


def check_arrays(path: Path, arrays: dict) -> bool:
    """Check each array read (None: not read) against the checksum the file holds for it, and
    remove the checksums from ``arrays``; CheckpointError naming the file and the array if one
    differs. False for a file without checksums (written before them): nothing to check."""
    names, values = arrays.pop(CHECKSUM_NAMES, None), arrays.pop(CHECKSUM_VALUES, None)
    if names is None and values is None:
        return False
    if names is None or values is None or names.ndim != 1 or values.shape != names.shape \
            or values.dtype != np.uint64:
        raise CheckpointError(f"{path} is damaged: its checksum list is incomplete")
    expected = dict(zip((str(name) for name in names), (int(value) for value in values)))
    for name, array in arrays.items():
        if name not in expected:
            raise CheckpointError(f"{path} is damaged: its array {name!r} has no checksum")
        if array is not None and checksum(array) != expected[name]:
            raise CheckpointError(f"{path} is damaged: its array {name!r} does not match its checksum")
    missing = sorted(set(expected) - set(arrays))
    if missing:
        raise CheckpointError(f"{path} is damaged: it has no {missing[0]!r} array")
    return True


_NOTED: set = set()  # files said to have no checksums (once per file and process)


def note_unchecked(path: Path, name: str) -> None:
    """One line on stderr (once per file): a file written before checksums has its memory-mapped
    array read unchecked (the others pass the zip's CRC-32)."""
    if str(path) not in _NOTED:
        _NOTED.add(str(path))
        print(f"note: {path} was written before files carried checksums: damage to its {name} cannot be "
              "detected", file=sys.stderr)


def _member_array(path: Path, info: zipfile.ZipInfo, mapped: bool) -> np.ndarray:
    """A stored (uncompressed) ``.npy`` member of a zip file, read from its bytes, or (``mapped``)
    a read-only memory map of them."""
    with open(path, "rb") as f:
        f.seek(info.header_offset)
        local = f.read(30)
        if local[:4] != b"PK\x03\x04":
            raise ValueError(f"{info.filename}: bad local header")
        name_length, extra_length = struct.unpack("<HH", local[26:30])
        start = info.header_offset + 30 + name_length + extra_length
        f.seek(start)
        read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                       (2, 0): np.lib.format.read_array_header_2_0}.get(np.lib.format.read_magic(f))
        if read_header is None:
            raise ValueError(f"{info.filename}: unknown .npy format")
        shape, fortran, dtype = read_header(f)
        offset = f.tell()
        count = int(np.prod(shape, dtype=np.int64))
        if fortran or dtype.hasobject or offset + count * dtype.itemsize != start + info.file_size:
            raise ValueError(f"{info.filename}: not a C-ordered array filling its member")
        if mapped:
            if len(shape) != 1:
                raise ValueError(f"{info.filename}: expected a flat array")
            if count == 0:
                return np.zeros(0, dtype=dtype)
            return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape)
        return np.fromfile(f, dtype=dtype, count=count).reshape(shape)


# -- checkpoints -------------------------------------------------------------
SHARD_DIR = "checkpoint.shards"  # a Ray run's checkpoint shards, beside the checkpoint (solver/cfr/distributed.py)


def remove_shards(run_dir: Path) -> None:
    """Remove a Ray run's checkpoint shards from ``run_dir`` (replaced by a whole checkpoint, or
    by --force)."""
    folder = Path(run_dir) / SHARD_DIR
    if folder.is_dir():
        for path in folder.glob("*.npz"):
            path.unlink()
        folder.rmdir()


def save_shard(path: Path, regret: np.ndarray, strat_sum: np.ndarray, cut_ids: np.ndarray) -> None:
    """A Ray actor's part of a checkpoint (:mod:`solver.cfr.distributed`): its regrets and sums
    and the table cuts they belong to, with their checksums."""
    _write_npz(path, {"regret": regret, "strat_sum": strat_sum, "cut_ids": cut_ids})


def keep_shards(run_dir: Path, names: list, also: tuple = ()) -> None:
    """Remove the shard files in ``run_dir``'s :data:`SHARD_DIR` other than ``names`` (the
    checkpoint about to be written) and ``also`` (the one on disk until it is replaced)."""
    folder = Path(run_dir) / SHARD_DIR
    current = set(names) | set(also)
    for old in folder.glob("*.npz"):
        if f"{SHARD_DIR}/{old.name}" not in current:
            old.unlink(missing_ok=True)


def save_slots_shard(path: Path, arrays: dict) -> None:
    """A streamed Ray actor's part of a checkpoint (:mod:`solver.cfr.streamed_ray`): its slots (the
    layout's numbers), their first entries in its arrays, its regrets and sums (16-bit: with each
    row's scales) and its cuts, with their checksums."""
    _write_npz(path, arrays)


def load_slots_shard(path: Path, sixteen: bool) -> dict:
    """What :func:`save_slots_shard` wrote, checksums checked and its arrays consistent;
    CheckpointError (one line) if missing, damaged, or written by a built tree's actor."""
    if not Path(path).is_file():
        raise CheckpointError(f"{path}: a shard of the checkpoint is missing")
    arrays = read_arrays(Path(path))
    check_arrays(path, arrays)
    names = ("slots", "slot_offset", "regret", "strat_sum", "cut_ids") + (
        ("row_offset", "regret_scale", "sum_scale") if sixteen else ())
    missing = [name for name in names if name not in arrays]
    if missing:
        raise CheckpointError(f"{path} is damaged: it has no {missing[0]!r} array" if "slots" not in missing[:1]
                              else f"{path} was written by a Ray run of a built tree; this game is streamed")
    slots, offsets = arrays["slots"], arrays["slot_offset"]
    n = int(offsets[-1]) if len(offsets) else -1
    sound = (len(offsets) == len(slots) + 1 and len(arrays["regret"]) == n and len(arrays["strat_sum"]) == n
             and not np.any(np.diff(slots) <= 0) and not np.any(np.diff(offsets) < 0))
    if sixteen and sound:
        rows = arrays["row_offset"]
        sound = (len(rows) == len(slots) + 1 and not np.any(np.diff(rows) < 0)
                 and len(arrays["regret_scale"]) == len(arrays["sum_scale"]) == (int(rows[-1]) if len(rows) else -1))
    if not sound:
        raise CheckpointError(f"{path} is damaged: its slots and storage do not add up")
    return arrays


def load_shard(path: Path) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What :func:`save_shard` wrote (regret, strategy sums, cut ids), checksums checked;
    CheckpointError (one line) if missing or damaged."""
    if not Path(path).is_file():
        raise CheckpointError(f"{path}: a shard of the checkpoint is missing")
    arrays = read_arrays(Path(path))
    check_arrays(path, arrays)  # a shard without checksums was read through the zip's CRC-32
    try:
        return arrays["regret"], arrays["strat_sum"], arrays["cut_ids"]
    except KeyError as err:
        raise CheckpointError(f"{path} is damaged: it has no {err.args[0]!r} array") from None


class CheckpointState(NamedTuple):
    """What a checkpoint keeps of an engine's storage (each engine's ``checkpoint_state``)."""

    regret: np.ndarray       # float32: the whole layout's, or a Ray run's trunk entries only
    strat_sum: np.ndarray
    shards: list             # a Ray run's shard files (names beside the checkpoint) and the cuts each holds
    scales: np.ndarray | None  # the factors the storage is divided by (a pruned solve's); None: none
    row_scales: tuple | None = None  # 16-bit storage's (regret, sum) float32 scale per action row
                                     # (``solver.cfr.quantized``); None: float32 storage


@dataclass
class Checkpoint:
    """A solve's checkpoint: its game and algorithm, how far it is (iteration, solving seconds,
    the convergence curve of (iteration, seconds, mbb/hand) rows), the engine's storage
    (:class:`CheckpointState`: a Ray run's shards are files beside it, ``regret`` and
    ``strat_sum`` the driver's trunk only; ``scales`` the factors a pruned solve's storage is
    divided by; ``row_scales`` 16-bit storage's per-row scales, ``regret`` int16 and
    ``strat_sum`` uint16 then), the layout's row maps, the lock file a locked solve was given
    (a resume must give the same) and the folder its strategy paths are read from, the
    certificates taken during the run (None or empty: none), and the run a warm-started solve
    began from, as JSON (:mod:`solver.cfr.warm`; empty: none)."""

    config: GameConfig
    algorithm: str
    iteration: int
    seconds: float
    convergence: np.ndarray
    state: CheckpointState
    row_of: np.ndarray
    lock_text: str = ""
    lock_base: str = ""
    certified: np.ndarray | None = None
    warm_start: str = ""

    def save(self, path: Path) -> None:
        """Write it to ``path`` (atomically; see :func:`load_checkpoint`)."""
        save_checkpoint(path, self)


def save_checkpoint(path: Path, checkpoint: Checkpoint) -> None:
    """Write ``checkpoint`` to ``path`` (atomically, with its checksums)."""
    c, state = checkpoint, checkpoint.state
    shards, scales, row_scales, certified = state.shards, state.scales, state.row_scales, c.certified
    shard_arrays = {}
    if shards:
        shard_arrays = {"shard_files": np.array([name for name, _ in shards]),
                        "shard_sizes": np.array([len(cuts) for _, cuts in shards], np.int64),
                        "shard_cuts": np.concatenate([np.asarray(cuts, np.int64) for _, cuts in shards])}
    _write_npz(path, {
        **_header("badugi-checkpoint", CHECKPOINT_VERSION, c.config, c.algorithm, c.iteration),
        "seconds": np.array(c.seconds),
        "convergence": np.asarray(c.convergence, dtype=np.float64).reshape(-1, 3),
        "regret": state.regret,
        "strat_sum": state.strat_sum,
        "row_of": c.row_of,
        **({"lock_toml": np.array(c.lock_text), "lock_base": np.array(c.lock_base)} if c.lock_text else {}),
        **({"scales": np.asarray(scales, np.float64)} if scales is not None else {}),
        **({"regret_scale": row_scales[0], "sum_scale": row_scales[1]} if row_scales is not None else {}),
        **({"certified": np.asarray(certified, np.float64).reshape(-1, 3)}
           if certified is not None and len(certified) else {}),
        **({"warm_start": np.array(c.warm_start)} if c.warm_start else {}),
        **shard_arrays,
    }, pause=float(os.environ.get(TEST_PAUSE_VARIABLE) or 0))


def load_checkpoint(path: Path, config: GameConfig | None = None, algorithm: str | None = None,
                    storage: bool = True, sums_only: bool = False, regrets_only: bool = False) -> dict:
    """Read and check a checkpoint; CheckpointError with a one-line reason if unusable.

    With ``config`` / ``algorithm``, a checkpoint of another game or algorithm
    is refused (the caller checks its size against the layout). Format 1
    (before the layout was saved) still loads; its ``row_of`` is None (the
    config's layout); formats 1 and 2 (before pruned solves kept their
    discounts as factors) have ``scales`` None: storage as it is.
    ``storage=False`` reads all but the regrets and strategy sums (None): what
    the game and algorithm are, without gigabytes. ``sums_only``: the regrets
    are not read (None) and the strategy sums are memory-mapped; ``regrets_only``: the other way
    round (what a warm start reads).
    """
    if sums_only and regrets_only:
        raise ValueError("load_checkpoint reads the sums only or the regrets only, not both")
    skip = (("regret", "strat_sum") if not storage else ("regret",) if sums_only
            else ("strat_sum",) if regrets_only else ())
    data = _read(Path(path), "badugi-checkpoint", tuple(range(1, CHECKPOINT_VERSION + 1)), skip=skip,
                 mapped="strat_sum" if sums_only else "regret" if regrets_only else None)
    names = ("regret", "strat_sum", "iteration", "seconds", "convergence", "algorithm")
    for name in names + (("row_of",) if int(data["version"]) >= 2 else ()):
        if name not in data:
            raise CheckpointError(f"{path} is damaged: it has no {name!r} array")
    data.setdefault("row_of", None)
    scales = data.get("scales")
    if scales is not None and (scales.shape != (3, 2) or not np.all(np.isfinite(scales)) or np.any(scales < 0)
                               or np.any(scales[[0, 2]] <= 0)):
        raise CheckpointError(f"{path} is damaged: its storage scales are not three positive pairs")
    data["scales"] = scales
    certified = data.get("certified")
    if certified is None:
        data["certified"] = np.zeros((0, 3))
    elif certified.ndim != 2 or certified.shape[1] != 3 or not np.all(np.isfinite(certified)):
        raise CheckpointError(f"{path} is damaged: its certified curve is not rows of three numbers")
    data["warm_start"] = str(data["warm_start"]) if data.get("warm_start") is not None else ""
    if data["warm_start"]:
        try:
            note = json.loads(data["warm_start"])
            sound = isinstance(note, dict)
        except ValueError:
            sound = False
        if not sound:
            raise CheckpointError(f"{path} is damaged: its warm-start record is not the JSON a warm start writes")
    data["lock_toml"] = str(data["lock_toml"]) if "lock_toml" in data else ""
    data["lock_base"] = str(data["lock_base"]) if "lock_base" in data else "."
    data["shards"] = []
    if "shard_files" in data:
        sizes = data.pop("shard_sizes")
        if sizes is None or sizes.sum() != len(data["shard_cuts"]) or len(sizes) != len(data["shard_files"]):
            raise CheckpointError(f"{path} is damaged: its shard list does not add up")
        bounds = np.cumsum(sizes)[:-1]
        data["shards"] = [(Path(path).parent / str(name), cuts)
                          for name, cuts in zip(data.pop("shard_files"), np.split(data.pop("shard_cuts"), bounds))]
    if config is not None and data["config"] != config:
        raise CheckpointError(f"{path} is for {data['config'].describe()}, not {config.describe()}")
    if algorithm is not None and str(data["algorithm"]) != algorithm:
        raise CheckpointError(f"{path} was made with {str(data['algorithm'])}, not {algorithm}")
    data["row_scales"] = None
    if storage:
        sixteen = data["config"].storage_bits == 16
        # The half not read stands in for itself (same dtype and shape), so the checks below hold.
        regret = data["regret"] if not sums_only else data["strat_sum"].view(np.int16 if sixteen else np.float32)
        sums = data["strat_sum"] if not regrets_only else regret.view(np.uint16 if sixteen else np.float32)
        if sixteen and (regret.dtype != np.int16 or sums.dtype != np.uint16):
            raise CheckpointError(f"{path} is damaged: its 16-bit storage is not int16 regrets and uint16 sums")
        if not sixteen and (regret.dtype != np.float32 or sums.dtype != np.float32):
            raise CheckpointError(f"{path} is damaged: regret arrays are not float32")
        if regret.shape != sums.shape or regret.ndim != 1:
            raise CheckpointError(f"{path} is damaged: regrets and strategy sums differ in shape")
        if sixteen:
            scales = (data.pop("regret_scale", None), data.pop("sum_scale", None))
            if any(x is None for x in scales):
                raise CheckpointError(f"{path} is damaged: its 16-bit storage has no row scales")
            if any(x.dtype != np.float32 or x.ndim != 1 or not np.all(np.isfinite(x)) or np.any(x < 0)
                   for x in scales) or scales[0].shape != scales[1].shape:
                raise CheckpointError(f"{path} is damaged: its row scales are not finite, non-negative float32 rows")
            data["row_scales"] = scales
        elif regrets_only and not np.all(np.isfinite(data["regret"])):
            raise CheckpointError(f"{path} is damaged: it holds non-finite regrets")
        elif not (sums_only or regrets_only) and not (np.all(np.isfinite(data["regret"]))
                                                     and np.all(np.isfinite(data["strat_sum"]))):
            raise CheckpointError(f"{path} is damaged: it holds non-finite numbers")
    row_of = data["row_of"]
    if row_of is not None and (row_of.ndim != 2 or row_of.shape[0] != data["config"].rounds
                               or not np.issubdtype(row_of.dtype, np.integer)):
        raise CheckpointError(f"{path} is damaged: its row maps have shape {row_of.shape}")
    return data


# -- strategy files ----------------------------------------------------------
def _tree_problem(tree: PublicTree) -> str | None:
    """What makes a stored tree unusable (None if nothing): shapes, types, child ranges."""
    n = tree.n_nodes
    for name in PublicTree.ARRAYS:
        array = getattr(tree, name)
        if len(array) != n:
            return f"its tree's {name} has {len(array)} entries, not {n}"
        if name != "contrib" and not np.issubdtype(array.dtype, np.integer):
            return f"its tree's {name} is {array.dtype}, not integers"
    if tree.contrib.shape != (n, 2) or not np.isfinite(tree.contrib).all():
        return "its tree's contributions are not finite pairs"
    inner = tree.first_child >= 0
    ends = tree.first_child.astype(np.int64) + tree.n_children
    if n == 0 or (tree.first_child[inner] <= np.nonzero(inner)[0]).any() or (ends[inner] > n).any():
        return "its tree's children are out of range"
    if ((tree.kind < 0) | (tree.kind > 3)).any() or ((tree.kind <= 1) != inner).any():
        return "its tree's node kinds do not match their children"
    children = np.nonzero(inner)[0]
    if not (tree.parent[tree.first_child[children]] == children).all():
        return "its tree's parents do not match its children"
    return None


def _layout_problem(layout: StrategyLayout, tree: PublicTree, config: GameConfig) -> str | None:
    """What makes a stored layout unfit for its tree and game (None if nothing)."""
    if len(layout.slot_of) != tree.n_nodes or layout.row_of.shape[0] != config.rounds:
        return "its layout does not fit its tree"
    if not all(np.issubdtype(a.dtype, np.integer) for a in (layout.slot_of, layout.row_of, layout.slot_offset)):
        return "its layout's maps are not integers"
    decision = np.nonzero(tree.kind <= 1)[0]
    slots = layout.slot_of[decision]
    if (slots < 0).any():
        return "a decision point has no slot"
    for name, node_value in (("round", tree.round), ("seat", tree.seat), ("kind", tree.kind),
                             ("actions", tree.n_children)):
        if not np.array_equal(getattr(layout, "slot_" + name)[slots], node_value[decision]):
            return f"its slots' {name} do not match the tree's"
    return None



@dataclass
class StrategyFile:
    """What a strategy file holds (see the module docstring)."""

    config: GameConfig
    algorithm: str
    iteration: int
    exploitability_mbb: float
    game_value_mbb: float
    tree: PublicTree | None     # None for a game too big to build: its layout reads by recall rule
    layout: StrategyLayout
    probabilities: np.ndarray   # (layout.n_entries,) float32, memory-mapped


def save_strategy(path: Path, config: GameConfig, algorithm: str, iteration: int, tree: PublicTree | None,
                  layout: StrategyLayout, probability_chunks, exploitability_mbb: float, game_value_mbb: float) -> None:
    """The average strategy (``probability_chunks``: float32 arrays holding the layout's entries
    in order, streamed into the file) with its layout and tree (none for a game too big to build,
    whose layout has a recall rule)."""
    small = {**_header("badugi-strategy", STRATEGY_VERSION, config, algorithm, iteration),
             "exploitability_mbb": np.array(exploitability_mbb), "game_value_mbb": np.array(game_value_mbb)}
    if tree is not None:
        small.update({TREE_PREFIX + name: value for name, value in tree.arrays().items()})
    small.update({LAYOUT_PREFIX + name: value for name, value in layout.arrays().items()})
    _write_npz(path, small, ("probabilities", layout.n_entries, probability_chunks))


def load_strategy_file(path: Path) -> StrategyFile:
    """A strategy file, checked; CheckpointError with a one-line reason if unusable."""
    path = Path(path)
    try:
        data = _read(path, "badugi-strategy", (STRATEGY_VERSION,), mapped="probabilities")
    except FormatVersionError as err:
        if err.version == 1:
            raise CheckpointError(f"{path} was written before strategy files carried their layout (format 1); "
                                  f"rewrite it from its run's checkpoint: badugi solve --out {path.parent} --resume "
                                  "--iterations N, with N its iterations") from None
        raise
    try:
        config = data["config"]
        tree = None
        if any(name.startswith(TREE_PREFIX) for name in data):
            tree = PublicTree.from_arrays(config, {name[len(TREE_PREFIX):]: value for name, value in data.items()
                                                   if name.startswith(TREE_PREFIX)})
        layout = StrategyLayout.from_arrays({name[len(LAYOUT_PREFIX):]: value for name, value in data.items()
                                             if name.startswith(LAYOUT_PREFIX)})
        probabilities = data["probabilities"]
    except KeyError as err:
        raise CheckpointError(f"{path} is damaged: it has no {err.args[0]!r} array") from None
    except (LayoutError, ValueError) as err:
        raise CheckpointError(f"{path} is damaged: {err}") from None
    if tree is None:
        problem = None if layout.rule is not None and layout.row_of.shape[0] == config.rounds else \
            "it has neither a tree nor a recall rule"
    else:
        problem = _tree_problem(tree) or _layout_problem(layout, tree, config)
    if problem:
        raise CheckpointError(f"{path} is damaged: {problem}")
    if probabilities.dtype != np.float32:
        raise CheckpointError(f"{path} is damaged: its probabilities are {probabilities.dtype}, not float32")
    if probabilities.shape != (layout.n_entries,):
        raise CheckpointError(f"{path} is damaged: {probabilities.size} probabilities, the layout has "
                              f"{layout.n_entries}")
    return StrategyFile(config, str(data["algorithm"]), int(data["iteration"]), float(data["exploitability_mbb"]),
                        float(data["game_value_mbb"]), tree, layout, probabilities)
