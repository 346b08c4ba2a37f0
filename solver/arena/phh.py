"""Hand histories in the Poker Hand History format (PHH), heads-up fixed-limit Badugi.

A ``.phh`` file holds one hand, a ``.phhs`` file several (sections ``[1]``,
``[2]``, ...); both are TOML. The variant is ``FB`` (fixed-limit Badugi, the
code PokerKit reads): triple draw, one 52-card deck, blinds, a small bet for the
first two betting rounds and a big bet for the last two. As PokerKit plays two
players, ``p1`` is the big blind and ``p2`` the button (it reverses the blinds
heads-up), so ``blinds_or_straddles = [1, 2]`` has p2 post the small blind.

Actions (one string each): ``d dh p1 As2h3d4c`` deals cards (``????`` for cards
not known), ``p2 cbr 4`` bets or raises to 4 in the round, ``p1 cc`` checks or
calls, ``p1 f`` folds, ``p1 sd 7s8h`` discards those cards (``p1 sd`` stands
pat), ``p1 sm As2h3d4c`` shows at the showdown. A draw round lists both
discards (big blind first) and then both deals, the order PokerKit plays.

Games other than PokerKit's (another deck, hand size, number of draws or bet
sizes) are written with the field ``_badugi_game``, an inline table of the
game's settings; this project reads them back, PokerKit does not.

Chips are integers in the file: amounts are written in a unit that makes the
blinds and bets whole numbers (the small blind, for the usual 1/2 and 2/4).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from abstractions.cards import Deck, format_cards, parse_cards

from ..game.config import GameConfig

HOLE = "dh"
VARIANT = "FB"
BUTTON, BIG_BLIND = 0, 1
PHH_PLAYER = {BIG_BLIND: "p1", BUTTON: "p2"}   # PokerKit's heads-up order
SEAT_OF = {"p1": BIG_BLIND, "p2": BUTTON}
GAME_FIELDS = ("ranks", "suits", "hand_size", "draws", "bets")


class PHHError(ValueError):
    """A hand history this project cannot read: the message names the file, the hand and the line."""


@dataclass
class Move:
    """One action of a hand history, as written: a betting action (``fold``, ``check/call``,
    ``bet/raise``), a draw (the cards thrown, ``None`` for each one not known), a deal, or a
    showdown; ``line`` is its line in the file."""

    seat: int
    kind: str                      # "f", "cc", "cbr", "sd", "dh", "sm"
    cards: list[int | None] = field(default_factory=list)
    amount: float | None = None    # cbr: the total the bettor has put in this round, in big blinds
    line: int = 0
    text: str = ""
    index: int = 0                 # its place among the hand's actions (from 1)


@dataclass
class HandHistory:
    """One heads-up hand: the game, the players' names (button first), the moves in order."""

    config: GameConfig
    players: list[str]
    moves: list[Move]
    source: str = ""               # "file.phhs [3]"
    fields: dict = field(default_factory=dict)

    def where(self, line: int = 0) -> str:
        return f"{self.source} line {line}" if line else self.source

    def at(self, move: "Move") -> str:
        """Where a move is, by its place among the hand's actions (PokerKit writes them all on
        one line): ``action 7 ('p1 cbr 4')``."""
        return f"action {move.index} ({move.text!r})"


# ---------------------------------------------------------------- writing

def chip_unit(config: GameConfig) -> float:
    """The amount of one chip in the file, in big blinds: the largest 1/k of the small blind that
    makes the blinds and every bet whole numbers."""
    amounts = [config.small_blind, config.big_blind, *config.bets]
    for k in range(1, 1001):
        unit = config.small_blind / k
        if all(abs(a / unit - round(a / unit)) < 1e-9 for a in amounts):
            return unit
    raise ValueError(f"the blinds and bets of {config.describe()} have no common chip unit")


def is_pokerkit_game(config: GameConfig) -> bool:
    """Whether PokerKit's fixed-limit Badugi plays this game: one 52-card deck, 4-card hands,
    three draws, the first two rounds' bets equal and the last two twice those, cap 4 at most."""
    b = config.bets
    return ((config.ranks, config.suits, config.hand_size, config.draws) == (13, 4, 4, 3)
            and b[0] == b[1] and b[2] == b[3] and config.cap <= 4)


def _toml_value(value) -> str:
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{k} = {_toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def hand_text(config: GameConfig, players: list[str], actions: list[str], extra: dict | None = None) -> str:
    """The PHH text of one hand whose ``actions`` are already written (see :class:`HandWriter`)."""
    unit = chip_unit(config)
    chips = lambda x: int(round(x / unit))  # noqa: E731
    stack = chips(config.big_blind) * 1000
    fields = {"variant": VARIANT, "antes": [0, 0],
              "blinds_or_straddles": [chips(config.small_blind), chips(config.big_blind)],
              "small_bet": chips(config.bets[0]), "big_bet": chips(config.bets[-1]),
              "starting_stacks": [stack, stack], "players": [players[BIG_BLIND], players[BUTTON]]}
    if not is_pokerkit_game(config):
        fields["_badugi_game"] = {"ranks": config.ranks, "suits": config.suits, "hand_size": config.hand_size,
                                  "draws": config.draws, "cap": config.cap,
                                  "bets": [chips(b) for b in config.bets]}
    fields.update(extra or {})
    lines = [f"{k} = {_toml_value(v)}" for k, v in fields.items()]
    lines.append("actions = [")
    lines += [f"  {_toml_value(a)}," for a in actions]
    lines.append("]")
    return "\n".join(lines) + "\n"


class HandWriter:
    """Writes a hand's actions as it is played: the caller tells it each event."""

    def __init__(self, config: GameConfig):
        self.config = config
        self.deck = Deck(config.ranks, config.suits)
        self.unit = chip_unit(config)
        self.actions: list[str] = []
        self._deals: list[str] = []

    def cards(self, cards) -> str:
        return format_cards(cards, self.deck) if len(cards) else ""

    def deal(self, seat: int, cards) -> None:
        self.actions.append(f"d dh {PHH_PLAYER[seat]} {self.cards(cards)}")

    def bet(self, seat: int, label: str, round_total: float) -> None:
        """A betting action by its label (f, k, c, b, r); ``round_total``: what the bettor has put in
        this round after it, in big blinds (the 'to' amount of a bet or raise)."""
        p = PHH_PLAYER[seat]
        if label == "f":
            self.actions.append(f"{p} f")
        elif label in "kc":
            self.actions.append(f"{p} cc")
        else:
            self.actions.append(f"{p} cbr {int(round(round_total / self.unit))}")

    def draw(self, seat: int, thrown, taken) -> None:
        """A draw: the declaration now, the deal after both players declared."""
        p = PHH_PLAYER[seat]
        self.actions.append(f"{p} sd {self.cards(thrown)}".rstrip())
        if len(taken):
            self._deals.append(f"d dh {p} {self.cards(taken)}")

    def end_draws(self) -> None:
        self.actions += self._deals
        self._deals = []

    def show(self, seat: int, cards) -> None:
        self.actions.append(f"{PHH_PLAYER[seat]} sm {self.cards(cards)}")


# ---------------------------------------------------------------- reading

def _action_lines(text: str, actions: list[str], start: int) -> list[int]:
    """The line of each action string, found in order from the text's offset ``start``."""
    lines, pos = [], start
    counted, line = 0, 1   # (newlines counted up to ``counted``: each stretch of the text once)
    for action in actions:
        quoted = text.find(action, pos)
        if quoted < 0:
            lines.append(0)
            continue
        line += text.count("\n", counted, quoted)
        counted = quoted
        lines.append(line)
        pos = quoted + len(action)
    return lines


def _game_of(data: dict, where: str, strategy_config: GameConfig | None) -> GameConfig:
    variant = data.get("variant")
    if variant != VARIANT:
        raise PHHError(f"{where}: variant {variant!r} is not fixed-limit Badugi ('{VARIANT}')")
    stacks = data.get("starting_stacks")
    if not isinstance(stacks, list) or len(stacks) != 2:
        n = len(stacks) if isinstance(stacks, list) else "?"
        raise PHHError(f"{where}: {n} players; only heads-up hands (2 players) can be reviewed")
    for name in ("blinds_or_straddles", "small_bet", "big_bet", "actions"):
        if name not in data:
            raise PHHError(f"{where}: the field {name!r} is missing")
    blinds = data["blinds_or_straddles"]
    if not isinstance(blinds, list) or len(blinds) != 2 or not all(isinstance(b, (int, float)) for b in blinds) \
            or min(blinds) <= 0:
        raise PHHError(f"{where}: blinds_or_straddles must be two positive amounts, got {blinds!r}")
    small, big = sorted(float(b) for b in blinds)
    antes = data.get("antes", [0, 0])
    if any(a for a in (antes if isinstance(antes, list) else [antes])):
        raise PHHError(f"{where}: antes are not part of the game the solver plays")
    game = data.get("_badugi_game")
    try:
        if game is None:
            sb, bb = float(data["small_bet"]), float(data["big_bet"])
            settings = {"ranks": 13, "suits": 4, "hand_size": 4, "draws": 3, "bets": (sb, sb, bb, bb)}
        else:
            settings = {k: game[k] for k in GAME_FIELDS if k in game}
            missing = [k for k in GAME_FIELDS if k not in game]
            if missing:
                raise PHHError(f"{where}: _badugi_game lacks {', '.join(missing)}")
        bets = tuple(float(b) / big for b in settings["bets"])
        cap = strategy_config.cap if strategy_config is not None else int(game.get("cap", 4) if game else 4)
        return GameConfig(ranks=settings["ranks"], suits=settings["suits"], hand_size=settings["hand_size"],
                          draws=settings["draws"], cap=cap, bets=bets, small_blind=small / big, big_blind=1.0)
    except (TypeError, KeyError, ValueError) as e:
        if isinstance(e, PHHError):
            raise
        raise PHHError(f"{where}: not a game this project plays ({e})") from None


def _parse_cards_field(text: str, deck: Deck, where: str) -> list[int | None]:
    """Cards of an action: known ones as numbers, ``??`` as None."""
    out: list[int | None] = []
    i = 0
    text = text.strip()
    while i < len(text):
        if text.startswith("??", i):
            out.append(None)
            i += 2
            continue
        j = i + 2
        if text.startswith("10", i):
            j = i + 3
        try:
            out.append(int(parse_cards(text[i:j], deck)[0]))
        except ValueError as e:
            raise PHHError(f"{where}: {e}") from None
        i = j
    return out


def _moves(data: dict, text: str, start: int, deck: Deck, big: float, source: str) -> list[Move]:
    actions = data["actions"]
    if not isinstance(actions, list) or not all(isinstance(a, str) for a in actions):
        raise PHHError(f"{source}: actions must be a list of strings")
    lines = _action_lines(text, actions, start)
    moves = []
    for index, (action, line) in enumerate(zip(actions, lines), 1):
        where = f"{source} line {line}" if line else source
        words = action.split("#")[0].split()
        if not words:
            continue
        if words[0] == "d":
            if len(words) >= 2 and words[1] == "db":
                raise PHHError(f"{where}: {action!r} deals a board card; Badugi has no board")
            if len(words) != 4 or words[1] != HOLE or words[2] not in SEAT_OF:
                raise PHHError(f"{where}: {action!r} is not a deal this game has (d dh p1|p2 CARDS)")
            moves.append(Move(SEAT_OF[words[2]], "dh", _parse_cards_field(words[3], deck, where), line=line,
                              text=action, index=index))
            continue
        if words[0] not in SEAT_OF:
            raise PHHError(f"{where}: {action!r}: player {words[0]!r} is not p1 or p2")
        seat = SEAT_OF[words[0]]
        verb = words[1] if len(words) > 1 else ""
        rest = words[2:]
        if verb in ("f", "cc") and not rest:
            moves.append(Move(seat, verb, line=line, text=action, index=index))
        elif verb == "cbr" and len(rest) == 1:
            try:
                amount = float(rest[0]) / big
            except ValueError:
                raise PHHError(f"{where}: {action!r}: the amount {rest[0]!r} is not a number") from None
            moves.append(Move(seat, "cbr", amount=amount, line=line, text=action, index=index))
        elif verb == "sd" and len(rest) <= 1:
            moves.append(Move(seat, "sd", _parse_cards_field(rest[0], deck, where) if rest else [], line=line,
                              text=action, index=index))
        elif verb == "sm" and len(rest) <= 1:
            cards = [] if not rest or rest[0] == "-" else _parse_cards_field(rest[0], deck, where)
            moves.append(Move(seat, "sm", cards, line=line, text=action, index=index))
        else:
            raise PHHError(f"{where}: {action!r} is not an action of fixed-limit Badugi "
                           "(f, cc, cbr AMOUNT, sd [CARDS], sm [CARDS])")
    return moves


def _one_hand(data: dict, text: str, start: int, source: str, strategy_config: GameConfig | None) -> HandHistory:
    config = _game_of(data, source, strategy_config)
    big = sorted(float(b) for b in data["blinds_or_straddles"])[1]
    deck = Deck(config.ranks, config.suits)
    moves = _moves(data, text, start, deck, big, source)
    names = data.get("players")
    if not (isinstance(names, list) and len(names) == 2 and all(isinstance(n, str) for n in names)):
        names = ["p1", "p2"]
    players = [names[1], names[0]]  # button (p2), big blind (p1)
    return HandHistory(config, players, moves, source, data)


def read_phh(path: str | Path, strategy_config: GameConfig | None = None) -> list[HandHistory]:
    """The hands of a ``.phh`` or ``.phhs`` file; :class:`PHHError` (one line) if it cannot be read.
    ``strategy_config`` gives the cap (a file does not say it)."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise PHHError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise PHHError(f"{path}: cannot be read ({e.__class__.__name__})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise PHHError(f"{path}: not a PHH file (not TOML: {e})") from None
    if "variant" in data or "actions" in data:
        return [_one_hand(data, text, 0, str(path), strategy_config)]
    sections = [k for k, v in data.items() if isinstance(v, dict)]
    if not sections:
        raise PHHError(f"{path}: not a PHH file (no variant, no actions, no hands)")
    hands = []
    for key in sections:
        header = text.find(f"[{key}]")
        hands.append(_one_hand(data[key], text, max(header, 0), f"{path} [{key}]", strategy_config))
    return hands


def check_with_pokerkit(path: str | Path) -> int:
    """Replay every hand of a PHH file with PokerKit's engine (the ``phh`` extra); returns the
    number of hands, or PHHError naming the hand and PokerKit's complaint."""
    try:
        import pokerkit
    except ImportError:
        raise PHHError("--pokerkit needs PokerKit: pip install -e '.[phh]' (or pip install pokerkit)") from None
    import warnings

    path = Path(path)
    data = tomllib.loads(path.read_text(encoding="utf-8"))  # (read_phh read it first: it is TOML)
    hands = [(str(path), data)] if "variant" in data else [(f"{path} [{k}]", v) for k, v in data.items()
                                                            if isinstance(v, dict)]
    for where, fields in hands:
        if "_badugi_game" in fields:
            raise PHHError(f"{where}: PokerKit does not play this game (its Badugi is triple draw with one "
                           "52-card deck)")
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                hand = pokerkit.HandHistory(**pokerkit.HandHistory._filter_non_fields(**fields))
                for _state in hand:
                    pass
        except (ValueError, TypeError, KeyError, UserWarning) as e:
            raise PHHError(f"{where}: PokerKit refuses the hand: {e}") from None
    return len(hands)


def write_phhs(path: str | Path, hands: list[str]) -> None:
    """Several hands' PHH texts as one ``.phhs`` file (a ``.phh`` path gets the first alone)."""
    path = Path(path)
    if path.suffix == ".phh":
        if len(hands) != 1:
            raise ValueError(f"{path}: a .phh file holds one hand; use .phhs for {len(hands)}")
        path.write_text(hands[0], encoding="utf-8")
        return
    path.write_text("\n".join(f"[{i + 1}]\n{h}" for i, h in enumerate(hands)), encoding="utf-8")
