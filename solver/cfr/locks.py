"""Node locking: part of a player's strategy fixed to what real opponents do, the rest solved.

A lock file (TOML) holds rules, each a ``[[lock]]`` table::

    [[lock]]
    seat = "big blind"          # "button", "big blind" ("bb"); omitted: both seats
    history = "*"               # where: a history in the notation; "*" and "?" are wildcards
    kind = "draw"               # "bet" or "draw" (omitted: what the actions name)
    hands = "not badugi"        # which hands (see below)
    probabilities = { pat = 0.0 }   # actions fixed; the others share what is left

Actions are ``f k c b r`` (or ``fold check call bet raise``) at betting
decisions and the number of cards drawn, ``"0"`` to ``"4"`` (``pat`` is
``"0"``), at draws. The actions a rule names get exactly its probabilities;
the actions it leaves out share the rest of the probability as the solver
chooses (a rule naming every action, summing to 1, fixes the decision
entirely). So ``{ pat = 0.0 }`` on non-badugis is "never snows", and ``{ r =
1.0 }`` on badugis at the button's first decision is "raises every badugi".

A rule may instead fix a seat's play to a solved strategy's: ``strategy =
"runs/single-draw"`` (a directory of the same game, any abstraction; a
relative path is read from the lock file's folder) in place of
``probabilities`` fixes every decision it matches (both kinds unless
``kind`` says) to that strategy's probabilities for each hand.

Hand groups (``hands``): ``"*"`` every hand; ``"badugi"`` or ``"3-card"``
(``"N-card"``) by card count, optionally with the top card (``"badugi K"``,
``"1-card *"``); ``"classes 0-99"`` a range of value classes (0 = best); a
hand such as ``"7h4d3s2c"`` (its class); ``"not GROUP"``; several groups
separated by commas.

A rule applies at each decision of its seat and kind whose history matches,
to each hand of its group for which the rule is possible: every action it
gives a positive probability is available there (and legal for the hand),
and, unless its probabilities sum to 1, some action it leaves free is too.
Where several rules apply to a hand at a decision, the last one's row replaces
the earlier ones' (rows are not merged). A rule that applies
nowhere is an error (a one-line :class:`LockError`), as are unknown keys,
actions or groups and probabilities outside [0, 1] or summing to more
than 1.

In a solve (:class:`solver.cfr.engine.Engine`), the locked decisions play
their fixed probabilities in every iteration (:func:`lock_strategy` writes
the strategy the walk plays), both players keep optimising everything else,
and the average strategy of a locked decision is its lock. Locking needs a
game solved at full resolution over its built tree (no card buckets, the
whole history remembered): a lock names hands, not buckets.
"""

from __future__ import annotations

import fnmatch
import re
import tomllib
import dataclasses
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import njit

from abstractions.cards import parse_cards, rank_name
from abstractions.evaluator import get_evaluator

from ..game.tree import BET_LABELS, DRAW, SEAT_NAMES, PublicTree

LOCK_FILE_NAME = "lock.toml"
LOCK_PAIRS_NAME = "lock_pairs.npz"  # which (node, class) pairs a run's lock fixed: tables and charts mark them
ACTION_WORDS = {"fold": "f", "check": "k", "call": "c", "bet": "b", "raise": "r", "pat": "0"}
SEAT_WORDS = {"button": 0, "btn": 0, "big blind": 1, "big-blind": 1, "bb": 1}
RULE_KEYS = {"seat", "history", "kind", "hands", "probabilities", "strategy"}
ANY_KIND = -1


SHIPPED = Path(__file__).resolve().parent.parent / "game" / "presets" / "locks"


def shipped_locks() -> list[str]:
    """Names of the lock files that come with the solver (solver/game/presets/locks)."""
    return sorted(p.stem for p in SHIPPED.glob("*.toml"))


class LockError(ValueError):
    """A lock file that cannot be used: the reason in one line."""


@dataclass(frozen=True)
class Rule:
    number: int                 # 1-based, in file order
    seats: tuple
    history: str
    kind: int                   # BET, DRAW or ANY_KIND
    hands: str
    fixed: dict                 # action label -> probability (empty with ``strategy``)
    strategy: str | None = None  # a strategy directory whose play the rule fixes

    def describe(self) -> str:
        seats = " and ".join(SEAT_NAMES[s] for s in self.seats)
        what = (f"as {self.strategy}" if self.strategy else ", ".join(f"{k}={v:g}" for k, v in self.fixed.items()))
        kind = {DRAW: "draw", ANY_KIND: "bet and draw"}.get(self.kind, "bet")
        return f"lock rule {self.number} ({seats}, history {self.history!r}, {kind}, hands {self.hands!r}: {what})"


@dataclass(frozen=True)
class LockFile:
    rules: tuple
    text: str                   # the file as given (stored with the run: resumes must match it)
    source: str
    base: str = "."             # the directory strategy paths in it are relative to (the file's)

    @classmethod
    def read(cls, path: str | Path) -> "LockFile":
        """A lock file by path, or one shipped with the solver by name (:func:`shipped_locks`)."""
        path = Path(path)
        if not path.exists() and str(path) in shipped_locks():
            path = SHIPPED / f"{path}.toml"
        elif not path.exists():
            raise LockError(f"lock file {path}: no such file (shipped locks: {', '.join(shipped_locks())})")
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as err:
            raise LockError(f"lock file {path}: {err.strerror or err}") from None
        except UnicodeDecodeError:
            raise LockError(f"lock file {path}: not UTF-8 text") from None
        return cls.parse(text, str(path), str(path.resolve().parent))

    def rule_hands(self, rule: "Rule", config) -> np.ndarray:
        """(classes,) bool: the value classes ``rule`` names in ``config``'s game; LockError naming
        the file and rule if its hands do not fit the game's deal."""
        try:
            return hand_group(rule.hands, config.ranks, config.suits, config.hand_size)
        except LockError as err:
            raise LockError(f"{self.source}: lock rule {rule.number}: {err}") from None

    def check_hands(self, config) -> None:
        """Every rule's hands fit ``config``'s deal (checked before a tree is built)."""
        for rule in self.rules:
            self.rule_hands(rule, config)

    @classmethod
    def parse(cls, text: str, source: str = "lock file", base: str = ".") -> "LockFile":
        """Rules from TOML text; ``strategy`` paths in it are relative to ``base``."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as err:
            raise LockError(f"{source}: not valid TOML ({err})") from None
        unknown = set(data) - {"lock"}
        if unknown:
            raise LockError(f"{source}: unknown key {sorted(unknown)[0]!r} (rules are [[lock]] tables)")
        tables = data.get("lock", [])
        if not isinstance(tables, list) or not tables:
            raise LockError(f"{source}: no [[lock]] rules")
        base = str(Path(base).resolve())
        return cls(tuple(_rule(i + 1, table, source, base) for i, table in enumerate(tables)), text, source, base)


def _rule(number: int, table, source: str, base: str = ".") -> Rule:
    where = f"{source}: lock rule {number}"
    if not isinstance(table, dict):
        raise LockError(f"{where}: must be a table")
    unknown = set(table) - RULE_KEYS
    if unknown:
        raise LockError(f"{where}: unknown key {sorted(unknown)[0]!r} (keys: {', '.join(sorted(RULE_KEYS))})")
    seat = table.get("seat")
    if seat is None:
        seats = (0, 1)
    elif isinstance(seat, str) and seat.strip().lower() in SEAT_WORDS:
        seats = (SEAT_WORDS[seat.strip().lower()],)
    else:
        raise LockError(f"{where}: seat {seat!r} is not button or big blind")
    history = table.get("history", "*")
    if not isinstance(history, str) or not re.fullmatch(r"[fkcbr0-9/*?]*", history):
        raise LockError(f"{where}: history {history!r} is not in the notation (f k c b r, draw counts, '/', "
                        "wildcards * and ?)")
    hands = table.get("hands", "*")
    if not isinstance(hands, str) or not hands.strip():
        raise LockError(f"{where}: hands must be a hand group such as \"badugi K\" or \"1-card *\"")
    strategy = table.get("strategy")
    if strategy is not None:
        if "probabilities" in table:
            raise LockError(f"{where}: give probabilities or a strategy, not both")
        if not isinstance(strategy, str) or not (Path(base) / strategy / "strategy.npz").is_file():
            raise LockError(f"{where}: strategy {strategy!r} is not a strategy directory (badugi solve's output; "
                            "a relative path is read from the lock file's folder)")
        strategy = str((Path(base) / strategy).resolve())
        kind_name = table.get("kind")
        if kind_name not in (None, "bet", "draw"):
            raise LockError(f"{where}: kind {kind_name!r} is not bet or draw")
        kind = ANY_KIND if kind_name is None else DRAW if kind_name == "draw" else 0
        return Rule(number, seats, history, kind, hands.strip(), {}, strategy)
    probabilities = table.get("probabilities")
    if not isinstance(probabilities, dict) or not probabilities:
        raise LockError(f"{where}: give probabilities, e.g. probabilities = {{ pat = 0.0 }}, or a strategy "
                        "directory, strategy = \"runs/single-draw\"")
    fixed = {}
    for name, p in probabilities.items():
        label = ACTION_WORDS.get(str(name).strip().lower(), str(name).strip().lower())
        if label not in BET_LABELS and label not in "01234":
            raise LockError(f"{where}: unknown action {name!r} (f k c b r, fold .. raise, or cards drawn 0-4, pat)")
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= float(p) <= 1.0:
            raise LockError(f"{where}: the probability of {name!r} must be a number from 0 to 1, got {p!r}")
        if label in fixed:
            raise LockError(f"{where}: action {name!r} given twice")
        fixed[label] = float(p)
    if sum(fixed.values()) > 1.0 + 1e-9:
        raise LockError(f"{where}: probabilities sum to {sum(fixed.values()):g}, more than 1")
    draws = {label.isdigit() for label in fixed}
    if len(draws) > 1:
        raise LockError(f"{where}: mixes betting actions and draw counts")
    kind_name = table.get("kind", "draw" if draws.pop() else "bet")
    if kind_name not in ("bet", "draw"):
        raise LockError(f"{where}: kind {kind_name!r} is not bet or draw")
    kind = DRAW if kind_name == "draw" else 0
    if (kind == DRAW) != all(label.isdigit() for label in fixed):
        raise LockError(f"{where}: a {kind_name} decision has no action {next(iter(fixed))!r}")
    return Rule(number, seats, history, kind, hands.strip(), fixed)


# -- hand groups -------------------------------------------------------------
def hand_group(text: str, ranks: int, suits: int, hand_size: int) -> np.ndarray:
    """(classes,) bool: the value classes a hand-group text names (see the module docstring)."""
    ev = get_evaluator(ranks, suits, hand_size)
    counts = ev.value_card_count.astype(int)
    tops = np.array([ev.value_ranks(v)[0] for v in range(ev.n_values)])
    rank_of = {rank_name(r).upper(): r for r in range(ranks)}

    def term(t: str) -> np.ndarray:
        t = t.strip()
        low = t.lower()
        if low.startswith("not "):
            return ~term(t[4:])
        if low in ("*", "any", "all"):
            return np.ones(ev.n_values, bool)
        m = re.fullmatch(r"classes?\s+(\d+)\s*-\s*(\d+)", low)
        if m:
            lo, hi = int(m.group(1)), int(m.group(2))
            if not 0 <= lo <= hi < ev.n_values:
                raise LockError(f"hands {text!r}: classes run from 0 to {ev.n_values - 1}")
            mask = np.zeros(ev.n_values, bool)
            mask[lo:hi + 1] = True
            return mask
        m = re.fullmatch(r"(badugi|[1-4]-card)(?:\s+(\S+))?", low)
        if m:
            count = hand_size if m.group(1) == "badugi" else int(m.group(1)[0])
            if m.group(1) == "badugi" and hand_size != 4:
                raise LockError(f"hands {text!r}: a badugi needs 4-card hands; say \"{hand_size}-card\"")
            if count > hand_size:
                raise LockError(f"hands {text!r}: hands have {hand_size} cards")
            mask = counts == count
            top = m.group(2)
            if top is not None and top != "*":
                if top.upper() not in rank_of:
                    raise LockError(f"hands {text!r}: {top!r} is not a rank of this deck "
                                    f"({' '.join(rank_name(r) for r in range(ranks))})")
                mask &= tops == rank_of[top.upper()]
            return mask
        try:
            cards = parse_cards(t, ev.deck, count=hand_size)
        except ValueError:
            raise LockError(f"hands {text!r}: {t!r} is not a hand group (\"*\", \"badugi K\", \"3-card *\", "
                            "\"classes 0-99\", a hand such as 7h4d3s2c, \"not ...\")") from None
        mask = np.zeros(ev.n_values, bool)
        mask[ev.evaluate(cards)] = True
        return mask

    mask = np.zeros(ev.n_values, bool)
    for part in text.split(","):
        mask |= term(part)
    return mask


# -- compiled locks ----------------------------------------------------------
@dataclass
class Locks:
    """Locks compiled against a tree: one (node, class) pair per locked hand at a decision, with
    the row of fixed probabilities it plays (NaN: free). Later rules have already overridden
    earlier ones."""

    lock_file: LockFile
    pair_node: np.ndarray       # int64
    pair_class: np.ndarray      # int64
    pair_variant: np.ndarray    # int64: row of ``variants``
    variants: np.ndarray        # (k, max actions) float64, in each node's action order; NaN = free
    decisions: dict             # rule number -> decisions it applies at
    hands: dict                 # rule number -> (decision, class) pairs it fixes

    @property
    def n_pairs(self) -> int:
        return len(self.pair_node)

    def codes(self, tree: PublicTree, entry_offset: np.ndarray, row_width: np.ndarray, n_entries: int) -> np.ndarray:
        """(entries,) float32 lock codes for best responses within the locks: -2 where not locked,
        a locked action's fixed probability, -1 for an action its lock leaves free."""
        codes = np.full(n_entries, -2.0, np.float32)
        n_act = tree.n_children[self.pair_node].astype(np.int64)
        width = row_width[tree.round[self.pair_node].astype(np.int64)]
        base = entry_offset[self.pair_node] + self.pair_class
        for a in range(self.variants.shape[1]):
            here = a < n_act
            fixed = self.variants[self.pair_variant[here], a]
            codes[base[here] + a * width[here]] = np.where(np.isnan(fixed), -1.0, fixed)
        return codes

    def within(self, entry_offset: np.ndarray) -> "Locks":
        """These locks at the nodes a storage part holds (``entry_offset`` >= 0: a Ray shard's)."""
        mine = entry_offset[self.pair_node] >= 0
        return dataclasses.replace(self, pair_node=self.pair_node[mine], pair_class=self.pair_class[mine],
                                   pair_variant=self.pair_variant[mine])

    def play(self, tree: PublicTree, entry_offset: np.ndarray, row_width: np.ndarray, class_legal: np.ndarray,
             storage: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``storage`` (regrets, or strategy sums) with every locked row replaced by the strategy it
        plays, into ``out`` (see :func:`lock_strategy`; ``entry_offset``: where each of these
        locks' nodes is stored)."""
        if out is not storage:
            np.copyto(out, storage)
        lock_strategy(storage, out, self.pair_node, self.pair_class, self.pair_variant, self.variants, entry_offset,
                      tree.n_children.astype(np.int64), tree.kind, tree.round.astype(np.int64), row_width, class_legal,
                      tree.seat.astype(np.int64), -1)
        return out

    def node_mask(self, n_nodes: int) -> np.ndarray:
        mask = np.zeros(n_nodes, bool)
        mask[self.pair_node] = True
        return mask

    def classes_at(self, node: int) -> np.ndarray:
        """The value classes locked at a decision node (pairs are sorted by node)."""
        lo, hi = np.searchsorted(self.pair_node, [node, node + 1])
        return self.pair_class[lo:hi]

    def describe(self) -> str:
        lines = [f"{len(self.lock_file.rules)} lock rule(s) from {self.lock_file.source}: "
                 f"{self.n_pairs:,} (decision, hand class) pairs locked"]
        for rule in self.lock_file.rules:
            lines.append(f"  {rule.describe()}: {self.decisions[rule.number]:,} decisions, "
                         f"{self.hands[rule.number]:,} (decision, class) pairs")
        return "\n".join(lines)


def _matching_nodes(tree: PublicTree, pattern: str, candidates: np.ndarray, histories: dict) -> np.ndarray:
    """The candidate nodes whose history matches ``pattern`` (exact, or with wildcards)."""
    if not any(ch in pattern for ch in "*?"):
        try:
            node = tree.node_at(pattern)
        except ValueError:
            return candidates[:0]
        return candidates[candidates == node]
    if pattern.endswith("*") and not any(ch in pattern[:-1] for ch in "*?") and pattern[:-1]:
        try:
            top = tree.node_at(pattern[:-1])
        except ValueError:
            top = -1
        if top >= 0 and tree.history(top) == pattern[:-1]:
            inside = np.zeros(tree.n_nodes, bool)
            tree.mark_subtree(inside, top)
            return candidates[inside[candidates]]
    if "all" not in histories:
        histories["all"] = {}
    cache = histories["all"]
    out = []
    for node in candidates.tolist():
        if node not in cache:
            cache[node] = tree.history(node)
        if fnmatch.fnmatchcase(cache[node], pattern):
            out.append(node)
    return np.array(out, np.int64)


def compile_locks(lock_file: LockFile, tree: PublicTree, class_legal: np.ndarray) -> Locks:
    """The (node, class) pairs a lock file fixes in a tree; LockError for a rule that applies nowhere."""
    cfg = tree.config
    n_states = class_legal.shape[0]
    width = int(tree.n_children[tree.kind <= DRAW].max())
    variants: dict = {}          # a probability rule's distinct rows -> (index, row)
    blocks: list = []            # the variant table, in index order
    n_variants = 0
    decisions, hands = {}, {}
    histories: dict = {}
    keys_of_rule = []
    for rule in lock_file.rules:
        group = lock_file.rule_hands(rule, cfg)
        kinds = (tree.kind <= DRAW) if rule.kind == ANY_KIND else (tree.kind == rule.kind)
        candidates = np.nonzero(kinds & np.isin(tree.seat, rule.seats))[0].astype(np.int64)
        nodes = _matching_nodes(tree, rule.history, candidates, histories)
        n_decisions, keys, key_variants = 0, [], []
        by_labels: dict = {}
        if rule.strategy is not None:
            strategy_rows = _strategy_rows(rule, tree)
            idx = np.nonzero(group)[0]
            for node in nodes.tolist():
                rows = strategy_rows(node)[:, idx].T  # (classes, actions): one variant row per pair
                padded = np.full((len(idx), width), np.nan)
                padded[:, :rows.shape[1]] = rows
                start = n_variants + sum(len(b) for b in blocks)
                blocks.append(padded)
                n_decisions += 1
                keys.append(node * n_states + idx)
                key_variants.append(np.arange(start, start + len(idx), dtype=np.int64))
            nodes = nodes[:0]
        for node in nodes.tolist():
            labels = "".join(chr(tree.action[c]) for c in tree.children(node))
            if labels not in by_labels:
                by_labels[labels] = _variant_row(rule, labels, width)
            row = by_labels[labels]
            if row is None:
                continue
            classes = group.copy()
            if rule.kind == DRAW:
                classes &= _possible_draws(row, class_legal)
            idx = np.nonzero(classes)[0]
            if not len(idx):
                continue
            n_decisions += 1
            if row.tobytes() not in variants:
                variants[row.tobytes()] = (n_variants + sum(len(b) for b in blocks), row)
                blocks.append(row[None, :])
            variant = variants[row.tobytes()][0]
            keys.append(node * n_states + idx)
            key_variants.append(np.full(len(idx), variant, np.int64))
        if not n_decisions:
            who = SEAT_NAMES[rule.seats[0]] if len(rule.seats) == 1 else "player"
            what = {DRAW: "draw", ANY_KIND: ""}.get(rule.kind, "betting")
            raise LockError(f"{rule.describe()} names no decision of {cfg.describe()}: no {who}'s {what} decision "
                            "matches it with its actions possible for those hands".replace("  ", " "))
        keys = np.concatenate(keys)
        decisions[rule.number], hands[rule.number] = n_decisions, len(keys)
        keys_of_rule.append((keys, np.concatenate(key_variants)))
    all_keys = np.concatenate([k for k, _ in keys_of_rule])
    all_variants = np.concatenate([v for _, v in keys_of_rule])
    # The last rule to name a pair wins: unique over the reversed order keeps the last occurrence.
    unique, first = np.unique(all_keys[::-1], return_index=True)
    chosen_variants = all_variants[::-1][first]
    table = np.concatenate(blocks) if blocks else np.full((1, width), np.nan)
    return Locks(lock_file, unique // n_states, unique % n_states, chosen_variants, table, decisions, hands)


def _strategy_rows(rule: Rule, tree: PublicTree):
    """node -> (actions, classes) probabilities of a rule's strategy directory, which must be of
    this game (any abstraction) with the same public tree."""
    from .files import STRATEGY_NAME, load_strategy_file
    from .walker import class_strategy

    saved = load_strategy_file(Path(rule.strategy) / STRATEGY_NAME)
    if saved.config.at_full_resolution() != tree.config.at_full_resolution():
        raise LockError(f"{rule.describe()}: that strategy is for {saved.config.describe()}, not "
                        f"{tree.config.describe()}")
    other = saved.tree
    if other is None or other.n_nodes != tree.n_nodes or not np.array_equal(other.parent, tree.parent):
        raise LockError(f"{rule.describe()}: that strategy's public tree is not this game's")
    return lambda node: class_strategy(saved.layout, saved.probabilities, node)


def _variant_row(rule: Rule, labels: str, width: int) -> np.ndarray | None:
    """The rule's fixed probabilities in a node's action order (NaN: free), or None if none of its
    actions is available there, an action it gives a positive probability is not, or it leaves
    nothing free to take the rest."""
    row = np.full(width, np.nan)
    if not any(label in labels for label in rule.fixed):
        return None  # none of its actions is a choice here
    for label, p in rule.fixed.items():
        if label not in labels:
            if p > 0:
                return None
            continue
        row[labels.index(label)] = p
    fixed = row[:len(labels)]
    if np.isnan(fixed).sum() == 0 and abs(np.nansum(fixed) - 1.0) > 1e-9:
        return None
    return row


def _possible_draws(row: np.ndarray, class_legal: np.ndarray) -> np.ndarray:
    """(classes,) whether a draw rule's row is possible for each class: its positive counts legal,
    and some legal count free unless the fixed ones sum to 1."""
    n = class_legal.shape[1]
    fixed = row[:n]
    positive = np.nan_to_num(fixed, nan=0.0) > 0
    ok = np.all(class_legal[:, positive], axis=1)
    total = np.nansum(fixed)
    if total < 1.0 - 1e-9:
        ok &= np.any(class_legal & np.isnan(fixed)[None, :], axis=1)
    else:
        # Fully fixed: the legal counts must carry all of it.
        ok &= np.abs((np.nan_to_num(fixed, nan=0.0)[None, :] * class_legal).sum(axis=1) - 1.0) < 1e-9
    return ok


@njit(cache=True)
def lock_strategy(regret, play, pair_node, pair_class, pair_variant, variants, entry_offset, n_children, kind,
                  node_round, row_width, class_legal, seat_of_node, seat):
    """Write into ``play`` (a copy of the regrets) the strategy each locked (node, class) pair of
    ``seat`` plays (``seat`` < 0: both): the fixed probabilities, and the rest shared by regret
    matching over the free legal actions (evenly if none has positive regret). The walk's regret
    matching of these rows gives exactly that strategy."""
    for i in range(len(pair_node)):
        node = pair_node[i]
        if seat >= 0 and seat_of_node[node] != seat:
            continue
        s = pair_class[i]
        v = pair_variant[i]
        n_act = n_children[node]
        width = row_width[node_round[node]]
        base = entry_offset[node] + s
        is_draw = kind[node] == DRAW
        fixed_total = 0.0
        free_total = 0.0
        n_free = 0
        for a in range(n_act):
            legal = not is_draw or class_legal[s, a]
            p = variants[v, a]
            if p == p:  # not NaN: fixed
                fixed_total += p
            elif legal:
                free_total += max(regret[base + a * width], 0.0)
                n_free += 1
        rest = max(1.0 - fixed_total, 0.0)
        for a in range(n_act):
            legal = not is_draw or class_legal[s, a]
            p = variants[v, a]
            if p == p:
                play[base + a * width] = p
            elif not legal:
                play[base + a * width] = 0.0
            elif free_total > 0.0:
                play[base + a * width] = rest * max(regret[base + a * width], 0.0) / free_total
            else:
                play[base + a * width] = rest / n_free


def fixed_strategy_locks(tree: PublicTree, layout, probabilities: np.ndarray, seats,
                         source: str = "a fixed strategy") -> Locks:
    """Locks that fix ``seats``' whole strategy to ``probabilities`` (per-class rows laid out by
    ``layout`` over ``tree``): every decision, every class. A player locked this way is that
    strategy; the solve finds the other's best response to it."""
    n_states = layout.n_states
    nodes = np.nonzero((tree.kind <= DRAW) & np.isin(tree.seat, list(seats)))[0].astype(np.int64)
    width = int(tree.n_children[tree.kind <= DRAW].max())
    pair_node = np.repeat(nodes, n_states)
    pair_class = np.tile(np.arange(n_states, dtype=np.int64), len(nodes))
    variants = np.zeros((len(pair_node), width))
    n_act = tree.n_children[pair_node].astype(np.int64)
    row_width = layout.row_width[tree.round[pair_node].astype(np.int64)]
    base = layout.entry_offset[pair_node] + pair_class
    for a in range(width):
        here = a < n_act
        variants[here, a] = probabilities[base[here] + a * row_width[here]]
        variants[~here, a] = np.nan
    rows = LockFile((), "", source)
    return Locks(rows, pair_node, pair_class, np.arange(len(pair_node), dtype=np.int64), variants,
                 {}, {})


def save_locked_pairs(locks: Locks, path: Path) -> None:
    """The (node, class) pairs a run's lock fixed, for tables and charts to mark (they need no
    recompiling, so a lock's strategy directory may move)."""
    from abstractions.files import atomic_write

    with atomic_write(path) as f:
        np.savez(f, pair_node=locks.pair_node, pair_class=locks.pair_class)


def load_locked_pairs(path: Path, text: str = "") -> Locks:
    """What :func:`save_locked_pairs` wrote, as Locks without their probabilities."""
    try:
        with np.load(path) as data:
            node, value = data["pair_node"].astype(np.int64), data["pair_class"].astype(np.int64)
    except (OSError, KeyError, ValueError) as err:
        raise LockError(f"{path} is damaged ({err})") from None
    return Locks(LockFile((), text, str(path)), node, value, np.zeros(len(node), np.int64), np.full((1, 1), np.nan),
                 {}, {})
