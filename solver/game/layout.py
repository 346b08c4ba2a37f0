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
are all just layouts; the engine allocates from one, the kernels read it
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

from collections import namedtuple
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from .tree import DRAW, PublicTree

# What the kernels read of a layout: per public node the first entry of its slot (-1 at
# terminals), per round the row width, per (round, class) the row position, per round a
# (draw counts, width) 0/1 legality mask, and whether any round is bucketed.
LayoutArrays = namedtuple("LayoutArrays", "entry_offset row_width row_of legal_mask bucketed")


class LayoutError(ValueError):
    """Row maps that cannot form a layout (out of range, or mixing classes with different legal draws)."""


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

    ARRAYS = ("slot_of", "slot_round", "slot_seat", "slot_kind", "slot_actions", "slot_offset", "row_width",
              "row_of", "class_legal")

    # -- construction ------------------------------------------------------
    @classmethod
    def build(cls, tree: PublicTree, class_legal: np.ndarray, row_of: np.ndarray | None = None) -> "StrategyLayout":
        """One slot per decision node, in node order. ``row_of`` (rounds, classes): each round's
        class -> bucket map (buckets numbered 0..k-1); ``None`` is full resolution."""
        rounds = tree.config.rounds
        n_states = len(class_legal)
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
            if r < tree.config.draws and not _same_legal_draws(row_of[r], class_legal):
                raise LayoutError(f"round {r} buckets mix classes with different legal draws")
        decision = np.nonzero(tree.kind <= DRAW)[0]
        slot_of = np.full(tree.n_nodes, -1, dtype=np.int64)
        slot_of[decision] = np.arange(len(decision))
        slot_round = tree.round[decision].astype(np.int8)
        slot_actions = tree.n_children[decision].astype(np.int8)
        sizes = slot_actions.astype(np.int64) * row_width[slot_round]
        return cls(slot_of, slot_round, tree.seat[decision].astype(np.int8), tree.kind[decision].astype(np.int8),
                   slot_actions, np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
                   row_width.astype(np.int64), row_of, np.asarray(class_legal, dtype=bool))

    @classmethod
    def for_config(cls, tree: PublicTree, class_legal: np.ndarray) -> "StrategyLayout":
        """The layout a config asks for: full resolution, or its card buckets per round
        (k-means from :mod:`abstractions.buckets`, cached on disk)."""
        config = tree.config
        if not any(config.buckets):
            return cls.build(tree, class_legal)
        from abstractions.buckets import bucket_map

        n_states = len(class_legal)
        row_of = np.tile(np.arange(n_states, dtype=np.int64), (config.rounds, 1))
        for r, k in enumerate(config.buckets):
            if k > 0:
                row_of[r] = bucket_map(config.ranks, config.suits, config.hand_size, config.draws, r, k)
        return cls.build(tree, class_legal, row_of)

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
        return self.class_legal.shape[1] - 1

    @cached_property
    def bucketed(self) -> bool:
        """Whether any round's rows are not simply one entry per class in class order (card
        buckets; the kernels then expand rows to classes through ``row_of``)."""
        return not bool((self.row_of == np.arange(self.n_states)).all())

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
            mask[r][:, self.row_of[r]] = self.class_legal.T
        return mask

    def kernel_arrays(self) -> LayoutArrays:
        return LayoutArrays(self.entry_offset, self.row_width, self.row_of, self.legal_mask, self.bucketed)

    def describe(self) -> str:
        widths = "/".join(str(int(w)) for w in self.row_width)
        return f"{self.n_slots:,} slots, rows of {widths} entries by round, {self.n_entries:,} entries"

    # -- reading storage ---------------------------------------------------
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
        return {name: getattr(self, name) for name in self.ARRAYS}

    @classmethod
    def from_arrays(cls, arrays: dict) -> "StrategyLayout":
        """A layout from :meth:`arrays` (as read from a file); LayoutError if they do not fit together."""
        try:
            layout = cls(**{name: np.asarray(arrays[name]) for name in cls.ARRAYS})
        except KeyError as err:
            raise LayoutError(f"the layout has no {err.args[0]!r} array") from None
        layout.check()
        return layout

    def check(self) -> None:
        """LayoutError unless the arrays are consistent (shapes, ranges, slot sizes)."""
        n_slots, rounds = self.n_slots, len(self.row_width)
        shapes_ok = (all(len(getattr(self, a)) == n_slots for a in ("slot_seat", "slot_kind", "slot_actions"))
                     and len(self.slot_offset) == n_slots + 1 and self.row_of.ndim == 2
                     and self.row_of.shape[0] == rounds and self.class_legal.shape[0] == self.n_states)
        if not shapes_ok:
            raise LayoutError("the layout's arrays have inconsistent shapes")
        if n_slots and (self.slot_round.min() < 0 or self.slot_round.max() >= rounds):
            raise LayoutError("a slot's round is out of range")
        if self.row_of.size and (self.row_of.min() < 0 or (self.row_of.max(axis=1) >= self.row_width).any()):
            raise LayoutError("a class's row position is out of range")
        sizes = self.slot_actions.astype(np.int64) * self.row_width[self.slot_round.astype(np.int64)]
        if not np.array_equal(np.diff(self.slot_offset), sizes) or (n_slots and self.slot_offset[0] != 0):
            raise LayoutError("slot offsets do not match the slots' sizes")
        if self.slot_of.size and self.slot_of.max() >= n_slots:
            raise LayoutError("a node's slot is out of range")


def _same_legal_draws(row_of_round: np.ndarray, class_legal: np.ndarray) -> bool:
    """Whether every bucket's classes may take the same draw counts."""
    member = np.unique(row_of_round, return_index=True)[1]  # one class of each bucket (numbered densely)
    return bool(np.array_equal(class_legal, class_legal[member[row_of_round]]))


@njit(cache=True)
def policy_entry(layout, node, rnd, action, state):
    """Storage index of (decision node, action, class) under ``layout`` (:class:`LayoutArrays`)."""
    return layout.entry_offset[node] + action * layout.row_width[rnd] + layout.row_of[rnd, state]
