"""How much of the triple-draw preset's cap-4 storage sits in slots that one node of a walk meets,
and how much in slots that several public nodes share (the recall rule's merged histories):

    python scripts/bench/shared_slots.py

Counts, per cut group, the decision nodes of the cut-entry table that name each slot, weighted by
the slot's entries (the traverser's own merged draw counts are walked once for all, so the counts
above one are an upper bound on a walk's visits). What lever 1 of issue 59 (each row encoded where
the walk leaves its node, no group buffers) could reach: only a slot met once can be written back
there without changing what a later visit reads.
"""
import time

import numpy as np

from solver.cfr.solve import make_engine
from solver.game.config import load_preset

t0 = time.time()
engine = make_engine(load_preset("triple-draw"))   # (its storage is zeros not yet touched: no memory)
plan = engine.groups
print(f"built in {time.time() - t0:.0f} s: {len(plan.members)} groups of {len(plan.group_of_cut)} cuts", flush=True)
once = total = 0
by_count = np.zeros(10, np.int64)   # entries in slots met by 1, 2, ..., 9 or more nodes
for g in range(len(plan.members)):
    entries = plan.table[plan.members[g]].ravel()
    entries = entries[entries >= 0]
    base = plan.local_base[g]
    sizes = np.diff(np.append(base, plan.sizes[g]))
    firsts, nodes = np.unique(entries, return_counts=True)
    k = np.searchsorted(base, firsts)
    assert np.array_equal(base[k], firsts)
    weight = sizes[k]
    once += weight[nodes == 1].sum()
    total += weight.sum()
    np.add.at(by_count, np.minimum(nodes, 9), weight)
print(f"entries in slots one node meets: {once:,} of {total:,} ({once / total:.1%})")
print("share of entries by nodes meeting their slot (0, 1, ..., 9 or more):", np.round(by_count / total, 3).tolist())
