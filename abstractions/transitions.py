"""Exact draw transitions between value classes (independent-deck model).

Drawing ``d`` keeps the best ``hand_size - d`` card valid subset, which by the
greedy property is the lowest ranks of the hand's value; up to suit permutation
the kept cards are just that rank set. The ``d`` new cards come uniformly from
the player's own deck minus the kept cards. So the next value's distribution
depends only on the kept rank set, and the tables factor through kept sets:

    value v, draw d  ->  kept set K = keep_set[v, d]  ->  P(next value | K)

``P(. | K)`` is stored sparse (CSR: ``set_start``, ``set_value``, ``set_prob``),
found by enumerating every replacement (at most C(52, 4) for the empty set,
which is also the deal). Legal draws: 0 (stand pat, any hand) and every
``d >= hand_size - m`` with ``m`` the value's card count; ``keep_set`` is -1
where a draw is illegal and for d = 0 (standing pat keeps the class).

Tables are cached on disk (see :mod:`abstractions.files`) keyed by deck and
hand size, and rebuilt when the format version changes.

Keeping A-2-3 of three suits and drawing one makes a badugi with probability
10/49 (ten ranks in the fourth suit):

>>> ev, model = get_evaluator(), get_draw_model()
>>> after = model.next_distribution(ev.evaluate_text("As2h3d3c"), 1)
>>> round(float(after[ev.value_card_count == 4].sum()) * 49, 9)
10.0
>>> [reference_draw(m, 4) for m in (4, 3, 2, 1)]   # pat a badugi, else draw to the value
[0, 1, 2, 3]
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from .evaluator import Evaluator, get_evaluator, next_combination, strength_code
from .files import cached_arrays

FORMAT_VERSION = 1
ARRAY_NAMES = ("deal_prob", "legal", "keep_set", "set_mask", "set_size", "set_start", "set_value", "set_prob")


@njit(cache=True)
def draw_is_legal(card_count, hand_size, draw):
    """Whether a hand whose value holds ``card_count`` cards may draw ``draw``: stand pat, or
    discard at least every card outside the value (never keep a dead card)."""
    return draw == 0 or draw >= hand_size - card_count


@njit(cache=True)
def reference_draw(card_count, hand_size):
    """The reference draw rule: stand pat with a full valid hand, otherwise keep the value's
    ``card_count`` cards and draw the rest (card buckets and the simulator's baselines use it)."""
    return 0 if card_count == hand_size else hand_size - card_count


@njit(cache=True)
def _replacement_counts(kept, n_cards, hand_size, suits, ranks, code_to_value, n_values):
    """Count next values over all replacements of a kept card set."""
    n_kept = len(kept)
    draw = hand_size - n_kept
    counts = np.zeros(n_values, np.int64)
    available = np.empty(n_cards - n_kept, np.int64)
    k = 0
    for card in range(n_cards):
        taken = False
        for j in range(n_kept):
            if kept[j] == card:
                taken = True
        if not taken:
            available[k] = card
            k += 1
    hand = np.empty(hand_size, np.int64)
    hand[:n_kept] = kept
    if draw == 0:
        counts[code_to_value[strength_code(hand, hand_size, suits, ranks, hand_size)]] += 1
        return counts
    combo = np.arange(draw)
    n_available = len(available)
    while True:
        for j in range(draw):
            hand[n_kept + j] = available[combo[j]]
        counts[code_to_value[strength_code(hand, hand_size, suits, ranks, hand_size)]] += 1
        if not next_combination(combo, n_available):
            return counts


@dataclass(frozen=True)
class DrawModel:
    """Deal distribution and draw transitions over the value classes of a deck."""

    ranks: int
    suits: int
    hand_size: int
    n_values: int
    deal_prob: np.ndarray      # (n_values,) probability of being dealt each value
    legal: np.ndarray          # (n_values, hand_size + 1) bool: may draw d
    keep_set: np.ndarray       # (n_values, hand_size + 1) int32 kept-set index, -1 if none
    set_mask: np.ndarray       # (n_sets,) rank bitmask of each kept set
    set_size: np.ndarray       # (n_sets,) cards kept
    set_start: np.ndarray      # (n_sets + 1,) CSR row starts
    set_value: np.ndarray      # (nnz,) next value class
    set_prob: np.ndarray       # (nnz,) its probability

    @property
    def n_sets(self) -> int:
        return len(self.set_mask)

    def next_distribution(self, value: int, draw: int) -> np.ndarray:
        """Dense distribution of the next value class after drawing ``draw``."""
        if not 0 <= draw <= self.hand_size or not self.legal[value, draw]:
            raise ValueError(f"drawing {draw} is not allowed with value class {value}")
        out = np.zeros(self.n_values)
        if draw == 0:
            out[value] = 1.0
            return out
        s = self.keep_set[value, draw]
        lo, hi = self.set_start[s], self.set_start[s + 1]
        out[self.set_value[lo:hi]] = self.set_prob[lo:hi]
        return out

    def dense(self, draw: int) -> np.ndarray:
        """The full (n_values, n_values) matrix for one draw count (rows of illegal draws are 0)."""
        out = np.zeros((self.n_values, self.n_values))
        for v in range(self.n_values):
            if self.legal[v, draw]:
                out[v] = self.next_distribution(v, draw)
        return out

    def arrays(self) -> dict:
        return {name: getattr(self, name) for name in ARRAY_NAMES}


def _build(evaluator: Evaluator) -> DrawModel:
    deck, hand_size, n_values = evaluator.deck, evaluator.hand_size, evaluator.n_values
    counts = evaluator.value_card_count.astype(np.int64)
    masks = evaluator.value_rank_mask.astype(np.int64)
    deal = np.bincount(evaluator.hand_values, minlength=n_values).astype(np.float64)
    deal /= deal.sum()

    legal = np.array([[draw_is_legal(int(m), hand_size, d) for d in range(hand_size + 1)] for m in counts], bool)
    keep_set = np.full((n_values, hand_size + 1), -1, dtype=np.int32)
    set_index: dict[int, int] = {}
    set_masks = []
    for v in range(n_values):
        ranks_low_first = [r for r in range(deck.ranks) if masks[v] >> r & 1]
        for d in range(1, hand_size + 1):
            if not legal[v, d]:
                continue
            kept_mask = sum(1 << r for r in ranks_low_first[:hand_size - d])
            if kept_mask not in set_index:
                set_index[kept_mask] = len(set_masks)
                set_masks.append(kept_mask)
            keep_set[v, d] = set_index[kept_mask]

    code_to_value = np.full(int(evaluator.value_codes.max()) + 1, -1, dtype=np.int64)
    code_to_value[evaluator.value_codes] = np.arange(n_values)
    starts, values, probs = [0], [], []
    for mask in set_masks:
        kept_ranks = [r for r in range(deck.ranks) if mask >> r & 1]
        # Distinct ranks on distinct suits: by suit symmetry any such choice will do.
        kept = np.array([deck.card(r, i) for i, r in enumerate(kept_ranks)], dtype=np.int64)
        row = _replacement_counts(kept, deck.n_cards, hand_size, deck.suits, deck.ranks, code_to_value, n_values)
        nonzero = np.nonzero(row)[0]
        values.append(nonzero)
        probs.append(row[nonzero] / row.sum())
        starts.append(starts[-1] + len(nonzero))
    set_masks_arr = np.array(set_masks, dtype=np.int64)
    return DrawModel(
        ranks=deck.ranks, suits=deck.suits, hand_size=hand_size, n_values=n_values,
        deal_prob=deal, legal=legal, keep_set=keep_set,
        set_mask=set_masks_arr,
        set_size=np.array([bin(m).count("1") for m in set_masks], dtype=np.int64),
        set_start=np.array(starts, dtype=np.int64),
        set_value=np.concatenate(values).astype(np.int64),
        set_prob=np.concatenate(probs),
    )


def get_draw_model(ranks: int = 13, suits: int = 4, hand_size: int = 4, use_cache: bool = True) -> DrawModel:
    """Draw model of a deck and hand size, from the disk cache when it is there."""
    arrays = cached_arrays(f"draws-v{FORMAT_VERSION}-{ranks}x{suits}-h{hand_size}.npz", ARRAY_NAMES,
                           lambda: _build(get_evaluator(ranks, suits, hand_size)).arrays(), use_cache)
    return DrawModel(ranks=ranks, suits=suits, hand_size=hand_size, n_values=len(arrays["deal_prob"]), **arrays)
