"""What the kernels take and share: the walk's policies and modes, the named groups of arrays they
read (tree, layout, draws, discount, cuts, storage, records, work buffers), and two intrinsics
(borrowed arrays, cache-line prefetch)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import config as numba_config
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic
from llvmlite import ir


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
def prefetch_rows(storage, start, count):
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
# where none can be, -2 where none is, and its probability. ``chance_cache``: the traverser's
# chance-only reach after each sequence of his own draw counts from a walk's root, numbered as a
# tree (the root 0, the child of key p by count slot j ``p * fan + 1 + j``), valid where
# ``chance_stamp`` holds the root walk's number in ``chance_run``; ``chance_key``: the key of each
# level's chance vector, -1 where it is not cached.)
WorkBuffers = namedtuple("WorkBuffers", "reach child_val strat stack_node stack_next agg temp chance_at chance_level "
                                        "ones per_bucket bucket_sums scratch rng picked pick_prob chance_cache "
                                        "chance_stamp chance_key chance_run")
