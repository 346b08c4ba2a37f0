"""Files written whole or not at all, and the disk cache of derived tables.

Every file the project writes goes through :func:`atomic_write`: the content
goes to a temporary name in the target's folder, is flushed to disk, and
replaces the target only once complete. A write that fails or is interrupted
leaves the earlier file as it was and no temporary file behind.

Derived tables (draw transitions, card buckets) are cached in
``$BADUGI_CACHE_DIR`` (default ``~/.cache/badugi``) by :func:`cached_arrays`;
a damaged cache file is rebuilt, and a cache that cannot be written is skipped.

>>> import tempfile, pathlib
>>> target = pathlib.Path(tempfile.mkdtemp()) / "note.txt"
>>> with atomic_write(target, "w") as f:
...     _ = f.write("kept")
>>> target.read_text()
'kept'
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Callable

import numpy as np


def cache_dir() -> Path:
    """The folder of cached tables: ``$BADUGI_CACHE_DIR`` or ``~/.cache/badugi``."""
    return Path(os.environ.get("BADUGI_CACHE_DIR") or Path.home() / ".cache" / "badugi")


@contextlib.contextmanager
def atomic_write(path: str | Path, mode: str = "wb"):
    """Open ``path`` for writing (``mode`` ``"wb"`` or ``"w"``) through a temporary file.

    The target is replaced when the ``with`` block ends normally; on any
    exception the temporary file is removed and the target is untouched. An
    OSError about the temporary file names ``path`` instead: the temporary
    name is ours, the path is the one the caller (or a user) gave.
    """
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    text = "b" not in mode
    try:
        with open(tmp, mode, **({"encoding": "utf-8", "newline": ""} if text else {})) as f:
            yield f
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as err:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if isinstance(err, OSError) and err.filename == str(tmp):
            err.filename, err.filename2 = str(path), None
        raise


def cached_arrays(name: str, keys: tuple[str, ...], build: Callable[[], dict], use_cache: bool = True) -> dict:
    """The arrays ``keys`` stored under ``name`` in the cache, or ``build()``'s (saved for next time)."""
    path = cache_dir() / name
    if use_cache and path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                return {key: data[key] for key in keys}
        except (OSError, ValueError, KeyError, EOFError):
            pass  # a damaged cache file is rebuilt
    arrays = build()
    if use_cache:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with atomic_write(path) as f:
                np.savez(f, **arrays)
        except OSError:
            pass  # the cache is an optimisation; a read-only home still works
    return arrays
