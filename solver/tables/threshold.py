"""Thresholded strategies: actions a row plays rarely, dropped.

A solve's average strategy keeps a little of everything it ever tried: an abstraction that is
not converged (the real game at cap 4) plays each bucket's rarely chosen actions with small
probabilities that are mostly noise of the iterations, not mixing the game asks for.
*Thresholding* sets every action a row plays with probability below ``threshold`` to zero and
renormalises the rest (Ganzfried, Sandholm and Waugh, "Strategy purification and thresholding",
AAMAS 2012: in limit hold'em abstractions it won head to head). It changes the strategy, so a
thresholded strategy is certified again (:func:`solver.tables.compact.certify` on its compact
file): whether it wins, and what it costs a best response, is measured, not assumed
(BENCHMARKS.md, "Thresholded cap-4 strategies").

A row is one bucket's (or class's) probabilities at one slot; a row's largest action is never
dropped, and a row of zeros (a compact file's dropped row, played uniformly) stays zeros.

>>> import numpy as np
>>> p = np.array([0.05, 0.9, 0.3, 0.95, 0.1, 0.7])   # one slot: 2 actions x 3 buckets
>>> threshold_rows(np.zeros(1, np.int64), np.array([2]), np.array([0, 6]), np.array([3]), p, 0.15, True)
>>> p.round(3).tolist()   # bucket 0 plays 5% / 95%, bucket 1 90% / 10%, bucket 2 30% / 70%
[0.0, 1.0, 0.3, 1.0, 0.0, 0.7]
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def threshold_rows(slot_round, slot_actions, slot_offset, row_width, values, threshold, renormalise):
    """In place: in each row of ``values`` (entries laid out slot by slot, action-major, bucket
    minor; ``slot_offset`` from the first slot's, ``len(slot_actions) + 1`` of them), the
    actions below ``threshold`` of the row's total set to zero, and with ``renormalise`` the rest
    scaled back to the row's total (probabilities; a compact file's counts, an unnormalised
    distribution, keep the counts left)."""
    base = slot_offset[0]
    for s in prange(len(slot_actions)):
        width = row_width[slot_round[s]]
        k = slot_actions[s]
        start = slot_offset[s] - base
        for b in range(width):
            total = 0.0
            best = 0
            for a in range(k):
                v = float(values[start + a * width + b])
                total += v
                if v > float(values[start + best * width + b]):
                    best = a
            if total <= 0.0:
                continue
            kept = 0.0
            for a in range(k):
                v = float(values[start + a * width + b])
                if a != best and v < threshold * total:
                    values[start + a * width + b] = 0
                else:
                    kept += v
            if renormalise and kept < total:
                for a in range(k):
                    values[start + a * width + b] = values[start + a * width + b] * (total / kept)


MAX_THRESHOLD = 0.2  # (excluded) a row has at most 5 actions (draw 0 to 4): below 1/5 a uniform row stays uniform


def check_threshold(threshold: float) -> None:
    """ValueError unless ``threshold`` is at least 0 and below :data:`MAX_THRESHOLD`."""
    if not 0.0 <= threshold < MAX_THRESHOLD:
        raise ValueError(f"a threshold is a fraction of a row's play, at least 0 and below {MAX_THRESHOLD:g} "
                         f"(a row has up to 5 actions), got {threshold:g}")


def threshold_strategy(layout, values: np.ndarray, threshold: float) -> np.ndarray:
    """``values`` (one entry per layout entry: probabilities or a compact file's counts) with each
    row thresholded at ``threshold`` (a fraction of the row, at least 0 and below 0.2), in place;
    returns it. ValueError for a threshold out of range or values that do not fit the layout."""
    check_threshold(threshold)
    if values.shape != (layout.n_entries,):
        raise ValueError(f"{values.shape[0]:,} values for a layout of {layout.n_entries:,} entries")
    if threshold > 0.0:
        threshold_rows(layout.slot_round, layout.slot_actions, layout.slot_offset, layout.row_width, values,
                       float(threshold), values.dtype.kind == "f")
    return values
