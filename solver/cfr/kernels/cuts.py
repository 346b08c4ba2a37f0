"""Streamed trees' cuts: each cut's subtree filled into the shared shape (its pot, record and
storage entries), the walks of a chunk of cuts, and the groups of cuts that share slots."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from abstractions.random import stream_seed
from ...game.layout import LayoutArrays, key_slot
from ...game.tree import DRAW
from .nodes import make_work
from .types import FULL, TreeArrays
from .walk import traverse


@njit(cache=True)
def _fill_contrib(shape, pot, contrib):
    """A cut subtree's contributions: the shape's, relative to the cut's ``pot``."""
    for i in range(len(shape.kind)):
        contrib[i, 0] = shape.contrib[i, 0] + pot
        contrib[i, 1] = shape.contrib[i, 1] + pot


@njit(cache=True)
def _shape_entry(rule, rnd, phase, pot, records, record):
    """First entry of a shape decision node below a cut under the recall ``rule`` (``pot``
    the node's own, ``record`` the cut's first-round record); -1 if its key has no slot."""
    slot = key_slot(rule, rnd, phase, pot, records, record)
    return rule.slot_offset[slot] if slot >= 0 else -1


@njit(cache=True)
def fill_cut(game, c, contrib, entry_offset):
    """The arrays of cut ``c``'s subtree of a streamed game (:data:`StreamedTree`) from the shape
    every cut shares: contributions (the shape's are relative to the cut's pot) and each decision
    node's first entry under the recall rule (the cut's first-round record completes the shape's
    records); -1 if a node's key has no slot."""
    shape, pot, record = game.shape, game.cut_pot[c], game.cut_record[c]
    _fill_contrib(shape, pot, contrib)
    for i in range(len(shape.kind)):
        entry_offset[i] = -1
        if shape.kind[i] <= DRAW:
            entry_offset[i] = _shape_entry(game.rule, shape.node_round[i], game.shape_phase[i],
                                           game.shape_pot[i] + pot, game.shape_records[i], record)


@njit(cache=True)
def _cut_entries(c, decisions, shape_round, shape_phase, shape_pot, shape_records, cut_pot, cut_record, rule,
                 table):
    """Row ``c`` of :func:`cut_entry_table` (a function, out of its ``prange`` body)."""
    for j in range(len(decisions)):
        i = decisions[j]
        table[c, j] = _shape_entry(rule, shape_round[i], shape_phase[i], shape_pot[i] + cut_pot[c], shape_records[i],
                                   cut_record[c])


@njit(cache=True, parallel=True)
def cut_entry_table(decisions, shape_round, shape_phase, shape_pot, shape_records, cut_pot, cut_record, rule):
    """The entries of the shape's ``decisions`` below every cut (see :data:`CutEntries`): what
    :func:`fill_cut` finds for each cut, found once instead of at every walk (a recall rule's
    lookup costs tens of ns a node, and the triple-draw preset walks 240 million nodes twice an
    iteration)."""
    table = np.empty((len(cut_pot), len(decisions)), np.int64)
    for c in prange(len(cut_pot)):
        _cut_entries(c, decisions, shape_round, shape_phase, shape_pot, shape_records, cut_pot, cut_record, rule,
                     table)
    return table


@njit(cache=True)
def fill_cut_from(game, c, contrib, entry_offset):
    """:func:`fill_cut` for cut ``c`` from the game's built :data:`CutEntries` table
    (``entry_offset`` of nodes not among its decisions is left as it is: -1 from
    :func:`cut_walker`)."""
    _fill_contrib(game.shape, game.cut_pot[c], contrib)
    decisions, table = game.cut_entries.decisions, game.cut_entries.table
    for j in range(len(decisions)):
        entry_offset[decisions[j]] = table[c, j]


@njit(cache=True)
def _reached(cut_reach, c, seat):
    """Whether ``seat`` reaches cut ``c`` at all."""
    for s in range(cut_reach.shape[2]):
        if cut_reach[c, seat, s] != 0.0:
            return True
    return False


@njit(cache=True)
def _clear_value(cut_value, c):
    """Cut ``c``'s value is 0. (Not ``cut_value[c, :] = 0.0`` in the ``prange`` body: compiled
    there, that write was lost, and a walk read the cut's value from the walk before: measured
    against the same code run as Python; tests/test_streamed.py keeps it.)"""
    for s in range(cut_value.shape[1]):
        cut_value[c, s] = 0.0


@njit(cache=True)
def cut_walker(game, max_depth, n_act_max, n_states, n_sets, max_width):
    """One thread's buffers for walking cut subtrees: work buffers, and the shape's tree and layout
    arrays whose contributions and entries :func:`walk_cut` fills for each cut."""
    shape, trunk_layout = game.shape, game.trunk_layout
    work = make_work(max_depth, n_act_max, n_states, n_sets, max_width)
    contrib = np.empty((len(shape.kind), 2))
    entry_offset = np.full(len(shape.kind), -1, np.int64)
    tree = TreeArrays(shape.kind, shape.seat, contrib, shape.first_child, shape.n_children, shape.node_round,
                      shape.max_depth, shape.n_actions_max)
    layout = LayoutArrays(entry_offset, trunk_layout.row_width, trunk_layout.row_of, trunk_layout.legal_mask,
                          trunk_layout.shared_rows, trunk_layout.lock_code, trunk_layout.own_rows,
                          trunk_layout.merge_from)
    return work, tree, layout


@njit(cache=True)
def walk_cut(c, skip_unreached, traverser, policy, discount, game, tree, layout, draws, play, regret, strat_sum,
              work, record):
    """Cut ``c``'s subtree of a streamed ``game`` (the shape with the cut's contributions and
    entries: from ``game.cut_entries`` if its table is built) walked from the reach in
    ``game.cuts.reach[c]``, its value into ``game.cuts.value[c]``; with ``skip_unreached``, a cut
    the opponent never reaches is worth 0 and not walked. ``tree`` and ``layout`` come from
    :func:`cut_walker`."""
    cuts = game.cuts
    if not _reached(cuts.reach, c, 1 - traverser) and (skip_unreached or not _reached(cuts.reach, c, traverser)):
        # (Reached by neither seat, as below a merged draw count: a walk would add only zeros.)
        _clear_value(cuts.value, c)
        return
    if game.cut_entries.table.shape[0] > 0:
        fill_cut_from(game, c, tree.contrib, layout.entry_offset)
    else:
        fill_cut(game, c, tree.contrib, layout.entry_offset)
    traverse(np.zeros(1, np.int64), cuts.reach[c:c + 1], cuts.value[c:c + 1], traverser, policy, np.int64(FULL),
             discount, tree, layout, draws, play, regret, strat_sum, game.shape_cuts, work, record)


@njit(cache=True)
def walk_sizes(game, draws):
    """``(max_depth, n_act_max, n_sets, max_width)`` of the work buffers of a streamed game's walks."""
    trunk, shape = game.trunk, game.shape
    return (max(trunk.max_depth, shape.max_depth), max(trunk.n_actions_max, shape.n_actions_max),
            len(draws.set_size), game.trunk_layout.row_width.max())


@njit(cache=True, nogil=True)
def walk_cut_chunk(chunk, skip_unreached, traverser, policy, discount, game, draws, play, regret, strat_sum, record,
                   seed):
    """Walk the subtrees below the cuts ``chunk`` of a streamed ``game`` (:data:`StreamedTree`),
    in that order, each from its reach in ``game.cuts.reach``, its value into ``game.cuts.value``
    (:func:`walk_cut`), with one set of buffers; without the GIL, so threads walk chunks at once
    (``solver.cfr.streamed``: one thread per chunk; not ``prange``, whose bodies cannot take
    nested named tuples). A sampled walk below cut ``c`` draws from stream ``c + 1`` of ``seed``
    (``abstractions.random.stream_seed``): the same numbers in any chunk."""
    max_depth, n_act_max, n_sets, max_width = walk_sizes(game, draws)
    n_states = game.cuts.reach.shape[2]
    work, tree, layout = cut_walker(game, max_depth, n_act_max, n_states, n_sets, max_width)
    for j in range(len(chunk)):
        work.rng[0] = stream_seed(seed, chunk[j] + 1)
        walk_cut(chunk[j], skip_unreached, traverser, policy, discount, game, tree, layout, draws, play, regret,
                  strat_sum, work, record)
    return 0


@njit(cache=True)
def _root(parent, i):
    while parent[i] != i:
        parent[i] = parent[parent[i]]
        i = parent[i]
    return i


@njit(cache=True)
def cut_groups(game, n_slots):
    """The group of each cut of a streamed game (:data:`StreamedTree`): cuts whose subtrees share a
    slot (histories the recall rule does not tell apart) are in one group, named by its first
    cut. Update walks of different groups write disjoint storage."""
    shape, cut_pot, cut_record, rule = game.shape, game.cut_pot, game.cut_record, game.rule
    n_cuts = len(cut_pot)
    parent = np.arange(n_cuts)
    owner = np.full(n_slots, -1, np.int64)
    for c in range(n_cuts):
        for i in range(len(shape.kind)):
            if shape.kind[i] > DRAW:
                continue
            slot = key_slot(rule, shape.node_round[i], game.shape_phase[i], game.shape_pot[i] + cut_pot[c],
                            game.shape_records[i], cut_record[c])
            if slot < 0:
                continue
            if owner[slot] < 0:
                owner[slot] = c
                continue
            a, b = _root(parent, owner[slot]), _root(parent, c)
            if a != b:
                parent[max(a, b)] = min(a, b)
    group = np.empty(n_cuts, np.int64)
    for c in range(n_cuts):
        group[c] = _root(parent, c)
    return group


@njit(cache=True)
def group_sizes(game, slot_offset, slot_actions, group):
    """Each cut's decision nodes, and each group's (:func:`cut_groups`) storage entries and action
    rows (its slots', each counted once; by the group's name, its first cut): what an actor
    owning it holds (:func:`solver.cfr.planning.plan_actors`)."""
    shape, cut_pot, cut_record, rule = game.shape, game.cut_pot, game.cut_record, game.rule
    n_cuts = len(cut_pot)
    seen = np.zeros(len(slot_offset) - 1, np.bool_)
    decisions = np.zeros(n_cuts, np.int64)
    entries = np.zeros(n_cuts, np.int64)
    rows = np.zeros(n_cuts, np.int64)
    for c in range(n_cuts):
        for i in range(len(shape.kind)):
            if shape.kind[i] > DRAW:
                continue
            decisions[c] += 1
            slot = key_slot(rule, shape.node_round[i], game.shape_phase[i], game.shape_pot[i] + cut_pot[c],
                            game.shape_records[i], cut_record[c])
            if slot < 0 or seen[slot]:
                continue
            seen[slot] = True
            entries[group[c]] += slot_offset[slot + 1] - slot_offset[slot]
            rows[group[c]] += slot_actions[slot]
    return decisions, entries, rows
