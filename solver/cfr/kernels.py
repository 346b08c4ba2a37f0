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

The policies share the walk:
- ``UPDATE``: both seats play the current strategy (regret matching); the
  traverser's regrets and strategy sums are updated.
- ``BEST_RESPONSE``: the opponent plays the average strategy, the traverser
  maximises state by state (exact best response: by the Markov property of
  value classes, conditioning on past values cannot help).
- ``EVALUATE``: both seats play the average strategy.
- ``UPDATE_PRUNED``: as ``UPDATE``, but the strategy sums updated are the
  opponent's (his reach times his current strategy, at his decisions), so
  nothing in a subtree the opponent never reaches changes any storage, and
  such subtrees are skipped (a seat's sums then come from the other seat's
  walk: in alternating updates, the strategies the other seat faced). Its
  discount must leave what it skips right untouched: the storage discounted
  before the walk (a discount that only adds), or held divided by running
  factors that the discount carries (``pos_store``, ``neg_store`` and
  ``sum_weight``: ``solver.cfr.engine.StorageScales``).
- ``UPDATE_SAMPLED_DRAWS``, ``UPDATE_SAMPLED_ALL``: as ``UPDATE_PRUNED``, but
  at the opponent's draws (or at all his nodes) one action is walked, sampled
  in proportion to his reach-weighted strategy from the stream in
  ``work.rng``, and his reach below it is divided by its probability, so
  values are unbiased estimates (vector-form external-sampling MCCFR:
  Lanctot et al. 2009, Johanson et al. 2012; :mod:`solver.cfr.sampled`).

Pruning: below an opponent's action that leaves his reach vector all zero,
the traverser's values are zero, and best-response, evaluate and pruned update
walks skip the subtree (the same bits: every skipped term is zero). Walks
that record reach at nodes, or a best response asked for its action values,
walk everything.

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
subtrees below the cuts are walked in parallel (threads, each walking a chunk
of cuts with :func:`traverse`; a streamed game's with :func:`walk_cut_chunk`), and a ``TRUNK``
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
from numba import config as numba_config
from numba import njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic
from llvmlite import ir

from abstractions.random import stream_seed, uniform

from ..game.layout import LayoutArrays, key_slot
from ..game.tree import DRAW, FOLD, SHOWDOWN

UPDATE, BEST_RESPONSE, EVALUATE, UPDATE_PRUNED, UPDATE_SAMPLED_DRAWS, UPDATE_SAMPLED_ALL = 0, 1, 2, 3, 4, 5
FULL, COLLECT, TRUNK = 0, 1, 2
SAMPLE_NONE, SAMPLE_DRAWS, SAMPLE_ALL = 0, 1, 2   # where a sampled walk samples the opponent


def sampled_policy(sampling: int) -> int:
    """The update policy of a walk sampling the opponent where ``sampling`` says (``SAMPLE_*``):
    ``UPDATE_PRUNED`` samples nowhere."""
    return (UPDATE_PRUNED, UPDATE_SAMPLED_DRAWS, UPDATE_SAMPLED_ALL)[sampling]


# Kernel arguments come in named groups (each built once in Python by the walker):
# the public tree's arrays, the draw model's tables, the discount of one iteration,
# the cut subtrees with their reach and value buffers, a walk's work buffers, and
# the nodes whose reach and values a walk records. The layout comes as
# ``solver.game.layout.LayoutArrays``.
TreeArrays = namedtuple("TreeArrays", "kind seat contrib first_child n_children node_round max_depth n_actions_max")
# (legal and keep_set per round: (rounds, states, draw counts); a bucket game's states and
# transitions differ by round, and standing pat moves its state to the next round's buckets,
# ``pat_moves``, where a value class stays itself.)
# ``round_states[r]``: the states of round r that are not padding (a bucket game's buckets of the
# round; every state at full resolution); ``round_width[r]``: the most of any round from r on, the
# width a walk's vectors take at a node of round r (vectors at later nodes are never wider, so
# what a node writes covers what its subtree reads: see ``traverse``).
DrawTables = namedtuple("DrawTables", "legal keep_set set_start set_value set_prob set_size hand_size pat_moves "
                                       "round_sets set_run dense dense_t round_states round_width")
# ``pos_store`` / ``neg_store``: what an updated regret is multiplied by before it is stored,
# where positive / negative (1 but with :class:`solver.cfr.engine.StorageScales`, whose storage
# holds regrets divided by a seat's running discount).
Discount = namedtuple("Discount", "pos_scale neg_scale floor sum_scale sum_weight pos_store neg_store",
                      defaults=(1.0, 1.0))


def make_discount(*, pos_scale: float = 1.0, neg_scale: float = 1.0, floor: float = 0.0, sum_scale: float = 1.0,
                  sum_weight: float = 1.0, pos_store: float = 1.0, neg_store: float = 1.0) -> Discount:
    """A :data:`Discount` by name (the one way Python code builds one), each term left out the
    identity: nothing scaled, nothing floored, the iteration's strategy weighted 1, stored as
    computed (an algorithm's terms come from ``solver.cfr.algorithms.Algorithm.discount``)."""
    return Discount(pos_scale=pos_scale, neg_scale=neg_scale, floor=floor, sum_scale=sum_scale, sum_weight=sum_weight,
                    pos_store=pos_store, neg_store=neg_store)


NO_UPDATE = make_discount()  # the discount of walks that update nothing
Cuts = namedtuple("Cuts", "nodes index reach value")
# The first entry of every decision node of the shape below every cut, built once
# (:func:`cut_entry_table`): ``decisions`` the shape's decision nodes, ``table[c, j]`` the
# entry of ``decisions[j]`` below cut ``c`` (-1 where its key has no slot). An empty table
# (shape (0, 0)): each walk computes a cut's entries from the recall rule (:func:`fill_cut`).
CutEntries = namedtuple("CutEntries", "decisions table")
# A record: nodes with ``index >= 0`` get their reach and values; with a non-empty ``summary``
# (seat, round, situation, column, state), an evaluate walk also sums there, at every decision
# node, the acting seat's reach times the opponent's total reach (column 0) and that times each
# action's probability (column ``1 + column[child]``), and in its last column column 0's reach
# times the pot at the node (both seats' contributions), by the node's ``situation`` code
# (``solver.game.tree.situations``: what the player faces): strategy charts of games whose tree
# is never built. Empty summaries (``no_record``) sum nothing.
Record = namedtuple("Record", "index reach value summary column situation")
# A streamed game (``solver.cfr.streamed``): the trunk's tree and layout arrays and its cuts
# (``cuts``), each cut's pot and first-round record, the shape's tree arrays with each node's
# phase, pot and earlier round records, the shape's own (empty) cuts, the recall rule
# (``solver.game.layout.RuleArrays``) and the cut entries: built once in Python
# (``solver.cfr.streamed.streamed_arrays``).
StreamedTree = namedtuple("StreamedTree", "trunk trunk_layout cuts cut_pot cut_record shape shape_phase shape_pot "
                                          "shape_records shape_cuts rule cut_entries")
# An update walk's storage over a streamed game: the rows played (the regrets, read-only), the
# regrets and strategy sums, and the regrets' delta (zero between walks).
Storage = namedtuple("Storage", "play regret strat_sum delta")



def _borrow(context, builder, ty, value):
    """``value`` of type ``ty`` with every array's meminfo and parent null (see :func:`borrowed`)."""
    if isinstance(ty, types.Array):
        array = context.make_array(ty)(context, builder, value=value)
        array.meminfo = cgutils.get_null_value(array.meminfo.type)
        array.parent = cgutils.get_null_value(array.parent.type)
        return array._getvalue()
    if isinstance(ty, types.BaseTuple):
        for i, item in enumerate(ty.types):
            value = builder.insert_value(value, _borrow(context, builder, item, builder.extract_value(value, i)), i)
    return value


@intrinsic
def borrowed(typingctx, value):
    """``value`` (an array, or a tuple of them, nested or named) whose arrays keep no reference to
    their memory: views of them, and the arguments of the functions a kernel calls with them, cost
    no reference-count pair (an atomic add and subtract on the memory's count; Numba makes one at
    every call of a kernel's helpers with an array or a group of arrays, and two threads walking
    with the same storage make them on one cache line). Only for arrays that outlive the call
    that borrows them: a kernel's arguments, whose caller holds them. (A ``prange`` body's array
    arguments are borrowed in this way by Numba itself: the walks of cut subtrees ran in one
    before they ran on Python threads, 9-13% faster than without it.)"""
    def codegen(context, builder, signature, args):
        return _borrow(context, builder, value, args[0])
    return value(value), codegen


@intrinsic
def _prefetch_line(typingctx, array, index):
    """A hint to the processor to bring the cache line of ``array[index]`` (a 1-d array) in for
    writing (LLVM's ``llvm.prefetch``): nothing else; it never faults, so an index past the end
    costs nothing but the hint."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        data = context.make_array(signature.args[0])(context, builder, args[0]).data
        at = builder.gep(data, [context.cast(builder, args[1], signature.args[1], types.intp)])
        i32 = ir.IntType(32)
        hint = builder.module.declare_intrinsic("llvm.prefetch", [at.type],
                                                ir.FunctionType(ir.VoidType(), [at.type, i32, i32, i32]))
        # (write, keep in every cache level, data)
        builder.call(hint, [at, ir.Constant(i32, 1), ir.Constant(i32, 3), ir.Constant(i32, 1)])
        return context.get_dummy_value()
    return types.void(array, index), codegen


def _as_it_is(value):
    return value


def _no_hint(array, index):
    return None


if numba_config.DISABLE_JIT:  # kernels run as Python (debugging, coverage): nothing to borrow
    globals()["borrowed"] = _as_it_is
    globals()["_prefetch_line"] = _no_hint


@njit(cache=True)
def _prefetch_rows(storage, start, count):
    """Hints for the cache lines of ``storage[start:start + count]`` (16 float32 entries a line):
    a node's rows, asked for while the walk works on something else, so the load that needs them
    does not wait on memory (the storage is gigabytes, and these loads were a quarter of a cap-4
    iteration in perf)."""
    if start < 0 or start + count > len(storage):
        return
    for i in range(start, start + count, 16):
        _prefetch_line(storage, i)
    _prefetch_line(storage, start + count - 1)


def no_record(n_nodes: int, n_states: int) -> Record:
    """A record of nothing for a tree of ``n_nodes`` (the same types as a real one: one compiled
    walk serves both)."""
    return Record(np.full(n_nodes, -1, np.int64), np.zeros((0, 2, n_states)), np.zeros((0, 2, n_states)),
                  np.zeros((0, 0, 0, 0, 0)), np.zeros(0, np.int64), np.zeros(0, np.int64))
# (``rng``: the random stream of a sampled walk, a one-element uint64 array
# (``abstractions.random``); ``picked`` and ``pick_prob``: the action sampled at each level, -1
# where none can be, -2 where none is, and its probability.)
WorkBuffers = namedtuple("WorkBuffers", "reach child_val strat stack_node stack_next agg temp chance_at chance_level "
                                        "ones per_bucket bucket_sums scratch rng picked pick_prob")


@njit(cache=True, fastmath=True)
def _regret_match(storage, start, width, n_act, is_draw, legal_mask, rnd, out, total, uniform):
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
def _draw_reach(reach, strat_row, draw, rnd, draws, agg, out):
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
def _draw_value(child_value, draw, rnd, draws, agg, out):
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
def _terminal_value(kind, gain, reach, d, opp, out, od, k, n_states):
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


@njit(cache=True)
def make_work(max_depth, n_actions_max, n_states, n_sets, max_width):
    """Per-thread buffers of one walk: O(depth * actions * states).

    ``max_width`` is the widest row (the most buckets of any round, or the
    number of classes at full resolution).
    """
    width = max(max_width, n_states)
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
        np.ones(max_depth + 1))                                  # its probability


@njit(cache=True)
def _node_strategy(play, start, n_act, rnd, is_draw, layout, per_bucket, total, uniform, out, n_states):
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
        _regret_match(play, start, width, n_act, is_draw, layout.legal_mask, rnd, out, total, uniform)
        for a in range(n_act):
            first = out[a, 0]  # (read once: in the loop, Numba made the copies a scatter)
            for s in range(width, n_states):
                out[a, s] = first
        return
    _regret_match(play, start, width, n_act, is_draw, layout.legal_mask, rnd, per_bucket, total, uniform)
    row_of = layout.row_of
    for a in range(n_act):
        for s in range(n_states):
            out[a, s] = per_bucket[a, row_of[rnd, s]]


@njit(cache=True, fastmath=True)
def _discounted_regret(old, gained, lost, discount):
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
def _discounted_sum(old, added, discount):
    """A strategy sum after one iteration: the old one discounted, plus ``added`` (the
    iteration's reach-weighted strategy, already times ``discount.sum_weight``)."""
    return old * discount.sum_scale + added


@njit(cache=True, fastmath=True)
def _update_buckets(regret, strat_sum, rows_at, n_act, width, row_of, rnd, chance, own_reach, strat,
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
                regret[i] = _discounted_regret(regret[i], chance[b] * (child_val[a, b] - val[b]), 0.0, discount)
                if own_sums:
                    strat_sum[i] = _discounted_sum(strat_sum[i], discount.sum_weight * (own_reach[b] * strat[a, b]),
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
            regret[base + b] = _discounted_regret(regret[base + b], bucket_sums[0, b], 0.0, discount)
            if own_sums:
                strat_sum[base + b] = _discounted_sum(strat_sum[base + b], discount.sum_weight * bucket_sums[1, b],
                                                      discount)


@njit(cache=True, fastmath=True)
def _add_sums(strat_sum, rows_at, n_act, width, shared_rows, row_of, rnd, reach, strat, discount, bucket_sums,
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
                strat_sum[i] = _discounted_sum(strat_sum[i], discount.sum_weight * reach[s] * strat[a, s], discount)
        elif own_rows:
            for b in range(width):
                i = base + np.uint64(b)
                strat_sum[i] = _discounted_sum(strat_sum[i], discount.sum_weight * (reach[b] * strat[a, b]), discount)
        else:
            bucket_sums[1, :width] = 0.0
            for s in range(n_states):
                bucket_sums[1, row_of[rnd, s]] += reach[s] * strat[a, s]
            for b in range(width):
                i = base + np.uint64(b)
                strat_sum[i] = _discounted_sum(strat_sum[i], discount.sum_weight * bucket_sums[1, b], discount)


@njit(cache=True)
def _fixed_part(code, base, width, n_act, child_val, depth, s):
    """A locked class's fixed share and the value it brings: sum of p and of p * value over the
    actions its lock fixes (see ``_locked_best`` for ``code``)."""
    total = 0.0
    value = 0.0
    for a in range(n_act):
        c = code[base + np.uint64(a) * np.uint64(width)]
        if c >= 0.0:
            total += c
            value += c * child_val[depth, a, s]
    return total, value


@njit(cache=True)
def _locked_regret_base(code, rows_at, width, n_act, is_draw, legal, rnd, child_val, depth, vd, vk):
    """Regrets of a partly locked class are those of the choice among its free actions: shift the
    free actions' values by (node value - value of the free choice), so that the update's
    ``value(action) - value(node)`` is ``value(action) - value(free choice)`` (see ``_locked_best``
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
def _locked_best(code, rows_at, width, n_act, is_draw, legal, rnd, child_val, depth, vd, vk):
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
def _sample_action(reach, depth, seat, strat, n_act, work, n_states):
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
def _summarise_node(summary, column, acting, rnd, situation, first, n_act, own, other, strat, n_states, pot):
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
    best responses keep them (:func:`_locked_best`) and the regrets of a partly
    locked class are those of its free choice (:func:`_locked_regret_base`). ``tree``, ``layout``,
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
    track_chance = shared_rows and updating
    summarise = policy == EVALUATE and record.summary.shape[0] > 0
    own_slot = child_val.shape[1] - 1
    # Skip what the opponent never reaches (see the module docstring): not while collecting the
    # reach at cuts, nor where reach is recorded or a best response's action values are asked for.
    prune = mode != COLLECT and rec_reach.shape[0] == 0 and (
        pruned_update or policy == EVALUATE or (policy == BEST_RESPONSE and regret.shape[0] == 0))
    picked, pick_prob = work.picked, work.pick_prob
    # Storage rows are fetched ahead in update walks (``_prefetch_rows``).
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

    for r in range(len(roots)):
        for s in range(n_states):
            reach[0, 0, s] = root_reach[r, 0, s]
            reach[0, 1, s] = root_reach[r, 1, s]
        if track_chance:
            for s in range(n_states):
                chance_at[0, s] = root_reach[r, 2, s]
            chance_level[0] = 0
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
                        _node_strategy(play, rows_at, n_act, rnd, is_draw, layout, per_bucket, temp, scratch,
                                       strat[depth], nw)
                    else:
                        _regret_match(play, rows_at, width, n_act, is_draw, legal_mask, rnd, strat[depth], temp, scratch)
                # (Best response at the traverser's own nodes needs no strategy.)
                if prefetching:
                    # The rows this node writes when it is left, and those its decision children
                    # read when entered: in memory by then (a child's subtree, or its elder
                    # siblings', is walked in between).
                    if acting == traverser:
                        _prefetch_rows(regret, rows_at, n_act * width)
                        if own_sums:
                            _prefetch_rows(strat_sum, rows_at, n_act * width)
                    elif pruned_update:
                        _prefetch_rows(strat_sum, rows_at, n_act * width)
                    for c in range(first_child[node], first_child[node] + n_act):
                        if kind[c] <= DRAW and entry_offset[c] >= 0:
                            _prefetch_rows(play, entry_offset[c], n_children[c] * row_width[node_round[c]])
                # The seat not acting keeps its reach for every child.
                for s in range(nw):
                    reach[depth + 1, waiting, s] = reach[depth, waiting, s]
                if rec_index[node] >= 0:
                    for s in range(n_states):
                        rec_reach[rec_index[node], 0, s] = reach[depth, 0, s] if s < nw else 0.0
                        rec_reach[rec_index[node], 1, s] = reach[depth, 1, s] if s < nw else 0.0
                if summarise and mode != TRUNK:
                    _summarise_node(record.summary, record.column, acting, rnd, record.situation[node], first_child[node],
                                    n_act, reach[depth, acting], reach[depth, waiting], strat[depth], nw,
                                    contrib[node, 0] + contrib[node, 1])
                if sampling:
                    picked[depth] = -2
                    if acting == opponent and (is_draw or policy == UPDATE_SAMPLED_ALL):
                        # Walk one of his actions, his reach divided by its probability: unbiased values.
                        _sample_action(reach, depth, opponent, strat, n_act, work, nw)

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
                elif policy == BEST_RESPONSE and acting == traverser:
                    # The best responder's own reach is not needed (kept finite for records and cuts).
                    for s in range(nw):
                        reach[depth + 1, acting, s] = 0.0 if is_draw else reach[depth, acting, s]
                elif is_draw:
                    _draw_reach(reach[depth, acting], strat[depth, k], k, rnd, draws, agg, reach[depth + 1, acting])
                    if merge_k == 1:
                        for j in range(k + 1, n_act):
                            _draw_reach(reach[depth, acting], strat[depth, j], j, rnd, draws, agg, merged_temp)
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
                        _draw_reach(chance_at[chance_level[depth]], ones, k, rnd, draws, agg, chance_at[depth + 1])
                        chance_level[depth + 1] = depth + 1
                        if merge_k == 1:
                            for j in range(k + 1, n_act):
                                _draw_reach(chance_at[chance_level[depth]], ones, j, rnd, draws, agg, merged_temp)
                                for s in range(nw):
                                    chance_at[depth + 1, s] += merged_temp[s]
                            inv = 1.0 / (n_act - merge_from)
                            for s in range(nw):
                                chance_at[depth + 1, s] *= inv
                        elif merge_k == 2:
                            for s in range(nw):
                                chance_at[depth + 1, s] = 0.0
                    else:
                        chance_level[depth + 1] = chance_level[depth]

                child_kind = kind[child]
                if child_kind >= FOLD and mode == COLLECT:
                    pass  # a collecting walk computes no values
                elif child_kind == FOLD:
                    folder = seat[child]
                    gain = -contrib[child, traverser] if folder == traverser else contrib[child, folder]
                    _terminal_value(FOLD, gain, reach, depth + 1, opponent, child_val, depth, k, nw)
                elif child_kind == SHOWDOWN:
                    _terminal_value(SHOWDOWN, contrib[child, traverser], reach, depth + 1, opponent,
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
                            _draw_value(merged_temp, j, rnd, draws, agg, child_val[depth, j])
                    elif is_draw and acting == traverser:
                        _draw_value(cut_value[c], k, rnd, draws, agg, child_val[depth, k])
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
                        _locked_best(layout.lock_code, rows_at, width, n_act, is_draw, legal, rnd, child_val, depth, vd,
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
                            _locked_regret_base(layout.lock_code, rows_at, width, n_act, is_draw, legal, rnd, child_val,
                                                depth, vd, vk)
                        if not shared_rows and own_sums:
                            # Unsigned flat offsets: no wraparound (signed ones make the loads gathers) and
                            # no views of the storage (a contended reference count per node).
                            for a in range(n_act):
                                row = np.uint64(rows_at) + np.uint64(a) * np.uint64(n_states)
                                for s in range(n_states):
                                    i = row + np.uint64(s)
                                    regret[i] = _discounted_regret(regret[i], child_val[depth, a, s],
                                                                   child_val[vd, vk, s], discount)
                                    strat_sum[i] = _discounted_sum(
                                        strat_sum[i], discount.sum_weight * reach[depth, traverser, s] * strat[depth, a, s],
                                        discount)
                        elif not shared_rows:
                            for a in range(n_act):
                                row = np.uint64(rows_at) + np.uint64(a) * np.uint64(n_states)
                                for s in range(n_states):
                                    i = row + np.uint64(s)
                                    regret[i] = _discounted_regret(regret[i], child_val[depth, a, s],
                                                                   child_val[vd, vk, s], discount)
                        else:
                            # (The node's value to this round's width: rows shared by classes sum that many.)
                            _update_buckets(regret, strat_sum, rows_at, n_act, width, layout.row_of, rnd,
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
                        _add_sums(strat_sum, rows_at, n_act, width, shared_rows, layout.row_of, rnd,
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
                            _draw_value(child_val[depth + 1, own_slot], j, node_round[up], draws, agg,
                                        child_val[depth, j])
                    else:
                        _draw_value(child_val[depth + 1, own_slot], slot, node_round[up], draws, agg,
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
        _regret_match(strat_sum, start, width, n_act, slot_kind[slot] == DRAW, layout.legal_mask, rnd, buffer, total,
                      uniform)
        for a in range(n_act):
            for b in range(width):
                out[start - out_start + a * width + b] = buffer[a, b]


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
    :func:`_cut_walker`)."""
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
def _cut_walker(game, max_depth, n_act_max, n_states, n_sets, max_width):
    """One thread's buffers for walking cut subtrees: work buffers, and the shape's tree and layout
    arrays whose contributions and entries :func:`_walk_cut` fills for each cut."""
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
def _walk_cut(c, skip_unreached, traverser, policy, discount, game, tree, layout, draws, play, regret, strat_sum,
              work, record):
    """Cut ``c``'s subtree of a streamed ``game`` (the shape with the cut's contributions and
    entries: from ``game.cut_entries`` if its table is built) walked from the reach in
    ``game.cuts.reach[c]``, its value into ``game.cuts.value[c]``; with ``skip_unreached``, a cut
    the opponent never reaches is worth 0 and not walked. ``tree`` and ``layout`` come from
    :func:`_cut_walker`."""
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
    (:func:`_walk_cut`), with one set of buffers; without the GIL, so threads walk chunks at once
    (``solver.cfr.streamed``: one thread per chunk; not ``prange``, whose bodies cannot take
    nested named tuples). A sampled walk below cut ``c`` draws from stream ``c + 1`` of ``seed``
    (``abstractions.random.stream_seed``): the same numbers in any chunk."""
    max_depth, n_act_max, n_sets, max_width = walk_sizes(game, draws)
    n_states = game.cuts.reach.shape[2]
    work, tree, layout = _cut_walker(game, max_depth, n_act_max, n_states, n_sets, max_width)
    for j in range(len(chunk)):
        work.rng[0] = stream_seed(seed, chunk[j] + 1)
        _walk_cut(chunk[j], skip_unreached, traverser, policy, discount, game, tree, layout, draws, play, regret,
                  strat_sum, work, record)
    return 0


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
    owning it holds (:func:`solver.cfr.streamed_ray.plan_actors`)."""
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
