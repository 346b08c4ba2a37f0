"""Where a compact store keeps its slots: the bit helpers Numba reads a store's rows with, a
stored key's slot found from its round, phase, pot and records (the key order and bitmap of
:func:`key_order` and :func:`key_bitmap`), and :class:`SlotTable`, a store's slots and rows
without its layout (:mod:`solver.cfr.store` writes and reads the store itself)."""

from __future__ import annotations

from collections import namedtuple
from typing import NamedTuple

import numpy as np
from numba import njit

from ..game.layout import LayoutError, StrategyLayout, key_code, phase_tables, slot_offsets
from ..game.rounds import RoundTemplates
from ..game.tree import DRAW


POPCOUNT = np.array([bin(i).count("1") for i in range(256)], np.int64)


@njit(cache=True, inline="always")
def _popcount64(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True, inline="always")
def bit(packed, i):
    """Bit ``i`` of bytes packed as ``np.packbits`` packs them (the first bit the highest)."""
    return (packed[i >> 3] >> (7 - (i & 7))) & 1


@njit(cache=True, inline="always")
def ones(packed, lo, hi, table):
    """Set bits ``lo..hi-1`` of ``packed`` (``table``: the popcount of each byte)."""
    n = 0
    i = lo
    while i < hi and (i & 7):
        n += bit(packed, i)
        i += 1
    while i + 8 <= hi:
        n += table[packed[i >> 3]]
        i += 8
    while i < hi:
        n += bit(packed, i)
        i += 1
    return n


@njit(cache=True, nogil=True)
def count_starts(keep, widths, actions, table, out):
    """``out[j]``: where slot ``j``'s counts start among a chunk's (``out[-1]``: all of them), its
    rows' keep bits packed in ``keep`` one after another; a kept row has its slot's actions less
    one counts."""
    row = 0
    out[0] = 0
    for j in range(len(widths)):
        kept = ones(keep, row, row + widths[j], table)
        out[j + 1] = out[j] + kept * (actions[j] - 1)
        row += widths[j]


@njit(cache=True)
def gather_rows(slots, row_start, widths, count_start, keep, counts, out_keep, out_counts):
    """The rows (keep flags) and counts of ``slots`` one after another, from arrays laid out by
    another slot order (``row_start``/``count_start``: each slot's first row and count there)."""
    r = 0
    c = 0
    for s in slots:
        w = widths[s]
        for b in range(w):
            out_keep[r + b] = keep[row_start[s] + b]
        r += w
        n = count_start[s + 1] - count_start[s]
        for i in range(n):
            out_counts[c + i] = counts[count_start[s] + i]
        c += n
    return r, c


# What Numba reads of a store's key order: per round its first slot, phases, each phase's kind
# and actions, its first row and its row width; the keys that exist as a bitmap over every round's
# key codes (``key_base[r]``: round r's first bit; ``key_rank[w]``: set bits before word w;
# ``key_first[r]``: set bits before round r's first).
KeyIndex = namedtuple("KeyIndex", "slot_base n_phases phase_kind phase_actions row_base row_width key_base key_words "
                                  "key_rank key_first")


@njit(cache=True, inline="always")
def stored_key_slot(index, rule, rnd, phase, pot, records, earliest_record):
    """The stored slot of a decision under a recall rule (``rule``: its :data:`RuleArrays`, the
    key table not needed): its key's rank among the round's keys, times the round's phases, plus
    its phase; -1 if no history has the key."""
    code = key_code(rule, rnd, pot, records, earliest_record)
    if code < 0:
        return -1
    bit = index.key_base[rnd] + code
    if bit >= index.key_base[rnd + 1]:
        return -1
    word = bit >> 6
    shift = np.uint64(bit & 63)
    w = index.key_words[word]
    if not (w >> shift) & np.uint64(1):
        return -1
    below = index.key_rank[word] + _popcount64(w & ((np.uint64(1) << shift) - np.uint64(1)))
    return index.slot_base[rnd] + (below - index.key_first[rnd]) * index.n_phases[rnd] + phase


@njit(cache=True)
def stored_node_slots(kind, rnd, phase, pot, records, earliest_record, index, rule, out):
    """The stored slot of every decision node of a generated tree (-1 at terminals)."""
    for node in range(len(kind)):
        out[node] = -1
        if kind[node] <= DRAW:
            out[node] = stored_key_slot(index, rule, rnd[node], phase[node], pot[node], records[node],
                                        earliest_record)


class SlotArrays(NamedTuple):
    """A run of stored slots: each one's round, seat, kind and actions (int8, as layouts hold
    them), its first entry and first row counted from the run's first slot (int64, one more at
    the end: the run's entries and rows)."""

    round: np.ndarray
    seat: np.ndarray
    kind: np.ndarray
    actions: np.ndarray
    offset: np.ndarray
    row: np.ndarray


class SlotTable:
    """The stored slots of a compact strategy: for a layout by recall rule, per round arithmetic
    over its keys in code order (see the module docstring); otherwise the layout's slot arrays."""

    def __init__(self, row_width: np.ndarray, templates: RoundTemplates | None = None,
                 key_words: np.ndarray | None = None, key_base: np.ndarray | None = None, listed: dict | None = None):
        self.row_width = np.asarray(row_width, np.int64)
        self.by_rule = listed is None
        if self.by_rule:
            rounds = len(self.row_width)
            tables = [phase_tables(templates, r) for r in range(rounds)]
            most = max(len(t[0]) for t in tables)
            self.n_phases = np.array([len(t[0]) for t in tables], np.int64)
            self.phase_seat = np.zeros((rounds, most), np.int8)
            self.phase_kind = np.zeros((rounds, most), np.int8)
            self.phase_actions = np.zeros((rounds, most), np.int8)
            self.phase_entry = np.zeros((rounds, most + 1), np.int64)
            for r, (seat, kind, actions) in enumerate(tables):
                n = len(seat)
                self.phase_seat[r, :n], self.phase_kind[r, :n], self.phase_actions[r, :n] = seat, kind, actions
                self.phase_entry[r, 1:n + 1] = np.cumsum(actions.astype(np.int64) * self.row_width[r])
            self.key_words = np.asarray(key_words, np.uint64)
            self.key_base = np.asarray(key_base, np.int64)
            counts = _word_counts(self.key_words)
            self.key_rank = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            self.key_first = np.array([_ones_below(self.key_words, self.key_rank, int(b)) for b in self.key_base],
                                      np.int64)
            keys = np.diff(self.key_first)
            self.keys = keys
            self.key_entries = np.array([self.phase_entry[r, self.n_phases[r]] for r in range(rounds)], np.int64)
            self.slot_base = np.concatenate([[0], np.cumsum(keys * self.n_phases)]).astype(np.int64)
            self.entry_base = np.concatenate([[0], np.cumsum(keys * self.key_entries)]).astype(np.int64)
            self.row_base = np.concatenate([[0], np.cumsum(keys * self.n_phases * self.row_width)]).astype(np.int64)
            self.n_slots = int(self.slot_base[-1])
            self.n_entries = int(self.entry_base[-1])
            self.n_rows = int(self.row_base[-1])
        else:
            self.slot_round = np.asarray(listed["slot_round"], np.int8)
            self.slot_seat = np.asarray(listed["slot_seat"], np.int8)
            self.slot_kind = np.asarray(listed["slot_kind"], np.int8)
            self.slot_actions = np.asarray(listed["slot_actions"], np.int8)
            self.slot_offset = slot_offsets(self.slot_actions, self.slot_round, self.row_width)
            widths = self.row_width[self.slot_round.astype(np.int64)]
            self.slot_row = np.concatenate([[0], np.cumsum(widths)]).astype(np.int64)
            self.n_slots = len(self.slot_round)
            self.n_entries = int(self.slot_offset[-1])
            self.n_rows = int(self.slot_row[-1])

    def slots(self, lo: int, hi: int) -> SlotArrays:
        """Slots ``lo..hi-1``: see :class:`SlotArrays`."""
        if not self.by_rule:
            return SlotArrays(self.slot_round[lo:hi], self.slot_seat[lo:hi], self.slot_kind[lo:hi],
                              self.slot_actions[lo:hi], self.slot_offset[lo:hi + 1] - self.slot_offset[lo],
                              self.slot_row[lo:hi + 1] - self.slot_row[lo])
        s = np.arange(lo, hi + 1, dtype=np.int64)
        r = np.searchsorted(self.slot_base, s, side="right") - 1
        r = np.minimum(r, len(self.row_width) - 1)
        j = s - self.slot_base[r]
        phases = self.n_phases[r]
        key, phase = j // phases, j % phases
        entry = self.entry_base[r] + key * self.key_entries[r] + self.phase_entry[r, phase]
        row = self.row_base[r] + j * self.row_width[r]
        r, phase = r[:-1], phase[:-1]
        return SlotArrays(r.astype(np.int8), self.phase_seat[r, phase], self.phase_kind[r, phase],
                          self.phase_actions[r, phase], entry - entry[0], row - row[0])

    def first_row(self, slot: int) -> int:
        if not self.by_rule:
            return int(self.slot_row[slot])
        r = int(np.searchsorted(self.slot_base, slot, side="right") - 1)
        r = min(r, len(self.row_width) - 1)
        return int(self.row_base[r] + (slot - self.slot_base[r]) * self.row_width[r])

    def widths_and_actions(self, lo: int, hi: int) -> tuple[np.ndarray, np.ndarray]:
        """Slots ``lo..hi-1``'s row widths and actions (int64): what decoding a chunk needs."""
        if not self.by_rule:
            return (self.row_width[self.slot_round[lo:hi].astype(np.int64)],
                    self.slot_actions[lo:hi].astype(np.int64))
        widths, actions = np.empty(hi - lo, np.int64), np.empty(hi - lo, np.int64)
        _widths_and_actions(self.slot_base, self.n_phases, self.row_width, self.phase_actions, lo, widths, actions)
        return widths, actions

    def key_index(self) -> KeyIndex:
        return KeyIndex(self.slot_base, self.n_phases, self.phase_kind, self.phase_actions, self.row_base,
                        self.row_width, self.key_base, self.key_words, self.key_rank, self.key_first)

    def key_codes(self, rnd: int) -> np.ndarray:
        """The codes of round ``rnd``'s keys, in their order (their slots')."""
        lo, hi = int(self.key_base[rnd]), int(self.key_base[rnd + 1])
        bits = np.unpackbits(self.key_words.astype("<u8").view(np.uint8), bitorder="little")[lo:hi]
        return np.flatnonzero(bits).astype(np.int64)


@njit(cache=True, nogil=True)
def _widths_and_actions(slot_base, n_phases, row_width, phase_actions, lo, widths, actions):
    r = 0
    for j in range(len(widths)):
        s = lo + j
        while s >= slot_base[r + 1]:
            r += 1
        widths[j] = row_width[r]
        actions[j] = phase_actions[r, (s - slot_base[r]) % n_phases[r]]


def _word_counts(words: np.ndarray) -> np.ndarray:
    return POPCOUNT[np.asarray(words, np.uint64).view(np.uint8)].reshape(-1, 8).sum(axis=1)


def _ones_below(words, rank, i: int) -> int:
    """Set bits before bit ``i`` of a bitmap of 64-bit words (bit i of word w is key 64 w + i)."""
    word, shift = divmod(i, 64)
    if word >= len(words):
        return int(rank[-1])
    return int(rank[word]) + bin(int(words[word]) & ((1 << shift) - 1)).count("1")


def key_order(layout: StrategyLayout) -> np.ndarray:
    """The layout's slots in key order (round, key code, phase): ``order[i]`` is the layout slot
    stored as slot ``i`` (a recall rule's key table read as it stands: codes ascend)."""
    code_slot = layout.rule.code_slot
    return code_slot[np.flatnonzero(code_slot >= 0)]


def key_bitmap(layout: StrategyLayout) -> tuple[np.ndarray, np.ndarray]:
    """``(words, base)``: the keys of a layout by recall rule as a bitmap over each round's key
    codes (codes without their phase), one round after another; LayoutError unless every key has
    all of its round's phases, one slot each, in phase order."""
    rule = layout.rule
    code_slot = rule.code_slot
    rounds = len(rule.n_phases)
    sizes = []
    keys = []
    for r in range(rounds):
        lo, hi, phases = int(rule.code_base[r]), int(rule.code_base[r + 1]), int(rule.n_phases[r])
        if (hi - lo) % phases:
            raise LayoutError(f"round {r}'s key codes do not come in whole keys")
        table = code_slot[lo:hi].reshape(-1, phases)
        present = table[:, 0] >= 0
        whole = np.all(table[present] >= 0) and not np.any(table[~present] >= 0)
        if not whole or not np.all(np.diff(table[present], axis=1) == 1):
            raise LayoutError(f"round {r}'s keys do not each hold every phase in order")
        sizes.append(len(table))
        keys.append(np.flatnonzero(present))
    base = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    n_words = int(base[-1]) // 64 + 1   # (a word past the last key: a lookup at the end reads it)
    bits = np.zeros(n_words * 64, np.uint8)
    for r in range(rounds):
        bits[base[r] + keys[r]] = 1
    return np.packbits(bits, bitorder="little").view("<u8").astype(np.uint64), base
