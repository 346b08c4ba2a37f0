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

Parallelism: the tree is cut at the start of the second betting round. A
``COLLECT`` walk of the trunk stores the reach vectors that arrive at each cut
node, the subtrees below the cuts are walked in parallel (``prange``), and a
``TRUNK`` walk uses the values they returned. Each subtree writes only its own
storage, so results do not depend on thread scheduling.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

BET, DRAW, FOLD, SHOWDOWN = 0, 1, 2, 3
UPDATE, BEST_RESPONSE, EVALUATE = 0, 1, 2
FULL, COLLECT, TRUNK = 0, 1, 2


@njit(cache=True, fastmath=True)
def _strategy(rows, n_actions, legal, is_draw, out, total):
    """Normalise non-negative weights per state into ``out[:n_actions]`` (uniform if all zero).

    ``rows`` is (n_actions, N) float32 (regrets or strategy sums); negative
    entries count as zero. At draw nodes only legal counts get mass.
    ``total`` is a scratch vector of N. Loops run action-outer, state-inner so
    they vectorise.
    """
    n_states = rows.shape[1]
    if not is_draw:
        total[:n_states] = 0.0
        for a in range(n_actions):
            for s in range(n_states):
                total[s] += max(rows[a, s], 0.0)
        uniform = 1.0 / n_actions
        for a in range(n_actions):
            for s in range(n_states):
                t = total[s]
                out[a, s] = max(rows[a, s], 0.0) / t if t > 0.0 else uniform
        return
    for s in range(n_states):
        t = 0.0
        n_legal = 0
        for a in range(n_actions):
            if legal[s, a]:
                n_legal += 1
                t += max(rows[a, s], 0.0)
        for a in range(n_actions):
            if not legal[s, a]:
                out[a, s] = 0.0
            elif t > 0.0:
                out[a, s] = max(rows[a, s], 0.0) / t
            else:
                out[a, s] = 1.0 / n_legal


@njit(cache=True)
def _draw_reach(reach, strat_row, draw, legal, keep_set, set_start, set_value, set_prob, set_size,
                hand_size, agg, out):
    """Reach after drawing ``draw``: sum_v reach[v] * sigma(v, draw) * T_draw(v, .)."""
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
        if set_size[k] != hand_size - draw:
            continue
        mass = agg[k]
        if mass == 0.0:
            continue
        for j in range(set_start[k], set_start[k + 1]):
            out[set_value[j]] += mass * set_prob[j]


@njit(cache=True)
def _draw_value(child_value, draw, legal, keep_set, set_start, set_value, set_prob, set_size,
                hand_size, agg, out):
    """Value before drawing ``draw``: Q[v] = sum_w T_draw(v, w) * child_value[w] (0 if illegal)."""
    n_states = child_value.shape[0]
    if draw == 0:
        for v in range(n_states):
            out[v] = child_value[v]
        return
    for k in range(len(set_size)):
        if set_size[k] != hand_size - draw:
            continue
        total = 0.0
        for j in range(set_start[k], set_start[k + 1]):
            total += set_prob[j] * child_value[set_value[j]]
        agg[k] = total
    for v in range(n_states):
        out[v] = agg[keep_set[v, draw]] if legal[v, draw] else 0.0


@njit(cache=True, fastmath=True)
def _terminal_value(kind, seat, contrib, traverser, opp_reach, out):
    """Traverser's value at a fold or showdown, for every traverser state."""
    n_states = opp_reach.shape[0]
    if kind == FOLD:
        total = 0.0
        for t in range(n_states):
            total += opp_reach[t]
        # The folder loses what he put in; the other seat wins it.
        gain = -contrib[traverser] if seat == traverser else contrib[seat]
        for s in range(n_states):
            out[s] = gain * total
        return
    # Showdown: values are sorted by strength (0 best), so wins and losses are
    # prefix sums of the opponent's reach. Both seats have put in the same.
    pot_share = contrib[traverser]
    below = 0.0  # opponent mass on strictly better values (index < s)
    total = 0.0
    for t in range(n_states):
        total += opp_reach[t]
    for s in range(n_states):
        here = opp_reach[s]
        above = total - below - here  # strictly worse values (index > s)
        out[s] = pot_share * (above - below)
        below += here


@njit(cache=True)
def make_work(max_depth, n_actions_max, n_states, n_sets, max_width):
    """Per-thread buffers of one walk: O(depth * actions * states).

    ``max_width`` is the widest row (the most buckets of any round, or the
    number of classes at full resolution).
    """
    return (np.empty((max_depth + 1, 2, n_states)),
            np.empty((max_depth + 1, n_actions_max, n_states)),
            np.empty((max_depth + 1, n_actions_max, n_states)),
            np.empty((max_depth + 1, n_states)),
            np.empty(max_depth + 1, np.int64),
            np.empty(max_depth + 1, np.int64),
            np.empty(max(n_sets, 1)),
            np.empty(n_states),
            np.empty((max_depth + 1, n_states)),       # traverser's chance-only reach
            np.empty(max_depth + 1, np.int64),         # level whose chance vector is current
            np.ones(n_states),
            np.empty((n_actions_max, max_width)),      # a node's strategy per bucket
            np.empty((2, max_width)))                  # per-bucket sums


@njit(cache=True)
def _node_strategy(source, start, n_act, width, is_draw, legal, bucketed, rnd, bucket_of, bucket_legal,
                   per_bucket, temp, out):
    """The strategy at a decision node per class into ``out[:n_act]``, from ``source`` rows.

    Rows hold ``width`` entries (buckets of the node's round, or classes); a
    bucket's strategy is copied to each of its classes.
    """
    rows = source[start:start + n_act * width].reshape((n_act, width))
    if not bucketed:
        _strategy(rows, n_act, legal, is_draw, out, temp)
        return
    _strategy(rows, n_act, bucket_legal[rnd], is_draw, per_bucket, temp)
    n_states = out.shape[1]
    for a in range(n_act):
        for s in range(n_states):
            out[a, s] = per_bucket[a, bucket_of[rnd, s]]


@njit(cache=True, fastmath=True)
def _update_buckets(regret, strat_sum, rows_at, n_act, width, bucket_of_round, chance, own_reach, strat,
                    child_val, val, iteration_params, bucket_sums):
    """Regret and strategy-sum update of a bucketed node: a bucket's regret sums its classes'
    counterfactual regrets (value differences weighted by the traverser's chance-only reach)."""
    pos_scale, neg_scale = iteration_params[0], iteration_params[1]
    floor_at_zero = iteration_params[2] > 0.0
    sum_scale, sum_weight = iteration_params[3], iteration_params[4]
    for a in range(n_act):
        bucket_sums[:, :width] = 0.0
        for s in range(len(val)):
            b = bucket_of_round[s]
            bucket_sums[0, b] += chance[s] * (child_val[a, s] - val[s])
            bucket_sums[1, b] += own_reach[s] * strat[a, s]
        base = rows_at + a * width
        for b in range(width):
            old = regret[base + b]
            scaled = old * pos_scale if old > 0.0 else old * neg_scale
            new = scaled + bucket_sums[0, b]
            if floor_at_zero and new < 0.0:
                new = 0.0
            regret[base + b] = new
            strat_sum[base + b] = strat_sum[base + b] * sum_scale + sum_weight * bucket_sums[1, b]


@njit(cache=True, fastmath=True)
def traverse(root, reach_button, reach_bb, chance, traverser, policy, mode, iteration_params,
             kind, seat, contrib, first_child, n_children, entry_offset, node_round, cut_index,
             legal, keep_set, set_start, set_value, set_prob, set_size, hand_size, abstraction,
             regret, strat_sum, cut_reach, cut_value, work, out_value, record):
    """Walk the subtree under ``root``; write the traverser's value vector to ``out_value``.

    ``chance`` is the traverser's chance-only reach at ``root`` (used with
    buckets). ``abstraction`` = (bucketed, bucket_of (rounds, N), bucket_width
    (rounds,), bucket_legal (rounds, width, draws + 1)); a decision node's rows
    start at ``entry_offset[node]`` and are ``bucket_width[round]`` wide.

    ``iteration_params`` = (pos_scale, neg_scale, floor, sum_scale, sum_weight);
    ``work`` is a buffer set from :func:`make_work` (reused across calls).
    ``record`` = (index, reach, value): a node with ``index[node] = r >= 0`` gets
    both seats' reach vectors in ``reach[r]`` and the traverser's value vector
    in ``value[r, traverser]`` (strategy tables use this).
    """
    rec_index, rec_reach, rec_value = record
    n_states = reach_button.shape[0]
    pos_scale = iteration_params[0]
    neg_scale = iteration_params[1]
    floor_at_zero = iteration_params[2] > 0.0
    sum_scale = iteration_params[3]
    sum_weight = iteration_params[4]
    opponent = 1 - traverser

    (reach, child_val, strat, node_val, stack_node, stack_next, agg, temp,
     chance_at, chance_level, ones, per_bucket, bucket_sums) = work
    bucketed, bucket_of, bucket_width, bucket_legal = abstraction
    track_chance = bucketed and policy == UPDATE

    reach[0, 0, :] = reach_button
    reach[0, 1, :] = reach_bb
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
        is_draw = kind[node] == DRAW
        rows_at = entry_offset[node]
        rnd = node_round[node]
        width = bucket_width[rnd]
        if k == 0:
            # Entering: the acting seat's strategy at this node.
            if policy == UPDATE or policy == EVALUATE or acting == opponent:
                source = regret if policy == UPDATE else strat_sum
                if bucketed:
                    _node_strategy(source, rows_at, n_act, width, is_draw, legal, bucketed, rnd, bucket_of,
                                   bucket_legal, per_bucket, temp, strat[depth])
                else:
                    rows = source[rows_at:rows_at + n_act * n_states].reshape((n_act, n_states))
                    _strategy(rows, n_act, legal, is_draw, strat[depth], temp)
            # (Best response at the traverser's own nodes needs no strategy.)
            # The seat not acting keeps its reach for every child.
            reach[depth + 1, 1 - acting, :] = reach[depth, 1 - acting, :]
            if rec_index[node] >= 0:
                rec_reach[rec_index[node], 0, :] = reach[depth, 0, :]
                rec_reach[rec_index[node], 1, :] = reach[depth, 1, :]

        if k < n_act:
            stack_next[depth] = k + 1
            child = first_child[node] + k
            # The acting seat's reach after action k.
            if policy == BEST_RESPONSE and acting == traverser:
                # The best responder's own reach is not needed.
                if is_draw:
                    reach[depth + 1, acting, :] = 0.0
                else:
                    reach[depth + 1, acting, :] = reach[depth, acting, :]
            elif is_draw:
                _draw_reach(reach[depth, acting], strat[depth, k], k, legal, keep_set, set_start, set_value,
                            set_prob, set_size, hand_size, agg, reach[depth + 1, acting])
            else:
                for s in range(n_states):
                    reach[depth + 1, acting, s] = reach[depth, acting, s] * strat[depth, k, s]
            if track_chance:
                # Chance-only reach changes only at the traverser's own draws.
                if is_draw and acting == traverser:
                    _draw_reach(chance_at[chance_level[depth]], ones, k, legal, keep_set, set_start, set_value,
                                set_prob, set_size, hand_size, agg, chance_at[depth + 1])
                    chance_level[depth + 1] = depth + 1
                else:
                    chance_level[depth + 1] = chance_level[depth]

            child_kind = kind[child]
            if child_kind == FOLD or child_kind == SHOWDOWN:
                _terminal_value(child_kind, seat[child], contrib[child], traverser,
                                reach[depth + 1, opponent], child_val[depth, k])
            elif mode != FULL and cut_index[child] >= 0:
                c = cut_index[child]
                if mode == COLLECT:
                    cut_reach[c, 0, :] = reach[depth + 1, 0, :]
                    cut_reach[c, 1, :] = reach[depth + 1, 1, :]
                    if track_chance:
                        cut_reach[c, 2, :] = chance_at[chance_level[depth + 1]]
                    child_val[depth, k, :] = 0.0
                elif is_draw and acting == traverser:
                    _draw_value(cut_value[c], k, legal, keep_set, set_start, set_value, set_prob, set_size,
                                hand_size, agg, child_val[depth, k])
                else:
                    child_val[depth, k, :] = cut_value[c, :]
            else:
                depth += 1
                stack_node[depth] = child
                stack_next[depth] = 0
                continue
        else:
            # Leaving: combine the children's values.
            val = node_val[depth]
            if acting == traverser and policy == BEST_RESPONSE:
                if is_draw:
                    for s in range(n_states):
                        best = -1e300
                        for a in range(n_act):
                            if legal[s, a] and child_val[depth, a, s] > best:
                                best = child_val[depth, a, s]
                        val[s] = best
                else:
                    val[:] = child_val[depth, 0, :]
                    for a in range(1, n_act):
                        for s in range(n_states):
                            val[s] = max(val[s], child_val[depth, a, s])
            elif acting == traverser:
                val[:] = 0.0
                for a in range(n_act):
                    for s in range(n_states):
                        val[s] += strat[depth, a, s] * child_val[depth, a, s]
                if policy == UPDATE and mode != COLLECT:
                    if is_draw:
                        # Illegal counts get no regret: their value is set to the node's.
                        for a in range(n_act):
                            for s in range(n_states):
                                if not legal[s, a]:
                                    child_val[depth, a, s] = val[s]
                    if not bucketed:
                        for a in range(n_act):
                            base = rows_at + a * n_states
                            for s in range(n_states):
                                old = regret[base + s]
                                scaled = old * pos_scale if old > 0.0 else old * neg_scale
                                new = scaled + child_val[depth, a, s] - val[s]
                                if floor_at_zero and new < 0.0:
                                    new = 0.0
                                regret[base + s] = new
                                strat_sum[base + s] = (strat_sum[base + s] * sum_scale
                                                       + sum_weight * reach[depth, traverser, s] * strat[depth, a, s])
                    else:
                        _update_buckets(regret, strat_sum, rows_at, n_act, width, bucket_of[rnd],
                                        chance_at[chance_level[depth]], reach[depth, traverser], strat[depth],
                                        child_val[depth], val, iteration_params, bucket_sums)
            else:
                val[:] = child_val[depth, 0, :]
                for a in range(1, n_act):
                    for s in range(n_states):
                        val[s] += child_val[depth, a, s]
            if rec_index[node] >= 0 and mode != COLLECT:
                rec_value[rec_index[node], traverser, :] = val
            # Hand the value to the parent (through the draw table at the traverser's draws).
            depth -= 1
            if depth >= 0:
                parent = stack_node[depth]
                slot = stack_next[depth] - 1
                if kind[parent] == DRAW and seat[parent] == traverser:
                    _draw_value(val, slot, legal, keep_set, set_start, set_value, set_prob, set_size,
                                hand_size, agg, temp)
                    child_val[depth, slot, :] = temp
                else:
                    child_val[depth, slot, :] = val
            else:
                out_value[:] = val
    return 0


@njit(cache=True, parallel=True)
def traverse_all(traverser, policy, iteration_params, deal_prob,
                 kind, seat, contrib, first_child, n_children, entry_offset, node_round, cut_index, cut_nodes,
                 legal, keep_set, set_start, set_value, set_prob, set_size, hand_size,
                 bucketed, bucket_of, bucket_width, bucket_legal,
                 regret, strat_sum, cut_reach, cut_value, max_depth, n_actions_max, n_threads, record):
    """One whole-tree walk for one traverser; returns sum_s deal(s) * value(s).

    Subtrees are split into ``n_threads`` contiguous chunks (the split does not
    change any result: each subtree's arithmetic is the same in any chunk). The
    abstraction comes as separate arguments (a tuple costs Numba's dispatcher
    microseconds per call, which small games feel).
    """
    abstraction = (bucketed, bucket_of, bucket_width, bucket_legal)
    n_states = deal_prob.shape[0]
    max_width = bucket_width.max()
    root_value = np.zeros(n_states)
    n_cuts = len(cut_nodes)
    work = make_work(max_depth, n_actions_max, n_states, len(set_size), max_width)
    first_mode = FULL if n_cuts == 0 else COLLECT
    traverse(0, deal_prob, deal_prob, deal_prob, traverser, policy, first_mode, iteration_params,
             kind, seat, contrib, first_child, n_children, entry_offset, node_round, cut_index,
             legal, keep_set, set_start, set_value, set_prob, set_size, hand_size, abstraction,
             regret, strat_sum, cut_reach, cut_value, work, root_value, record)
    if n_cuts > 0 and n_threads <= 1:
        for c in range(n_cuts):
            traverse(cut_nodes[c], cut_reach[c, 0], cut_reach[c, 1], cut_reach[c, 2], traverser, policy,
                     FULL, iteration_params, kind, seat, contrib, first_child, n_children, entry_offset,
                     node_round, cut_index, legal, keep_set, set_start, set_value, set_prob, set_size,
                     hand_size, abstraction, regret, strat_sum, cut_reach, cut_value, work, cut_value[c], record)
    elif n_cuts > 0:
        # Contiguous chunks of subtrees, one buffer set per chunk.
        n_chunks = min(n_cuts, n_threads)
        for chunk in prange(n_chunks):
            chunk_work = make_work(max_depth, n_actions_max, n_states, len(set_size), max_width)
            for c in range(chunk * n_cuts // n_chunks, (chunk + 1) * n_cuts // n_chunks):
                traverse(cut_nodes[c], cut_reach[c, 0], cut_reach[c, 1], cut_reach[c, 2], traverser, policy,
                         FULL, iteration_params, kind, seat, contrib, first_child, n_children, entry_offset,
                         node_round, cut_index, legal, keep_set, set_start, set_value, set_prob, set_size,
                         hand_size, abstraction, regret, strat_sum, cut_reach, cut_value, chunk_work,
                         cut_value[c], record)
    if n_cuts > 0:
        traverse(0, deal_prob, deal_prob, deal_prob, traverser, policy, TRUNK, iteration_params,
                 kind, seat, contrib, first_child, n_children, entry_offset, node_round, cut_index,
                 legal, keep_set, set_start, set_value, set_prob, set_size, hand_size, abstraction,
                 regret, strat_sum, cut_reach, cut_value, work, root_value, record)
    total = 0.0
    for s in range(n_states):
        total += deal_prob[s] * root_value[s]
    return total


@njit(cache=True)
def average_all(kind, n_children, entry_offset, node_round, legal, abstraction, strat_sum, n_states, out,
                node_lo, node_hi, out_start):
    """Normalised average strategy of decision nodes ``node_lo..node_hi-1`` into ``out``.

    ``out[i]`` holds storage entry ``out_start + i`` (same layout as the sums:
    per bucket when the game is bucketed), so a big strategy can be written in
    chunks.
    """
    bucketed, bucket_of, bucket_width, bucket_legal = abstraction
    max_width = max(bucket_width.max(), n_states)
    buffer = np.empty((8, max_width))
    total = np.empty(max_width)
    for node in range(node_lo, node_hi):
        if kind[node] > DRAW:
            continue
        n_act = n_children[node]
        width = bucket_width[node_round[node]]
        start = entry_offset[node]
        rows = strat_sum[start:start + n_act * width].reshape((n_act, width))
        _strategy(rows, n_act, bucket_legal[node_round[node]], kind[node] == DRAW, buffer, total)
        for a in range(n_act):
            for b in range(width):
                out[start - out_start + a * width + b] = buffer[a, b]
