"""Card notation for Badugi decks, full or reduced.

A deck has ``ranks`` ranks from the ace upward (A low: A,2,...,9,T,J,Q,K) and
``suits`` suits in the order s, h, d, c. Reduced decks take the first ranks and
the first suits. A card is the integer ``rank * suits + suit`` with rank 0 the
ace, so card integers depend on the deck.

Notation accepted by :func:`parse_cards`: ``As2h3d4c``, ``A♠2♥3♦4♣``, ``10d``
(same as ``Td``), any case, spaces and commas between cards.

>>> deck = Deck()
>>> format_cards(parse_cards("as 2H, 3♦ 10c", deck), deck)
'As2h3dTc'
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "shdc"
SUIT_SYMBOLS = "♠♥♦♣"
# Outline suit symbols are read too; they are common in copied text.
_SUIT_ALIASES = {"♤": 0, "♡": 1, "♢": 2, "♧": 3}
_SEPARATORS = " ,\t\n\r;"
MAX_RANKS = len(RANK_CHARS)
MAX_SUITS = len(SUIT_CHARS)


@dataclass(frozen=True)
class Deck:
    """A deck of ``ranks`` ranks (ace low) and ``suits`` suits."""

    ranks: int = 13
    suits: int = 4

    def __post_init__(self) -> None:
        if not isinstance(self.ranks, int) or not 1 <= self.ranks <= MAX_RANKS:
            raise ValueError(f"ranks must be an integer from 1 to {MAX_RANKS}, got {self.ranks!r}")
        if not isinstance(self.suits, int) or not 1 <= self.suits <= MAX_SUITS:
            raise ValueError(f"suits must be an integer from 1 to {MAX_SUITS}, got {self.suits!r}")

    @property
    def n_cards(self) -> int:
        return self.ranks * self.suits

    def card(self, rank: int, suit: int) -> int:
        return rank * self.suits + suit

    def rank_of(self, card: int) -> int:
        return int(card) // self.suits

    def suit_of(self, card: int) -> int:
        return int(card) % self.suits

    def describe(self) -> str:
        return f"{self.ranks}-rank, {self.suits}-suit deck"


FULL_DECK = Deck()


def _rank_index(token: str) -> int | None:
    if token == "10":
        return RANK_CHARS.index("T")
    upper = token.upper()
    if len(upper) == 1 and upper in RANK_CHARS:
        return RANK_CHARS.index(upper)
    return None


def _suit_index(char: str) -> int | None:
    lower = char.lower()
    if lower in SUIT_CHARS:
        return SUIT_CHARS.index(lower)
    if char in SUIT_SYMBOLS:
        return SUIT_SYMBOLS.index(char)
    return _SUIT_ALIASES.get(char)


def _tokens(text: str) -> list[str]:
    """Split text into card tokens (rank then suit); a bad token is kept whole."""
    tokens = []
    i, n = 0, len(text)
    while i < n:
        if text[i] in _SEPARATORS:
            i += 1
            continue
        # A rank is '10' or one character; then one suit character.
        rank_len = 2 if text.startswith("10", i) else 1
        end = min(i + rank_len + 1, n)
        # A bad token is still one card's width, so the error names just it.
        tokens.append(text[i:end])
        i = end
    return tokens


def parse_card(token: str, deck: Deck = FULL_DECK) -> int:
    """One card from its token, e.g. ``'Td'``, ``'10♦'``; ValueError names the token."""
    rank_text, suit_text = token[:-1], token[-1:]
    rank = _rank_index(rank_text)
    suit = _suit_index(suit_text) if suit_text else None
    if rank is None or suit is None or not token:
        raise ValueError(f"bad card {token!r}: expected a rank (A,2-9,T/10,J,Q,K) then a suit (s,h,d,c or ♠♥♦♣)")
    if rank >= deck.ranks or suit >= deck.suits:
        raise ValueError(f"card {token!r} is not in the {deck.describe()}")
    return deck.card(rank, suit)


def parse_cards(text: str, deck: Deck = FULL_DECK, count: int | None = None) -> np.ndarray:
    """Cards in ``text`` as an int array, in the order written.

    Raises ValueError naming the bad token for an unknown rank or suit, a
    duplicate card, a card outside ``deck``, or (with ``count``) the wrong number
    of cards.
    """
    if not isinstance(text, str):
        raise ValueError(f"cards must be given as text, got {type(text).__name__}")
    cards = []
    seen: dict[int, str] = {}
    for token in _tokens(text):
        card = parse_card(token, deck)
        if card in seen:
            raise ValueError(f"duplicate card {token!r} in {text.strip()!r}")
        seen[card] = token
        cards.append(card)
    if count is not None and len(cards) != count:
        raise ValueError(f"expected {count} cards, got {len(cards)} in {text.strip()!r}")
    return np.array(cards, dtype=np.int64)


def card_name(card: int, deck: Deck = FULL_DECK, unicode: bool = False) -> str:
    if not 0 <= int(card) < deck.n_cards:
        raise ValueError(f"card number {card} is outside the {deck.describe()}")
    suits = SUIT_SYMBOLS if unicode else SUIT_CHARS
    return RANK_CHARS[deck.rank_of(card)] + suits[deck.suit_of(card)]


def format_cards(cards, deck: Deck = FULL_DECK, unicode: bool = False, sep: str = "") -> str:
    """Cards as text, e.g. ``'As2h3d4c'`` (or ``'A♠2♥3♦4♣'`` with ``unicode``)."""
    return sep.join(card_name(int(c), deck, unicode) for c in cards)


def rank_name(rank: int) -> str:
    return RANK_CHARS[int(rank)]


class ParsedHands(NamedTuple):
    """Hands read one per line by :func:`parse_hands`.

    ``cards``: ``(n, count)`` int8 card numbers of the lines that parsed, in the order written;
    ``lines``: the index of each of those lines in the input; ``errors``: ``(index, message)``
    of each line that did not parse (the message is :func:`parse_cards`'s).
    """

    cards: np.ndarray
    lines: np.ndarray
    errors: list


# Byte lookups of the compact notation (``As2h3d4c``, any case): -1 where a byte is no rank/suit.
_RANK_OF_BYTE = np.full(256, -1, np.int16)
_SUIT_OF_BYTE = np.full(256, -1, np.int16)
for _i, _char in enumerate(RANK_CHARS):
    _RANK_OF_BYTE[ord(_char)] = _RANK_OF_BYTE[ord(_char.lower())] = _i
for _i, _char in enumerate(SUIT_CHARS):
    _SUIT_OF_BYTE[ord(_char)] = _SUIT_OF_BYTE[ord(_char.upper())] = _i
# A suit symbol is one character, like its letter, so replacing it keeps every token in place.
_SYMBOLS_AS_LETTERS = str.maketrans({**{s: SUIT_CHARS[i] for i, s in enumerate(SUIT_SYMBOLS)},
                                     **{s: SUIT_CHARS[i] for s, i in _SUIT_ALIASES.items()}})


def parse_hands(lines: list[str], deck: Deck = FULL_DECK, count: int = 4) -> ParsedHands:
    """Each of ``lines`` as one hand of ``count`` cards, in bulk.

    The same cards and errors as :func:`parse_cards` line by line: lines written compactly
    (``As2h3d4c``, ``A♠2♥3♦4♣``) are read with array lookups all at once; any other spelling,
    and every line in error, goes through :func:`parse_cards`.

    >>> parsed = parse_hands(["As2h3d4c", "7h 5d 4d 3s", "As2h3d", "KcKc2s3d"])
    >>> parsed.cards.tolist(), parsed.lines.tolist()
    ([[0, 5, 10, 15], [25, 18, 14, 8]], [0, 1])
    >>> parsed.errors
    [(2, "expected 4 cards, got 3 in 'As2h3d'"), (3, "duplicate card 'Kc' in 'KcKc2s3d'")]
    """
    width = 2 * count
    compact = [text if text.isascii() else text.translate(_SYMBOLS_AS_LETTERS)
               for text in (line.strip(_SEPARATORS) for line in lines)]
    fixed = np.array([len(text) == width for text in compact], dtype=bool)
    cards = np.full((len(lines), count), -1, np.int16)
    ok = np.zeros(len(lines), dtype=bool)
    if fixed.any():
        # A non-ASCII character becomes one '?' (no rank, no suit): every line keeps its width.
        text = "".join(itertools.compress(compact, fixed)).encode("ascii", errors="replace")
        chars = np.frombuffer(text, np.uint8).reshape(-1, width)
        rank, suit = _RANK_OF_BYTE[chars[:, 0::2]], _SUIT_OF_BYTE[chars[:, 1::2]]
        valid = ((rank >= 0) & (rank < deck.ranks) & (suit >= 0) & (suit < deck.suits)).all(axis=1)
        numbers = rank * deck.suits + suit
        ordered = np.sort(numbers, axis=1)
        valid &= ~(ordered[:, 1:] == ordered[:, :-1]).any(axis=1)
        cards[fixed] = numbers
        ok[np.flatnonzero(fixed)[valid]] = True
    errors = []
    for index in np.flatnonzero(~ok):
        try:
            cards[index] = parse_cards(lines[index], deck, count)
            ok[index] = True
        except ValueError as err:
            errors.append((int(index), str(err)))
    return ParsedHands(cards[ok].astype(np.int8), np.flatnonzero(ok), errors)


def format_hands(hands: np.ndarray, deck: Deck = FULL_DECK) -> list[str]:
    """Each row of card numbers as text, like :func:`format_cards`, in bulk; a row may end in
    -1s (no card), which are left out.

    >>> format_hands(np.array([[0, 5, 10, 15], [25, 18, -1, -1]]))
    ['As2h3d4c', '7h5d']
    """
    hands = np.asarray(hands)
    n, count = hands.shape
    if hands.size and (hands.max() >= deck.n_cards or (hands < -1).any()):
        raise ValueError(f"card numbers must be 0..{deck.n_cards - 1} (or -1, no card) for the {deck.describe()}")
    rank_bytes = np.frombuffer(RANK_CHARS.encode(), np.uint8)
    suit_bytes = np.frombuffer(SUIT_CHARS.encode(), np.uint8)
    present = hands >= 0
    chars = np.zeros((n, 2 * count), np.uint8)
    chars[:, 0::2] = np.where(present, rank_bytes[np.where(present, hands, 0) // deck.suits], 0)
    chars[:, 1::2] = np.where(present, suit_bytes[np.where(present, hands, 0) % deck.suits], 0)
    # Fixed-width byte strings drop their trailing zero bytes: a short row comes back short.
    return np.ascontiguousarray(chars).view(f"S{2 * count}").ravel().astype(f"U{2 * count}").tolist()
