"""Game configuration: deck, hand size, draws, cap and bet sizes, with TOML I/O.

A config validates itself on construction; every problem is a ``ConfigError``
(a ValueError) naming the field. Presets are TOML files shipped in
``solver/game/presets``; :func:`resolve_config` reads a preset name or a file.

>>> cfg = load_preset("single-draw")
>>> cfg.draws, cfg.cap, cfg.bets
(1, 4, (1.0, 2.0))
"""

from __future__ import annotations

import dataclasses

import math
import tomllib
from dataclasses import asdict, dataclass, field, fields
from importlib import resources
from pathlib import Path

from abstractions.files import atomic_write

from .history import BETTING_RULES, DEFAULT_BETTING, describe_draw_limit, describe_older

DEFAULT_BETS = {0: (1.0,), 1: (1.0, 2.0), 2: (1.0, 1.0, 2.0), 3: (1.0, 1.0, 2.0, 2.0)}
MAX_CAP = 8
STORAGE_BITS = (16, 32)  # bits an abstract solve keeps a regret or a strategy sum in
LAST_ROUND_FEATURES = ("strength", "ranges")  # the last round's bucket features (abstractions.buckets')
# Blinds and bet sizes: far beyond any real structure, and far within float32 storage of pots
# of a whole hand (a million times wider a range would overflow to inf in the solver's sums).
MIN_AMOUNT, MAX_AMOUNT = 1e-3, 1e3


class ConfigError(ValueError):
    """An invalid or unreadable game configuration (the message names the field)."""


@dataclass(frozen=True)
class GameConfig:
    """Heads-up fixed-limit Badugi: deck, hand size, draw rounds, cap and bets.

    ``bets`` holds one bet size per betting round (``draws + 1`` of them), in big
    blinds. ``cap`` is the most bets per round; in the first round the big blind
    counts as the first bet. ``buckets`` (one per betting round, 0 = full
    resolution) asks for card buckets: strategies shared within each round's
    buckets of value classes (see ``abstractions/buckets.py``). ``recall`` (0 to
    ``draws``; -1, the default, is perfect recall) asks for an abstraction of the
    public history: strategies remember the pot and the last ``recall`` rounds
    (their betting and draw counts), and forget the rounds before (see
    :class:`solver.game.layout.RecallRule`); with ``remember_draws`` they keep
    both draw counts of those older rounds, and ``older_betting`` names what
    they keep of their betting (a rule of :data:`solver.game.history.BETTING_RULES`;
    ``forget``, the default, keeps nothing). ``draw_limit`` (0, the default, tells every
    draw count apart) is the largest draw count those keys tell apart: with 3 of four
    cards, drawing four is remembered as drawing three, in every round a key keeps
    (:mod:`solver.game.history`). ``storage_bits`` 16 (default 32) keeps
    an abstract solve's regrets and strategy sums in 16 bits with a scale per action
    row (:mod:`solver.cfr.quantized`): about 5 bytes an entry on two threads instead
    of 12, for a finer abstraction. ``last_round_buckets`` names the last round's bucket
    features: ``strength`` (the default) against one reference opponent, or ``ranges``, against
    the reference opponent's range after each count he may draw last
    (:func:`abstractions.buckets.range_strengths`).
    """

    ranks: int = 13
    suits: int = 4
    hand_size: int = 4
    draws: int = 1
    cap: int = 4
    bets: tuple[float, ...] = DEFAULT_BETS[1]
    small_blind: float = 0.5
    big_blind: float = 1.0
    buckets: tuple[int, ...] = field(default=())
    recall: int = -1
    remember_draws: bool = False
    older_betting: str = DEFAULT_BETTING
    draw_limit: int = 0
    storage_bits: int = 32
    last_round_buckets: str = "strength"

    def __post_init__(self) -> None:
        object.__setattr__(self, "bets", _number_tuple("bets", self.bets, integer=False))
        object.__setattr__(self, "buckets", _number_tuple("buckets", self.buckets, integer=True))
        _check_int("ranks", self.ranks, 1, 13)
        _check_int("suits", self.suits, 1, 4)
        _check_int("hand_size", self.hand_size, 1, 4)
        _check_int("draws", self.draws, 0, 3)
        _check_int("cap", self.cap, 1, MAX_CAP)
        if self.hand_size > self.ranks * self.suits:
            raise ConfigError(f"hand_size: {self.hand_size} cards is more than the {self.ranks * self.suits}-card deck")
        if len(self.bets) != self.draws + 1:
            raise ConfigError(f"bets: {self.draws} draws make {self.draws + 1} betting rounds, "
                              f"so bets needs {self.draws + 1} sizes, got {len(self.bets)}")
        for name in ("small_blind", "big_blind"):
            _check_amount(name, getattr(self, name))
        if self.small_blind > self.big_blind:
            raise ConfigError(f"small_blind: {self.small_blind} is larger than big_blind {self.big_blind}")
        if self.buckets and len(self.buckets) != self.draws + 1:
            raise ConfigError(f"buckets: needs one count per betting round ({self.draws + 1}), got {len(self.buckets)}")
        if any(b < 0 for b in self.buckets):
            raise ConfigError(f"buckets: each count must be 0 (full resolution) or positive, got {min(self.buckets)}")
        _check_int("recall", self.recall, -1, self.draws)
        if not isinstance(self.remember_draws, bool):
            raise ConfigError(f"remember_draws: must be true or false, got {self.remember_draws!r}")
        if self.remember_draws and not 0 <= self.recall < self.draws:
            raise ConfigError("remember_draws: keeps the draw counts of rounds a recall forgets; it needs a recall "
                              f"of 0 to {self.draws - 1} rounds")
        if not isinstance(self.older_betting, str) or self.older_betting not in BETTING_RULES:
            raise ConfigError(f"older_betting: {self.older_betting!r} is not a rule (rules: "
                              f"{', '.join(BETTING_RULES)})")
        if self.older_betting != DEFAULT_BETTING and not 0 <= self.recall < self.draws:
            raise ConfigError("older_betting: keeps the betting of rounds a recall forgets; it needs a recall "
                              f"of 0 to {self.draws - 1} rounds")
        _check_int("draw_limit", self.draw_limit, 0, max(self.hand_size - 1, 0))
        if self.draw_limit and self.recall < 0:
            raise ConfigError("draw_limit: merges draw counts in the keys of a recall rule; it needs a recall of 0 to "
                              f"{self.draws} rounds")
        if not isinstance(self.storage_bits, int) or isinstance(self.storage_bits, bool) \
                or self.storage_bits not in STORAGE_BITS:
            raise ConfigError(f"storage_bits: {self.storage_bits!r} is not 16 or 32")
        if self.storage_bits != 32 and not self.abstract_game_ready:
            raise ConfigError("storage_bits: 16-bit storage is for a game solved in its abstract game: it needs card "
                              "buckets in every round and a recall")
        if self.last_round_buckets not in LAST_ROUND_FEATURES:
            raise ConfigError(f"last_round_buckets: {self.last_round_buckets!r} is not a feature (features: "
                              f"{', '.join(LAST_ROUND_FEATURES)})")
        if self.last_round_buckets != "strength" and not (self.buckets and self.buckets[-1]):
            raise ConfigError("last_round_buckets: chooses the last round's card buckets; it needs buckets in the "
                              "last round")
        if any(self.buckets):
            from abstractions.evaluator import get_evaluator

            classes = get_evaluator(self.ranks, self.suits, self.hand_size).n_values
            for r, b in enumerate(self.buckets):
                if b > classes:
                    raise ConfigError(f"buckets: round {r} asks for {b} buckets, but this game has only {classes} "
                                      "value classes (0 keeps every class)")

    @property
    def rounds(self) -> int:
        return self.draws + 1

    def to_dict(self) -> dict:
        data = asdict(self)
        data["bets"] = list(self.bets)
        data["buckets"] = list(self.buckets)
        if not self.buckets:
            del data["buckets"]
        if self.recall < 0:
            del data["recall"]
        if not self.remember_draws:
            del data["remember_draws"]
        if self.older_betting == DEFAULT_BETTING:
            del data["older_betting"]
        if not self.draw_limit:
            del data["draw_limit"]
        if self.storage_bits == 32:
            del data["storage_bits"]
        if self.last_round_buckets == "strength":
            del data["last_round_buckets"]
        return data

    def to_toml(self) -> str:
        lines = []
        for key, value in self.to_dict().items():
            if isinstance(value, list):
                lines.append(f"{key} = [{', '.join(_toml_scalar(v) for v in value)}]")
            else:
                lines.append(f"{key} = {_toml_scalar(value)}")
        return "\n".join(lines) + "\n"

    def save(self, path: str | Path) -> None:
        """Write the config as TOML (whole or not at all)."""
        with atomic_write(path, "w") as f:
            f.write(self.to_toml())

    @classmethod
    def from_dict(cls, data: dict, source: str = "config") -> "GameConfig":
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(f"{source}: unknown field {unknown[0]!r} (fields: {', '.join(sorted(known))})")
        values = dict(data)
        if "draws" in values and "bets" not in values and isinstance(values["draws"], int):
            values["bets"] = DEFAULT_BETS.get(values["draws"], ())
        try:
            return cls(**values)
        except ConfigError as err:
            raise ConfigError(f"{source}: {err}") from None

    def describe(self) -> str:
        names = {0: "no-draw", 1: "single-draw", 2: "double-draw", 3: "triple-draw"}
        deck = "" if (self.ranks, self.suits) == (13, 4) else f", {self.ranks}x{self.suits} deck"
        hand = "" if self.hand_size == 4 else f", {self.hand_size}-card hands"
        bets = "/".join(f"{b:g}" for b in self.bets)
        buckets = ""
        if any(self.buckets):
            buckets = ", buckets " + "/".join(str(b) if b else "full" for b in self.buckets)
            if self.last_round_buckets == "ranges":
                buckets += " (the last round's against the opponent's ranges)"
        recall = ""
        if self.recall >= 0:
            recall = f", recall {self.recall} round{'' if self.recall == 1 else 's'}"
            older = describe_older(self.remember_draws, self.older_betting)
            if older:
                recall += f" and {older}"
            if self.draw_limit:
                recall += f" ({describe_draw_limit(self.draw_limit)})"
        storage = ", 16-bit storage" if self.storage_bits == 16 else ""
        return f"{names[self.draws]} Badugi, cap {self.cap}, bets {bets}{deck}{hand}{buckets}{recall}{storage}"

    @property
    def bucketed(self) -> bool:
        """Whether some round asks for card buckets."""
        return any(self.buckets)

    @property
    def abstracted(self) -> bool:
        """Whether strategies are shared (card buckets or an abstraction of the public history)."""
        return self.bucketed or self.recall >= 0

    @property
    def abstract_game_ready(self) -> bool:
        """Whether its abstract game (bucket vectors over a streamed tree) can be solved: card
        buckets in every round and a recall."""
        return bool(self.buckets) and all(self.buckets) and self.recall >= 0

    def at_full_resolution(self) -> "GameConfig":
        """The same game without abstraction: no card buckets, the whole public history remembered."""
        return dataclasses.replace(self, buckets=(), recall=-1, remember_draws=False, older_betting=DEFAULT_BETTING,
                                   draw_limit=0, storage_bits=32, last_round_buckets="strength")


def _toml_scalar(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    raise TypeError(value)


def _check_int(name: str, value, low: int, high: int) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ConfigError(f"{name}: must be an integer from {low} to {high}, got {value!r}")


def _check_amount(name: str, value) -> None:
    """A blind or a bet size: a number from MIN_AMOUNT to MAX_AMOUNT."""
    if (not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value)
            or not MIN_AMOUNT <= value <= MAX_AMOUNT):
        what = "each size" if name == "bets" else "must be"
        raise ConfigError(f"{name}: {what} a number from {MIN_AMOUNT:g} to {MAX_AMOUNT:g}, got {value!r}")


def _number_tuple(name: str, values, integer: bool) -> tuple:
    """A tuple of bet sizes (``integer``: of integers) from a scalar or list."""
    kind = "integers" if integer else "numbers"
    if isinstance(values, (int, float)) and not isinstance(values, bool):
        values = (values,)
    if isinstance(values, (str, bytes, dict)):
        raise ConfigError(f"{name}: must be a list of {kind}, got {values!r}")
    try:
        out = tuple(values)
    except TypeError:
        raise ConfigError(f"{name}: must be a list of {kind}, got {values!r}") from None
    for v in out:
        if integer and (not isinstance(v, int) or isinstance(v, bool)):
            raise ConfigError(f"{name}: must be integers, got {v!r}")
        if not integer:
            _check_amount(name, v)
    return out if integer else tuple(float(v) for v in out)


def preset_names() -> list[str]:
    folder = resources.files("solver.game.presets")
    return sorted(p.name[:-5] for p in folder.iterdir() if p.name.endswith(".toml"))


def load_preset(name: str) -> GameConfig:
    folder = resources.files("solver.game.presets")
    path = folder / f"{name}.toml"
    if not path.is_file():
        raise ConfigError(f"unknown preset {name!r} (presets: {', '.join(preset_names())})")
    return _parse_toml(path.read_text(encoding="utf-8"), f"preset {name}")


def load_config_file(path: str | Path) -> GameConfig:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ConfigError(f"cannot read config {str(path)!r}: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise ConfigError(f"config {path}: not UTF-8 text (byte {err.start}: {err.object[err.start]:#04x}); "
                          "TOML files are UTF-8") from None
    return _parse_toml(text, f"config {path.name}")


def _parse_toml(text: str, source: str) -> GameConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{source}: invalid TOML: {err}") from None
    return GameConfig.from_dict(data, source)


def resolve_config(preset: str | None = None, config: str | None = None, default: str = "single-draw") -> GameConfig:
    """The config named on a command line: ``--preset`` or ``--config`` (not both)."""
    if preset and config:
        raise ConfigError("give either --preset or --config, not both")
    if config:
        return load_config_file(config)
    return load_preset(preset or default)
