"""Numba kernels of range-vector CFR over the flattened public tree.

One traversal visits every public node once and works on whole vectors over
private states (value classes), so every information set of a public node is
updated at once (Johanson et al. 2011, "Accelerating best response calculation
in large extensive games"; public-tree CFR). The traversal is an explicit-stack
depth-first walk; per tree level it keeps both seats' reach vectors and the
children's value vectors, so memory beyond the regret tables is O(depth * N).

Values are *expected* values to the traversing seat given its private state,
weighted by the opponent's reach (which includes the opponent's chance). They
are counterfactual values scaled per information set by a constant (the
traverser's own chance probability), which regret matching, CFR+ and DCFR are
all invariant to. The average strategy is weighted by the traverser's reach
including chance, which is the mass of each (public node, value class).

Three policies share the walk:
- ``UPDATE``: both seats play the current strategy (regret matching); the
  traverser's regrets and strategy sums are updated.
- ``BEST_RESPONSE``: the opponent plays the average strategy, the traverser
  maximises state by state (exact best response: by the Markov property of
  value classes, conditioning on past values cannot help).
- ``EVALUATE``: both seats play the average strategy.

Card buckets: with an abstraction, a decision node's rows hold one entry per
bucket of its round instead of one per value class, and the strategy of a
bucket is expanded to its classes on entry, so reach vectors, draws and
showdowns stay exact over classes. The regret of a bucket sums its classes'
counterfactual regrets: each class's value difference is weighted by the
traverser's chance-only reach of that class (deal and draw outcomes along the
public path, own actions counted as 1), which the walk carries in a third
vector. With one bucket per class this is full-resolution CFR with every
information set's regrets scaled by a constant.

Parallelism: the tree is cut into independent subtrees (the engine picks the
cut nodes: the first draws when there are enough of them per thread, else the
start of the second betting round). A ``COLLECT`` walk of the trunk stores the
reach vectors that arrive at each cut node and computes no values, the
subtrees below the cuts are walked in parallel (``prange``), and a ``TRUNK``
walk uses the values they returned. Each subtree writes only its own storage,
so results do not depend on thread scheduling or on where the cuts are.

Speed notes (each measured with perf on the jitted code): hot loops index 2-D
row views or whole buffers with loop counters, because Numba wraps negative
indices and a signed flat offset turns every load into a gather; draw tables
are indexed through unsigned arrays for the same reason; regret matching takes
one reciprocal per state; and array views are not made per child, since each
costs an atomic reference-count pair.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit, prange

from ..game.tree import DRAW, FOLD, SHOWDOWN

UPDATE, BEST_RESPONSE, EVALUATE = 0, 1, 2
FULL, COLLECT, TRUNK = 0, 1, 2

# Kernel arguments come in named groups (each built once in Python by the walker):
# the public tree's arrays, the draw model's tables, the discount of one iteration,
# the cut subtrees with their reach and value buffers, a walk's work buffers, and
# the nodes whose reach and values a walk records. The layout comes as
# ``solver.game.layout.LayoutArrays``.
TreeArrays = namedtuple("TreeArrays", "kind seat contrib first_child n_children node_round max_depth n_actions_max")
DrawTables = namedtuple("DrawTables", "legal keep_set set_start set_value set_prob set_size hand_size")
Discount = namedtuple("Discount", "pos_scale neg_scale floor sum_scale sum_weight")
Cuts = namedtuple("Cuts", "nodes index reach value")
Record = namedtuple("Record", "index reach value")
WorkBuffers = namedtuple("WorkBuffers", "reach child_val strat stack_node stack_next agg temp chance_at chance_level "
                                        "ones per_bucket bucket_sums scratch")


@njit(cache=True, fastmath=True)
def _regret_match(rows, n_act, is_draw, mask, out, total, uniform):
    """Normalise non-negative weights per state into ``out[:n_act, :width]`` (uniform if all zero).

    ``rows`` is (n_act, width) float32 (regrets or strategy sums); negative
    entries count as zero. ``mask`` is (draws + 1, width) with 1.0 where a draw
    count is legal: at draw nodes only legal counts get mass. ``total`` and
    ``uniform`` are scratch vectors. One reciprocal per state, and
    action-outer, state-inner loops over 2-D views (flat offsets would make
    every load a gather: Numba wraps negative indices) so they vectorise.
    """
    width = rows.shape[1]
    for s in range(width):
        total[s] = 0.0
    if is_draw:
        for s in range(width):
            uniform[s] = 0.0
        for a in range(n_act):
            for s in range(width):
                total[s] += max(rows[a, s], 0.0) * mask[a, s]
                uniform[s] += mask[a, s]
        for s in range(width):
            t = total[s]
            # Every state may stand pat, so it has at least one legal count.
            uniform[s] = 0.0 if t > 0.0 else 1.0 / uniform[s]
            total[s] = 1.0 / t if t > 0.0 else 0.0
        for a in range(n_act):
            for s in range(width):
                out[a, s] = (max(rows[a, s], 0.0) * total[s] + uniform[s]) * mask[a, s]
        return
    for a in range(n_act):
        for s in range(width):
            total[s] += max(rows[a, s], 0.0)
    even = 1.0 / n_act
    for s in range(width):
        t = total[s]
        uniform[s] = 0.0 if t > 0.0 else even
        total[s] = 1.0 / t if t > 0.0 else 0.0
    for a in range(n_act):
        for s in range(width):
            out[a, s] = max(rows[a, s], 0.0) * total[s] + uniform[s]


@njit(cache=True)
def _draw_reach(reach, strat_row, draw, draws, agg, out):
    """Reach after drawing ``draw``: sum_v reach[v] * sigma(v, draw) * T_draw(v, .)."""
    legal, keep_set, set_start, set_value, set_prob, set_size = (draws.legal, draws.keep_set, draws.set_start,
                                                                 draws.set_value, draws.set_prob, draws.set_size)
    n_states = reach.shape[0]
    if draw == 0:
        for v in range(n_states):
            out[v] = reach[v] * strat_row[v] if legal[v, 0] else 0.0
        return
    agg[:] = 0.0
    for v in range(n_states):
        if legal[v, draw]:
            agg[keep_set[v, draw]] += reach[v] * strat_row[v]
    out[:] = 0.0
    for k in range(len(set_size)):
        if set_size[k] != draws.hand_size - draw:
            continue
        mass = agg[k]
        if mass == 0.0:
            continue
        for j in range(set_start[k], set_start[k + 1]):
            out[set_value[j]] += mass * set_prob[j]


@njit(cache=True)
def _draw_value(child_value, draw, draws, agg, out):
    """Value before drawing ``draw``: Q[v] = sum_w T_draw(v, w) * child_value[w] (0 if illegal)."""
    legal, keep_set, set_start, set_value, set_prob, set_size = (draws.legal, draws.keep_set, draws.set_start,
                                                                 draws.set_value, draws.set_prob, draws.set_size)
    n_states = child_value.shape[0]
    if draw == 0:
        for v in range(n_states):
            out[v] = child_value[v]
        return
    for k in range(len(set_size)):
        if set_size[k] != draws.hand_size - draw:
            continue
        total = 0.0
        for j in range(set_start[k], set_start[k + 1]):
            total += set_prob[j] * child_value[set_value[j]]
        agg[k] = total
    for v in range(n_states):
        out[v] = agg[keep_set[v, draw]] if legal[v, draw] else 0.0


@njit(cache=True, fastmath=True)
def _terminal_value(kind, gain, reach, d, opp, out, od, k):
    """Traverser's value at a fold or showdown, for every traverser state, into ``out[od, k]``.

    The opponent's reach is ``reach[d, opp]``. At a fold, ``gain`` is what the
    traverser wins (negative if he folded); at a showdown, his contribution.
    Whole buffers and indices, not row views: views cost reference counting.
    """
    n_states = reach.shape[2]
    if kind == FOLD:
        total = 0.0
        for t in range(n_states):
            total += reach[d, opp, t]
        for s in range(n_states):
            out[od, k, s] = gain * total
        return
    # Showdown: values are sorted by strength (0 best), so wins and losses are
    # prefix sums of the opponent's reach: value = gain * (worse - better).
    # Exclusive prefix sums in four interleaved chunks, so additions do not
    # wait on each other, then a vectorised pass.
    q = n_states // 4
    b0 = 0.0
    b1 = 0.0
    b2 = 0.0
    b3 = 0.0
    for i in range(q):
        out[od, k, i] = b0
        b0 += reach[d, opp, i]
        out[od, k, i + q] = b1
        b1 += reach[d, opp, i + q]
        out[od, k, i + 2 * q] = b2
        b2 += reach[d, opp, i + 2 * q]
        out[od, k, i + 3 * q] = b3
        b3 += reach[d, opp, i + 3 * q]
    for i in range(4 * q, n_states):
        out[od, k, i] = b3
        b3 += reach[d, opp, i]
    total = b0 + b1 + b2 + b3
    o1 = b0
    o2 = b0 + b1
    o3 = b0 + b1 + b2
    for s in range(n_states):
        # One loop with selects, not one per chunk: a loop starting at an offset cannot prove
        # its index non-negative, and Numba's wraparound check would keep it scalar.
        offset = 0.0
        if s >= q:
            offset = o1
        if s >= 2 * q:
            offset = o2
        if s >= 3 * q:
            offset = o3
        # worse = total - better - here
        out[od, k, s] = gain * (total - 2.0 * (out[od, k, s] + offset) - reach[d, opp, s])


@njit(cache=True)
def make_work(max_depth, n_actions_max, n_states, n_sets, max_width):
    """Per-thread buffers of one walk: O(depth * actions * states).

    ``max_width`` is the widest row (the most buckets of any round, or the
    number of classes at full resolution).
    """
    width = max(max_width, n_states)
    return WorkBuffers(
        np.empty((max_depth + 1, 2, n_states)),                  # both seats' reach per level
        # children's values, and in the last slot the node's own value when it is not written
        # straight into its parent's slot
        np.empty((max_depth + 1, n_actions_max + 1, n_states)),
        np.empty((max_depth + 1, n_actions_max, n_states)),      # the acting seat's strategy per level
        np.empty(max_depth + 1, np.int64),                       # node per level
        np.empty(max_depth + 1, np.int64),                       # next child per level
        np.empty(max(n_sets, 1)),                                # draw-table scratch per kept set
        np.empty(width),
        np.empty((max_depth + 1, n_states)),                     # traverser's chance-only reach
        np.empty(max_depth + 1, np.int64),                       # level whose chance vector is current
        np.ones(n_states),
        np.empty((n_actions_max, max_width)),                    # a node's strategy per bucket
        np.empty((2, max_width)),                                # per-bucket sums
        np.empty(width))                                         # scratch of regret matching


@njit(cache=True)
def _node_strategy(play, start, n_act, rnd, is_draw, layout, per_bucket, total, uniform, out):
    """The strategy at a decision node per class into ``out[:n_act]``, from the ``play`` rows
    starting at ``start`` (regrets, strategy sums or probabilities).

    Rows hold ``layout.row_width[rnd]`` entries (buckets of the round, or
    classes); a bucket's strategy is copied to each of its classes.
    """
    width = layout.row_width[rnd]
    rows = play[start:start + n_act * width].reshape((n_act, width))
    if not layout.bucketed:
        _regret_match(rows, n_act, is_draw, layout.legal_mask[rnd], out, total, uniform)
        return
    _regret_match(rows, n_act, is_draw, layout.legal_mask[rnd], per_bucket, total, uniform)
    row_of = layout.row_of
    n_states = out.shape[1]
    for a in range(n_act):
        for s in range(n_states):
            out[a, s] = per_bucket[a, row_of[rnd, s]]


@njit(cache=True, fastmath=True)
def _discounted_regret(old, gained, lost, discount):
    """A regret after one iteration: the old one discounted, plus ``gained - lost``, floored
    at zero for CFR+ (the one DCFR/CFR+/linear/vanilla update)."""
    scaled = old * discount.pos_scale if old > 0.0 else old * discount.neg_scale
    new = scaled + gained - lost
    if discount.floor > 0.0 and new < 0.0:
        new = 0.0
    return new


@njit(cache=True, fastmath=True)
def _discounted_sum(old, added, discount):
    """A strategy sum after one iteration: the old one discounted, plus ``added`` (the
    iteration's reach-weighted strategy, already times ``discount.sum_weight``)."""
    return old * discount.sum_scale + added


@njit(cache=True, fastmath=True)
def _update_buckets(regret, strat_sum, rows_at, n_act, width, bucket_of_round, chance, own_reach, strat,
                    child_val, val, discount, bucket_sums):
    """Regret and strategy-sum update of a bucketed node: a bucket's regret sums its classes'
    counterfactual regrets (value differences weighted by the traverser's chance-only reach)."""
    for a in range(n_act):
        bucket_sums[:, :width] = 0.0
        for s in range(len(val)):
            b = bucket_of_round[s]
            bucket_sums[0, b] += chance[s] * (child_val[a, s] - val[s])
            bucket_sums[1, b] += own_reach[s] * strat[a, s]
        base = rows_at + a * width
        for b in range(width):
            regret[base + b] = _discounted_regret(regret[base + b], bucket_sums[0, b], 0.0, discount)
            strat_sum[base + b] = _discounted_sum(strat_sum[base + b], discount.sum_weight * bucket_sums[1, b], discount)


@njit(cache=True, fastmath=True)
def traverse(root, reach_button, reach_bb, chance, traverser, policy, mode, discount, tree, layout, draws,
             play, regret, strat_sum, cuts, work, out_value, record):
    """Walk the subtree under ``root``; write the traverser's value vector to ``out_value``.

    ``chance`` is the traverser's chance-only reach at ``root`` (used with
    buckets). ``play`` holds the rows whose normalisation is the strategy
    played: the regrets in ``UPDATE``, the strategy sums or saved
    probabilities in ``BEST_RESPONSE`` and ``EVALUATE``; ``regret`` and
    ``strat_sum`` are written in ``UPDATE`` only. ``tree``, ``layout``,
    ``draws``, ``discount``, ``cuts``, ``work`` and ``record`` are the named
    groups of the module header; ``work`` comes from :func:`make_work` and is
    reused across calls. A node with ``record.index[node] = r >= 0`` gets both
    seats' reach vectors in ``record.reach[r]`` and the traverser's value
    vector in ``record.value[r, traverser]`` (strategy tables use this).

    Hot loops index whole buffers (``reach[depth, seat, s]``) rather than row
    views: every view costs an atomic reference-count pair.
    """
    kind, seat, contrib, first_child, n_children, node_round = (tree.kind, tree.seat, tree.contrib,
                                                                 tree.first_child, tree.n_children, tree.node_round)
    entry_offset, row_width, legal_mask = layout.entry_offset, layout.row_width, layout.legal_mask
    bucketed = layout.bucketed
    legal = draws.legal
    cut_index, cut_reach, cut_value = cuts.index, cuts.reach, cuts.value
    rec_index, rec_reach, rec_value = record.index, record.reach, record.value
    n_states = reach_button.shape[0]
    opponent = 1 - traverser

    reach, child_val, strat, stack_node, stack_next = (work.reach, work.child_val, work.strat, work.stack_node,
                                                       work.stack_next)
    agg, temp, chance_at, chance_level, ones = work.agg, work.temp, work.chance_at, work.chance_level, work.ones
    per_bucket, bucket_sums, scratch = work.per_bucket, work.bucket_sums, work.scratch
    track_chance = bucketed and policy == UPDATE
    own_slot = child_val.shape[1] - 1

    for s in range(n_states):
        reach[0, 0, s] = reach_button[s]
        reach[0, 1, s] = reach_bb[s]
    if track_chance:
        chance_at[0, :] = chance
        chance_level[0] = 0
    depth = 0
    stack_node[0] = root
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
        if k == 0:
            # Entering: the acting seat's strategy at this node.
            if policy == UPDATE or policy == EVALUATE or acting == opponent:
                if bucketed:
                    _node_strategy(play, rows_at, n_act, rnd, is_draw, layout, per_bucket, temp, scratch,
                                   strat[depth])
                else:
                    rows = play[rows_at:rows_at + n_act * width].reshape((n_act, width))
                    _regret_match(rows, n_act, is_draw, legal_mask[rnd], strat[depth], temp, scratch)
            # (Best response at the traverser's own nodes needs no strategy.)
            # The seat not acting keeps its reach for every child.
            for s in range(n_states):
                reach[depth + 1, waiting, s] = reach[depth, waiting, s]
            if rec_index[node] >= 0:
                rec_reach[rec_index[node], 0, :] = reach[depth, 0, :]
                rec_reach[rec_index[node], 1, :] = reach[depth, 1, :]

        if k < n_act:
            stack_next[depth] = k + 1
            child = first_child[node] + k
            # The acting seat's reach after action k (a trunk walk reads a cut's value, not its reach).
            needs_reach = not (mode == TRUNK and cut_index[child] >= 0)
            if not needs_reach:
                pass
            elif policy == BEST_RESPONSE and acting == traverser:
                # The best responder's own reach is not needed (kept finite for records and cuts).
                for s in range(n_states):
                    reach[depth + 1, acting, s] = 0.0 if is_draw else reach[depth, acting, s]
            elif is_draw:
                _draw_reach(reach[depth, acting], strat[depth, k], k, draws, agg, reach[depth + 1, acting])
            else:
                for s in range(n_states):
                    reach[depth + 1, acting, s] = reach[depth, acting, s] * strat[depth, k, s]
            if track_chance and needs_reach:
                # Chance-only reach changes only at the traverser's own draws.
                if is_draw and acting == traverser:
                    _draw_reach(chance_at[chance_level[depth]], ones, k, draws, agg, chance_at[depth + 1])
                    chance_level[depth + 1] = depth + 1
                else:
                    chance_level[depth + 1] = chance_level[depth]

            child_kind = kind[child]
            if child_kind >= FOLD and mode == COLLECT:
                pass  # a collecting walk computes no values
            elif child_kind == FOLD:
                folder = seat[child]
                gain = -contrib[child, traverser] if folder == traverser else contrib[child, folder]
                _terminal_value(FOLD, gain, reach, depth + 1, opponent, child_val, depth, k)
            elif child_kind == SHOWDOWN:
                _terminal_value(SHOWDOWN, contrib[child, traverser], reach, depth + 1, opponent,
                                child_val, depth, k)
            elif mode != FULL and cut_index[child] >= 0:
                c = cut_index[child]
                if mode == COLLECT:
                    cut_reach[c, 0, :] = reach[depth + 1, 0, :]
                    cut_reach[c, 1, :] = reach[depth + 1, 1, :]
                    if track_chance:
                        cut_reach[c, 2, :] = chance_at[chance_level[depth + 1]]
                elif is_draw and acting == traverser:
                    _draw_value(cut_value[c], k, draws, agg, child_val[depth, k])
                else:
                    child_val[depth, k, :] = cut_value[c, :]
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
                if is_draw:
                    for s in range(n_states):
                        best = -1e300
                        for a in range(n_act):
                            if legal[s, a] and child_val[depth, a, s] > best:
                                best = child_val[depth, a, s]
                        child_val[vd, vk, s] = best
                else:
                    for s in range(n_states):
                        child_val[vd, vk, s] = child_val[depth, 0, s]
                    for a in range(1, n_act):
                        for s in range(n_states):
                            child_val[vd, vk, s] = max(child_val[vd, vk, s], child_val[depth, a, s])
            elif acting == traverser:
                for s in range(n_states):
                    child_val[vd, vk, s] = strat[depth, 0, s] * child_val[depth, 0, s]
                for a in range(1, n_act):
                    for s in range(n_states):
                        child_val[vd, vk, s] += strat[depth, a, s] * child_val[depth, a, s]
                if policy == UPDATE:
                    if is_draw:
                        # Illegal counts get no regret: their value is set to the node's.
                        for a in range(n_act):
                            for s in range(n_states):
                                if not legal[s, a]:
                                    child_val[depth, a, s] = child_val[vd, vk, s]
                    if not bucketed:
                        # 2-D views: flat offsets would turn the loads into gathers.
                        reg = regret[rows_at:rows_at + n_act * n_states].reshape((n_act, n_states))
                        sums = strat_sum[rows_at:rows_at + n_act * n_states].reshape((n_act, n_states))
                        for a in range(n_act):
                            for s in range(n_states):
                                reg[a, s] = _discounted_regret(reg[a, s], child_val[depth, a, s],
                                                               child_val[vd, vk, s], discount)
                                sums[a, s] = _discounted_sum(
                                    sums[a, s], discount.sum_weight * reach[depth, traverser, s] * strat[depth, a, s],
                                    discount)
                    else:
                        _update_buckets(regret, strat_sum, rows_at, n_act, width, layout.row_of[rnd],
                                        chance_at[chance_level[depth]], reach[depth, traverser], strat[depth],
                                        child_val[depth], child_val[vd, vk], discount, bucket_sums)
            else:
                for s in range(n_states):
                    child_val[vd, vk, s] = child_val[depth, 0, s]
                for a in range(1, n_act):
                    for s in range(n_states):
                        child_val[vd, vk, s] += child_val[depth, a, s]
            if rec_index[node] >= 0:
                rec_value[rec_index[node], traverser, :] = child_val[vd, vk]
            # Hand the value on (through the draw table at the traverser's draws).
            depth -= 1
            if depth < 0:
                out_value[:] = child_val[0, own_slot]
            elif parent_draws:
                slot = stack_next[depth] - 1
                _draw_value(child_val[depth + 1, own_slot], slot, draws, agg, child_val[depth, slot])
    return 0


@njit(cache=True, parallel=True)
def traverse_all(traverser, policy, discount, deal_prob, tree, layout, draws, play, regret, strat_sum, cuts,
                 n_threads, record):
    """One whole-tree walk for one traverser; returns sum_s deal(s) * value(s).

    The trunk above ``cuts.nodes`` is walked twice (collecting the reach that
    arrives at each cut, then using the cuts' values); the subtrees below are
    split into ``n_threads`` contiguous chunks (the split does not change any
    result: each subtree's arithmetic is the same in any chunk).
    """
    n_states = deal_prob.shape[0]
    max_width = layout.row_width.max()
    root_value = np.zeros(n_states)
    n_cuts = len(cuts.nodes)
    n_sets = len(draws.set_size)
    work = make_work(tree.max_depth, tree.n_actions_max, n_states, n_sets, max_width)
    first_mode = FULL if n_cuts == 0 else COLLECT
    traverse(0, deal_prob, deal_prob, deal_prob, traverser, policy, first_mode, discount, tree, layout, draws,
             play, regret, strat_sum, cuts, work, root_value, record)
    if n_cuts > 0 and n_threads <= 1:
        for c in range(n_cuts):
            traverse(cuts.nodes[c], cuts.reach[c, 0], cuts.reach[c, 1], cuts.reach[c, 2], traverser, policy, FULL,
                     discount, tree, layout, draws, play, regret, strat_sum, cuts, work, cuts.value[c], record)
    elif n_cuts > 0:
        # Contiguous chunks of subtrees, one buffer set per chunk.
        n_chunks = min(n_cuts, n_threads)
        for chunk in prange(n_chunks):
            chunk_work = make_work(tree.max_depth, tree.n_actions_max, n_states, n_sets, max_width)
            for c in range(chunk * n_cuts // n_chunks, (chunk + 1) * n_cuts // n_chunks):
                traverse(cuts.nodes[c], cuts.reach[c, 0], cuts.reach[c, 1], cuts.reach[c, 2], traverser, policy,
                         FULL, discount, tree, layout, draws, play, regret, strat_sum, cuts, chunk_work,
                         cuts.value[c], record)
    if n_cuts > 0:
        traverse(0, deal_prob, deal_prob, deal_prob, traverser, policy, TRUNK, discount, tree, layout, draws,
                 play, regret, strat_sum, cuts, work, root_value, record)
    total = 0.0
    for s in range(n_states):
        total += deal_prob[s] * root_value[s]
    return total


@njit(cache=True)
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
        rows = strat_sum[start:start + n_act * width].reshape((n_act, width))
        _regret_match(rows, n_act, slot_kind[slot] == DRAW, layout.legal_mask[rnd], buffer, total, uniform)
        for a in range(n_act):
            for b in range(width):
                out[start - out_start + a * width + b] = buffer[a, b]
