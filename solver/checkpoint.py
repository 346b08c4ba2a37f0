"""Versioned, self-describing checkpoints and strategy files (``.npz``, no pickles).

A checkpoint holds the config (as TOML text), the algorithm, the iteration,
the seconds spent, the convergence history and the regret and strategy-sum
arrays. It is written to a temporary file and renamed over the old one, so a
crash while writing leaves the previous checkpoint intact.
"""

from __future__ import annotations

import os
import tomllib
import zipfile
from pathlib import Path

import numpy as np

from .config import ConfigError, GameConfig

CHECKPOINT_VERSION = 1
STRATEGY_VERSION = 1
CHECKPOINT_NAME = "checkpoint.npz"
STRATEGY_NAME = "strategy.npz"


class CheckpointError(ValueError):
    """A checkpoint that cannot be used: damaged, another format, another game."""


def atomic_savez(path: Path, **arrays) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _header(kind: str, version: int, config: GameConfig, algorithm: str, iteration: int) -> dict:
    """The self-description every file carries: what it is, format, game, algorithm, iteration."""
    return {"kind": np.array(kind), "version": np.array(version), "config_toml": np.array(config.to_toml()),
            "algorithm": np.array(algorithm), "iteration": np.array(iteration, dtype=np.int64)}


def save_checkpoint(path: Path, config: GameConfig, algorithm: str, iteration: int, seconds: float,
                    convergence: np.ndarray, regret: np.ndarray, strat_sum: np.ndarray) -> None:
    atomic_savez(
        path,
        **_header("badugi-checkpoint", CHECKPOINT_VERSION, config, algorithm, iteration),
        seconds=np.array(seconds),
        convergence=np.asarray(convergence, dtype=np.float64).reshape(-1, 3),
        regret=regret,
        strat_sum=strat_sum,
    )


def _read(path: Path, kind: str, version: int) -> dict:
    if not path.is_file():
        raise CheckpointError(f"no {kind.split('-')[1]} file at {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, KeyError) as err:
        raise CheckpointError(f"{path} is damaged or not a badugi file ({type(err).__name__}: {err})") from None
    if str(arrays.get("kind", "")) != kind:
        raise CheckpointError(f"{path} is not a {kind} file")
    if int(arrays.get("version", -1)) != version:
        raise CheckpointError(f"{path} has format version {int(arrays.get('version', -1))}, this solver reads {version}")
    try:
        arrays["config"] = GameConfig.from_dict(tomllib.loads(str(arrays["config_toml"])), str(path))
    except (KeyError, tomllib.TOMLDecodeError, ConfigError) as err:
        raise CheckpointError(f"{path} has a damaged game config: {err}") from None
    return arrays


def load_checkpoint(path: Path, config: GameConfig | None = None, algorithm: str | None = None,
                    expected_size: int | None = None) -> dict:
    """Read and check a checkpoint; CheckpointError with a one-line reason if unusable.

    With ``config`` / ``algorithm`` / ``expected_size``, a checkpoint of another
    game, algorithm or tree is refused.
    """
    data = _read(Path(path), "badugi-checkpoint", CHECKPOINT_VERSION)
    for name in ("regret", "strat_sum", "iteration", "seconds", "convergence", "algorithm"):
        if name not in data:
            raise CheckpointError(f"{path} is damaged: it has no {name!r} array")
    if config is not None and data["config"] != config:
        raise CheckpointError(f"{path} is for {data['config'].describe()}, not {config.describe()}")
    if algorithm is not None and str(data["algorithm"]) != algorithm:
        raise CheckpointError(f"{path} was made with {str(data['algorithm'])}, not {algorithm}")
    if data["regret"].dtype != np.float32 or data["strat_sum"].dtype != np.float32:
        raise CheckpointError(f"{path} is damaged: regret arrays are not float32")
    if expected_size is not None and (data["regret"].size != expected_size or data["strat_sum"].size != expected_size):
        raise CheckpointError(f"{path} does not match this game's tree ({data['regret'].size} entries, "
                              f"expected {expected_size})")
    if not (np.all(np.isfinite(data["regret"])) and np.all(np.isfinite(data["strat_sum"]))):
        raise CheckpointError(f"{path} is damaged: it holds non-finite numbers")
    return data


def save_strategy(path: Path, config: GameConfig, algorithm: str, iteration: int, probability_chunks,
                  size: int, exploitability_mbb: float, game_value_mbb: float) -> None:
    """The average strategy: one probability per (action row, value class), float32.

    ``probability_chunks`` yields float32 arrays that together hold ``size``
    entries; they are streamed into the file (same format as ``np.savez``), so
    writing never holds a second copy of a big strategy.
    """
    path = Path(path)
    small = {**_header("badugi-strategy", STRATEGY_VERSION, config, algorithm, iteration),
             "exploitability_mbb": np.array(exploitability_mbb), "game_value_mbb": np.array(game_value_mbb)}
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, value in small.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as entry:
                np.lib.format.write_array(entry, value, allow_pickle=False)
        with archive.open("probabilities.npy", "w", force_zip64=True) as entry:
            header = {"descr": np.lib.format.dtype_to_descr(np.dtype(np.float32)), "fortran_order": False,
                      "shape": (size,)}
            np.lib.format.write_array_header_2_0(entry, header)
            written = 0
            for chunk in probability_chunks:
                entry.write(np.ascontiguousarray(chunk, dtype=np.float32).tobytes())
                written += len(chunk)
            if written != size:
                raise ValueError(f"strategy has {written} entries, expected {size}")
    os.replace(tmp, path)


def load_strategy_file(path: Path) -> dict:
    data = _read(Path(path), "badugi-strategy", STRATEGY_VERSION)
    if "probabilities" not in data:
        raise CheckpointError(f"{path} is damaged: it has no probabilities")
    return data
