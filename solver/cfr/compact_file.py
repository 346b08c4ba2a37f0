"""The compact strategy file: reading and checking it (:mod:`solver.tables.compact` makes one and
says what it keeps).

A compact strategy is a directory: ``compact.json`` (what the file is, the game, its parts'
sizes and SHA-256, what was dropped, its certificate) and parts ``compact.partNN.bin``, which
joined are one LZMA stream of an ``.npz``: the strategy layout, the bitmap of the rows kept, each
kept row's probabilities in (2^bits - 1)ths but its last action's (implied), and the public tree
where the game has one. :func:`read_compact` checks it and expands it to one float32
probability per layout entry. Format 4, a store read a chunk at a time, is
:mod:`solver.cfr.store`'s, whose :func:`~solver.cfr.store.read_strategy` reads a directory
holding a strategy file or a compact strategy of any format.
"""

from __future__ import annotations

import hashlib
import io
import json
import lzma
import tomllib
from pathlib import Path

import numba

import numpy as np
from numba import njit

from abstractions.files import atomic_write

from ..game.config import ConfigError, GameConfig
from ..game.layout import RULE_PREFIX, LayoutError, StrategyLayout, code_slots, slot_offsets
from ..game.tree import PublicTree
from .files import LAYOUT_PREFIX, TREE_PREFIX, CheckpointError, StrategyFile
from .kernels import average_slots
from .walker import in_threads, read_only

COMPACT_NAME = "compact.json"
COMPACT_KIND = "badugi-compact-strategy"
COMPACT_VERSION = 3            # 2: the layout's slot offsets are left out (they are its slots' sizes summed);
#                                3: a recall rule's key table is kept as its slots' code steps (layout.code_steps);
#                                4: a store read a chunk at a time (solver.cfr.store, which writes and reads it)
READ_VERSIONS = (1, 2, 3, 4)
CODE_STEPS = "code_steps"      # (version 3) the member holding a recall rule's key table as code steps
PART_BYTES = 50 * 10**6        # at most this many bytes a part file
DEFAULT_MIN_REACH = 1e-7       # rows a seat's own play reaches less often than this are dropped
# A kept row's probabilities in (2^bits - 1)ths: 255ths at 8 bits, 65,535ths at 16; fewer bits
# (stored in bytes still) leave the compressor less to keep.
COUNT_TYPES = {4: np.uint8, 5: np.uint8, 6: np.uint8, 7: np.uint8, 8: np.uint8, 16: np.uint16}
CHUNK_ENTRIES = 1 << 24        # entries a pass reads at a time
LZMA_PRESET = 6                # the parts are one LZMA stream of an .npz (a fifth smaller than zlib's here)



@njit(cache=True, nogil=True)
def expand_rows(slot_round, slot_actions, slot_offset, row_width, keep, levels, counts, at, base, out):
    """The inverse of :func:`quantize_rows` into ``out`` (entries from ``base``): a kept row's
    counts over ``levels``, a dropped row zeros; returns where the next slots' counts start."""
    r = 0
    for s in range(len(slot_actions)):
        width = row_width[slot_round[s]]
        k = slot_actions[s]
        start = slot_offset[s] - base
        for b in range(width):
            if keep[r + b]:
                left = levels
                for a in range(k - 1):
                    c = np.int64(counts[at + a])
                    out[start + a * width + b] = c / levels
                    left -= c
                out[start + (k - 1) * width + b] = left / levels
                at += k - 1
            else:
                for a in range(k):
                    out[start + a * width + b] = 0.0
        r += width
    return at


def row_offsets(layout: StrategyLayout) -> np.ndarray:
    """(slots + 1,) the first bucket row of each slot."""
    widths = layout.row_width[layout.slot_round.astype(np.int64)]
    return np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)


def write_manifest(out: Path, manifest: dict) -> None:
    with atomic_write(out / COMPACT_NAME, "w") as f:
        f.write(json.dumps(manifest, indent=2) + "\n")


# -- reading one ---------------------------------------------------------------------------------

def read_manifest(directory: str | Path) -> dict:
    """A compact strategy's manifest, checked for what it is; CheckpointError otherwise."""
    path = Path(directory) / COMPACT_NAME
    try:
        manifest = json.loads(path.read_text())
    except FileNotFoundError:
        raise CheckpointError(f"no compact strategy at {path}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as err:
        raise CheckpointError(f"{path} is damaged: not JSON ({err})") from None
    if not isinstance(manifest, dict) or manifest.get("kind") != COMPACT_KIND:
        raise CheckpointError(f"{path} is not a compact strategy's manifest")
    if manifest.get("version") not in READ_VERSIONS:
        raise CheckpointError(f"{path} has format version {manifest.get('version')}, this solver reads "
                              f"{', '.join(map(str, READ_VERSIONS[:-1]))} and {READ_VERSIONS[-1]}")
    for key, kind in MANIFEST_FIELDS.items():
        if not isinstance(manifest.get(key), kind) or isinstance(manifest.get(key), bool):
            raise CheckpointError(f"{path} is damaged: its {key!r} is missing or not {kind_name(kind)}")
    if not all(isinstance(p, dict) and isinstance(p.get("file"), str) and "/" not in p["file"]
               and isinstance(p.get("bytes"), int) and isinstance(p.get("sha256"), str) for p in manifest["parts"]):
        raise CheckpointError(f"{path} is damaged: its parts are not files with sizes and SHA-256")
    certificate = manifest.get("certificate")
    if certificate is not None and not (isinstance(certificate, dict) and all(
            isinstance(certificate.get(k), (int, float)) for k in ("exploitability_mbb", "game_value_mbb"))):
        raise CheckpointError(f"{path} is damaged: its certificate is not figures")
    return manifest


MANIFEST_FIELDS = {"config_toml": str, "algorithm": str, "iteration": int, "full_exploitability_mbb": (int, float),
                   "full_game_value_mbb": (int, float), "bits": int, "bytes": int, "sha256": str, "parts": list}


def kind_name(kind) -> str:
    return {str: "text", int: "an integer", list: "a list"}.get(kind, "a number")


def read_parts(directory: Path, manifest: dict) -> bytes:
    """The compressed file a manifest's parts make, each part's size and SHA-256 checked and the
    whole's; CheckpointError naming a part missing or damaged."""
    pieces = []
    for part in manifest["parts"]:
        path = directory / part["file"]
        if not path.is_file():
            raise CheckpointError(f"{path} is missing: a compact strategy needs every part its manifest names")
        piece = path.read_bytes()
        if len(piece) != part["bytes"] or hashlib.sha256(piece).hexdigest() != part["sha256"]:
            raise CheckpointError(f"{path} is damaged: its bytes are not those its manifest names")
        pieces.append(piece)
    blob = b"".join(pieces)
    if hashlib.sha256(blob).hexdigest() != manifest["sha256"]:
        raise CheckpointError(f"{directory / COMPACT_NAME}: its parts do not make the file it names")
    return blob


def read_rows(directory: str | Path, manifest: dict) -> tuple:
    """``(config, layout, tree, keep, counts)`` of a compact strategy of format 1 to 3, its parts
    checked: the bitmap of the rows kept (bool, one per bucket row) and their counts;
    CheckpointError with a one-line reason if anything is missing or damaged."""
    directory = Path(directory)
    where = directory / COMPACT_NAME
    if manifest["version"] > COMPACT_VERSION:
        raise CheckpointError(f"{where} is a store of format {manifest['version']}: solver.cfr.store reads it")
    try:
        config = GameConfig.from_dict(tomllib.loads(manifest["config_toml"]), str(where))
        blob = read_parts(directory, manifest)
        with np.load(io.BytesIO(lzma.decompress(blob)), allow_pickle=False) as data:
            members = {name: data[name] for name in data.files}
    except (KeyError, TypeError) as err:
        raise CheckpointError(f"{where} is damaged: it has no {err.args[0]!r}") from None
    except (ConfigError, tomllib.TOMLDecodeError) as err:
        raise CheckpointError(f"{where} has a damaged game config: {err}") from None
    except (OSError, ValueError, lzma.LZMAError) as err:
        if isinstance(err, CheckpointError):
            raise
        raise CheckpointError(f"{directory}: its compact strategy cannot be read ({err})") from None
    try:
        arrays = {name[len(LAYOUT_PREFIX):]: value for name, value in members.items() if name.startswith(LAYOUT_PREFIX)}
        if "slot_offset" not in arrays and "slot_actions" in arrays:  # (version 2: not in the file)
            arrays["slot_offset"] = slot_offsets(arrays["slot_actions"], arrays["slot_round"], arrays["row_width"])
        if CODE_STEPS in members:  # (version 3: a recall rule's key table, said slot by slot)
            arrays[RULE_PREFIX + "code_slot"] = code_slots(members.pop(CODE_STEPS),
                                                           int(arrays[RULE_PREFIX + "code_base"][-1]))
        layout = StrategyLayout.from_arrays(arrays)
        tree = None
        if any(name.startswith(TREE_PREFIX) for name in members):
            tree = PublicTree.from_arrays(config, {name[len(TREE_PREFIX):]: value for name, value in members.items()
                                                   if name.startswith(TREE_PREFIX)})
        n_rows = int(members["n_rows"])
        keep = np.unpackbits(members["keep"], count=n_rows).view(bool)
        counts = members["counts"]
    except KeyError as err:
        raise CheckpointError(f"{where} is damaged: it has no {err.args[0]!r} array") from None
    except (LayoutError, ValueError) as err:
        raise CheckpointError(f"{where} is damaged: {err}") from None
    rows = row_offsets(layout)
    bits = manifest.get("bits")
    if rows[-1] != n_rows or bits not in COUNT_TYPES or counts.dtype != COUNT_TYPES[bits]:
        raise CheckpointError(f"{where} is damaged: its rows do not match its layout")
    return config, layout, tree, keep, counts


def read_compact(directory: str | Path, weights: bool = False) -> StrategyFile:
    """The compact strategy in ``directory`` (format 1 to 3), its parts checked and its probabilities expanded
    (kept rows their 255ths or 65,535ths, dropped rows uniform over legal actions, as walks play empty rows);
    CheckpointError with a one-line reason if anything is missing or damaged.

    ``weights``: a file of 8 bits or fewer has each entry its row's count instead, in a byte
    (dropped rows equal counts on legal actions): the same distribution unnormalised, in a
    quarter of the memory (what a match samples from; the committed cap-4 file is 2.3 GB so, 9.2
    GB as float32). A 16-bit file expands to probabilities whatever ``weights`` says."""
    directory = Path(directory)
    manifest = read_manifest(directory)
    where = directory / COMPACT_NAME
    config, layout, tree, keep, counts = read_rows(directory, manifest)
    rows = row_offsets(layout)
    bits = manifest["bits"]
    # Where each chunk's counts start (a kept row has its slot's actions less one), so that the
    # chunks expand on every core at once.
    chunks = list(layout.slot_chunks(CHUNK_ENTRIES))
    starts = [0]
    for lo, hi in chunks:
        kept = keep[rows[lo]:rows[hi]]
        starts.append(starts[-1] + int(np.sum((layout.slot_actions[lo:hi].astype(np.int64) - 1)
                                              * np.add.reduceat(kept, rows[lo:hi] - rows[lo]))))
    if starts[-1] != len(counts):
        raise CheckpointError(f"{where} is damaged: its counts do not match its kept rows")
    levels = (1 << bits) - 1
    weights = weights and bits <= 8
    probabilities = np.empty(layout.n_entries, np.uint8 if weights else np.float32)
    arrays = layout.kernel_arrays()

    def expand(k: int) -> bool:
        lo, hi = chunks[k]
        a, b = int(layout.slot_offset[lo]), int(layout.slot_offset[hi])
        # The chunk's slots with offsets from its own start: it expands into a buffer of its own.
        offsets = layout.slot_offset[lo:hi + 1] - a
        out = np.empty(b - a, np.float32) if weights else probabilities[a:b]
        end = expand_rows(layout.slot_round[lo:hi], layout.slot_actions[lo:hi], offsets, layout.row_width,
                          keep[rows[lo]:rows[hi]], levels, counts, starts[k], 0, out)
        if end != starts[k + 1] or np.any(out < 0):
            return False
        # Dropped rows (zeros) become what walks play there: uniform over legal actions (each
        # slot's normalisation reads its own entries before it writes them: in place).
        average_slots(layout.slot_round[lo:hi], layout.slot_kind[lo:hi], layout.slot_actions[lo:hi], offsets,
                      arrays, read_only(out), out, 0, hi - lo)
        if weights:  # back to counts: kept rows exactly, a dropped row's equal shares equal
            probabilities[a:b] = np.rint(out * levels)
        return True

    threads = max(1, min(numba.get_num_threads(), len(chunks)))
    sound = [True] * len(chunks)

    def expand_share(t: int) -> None:
        for k in range(t, len(chunks), threads):
            sound[k] = expand(k)

    in_threads(threads, expand_share)
    if not all(sound):
        raise CheckpointError(f"{where} is damaged: a row's counts add up to more than a whole, or do not "
                              "match its kept rows")
    probabilities.flags.writeable = False
    certificate = manifest.get("certificate") or {}
    return StrategyFile(config, str(manifest["algorithm"]), int(manifest["iteration"]),
                        float(certificate.get("exploitability_mbb", manifest["full_exploitability_mbb"])),
                        float(certificate.get("game_value_mbb", manifest["full_game_value_mbb"])),
                        tree, layout, probabilities)
