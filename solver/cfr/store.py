"""The compact strategy as a store with random access (compact format version 4).

A compact strategy (:mod:`solver.tables.compact` says what it keeps: 8-bit rows, rows a seat's
own play never reaches dropped) is read a piece at a time:

- **chunks**: the slots in a fixed order, cut into runs of at most about
  :data:`CHUNK_BYTES` expanded bytes, each compressed on its own (``zlib`` by default, ``lzma``
  15% smaller and 3.7 times slower to read). A chunk holds its rows' keep bits (packed, one per
  bucket row, slot-major) and then the kept rows' counts (all but each row's last action);
- an **index** (one more compressed blob): where each chunk lies, its SHA-256, and the layout
  without its big arrays. A layout by recall rule keeps its slots in *key order*: the round, then
  the history key's code (:func:`solver.game.layout.key_code`), then the phase, so a slot is found
  from its history by counting the keys below it in a bitmap of the keys that exist, and its
  entries and rows by arithmetic (:class:`SlotTable`). A subtree's slots lie together in this
  order: its keys share their earliest records, the code's highest digits. A built tree's layout
  lists its slots (small games);
- the parts ``compact.partNN.bin`` hold the blobs whole, each part at most 50 MB; the manifest
  ``compact.json`` names the parts (sizes, SHA-256), the index and the spot tables
  (:mod:`solver.tables.spots`).

:class:`CompactStore` opens one by reading the manifest and the index (a few hundred kB at cap
4), and decodes a chunk when a slot in it is asked for, through a cache bounded in bytes
(:data:`DEFAULT_CACHE_MB`). A slot's probabilities come out as the same bits as the whole-file
reader's (:func:`slot_probabilities`: the same kernels on the slot's own rows), and
:meth:`CompactStore.expand` makes the whole strategy as earlier formats read
(:func:`read_compact`). Matches and reviews, which sample rows anywhere from Numba, read the whole
store decoded but not expanded (:meth:`CompactStore.arena`, 0.5 GB at cap 4 against 10.6 GB as
float32), through :func:`stored_row`.
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import threading
import tomllib
import zipfile
import zlib
from collections import OrderedDict, namedtuple
from functools import cached_property
from pathlib import Path
from typing import NamedTuple

import numba
import numpy as np
from numba import njit

from abstractions.files import atomic_write

from ..game.config import ConfigError, GameConfig
from ..game.layout import RULE_PREFIX, LayoutError, RecallRule, RuleArrays, StrategyLayout
from ..game.rounds import RoundTemplates
from ..game.setup import GameSetup
from ..game.tree import DRAW, PublicTree
from .compact_file import (COMPACT_NAME, COUNT_TYPES, expand_rows, read_compact as read_compact_v3, read_manifest,
                           row_offsets, write_manifest)
from .files import STRATEGY_NAME, TREE_PREFIX, CheckpointError, StrategyFile, load_strategy_file
from .kernels import average_slots, borrowed
from .shards import index_runs
from .walker import in_threads, read_only
from .store_slots import KeyIndex, POPCOUNT, SlotTable, bit, count_starts, gather_rows, key_bitmap, key_order, ones, stored_key_slot, stored_node_slots

STORE_VERSION = 4
CODECS = ("zlib", "lzma")
DEFAULT_CODEC = "zlib"        # cap 4: 83.8 MB of chunks against lzma's 71.4, read 3.7 times faster (BENCHMARKS)
CHUNK_BYTES = 2_000_000       # expanded bytes a chunk holds at most (whole slots; a slot bigger alone)
DEFAULT_CACHE_MB = 256        # decoded chunks a reader keeps (about an eighth of them at cap 4)
EXPAND_ENTRIES = 1 << 22      # entries expanded at a time when the whole strategy is
ZLIB_LEVEL = 9
LZMA_PRESET = 6


def compress(codec: str, data: bytes) -> bytes:
    if codec == "zlib":
        return zlib.compress(data, ZLIB_LEVEL)
    if codec == "lzma":
        return lzma.compress(data, preset=LZMA_PRESET)
    raise ValueError(f"codec must be one of {', '.join(CODECS)}, got {codec!r}")


def decompress(codec: str, data: bytes) -> bytes:
    return zlib.decompress(data) if codec == "zlib" else lzma.decompress(data)




# -- the format ---------------------------------------------------------------------------------

class Blob(NamedTuple):
    part: int
    offset: int
    bytes: int
    sha256: str

    def to_json(self) -> dict:
        return {"part": self.part, "offset": self.offset, "bytes": self.bytes, "sha256": self.sha256}

    @classmethod
    def of(cls, data, where: str) -> "Blob":
        if not (isinstance(data, dict) and all(isinstance(data.get(k), int) and not isinstance(data.get(k), bool)
                                               for k in ("part", "offset", "bytes"))
                and isinstance(data.get("sha256"), str)):
            raise CheckpointError(f"{where} is damaged: its {data!r} is not a place in its parts")
        return cls(data["part"], data["offset"], data["bytes"], data["sha256"])


class PartWriter:
    """Blobs appended to part files of at most ``part_bytes`` each (a blob never split), with
    every part's size and SHA-256 and the SHA-256 of all of them joined."""

    def __init__(self, out: Path, part_bytes: int, parts: list | None = None):
        self.out, self.part_bytes = out, part_bytes
        self.parts = list(parts or [])
        self.whole = hashlib.sha256()
        self.current: bytearray | None = None
        if self.parts:   # (appending to a store: its last part goes on, the whole's digest over the others)
            last = self.parts.pop()
            for part in self.parts:
                self.whole.update((out / part["file"]).read_bytes())
            self.current = bytearray((out / last["file"]).read_bytes())

    def add(self, data: bytes) -> Blob:
        if len(data) > self.part_bytes:
            raise ValueError(f"a piece of the strategy compresses to {len(data):,} bytes, more than a part holds "
                             f"({self.part_bytes:,}): give bigger parts")
        if self.current is None or len(self.current) + len(data) > self.part_bytes:
            self._close()
            self.current = bytearray()
        blob = Blob(len(self.parts) + 1, len(self.current), len(data), hashlib.sha256(data).hexdigest())
        self.current += data
        return blob

    def _close(self) -> None:
        if self.current is None:
            return
        name = f"compact.part{len(self.parts) + 1:02d}.bin"
        with atomic_write(self.out / name, "wb") as f:
            f.write(self.current)
        self.whole.update(self.current)
        self.parts.append({"file": name, "bytes": len(self.current),
                           "sha256": hashlib.sha256(self.current).hexdigest()})
        self.current = None

    def finish(self) -> tuple[list, int, str]:
        """(parts, bytes, sha256 of them joined)."""
        self._close()
        return self.parts, sum(p["bytes"] for p in self.parts), self.whole.hexdigest()


def _npz_bytes(members: dict) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **members)
    return buffer.getvalue()


@njit(cache=True)
def _cut_points(sizes, max_bytes):
    """Where runs of at most ``max_bytes`` (whole items, one item alone if bigger) start."""
    starts = np.zeros(len(sizes), np.bool_)
    used = 0.0
    for i in range(len(sizes)):
        if i == 0 or used + sizes[i] > max_bytes:
            starts[i] = True
            used = 0.0
        used += sizes[i]
    return starts


def chunk_bounds(table: SlotTable, kept_rows: np.ndarray, count_size: int, max_bytes: int) -> list[int]:
    """Slots where chunks start (and the end): runs of whole slots of at most about ``max_bytes``
    expanded bytes each (keep bits and counts; ``kept_rows``: each stored slot's kept rows)."""
    arrays = table.slots(0, table.n_slots)
    sizes = np.diff(arrays.row) / 8 + kept_rows * (arrays.actions.astype(np.int64) - 1) * count_size
    return np.flatnonzero(_cut_points(sizes, float(max_bytes))).tolist() + [table.n_slots]


def write_store(out: Path, layout: StrategyLayout, tree: PublicTree | None, keep: np.ndarray, counts: np.ndarray,
                manifest: dict, codec: str = DEFAULT_CODEC, part_bytes: int = 50 * 10**6,
                chunk_bytes: int = CHUNK_BYTES, say=lambda line: None) -> dict:
    """Write a compact strategy as a store into ``out``: ``keep`` (bool, one per bucket row of
    ``layout``'s slots in its order) and ``counts`` (the kept rows' counts, in that order), the
    manifest's fields given in ``manifest`` (its parts, index and version added here; written,
    and returned)."""
    if codec not in CODECS:
        raise ValueError(f"codec must be one of {', '.join(CODECS)}, got {codec!r}")
    config = GameConfig.from_dict(tomllib.loads(manifest["config_toml"]), "manifest")
    templates = RoundTemplates.of(config)
    rows = row_offsets(layout)
    kept_lex = np.add.reduceat(keep.view(np.uint8), rows[:-1], dtype=np.int64) if layout.n_slots else \
        np.zeros(0, np.int64)
    count_lex = np.concatenate([[0], np.cumsum(kept_lex * (layout.slot_actions.astype(np.int64) - 1))]).astype(np.int64)
    if count_lex[-1] != len(counts):
        raise AssertionError("the kept rows' counts do not fill their array")
    members: dict = {"row_width": layout.row_width, "row_of": layout.row_of, "class_legal": layout.class_legal}
    if layout.rule is not None and tree is None:
        order = key_order(layout)
        words, base = key_bitmap(layout)
        table = SlotTable(layout.row_width, templates, words, base)
        members.update({RULE_PREFIX + name: value for name, value in layout.rule.arrays().items()
                        if name != "code_slot"})
        members.update({"key_words": words, "key_base": base})
        # The arithmetic of key order is the layout's own slots, read in that order.
        stored = table.slots(0, table.n_slots)
        for name, mine, theirs in (("rounds", stored.round, layout.slot_round), ("seats", stored.seat, layout.slot_seat),
                                   ("kinds", stored.kind, layout.slot_kind),
                                   ("actions", stored.actions, layout.slot_actions)):
            if table.n_slots != layout.n_slots or not np.array_equal(mine, theirs[order]):
                raise LayoutError(f"the layout's slot {name} are not its rule's in key order")
    else:
        order = np.arange(layout.n_slots, dtype=np.int64)
        listed = {name: getattr(layout, name) for name in ("slot_round", "slot_seat", "slot_kind", "slot_actions")}
        table = SlotTable(layout.row_width, listed=listed)
        members.update(listed)
        if layout.rule is not None:
            members.update({RULE_PREFIX + name: value for name, value in layout.rule.arrays().items()})
        if tree is not None:
            members["slot_of"] = layout.slot_of
            members.update({TREE_PREFIX + name: value for name, value in tree.arrays().items()})
    kept_rows = kept_lex[order]
    count_size = np.dtype(counts.dtype).itemsize
    # (a chunk compresses to less than it holds: half a part's bytes leaves room for one)
    chunk_bytes = min(chunk_bytes, part_bytes // 2)
    bounds = chunk_bounds(table, kept_rows, count_size, chunk_bytes)
    widths = np.diff(rows)
    writer = PartWriter(out, part_bytes)
    out.mkdir(parents=True, exist_ok=True)
    for old in out.glob("compact.part*.bin"):
        old.unlink()
    chunks = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        slots = order[lo:hi]
        n_rows = int(widths[slots].sum())
        n_counts = int((count_lex[slots + 1] - count_lex[slots]).sum())
        chunk_keep = np.empty(n_rows, bool)
        chunk_counts = np.empty(n_counts, counts.dtype)
        gather_rows(slots, rows, widths, count_lex, keep, counts, chunk_keep, chunk_counts)
        raw = np.packbits(chunk_keep).tobytes() + chunk_counts.astype(chunk_counts.dtype.newbyteorder("<")).tobytes()
        chunks.append((writer.add(compress(codec, raw)), len(raw)))
    members.update({
        "chunk_slot": np.asarray(bounds, np.int64),
        "chunk_part": np.array([b.part for b, _ in chunks], np.int64),
        "chunk_offset": np.array([b.offset for b, _ in chunks], np.int64),
        "chunk_bytes": np.array([b.bytes for b, _ in chunks], np.int64),
        "chunk_raw": np.array([n for _, n in chunks], np.int64),
        "chunk_sha256": np.array([bytes.fromhex(b.sha256) for b, _ in chunks], dtype="S32").view(np.uint8).reshape(-1, 32)
        if chunks else np.zeros((0, 32), np.uint8),
    })
    index = writer.add(compress(codec, _npz_bytes(members)))
    parts, total, digest = writer.finish()
    manifest = dict(manifest, version=STORE_VERSION, codec=codec, index=index.to_json(), tables=None, parts=parts,
                    bytes=total, sha256=digest, chunks=len(chunks))
    write_manifest(out, manifest)
    say(f"{len(chunks)} chunk(s) of at most {chunk_bytes / 1e6:g} MB expanded, {total / 1e6:.1f} MB in "
        f"{len(parts)} part(s) ({codec})")
    return manifest


def append_blob(out: Path, manifest: dict, key: str, data: bytes, part_bytes: int = 50 * 10**6) -> dict:
    """A blob added after the store's parts (the last part if it fits), named ``key`` in the
    manifest (rewritten, and returned)."""
    writer = PartWriter(out, part_bytes, manifest["parts"])
    blob = writer.add(data)
    parts, total, digest = writer.finish()
    manifest = dict(manifest, parts=parts, bytes=total, sha256=digest, **{key: blob.to_json()})
    write_manifest(out, manifest)
    return manifest


# -- reading ------------------------------------------------------------------------------------

class Chunk(NamedTuple):
    """A decoded chunk: its slots, their rows' keep bits (packed), their counts and where each
    slot's counts start."""

    lo: int
    hi: int
    keep: np.ndarray
    counts: np.ndarray
    count_start: np.ndarray
    row: np.ndarray          # each slot's first row in the chunk (one more: its rows)

    @property
    def nbytes(self) -> int:
        return self.keep.nbytes + self.counts.nbytes + self.count_start.nbytes + self.row.nbytes


# What matches and reviews read of a whole store in Numba (see :meth:`CompactStore.arena`):
# where each chunk's slots, rows, keep bits and counts start, each slot's counts from its
# chunk's first, all keep bits and counts (as bytes, ``count_bytes`` a count, little-endian: one
# type whatever the bits); the rows' levels (2^bits - 1). Empty for a player without a store.
StoreArrays = namedtuple("StoreArrays", "index chunk_slot chunk_row chunk_keep chunk_counts slot_counts keep counts "
                                        "count_bytes levels popcount")


def no_store() -> StoreArrays:
    z64 = np.zeros(1, np.int64)
    index = KeyIndex(z64, z64, np.zeros((1, 1), np.int8), np.zeros((1, 1), np.int8), z64, z64, z64,
                     np.zeros(1, np.uint64), z64, z64)
    return StoreArrays(index, z64, z64, z64, z64, np.zeros(1, np.uint32), np.zeros(1, np.uint8),
                       np.zeros(1, np.uint8), 1, 0, POPCOUNT)


class CompactStore:
    """A compact strategy of format 4, read a chunk at a time (see the module docstring)."""

    def __init__(self, directory: str | Path, cache_mb: float | None = None):
        self.directory = Path(directory)
        manifest = read_manifest(self.directory)
        if manifest["version"] != STORE_VERSION:
            raise CheckpointError(f"{self.directory / COMPACT_NAME} is format {manifest['version']}, not a store "
                                  f"({STORE_VERSION})")
        self.manifest = manifest
        where = self.directory / COMPACT_NAME
        self.where = where
        if manifest.get("codec") not in CODECS:
            raise CheckpointError(f"{where} is damaged: its codec is not one of {', '.join(CODECS)}")
        self.codec = manifest["codec"]
        try:
            self.config = GameConfig.from_dict(tomllib.loads(manifest["config_toml"]), str(where))
        except (ConfigError, tomllib.TOMLDecodeError) as err:
            raise CheckpointError(f"{where} has a damaged game config: {err}") from None
        self.bits = manifest["bits"]
        if self.bits not in COUNT_TYPES:
            raise CheckpointError(f"{where} is damaged: its rows are not of 4 to 8 or 16 bits")
        self.levels = (1 << self.bits) - 1
        self.count_type = np.dtype(COUNT_TYPES[self.bits]).newbyteorder("<")
        self.paths = []
        for part in manifest["parts"]:
            path = self.directory / part["file"]
            if not path.is_file():
                raise CheckpointError(f"{path} is missing: a compact strategy needs every part its manifest names")
            if path.stat().st_size != part["bytes"]:
                raise CheckpointError(f"{path} is damaged: its bytes are not those its manifest names")
            self.paths.append(path)
        index = self._members(Blob.of(manifest.get("index"), str(where)), "index")
        try:
            self._open_index(index)
        except KeyError as err:
            raise CheckpointError(f"{where} is damaged: its index has no {err.args[0]!r}") from None
        except (LayoutError, ValueError) as err:
            raise CheckpointError(f"{where} is damaged: {err}") from None
        self.cache_bytes = int((DEFAULT_CACHE_MB if cache_mb is None else cache_mb) * 2**20)
        self._cache: OrderedDict = OrderedDict()
        self._cached = 0
        self._lock = threading.Lock()
        self._arena = None

    # -- blobs
    def read_blob(self, blob: Blob, what: str) -> bytes:
        """A blob's bytes, expanded; CheckpointError naming its part when they are not those the
        store names."""
        if not 1 <= blob.part <= len(self.paths) or blob.offset < 0 or blob.bytes < 0:
            raise CheckpointError(f"{self.where} is damaged: its {what} is not in its parts")
        path = self.paths[blob.part - 1]
        with open(path, "rb") as f:
            f.seek(blob.offset)
            data = f.read(blob.bytes)
        if len(data) != blob.bytes or hashlib.sha256(data).hexdigest() != blob.sha256:
            raise CheckpointError(f"{path} is damaged: the bytes of its {what} are not those its index names")
        try:
            return decompress(self.codec, data)
        except (zlib.error, lzma.LZMAError) as err:
            raise CheckpointError(f"{path} is damaged: its {what} cannot be read ({err})") from None

    def _members(self, blob: Blob, what: str) -> dict:
        data = self.read_blob(blob, what)
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                return {name: z[name] for name in z.files}
        except (OSError, ValueError, EOFError) as err:
            raise CheckpointError(f"{self.paths[blob.part - 1]} is damaged: its {what} cannot be read ({err})") from None

    def _open_index(self, index: dict) -> None:
        config = self.config
        self.templates = RoundTemplates.of(config)
        rule = None
        if RULE_PREFIX + "recall" in index:
            arrays = {name[len(RULE_PREFIX):]: value for name, value in index.items() if name.startswith(RULE_PREFIX)}
            arrays.setdefault("code_slot", np.zeros(0, np.int64))
            rule = RecallRule.from_arrays(arrays)
        self.tree = None
        if "key_words" in index:
            self.table = SlotTable(index["row_width"], self.templates, index["key_words"], index["key_base"])
            if rule is None or len(self.table.key_base) != config.rounds + 1:
                raise LayoutError("its key order has no recall rule for its rounds")
        else:
            self.table = SlotTable(index["row_width"], listed=index)
            if any(name.startswith(TREE_PREFIX) for name in index):
                self.tree = PublicTree.from_arrays(config, {name[len(TREE_PREFIX):]: value
                                                            for name, value in index.items()
                                                            if name.startswith(TREE_PREFIX)})
        self.rule = rule
        self.slot_of = np.asarray(index.get("slot_of", np.zeros(0, np.int64)), np.int64)
        # The layout without its slots: what the kernels read of rows (widths, buckets, legal draws).
        self.lite = StrategyLayout(np.zeros(0, np.int64), np.zeros(0, np.int8), np.zeros(0, np.int8),
                                   np.zeros(0, np.int8), np.zeros(0, np.int8), np.zeros(1, np.int64),
                                   np.asarray(index["row_width"], np.int64), np.asarray(index["row_of"], np.int64),
                                   np.asarray(index["class_legal"], bool), rule)
        if self.lite.row_of.shape[0] != config.rounds or self.lite.n_states != self.lite.class_legal.shape[-2]:
            raise LayoutError("its row maps do not fit its game")
        self.kernel_layout = self.lite.kernel_arrays()
        self.chunk_slot = np.asarray(index["chunk_slot"], np.int64)
        n = len(self.chunk_slot) - 1
        self.chunk_blobs = [Blob(int(p), int(o), int(b), bytes(d).hex()) for p, o, b, d in
                            zip(index["chunk_part"], index["chunk_offset"], index["chunk_bytes"], index["chunk_sha256"])]
        self.chunk_raw = np.asarray(index["chunk_raw"], np.int64)
        if (len(self.chunk_blobs) != n or len(self.chunk_raw) != n or (n and (self.chunk_slot[0] != 0
                                                                               or self.chunk_slot[-1] != self.table.n_slots
                                                                               or np.any(np.diff(self.chunk_slot) <= 0)))):
            raise LayoutError("its chunks do not cover its slots")
        if self.manifest.get("entries", self.table.n_entries) != self.table.n_entries:
            raise LayoutError("its slots do not hold the entries its manifest names")

    @property
    def n_chunks(self) -> int:
        return len(self.chunk_blobs)

    @cached_property
    def tables(self) -> dict | None:
        """The spot tables written with the store (:mod:`solver.tables.spots`), or None."""
        blob = self.manifest.get("tables")
        return None if blob is None else self._members(Blob.of(blob, str(self.where)), "spot tables")

    # -- chunks
    def chunk_of(self, slot: int) -> int:
        return int(np.searchsorted(self.chunk_slot, slot, side="right") - 1)

    def chunk(self, k: int) -> Chunk:
        """Chunk ``k`` decoded (from the cache, or read and kept there)."""
        with self._lock:
            found = self._cache.get(k)
            if found is not None:
                self._cache.move_to_end(k)
                return found
        chunk = self._decode(k)
        with self._lock:
            if k not in self._cache:
                self._cache[k] = chunk
                self._cached += chunk.nbytes
                while self._cached > self.cache_bytes and len(self._cache) > 1:
                    _, old = self._cache.popitem(last=False)
                    self._cached -= old.nbytes
        return chunk

    def _decode(self, k: int) -> Chunk:
        path = self.paths[self.chunk_blobs[k].part - 1] if 1 <= self.chunk_blobs[k].part <= len(self.paths) else None
        raw = self.read_blob(self.chunk_blobs[k], f"chunk {k + 1}")
        lo, hi = int(self.chunk_slot[k]), int(self.chunk_slot[k + 1])
        widths, actions = self.table.widths_and_actions(lo, hi)
        rows = np.zeros(hi - lo + 1, np.int64)
        np.cumsum(widths, out=rows[1:])
        keep_bytes = (int(rows[-1]) + 7) // 8
        if len(raw) != self.chunk_raw[k] or len(raw) < keep_bytes or (len(raw) - keep_bytes) % self.count_type.itemsize:
            raise CheckpointError(f"{path} is damaged: chunk {k + 1} is not the size its index names")
        keep = np.frombuffer(raw, np.uint8, keep_bytes)
        counts = np.frombuffer(raw, self.count_type, offset=keep_bytes)
        if self.count_type != np.dtype(COUNT_TYPES[self.bits]):
            counts = counts.astype(COUNT_TYPES[self.bits])
        starts = np.empty(hi - lo + 1, np.int64)
        count_starts(keep, widths, actions, POPCOUNT, starts)
        if starts[-1] != len(counts):
            raise CheckpointError(f"{path} is damaged: chunk {k + 1}'s counts do not match its kept rows")
        return Chunk(lo, hi, keep, counts, starts, rows)

    def probabilities(self, lo: int, hi: int, out: np.ndarray | None = None) -> np.ndarray:
        """The probabilities of stored slots ``lo..hi-1`` (float32, their entries one after
        another): the same bits as the whole-file reader's (kept rows their counts over the
        levels, dropped rows uniform over legal actions, as walks play empty rows)."""
        arrays = self.table.slots(lo, hi)
        out = np.empty(int(arrays.offset[-1]), np.float32) if out is None else out
        slot = lo
        while slot < hi:
            k = self.chunk_of(slot)
            chunk = self.chunk(k)
            end = min(hi, chunk.hi)
            self._expand(chunk, slot, end, out[int(arrays.offset[slot - lo]):int(arrays.offset[end - lo])])
            slot = end
        return out

    def _expand(self, chunk: Chunk, lo: int, hi: int, out: np.ndarray) -> None:
        arrays = self.table.slots(lo, hi)
        first, last = int(chunk.row[lo - chunk.lo]), int(chunk.row[hi - chunk.lo])
        keep = _unpack_bits(chunk.keep, first, last)
        at = int(chunk.count_start[lo - chunk.lo])
        end = expand_rows(arrays.round, arrays.actions, arrays.offset, self.lite.row_width, keep, self.levels,
                          chunk.counts, at, 0, out)
        if end != chunk.count_start[hi - chunk.lo] or np.any(out < 0):
            path = self.paths[self.chunk_blobs[self.chunk_of(lo)].part - 1]
            raise CheckpointError(f"{path} is damaged: a row's counts add up to more than a whole")
        average_slots(arrays.round, arrays.kind, arrays.actions, arrays.offset, self.kernel_layout, read_only(out),
                      out, 0, hi - lo)

    def slot_rows(self, slot: int) -> np.ndarray:
        """(actions, row width) float32: one slot's probabilities (see :meth:`probabilities`)."""
        arrays = self.table.slots(slot, slot + 1)
        width = int(self.lite.row_width[arrays.round[0]])
        return self.probabilities(slot, slot + 1).reshape(int(arrays.actions[0]), width)

    def slot_strategy(self, slot: int) -> np.ndarray:
        """(actions, classes) float64: the strategy a walk plays at a stored slot (a bucket's for
        each of its classes), as :func:`solver.cfr.walker.slot_strategy` gives it from the whole
        file (the same kernel over the slot's own entries)."""
        arrays = self.table.slots(slot, slot + 1)
        rows = self.probabilities(slot, slot + 1)
        out = np.empty(len(rows))
        average_slots(arrays.round, arrays.kind, arrays.actions, arrays.offset, self.kernel_layout, read_only(rows),
                      out, 0, 1)
        width = int(self.lite.row_width[arrays.round[0]])
        return out.reshape(int(arrays.actions[0]), width)[:, self.lite.row_of[arrays.round[0]]]

    # -- slots by history
    @cached_property
    def key_index(self) -> KeyIndex:
        return self.table.key_index()

    @cached_property
    def rule_arrays(self) -> RuleArrays:
        return self.rule.kernel_arrays(np.zeros(0, np.int64))

    def key_slot(self, rnd: int, phase: int, pot: float, records) -> int:
        """The stored slot of a decision located by its round, phase, pot and records (latest
        first); -1 if the store has none."""
        if not self.table.by_rule:
            raise LayoutError("this store lists its slots by node: find them through its tree")
        full = np.full(max(self.config.draws, 1), -1, np.int64)
        full[:len(records)] = records
        return int(stored_key_slot(self.key_index, self.rule_arrays, rnd, phase, float(pot), full, -1))

    @property
    def by_rule(self) -> bool:
        return self.table.by_rule

    def node_slots(self, tree: PublicTree, earliest_record: int = -1, pot: float = 0.0) -> np.ndarray:
        """The stored slot of every decision node of a generated tree (-1 at terminals; its pots
        raised by ``pot``, a -1 first-round record read as ``earliest_record``)."""
        out = np.empty(tree.n_nodes, np.int64)
        stored_node_slots(tree.kind, tree.round.astype(np.int64), tree.phase.astype(np.int64), tree.pot + pot,
                          tree.records.astype(np.int64), earliest_record, self.key_index, self.rule_arrays, out)
        return out

    def slot_sizes(self, lo: int, hi: int) -> np.ndarray:
        """The entries of slots ``lo..hi-1``."""
        return np.diff(self.table.slots(lo, hi).offset)

    # -- whole
    def layout(self) -> StrategyLayout:
        """The solve's own layout (its slots in its order, as every earlier format holds them): a
        recall rule's made again from the game and the stored rows (its key table dense; checked
        against the stored rule and keys); a built tree's as listed."""
        table, lite = self.table, self.lite
        if not table.by_rule:
            arrays = table.slots(0, table.n_slots)
            layout = StrategyLayout(self.slot_of, arrays.round, arrays.seat, arrays.kind, arrays.actions,
                                    table.slot_offset, lite.row_width, lite.row_of, lite.class_legal, self.rule)
        else:
            try:
                layout = GameSetup(self.config, streamed=True).layout_for(lite.class_legal, lite.row_of)
            except LayoutError as err:
                raise CheckpointError(f"{self.where} is damaged: {err}") from None
            mine, theirs = layout.rule.arrays(), self.rule.arrays()
            words, base = key_bitmap(layout)
            same = all(np.array_equal(mine[name], theirs[name], equal_nan=np.asarray(mine[name]).dtype.kind == "f")
                       for name in mine if name != "code_slot")
            if not (same and np.array_equal(base, table.key_base) and np.array_equal(words, table.key_words)):
                raise CheckpointError(f"{self.where} is damaged: its recall rule and keys are not its game's")
        try:
            layout.check()
        except LayoutError as err:
            raise CheckpointError(f"{self.where} is damaged: {err}") from None
        return layout

    def expand(self, weights: bool = False) -> StrategyFile:
        """The whole strategy in the solve's layout (:meth:`layout`), as the whole-file reader
        gives it (see :func:`solver.cfr.compact_file.read_compact`): float32 probabilities, or
        with ``weights`` (8 bits or fewer) each entry its count."""
        layout = self.layout()
        order = key_order(layout) if self.table.by_rule else None
        weights = weights and self.bits <= 8
        probabilities = np.empty(layout.n_entries, np.uint8 if weights else np.float32)
        sizes = np.diff(layout.slot_offset)
        threads = max(1, min(numba.get_num_threads(), self.n_chunks))

        def expand_share(t: int) -> None:
            for k in range(t, self.n_chunks, threads):
                chunk = self._decode(k)
                lo = chunk.lo
                while lo < chunk.hi:  # (a piece of at most EXPAND_ENTRIES entries at a time)
                    first = self.table.slots(lo, chunk.hi).offset
                    hi = lo + max(1, int(np.searchsorted(first, EXPAND_ENTRIES, side="right")) - 1)
                    hi = min(hi, chunk.hi)
                    piece = np.empty(int(first[hi - lo]), np.float32)
                    self._expand(chunk, lo, hi, piece)
                    values = np.rint(piece * self.levels) if weights else piece
                    if order is None:
                        probabilities[layout.slot_offset[lo]:layout.slot_offset[hi]] = values
                    else:
                        slots = order[lo:hi]
                        probabilities[index_runs(layout.slot_offset[slots], sizes[slots])] = values
                    lo = hi

        in_threads(threads, expand_share)
        probabilities.flags.writeable = False
        manifest = self.manifest
        certificate = manifest.get("certificate") or {}
        return StrategyFile(self.config, str(manifest["algorithm"]), int(manifest["iteration"]),
                            float(certificate.get("exploitability_mbb", manifest["full_exploitability_mbb"])),
                            float(certificate.get("game_value_mbb", manifest["full_game_value_mbb"])),
                            self.tree, layout, probabilities)

    def arena(self) -> StoreArrays:
        """The whole store decoded for Numba (:data:`StoreArrays`; made once, on every core): its
        keep bits and counts as stored, and where each slot's counts start in its chunk."""
        if self._arena is not None:
            return self._arena
        if not self.table.by_rule:
            raise LayoutError("a store of a built tree's slots is read whole, not as an arena")
        n = self.n_chunks
        row_at = np.array([self.table.first_row(int(s)) for s in self.chunk_slot], np.int64)
        keep_bytes = (np.diff(row_at) + 7) // 8
        keep_at = np.concatenate([[0], np.cumsum(keep_bytes)]).astype(np.int64)
        # (each chunk's counts: its expanded bytes less its keep bits, as the index names them)
        counts_at = np.concatenate([[0], np.cumsum((self.chunk_raw - keep_bytes) // self.count_type.itemsize)]
                                   ).astype(np.int64)
        keep = np.empty(int(keep_at[-1]), np.uint8)
        counts = np.empty(int(counts_at[-1]), self.count_type)
        slot_counts = np.empty(self.table.n_slots, np.uint32)
        threads = max(1, min(numba.get_num_threads(), n))

        def decode_share(t: int) -> None:
            for k in range(t, n, threads):
                chunk = self._decode(k)
                keep[keep_at[k]:keep_at[k + 1]] = chunk.keep
                counts[counts_at[k]:counts_at[k + 1]] = chunk.counts
                slot_counts[chunk.lo:chunk.hi] = chunk.count_start[:-1]

        in_threads(threads, decode_share)
        self._arena = StoreArrays(self.key_index, self.chunk_slot, row_at, keep_at, counts_at, slot_counts, keep,
                                  counts.view(np.uint8), self.count_type.itemsize, self.levels, POPCOUNT)
        return self._arena


def _unpack_bits(packed: np.ndarray, lo: int, hi: int) -> np.ndarray:
    """Bits ``lo..hi-1`` of ``packed`` as a bool array."""
    first = lo >> 3
    last = (hi + 7) >> 3
    bits = np.unpackbits(packed[first:last])
    return np.ascontiguousarray(bits[lo - 8 * first:hi - 8 * first]).view(bool)


# -- one row in Numba ---------------------------------------------------------------------------

@njit(cache=True)
def stored_row(store, layout, rule, rnd, phase, pot, records, value, counted, out):
    """The strategy of hand class ``value`` at a decision of a stored strategy (``store``: its
    :data:`StoreArrays`; ``layout``: its rows' :data:`LayoutArrays`; ``rule``: its recall rule's),
    into ``out[:n]`` (``n`` returned: the slot's actions): the float32 probabilities the
    whole-file reader gives there, or with ``counted`` (8 bits or fewer) its counts (the
    probabilities times the levels, rounded: what a match samples from). The same arithmetic as
    ``expand_rows`` then ``average_slots`` for this one row."""
    # (Borrowed: the helpers below cost no reference counts; a namedtuple of arrays passed on
    # made this lookup thirty times slower than its arithmetic.)
    store, layout, rule, records, out = borrowed((store, layout, rule, records, out))
    index = store.index
    slot = stored_key_slot(index, rule, rnd, phase, pot, records, -1)
    n_act = index.phase_actions[rnd, phase]
    if slot < 0:
        for a in range(n_act):
            out[a] = 1.0
        return n_act
    width = layout.row_width[rnd]
    b = layout.row_of[rnd, value]
    lo, hi = 0, len(store.chunk_slot) - 2
    while lo < hi:  # the chunk holding the slot
        mid = (lo + hi + 1) // 2
        if store.chunk_slot[mid] <= slot:
            lo = mid
        else:
            hi = mid - 1
    k = lo
    slot_row = index.row_base[rnd] + (slot - index.slot_base[rnd]) * width - store.chunk_row[k]
    bit0 = store.chunk_keep[k] * 8 + slot_row
    levels = store.levels
    is_draw = index.phase_kind[rnd, phase] == DRAW
    if bit(store.keep, bit0 + b):
        rank = ones(store.keep, bit0, bit0 + b, store.popcount)
        at = store.chunk_counts[k] + np.int64(store.slot_counts[slot]) + rank * (n_act - 1)
        left = levels
        for a in range(n_act - 1):
            if store.count_bytes == 1:
                c = np.int64(store.counts[at + a])
            else:
                c = np.int64(store.counts[2 * (at + a)]) | (np.int64(store.counts[2 * (at + a) + 1]) << 8)
            out[a] = np.float32(c / levels)
            left -= c
        out[n_act - 1] = np.float32(left / levels)
    else:
        for a in range(n_act):
            out[a] = 0.0
    # _regret_match on this one column (see kernels.average_slots)
    total = 0.0
    if is_draw:
        count = 0.0
        for a in range(n_act):
            total += max(out[a], 0.0) * layout.legal_mask[rnd, a, b]
            count += layout.legal_mask[rnd, a, b]
        uniform = 0.0 if total > 0.0 else 1.0 / count
        inv = 1.0 / total if total > 0.0 else 0.0
        for a in range(n_act):
            out[a] = np.float32((max(out[a], 0.0) * inv + uniform) * layout.legal_mask[rnd, a, b])
    else:
        for a in range(n_act):
            total += max(out[a], 0.0)
        uniform = 0.0 if total > 0.0 else 1.0 / n_act
        inv = 1.0 / total if total > 0.0 else 0.0
        for a in range(n_act):
            out[a] = np.float32(max(out[a], 0.0) * inv + uniform)
    if counted:
        for a in range(n_act):
            out[a] = np.rint(np.float32(out[a]) * np.float32(levels))
    return n_act


# -- the readers' entry ---------------------------------------------------------------------------

def is_store(directory: str | Path) -> bool:
    """Whether a directory holds a compact strategy of format 4 (and no strategy file)."""
    directory = Path(directory)
    if (directory / STRATEGY_NAME).is_file() or not (directory / COMPACT_NAME).is_file():
        return False
    try:
        return json.loads((directory / COMPACT_NAME).read_text()).get("version") == STORE_VERSION
    except (OSError, ValueError, AttributeError):
        return False


def strategy_config(directory: str | Path) -> GameConfig:
    """The game of the strategy in a directory, read from its manifest or its strategy file's
    header alone (nothing else of it): what commands check their arguments against before
    reading a strategy; CheckpointError if the directory holds none."""
    directory = Path(directory)
    path = directory / STRATEGY_NAME
    if path.is_file():
        try:
            with np.load(path, allow_pickle=False) as data:
                text = str(data["config_toml"])
        except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile) as err:
            raise CheckpointError(f"{path} is damaged: it cannot be read ({err})") from None
        where = path
    elif (directory / COMPACT_NAME).is_file():
        text, where = read_manifest(directory)["config_toml"], directory / COMPACT_NAME
    else:
        raise CheckpointError(f"{directory} holds no strategy: neither {STRATEGY_NAME} (badugi solve) nor "
                              f"{COMPACT_NAME} (badugi compact)")
    try:
        return GameConfig.from_dict(tomllib.loads(text), str(where))
    except (ConfigError, tomllib.TOMLDecodeError) as err:
        raise CheckpointError(f"{where} has a damaged game config: {err}") from None


def read_compact(directory: str | Path, weights: bool = False) -> StrategyFile:
    """The compact strategy in ``directory`` expanded whole (any format; see
    :func:`solver.cfr.compact_file.read_compact`); a store's layout comes in its own slot order."""
    if is_store(directory):
        return CompactStore(directory).expand(weights)
    return read_compact_v3(directory, weights)


def read_strategy(directory: str | Path, weights: bool = False) -> StrategyFile:
    """The strategy in a directory, whole: its strategy file, or else its compact strategy."""
    directory = Path(directory)
    if not (directory / STRATEGY_NAME).is_file() and (directory / COMPACT_NAME).is_file():
        return read_compact(directory, weights)
    return load_strategy_file(directory / STRATEGY_NAME)
