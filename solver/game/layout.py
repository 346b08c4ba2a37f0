"""Where the strategy of (public node, action, private state) is stored: the strategy layout.

Regrets, strategy sums and saved probabilities are flat float32 vectors in one
layout, the only place that answers "which entry holds this?". Storage is cut
into *slots*, one per decision point of the game the solver stores:

- every decision node of the public tree uses one slot (``slot_of``); several
  public nodes may share a slot (an abstraction of the public history), so a
  slot has its own round, deciding seat, kind and number of actions;
- a slot holds one *action row* per action, action-major, each
  ``row_width[round]`` entries wide;
- a private state (value class) reads position ``row_of[round, class]`` of a
  row: the class itself at full resolution, its card bucket otherwise.

So the strategy of ``(node, action, class)`` is entry
``slot_offset[slot_of[node]] + action * row_width[r] + row_of[r, class]`` with
``r`` the node's round. Full resolution, card buckets and shared public nodes
are all just layouts, each game's made by one function
(:meth:`solver.game.setup.GameSetup.layout_for`); the engine allocates from one, the kernels read it
(:class:`LayoutArrays`), strategy files carry it, and readers need nothing else.

>>> from solver.game.config import load_preset
>>> from solver.game.tree import build_tree
>>> from abstractions.transitions import get_draw_model
>>> config = load_preset("tiny-single-draw")
>>> tree = build_tree(config)
>>> model = get_draw_model(config.ranks, config.suits, config.hand_size)
>>> layout = StrategyLayout.build(tree, model.legal)
>>> layout.n_states, layout.n_slots, layout.n_entries     # 6 value classes of 2-card hands
(6, 42, 522)
>>> node = tree.node_at("ck/")           # the big blind's draw: 0, 1 or 2 cards
>>> slot = layout.slot_of[node]
>>> int(layout.slot_actions[slot]), int(layout.slot_offset[slot]), layout.rows(np.arange(522), slot).shape
(3, 18, (3, 6))
>>> two_buckets = np.tile([0, 0, 0, 1, 1, 1], (2, 1))    # two-card hands, one-card hands
>>> bucketed = StrategyLayout.build(tree, model.legal, row_of=two_buckets)
>>> bucketed.row_width.tolist(), bucketed.n_entries
([2, 2], 174)
"""

from __future__ import annotations

import dataclasses
from collections import namedtuple
from typing import NamedTuple
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from .history import DEFAULT_BETTING, OlderCodes, modulus_codes, older_codes, recent_codes
from .rounds import BET, BIG_BLIND, BUTTON, DRAW, RoundTemplates
from .tree import PublicTree

# What the kernels read of a layout: per public node the first entry of its slot (-1 at
# terminals), per round the row width, per (round, class) the row position, per round a
# (draw counts, width) 0/1 legality mask, and whether rows are shared: by classes (card buckets)
# or by public nodes (then a row's regret sums its members' counterfactual regrets), and whether
# each state has a row position of its own (``own_rows``: no class shares one, so the kernels
# skip the expansion through ``row_of``; states beyond a round's width are a bucket game's padding).
# ``lock_code``: per storage entry, node locks (``solver.cfr.locks.Locks.codes``; empty: none).
# ``merge_from``: the first of the button's draw counts whose subtrees share every slot under the
# layout's recall rule (-1: none; :attr:`StrategyLayout.merge_from`), walked once (``kernels.traverse``).
LayoutArrays = namedtuple("LayoutArrays", "entry_offset row_width row_of legal_mask shared_rows lock_code own_rows "
                                          "merge_from")
NO_LOCKS = np.zeros(0, np.float32)
# What the kernels read of a layout by recall (see RecallRule): the rule's numbers and tables.
RuleArrays = namedtuple("RuleArrays", "recall radix n_phases code_base pot_levels n_pots code_slot slot_offset older "
                                      "older_code kept kept_code pot_kept")
MAX_RULE_CODES = 1 << 28   # dense key tables beyond this are refused (about 2 GiB)


@dataclass(frozen=True)
class RecallRule:
    """Slots by public-history key: imperfect recall of the rounds before the last ``recall``.

    A decision node's key is its round, the pot level when the round started,
    the records (outcome and both draw counts) of the ``recall`` rounds before
    its own (fewer early in the hand), what is kept of the rounds before those,
    and its phase in its round (see :mod:`solver.game.rounds`). A kept record is its code
    ``kept_code[round, record]``, one of ``kept`` (the record itself, ``kept`` = ``radix``,
    unless the config's ``draw_limit`` merges the larger draw counts). Of an older
    round the key keeps a code, ``older_code[round, record]``, one of
    ``older`` (what the config's ``older_betting`` and ``remember_draws``
    keep: the table comes from :mod:`solver.game.history`; ``older`` = 1
    keeps nothing). Nodes with one key share one slot: their histories
    differ only in what is forgotten, except for the pot they left. ``recall``
    = the number of draws is perfect recall: one slot per node of the public
    tree.

    Keys are numbered densely: ``code = code_base[r] + ((pot index * kept^k *
    older^(r-k) + records) * n_phases[r] + phase)`` with ``k = min(recall, r)``
    (the pot index 0 in a round whose key keeps every earlier record, ``pot_kept[r]``
    = 0: those records' outcomes give the pot),
    the kept records' codes as digits in base ``kept``, latest lowest, and above them
    the older rounds' digits in base ``older``; ``code_slot[code]`` is the
    key's slot.
    """

    recall: int
    radix: int
    n_phases: np.ndarray    # (rounds,) int64
    code_base: np.ndarray   # (rounds + 1,) int64
    pot_levels: np.ndarray  # (rounds, most levels) float64, NaN-padded
    n_pots: np.ndarray      # (rounds,) int64
    code_slot: np.ndarray   # (codes,) int64: slot of each key, -1 where no history has it
    older: int = 1          # codes an older round's record may keep (1: nothing)
    older_code: np.ndarray | None = None  # (rounds, radix) int64: the code each round's record keeps
    #                                        (None: the record modulo ``older``, as files before tables)
    kept: int = 0           # codes a recalled round's record may have (0: ``radix``, the record itself)
    kept_code: np.ndarray | None = None   # (rounds, radix) int64: a recalled record's code (None: itself)
    pot_kept: np.ndarray | None = None    # (rounds,) int64: 1 where a code counts the pot level, 0 where the
    #                                       records imply it (None: 1, as files before)

    ARRAYS = ("recall", "radix", "n_phases", "code_base", "pot_levels", "n_pots", "code_slot", "older", "older_code",
              "kept", "kept_code", "pot_kept")

    def __post_init__(self):
        if self.older_code is None:
            object.__setattr__(self, "older_code", modulus_codes(len(self.n_phases), self.radix, self.older))
        if self.kept_code is None:   # (files written before draw limits: every record told apart)
            object.__setattr__(self, "kept", self.radix)
            object.__setattr__(self, "kept_code", modulus_codes(len(self.n_phases), self.radix, self.radix))
        if self.pot_kept is None:
            object.__setattr__(self, "pot_kept", np.ones(len(self.n_phases), np.int64))

    def arrays(self) -> dict:
        return {name: np.asarray(getattr(self, name)) for name in self.ARRAYS}

    @classmethod
    def from_arrays(cls, arrays: dict) -> "RecallRule":
        # (files written before ``older`` existed forget older rounds whole; before ``older_code``,
        # they keep an older record modulo ``older``)
        code, kept, pot = arrays.get("older_code"), arrays.get("kept_code"), arrays.get("pot_kept")
        return cls(int(arrays["recall"]), int(arrays["radix"]),
                   *(np.asarray(arrays[name]) for name in cls.ARRAYS[2:-5]), int(arrays.get("older", 1)),
                   None if code is None else np.asarray(code, np.int64), int(arrays.get("kept", 0)),
                   None if kept is None else np.asarray(kept, np.int64),
                   None if pot is None else np.asarray(pot, np.int64))

    @property
    def remembers_draws(self) -> bool:
        return self.older > 1

    def kernel_arrays(self, slot_offset: np.ndarray) -> RuleArrays:
        return RuleArrays(self.recall, self.radix, self.n_phases, self.code_base, self.pot_levels, self.n_pots,
                          self.code_slot, slot_offset, self.older, self.older_code, self.kept, self.kept_code,
                          self.pot_kept)


def no_layout(rounds: int, n_states: int) -> LayoutArrays:
    """Layout arrays of the right types for a player without a strategy (a baseline)."""
    return LayoutArrays(np.zeros(1, np.int64), np.ones(rounds, np.int64), np.zeros((rounds, n_states), np.int64),
                        np.zeros((rounds, 1, 1)), False, NO_LOCKS, False, -1)


def no_rule(rounds: int) -> "RuleArrays":
    """Rule arrays of the right types for a player whose layout has no recall rule."""
    return RuleArrays(0, 1, np.ones(rounds, np.int64), np.zeros(rounds + 1, np.int64), np.zeros((rounds, 1)),
                      np.ones(rounds, np.int64), np.zeros(1, np.int64), np.zeros(2, np.int64), 1,
                      np.zeros((rounds, 1), np.int64), 1, np.zeros((rounds, 1), np.int64), np.ones(rounds, np.int64))


class LayoutError(ValueError):
    """Row maps that cannot form a layout (out of range, or mixing classes with different legal draws)."""


def slot_offsets(slot_actions: np.ndarray, slot_round: np.ndarray, row_width: np.ndarray) -> np.ndarray:
    """(slots + 1,) each slot's first entry: its actions times its round's row width, summed
    (what a layout's slot offsets are; compact files leave them out and read them back so);
    LayoutError if a slot's round is not one of ``row_width``'s."""
    slot_round = np.asarray(slot_round, np.int64)
    if len(slot_round) != len(slot_actions) or (len(slot_round) and (slot_round.min() < 0
                                                                     or slot_round.max() >= len(row_width))):
        raise LayoutError("the layout's slots do not fit its rounds")
    sizes = np.asarray(slot_actions, np.int64) * np.asarray(row_width, np.int64)[slot_round]
    out = np.zeros(len(sizes) + 1, np.int64)
    np.cumsum(sizes, out=out[1:])
    return out


def code_steps(code_slot: np.ndarray) -> np.ndarray:
    """A recall rule's key table (``RecallRule.code_slot``) said slot by slot: the differences
    between consecutive slots' key codes (the first slot's code first). Keys are numbered densely
    and their slots in a regular order, so these take a few dozen values and compress to almost
    nothing, where the table (one int64 per possible key: 1.8 GB at cap 4 in recall 2) does not;
    :func:`code_slots` is the inverse."""
    code_slot = np.asarray(code_slot, np.int64)
    valid = np.flatnonzero(code_slot >= 0)
    slot_code = np.empty(len(valid), np.int64)
    slot_code[code_slot[valid]] = valid
    return np.diff(slot_code, prepend=0)


def code_slots(steps: np.ndarray, n_codes: int) -> np.ndarray:
    """The key table of :func:`code_steps`'s ``steps`` over ``n_codes`` keys (-1 where no slot
    has the key); LayoutError if a slot's code is out of range or two slots share one."""
    codes = np.cumsum(np.asarray(steps, np.int64))
    if len(codes) and (codes.min() < 0 or codes.max() >= n_codes):
        raise LayoutError("a slot's key code is out of the rule's range")
    code_slot = np.full(n_codes, -1, np.int64)
    code_slot[codes] = np.arange(len(codes), dtype=np.int64)
    if np.count_nonzero(code_slot >= 0) != len(codes):
        raise LayoutError("two slots have one key code")
    return code_slot


@dataclass(frozen=True)
class StrategyLayout:
    """The storage map of one game's strategies; see the module docstring."""

    slot_of: np.ndarray       # (public nodes,) int64: slot of each decision node, -1 at terminals
    slot_round: np.ndarray    # (slots,) int8: betting round (a draw counts with the round before it)
    slot_seat: np.ndarray     # (slots,) int8: deciding seat
    slot_kind: np.ndarray     # (slots,) int8: BET or DRAW
    slot_actions: np.ndarray  # (slots,) int8: action rows
    slot_offset: np.ndarray   # (slots + 1,) int64: first entry of each slot; the last is the size
    row_width: np.ndarray     # (rounds,) int64: entries per action row
    row_of: np.ndarray        # (rounds, classes) int64: a class's position in a row of that round
    class_legal: np.ndarray   # (classes, hand_size + 1) bool: the draw counts each class may take
    #                           ((rounds, states, hand_size + 1) for a bucket game, whose states differ by round)
    rule: RecallRule | None = None  # slots by history key, for trees too big to build (slot_of empty)

    ARRAYS = ("slot_of", "slot_round", "slot_seat", "slot_kind", "slot_actions", "slot_offset", "row_width",
              "row_of", "class_legal")

    # -- construction ------------------------------------------------------
    @classmethod
    def build(cls, tree: PublicTree, class_legal: np.ndarray, row_of: np.ndarray | None = None) -> "StrategyLayout":
        """One slot per decision node, in node order. ``row_of`` (rounds, classes): each round's
        class -> bucket map (buckets numbered 0..k-1); ``None`` is full resolution."""
        row_of, row_width = _checked_row_maps(row_of, tree.config.rounds, tree.config.draws, class_legal)
        decision = np.nonzero(tree.kind <= DRAW)[0]
        slot_of = np.full(tree.n_nodes, -1, dtype=np.int64)
        slot_of[decision] = np.arange(len(decision))
        return cls._of_slots(slot_of, tree.round[decision], tree.seat[decision], tree.kind[decision],
                             tree.n_children[decision], row_width, row_of, class_legal)

    @classmethod
    def _of_slots(cls, slot_of, slot_round, slot_seat, slot_kind, slot_actions, row_width, row_of, class_legal,
                  rule=None) -> "StrategyLayout":
        slot_round, slot_actions = np.asarray(slot_round, np.int8), np.asarray(slot_actions, np.int8)
        return cls(slot_of, slot_round, np.asarray(slot_seat, np.int8), np.asarray(slot_kind, np.int8), slot_actions,
                   slot_offsets(slot_actions, slot_round, row_width), row_width.astype(np.int64), row_of,
                   np.asarray(class_legal, dtype=bool), rule)

    @classmethod
    def by_recall(cls, templates: RoundTemplates, class_legal: np.ndarray, recall: int,
                  row_of: np.ndarray | None = None, remember_draws: bool = False,
                  older_betting: str = DEFAULT_BETTING, draw_limit: int = 0) -> "StrategyLayout":
        """Slots by public-history key (see :class:`RecallRule`), for trees too big to build;
        ``remember_draws`` and ``older_betting``: what keys keep of the rounds older than
        ``recall``; ``draw_limit``: the largest draw count keys tell apart (0: every one; see
        :mod:`solver.game.history`). ``slot_of`` is empty; :meth:`materialize` fills it for a
        built tree."""
        config = templates.config
        if not 0 <= recall <= config.draws:
            raise LayoutError(f"recall must be 0 to {config.draws} rounds, got {recall}")
        row_of, row_width = _checked_row_maps(row_of, config.rounds, config.draws, class_legal)
        rounds = config.rounds
        radix = templates.record_radix
        older_code, older = older_codes(templates, recall, remember_draws, older_betting, draw_limit)
        kept_code, kept_radix = recent_codes(templates, draw_limit)
        levels = templates.pot_levels
        n_pots = np.array([len(x) for x in levels], np.int64)
        pot_levels = np.full((rounds, int(n_pots.max())), np.nan)
        for r, x in enumerate(levels):
            pot_levels[r, :len(x)] = x
        n_phases = np.array([templates.n_phases(r) for r in range(rounds)], np.int64)
        code_base = np.concatenate([[0], np.cumsum(_checked_code_sizes(templates, recall, older, kept_radix))]
                                   ).astype(np.int64)
        pot_kept = (np.arange(rounds) > recall).astype(np.int64)
        code_slot = np.full(int(code_base[-1]), -1, np.int64)
        slot_round, slot_seat, slot_kind, slot_actions = [], [], [], []
        all_keys = recall_keys(templates, recall, older_code, older, OlderCodes(kept_code, kept_radix))
        for r, keys in enumerate(all_keys):
            kept = min(recall, r)
            scale = kept_radix ** kept * older ** (r - kept)
            phase_seat, phase_kind, phase_actions = phase_tables(templates, r)
            n_keys, phases = len(keys), int(n_phases[r])
            first = code_base[r] + (keys[:, 0] * pot_kept[r] * scale + _key_digits(keys, kept, kept_radix, older)) * phases
            slots = sum(len(x) for x in slot_round) + np.arange(n_keys * phases, dtype=np.int64)
            code_slot[(first[:, None] + np.arange(phases)[None, :]).ravel()] = slots
            slot_round.append(np.full(n_keys * phases, r, np.int8))
            slot_seat.append(np.tile(phase_seat, n_keys))
            slot_kind.append(np.tile(phase_kind, n_keys))
            slot_actions.append(np.tile(phase_actions, n_keys))
        rule = RecallRule(recall, radix, n_phases, code_base, pot_levels, n_pots, code_slot, older, older_code,
                          kept_radix, kept_code, pot_kept)
        return cls._of_slots(np.zeros(0, np.int64), *(np.concatenate(x) for x in (slot_round, slot_seat, slot_kind,
                                                                                  slot_actions)),
                             row_width, row_of, class_legal, rule)

    def with_rows(self, class_legal: np.ndarray, row_of: np.ndarray) -> "StrategyLayout":
        """This layout's slots and entries (the same arrays, not copies: at cap 4 a recall rule's
        key table and slot arrays are gigabytes) for other private states with the same row
        widths: the abstract game's buckets beside the value classes."""
        row_of, row_width = _checked_row_maps(row_of, len(self.row_width), len(self.row_width) - 1, class_legal)
        if not np.array_equal(row_width, self.row_width):
            raise LayoutError(f"rows of {'/'.join(map(str, row_width))} entries cannot share a layout whose rows "
                              f"hold {'/'.join(map(str, self.row_width))}")
        return dataclasses.replace(self, row_of=row_of, class_legal=np.asarray(class_legal, dtype=bool))

    def materialize(self, tree: PublicTree) -> "StrategyLayout":
        """This layout with ``slot_of`` filled for a built tree (the same storage): a layout by
        recall then serves every walk, table and match that reads a tree."""
        if self.rule is None:
            return self
        slot_of = np.empty(tree.n_nodes, np.int64)
        node_slots(tree.kind, tree.round, tree.phase, tree.pot, tree.records, -1,
                   self.rule.kernel_arrays(self.slot_offset), slot_of)
        if (slot_of[tree.kind <= DRAW] < 0).any():
            raise LayoutError("the tree has histories this layout has no slot for")
        return dataclasses.replace(self, slot_of=slot_of)

    @staticmethod
    def planned_row_widths(buckets: tuple[int, ...], rounds: int, n_states: int) -> list[int]:
        """Row widths per round before clustering (k-means may leave a bucket empty: at most these)."""
        buckets = buckets or (0,) * rounds
        return [min(b, n_states) if b > 0 else n_states for b in buckets]

    # -- what it holds -----------------------------------------------------
    @property
    def n_states(self) -> int:
        return self.row_of.shape[1]

    @property
    def n_slots(self) -> int:
        return len(self.slot_round)

    @property
    def n_entries(self) -> int:
        return int(self.slot_offset[-1])

    @property
    def hand_size(self) -> int:
        return self.class_legal.shape[-1] - 1

    @cached_property
    def bucketed(self) -> bool:
        """Whether any round's rows are not simply one entry per class in class order (card
        buckets; the kernels then expand rows to classes through ``row_of``)."""
        return not bool((self.row_of == np.arange(self.n_states)).all())

    @cached_property
    def shares_slots(self) -> bool:
        """Whether several public nodes share a slot (imperfect recall of the public history)."""
        if self.rule is not None:
            return self.rule.recall < len(self.rule.n_phases) - 1 or self.rule.kept < self.rule.radix
        used = self.slot_of[self.slot_of >= 0]
        return len(np.unique(used)) < len(used)

    @cached_property
    def entry_offset(self) -> np.ndarray:
        """(public nodes,) first entry of each decision node's slot, -1 at terminals."""
        return np.where(self.slot_of >= 0, self.slot_offset[np.maximum(self.slot_of, 0)], -1).astype(np.int64)

    @cached_property
    def legal_mask(self) -> np.ndarray:
        """(rounds, hand_size + 1, widest row) float64: 1.0 where a row position may draw that count."""
        rounds = len(self.row_width)
        mask = np.zeros((rounds, self.hand_size + 1, int(self.row_width.max())))
        for r in range(rounds):
            mask[r][:, self.row_of[r]] = _round_legal(self.class_legal, r).T
        return mask

    @cached_property
    def own_rows(self) -> bool:
        """Whether each private state has a row position of its own: full resolution, or the
        abstract game's buckets (a bucket game's layout, whose ``class_legal`` is per round: its
        states beyond a round's width are padding that carries no mass, placed at position 0)."""
        if self.class_legal.ndim != 3:
            return not self.bucketed
        return all(bool((self.row_of[r, :w] == np.arange(w)).all() and (self.row_of[r, w:] == 0).all())
                   for r, w in enumerate(self.row_width))

    def kernel_arrays(self) -> LayoutArrays:
        return LayoutArrays(self.entry_offset, self.row_width, self.row_of, self.legal_mask,
                            self.bucketed or self.shares_slots, NO_LOCKS, self.own_rows, self.merge_from)

    @cached_property
    def merge_from(self) -> int:
        """The first of the button's draw counts from which, at every draw of his, the subtrees
        below share every slot under this layout's recall rule (-1: no two do).

        The button draws second: what follows his draw is the next round, whose keys hold his
        count only through the records the rule keeps (``kept_code``, ``older_code``), which a
        ``draw_limit`` caps (recall 0 keeping nothing caps them all: from 0). Histories that
        differ only in a count of his at or above it have one key at every later node, so in a
        walk where he is the traverser they reach each node with the same opponent reach
        (the opponent's keys, and so his strategy, are the same along them): one walk of the
        merged subtree gives them all their values (``kernels.traverse``). The big blind's
        count is never merged: the button's draw that follows it is keyed by it (its phase)."""
        rule = self.rule
        if rule is None or not (self.bucketed or self.shares_slots):
            return -1
        h1 = self.hand_size + 1
        first = 0
        tables = ([rule.kept_code] if rule.recall > 0 else []) + ([rule.older_code] if rule.older > 1 else [])
        for table in tables:
            if table.shape[1] % h1:
                return -1
            codes = np.asarray(table).reshape(table.shape[0], -1, h1)   # last axis: the button's count
            while first < h1 - 1 and not (codes[..., first:] == codes[..., -1:]).all():
                first += 1
        return first if first <= h1 - 2 else -1

    def describe(self) -> str:
        widths = "/".join(str(int(w)) for w in self.row_width)
        return f"{self.n_slots:,} slots, rows of {widths} entries by round, {self.n_entries:,} entries"

    # -- reading storage ---------------------------------------------------
    def entry(self, node: int, action: int, state: int) -> int:
        """The entry holding (decision node, action, private state) of a built tree's layout:
        ``slot_offset[slot_of[node]] + action * row_width[r] + row_of[r, state]``."""
        slot = int(self.slot_of[node])
        if slot < 0:
            raise LayoutError(f"node {node} is not a decision")
        rnd = int(self.slot_round[slot])
        if not 0 <= action < int(self.slot_actions[slot]):
            raise LayoutError(f"node {node} has {int(self.slot_actions[slot])} actions, not {action + 1}")
        return int(self.slot_offset[slot]) + action * int(self.row_width[rnd]) + int(self.row_of[rnd, state])

    def rows(self, storage: np.ndarray, slot: int, base: int = 0) -> np.ndarray:
        """(actions, row width) view of one slot's rows in ``storage``, whose first element is
        entry ``base`` (a chunk of a bigger storage)."""
        n_act = int(self.slot_actions[slot])
        width = int(self.row_width[self.slot_round[slot]])
        start = int(self.slot_offset[slot]) - int(base)
        return storage[start:start + n_act * width].reshape(n_act, width)

    def class_rows(self, storage: np.ndarray, slot: int, base: int = 0) -> np.ndarray:
        """(actions, classes): each class's entries of one slot (a bucket's, shared by its classes)."""
        return np.asarray(self.rows(storage, slot, base))[:, self.row_of[self.slot_round[slot]]]

    def storage_from_policy(self, policy) -> np.ndarray:
        """float32 storage holding ``policy(node)`` ((actions, classes) probabilities) at each
        decision node's slot: a fixed strategy to evaluate. Needs a full-resolution layout."""
        if self.bucketed:
            raise LayoutError("a per-class policy needs a full-resolution layout (no buckets)")
        storage = np.zeros(self.n_entries, dtype=np.float32)
        for node in np.nonzero(self.slot_of >= 0)[0]:
            self.rows(storage, int(self.slot_of[node]))[:] = policy(int(node))
        return storage

    def slot_chunks(self, max_entries: int):
        """(first slot, last slot + 1) ranges of at most about ``max_entries`` entries (at least one slot)."""
        lo = 0
        while lo < self.n_slots:
            hi = int(np.searchsorted(self.slot_offset, self.slot_offset[lo] + max_entries, side="right")) - 1
            hi = min(max(hi, lo + 1), self.n_slots)
            yield lo, hi
            lo = hi

    # -- files -------------------------------------------------------------
    def arrays(self) -> dict:
        out = {name: getattr(self, name) for name in self.ARRAYS}
        if self.rule is not None:
            out.update({RULE_PREFIX + name: value for name, value in self.rule.arrays().items()})
        return out

    @classmethod
    def from_arrays(cls, arrays: dict) -> "StrategyLayout":
        """A layout from :meth:`arrays` (as read from a file); LayoutError if they do not fit together."""
        try:
            rule = None
            if RULE_PREFIX + "recall" in arrays:
                rule = RecallRule.from_arrays({name[len(RULE_PREFIX):]: value for name, value in arrays.items()
                                               if name.startswith(RULE_PREFIX)})
            layout = cls(**{name: np.asarray(arrays[name]) for name in cls.ARRAYS}, rule=rule)
        except KeyError as err:
            raise LayoutError(f"the layout has no {err.args[0]!r} array") from None
        layout.check()
        return layout

    def check(self) -> None:
        """LayoutError unless the arrays are consistent (shapes, ranges, slot sizes)."""
        n_slots, rounds = self.n_slots, len(self.row_width)
        shapes_ok = (all(len(getattr(self, a)) == n_slots for a in ("slot_seat", "slot_kind", "slot_actions"))
                     and len(self.slot_offset) == n_slots + 1 and self.row_of.ndim == 2
                     and self.row_of.shape[0] == rounds and self.class_legal.shape[-2] == self.n_states)
        if not shapes_ok:
            raise LayoutError("the layout's arrays have inconsistent shapes")
        if n_slots and (self.slot_round.min() < 0 or self.slot_round.max() >= rounds):
            raise LayoutError("a slot's round is out of range")
        if n_slots and (self.slot_actions.min() < 1 or self.slot_actions.max() > 8):
            raise LayoutError("a slot's actions are out of range (1 to 8)")  # (the kernels' row buffers hold 8)
        if self.row_of.size and (self.row_of.min() < 0 or (self.row_of.max(axis=1) >= self.row_width).any()):
            raise LayoutError("a class's row position is out of range")
        sizes = self.slot_actions.astype(np.int64) * self.row_width[self.slot_round.astype(np.int64)]
        if not np.array_equal(np.diff(self.slot_offset), sizes) or (n_slots and self.slot_offset[0] != 0):
            raise LayoutError("slot offsets do not match the slots' sizes")
        if self.slot_of.size and self.slot_of.max() >= n_slots:
            raise LayoutError("a node's slot is out of range")
        rule = self.rule
        if rule is not None:
            # (the kernels index these tables unchecked)
            if (rule.older_code.shape != (rounds, rule.radix) or rule.older < 1
                    or (rule.older_code.size and (rule.older_code.min() < 0 or rule.older_code.max() >= rule.older))):
                raise LayoutError("the recall rule's table of older rounds does not fit the rule")
            if (rule.kept_code.shape != (rounds, rule.radix) or not 1 <= rule.kept <= rule.radix
                    or (rule.kept_code.size and (rule.kept_code.min() < 0 or rule.kept_code.max() >= rule.kept))):
                raise LayoutError("the recall rule's table of recalled rounds does not fit the rule")
            if rule.pot_kept.shape != (rounds,) or not np.isin(rule.pot_kept, (0, 1)).all():
                raise LayoutError("the recall rule's pot flags do not fit the rule")
            if (len(rule.code_base) != rounds + 1 or len(rule.code_slot) != int(rule.code_base[-1])
                    or (len(rule.code_slot) and rule.code_slot.max() >= n_slots)):
                raise LayoutError("the recall rule's key table does not fit the layout")


def phase_tables(templates: RoundTemplates, rnd: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The slots of one history key of round ``rnd`` under a recall rule, in their order: each
    phase's deciding seat, kind (BET or DRAW) and number of actions (int8 arrays): the round's
    betting positions, then (before the last round) the big blind's draw after each outcome and
    the button's after each outcome and count of the big blind's."""
    config = templates.config
    template = templates.rounds[rnd]
    h1 = config.hand_size + 1
    n_pos, n_out = template.n_positions, template.n_outcomes
    seat = list(template.seat) + [BIG_BLIND] * n_out + [BUTTON] * (n_out * h1)
    kind = [BET] * n_pos + [DRAW] * (n_out * (h1 + 1))
    actions = list(template.n_actions) + [h1] * (n_out * (h1 + 1))
    if rnd == config.draws:
        seat, kind, actions = seat[:n_pos], kind[:n_pos], actions[:n_pos]
    return np.asarray(seat, np.int8), np.asarray(kind, np.int8), np.asarray(actions, np.int8)


RULE_PREFIX = "rule_"


def _checked_code_sizes(templates: RoundTemplates, recall: int, older: int, kept: int = 0) -> list[int]:
    """Codes per round of a recall rule's dense key table (``kept``: the codes of a recalled
    record, 0 for the record radix); LayoutError (before any key is enumerated) when the table
    would be too big."""
    kept = kept or templates.record_radix
    # (a round whose key keeps every earlier record has its pot from them: no pot digit)
    sizes = [(len(templates.pot_levels[r]) if r > recall else 1) * kept ** min(recall, r) * older ** max(r - recall, 0)
             * templates.n_phases(r) for r in range(templates.config.rounds)]
    if sum(sizes) > MAX_RULE_CODES:
        what = f"recall {recall}" + (" with what older rounds keep" if older > 1 else "")
        raise LayoutError(f"{what} needs {sum(sizes):,} history keys, more than {MAX_RULE_CODES:,}: remember fewer "
                          "rounds" + (" or keep less of the older ones" if older > 1 else ""))
    return sizes


def _key_digits(keys: np.ndarray, kept: int, radix: int, older: int) -> np.ndarray:
    """The records part of each key (rows of :func:`recall_keys`, see :class:`RecallRule`): the
    kept records, latest first, then the older rounds' codes."""
    digits = np.zeros(len(keys), np.int64)
    scale = 1
    for k in range(1, keys.shape[1]):
        digits += keys[:, k] * scale
        scale *= radix if k <= kept else older
    return digits


def recall_keys(templates: RoundTemplates, recall: int, older_code: np.ndarray | None = None,
                older: int = 1, recent: OlderCodes | None = None) -> list[np.ndarray]:
    """Per round, the history keys a recall rule tells apart at the round's start, as rows
    (pot level index, the codes of the last ``recall`` rounds' records, ``recent.code[round,
    record]`` (the records themselves if ``recent`` is None), latest first, then the codes the
    older ones keep, ``older_code[round, record]``: nothing if ``older`` is 1), sorted
    lexicographically (the order of the layout's slots)."""
    h1 = templates.config.hand_size + 1
    if recent is None:
        recent = recent_codes(templates)
    # an older round's code from its recalled code (a draw limit merges both alike)
    older_of_recent = np.zeros((templates.config.rounds, recent.n_codes), np.int64)
    if older > 1:
        for r in range(templates.config.rounds):
            older_of_recent[r, recent.code[r]] = older_code[r]
            if not np.array_equal(older_of_recent[r, recent.code[r]], older_code[r]):
                raise LayoutError("an older round's code must follow from its recalled code")
    keys, out = np.zeros((1, 1), np.int64), []
    for r, template in enumerate(templates.rounds):
        out.append(keys)
        if r == templates.config.draws:
            break
        levels = np.round(np.asarray(templates.pot_levels[r]), 9)
        following = np.round(np.asarray(templates.pot_levels[r + 1]), 9)
        contrib = np.asarray(template.outcome_contrib, np.float64)
        n_keys, n_out = len(keys), len(contrib)
        # every key, outcome and pair of draw counts: the pot it leads to, and its new record first
        pot_value = np.round(levels[keys[:, 0]][:, None] + contrib[None, :], 9)          # (keys, outcomes)
        new_pot = np.searchsorted(following, pot_value)
        if not np.array_equal(following[np.minimum(new_pot, len(following) - 1)], pot_value):
            raise LayoutError("a round's pot is not one of the next round's levels")
        record = recent.code[r, (np.arange(n_out)[:, None] * h1 * h1 + np.arange(h1 * h1)[None, :]).ravel()]
        #        (outcomes x draws: the codes of the new records)
        n_new = n_out * h1 * h1
        records = keys[:, 1:]
        width = records.shape[1] + 1
        if older == 1:
            width = min(width, recall)
        nxt = np.empty((n_keys * n_new, 1 + width), np.int64)
        nxt[:, 0] = np.repeat(new_pot, h1 * h1, axis=1).ravel()
        for k in range(width):
            column = record if k == 0 else records[:, k - 1]
            if older > 1 and k == recall:
                column = older_of_recent[r - recall, column]  # the record that leaves the recall becomes its code
            nxt[:, 1 + k] = np.tile(column, n_keys) if k == 0 else np.repeat(column, n_new)
        order = np.lexsort(nxt.T[::-1])
        nxt = nxt[order]
        fresh = np.ones(len(nxt), bool)
        fresh[1:] = np.any(nxt[1:] != nxt[:-1], axis=1)
        keys = nxt[fresh]
    return out


class RecallSizes(NamedTuple):
    """Per round, what a layout by recall rule holds (without building it)."""

    rows: list[int]         # action rows
    key_states: list[int]   # decision states: the round's keys times its phases (one slot each)
    codes: int = 0          # entries of the rule's dense key table (``RecallRule.code_slot``)


def recall_sizes_by_round(templates: RoundTemplates, recall: int, remember_draws: bool = False,
                          older_betting: str = DEFAULT_BETTING, draw_limit: int = 0) -> RecallSizes:
    """Action rows and key states per round of a layout by recall rule (without building it).
    A key state is one decision of the rule's *key graph*: every public node whose history has
    that key and phase shares its slot (see :class:`RecallRule`)."""
    h1 = templates.config.hand_size + 1
    rows, states = [], []
    older_code, older = older_codes(templates, recall, remember_draws, older_betting, draw_limit)
    recent = recent_codes(templates, draw_limit)
    codes = sum(_checked_code_sizes(templates, recall, older, recent.n_codes))
    for r, (template, keys) in enumerate(zip(templates.rounds, recall_keys(templates, recall, older_code, older,
                                                                           recent))):
        per_key = int(template.n_actions.astype(np.int64).sum())
        phases = template.n_positions
        if r < templates.config.draws:
            per_key += template.n_outcomes * (1 + h1) * h1
            phases += template.n_outcomes * (1 + h1)
        rows.append(len(keys) * per_key)
        states.append(len(keys) * phases)
    return RecallSizes(rows, states, codes)


def config_row_maps(config, n_states: int) -> np.ndarray | None:
    """The class -> row maps a config's card buckets ask for (k-means from
    :mod:`abstractions.buckets`, cached on disk); None at full resolution."""
    if not config.bucketed:
        return None
    from abstractions.buckets import bucket_map

    row_of = np.tile(np.arange(n_states, dtype=np.int64), (config.rounds, 1))
    for r, k in enumerate(config.buckets):
        if k > 0:
            row_of[r] = bucket_map(config.ranks, config.suits, config.hand_size, config.draws, r, k,
                                   last=config.last_round_buckets)
    return row_of


def _checked_row_maps(row_of, rounds: int, draws: int, class_legal: np.ndarray):
    """(row maps, row widths): ``row_of`` (or the identity) checked: positions numbered densely
    per round, and a bucket's classes sharing their legal draws in rounds followed by a draw."""
    n_states = class_legal.shape[-2]
    identity = np.tile(np.arange(n_states, dtype=np.int64), (rounds, 1))
    row_of = identity if row_of is None else np.ascontiguousarray(row_of, dtype=np.int64)
    if row_of.shape != (rounds, n_states):
        raise LayoutError(f"row maps must be (rounds, classes) = ({rounds}, {n_states}), got {row_of.shape}")
    if row_of.min() < 0:
        raise LayoutError("row maps hold negative positions")
    row_width = row_of.max(axis=1) + 1
    for r in range(rounds):
        if len(np.unique(row_of[r])) != row_width[r]:
            raise LayoutError(f"round {r}: buckets must be numbered 0 to {row_width[r] - 1} without gaps")
        if r < draws and not _same_legal_draws(row_of[r], _round_legal(class_legal, r)):
            raise LayoutError(f"round {r} buckets mix classes with different legal draws")
    return row_of, row_width


def _round_legal(class_legal: np.ndarray, rnd: int) -> np.ndarray:
    """The (states, draw counts) legality of a round: the same every round for value classes."""
    return class_legal[rnd] if class_legal.ndim == 3 else class_legal


def _same_legal_draws(row_of_round: np.ndarray, class_legal: np.ndarray) -> bool:
    """Whether every bucket's classes may take the same draw counts."""
    member = np.unique(row_of_round, return_index=True)[1]  # one class of each bucket (numbered densely)
    return bool(np.array_equal(class_legal, class_legal[member[row_of_round]]))


@njit(cache=True, inline="always")
def pot_index(rule, rnd, pot):
    """Index of a pot level of round ``rnd`` (-1 if none)."""
    lo, hi = 0, rule.n_pots[rnd] - 1
    while lo <= hi:
        mid = (lo + hi) // 2
        level = rule.pot_levels[rnd, mid]
        if abs(level - pot) < 1e-9:
            return mid
        if level < pot:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1


@njit(cache=True, inline="always")
def key_code(rule, rnd, pot, records, earliest_record):
    """The key of a decision of round ``rnd`` under a recall rule (``rule``: :data:`RuleArrays`)
    without its phase: its pot digit (where the rule counts it) above its records' digits, the
    number ``(p * scale + digits)`` of :class:`RecallRule`; -1 if no key has them. ``records``
    are the node's earlier round records, latest first; a -1 among the kept ones stands for the
    first round's record, given as ``earliest_record`` (a subtree generated below the first round
    does not know it)."""
    kept = min(rule.recall, rnd)
    digits = 0
    scale = 1
    for k in range(rnd):
        record = records[k]
        if record < 0:
            record = earliest_record
        if k < kept:
            if record < 0:
                return -1
            digits += rule.kept_code[rnd - 1 - k, record] * scale
            scale *= rule.kept
        elif rule.older > 1:
            if record < 0:
                return -1
            digits += rule.older_code[rnd - 1 - k, record] * scale
            scale *= rule.older
    p = pot_index(rule, rnd, pot)
    if p < 0 or digits < 0:
        return -1
    return p * rule.pot_kept[rnd] * scale + digits


@njit(cache=True)
def key_slot(rule, rnd, phase, pot, records, earliest_record):
    """Slot of a decision node's key under a recall rule (``rule``: :data:`RuleArrays`; see
    :func:`key_code`)."""
    code = key_code(rule, rnd, pot, records, earliest_record)
    if code < 0:
        return -1
    return rule.code_slot[rule.code_base[rnd] + code * rule.n_phases[rnd] + phase]


@njit(cache=True)
def node_slots(kind, rnd, phase, pot, records, earliest_record, rule, out):
    """Slot of every decision node of a generated tree under a recall rule into ``out`` (-1 at
    terminals and at keys the rule has no slot for)."""
    for node in range(len(kind)):
        out[node] = -1
        if kind[node] <= DRAW:
            out[node] = key_slot(rule, rnd[node], phase[node], pot[node], records[node], earliest_record)
