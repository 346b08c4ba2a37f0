"""Passes over the storage between walks: the average strategy of a run of slots, a walk's regret
deltas added, a seat's regrets settled or discounted (slots in parallel, each entry on its own)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ...game.tree import DRAW
from .nodes import regret_match


@njit(cache=True, nogil=True)
def average_slots(slot_round, slot_kind, slot_actions, slot_offset, layout, strat_sum, out, slot_lo, slot_hi):
    """Normalised average strategy of slots ``slot_lo..slot_hi-1`` into ``out``.

    ``out[i]`` holds storage entry ``slot_offset[slot_lo] + i`` (the layout's
    entries: per bucket when the game is bucketed), so a big strategy can be
    written in chunks.
    """
    max_width = layout.row_width.max()
    buffer = np.empty((8, max_width))
    total = np.empty(max_width)
    uniform = np.empty(max_width)
    out_start = slot_offset[slot_lo]
    for slot in range(slot_lo, slot_hi):
        n_act = np.int64(slot_actions[slot])
        rnd = np.int64(slot_round[slot])
        width = layout.row_width[rnd]
        start = slot_offset[slot]
        regret_match(strat_sum, start, width, n_act, slot_kind[slot] == DRAW, layout.legal_mask, rnd, buffer, total,
                      uniform)
        for a in range(n_act):
            for b in range(width):
                out[start - out_start + a * width + b] = buffer[a, b]


@njit(cache=True, parallel=True)
def add_delta(regret, delta):
    """``regret += delta``, then ``delta = 0`` (an update walk's regrets of the cut subtrees)."""
    for i in prange(len(regret)):
        regret[i] += delta[i]
        delta[i] = 0.0


@njit(cache=True, parallel=True)
def settle_seat(regret, delta, slot_offset, slot_seat, seat, pos_scale, neg_scale, floor):
    """An update walk's regrets settled over one seat's slots: each regret discounted (positive
    ones times ``pos_scale``, others times ``neg_scale``) plus its ``delta``, floored at zero with
    ``floor`` (CFR+); ``delta`` zeroed. One pass where the discount before the walk and
    :func:`add_delta` after it were two, over all entries (at cap 4 a tenth of an iteration). The
    walk then read its regrets undiscounted: the same strategy, as regret matching is the same for
    every positive scale of a row's positive part, and a discount keeps signs."""
    for slot in prange(len(slot_seat)):
        if slot_seat[slot] != seat:
            continue
        for i in range(slot_offset[slot], slot_offset[slot + 1]):
            x = regret[i]
            x = x * pos_scale if x > 0.0 else x * neg_scale
            x += delta[i]
            if floor and x < 0.0:
                x = 0.0
            regret[i] = x
            delta[i] = 0.0


@njit(cache=True, parallel=True)
def discount_seat(storage, slot_offset, slot_seat, seat, pos_scale, neg_scale, floor):
    """Discount one seat's entries in place: positive ones times ``pos_scale``, others times
    ``neg_scale``; with ``floor``, negative ones become 0 (CFR+). Where public nodes share slots,
    an iteration's discount is applied once to a slot's storage before its walk adds the
    iteration's regrets (a walk visits a shared slot many times). Slots in parallel: a pass over
    gigabytes at cap 4 (a tenth of an iteration on one thread), each entry on its own."""
    for slot in prange(len(slot_seat)):
        if slot_seat[slot] != seat:
            continue
        for i in range(slot_offset[slot], slot_offset[slot + 1]):
            x = storage[i]
            x = x * pos_scale if x > 0.0 else x * neg_scale
            if floor and x < 0.0:
                x = 0.0
            storage[i] = x
