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

from ...game.codes import DRAW, FOLD, SHOWDOWN  # (node kinds, as the kernels read them)
from .cuts import (cut_entry_table, cut_groups, fill_cut, fill_cut_from, group_sizes, walk_cut, walk_cut_chunk,
                   walk_sizes)
from .nodes import (add_sums, discounted_regret, discounted_sum, draw_reach, draw_value, locked_best,
                    locked_regret_base, make_work, node_strategy, regret_match, sample_action, summarise_node,
                    terminal_value, update_buckets)
from .passes import (add_delta, average_slots, discount_seat, settle_seat)
from .types import (BEST_RESPONSE, COLLECT, CutEntries, Cuts, Discount, DrawTables, EVALUATE, FULL, NO_UPDATE, Record,
                    SAMPLE_ALL, SAMPLE_DRAWS, SAMPLE_NONE, Storage, StreamedTree, TRUNK, TreeArrays, UPDATE,
                    UPDATE_PRUNED, UPDATE_SAMPLED_ALL, UPDATE_SAMPLED_DRAWS, WorkBuffers, borrowed, make_discount,
                    no_record, prefetch_rows, sampled_policy)
from .walk import (root_total, traverse, trunk_root)

__all__ = ["BEST_RESPONSE", "COLLECT", "CutEntries", "Cuts", "DRAW", "Discount", "DrawTables", "EVALUATE", "FOLD",
           "FULL", "NO_UPDATE", "SHOWDOWN", "Record", "SAMPLE_ALL", "SAMPLE_DRAWS", "SAMPLE_NONE", "Storage",
           "StreamedTree", "TRUNK", "TreeArrays", "UPDATE", "UPDATE_PRUNED", "UPDATE_SAMPLED_ALL",
           "UPDATE_SAMPLED_DRAWS", "WorkBuffers", "add_delta", "add_sums", "average_slots", "borrowed",
           "cut_entry_table", "cut_groups", "discount_seat", "discounted_regret", "discounted_sum", "draw_reach",
           "draw_value", "fill_cut", "fill_cut_from", "group_sizes", "locked_best", "locked_regret_base",
           "make_discount", "make_work", "no_record", "node_strategy", "prefetch_rows", "regret_match", "root_total",
           "sample_action", "sampled_policy", "settle_seat", "summarise_node", "terminal_value", "traverse",
           "trunk_root", "update_buckets", "walk_cut", "walk_cut_chunk", "walk_sizes"]
