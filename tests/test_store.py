"""Compact strategies as stores read a chunk at a time (solver/cfr/store.py, format 4): every
answer the same bits as the whole-file reader's, on small games' compact files; damage refused
in one line naming the part; files of earlier formats still read, and converted."""

import hashlib
import io
import json
import lzma
import shutil

import numpy as np
import pytest

from solver.cfr import store as store_module
from solver.cfr.compact_file import read_compact as read_compact_v3, row_offsets, write_manifest
from solver.cfr.files import CheckpointError, load_strategy_file
from solver.cfr.store import CompactStore, read_compact, stored_row
from solver.cfr.store_slots import key_order
from solver.cfr.shards import index_runs
from solver.cfr.streamed import StreamedWalker
from solver.cfr.walker import slot_strategy
from solver.game.config import load_preset
from solver.game.layout import code_steps
from solver.game.tree import StreamedGame
from solver.tables import compact
from solver.tables.strategy import Strategy, load_strategy


@pytest.fixture(scope="module")
def run(tree_less_run):
    """A tiny triple draw solved in its abstract game over a streamed tree (no tree built)."""
    return tree_less_run(40)


@pytest.fixture(scope="module")
def stored(run, tmp_path_factory):
    """Its compact strategy (rows under 1e-4 dropped) as a store of small chunks."""
    out = tmp_path_factory.mktemp("store") / "v4"
    compact.make_compact(run, out, min_reach=1e-4, part_bytes=60_000)
    return out


def _write_v3(store_dir, layout, out):
    """The same rows and counts as a compact file of format 3 (one LZMA stream of an .npz, slots
    in the layout's own order), as earlier versions wrote it."""
    store = CompactStore(store_dir)
    order = key_order(layout)
    rows = row_offsets(layout)
    keep = np.zeros(int(rows[-1]), bool)
    counts_of = [None] * layout.n_slots
    for k in range(store.n_chunks):
        chunk = store.chunk(k)
        bits = np.unpackbits(chunk.keep).astype(bool)
        for j, slot in enumerate(range(chunk.lo, chunk.hi)):
            lex = int(order[slot])
            keep[rows[lex]:rows[lex + 1]] = bits[chunk.row[j]:chunk.row[j + 1]]
            counts_of[lex] = chunk.counts[chunk.count_start[j]:chunk.count_start[j + 1]]
    members = {"keep": np.packbits(keep), "n_rows": np.array(len(keep), np.int64),
               "counts": np.concatenate(counts_of), "code_steps": code_steps(layout.rule.code_slot)}
    members.update({"layout_" + name: value for name, value in layout.arrays().items()
                    if name not in ("slot_offset", "rule_code_slot")})
    buffer = io.BytesIO()
    np.savez(buffer, **members)
    data = lzma.compress(buffer.getvalue(), preset=1)
    out.mkdir(parents=True)
    (out / "compact.part01.bin").write_bytes(data)
    digest = hashlib.sha256(data).hexdigest()
    manifest = {k: v for k, v in store.manifest.items() if k not in ("codec", "index", "tables", "chunks")}
    write_manifest(out, dict(manifest, version=3, bytes=len(data), sha256=digest,
                             parts=[{"file": "compact.part01.bin", "bytes": len(data), "sha256": digest}]))
    return out


@pytest.fixture(scope="module")
def old(run, stored, tmp_path_factory):
    """The same strategy as a file of format 3."""
    return _write_v3(stored, load_strategy_file(run / "strategy.npz").layout, tmp_path_factory.mktemp("store") / "v3")


def _histories(strategy: Strategy, count: int, seed: int) -> list[str]:
    """Decision histories of every round: a random walk of the rules from the root, each step a
    legal action (every decision it meets on the way)."""
    from solver.game.rounds import locate

    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        history = ""
        while True:
            try:
                at = locate(strategy.templates, history)
            except ValueError:
                break
            out.append(history)
            history += at.labels[int(rng.integers(len(at.labels)))]
            try:  # (where a round ends, its separator)
                locate(strategy.templates, history + "/")
                history += "/"
            except ValueError:
                pass
    return list(dict.fromkeys(out))[:count]


def test_a_stores_slots_are_the_whole_files_to_the_bit(run, stored, old):
    """The store expanded whole (its slots in key order) is the format-3 file's probabilities in
    that order; a store is a few chunks of parts under the limit, with its spot tables."""
    manifest = compact.read_manifest(stored)
    assert manifest["version"] == 4 and manifest["codec"] == "zlib" and manifest["chunks"] > 2
    assert all(p["bytes"] <= 60_000 for p in manifest["parts"]) and manifest["tables"] is not None
    from solver.cfr.compact_file import read_parts

    assert len(read_parts(stored, manifest)) == manifest["bytes"]   # (the parts joined: the SHA-256 it names)
    layout = load_strategy_file(run / "strategy.npz").layout
    v3 = read_compact_v3(old)
    whole = read_compact(stored)
    assert np.array_equal(whole.layout.slot_offset, layout.slot_offset)
    assert np.array_equal(whole.layout.rule.code_slot, layout.rule.code_slot)
    assert np.array_equal(whole.probabilities, v3.probabilities)
    # ... and with each entry its count (what matches sample from)
    counted, v3_counted = read_compact(stored, weights=True), read_compact_v3(old, weights=True)
    assert counted.probabilities.dtype == np.uint8
    assert np.array_equal(counted.probabilities, v3_counted.probabilities)
    # The store keeps the layout's slots in key order.
    store = CompactStore(stored)
    order = key_order(layout)
    entries = index_runs(layout.slot_offset[order], np.diff(layout.slot_offset)[order])
    assert np.array_equal(store.probabilities(0, store.table.n_slots), v3.probabilities[entries])


def test_every_answer_of_the_lazy_reader_is_the_whole_files(stored, old):
    """Policies, a decision's strategy, and a spot's reach and values (both seats) from the chunks
    and spot tables are the bits the whole-file reader and the streamed walks give, at decisions
    of every round."""
    lazy = load_strategy(stored)
    eager = Strategy(old)
    assert lazy.store is not None and eager.store is None
    walker = StreamedWalker(StreamedGame(eager.templates), eager.layout, eager.draw_model)
    hands = ["As2h", "3s4h", "Ah2h", "4s4h"]
    histories = _histories(lazy, 60, seed=3)
    assert {h.count("/") // 2 for h in histories} == {0, 1, 2, 3}
    for history in histories:
        mine, theirs = lazy.decision(history), eager.decision(history)
        assert (mine.seat, mine.kind, mine.labels) == (theirs.seat, theirs.kind, theirs.labels)
        assert np.array_equal(lazy.decision_strategy(mine), slot_strategy(eager.layout, eager.probabilities, theirs.slot))
        for hand in hands[:2]:
            assert lazy.policy(history, hand) == eager.policy(history, hand)
        stats = walker.history_stats(eager.probabilities, history)
        spot = lazy.spot(history)
        assert np.array_equal(spot.stats.reach, stats.reach) and np.array_equal(spot.stats.value, stats.value), history
        # The mix's value is the actions' values weighed by the mix.
        mix = np.nansum(spot.strategy * np.nan_to_num(spot.action_values), axis=0)
        assert np.allclose(mix, spot.stats.value[0, spot.seat], atol=1e-12)


def test_a_row_read_in_numba_is_the_whole_files_row(stored):
    """stored_row (matches, reviews) gives each class's probabilities at every decision of the
    tree as the expanded file holds them, and their counts as the counted expansion does."""
    from solver.arena.match import load_player

    player = load_player(str(stored))
    store = player.store
    arena = store.arena()
    whole, counted = store.expand(), store.expand(weights=True)
    layout = whole.layout
    order = key_order(layout)
    game = StreamedGame(store.templates)
    out = np.empty(8)
    n = store.lite.n_states
    trees = [(game.trunk, 0.0, -1)] + [(game.shape, float(game.trunk.pot[c]), int(game.trunk.records[c, 0]))
                                       for c in game.cut_nodes[:6]]
    checked = 0
    for tree, pot, first in trees:
        for node in np.nonzero(tree.kind <= 1)[0][::7]:
            records = tree.records[node].astype(np.int64)
            records[records < 0] = first
            slot = store.key_slot(int(tree.round[node]), int(tree.phase[node]), float(tree.pot[node] + pot),
                                  records[records >= 0])
            if slot < 0:
                continue
            slot = int(order[slot])   # (the solve's own slot)
            rnd = int(tree.round[node])
            width = int(layout.row_width[rnd])
            start = int(layout.slot_offset[slot])
            k = int(layout.slot_actions[slot])
            for value in range(0, n, 5):
                b = int(layout.row_of[rnd, value])
                for flag, expanded in ((False, whole.probabilities), (True, counted.probabilities)):
                    got = stored_row(arena, store.kernel_layout, store.rule_arrays, rnd, int(tree.phase[node]),
                                     float(tree.pot[node] + pot), records, value, flag, out)
                    assert got == k
                    assert np.array_equal(out[:k], expanded[start + b:start + k * width:width].astype(np.float64))
                checked += 1
    assert checked > 100


def test_damage_is_one_line_naming_the_part_when_its_chunk_is_read(stored, tmp_path):
    copy = tmp_path / "copy"
    shutil.copytree(stored, copy)
    manifest = json.loads((copy / "compact.json").read_text())
    store = CompactStore(copy)
    k = store.n_chunks - 1
    blob = store.chunk_blobs[k]
    part = copy / manifest["parts"][blob.part - 1]["file"]
    data = bytearray(part.read_bytes())
    data[blob.offset + blob.bytes // 2] ^= 1
    part.write_bytes(bytes(data))
    lazy = load_strategy(copy)           # the manifest and the index are sound: it opens
    lazy.decision_strategy(lazy.decision(""))   # (the first chunk is sound)
    with pytest.raises(CheckpointError, match=rf"{part.name} is damaged: the bytes of its chunk {k + 1} are not"):
        _ = lazy.probabilities
    index_part = copy / manifest["parts"][manifest["index"]["part"] - 1]["file"]
    data = bytearray(index_part.read_bytes())
    data[manifest["index"]["offset"] + 3] ^= 1
    index_part.write_bytes(bytes(data))
    with pytest.raises(CheckpointError, match=rf"{index_part.name} is damaged: the bytes of its index"):
        load_strategy(copy)
    part.unlink()
    with pytest.raises(CheckpointError, match="is missing"):
        load_strategy(copy)
    (copy / "compact.json").write_text(json.dumps(dict(manifest, codec="bz2")))
    with pytest.raises(CheckpointError, match="its codec is not one of zlib, lzma"):
        CompactStore(copy)


def test_a_file_of_an_earlier_format_still_reads_and_converts_to_the_same_strategy(stored, old, tmp_path, capsys):
    from solver.cli import main

    assert Strategy(old).store is None   # read whole, as before
    out = tmp_path / "converted"
    assert main(["compact", "--convert", str(old), "--out", str(out), "--codec", "lzma"]) == 0
    said = capsys.readouterr().out
    assert "format 3" in said and "(lzma)" in said
    converted = read_compact(out)
    assert np.array_equal(converted.probabilities, read_compact(stored).probabilities)
    # Certified once converted (the file before had no certificate; one it has is kept).
    from solver.cfr.store_walks import StoreWalks

    certificate = compact.read_manifest(out)["certificate"]
    assert certificate["exploitability_mbb"] == StoreWalks(CompactStore(stored)).exploitability().exploitability_mbb
    again = tmp_path / "again"
    assert main(["compact", "--convert", str(out), "--out", str(again)]) == 0
    assert "certifying" not in capsys.readouterr().out
    assert compact.read_manifest(again)["certificate"] == certificate
    assert main(["compact", "--convert", str(old), "--out", str(old)]) == 2
    assert main(["compact", str(old), "--convert", str(old), "--out", str(tmp_path / "x")]) == 2


def test_the_certificate_read_a_subtree_at_a_time_is_the_whole_files(stored):
    """certify walks the store a subtree at a time; the figures are the streamed walks' of the
    whole expanded file, to the bit."""
    manifest = compact.certify(stored)
    eager = Strategy(stored, read_compact(stored))
    x = eager.streamed.exploitability(eager.probabilities)
    assert manifest["certificate"]["exploitability_mbb"] == x.exploitability_mbb
    assert manifest["certificate"]["game_value_mbb"] == x.game_value_mbb


def test_the_chunk_cache_keeps_to_its_bound(stored):
    store = CompactStore(stored, cache_mb=0.02)
    for k in range(store.n_chunks):
        store.chunk(k)
    largest = max(store.chunk(k).nbytes for k in range(store.n_chunks))
    assert store._cached <= max(0.02 * 2**20, largest) and len(store._cache) < store.n_chunks


def test_a_built_trees_compact_strategy_is_a_store_read_whole(tmp_path):
    """A game whose tree is built (small) keeps its slots listed: read whole, the strategy file's
    rows to a 255th, its tree with it."""
    from solver.cfr.solve import solve
    from solver.cfr.walker import normalised_slots

    run = tmp_path / "run"
    solve(load_preset("tiny-single-draw"), iterations=50, out_dir=run)
    out = tmp_path / "c"
    compact.make_compact(run, out, min_reach=0.0)
    small, full = load_strategy(out), load_strategy(run)
    assert small.store is None and small.tree is not None and store_module.is_store(out)
    played = normalised_slots(full.layout, full.probabilities, 0, full.layout.n_slots)
    assert np.max(np.abs(small.probabilities - played)) < 1 / 255
    assert small.policy("ck/", "As2h")


def test_an_export_of_a_stored_strategy_is_the_built_trees_table(stored):
    """badugi export of a game whose tree is never built, the first round or below a second-round
    start (walked a subtree at a time from the chunks): the rows the built tree's table has for the
    same strategy; the whole game is refused in one line, naming what can be exported."""
    from solver.cli import main
    from solver.game.tree import build_tree

    lazy = load_strategy(stored)
    built = Strategy(stored, read_compact(stored))
    built.tree = build_tree(built.config)
    built.layout = built.layout.materialize(built.tree)
    for rounds, prefix in ((None, "ck/10/"), ([0], None), ([2], "crc/21/")):
        mine = list(lazy.rows(rounds=rounds, prefix=prefix, min_reach=1e-6))
        theirs = list(built.rows(rounds=rounds, prefix=prefix, min_reach=1e-6))
        assert len(mine) == len(theirs) > 50, (rounds, prefix)
        for a, b in zip(mine, theirs):
            assert a.keys() == b.keys() and a["history"] == b["history"] and a["class"] == b["class"]
            for key, x in a.items():
                if isinstance(x, float):
                    assert x == pytest.approx(b[key], rel=1e-9, abs=1e-12), (a["history"], key)
    with pytest.raises(ValueError, match=r"export the first round \(--round 0\), or the decisions below"):
        next(lazy.rows())
    assert main(["export", str(stored), "--prefix", "zz"]) == 2
