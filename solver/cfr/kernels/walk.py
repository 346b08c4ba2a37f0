"""The walk: :func:`traverse`, one depth-first pass of a public tree (or its trunk, or the
subtrees below its cuts) for every policy and mode (see :mod:`solver.cfr.kernels`), and the
sums at its roots."""

from __future__ import annotations

import numpy as np
from numba import njit

from ...game.tree import DRAW, FOLD, SHOWDOWN
from .nodes import (add_sums, discounted_regret, discounted_sum, draw_reach, draw_value, locked_best,
                    locked_regret_base, node_strategy, regret_match, sample_action, summarise_node, terminal_value,
                    update_buckets)
from .types import (BEST_RESPONSE, COLLECT, EVALUATE, FULL, TRUNK, UPDATE, UPDATE_PRUNED, UPDATE_SAMPLED_ALL,
                    UPDATE_SAMPLED_DRAWS, borrowed, prefetch_rows)


@njit(cache=True, fastmath=True, nogil=True)
def traverse(roots, root_reach, root_value, traverser, policy, mode, discount, tree, layout, draws, play, regret,
             strat_sum, cuts, work, record):
    """Walk the subtree under each of ``roots`` in turn, from ``root_reach[i]`` (the button's,
    the big blind's and the traverser's chance-only reach, used with buckets); write the
    traverser's value vector to ``root_value[i]``.

    The one kernel of a built tree's walks, compiled once for every policy and mode: the
    trunk's (``roots = [0]``) and each thread's chunk of cut subtrees
    (``solver.cfr.walker.walk_cuts``); without the GIL, so threads walk chunks at once (each
    subtree writes only its own storage, so the split does not change any result). The roots
    are a loop here, not a kernel calling this one: each kernel that calls another compiles
    its code again, and a first run waits for every compilation.

    ``play`` holds the rows whose normalisation is the strategy
    played: the regrets in ``UPDATE`` and ``UPDATE_PRUNED``, the strategy sums
    or saved probabilities in ``BEST_RESPONSE`` and ``EVALUATE``; ``regret``
    and ``strat_sum`` are written in the update policies only (the traverser's
    sums in ``UPDATE``, the opponent's in ``UPDATE_PRUNED``), except that a ``BEST_RESPONSE``
    walk given a non-empty ``regret`` writes there the traverser's value of
    each action at each of his decisions, in the storage's layout (per-class
    rows; how :mod:`solver.arena.exploit` reads a best-response strategy). A
    layout with lock codes (``layout.lock_code``, node locking) plays its locks:
    best responses keep them (:func:`locked_best`) and the regrets of a partly
    locked class are those of its free choice (:func:`locked_regret_base`). ``tree``, ``layout``,
    ``draws``, ``discount``, ``cuts``, ``work`` and ``record`` are the named
    groups of the module header; ``work`` comes from :func:`make_work` and is
    reused across calls. A node with ``record.index[node] = r >= 0`` gets both
    seats' reach vectors in ``record.reach[r]`` and the traverser's value
    vector in ``record.value[r, traverser]`` (strategy tables use this). At the traverser's
    draws, the counts from ``layout.merge_from`` on are walked once for all when their subtrees
    share every slot (see ``merge_k`` below; ``StrategyLayout.merge_from``).

    Hot loops index whole buffers (``reach[depth, seat, s]``) rather than row
    views: every view costs a reference-count pair (a call each, though an empty one on the
    :func:`borrowed` arrays this walk works on).
    """
    # Every array is the caller's: borrowed, so the helpers called at each node count no references.
    roots, root_reach, root_value, tree, layout, draws, play, regret, strat_sum, cuts, work, record = borrowed(
        (roots, root_reach, root_value, tree, layout, draws, play, regret, strat_sum, cuts, work, record))
    kind, seat, contrib, first_child, n_children, node_round = (tree.kind, tree.seat, tree.contrib,
                                                                 tree.first_child, tree.n_children, tree.node_round)
    entry_offset, row_width, legal_mask = layout.entry_offset, layout.row_width, layout.legal_mask
    shared_rows = layout.shared_rows
    legal = draws.legal
    cut_index, cut_reach, cut_value = cuts.index, cuts.reach, cuts.value
    round_width = draws.round_width
    rec_index, rec_reach, rec_value = record.index, record.reach, record.value
    n_states = root_reach.shape[2]
    opponent = 1 - traverser

    reach, child_val, strat, stack_node, stack_next = (work.reach, work.child_val, work.strat, work.stack_node,
                                                       work.stack_next)
    agg, temp, chance_at, chance_level, ones = work.agg, work.temp, work.chance_at, work.chance_level, work.ones
    per_bucket, bucket_sums, scratch = work.per_bucket, work.bucket_sums, work.scratch
    sampling = policy == UPDATE_SAMPLED_DRAWS or policy == UPDATE_SAMPLED_ALL
    pruned_update = policy == UPDATE_PRUNED or sampling
    updating = policy == UPDATE or pruned_update
    own_sums = policy == UPDATE
    # A pruned update below the cuts reads the traverser's own reach nowhere where rows are
    # shared (his regrets weigh his chance-only reach, the sums it adds are the opponent's):
    # his draws need not carry it (a product by the round's transition matrix per count).
    own_reach_unused = (pruned_update and shared_rows and mode == FULL and rec_reach.shape[0] == 0
                        and record.summary.shape[0] == 0)
    track_chance = shared_rows and updating
    summarise = policy == EVALUATE and record.summary.shape[0] > 0
    own_slot = child_val.shape[1] - 1
    # Skip what the opponent never reaches (see the module docstring): not while collecting the
    # reach at cuts, nor where reach is recorded or a best response's action values are asked for.
    prune = mode != COLLECT and rec_reach.shape[0] == 0 and (
        pruned_update or policy == EVALUATE or (policy == BEST_RESPONSE and regret.shape[0] == 0))
    picked, pick_prob = work.picked, work.pick_prob
    # Storage rows are fetched ahead in update walks (``prefetch_rows``).
    prefetching = updating
    # The traverser's own draw counts from ``merge_from`` on lead, at the button's draws, to
    # subtrees with one slot at every node (``StrategyLayout.merge_from``) and one opponent reach:
    # the first of them is walked for all (his reach and chance reach summed, the opponent's
    # times their number ``m``, so that the opponent's sums and the chance-weighted regrets add
    # what the m walks would; its value, m times each one's, divided by m on the way back) and
    # the others not at all. Not where a walk records nodes or sums a summary (per history), asks
    # for a best response's action values, or plays locks.
    merge_from = layout.merge_from
    merging = (merge_from >= 0 and shared_rows and rec_reach.shape[0] == 0 and record.summary.shape[0] == 0
               and layout.lock_code.shape[0] == 0 and not (policy == BEST_RESPONSE and regret.shape[0] > 0))
    merged_temp = work.temp

    # The traverser's chance-only reach depends on his own draw counts since the root alone, not
    # on the betting between them: each is made once a root walk (``WorkBuffers.chance_cache``)
    # and copied wherever the same counts lead again (a product by the round's transition matrix
    # per count, at every betting history, before).
    chance_cache, chance_stamp, chance_key, chance_run = (work.chance_cache, work.chance_stamp, work.chance_key,
                                                          work.chance_run)
    fan = child_val.shape[1]   # (count slots: each count, and the merged counts last)
    n_keys = chance_cache.shape[0]

    for r in range(len(roots)):
        for s in range(n_states):
            reach[0, 0, s] = root_reach[r, 0, s]
            reach[0, 1, s] = root_reach[r, 1, s]
        if track_chance:
            for s in range(n_states):
                chance_at[0, s] = root_reach[r, 2, s]
            chance_level[0] = 0
            chance_run[0] += 1
            chance_key[0] = 0
        if prune:
            live = 0.0
            for s in range(n_states):
                live += reach[0, opponent, s]
            if live == 0.0:
                for s in range(n_states):
                    root_value[r, s] = 0.0
                continue
        depth = np.int64(0)  # not the constant: calls typed with a literal 0 compile their callees twice
        stack_node[0] = roots[r]
        stack_next[0] = 0

        while depth >= 0:
            node = stack_node[depth]
            k = stack_next[depth]
            n_act = n_children[node]
            acting = seat[node]
            waiting = 1 - acting
            is_draw = kind[node] == DRAW
            rows_at = entry_offset[node]
            rnd = node_round[node]
            width = row_width[rnd]
            nw = round_width[rnd]  # the states a vector holds here (past them: padding, never read below)
            if k == 0:
                # Entering: the acting seat's strategy at this node.
                if updating or policy == EVALUATE or acting == opponent:
                    if shared_rows:
                        node_strategy(play, rows_at, n_act, rnd, is_draw, layout, per_bucket, temp, scratch,
                                       strat[depth], nw)
                    else:
                        regret_match(play, rows_at, width, n_act, is_draw, legal_mask, rnd, strat[depth], temp, scratch)
                # (Best response at the traverser's own nodes needs no strategy.)
                if prefetching:
                    # The rows this node writes when it is left, and those its decision children
                    # read when entered: in memory by then (a child's subtree, or its elder
                    # siblings', is walked in between).
                    if acting == traverser:
                        prefetch_rows(regret, rows_at, n_act * width)
                        if own_sums:
                            prefetch_rows(strat_sum, rows_at, n_act * width)
                    elif pruned_update:
                        prefetch_rows(strat_sum, rows_at, n_act * width)
                    for c in range(first_child[node], first_child[node] + n_act):
                        if kind[c] <= DRAW and entry_offset[c] >= 0:
                            prefetch_rows(play, entry_offset[c], n_children[c] * row_width[node_round[c]])
                # The seat not acting keeps its reach for every child.
                for s in range(nw):
                    reach[depth + 1, waiting, s] = reach[depth, waiting, s]
                if rec_index[node] >= 0:
                    for s in range(n_states):
                        rec_reach[rec_index[node], 0, s] = reach[depth, 0, s] if s < nw else 0.0
                        rec_reach[rec_index[node], 1, s] = reach[depth, 1, s] if s < nw else 0.0
                if summarise and mode != TRUNK:
                    summarise_node(record.summary, record.column, acting, rnd, record.situation[node], first_child[node],
                                    n_act, reach[depth, acting], reach[depth, waiting], strat[depth], nw,
                                    contrib[node, 0] + contrib[node, 1])
                if sampling:
                    picked[depth] = -2
                    if acting == opponent and (is_draw or policy == UPDATE_SAMPLED_ALL):
                        # Walk one of his actions, his reach divided by its probability: unbiased values.
                        sample_action(reach, depth, opponent, strat, n_act, work, nw)

            if k < n_act:
                stack_next[depth] = k + 1
                child = first_child[node] + k
                if sampling and picked[depth] != -2 and k != picked[depth]:
                    # An action not sampled: worth nothing to this walk's estimate.
                    for s in range(nw):
                        child_val[depth, k, s] = 0.0
                    continue
                # 1: this draw count's child is walked for the counts merged with it; 2: merged away.
                merge_k = 0
                if (merging and is_draw and acting == traverser and k >= merge_from
                        and kind[first_child[node]] != DRAW):
                    merge_k = 1 if k == merge_from else 2
                    if merge_k == 2 and mode != COLLECT:
                        continue  # its value came with the first merged count's
                # The acting seat's reach after action k (a trunk walk reads a cut's value, not its reach).
                needs_reach = not (mode == TRUNK and cut_index[child] >= 0)
                if not needs_reach:
                    pass
                elif merge_k == 2:
                    # (A collecting walk: no reach arrives at the cuts below it.)
                    for s in range(nw):
                        reach[depth + 1, 0, s] = 0.0
                        reach[depth + 1, 1, s] = 0.0
                elif (policy == BEST_RESPONSE or own_reach_unused) and acting == traverser:
                    # The best responder's own reach is not needed (kept finite for records and cuts),
                    # nor a pruned update's below the cuts: its regrets weigh his chance-only reach.
                    for s in range(nw):
                        reach[depth + 1, acting, s] = 0.0 if is_draw else reach[depth, acting, s]
                elif is_draw:
                    draw_reach(reach[depth, acting], strat[depth, k], k, rnd, draws, agg, reach[depth + 1, acting])
                    if merge_k == 1:
                        for j in range(k + 1, n_act):
                            draw_reach(reach[depth, acting], strat[depth, j], j, rnd, draws, agg, merged_temp)
                            for s in range(nw):
                                reach[depth + 1, acting, s] += merged_temp[s]
                else:
                    for s in range(nw):
                        reach[depth + 1, acting, s] = reach[depth, acting, s] * strat[depth, k, s]
                if merge_k == 1 and needs_reach:
                    m = np.float64(n_act - merge_from)
                    for s in range(nw):
                        reach[depth + 1, waiting, s] *= m
                if sampling and k == picked[depth] and needs_reach:
                    scale = 1.0 / pick_prob[depth]
                    for s in range(nw):
                        reach[depth + 1, acting, s] *= scale
                if prune and acting == opponent and needs_reach:
                    live = 0.0
                    for s in range(nw):
                        live += reach[depth + 1, opponent, s]
                    if live == 0.0:
                        # The opponent never gets here: every value below is zero.
                        for s in range(nw):
                            child_val[depth, k, s] = 0.0
                        continue
                if track_chance and needs_reach:
                    # Chance-only reach changes only at the traverser's own draws.
                    if is_draw and acting == traverser:
                        key = -1
                        if chance_key[depth] >= 0 and merge_k != 2:
                            key = chance_key[depth] * fan + 1 + (fan - 1 if merge_k == 1 else k)
                            if key >= n_keys:
                                key = -1
                        chance_key[depth + 1] = key
                        if key >= 0 and chance_stamp[key] == chance_run[0]:
                            for s in range(nw):
                                chance_at[depth + 1, s] = chance_cache[key, s]
                        else:
                            draw_reach(chance_at[chance_level[depth]], ones, k, rnd, draws, agg, chance_at[depth + 1])
                            if merge_k == 1:
                                for j in range(k + 1, n_act):
                                    draw_reach(chance_at[chance_level[depth]], ones, j, rnd, draws, agg, merged_temp)
                                    for s in range(nw):
                                        chance_at[depth + 1, s] += merged_temp[s]
                                inv = 1.0 / (n_act - merge_from)
                                for s in range(nw):
                                    chance_at[depth + 1, s] *= inv
                            elif merge_k == 2:
                                for s in range(nw):
                                    chance_at[depth + 1, s] = 0.0
                            if key >= 0:
                                for s in range(nw):
                                    chance_cache[key, s] = chance_at[depth + 1, s]
                                chance_stamp[key] = chance_run[0]
                        chance_level[depth + 1] = depth + 1
                    else:
                        chance_level[depth + 1] = chance_level[depth]
                        chance_key[depth + 1] = chance_key[depth]

                child_kind = kind[child]
                if child_kind >= FOLD and mode == COLLECT:
                    pass  # a collecting walk computes no values
                elif child_kind == FOLD:
                    folder = seat[child]
                    gain = -contrib[child, traverser] if folder == traverser else contrib[child, folder]
                    terminal_value(FOLD, gain, reach, depth + 1, opponent, child_val, depth, k, nw)
                elif child_kind == SHOWDOWN:
                    terminal_value(SHOWDOWN, contrib[child, traverser], reach, depth + 1, opponent,
                                    child_val, depth, k, nw)
                elif mode != FULL and cut_index[child] >= 0:
                    c = cut_index[child]
                    if mode == COLLECT:
                        # (Whole rows, zero past this round's width: a cut's walk starts from them.)
                        for s in range(n_states):
                            cut_reach[c, 0, s] = reach[depth + 1, 0, s] if s < nw else 0.0
                            cut_reach[c, 1, s] = reach[depth + 1, 1, s] if s < nw else 0.0
                        if track_chance:
                            for s in range(n_states):
                                cut_reach[c, 2, s] = chance_at[chance_level[depth + 1], s] if s < nw else 0.0
                    elif is_draw and acting == traverser and merge_k == 1:
                        # The cut's value is that of every count merged with k, times their number.
                        inv = 1.0 / (n_act - merge_from)
                        for s in range(n_states):
                            merged_temp[s] = cut_value[c, s] * inv
                        for j in range(k, n_act):
                            draw_value(merged_temp, j, rnd, draws, agg, child_val[depth, j])
                    elif is_draw and acting == traverser:
                        draw_value(cut_value[c], k, rnd, draws, agg, child_val[depth, k])
                    else:
                        for s in range(nw):
                            child_val[depth, k, s] = cut_value[c, s]
                else:
                    depth += 1
                    stack_node[depth] = child
                    stack_next[depth] = 0
                    continue
            elif mode == COLLECT:
                # A collecting walk only gathers the reach arriving at the cuts: no values.
                depth -= 1
            else:
                # Leaving: combine the children's values into ``child_val[vd, vk]``: the parent's slot
                # for this child, unless it goes through the draw table or out of the walk.
                parent = stack_node[depth - 1] if depth > 0 else -1
                parent_draws = parent >= 0 and kind[parent] == DRAW and seat[parent] == traverser
                if depth == 0 or parent_draws:
                    vd, vk = depth, own_slot
                else:
                    vd, vk = depth - 1, stack_next[depth - 1] - 1
                if acting == traverser and policy == BEST_RESPONSE:
                    if regret.shape[0] > 0:
                        # The caller asked for each action's value (a best-response strategy is read
                        # from them): one row per action as in the storage (per-class rows only).
                        for a in range(n_act):
                            row = np.uint64(rows_at) + np.uint64(a) * np.uint64(width)
                            for s in range(nw):
                                regret[row + np.uint64(s)] = child_val[depth, a, s]
                    if is_draw:
                        for s in range(nw):
                            best = -1e300
                            for a in range(n_act):
                                if legal[rnd, s, a] and child_val[depth, a, s] > best:
                                    best = child_val[depth, a, s]
                            child_val[vd, vk, s] = best
                    else:
                        for s in range(nw):
                            child_val[vd, vk, s] = child_val[depth, 0, s]
                        for a in range(1, n_act):
                            for s in range(nw):
                                child_val[vd, vk, s] = max(child_val[vd, vk, s], child_val[depth, a, s])
                    if layout.lock_code.shape[0] > 0:
                        locked_best(layout.lock_code, rows_at, width, n_act, is_draw, legal, rnd, child_val, depth, vd,
                                     vk)
                elif acting == traverser:
                    for s in range(nw):
                        child_val[vd, vk, s] = strat[depth, 0, s] * child_val[depth, 0, s]
                    for a in range(1, n_act):
                        for s in range(nw):
                            child_val[vd, vk, s] += strat[depth, a, s] * child_val[depth, a, s]
                    if updating:
                        if is_draw:
                            # Illegal counts get no regret: their value is set to the node's.
                            for a in range(n_act):
                                for s in range(nw):
                                    if not legal[rnd, s, a]:
                                        child_val[depth, a, s] = child_val[vd, vk, s]
                        if layout.lock_code.shape[0] > 0:
                            locked_regret_base(layout.lock_code, rows_at, width, n_act, is_draw, legal, rnd, child_val,
                                                depth, vd, vk)
                        if not shared_rows and own_sums:
                            # Unsigned flat offsets: no wraparound (signed ones make the loads gathers) and
                            # no views of the storage (a contended reference count per node).
                            for a in range(n_act):
                                row = np.uint64(rows_at) + np.uint64(a) * np.uint64(n_states)
                                for s in range(n_states):
                                    i = row + np.uint64(s)
                                    regret[i] = discounted_regret(regret[i], child_val[depth, a, s],
                                                                   child_val[vd, vk, s], discount)
                                    strat_sum[i] = discounted_sum(
                                        strat_sum[i], discount.sum_weight * reach[depth, traverser, s] * strat[depth, a, s],
                                        discount)
                        elif not shared_rows:
                            for a in range(n_act):
                                row = np.uint64(rows_at) + np.uint64(a) * np.uint64(n_states)
                                for s in range(n_states):
                                    i = row + np.uint64(s)
                                    regret[i] = discounted_regret(regret[i], child_val[depth, a, s],
                                                                   child_val[vd, vk, s], discount)
                        else:
                            # (The node's value to this round's width: rows shared by classes sum that many.)
                            update_buckets(regret, strat_sum, rows_at, n_act, width, layout.row_of, rnd,
                                            chance_at[chance_level[depth]], reach[depth, traverser], strat[depth],
                                            child_val[depth], child_val[vd, vk, :nw], discount, bucket_sums, own_sums,
                                            layout.own_rows)
                else:
                    for s in range(nw):
                        child_val[vd, vk, s] = child_val[depth, 0, s]
                    for a in range(1, n_act):
                        for s in range(nw):
                            child_val[vd, vk, s] += child_val[depth, a, s]
                    if pruned_update:
                        # The opponent's strategy sums, from his reach (a pruned walk's sums).
                        add_sums(strat_sum, rows_at, n_act, width, shared_rows, layout.row_of, rnd,
                                  reach[depth, opponent, :nw], strat[depth], discount, bucket_sums, layout.own_rows)
                if rec_index[node] >= 0:
                    for s in range(n_states):
                        rec_value[rec_index[node], traverser, s] = child_val[vd, vk, s] if s < nw else 0.0
                # Hand the value on (through the draw table at the traverser's draws).
                depth -= 1
                if depth < 0:
                    for s in range(n_states):
                        root_value[r, s] = child_val[0, own_slot, s] if s < nw else 0.0
                elif parent_draws:
                    slot = stack_next[depth] - 1
                    up = stack_node[depth]
                    if merging and slot == merge_from and kind[first_child[up]] != DRAW:
                        # The merged counts' value (see ``merge_k``), each one's through its own draws.
                        inv = 1.0 / (n_children[up] - merge_from)
                        for s in range(n_states):
                            child_val[depth + 1, own_slot, s] *= inv
                        for j in range(slot, n_children[up]):
                            draw_value(child_val[depth + 1, own_slot], j, node_round[up], draws, agg,
                                        child_val[depth, j])
                    else:
                        draw_value(child_val[depth + 1, own_slot], slot, node_round[up], draws, agg,
                                    child_val[depth, slot])
    return 0


@njit(cache=True)
def root_total(deal_prob, root_value):
    """sum_s deal(s) * value(s), in class order (every walk's total, in any process)."""
    total = 0.0
    for s in range(deal_prob.shape[0]):
        total += deal_prob[s] * root_value[s]
    return total


@njit(cache=True)
def trunk_root(deal_prob):
    """A walk from the tree's root: ``roots``, ``root_reach`` and ``root_value`` for
    :func:`traverse` (both seats' and the chance-only reach are the deal's)."""
    n_states = deal_prob.shape[0]
    reach = np.empty((1, 3, n_states))
    for s in range(n_states):
        reach[0, 0, s] = deal_prob[s]
        reach[0, 1, s] = deal_prob[s]
        reach[0, 2, s] = deal_prob[s]
    return np.zeros(1, np.int64), reach, np.zeros((1, n_states))
