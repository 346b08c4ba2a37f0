"""The Badugi evaluator against the rules (DESIGN section 1), full enumeration,
a brute-force evaluator on reduced decks, and PokerKit's whole ordering.

Every check on the full deck looks at all 270,725 four-card hands.
"""

from __future__ import annotations

from functools import lru_cache
from itertools import combinations, permutations
from math import comb

import numpy as np
import pytest

from abstractions.cards import Deck, format_cards, parse_cards
from abstractions.evaluator import get_evaluator


# -- helpers ----------------------------------------------------------------


@lru_cache(maxsize=None)
def all_hands(n_cards: int, hand_size: int) -> np.ndarray:
    """Every hand of ``hand_size`` cards, each row sorted ascending (lex order)."""
    hands = np.array(list(combinations(range(n_cards), hand_size)), dtype=np.int64)
    hands.setflags(write=False)
    return hands


def colex_indices(sorted_hands: np.ndarray) -> np.ndarray:
    """Colex index of each row (rows sorted ascending); the order of ``hand_values``."""
    n_cards = int(sorted_hands.max()) + 1
    hand_size = sorted_hands.shape[1]
    binom = np.array([[comb(n, k) for k in range(hand_size + 1)] for n in range(n_cards + 1)], dtype=np.int64)
    return sum(binom[sorted_hands[:, i], i + 1] for i in range(hand_size))


def brute_force_key(cards, suits: int) -> tuple:
    """Strength of a hand by the rules, as a tuple where smaller is better.

    (-cards in the best valid subset, its ranks highest first): more cards
    first, then the highest rank lower, then the next, and so on.
    """
    best = None
    for size in range(len(cards), 0, -1):
        for subset in combinations(cards, size):
            ranks = [c // suits for c in subset]
            card_suits = [c % suits for c in subset]
            if len(set(ranks)) == size and len(set(card_suits)) == size:
                key = (-size, tuple(sorted(ranks, reverse=True)))
                if best is None or key < best:
                    best = key
        if best is not None:
            return best
    raise AssertionError("a one-card subset is always valid")


def dense_order(keys) -> np.ndarray:
    """Dense rank of each key among the distinct keys, smallest (best) first."""
    distinct = sorted(set(keys))
    position = {key: i for i, key in enumerate(distinct)}
    return np.array([position[key] for key in keys], dtype=np.int64)


def popcount(x: np.ndarray) -> np.ndarray:
    count = np.zeros_like(x)
    for bit in range(16):
        count += (x >> bit) & 1
    return count


def lowest_bits(mask: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` lowest set bits of each mask (the ``k`` lowest ranks)."""
    rest = mask.copy()
    kept = np.zeros_like(mask)
    for _ in range(k):
        low = rest & -rest
        kept |= low
        rest ^= low
    return kept


@pytest.fixture(scope="module")
def ev():
    return get_evaluator()


@pytest.fixture(scope="module")
def full_hands():
    return all_hands(52, 4)


@pytest.fixture(scope="module")
def full_values(ev, full_hands):
    return ev.evaluate_batch(full_hands)


# -- the rules' examples ----------------------------------------------------

DESCRIBED = [
    ("As2h3d4c", "four-card 4: 4-3-2-A"),
    ("A♠2♥3♦4♣", "four-card 4: 4-3-2-A"),
    ("KsQhJdTc", "four-card K: K-Q-J-T"),
    ("A♠2♥3♦4♦", "three-card 3: 3-2-A"),
    ("6h4d3sAh", "three-card 4: 4-3-A"),
    ("7h5d4d3s", "three-card 7: 7-4-3"),
    ("AdAs2d2c", "two-card 2: 2-A"),
    ("QdJd8d4d", "one-card 4: 4"),
    ("5♥3♦5♣3♠", "two-card 5: 5-3"),
    ("K♦Q♦3♦5♠", "two-card 5: 5-3"),
    ("A♦2♦3♠4♠", "two-card 3: 3-A"),
    ("2♣3♣7♥9♠", "three-card 9: 9-7-2"),
    ("A♥2♣3♦3♣", "three-card 3: 3-2-A"),
]

BEATS = [
    ("KsQhJdTc", "A♠2♥3♦4♦"),
    ("8♥7♦5♣4♠", "9♠4♣3♥2♦"),
    ("T♠7♥5♣4♦", "T♥7♦6♣A♠"),
    ("6s4h3d2c", "6s5h4dAc"),
    ("8s7h3d2c", "9s8h4d3c"),
    ("As2h3d4c", "As2h3d5c"),
    ("2s3h4d5c", "AsKhQdJc"),
]

TIES = [
    ("5♥3♦5♣3♠", "K♦Q♦3♦5♠"),
    ("As2h3d4c", "Ac2d3h4s"),
    ("7h5d4d3s", "3h4s7c7d"),
    ("QsJsTs9s", "9h9d9c9s"),
]


@pytest.mark.parametrize("hand, description", DESCRIBED)
def test_rule_examples_describe(ev, hand, description):
    assert ev.describe(ev.evaluate_text(hand)) == description


@pytest.mark.parametrize("better, worse", BEATS)
def test_rule_examples_beats(ev, better, worse):
    assert ev.evaluate_text(better) < ev.evaluate_text(worse)


@pytest.mark.parametrize("first, second", TIES)
def test_rule_examples_tie(ev, first, second):
    assert ev.evaluate_text(first) == ev.evaluate_text(second)


def test_best_and_worst_badugi(ev, full_values):
    best = ev.evaluate_text("As2h3d4c")
    worst = ev.evaluate_text("KsQhJdTc")
    assert best == 0 == full_values.min()
    badugis = full_values[ev.value_card_count[full_values] == 4]
    assert worst == badugis.max() == 714
    # More cards beat fewer: the worst badugi beats every three-card hand.
    assert np.all(full_values[ev.value_card_count[full_values] < 4] > worst)


# -- counts by full enumeration -------------------------------------------


def test_hand_counts(ev, full_hands, full_values):
    assert len(full_hands) == comb(52, 4) == 270_725
    counts = np.bincount(ev.value_card_count[full_values], minlength=5)
    assert counts.tolist() == [0, 2_873, 96_252, 154_440, 17_160]


def test_value_counts(ev, full_values):
    assert ev.n_values == 1_092
    assert np.bincount(ev.value_card_count, minlength=5).tolist() == [0, 13, 78, 286, 715]
    # Every value class is reached by some hand.
    assert np.array_equal(np.unique(full_values), np.arange(ev.n_values))


def test_hands_up_to_suit_permutation(full_hands):
    ranks, suits = full_hands // 4, full_hands % 4
    forms = []
    for perm in permutations(range(4)):
        relabelled = np.sort(ranks * 4 + np.array(perm)[suits], axis=1)
        forms.append(colex_indices(relabelled))
    canonical = np.min(np.stack(forms), axis=0)
    assert len(np.unique(canonical)) == 16_432


def test_values_are_invariant_under_suit_permutation(ev, full_hands, full_values):
    ranks, suits = full_hands // 4, full_hands % 4
    for perm in [(1, 0, 2, 3), (3, 2, 1, 0), (1, 2, 3, 0)]:
        relabelled = ranks * 4 + np.array(perm)[suits]
        assert np.array_equal(ev.evaluate_batch(relabelled), full_values)


# -- structure of the value classes ----------------------------------------


def test_value_classes_are_sorted_best_first(ev):
    keys = [(-int(ev.value_card_count[v]), tuple(ev.value_ranks(v))) for v in range(ev.n_values)]
    assert keys == sorted(keys)
    assert len(set(keys)) == ev.n_values


def test_hand_values_table_is_colex(ev, full_hands, full_values):
    assert np.array_equal(ev.hand_values[colex_indices(full_hands)], full_values)
    rng = np.random.default_rng(7)
    for row in rng.choice(len(full_hands), 200, replace=False):
        cards = rng.permutation(full_hands[row])
        assert ev.hand_index(cards) == colex_indices(full_hands[row : row + 1])[0]
        assert ev.evaluate(cards) == full_values[row]


def test_evaluate_batch_ignores_card_order(ev, full_hands, full_values):
    rng = np.random.default_rng(3)
    shuffled = rng.permuted(full_hands, axis=1)
    assert np.array_equal(ev.evaluate_batch(shuffled), full_values)


# -- the greedy property on every hand --------------------------------------


def test_greedy_property_every_hand(ev, full_hands, full_values):
    """Best k-card valid subset == the k lowest ranks of the best valid subset.

    Computed independently of the evaluator: every one of the 15 subsets of
    every hand, as rank bitmasks. Among equal-size rank sets a smaller bitmask
    is a better set (the highest differing rank decides).
    """
    ranks, suits = full_hands // 4, full_hands % 4
    n = len(full_hands)
    no_subset = np.int64(1 << 20)
    best_of_size = np.full((5, n), no_subset, dtype=np.int64)
    for pick in range(1, 16):
        positions = [i for i in range(4) if pick >> i & 1]
        rank_bits = np.zeros(n, dtype=np.int64)
        suit_bits = np.zeros(n, dtype=np.int64)
        for i in positions:
            rank_bits |= 1 << ranks[:, i]
            suit_bits |= 1 << suits[:, i]
        size = len(positions)
        valid = (popcount(rank_bits) == size) & (popcount(suit_bits) == size)
        best_of_size[size] = np.minimum(best_of_size[size], np.where(valid, rank_bits, no_subset))

    value_size = np.zeros(n, dtype=np.int64)
    for size in range(1, 5):
        value_size[best_of_size[size] < no_subset] = size
    value_mask = best_of_size[value_size, np.arange(n)]

    # The evaluator's value of every hand is this best subset's rank set.
    assert np.array_equal(ev.value_card_count[full_values], value_size)
    assert np.array_equal(ev.value_rank_mask[full_values], value_mask)

    checked = 0
    for k in range(1, 4):
        has_k = value_size >= k
        assert np.array_equal(best_of_size[k][has_k], lowest_bits(value_mask[has_k], k))
        checked += int(has_k.sum())
    assert checked == 270_725 + 267_852 + 171_600  # hands with a k-card subset, k = 1, 2, 3


def test_greedy_property_through_best_subset(ev, full_hands, full_values):
    rng = np.random.default_rng(11)
    for row in rng.choice(len(full_hands), 2_000, replace=False):
        cards = rng.permutation(full_hands[row])
        value_cards = ev.best_subset(cards)
        value_ranks = [c // 4 for c in value_cards]
        assert sorted(value_ranks, reverse=True) == ev.value_ranks(full_values[row])
        for k in range(1, len(value_cards) + 1):
            kept = ev.best_subset(cards, size=k)
            assert [c // 4 for c in kept] == value_ranks[:k]


# -- PokerKit's whole ordering (test-only reference) ------------------------


def pokerkit_strength(hands: np.ndarray) -> np.ndarray:
    """PokerKit's BadugiHand entry index per hand, oriented so smaller is better."""
    pokerkit = pytest.importorskip("pokerkit")
    BadugiHand, Card = pokerkit.BadugiHand, pokerkit.Card
    cards = [next(iter(Card.parse(format_cards([c])))) for c in range(52)]
    # PokerKit orders low hands by reversed entries: find the direction, don't assume it.
    strong, weak = BadugiHand("Ac2d3h4s"), BadugiHand("Kc")
    assert strong > weak
    sign = 1 if strong.entry.index < weak.entry.index else -1
    return np.array(
        [sign * BadugiHand.from_game([cards[c] for c in hand]).entry.index for hand in hands.tolist()],
        dtype=np.int64,
    )


def test_whole_ordering_matches_pokerkit(ev, full_hands, full_values):
    """Same equivalence classes and the same order of classes, on all hands."""
    reference = pokerkit_strength(full_hands)
    _, reference_order = np.unique(reference, return_inverse=True)
    # Our values are dense, best first, so they must equal PokerKit's dense order.
    assert np.array_equal(reference_order.ravel(), full_values)


# -- a brute-force evaluator on reduced decks -------------------------------

REDUCED = [
    # (ranks, suits, hand_size, n_values)
    (6, 3, 2, 21),  # 15 two-card + 6 one-card
    (6, 3, 3, 41),  # 20 + 15 + 6
    (4, 4, 4, 15),  # 1 + 4 + 6 + 4
    (13, 4, 1, 13),
    (13, 4, 2, 91),  # 78 + 13
    (3, 2, 2, 6),  # 3 + 3
]


@pytest.mark.parametrize("ranks, suits, hand_size, n_values", REDUCED)
def test_matches_brute_force_on_reduced_decks(ranks, suits, hand_size, n_values):
    ev = get_evaluator(ranks, suits, hand_size)
    hands = all_hands(ranks * suits, hand_size)
    expected = dense_order([brute_force_key(hand, suits) for hand in hands.tolist()])
    assert ev.n_values == n_values == expected.max() + 1
    assert np.array_equal(ev.evaluate_batch(hands), expected)
    assert np.array_equal(ev.hand_values[colex_indices(hands)], expected)


@pytest.mark.parametrize("hand_size", [1, 2, 3, 4])
def test_full_deck_sample_matches_brute_force(ev, hand_size):
    evaluator = get_evaluator(13, 4, hand_size)
    rng = np.random.default_rng(hand_size)
    hands = np.array([rng.choice(52, hand_size, replace=False) for _ in range(3_000)])
    keys = [brute_force_key(hand, 4) for hand in hands.tolist()]
    values = evaluator.evaluate_batch(hands)
    for key, value in zip(keys, values):
        assert (-int(evaluator.value_card_count[value]), tuple(evaluator.value_ranks(value))) == key


def test_reduced_deck_notation(ev):
    small = get_evaluator(6, 3, 3)
    assert small.describe(small.evaluate_text("6s5h4d")) == "three-card 6: 6-5-4"
    assert small.evaluate_text("As2h3d") == 0
    with pytest.raises(ValueError, match="7s"):
        small.evaluate_text("As2h7s")
    with pytest.raises(ValueError, match="Ac"):
        small.evaluate_text("As2hAc")


# -- best_subset, describe, value_ranks, value_of_ranks ---------------------


@pytest.mark.parametrize(
    "hand, size, kept",
    [
        ("7h5d4d3s", None, "3s4d7h"),
        ("7h5d4d3s", 3, "3s4d7h"),
        ("7h5d4d3s", 2, "3s4d"),
        ("7h5d4d3s", 1, "3s"),
        ("KsQhJdTc", None, "TcJdQhKs"),
        ("KsQhJdTc", 2, "TcJd"),
        ("AdAs2d2c", None, "As2d"),
        ("QdJd8d4d", None, "4d"),
        ("A♦2♦3♠4♠", None, "Ad3s"),
    ],
)
def test_best_subset(ev, hand, size, kept):
    cards = parse_cards(hand)
    assert format_cards(ev.best_subset(cards, size)) == kept


@pytest.mark.parametrize("hand, size", [("7h5d4d3s", 4), ("QdJd8d4d", 2), ("7h5d4d3s", 0), ("7h5d4d3s", -1)])
def test_best_subset_without_such_subset(ev, hand, size):
    with pytest.raises(ValueError):
        ev.best_subset(parse_cards(hand), size)


def test_value_ranks_and_names(ev):
    assert ev.value_ranks(0) == [3, 2, 1, 0]
    assert ev.value_rank_names(0) == ["4", "3", "2", "A"]
    last = ev.n_values - 1
    assert ev.value_ranks(last) == [12]
    assert ev.describe(last) == "one-card K: K"
    assert ev.describe(714) == "four-card K: K-Q-J-T"
    assert ev.describe(715) == "three-card 3: 3-2-A"


@pytest.mark.parametrize("value", [-1, 1_092, 10**9])
def test_bad_value_class(ev, value):
    with pytest.raises(ValueError):
        ev.value_ranks(value)
    with pytest.raises(ValueError):
        ev.describe(value)


def test_value_of_ranks_round_trip(ev):
    for value in range(ev.n_values):
        assert ev.value_of_ranks(ev.value_ranks(value)) == value
    assert ev.value_of_ranks([0, 1, 2, 3]) == 0
    assert ev.value_of_ranks([6, 3, 2]) == ev.evaluate_text("7h5d4d3s")
    assert ev.value_of_ranks([12]) == ev.n_values - 1


@pytest.mark.parametrize("ranks", [[], [0, 1, 2, 3, 4], [13], [13, 0], [-1], [0, 14, 2]])
def test_value_of_ranks_errors(ev, ranks):
    with pytest.raises(ValueError):
        ev.value_of_ranks(ranks)


def test_value_of_ranks_reduced_deck():
    small = get_evaluator(6, 3, 2)
    assert small.value_of_ranks([1, 0]) == 0
    for ranks in ([0, 1, 2], [6], [5, 6]):
        with pytest.raises(ValueError):
            small.value_of_ranks(ranks)


# -- evaluate_batch input checks -------------------------------------------


@pytest.mark.parametrize(
    "hands, message",
    [
        (np.zeros((3, 3), dtype=np.int64), "4 cards"),
        (np.zeros((3, 5), dtype=np.int64), "4 cards"),
        (np.arange(24).reshape(2, 3, 4), "4 cards"),
        (np.array([[0, 1, 2, 2]]), "duplicate"),
        (np.array([[0, 1, 2, 3], [4, 5, 6, 7], [9, 8, 9, 10]]), "duplicate"),
        (np.array([[0, 1, 2, 52]]), "0..51"),
        (np.array([[-1, 1, 2, 3]]), "0..51"),
        (np.array([[0.0, 1.0, 2.0, 3.0]]), "integer"),
    ],
)
def test_evaluate_batch_rejects_bad_input(ev, hands, message):
    with pytest.raises(ValueError, match=message):
        ev.evaluate_batch(hands)


def test_evaluate_batch_reduced_deck_range():
    small = get_evaluator(6, 3, 3)
    assert small.evaluate_batch([[0, 1, 17]]).shape == (1,)
    with pytest.raises(ValueError, match="0..17"):
        small.evaluate_batch([[0, 1, 18]])


def test_evaluate_batch_accepts_lists_and_empty(ev):
    assert ev.evaluate_batch([[0, 5, 10, 15]]).tolist() == [0]
    assert ev.evaluate_batch(np.empty((0, 4), dtype=np.int64)).shape == (0,)
    assert ev.evaluate([15, 10, 5, 0]) == 0


def test_evaluator_rejects_bad_configuration():
    with pytest.raises(ValueError):
        get_evaluator(13, 4, 5)
    with pytest.raises(ValueError):
        get_evaluator(13, 4, 0)
    with pytest.raises(ValueError):
        get_evaluator(14, 4, 4)
    with pytest.raises(ValueError):
        get_evaluator(1, 2, 4)
    assert Deck(1, 2).n_cards == 2
