"""Compact strategy files: a solved strategy small enough to ship, play and study without solving.

A strategy file holds one float32 probability per layout entry: 4.3 GB for triple draw at cap 4
in 64 buckets. A *compact* strategy keeps what a player needs of it:

- **rows its own play reaches**: a *row* is one bucket's probabilities at one slot. Its *reach
  mass* is how often the seat's own play (with the deal) brings a hand of that bucket to the
  slot, summed over the histories the slot merges: the row's strategy sums over the seat's
  total weight. (For perfect recall this is exact: an average strategy's realization weights
  are the iterates' averaged with the same weights as the sums; with a recall rule, a row that
  merges histories sums them.) A row's play changes the seat's value against any opponent by
  at most its mass times the largest pot, whatever the opponent does; rows below
  ``min_reach`` are dropped and played as a row of zeros is everywhere, uniformly over legal
  actions.
- **8-bit probabilities** (or 16-bit, ``bits=16``): each kept row's probabilities in 255ths
  (65,535ths), rounded by largest remainder so that they sum to 255 (65,535) exactly; the last
  action's count is implied. 8 bits cost single draw about 1 mbb/hand (0.05 against 0.97).

The arrays (the layout, the kept-row bitmap, the counts; the tree where the game has one) are
one ``.npz``, compressed as one LZMA stream and cut into parts of at most ``part_bytes`` (50 MB) beside a manifest,
``compact.json``: what the file is, the game, the parts' sizes and SHA-256, what was dropped,
and the certificate of the compact strategy itself (the exact best response at full
resolution, :func:`certify`). :func:`solver.cfr.compact_file.read_compact` checks the parts and expands the
probabilities in memory; :func:`solver.tables.strategy.load_strategy` reads a directory holding
either a strategy file or a compact one, so ``badugi show``, ``match``, ``explore`` and ``plot``
take both.
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
from numba import njit

from ..cfr.compact_file import (CHUNK_ENTRIES, COMPACT_KIND, COUNT_TYPES, DEFAULT_MIN_REACH, PART_BYTES, read_manifest,
                                read_rows, row_offsets, write_manifest)
from ..cfr.store import DEFAULT_CODEC, STORE_VERSION, CompactStore, append_blob, read_compact, write_store
from ..cfr.store_walks import StoreWalks
from ..cfr.files import CHECKPOINT_NAME, STRATEGY_NAME, CheckpointError, StrategyFile, load_checkpoint, load_strategy_file
from ..game.layout import StrategyLayout
from .spots import spot_tables
from .strategy import find_decision
from .threshold import check_threshold, threshold_rows

# -- kernels -------------------------------------------------------------------------------------

@njit(cache=True)
def row_masses(slot_round, slot_actions, slot_offset, row_width, sums, base, out):
    """``out[r]``: the summed strategy weight of each bucket row of the slots whose entries
    ``sums`` holds (``base``: the first slot's first entry), slot-major, bucket-minor."""
    r = 0
    s = 0
    n_slots = len(slot_actions)
    while s < n_slots:
        width = row_width[slot_round[s]]
        start = slot_offset[s] - base
        for b in range(width):
            total = 0.0
            for a in range(slot_actions[s]):
                total += sums[start + a * width + b]
            out[r + b] = total
        r += width
        s += 1


@njit(cache=True)
def quantize_rows(slot_round, slot_actions, slot_offset, row_width, probs, base, keep, step, levels, counts, at):
    """The kept rows' probabilities in ``levels``ths (largest remainder: they sum to ``levels``),
    all but each row's last action, appended to ``counts`` from ``at``; returns where the next
    row goes. ``step[r]`` (a divisor of ``levels``): row ``r``'s counts are multiples of it, its
    probabilities in ``levels // step[r]``ths (1: every level; ``levels``: the row's likeliest
    action alone)."""
    r = 0
    frac = np.zeros(16)
    units = np.zeros(16, np.int64)
    for s in range(len(slot_actions)):
        width = row_width[slot_round[s]]
        k = slot_actions[s]
        start = slot_offset[s] - base
        for b in range(width):
            if keep[r + b]:
                total = 0.0
                for a in range(k):
                    total += max(probs[start + a * width + b], 0.0)
                unit = step[r + b]
                whole = levels // unit
                given = 0
                for a in range(k):
                    p = max(probs[start + a * width + b], 0.0) / total if total > 0 else 1.0 / k
                    x = p * whole
                    units[a] = int(np.floor(x))
                    frac[a] = x - units[a]
                    given += units[a]
                while given < whole:  # the largest remainders get the units left, the first on ties
                    best = 0
                    for a in range(1, k):
                        if frac[a] > frac[best]:
                            best = a
                    units[best] += 1
                    frac[best] = -1.0
                    given += 1
                for a in range(k - 1):
                    counts[at + a] = units[a] * unit
                at += k - 1
        r += width
    return at


# -- making one ----------------------------------------------------------------------------------

def _true_sums(data: dict, layout: StrategyLayout, lo: int, hi: int) -> np.ndarray:
    """A checkpoint's strategy sums of slots ``lo..hi-1`` as float64 (16-bit storage decoded;
    a pruned solve's per-seat factor is left out: masses are ratios within a seat)."""
    a, b = int(layout.slot_offset[lo]), int(layout.slot_offset[hi])
    sums = np.asarray(data["strat_sum"][a:b], np.float64)
    if data["row_scales"] is not None:
        action_rows = np.concatenate([[0], np.cumsum(layout.slot_actions.astype(np.int64))])
        widths = layout.row_width[layout.slot_round[lo:hi].astype(np.int64)]
        scale = data["row_scales"][1][action_rows[lo]:action_rows[hi]].astype(np.float64)
        sums *= np.repeat(scale, np.repeat(widths, layout.slot_actions[lo:hi].astype(np.int64)))
    return sums


def _first_slots(strategy_file: StrategyFile) -> dict[int, int]:
    """Each seat's first decision (the button at the root, the big blind after the button's
    call): a slot every hand of the seat reaches with its own play, whose rows' weights sum to
    the seat's total weight."""
    first = {}
    for history in ("", "c"):
        decision = find_decision(strategy_file.config, strategy_file.tree, strategy_file.layout, history)
        first[decision.seat] = decision.slot
    if sorted(first) != [0, 1]:
        raise ValueError("the first decisions are not one of each seat")
    return first


def row_steps(reach: np.ndarray, levels: int, fine_reach: float | None) -> np.ndarray:
    """Each row's step in ``levels``ths (see :func:`quantize_rows`): 1 where ``fine_reach`` is
    None or the row's reach is at least it, else the largest divisor of ``levels`` at most
    ``fine_reach / reach``, so that no row's reach times its step passes ``fine_reach``'s (a
    row's rounding moves the seat's value by at most its reach times its step, the pot and the
    actions given)."""
    if fine_reach is None:
        return np.ones(len(reach), np.int32)
    divisors = np.array([d for d in range(1, levels + 1) if levels % d == 0], np.int64)
    with np.errstate(divide="ignore"):
        ratio = fine_reach / np.asarray(reach, np.float64)
    return divisors[np.maximum(np.searchsorted(divisors, ratio, side="right") - 1, 0)].astype(np.int32)


def make_compact(run: str | Path, out: str | Path, min_reach: float = DEFAULT_MIN_REACH,
                 part_bytes: int = PART_BYTES, bits: int = 8, fine_reach: float | None = None,
                 threshold: float = 0.0, codec: str = DEFAULT_CODEC, say=lambda line: None) -> dict:
    """Write the compact strategy of the solved run in ``run`` (its strategy file, and its
    checkpoint for the rows' reach) into ``out``; returns its manifest (without a certificate:
    :func:`certify` adds it). ``threshold``: each kept row's actions below that fraction of it
    dropped before rounding (:mod:`solver.tables.threshold`)."""
    run, out = Path(run), Path(out)
    if not 0 <= min_reach <= 0.5:
        raise ValueError(f"min reach must be from 0 to 0.5, got {min_reach}")
    if fine_reach is not None and not min_reach < fine_reach <= 1:
        raise ValueError(f"fine reach must be above the min reach ({min_reach:g}) and at most 1, got {fine_reach:g}")
    if bits not in COUNT_TYPES:
        raise ValueError(f"probabilities are kept in 4 to 8 or 16 bits, not {bits}")
    check_threshold(threshold)
    count_type, levels = COUNT_TYPES[bits], (1 << bits) - 1
    if part_bytes < 1000:
        raise ValueError(f"parts must hold at least 1000 bytes, got {part_bytes}")
    if not (run / CHECKPOINT_NAME).is_file():
        raise CheckpointError(f"{run}: a compact strategy needs the run's {CHECKPOINT_NAME} (its strategy sums say "
                              "how often each row is reached)")
    saved = load_strategy_file(run / STRATEGY_NAME)
    data = load_checkpoint(run / CHECKPOINT_NAME, saved.config, sums_only=True)
    layout = saved.layout
    if data["shards"]:   # (a run on streamed Ray actors: its shards made whole)
        from ..cfr.shards import shards_into

        shards_into(data, layout, saved.config.storage_bits == 16)
    if data["strat_sum"].shape != (layout.n_entries,):
        raise CheckpointError(f"{run / CHECKPOINT_NAME} does not hold the strategy file's {layout.n_entries:,} entries")
    if int(data["iteration"]) != saved.iteration:
        raise CheckpointError(f"{run}: its checkpoint is of iteration {int(data['iteration'])}, its strategy of "
                              f"{saved.iteration}; solve again with --resume to write both")
    rows = row_offsets(layout)
    t0 = time.perf_counter()

    def masses_of(lo: int, hi: int) -> np.ndarray:
        out = np.empty(int(rows[hi] - rows[lo]))
        row_masses(layout.slot_round[lo:hi], layout.slot_actions[lo:hi], layout.slot_offset[lo:hi + 1],
                   layout.row_width, _true_sums(data, layout, lo, hi), int(layout.slot_offset[lo]), out)
        if not np.all(np.isfinite(out)) or np.any(out < 0):
            raise CheckpointError(f"{run / CHECKPOINT_NAME} is damaged: its strategy sums are not finite and "
                                  "non-negative")
        return out

    seat_total = np.array([masses_of(slot, slot + 1).sum() for _, slot in sorted(_first_slots(saved).items())])
    if np.any(seat_total <= 0):
        raise CheckpointError(f"{run / CHECKPOINT_NAME} has no strategy weight at a seat's first decision: "
                              "was any iteration run?")
    keep = np.empty(int(rows[-1]), bool)
    dropped = np.zeros(2)
    pieces = []
    for lo, hi in layout.slot_chunks(CHUNK_ENTRIES):
        seat = np.repeat(layout.slot_seat[lo:hi].astype(np.intp), np.diff(rows[lo:hi + 1]))
        reach = masses_of(lo, hi) / seat_total[seat]
        kept = keep[rows[lo]:rows[hi]]
        np.greater_equal(reach, min_reach, out=kept)
        dropped += np.bincount(seat[~kept], weights=reach[~kept], minlength=2)
        counts = np.empty(int(np.sum((layout.slot_actions[lo:hi].astype(np.int64) - 1)
                                     * np.add.reduceat(kept, rows[lo:hi] - rows[lo]))), count_type)
        probs = np.asarray(saved.probabilities[layout.slot_offset[lo]:layout.slot_offset[hi]])
        if threshold > 0:
            probs = np.array(probs)
            threshold_rows(layout.slot_round[lo:hi], layout.slot_actions[lo:hi], layout.slot_offset[lo:hi + 1],
                           layout.row_width, probs, threshold, True)
        at = quantize_rows(layout.slot_round[lo:hi], layout.slot_actions[lo:hi], layout.slot_offset[lo:hi + 1],
                           layout.row_width, probs, int(layout.slot_offset[lo]), kept,
                           row_steps(reach, levels, fine_reach), levels, counts, 0)
        if at != len(counts):
            raise AssertionError("the kept rows' counts do not fill their array")
        pieces.append(counts)
    counts = np.concatenate(pieces) if pieces else np.zeros(0, count_type)
    del pieces
    dropped = {f"seat_{seat}": float(dropped[seat]) for seat in (0, 1)}
    say(f"{int(keep.sum()):,} of {len(keep):,} rows kept (reach at least {min_reach:g}), "
        f"{time.perf_counter() - t0:.1f} s")
    summary_path = run / "summary.json"
    full = json.loads(summary_path.read_text()) if summary_path.is_file() else {}
    manifest = {
        "kind": COMPACT_KIND, "config_toml": saved.config.to_toml(),
        "game": saved.config.describe(), "algorithm": saved.algorithm, "iteration": saved.iteration,
        "entries": int(layout.n_entries), "rows": int(len(keep)), "rows_kept": int(keep.sum()),
        "min_reach": min_reach, "dropped_reach": dropped, "bits": bits, "fine_reach": fine_reach,
        "threshold": threshold,
        "full_exploitability_mbb": saved.exploitability_mbb, "full_game_value_mbb": saved.game_value_mbb,
        "full_strategy_bytes": int((run / STRATEGY_NAME).stat().st_size),
        "full_summary": {k: full[k] for k in ("exploitability_mbb", "abstract_exploitability_mbb", "iterations",
                                             "seconds", "peak_rss_bytes") if k in full},
    }
    return finish_store(out, layout, saved.tree, keep, counts, manifest, codec, part_bytes, say)


def finish_store(out: Path, layout: StrategyLayout, tree, keep: np.ndarray, counts: np.ndarray, manifest: dict,
                 codec: str, part_bytes: int, say) -> dict:
    """Write the store (:func:`solver.cfr.store.write_store`), then its spot tables (a game
    without a built tree: :func:`solver.tables.spots.spot_tables`, two walks of the whole tree);
    returns the manifest."""
    t0 = time.perf_counter()
    manifest = write_store(out, layout, tree, keep, counts, manifest, codec, part_bytes, say=say)
    say(f"written in {time.perf_counter() - t0:.1f} s")
    if tree is None:
        t0 = time.perf_counter()
        manifest = append_blob(out, manifest, "tables", spot_tables(CompactStore(out)), part_bytes)
        say(f"spot tables of the first round: {time.perf_counter() - t0:.1f} s")
    say(f"{manifest['bytes'] / 1e6:.1f} MB in {len(manifest['parts'])} part(s) in {out}")
    return manifest


def convert(source: str | Path, out: str | Path, codec: str = DEFAULT_CODEC, part_bytes: int = PART_BYTES,
            say=lambda line: None) -> dict:
    """A compact strategy of an earlier format (1 to 3: one LZMA stream) written again as a store
    (format 4) in ``out``: the same rows and counts, so the same strategy to the bit; its
    certificate and the rest of its manifest kept. A store is written again the same way (another
    codec, say)."""
    source, out = Path(source), Path(out)
    if source.resolve() == out.resolve():
        raise ValueError("--out must be another directory than the compact strategy converted")
    manifest = read_manifest(source)
    t0 = time.perf_counter()
    if manifest["version"] == STORE_VERSION:
        store = CompactStore(source)
        layout = store.layout()
        keep = np.empty(layout.row_width[layout.slot_round.astype(np.int64)].sum(), bool)
        pieces, rows = [], row_offsets(layout)
        for k in range(store.n_chunks):
            chunk = store.chunk(k)
            lo, hi = chunk.lo, chunk.hi
            keep[rows[lo]:rows[hi]] = np.unpackbits(chunk.keep, count=int(rows[hi] - rows[lo])).view(bool)
            pieces.append(chunk.counts)
        counts = np.concatenate(pieces) if pieces else np.zeros(0, COUNT_TYPES[manifest["bits"]])
        tree = store.tree
    else:
        _, layout, tree, keep, counts = read_rows(source, manifest)
    say(f"read {source} (format {manifest['version']}) in {time.perf_counter() - t0:.1f} s")
    kept = {k: v for k, v in manifest.items() if k not in ("version", "bytes", "sha256", "parts", "codec", "index",
                                                          "tables", "chunks")}
    return finish_store(out, layout, tree, keep, counts, kept, codec, part_bytes, say)


def certify(directory: str | Path, say=lambda line: None) -> dict:
    """The exact best response at full resolution against the compact strategy in
    ``directory`` (as it plays: kept rows rounded, dropped ones uniform), written into its
    manifest as ``certificate``; returns the manifest."""
    from .strategy import Strategy

    directory = Path(directory)
    t0 = time.perf_counter()
    store = CompactStore(directory) if read_manifest(directory)["version"] == STORE_VERSION else None
    if store is not None and store.by_rule:
        # A subtree at a time from the chunks (memory: a subtree's strategy and the chunk cache).
        x = StoreWalks(store).exploitability()
    else:
        strategy = Strategy(directory, read_compact(directory))  # this directory's compact file, whatever is beside it
        if strategy.tree is not None:
            x = strategy.walker.exploitability(strategy.probabilities)
        else:
            x = strategy.streamed.exploitability(strategy.probabilities)
    seconds = time.perf_counter() - t0
    manifest = read_manifest(directory)
    full = manifest["full_exploitability_mbb"]
    manifest["certificate"] = {
        "exploitability_mbb": x.exploitability_mbb, "game_value_mbb": x.game_value_mbb,
        "br_button_mbb": 1000.0 * x.br_button, "br_big_blind_mbb": 1000.0 * x.br_big_blind,
        "seconds": round(seconds, 1), "against_full": x.exploitability_mbb / full if full > 0 else None,
        "measured": "exactly, at full resolution: the best response to the compact strategy as it plays"}
    write_manifest(directory, manifest)
    say(f"certified: {x.exploitability_mbb:.2f} mbb/hand (the full strategy file: {full:.2f}), {seconds:.0f} s")
    return manifest
