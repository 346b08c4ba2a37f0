"""What a walk does at one node: regret matching, a draw's reach and value over the draw tables,
terminal values, the discounted updates of regrets and strategy sums (bucketed or not), locked
rows, a sampled action and a node's summary; :func:`solver.cfr.kernels.walk.traverse` calls them."""

from __future__ import annotations

import numpy as np
from numba import njit

from abstractions.random import uniform
from ...game.tree import FOLD
from .types import WorkBuffers


@njit(cache=True, fastmath=True)
def regret_match(storage, start, width, n_act, is_draw, legal_mask, rnd, out, total, uniform):
    """Normalise non-negative weights per state into ``out[:n_act, :width]`` (uniform if all zero).

    The weights are the ``n_act`` rows of ``width`` float32 entries of ``storage``
    from entry ``start`` (regrets or strategy sums); negative entries count as
    zero. ``legal_mask[rnd]`` is (draws + 1, width) with 1.0 where a draw count
    is legal: at draw nodes only legal counts get mass. ``total`` and
    ``uniform`` are scratch vectors. One reciprocal per state; action-outer,
    state-inner loops indexed through unsigned offsets (a signed flat offset
    makes Numba wrap every index and the loads gathers), so they vectorise; and
    no row views: a view of storage every thread reads costs a contended atomic
    reference-count pair per node (16% of a triple-draw walk, measured with perf).
    """
    base = np.uint64(start)
    step = np.uint64(width)
    for s in range(width):
        total[s] = 0.0
    if is_draw:
        for s in range(width):
            uniform[s] = 0.0
        for a in range(n_act):
            row = base + np.uint64(a) * step
            for s in range(width):
                total[s] += max(storage[row + np.uint64(s)], 0.0) * legal_mask[rnd, a, s]
                uniform[s] += legal_mask[rnd, a, s]
        for s in range(width):
            t = total[s]
            # Every state may stand pat, so it has at least one legal count.
            uniform[s] = 0.0 if t > 0.0 else 1.0 / uniform[s]
            total[s] = 1.0 / t if t > 0.0 else 0.0
        for a in range(n_act):
            row = base + np.uint64(a) * step
            for s in range(width):
                out[a, s] = (max(storage[row + np.uint64(s)], 0.0) * total[s] + uniform[s]) * legal_mask[rnd, a, s]
        return
    for a in range(n_act):
        row = base + np.uint64(a) * step
        for s in range(width):
            total[s] += max(storage[row + np.uint64(s)], 0.0)
    even = 1.0 / n_act
    for s in range(width):
        t = total[s]
        uniform[s] = 0.0 if t > 0.0 else even
        total[s] = 1.0 / t if t > 0.0 else 0.0
    for a in range(n_act):
        row = base + np.uint64(a) * step
        for s in range(width):
            out[a, s] = max(storage[row + np.uint64(s)], 0.0) * total[s] + uniform[s]


@njit(cache=True)
def draw_reach(reach, strat_row, draw, rnd, draws, agg, out):
    """Reach after drawing ``draw`` after round ``rnd``: sum_v reach[v] * sigma(v, draw) * T_draw(v, .)."""
    legal, keep_set, set_start, set_value, set_prob, set_size = (draws.legal, draws.keep_set, draws.set_start,
                                                                 draws.set_value, draws.set_prob, draws.set_size)
    # ``reach`` holds round ``rnd``'s states (those past round_states are padding, without mass);
    # ``out`` is written to the walk's width at this round (next round's states, zeros beyond).
    n_from, width = draws.round_states[rnd], draws.round_width[rnd]
    if draw == 0 and not draws.pat_moves:
        for v in range(width):
            out[v] = reach[v] * strat_row[v] if legal[rnd, v, 0] else 0.0
        return
    if draws.dense.shape[0] > 0:
        # A bucket game's rows as a dense matrix (zero where a draw is illegal or a state pads):
        # the same products added in the same order as the sets below, without the set lookups.
        dense = draws.dense
        n_to = draws.round_states[rnd + 1]
        for w in range(width):
            out[w] = 0.0
        for v in range(n_from):
            mass = reach[v] * strat_row[v]
            if mass == 0.0:
                continue
            for w in range(n_to):
                out[w] += mass * dense[rnd, draw, v, w]
        return
    first, last = draws.round_sets[rnd, 0], draws.round_sets[rnd, 1]
    for k in range(first, last):
        agg[k] = 0.0
    for v in range(n_from):
        if legal[rnd, v, draw]:
            agg[keep_set[rnd, v, draw]] += reach[v] * strat_row[v]
    for w in range(width):
        out[w] = 0.0
    for k in range(first, last):
        if set_size[k] != draws.hand_size - draw:
            continue
        mass = agg[k]
        if mass == 0.0:
            continue
        if draws.set_run[k]:
            # Values w0, w0 + 1, ...: a loop over consecutive entries (it vectorises), not a scatter.
            j0, w0 = set_start[k], set_value[set_start[k]]
            for i in range(np.int64(set_start[k + 1] - j0)):
                out[w0 + np.uint64(i)] += mass * set_prob[j0 + np.uint64(i)]
            continue
        for j in range(set_start[k], set_start[k + 1]):
            out[set_value[j]] += mass * set_prob[j]


@njit(cache=True)
def draw_value(child_value, draw, rnd, draws, agg, out):
    """Value before drawing ``draw`` after round ``rnd``: Q[v] = sum_w T_draw(v, w) * child_value[w]
    (0 if illegal)."""
    legal, keep_set, set_start, set_value, set_prob, set_size = (draws.legal, draws.keep_set, draws.set_start,
                                                                 draws.set_value, draws.set_prob, draws.set_size)
    # ``child_value`` holds the next round's states (past them: padding, whatever it holds);
    # ``out`` is written to the walk's width at round ``rnd``.
    width = draws.round_width[rnd]
    if draw == 0 and not draws.pat_moves:
        for v in range(width):
            out[v] = child_value[v]
        return
    if draws.dense.shape[0] > 0:
        # The transposed dense matrix, one next-round value at a time: each out[v] adds its terms
        # in the sets' order (w ascending), and the loop over v vectorises.
        dense_t = draws.dense_t
        for v in range(width):
            out[v] = 0.0
        for w in range(draws.round_states[rnd + 1]):
            value = child_value[w]
            for v in range(width):
                out[v] += dense_t[rnd, draw, w, v] * value
        return
    for k in range(draws.round_sets[rnd, 0], draws.round_sets[rnd, 1]):
        if set_size[k] != draws.hand_size - draw:
            continue
        total = 0.0
        if draws.set_run[k]:
            j0, w0 = set_start[k], set_value[set_start[k]]
            for i in range(np.int64(set_start[k + 1] - j0)):
                total += set_prob[j0 + np.uint64(i)] * child_value[w0 + np.uint64(i)]
        else:
            for j in range(set_start[k], set_start[k + 1]):
                total += set_prob[j] * child_value[set_value[j]]
        agg[k] = total
    for v in range(width):
        out[v] = agg[keep_set[rnd, v, draw]] if legal[rnd, v, draw] else 0.0


@njit(cache=True, fastmath=True)
def terminal_value(kind, gain, reach, d, opp, out, od, k, n_states):
    """Traverser's value at a fold or showdown, for his first ``n_states`` states (the walk's
    width at the node's round), into ``out[od, k]``.

    The opponent's reach is ``reach[d, opp]``. At a fold, ``gain`` is what the
    traverser wins (negative if he folded); at a showdown, his contribution.
    Whole buffers and indices, not row views: views cost reference counting.
    """
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


CHANCE_LEVELS = 3  # own draws whose chance-only reach a walk keeps (a game has at most three draws)


@njit(cache=True)
def chance_keys(n_actions_max):
    """Keys of the chance cache (``WorkBuffers.chance_cache``): the root and up to
    ``CHANCE_LEVELS`` own draws, each by count or the merged counts (``n_actions_max + 1`` slots)."""
    fan = n_actions_max + 1
    total = 1
    level = 1
    for _ in range(CHANCE_LEVELS):
        level *= fan
        total += level
    return total


@njit(cache=True)
def make_work(max_depth, n_actions_max, n_states, n_sets, max_width):
    """Per-thread buffers of one walk: O(depth * actions * states).

    ``max_width`` is the widest row (the most buckets of any round, or the
    number of classes at full resolution).
    """
    width = max(max_width, n_states)
    keys = chance_keys(n_actions_max)
    # Zeros, not garbage: a vector's padding past a round's width (``DrawTables.round_width``) may
    # be read where it is multiplied by zero, which must give zero (never NaN).
    return WorkBuffers(
        np.zeros((max_depth + 1, 2, n_states)),                  # both seats' reach per level
        # children's values, and in the last slot the node's own value when it is not written
        # straight into its parent's slot
        np.zeros((max_depth + 1, n_actions_max + 1, n_states)),
        np.zeros((max_depth + 1, n_actions_max, n_states)),      # the acting seat's strategy per level
        np.empty(max_depth + 1, np.int64),                       # node per level
        np.empty(max_depth + 1, np.int64),                       # next child per level
        np.empty(max(n_sets, 1)),                                # draw-table scratch per kept set
        np.empty(width),
        np.zeros((max_depth + 1, n_states)),                     # traverser's chance-only reach
        np.empty(max_depth + 1, np.int64),                       # level whose chance vector is current
        np.ones(n_states),
        np.empty((n_actions_max, max_width)),                    # a node's strategy per bucket
        np.empty((2, max_width)),                                # per-bucket sums
        np.empty(width),                                         # scratch of regret matching
        np.zeros(1, np.uint64),                                  # a sampled walk's random stream
        np.full(max_depth + 1, -2, np.int64),                    # action sampled per level
        np.ones(max_depth + 1),                                  # its probability
        np.empty((keys, n_states)),                              # chance-only reach per own draw counts
        np.zeros(keys, np.int64),                                # the root walk each was made in
        np.full(max_depth + 1, -1, np.int64),                    # each level's chance key
        np.zeros(1, np.int64))                                   # root walks so far


@njit(cache=True)
def node_strategy(play, start, n_act, rnd, is_draw, layout, per_bucket, total, uniform, out, n_states):
    """The strategy at a decision node per class into ``out[:n_act]``, from the ``play`` rows
    starting at ``start`` (regrets, strategy sums or probabilities).

    Rows hold ``layout.row_width[rnd]`` entries (buckets of the round, or
    classes); a bucket's strategy is copied to each of its classes. Where every state has a row
    position of its own (``layout.own_rows``), the rows are the states': matched in place, the
    padding states beyond the row (a bucket game's, without mass) given position 0's strategy as
    the expansion would (the expansion's gathers were a sixth of a cap-4 iteration's samples in perf),
    up to ``n_states`` (the walk's width at the node's round).
    """
    width = layout.row_width[rnd]
    if not layout.shared_rows or layout.own_rows:
        regret_match(play, start, width, n_act, is_draw, layout.legal_mask, rnd, out, total, uniform)
        for a in range(n_act):
            first = out[a, 0]  # (read once: in the loop, Numba made the copies a scatter)
            for s in range(width, n_states):
                out[a, s] = first
        return
    regret_match(play, start, width, n_act, is_draw, layout.legal_mask, rnd, per_bucket, total, uniform)
    row_of = layout.row_of
    for a in range(n_act):
        for s in range(n_states):
            out[a, s] = per_bucket[a, row_of[rnd, s]]


@njit(cache=True, fastmath=True)
def discounted_regret(old, gained, lost, discount):
    """A regret after one iteration: the old one discounted, plus ``gained - lost``, floored
    at zero for CFR+ (the one DCFR/CFR+/linear/vanilla update), then times the store factor of
    its sign (scaled storage, see ``Discount``)."""
    scaled = old * discount.pos_scale if old > 0.0 else old * discount.neg_scale
    new = scaled + gained - lost
    if discount.floor > 0.0 and new < 0.0:
        new = 0.0
    if discount.pos_store != 1.0 or discount.neg_store != 1.0:
        new *= discount.pos_store if new > 0.0 else discount.neg_store
    return new


@njit(cache=True, fastmath=True)
def discounted_sum(old, added, discount):
    """A strategy sum after one iteration: the old one discounted, plus ``added`` (the
    iteration's reach-weighted strategy, already times ``discount.sum_weight``)."""
    return old * discount.sum_scale + added


@njit(cache=True, fastmath=True)
def update_buckets(regret, strat_sum, rows_at, n_act, width, row_of, rnd, chance, own_reach, strat,
                    child_val, val, discount, bucket_sums, own_sums, own_rows):
    """Regret and (with ``own_sums``) strategy-sum update of a node with shared rows: a row's
    regret sums the counterfactual regrets of the classes (and public nodes) sharing it: value
    differences weighted by the traverser's chance-only reach. (``row_of[rnd, s]``: no view of
    the shared table.) With ``own_rows`` (rows shared by public nodes only) position ``b`` is
    state ``b``'s: the same sums without the scatter (padding beyond the row adds nothing)."""
    if own_rows:
        for a in range(n_act):
            base = np.uint64(rows_at) + np.uint64(a) * np.uint64(width)
            for b in range(width):
                i = base + np.uint64(b)
                regret[i] = discounted_regret(regret[i], chance[b] * (child_val[a, b] - val[b]), 0.0, discount)
                if own_sums:
                    strat_sum[i] = discounted_sum(strat_sum[i], discount.sum_weight * (own_reach[b] * strat[a, b]),
                                                   discount)
        return
    for a in range(n_act):
        bucket_sums[:, :width] = 0.0
        for s in range(len(val)):
            b = row_of[rnd, s]
            bucket_sums[0, b] += chance[s] * (child_val[a, s] - val[s])
            bucket_sums[1, b] += own_reach[s] * strat[a, s]
        base = rows_at + a * width
        for b in range(width):
            regret[base + b] = discounted_regret(regret[base + b], bucket_sums[0, b], 0.0, discount)
            if own_sums:
                strat_sum[base + b] = discounted_sum(strat_sum[base + b], discount.sum_weight * bucket_sums[1, b],
                                                      discount)


@njit(cache=True, fastmath=True)
def add_sums(strat_sum, rows_at, n_act, width, shared_rows, row_of, rnd, reach, strat, discount, bucket_sums,
              own_rows):
    """Adds the iteration's reach-weighted strategy of the seat acting at a node to its strategy
    sums (a pruned walk's update of the opponent; rows shared by classes sum them; with
    ``own_rows``, position ``b`` is state ``b``'s)."""
    n_states = len(reach)
    for a in range(n_act):
        base = np.uint64(rows_at) + np.uint64(a) * np.uint64(width)
        if not shared_rows:
            for s in range(n_states):
                i = base + np.uint64(s)
                strat_sum[i] = discounted_sum(strat_sum[i], discount.sum_weight * reach[s] * strat[a, s], discount)
        elif own_rows:
            for b in range(width):
                i = base + np.uint64(b)
                strat_sum[i] = discounted_sum(strat_sum[i], discount.sum_weight * (reach[b] * strat[a, b]), discount)
        else:
            bucket_sums[1, :width] = 0.0
            for s in range(n_states):
                bucket_sums[1, row_of[rnd, s]] += reach[s] * strat[a, s]
            for b in range(width):
                i = base + np.uint64(b)
                strat_sum[i] = discounted_sum(strat_sum[i], discount.sum_weight * bucket_sums[1, b], discount)


@njit(cache=True)
def _fixed_part(code, base, width, n_act, child_val, depth, s):
    """A locked class's fixed share and the value it brings: sum of p and of p * value over the
    actions its lock fixes (see ``locked_best`` for ``code``)."""
    total = 0.0
    value = 0.0
    for a in range(n_act):
        c = code[base + np.uint64(a) * np.uint64(width)]
        if c >= 0.0:
            total += c
            value += c * child_val[depth, a, s]
    return total, value


@njit(cache=True)
def locked_regret_base(code, rows_at, width, n_act, is_draw, legal, rnd, child_val, depth, vd, vk):
    """Regrets of a partly locked class are those of the choice among its free actions: shift the
    free actions' values by (node value - value of the free choice), so that the update's
    ``value(action) - value(node)`` is ``value(action) - value(free choice)`` (see ``locked_best``
    for ``code``)."""
    for s in range(width):
        base = np.uint64(rows_at) + np.uint64(s)
        if code[base] == -2.0:
            continue
        fixed_total, fixed_value = _fixed_part(code, base, width, n_act, child_val, depth, s)
        rest = 1.0 - fixed_total
        if rest <= 1e-12:
            continue
        shift = child_val[vd, vk, s] - (child_val[vd, vk, s] - fixed_value) / rest
        for a in range(n_act):
            if code[base + np.uint64(a) * np.uint64(width)] < 0.0 and (not is_draw or legal[rnd, s, a]):
                child_val[depth, a, s] += shift


@njit(cache=True)
def locked_best(code, rows_at, width, n_act, is_draw, legal, rnd, child_val, depth, vd, vk):
    """A best response that keeps node locks (:mod:`solver.cfr.locks`): ``code`` holds, per entry
    (per-class rows), -2 where the class is not locked, the fixed probability of a locked
    action, or -1 for an action a lock leaves free. A locked class's value is its fixed actions'
    values at their probabilities plus the rest times the best free legal action's."""
    for s in range(width):
        base = np.uint64(rows_at) + np.uint64(s)
        if code[base] == -2.0:
            continue
        fixed_total, fixed_value = _fixed_part(code, base, width, n_act, child_val, depth, s)
        best = -1e300
        for a in range(n_act):
            if (code[base + np.uint64(a) * np.uint64(width)] < 0.0 and (not is_draw or legal[rnd, s, a])
                    and child_val[depth, a, s] > best):
                best = child_val[depth, a, s]
        rest = 1.0 - fixed_total
        child_val[vd, vk, s] = fixed_value + (rest * best if rest > 1e-12 and best > -1e300 else 0.0)


@njit(cache=True)
def sample_action(reach, depth, seat, strat, n_act, work, n_states):
    """Sample the action of ``seat`` at level ``depth`` in proportion to his reach-weighted
    strategy: into ``work.picked[depth]`` with its probability in ``work.pick_prob[depth]``; -1,
    drawing nothing from the stream, where he never gets here (so walks that enter such nodes and
    walks that skip them draw the same numbers)."""
    total = 0.0
    for s in range(n_states):
        total += reach[depth, seat, s]
    pick = -1
    if total > 0.0:
        u = uniform(work.rng) * total
        for a in range(n_act):
            mass = 0.0
            for s in range(n_states):
                mass += reach[depth, seat, s] * strat[depth, a, s]
            if mass > 0.0:
                pick = a
                work.pick_prob[depth] = mass / total
                if u < mass:
                    break
                u -= mass
    work.picked[depth] = pick


@njit(cache=True)
def summarise_node(summary, column, acting, rnd, situation, first, n_act, own, other, strat, n_states, pot):
    """Adds one decision node to an evaluate walk's summary (see ``Record``): its first
    ``n_states`` states (the walk's width at the node's round); ``pot`` the node's pot."""
    other_total = 0.0
    for s in range(n_states):
        other_total += other[s]
    if other_total <= 0.0:
        return
    for s in range(n_states):
        summary[acting, rnd, situation, 0, s] += own[s] * other_total
    pot_column = summary.shape[3] - 1
    for s in range(n_states):
        summary[acting, rnd, situation, pot_column, s] += own[s] * other_total * pot
    for a in range(n_act):
        c = 1 + column[first + a]
        for s in range(n_states):
            summary[acting, rnd, situation, c, s] += own[s] * other_total * strat[a, s]
