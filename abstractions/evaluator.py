"""Badugi hand evaluator: dense value classes, a Numba batch kernel, a lookup table.

A hand's value is its best *valid subset* (pairwise distinct ranks and suits):
more cards beat fewer; with equal counts the highest rank decides (lower wins),
then the next, and so on; suits never break ties.

Every hand maps to an integer *strength code* ``(hand_size - m) << ranks | mask``
where ``m`` is the number of cards in the value and ``mask`` has bit ``r`` set for
each rank ``r`` in it. For equal ``m`` a lower mask is a better hand (the
highest set bit dominates), so a lower code is always a better hand. The
achievable codes of a deck, sorted, give the dense *value classes*: value 0 is
the best hand (A-2-3-4 rainbow in the full deck) and equal values tie.

>>> ev = get_evaluator()
>>> ev.n_values
1092
>>> ev.describe(ev.evaluate_text("7h5d4d3s"))
'three-card 7: 7-4-3'
"""

from __future__ import annotations

from functools import lru_cache
from math import comb

import numpy as np
from numba import njit, prange

from .cards import FULL_DECK, Deck, format_cards, parse_cards, rank_name

COUNT_WORDS = {1: "one", 2: "two", 3: "three", 4: "four"}
MAX_HAND_SIZE = 4


@njit(cache=True, inline="always")
def best_valid_subset(cards, n, suits, size):
    """Best valid subset of ``cards[:n]``: (subset bitmask over positions, code).

    ``size`` = 0 means the best subset of any size (the hand's value); otherwise
    only subsets of exactly ``size`` cards count. Returns (-1, -1) if none.
    Among equal codes the lowest position bitmask wins, so the choice is stable.
    """
    # Each card's rank and suit, one byte per position (rank in the low nibble): two divisions a
    # card here instead of two per card and subset below.
    packed = 0
    for i in range(n):
        packed |= ((cards[i] // suits) | (cards[i] % suits) << 4) << (8 * i)
    best_code = -1
    best_pick = -1
    for pick in range(1, 1 << n):
        rank_bits = 0
        suit_bits = 0
        count = 0
        valid = True
        for i in range(n):
            if pick >> i & 1:
                card = packed >> (8 * i) & 0xFF
                rank = card & 0xF
                suit = card >> 4
                if rank_bits >> rank & 1 or suit_bits >> suit & 1:
                    valid = False
                    break
                rank_bits |= 1 << rank
                suit_bits |= 1 << suit
                count += 1
        if not valid or (size > 0 and count != size):
            continue
        # (MAX - count) first: more cards is a lower (better) code.
        code = ((MAX_HAND_SIZE - count) << 16) | rank_bits
        if best_code < 0 or code < best_code:
            best_code = code
            best_pick = pick
    return best_pick, best_code


@njit(cache=True, inline="always")
def strength_code(cards, n, suits, ranks, hand_size):
    """The strength code of the hand ``cards[:n]`` (see the module docstring): lower is better."""
    pick, code = best_valid_subset(cards, n, suits, 0)
    count = MAX_HAND_SIZE - (code >> 16)
    return ((hand_size - count) << ranks) | (code & 0xFFFF)


@njit(cache=True, inline="always")
def value_shape(cards, n, suits):
    """(cards in the hand's value, its top rank; 0 = ace) of ``cards[:n]``."""
    _, code = best_valid_subset(cards, n, suits, 0)
    mask = code & 0xFFFF
    top = 0
    for r in range(16):
        if mask >> r & 1:
            top = r
    return MAX_HAND_SIZE - (code >> 16), top


@njit(cache=True)
def next_combination(combo, n):
    """Advance ``combo`` (sorted positions in 0..n-1) to the next one in colex order.

    Bumps the lowest position that can move and resets those below it; returns
    False (leaving ``combo`` unchanged) after the last combination.
    """
    k = len(combo)
    for i in range(k):
        limit = combo[i + 1] if i + 1 < k else n
        if combo[i] + 1 < limit:
            combo[i] += 1
            for j in range(i):
                combo[j] = j
            return True
    return False


@njit(cache=True)
def _all_hand_codes(n_cards, hand_size, suits, ranks, binom):
    """Strength code of every hand of the deck, indexed by colex rank."""
    total = binom[n_cards, hand_size]
    codes = np.empty(total, np.int32)
    combo = np.arange(hand_size)
    for index in range(total):
        codes[index] = strength_code(combo, hand_size, suits, ranks, hand_size)
        next_combination(combo, n_cards)
    return codes


@njit(cache=True, parallel=True)
def _lookup_values(hands, n_cards, binom, hand_values, out):
    """Value class of each row of ``hands`` through the colex lookup table.

    Cards are sorted in registers by a 5-comparator network (rows shorter than
    four are padded with distinct cards past the deck, which sort last). A row
    with a card outside the deck or a repeated card gets -1; returns how many.
    """
    n_hands, hand_size = hands.shape
    n_bad = 0
    for h in prange(n_hands):
        c0 = np.int64(hands[h, 0])
        c1 = np.int64(hands[h, 1]) if hand_size > 1 else n_cards + 1
        c2 = np.int64(hands[h, 2]) if hand_size > 2 else n_cards + 2
        c3 = np.int64(hands[h, 3]) if hand_size > 3 else n_cards + 3
        if c0 > c1:
            c0, c1 = c1, c0
        if c2 > c3:
            c2, c3 = c3, c2
        if c0 > c2:
            c0, c2 = c2, c0
        if c1 > c3:
            c1, c3 = c3, c1
        if c1 > c2:
            c1, c2 = c2, c1
        top = c0 if hand_size == 1 else (c1 if hand_size == 2 else (c2 if hand_size == 3 else c3))
        if c0 < 0 or top >= n_cards or c0 == c1 or c1 == c2 or c2 == c3:
            out[h] = -1
            n_bad += 1
            continue
        index = binom[c0, 1]
        if hand_size > 1:
            index += binom[c1, 2]
        if hand_size > 2:
            index += binom[c2, 3]
        if hand_size > 3:
            index += binom[c3, 4]
        out[h] = hand_values[index]
    return n_bad


@njit(cache=True)
def _best_subsets(hands, suits, out):
    """Each row's best valid subset (its value's cards) into ``out``, highest rank first, then
    -1s. Serial: a batch of a million hands takes well under a second, and a parallel kernel
    would compile for seconds more on first use."""
    n_hands, hand_size = hands.shape
    cards = np.empty(hand_size, np.int64)
    for h in range(n_hands):
        for i in range(hand_size):
            cards[i] = hands[h, i]
        pick, _ = best_valid_subset(cards, hand_size, suits, 0)
        kept = 0
        for i in range(hand_size):
            if pick >> i & 1:
                # Insertion by rank, highest first (a valid subset has distinct ranks).
                j = kept
                while j > 0 and out[h, j - 1] // suits < cards[i] // suits:
                    out[h, j] = out[h, j - 1]
                    j -= 1
                out[h, j] = cards[i]
                kept += 1
        for i in range(kept, hand_size):
            out[h, i] = -1


def _binomials(n: int, k: int) -> np.ndarray:
    table = np.zeros((n + 1, k + 2), dtype=np.int64)
    for i in range(n + 1):
        for j in range(k + 2):
            table[i, j] = comb(i, j)
    return table


class Evaluator:
    """Value classes and evaluation for one deck and hand size.

    Attributes
    ----------
    n_values : number of value classes (1,092 for the full deck, four cards).
    value_codes : strength code of each value class, ascending (best first).
    value_card_count : cards in each value (1..hand_size).
    value_rank_mask : bit r set for each rank r in the value.
    hand_values : value class of every hand of the deck, in colex order of the
        sorted card numbers (built once, on first use).
    """

    def __init__(self, deck: Deck = FULL_DECK, hand_size: int = 4):
        if not isinstance(hand_size, int) or not 1 <= hand_size <= MAX_HAND_SIZE:
            raise ValueError(f"hand_size must be 1 to {MAX_HAND_SIZE}, got {hand_size!r}")
        if hand_size > deck.n_cards:
            raise ValueError(f"hand_size {hand_size} is more than the {deck.n_cards} cards of the {deck.describe()}")
        self.deck = deck
        self.hand_size = hand_size
        self._binom = _binomials(deck.n_cards, hand_size)
        codes = _all_hand_codes(deck.n_cards, hand_size, deck.suits, deck.ranks, self._binom)
        self.value_codes, hand_values = np.unique(codes, return_inverse=True)
        self.hand_values = hand_values.astype(np.int32)
        self.n_values = len(self.value_codes)
        self.value_card_count = (hand_size - (self.value_codes >> deck.ranks)).astype(np.int8)
        self.value_rank_mask = (self.value_codes & ((1 << deck.ranks) - 1)).astype(np.int32)
        self._code_to_value = {int(c): v for v, c in enumerate(self.value_codes)}

    # -- evaluation -------------------------------------------------------
    def evaluate_batch(self, hands) -> np.ndarray:
        """Value class of each hand in an ``(n, hand_size)`` integer array of card numbers.

        Raises ValueError naming the first bad row (a card outside the deck or a
        repeated card) or a wrong shape.
        """
        hands = np.asarray(hands)
        if hands.ndim == 1:
            hands = hands[None, :]
        if hands.ndim != 2 or hands.shape[1] != self.hand_size:
            raise ValueError(f"hands must have {self.hand_size} cards each, got shape {hands.shape}")
        if not np.issubdtype(hands.dtype, np.integer):
            raise ValueError(f"hands must be integer card numbers, got {hands.dtype}")
        out = np.empty(len(hands), dtype=np.int32)
        if _lookup_values(hands, self.deck.n_cards, self._binom, self.hand_values, out):
            bad = np.flatnonzero(out < 0)
            row = hands[bad[0]]
            if row.min() < 0 or row.max() >= self.deck.n_cards:
                raise ValueError(f"hand {bad[0]}: card numbers must be 0..{self.deck.n_cards - 1} "
                                 f"for the {self.deck.describe()}, got {row.tolist()}")
            raise ValueError(f"hand {bad[0]} has a duplicate card: {format_cards(row, self.deck)}")
        return out

    def evaluate(self, cards) -> int:
        """Value class of one hand given as card numbers."""
        return int(self.evaluate_batch(np.asarray(cards)[None, :])[0])

    def evaluate_text(self, text: str) -> int:
        """Value class of a hand written in card notation, e.g. ``'As2h3d4c'``."""
        return self.evaluate(parse_cards(text, self.deck, count=self.hand_size))

    def hand_index(self, cards) -> int:
        """Colex index of a hand (the row of ``hand_values``)."""
        ordered = sorted(int(c) for c in cards)
        return int(sum(self._binom[c, i + 1] for i, c in enumerate(ordered)))

    # -- subsets ----------------------------------------------------------
    def best_subset(self, cards, size: int | None = None) -> np.ndarray:
        """The best valid subset of a hand, or the best one of exactly ``size`` cards.

        Cards come back lowest rank first. Raises ValueError if no valid subset
        of that size exists.
        """
        if size is not None and int(size) < 1:
            raise ValueError(f"subset size must be at least 1, got {size}")
        cards = np.asarray(cards, dtype=np.int64)
        pick, _ = best_valid_subset(cards, len(cards), self.deck.suits, 0 if size is None else int(size))
        if pick < 0:
            raise ValueError(f"{format_cards(cards, self.deck)} has no valid {size}-card subset")
        chosen = [int(c) for i, c in enumerate(cards) if pick >> i & 1]
        return np.array(sorted(chosen, key=lambda c: self.deck.rank_of(c)), dtype=np.int64)

    def best_subsets(self, hands) -> np.ndarray:
        """The best valid subset of each hand of an ``(n, hand_size)`` array (checked as
        :meth:`evaluate_batch` checks it): the cards of its value, highest rank first, then -1s.

        >>> ev = get_evaluator()
        >>> ev.best_subsets([parse_cards("7h5d4d3s"), parse_cards("As2h3d4c")]).tolist()
        [[25, 14, 8, -1], [15, 10, 5, 0]]
        """
        hands = np.asarray(hands)
        self.evaluate_batch(hands)  # the same checks and errors
        if hands.ndim == 1:
            hands = hands[None, :]
        out = np.empty(hands.shape, dtype=np.int16)
        _best_subsets(hands, self.deck.suits, out)
        return out

    # -- describing values -------------------------------------------------
    def value_ranks(self, value: int) -> list[int]:
        """Ranks of a value class, highest first (0 = ace)."""
        mask = int(self.value_rank_mask[self._check_value(value)])
        return [r for r in range(self.deck.ranks - 1, -1, -1) if mask >> r & 1]

    def value_rank_names(self, value: int) -> list[str]:
        return [rank_name(r) for r in self.value_ranks(value)]

    def describe(self, value: int) -> str:
        """Poker name of a value class, e.g. ``'three-card 7: 7-4-3'``."""
        names = self.value_rank_names(value)
        return f"{COUNT_WORDS[len(names)]}-card {names[0]}: {'-'.join(names)}"

    def value_of_ranks(self, ranks) -> int:
        """Value class of a rank set (0 = ace), if a hand of this deck can have it."""
        ranks = sorted(set(int(r) for r in ranks))
        # An out-of-range rank would carry into the card-count bits of the code.
        if any(not 0 <= r < self.deck.ranks for r in ranks):
            raise ValueError(f"ranks must be 0..{self.deck.ranks - 1} for the {self.deck.describe()}, got {ranks}")
        mask = sum(1 << r for r in ranks)
        code = ((self.hand_size - len(ranks)) << self.deck.ranks) | mask
        if code not in self._code_to_value:
            raise ValueError(f"no {self.hand_size}-card hand of the {self.deck.describe()} has the value {ranks}")
        return self._code_to_value[code]

    def _check_value(self, value: int) -> int:
        value = int(value)
        if not 0 <= value < self.n_values:
            raise ValueError(f"value class must be 0..{self.n_values - 1}, got {value}")
        return value


@lru_cache(maxsize=16)
def get_evaluator(ranks: int = 13, suits: int = 4, hand_size: int = 4) -> Evaluator:
    """The shared evaluator of a deck and hand size (built once per process)."""
    return Evaluator(Deck(ranks, suits), hand_size)
