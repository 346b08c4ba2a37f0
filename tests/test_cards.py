"""Card notation: round trips and errors, by property tests (Hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from abstractions.cards import (
    FULL_DECK,
    RANK_CHARS,
    SUIT_CHARS,
    SUIT_SYMBOLS,
    Deck,
    card_name,
    format_cards,
    parse_card,
    parse_cards,
)

SEPARATORS = " ,\t\n\r;"
OUTLINE_SUITS = "♤♡♢♧"

decks = st.builds(Deck, st.integers(1, 13), st.integers(1, 4))
separators = st.text(alphabet=SEPARATORS, max_size=3)


def names_token(message: str, token: str) -> bool:
    """Whether an error message names ``token`` (as written or quoted by repr)."""
    return repr(token) in message or f"'{token}'" in message


@st.composite
def deck_and_cards(draw, max_cards: int = 12):
    deck = draw(decks)
    cards = draw(st.lists(st.integers(0, deck.n_cards - 1), unique=True, max_size=min(max_cards, deck.n_cards)))
    return deck, cards


@st.composite
def written_card(draw, deck: Deck, card: int) -> str:
    """One card in any accepted spelling: case, '10' for T, letters or symbols."""
    rank, suit = deck.rank_of(card), deck.suit_of(card)
    rank_text = RANK_CHARS[rank]
    if rank_text == "T" and draw(st.booleans()):
        rank_text = "10"
    rank_text = draw(st.sampled_from([rank_text.upper(), rank_text.lower()]))
    suit_text = draw(
        st.sampled_from([SUIT_CHARS[suit], SUIT_CHARS[suit].upper(), SUIT_SYMBOLS[suit], OUTLINE_SUITS[suit]])
    )
    return rank_text + suit_text


@st.composite
def written_hand(draw, deck: Deck, cards: list[int]) -> str:
    parts = [draw(separators)]
    for card in cards:
        parts.append(draw(written_card(deck, card)))
        parts.append(draw(separators))
    return "".join(parts)


# -- round trips -------------------------------------------------------------


@given(deck_and_cards(), st.booleans(), separators)
def test_format_parse_round_trip(deck_cards, unicode, sep):
    deck, cards = deck_cards
    text = format_cards(cards, deck, unicode=unicode, sep=sep)
    assert parse_cards(text, deck).tolist() == cards
    assert parse_cards(text, deck, count=len(cards)).tolist() == cards


@given(st.data())
def test_any_spelling_parses(data):
    deck, cards = data.draw(deck_and_cards())
    text = data.draw(written_hand(deck, cards))
    parsed = parse_cards(text, deck)
    assert parsed.dtype == np.int64
    assert parsed.tolist() == cards
    # Formatting gives the one canonical spelling.
    assert format_cards(parsed, deck) == "".join(card_name(c, deck) for c in cards)


@given(deck_and_cards(max_cards=1))
def test_parse_card_single(deck_cards):
    deck, cards = deck_cards
    for card in cards:
        assert parse_card(card_name(card, deck), deck) == card
        assert parse_card(card_name(card, deck, unicode=True), deck) == card


@pytest.mark.parametrize(
    "text, expected",
    [
        ("As2h3d4c", "As2h3d4c"),
        ("A♠2♥3♦4♣", "As2h3d4c"),
        ("as 2H, 3♦ 10c", "As2h3dTc"),
        ("10d", "Td"),
        ("10D,tc;  kS\tqh\n", "TdTcKsQh"),
        ("A♤2♡3♢4♧", "As2h3d4c"),
        ("", ""),
        (" , ", ""),
    ],
)
def test_examples(text, expected):
    assert format_cards(parse_cards(text)) == expected


def test_unicode_format():
    assert format_cards(parse_cards("As2h3d4c"), unicode=True) == "A♠2♥3♦4♣"
    assert format_cards(parse_cards("Td Js"), sep=" ") == "Td Js"


def test_card_numbers_depend_on_deck():
    small = Deck(6, 3)
    assert parse_cards("As Ah Ad 2s 6d", small).tolist() == [0, 1, 2, 3, 17]
    assert parse_cards("As Ah Ad Ac 2s Kc").tolist() == [0, 1, 2, 3, 4, 51]


# -- errors --------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, deck, count, token",
    [
        ("Xs", FULL_DECK, None, "Xs"),
        ("A", FULL_DECK, None, "A"),
        ("Az", FULL_DECK, None, "Az"),
        ("As 2h Xs", FULL_DECK, None, "Xs"),
        ("As2h1s", FULL_DECK, None, "1s"),
        ("10x", FULL_DECK, None, "10x"),
        ("As 10", FULL_DECK, None, "10"),
        ("As2h3d4", FULL_DECK, None, "4"),
        ("AsAs", FULL_DECK, None, "As"),
        ("As 2h A♠", FULL_DECK, None, "A♠"),
        ("as AS", FULL_DECK, None, "AS"),
        ("Td 10d", FULL_DECK, None, "10d"),
        ("As 7h", Deck(6, 3), None, "7h"),
        ("As 2c", Deck(6, 3), None, "2c"),
        ("Ks", Deck(12, 4), None, "Ks"),
        ("Ah", Deck(13, 1), None, "Ah"),
    ],
)
def test_bad_token_is_named(text, deck, count, token):
    with pytest.raises(ValueError) as info:
        parse_cards(text, deck, count)
    assert names_token(str(info.value), token)


@pytest.mark.parametrize("text", ["AsAs", "As 2h as", "A♠ As", "Td10d"])
def test_duplicate(text):
    with pytest.raises(ValueError, match="duplicate"):
        parse_cards(text)


@pytest.mark.parametrize("text", ["As2h3d", "As2h3d4c5s", "", "As"])
def test_wrong_count(text):
    with pytest.raises(ValueError, match="expected 4 cards"):
        parse_cards(text, count=4)
    assert len(parse_cards(text)) == len(text) // 2


@pytest.mark.parametrize("bad", [None, 5, b"As2h", ["As"]])
def test_text_must_be_text(bad):
    with pytest.raises(ValueError):
        parse_cards(bad)


@pytest.mark.parametrize("ranks, suits", [(0, 4), (14, 4), (13, 0), (13, 5), (-1, 4), (13.0, 4)])
def test_bad_deck(ranks, suits):
    with pytest.raises(ValueError):
        Deck(ranks, suits)


@pytest.mark.parametrize("card, deck", [(52, FULL_DECK), (-1, FULL_DECK), (18, Deck(6, 3))])
def test_card_name_out_of_deck(card, deck):
    with pytest.raises(ValueError):
        card_name(card, deck)
    with pytest.raises(ValueError):
        format_cards([0, card], deck)


def _is_rank_start(char: str) -> bool:
    return char.upper() in RANK_CHARS or char == "1"


def _is_suit(char: str) -> bool:
    return char.lower() in SUIT_CHARS or char in SUIT_SYMBOLS or char in OUTLINE_SUITS


any_char = st.characters(exclude_categories=("Cs",))
bad_rank_chars = any_char.filter(lambda c: not _is_rank_start(c) and c not in SEPARATORS)
bad_suit_chars = any_char.filter(lambda c: not _is_suit(c))


@st.composite
def bad_token(draw, deck: Deck, cards: list[int]):
    """A token that must be rejected: (token, is a duplicate, must end the text)."""
    kind = draw(st.sampled_from(["rank", "suit", "lone_rank", "outside", "duplicate"]))
    suit_char = draw(st.sampled_from(SUIT_CHARS + SUIT_SYMBOLS))
    rank_text = draw(st.sampled_from(list(RANK_CHARS) + ["10"]))
    if kind == "rank":
        return draw(bad_rank_chars) + suit_char, False, False
    if kind == "suit":
        return rank_text + draw(bad_suit_chars), False, False
    if kind == "lone_rank":
        # Only at the very end of the text is a rank with no suit a token of its own.
        return rank_text, False, True
    if kind == "outside" and (deck.ranks < 13 or deck.suits < 4):
        rank = draw(st.integers(0, 12))
        suit = draw(st.integers(0, 3))
        if rank < deck.ranks and suit < deck.suits:
            rank, suit = (12, suit) if deck.ranks < 13 else (rank, 3)
        return RANK_CHARS[rank] + draw(st.sampled_from([SUIT_CHARS[suit], SUIT_SYMBOLS[suit]])), False, False
    if kind == "duplicate" and cards:
        return draw(written_card(deck, draw(st.sampled_from(cards)))), True, False
    return "X" + suit_char, False, False


@given(st.data())
@settings(max_examples=300)
def test_bad_token_in_text_is_named(data):
    """Valid cards, one bad token, then anything card-like: the error names that token."""
    deck, cards = data.draw(deck_and_cards(max_cards=6))
    token, duplicate, at_end = data.draw(bad_token(deck, cards))
    before = data.draw(written_hand(deck, cards))
    after = ""
    if not at_end:
        later = data.draw(st.lists(st.integers(0, deck.n_cards - 1), max_size=3))
        after = data.draw(written_hand(deck, later))
    text = before + token + after
    with pytest.raises(ValueError) as info:
        parse_cards(text, deck)
    message = str(info.value)
    assert names_token(message, token), (text, message)
    assert ("duplicate" in message) == duplicate


@given(any_text=st.text(max_size=20), deck=decks, count=st.none() | st.integers(0, 5))
@settings(max_examples=500)
@example(any_text="10", deck=FULL_DECK, count=None)
@example(any_text="1", deck=FULL_DECK, count=None)
@example(any_text="♠", deck=FULL_DECK, count=None)
@example(any_text="As\x00", deck=FULL_DECK, count=None)
def test_any_text_parses_or_raises_value_error(any_text, deck, count):
    """Arbitrary text: either cards of the deck, or a ValueError naming a piece of the text."""
    try:
        cards = parse_cards(any_text, deck, count)
    except ValueError as error:
        message = str(error)
        if message.startswith("expected"):
            assert count is not None
            return
        pieces = {any_text[i:j] for i in range(len(any_text)) for j in range(i + 1, min(i + 4, len(any_text)) + 1)}
        assert any(names_token(message, piece) for piece in pieces), (any_text, message)
    else:
        assert len(set(cards.tolist())) == len(cards)
        assert all(0 <= c < deck.n_cards for c in cards)
        if count is not None:
            assert len(cards) == count
