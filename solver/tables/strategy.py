"""Solved strategies as tables: policies for real hands, per-class rows, streamed exports.

A strategy directory (the output of ``badugi solve``) holds ``strategy.npz``:
the average strategy with its layout and public tree
(:mod:`solver.cfr.files`). :func:`load_strategy` reads it and builds nothing:
a policy lookup maps the hand to its value class with the evaluator, the
history to its node with the stored tree, and reads a few memory-mapped rows.
Reach probabilities and expected values come from one exact evaluate walk
(:meth:`solver.cfr.walker.Walker.node_stats`), made on demand.

Table rows are per (seat, history, hand class) at each decision point:

- ``reach``: probability that a hand reaches the history with the acting seat
  holding that class, when both seats play the strategy (the acting seat's
  reach, chance included, times the opponent's total reach). Over the classes
  of one history it sums to the probability of reaching the history.
- action probabilities: ``f k c b r`` at betting points, ``d0``..``d4`` (cards
  drawn) at draw points; illegal draws are blank.
- ``ev_mbb``: the acting seat's expected value (mbb/hand) given that it
  reaches the history with that class, from the seat's own point of view.
- ``locked`` (only for a locked solve): whether its lock file fixes the row.

>>> strategy = load_strategy("runs/single-draw")          # doctest: +SKIP
>>> strategy.policy("ck/", "As2h3d4c")                     # doctest: +SKIP
{'0': 1.0, '1': 0.0, '2': 0.0, '3': 0.0, '4': 0.0}
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Iterator

import numpy as np

from abstractions.cards import parse_cards
from abstractions.evaluator import get_evaluator
from abstractions.transitions import get_draw_model

from ..cfr.store import CompactStore, is_store, read_strategy
from ..cfr.store_walks import LayoutRows
from ..cfr.files import STRATEGY_NAME, CheckpointError
from ..cfr.walker import NodeStats, Walker, class_strategy, slot_strategy
from ..game.layout import StrategyLayout, key_slot
from ..game.rounds import RoundTemplates, locate
from ..game.tree import BET, BET_LABELS, DRAW, SEAT_NAMES
from .spots import SpotEngine, tree_spot

BET_COLUMNS = list(BET_LABELS)


# A hand reaching a decision less often than this is one the strategy practically never brings
# there: what it plays there was hardly tested by the solve.
NEGLIGIBLE_REACH = 1e-9

@dataclass(frozen=True)
class Decision:
    """A decision point of a strategy: who decides, bet or draw, the action labels, its slot, and
    its node (-1 when the game's tree is not built)."""

    seat: int
    kind: int
    labels: list
    slot: int
    node: int


def draw_columns(hand_size: int) -> list[str]:
    return [f"d{d}" for d in range(hand_size + 1)]


def decision_node(tree, history: str) -> int:
    """The node of a built tree that a history names; ValueError if malformed or not a decision."""
    node = tree.node_at(history)
    if tree.kind[node] > DRAW:
        raise ValueError(f"history {history!r} ends the hand: there is no decision there")
    return node


def node_labels(tree, node: int) -> list[str]:
    return [chr(tree.action[c]) for c in tree.children(node)]


def find_decision(config, tree, layout, history: str, templates: RoundTemplates | None = None) -> Decision:
    """Who decides at a history, what kind of decision, its action labels and its slot in
    ``layout``: through the built ``tree``, or (None) through the rounds' templates and the
    layout's recall rule; ValueError if malformed or not a decision. (Anything holding a layout
    locates decisions with it: a Strategy, the compact file's writer.)"""
    if tree is not None:
        node = decision_node(tree, history)
        return Decision(int(tree.seat[node]), int(tree.kind[node]), node_labels(tree, node),
                        int(layout.slot_of[node]), node)
    at = locate(templates if templates is not None else RoundTemplates.of(config), history)
    rule = layout.rule.kernel_arrays(layout.slot_offset)
    records = np.full(max(config.draws, 1), -1, np.int64)
    records[:len(at.records)] = at.records
    slot = int(key_slot(rule, at.round, at.phase, at.pot, records, -1))
    return Decision(at.seat, at.kind, list(at.labels), slot, -1)

class Strategy:
    """A solved average strategy with its layout and game tree; see the module docstring.

    A compact strategy stored in chunks (:mod:`solver.cfr.store`) of a game read by its recall
    rule (cap-4 triple draw) is read lazily: a decision, a policy or a spot's numbers read the
    chunks that hold them (:attr:`store`, :meth:`spot`); :attr:`probabilities` and
    :attr:`layout` expand the whole strategy only when asked for (10.6 GB at cap 4)."""

    def __init__(self, directory: str | Path, saved=None, cache_mb: float | None = None):
        """``saved``: what the directory holds, already read (else read here: its strategy file,
        or its compact strategy). ``cache_mb``: the bound of a store's chunk cache."""
        self.directory = Path(directory)
        self.store = None
        if saved is None and is_store(self.directory):
            store = CompactStore(self.directory, cache_mb)
            if store.table.by_rule:
                self.store = store
            else:   # (a built tree's store: a small game, read whole)
                saved = store.expand()
        if self.store is not None:
            manifest = self.store.manifest
            certificate = manifest.get("certificate") or {}
            self.config = self.store.config
            self.algorithm = str(manifest["algorithm"])
            self.iteration = int(manifest["iteration"])
            self.exploitability_mbb = float(certificate.get("exploitability_mbb", manifest["full_exploitability_mbb"]))
            self.game_value_mbb = float(certificate.get("game_value_mbb", manifest["full_game_value_mbb"]))
            self.tree = None
            self.n_states = self.store.lite.n_states
        else:
            saved = saved if saved is not None else read_strategy(self.directory)
            self._saved = saved
            self.config = saved.config
            self.algorithm = saved.algorithm
            self.iteration = saved.iteration
            self.exploitability_mbb = saved.exploitability_mbb
            self.game_value_mbb = saved.game_value_mbb
            self.tree = saved.tree
            self.n_states = saved.layout.n_states
        self.evaluator = get_evaluator(self.config.ranks, self.config.suits, self.config.hand_size)
        if self.tree is not None and self.layout.rule is not None and not len(self.layout.slot_of):
            raise CheckpointError(f"{self.directory / STRATEGY_NAME} is damaged: its layout has no slots for its tree")
        if self.n_states != self.evaluator.n_values:
            raise CheckpointError(f"{self.directory / STRATEGY_NAME} is damaged: its layout has {self.n_states} "
                                  f"classes, the game {self.evaluator.n_values}")

    @cached_property
    def _saved(self):
        """The whole strategy (a store expanded: its layout in the store's slot order)."""
        return self.store.expand()

    @property
    def layout(self) -> StrategyLayout:
        return self.__dict__.get("_layout") or self._saved.layout

    @layout.setter
    def layout(self, layout: StrategyLayout) -> None:
        """(the same storage in another layout: a tree-less strategy's materialised on a tree)"""
        self._layout = layout

    @property
    def probabilities(self) -> np.ndarray:
        return self._saved.probabilities

    @property
    def rows_layout(self) -> StrategyLayout:
        """The layout's rows (widths, buckets, legal draws) without expanding a store's slots."""
        return self.store.lite if self.store is not None else self.layout

    @cached_property
    def walks(self):
        """Whole-tree walks of a stored strategy read a subtree at a time
        (:class:`solver.cfr.store_walks.StoreWalks`): its certificate, its charts' summary."""
        if self.store is None:
            raise ValueError("walks a subtree at a time read a compact strategy stored in chunks")
        return self.spots.walks

    @cached_property
    def spots(self):
        """The numbers of one spot of a game whose tree is never built
        (:class:`solver.tables.spots.SpotEngine`): a store's from its chunks and spot tables; a
        strategy file's from its rows (a first-round spot: two walks of the whole tree, once)."""
        if self.store is not None:
            return SpotEngine(self.store)
        if self.tree is not None:
            raise ValueError("a built tree's spots come from its walks (spot())")
        return SpotEngine(LayoutRows(self.config, self.layout, self.probabilities, str(self.directory)))

    def spot(self, history: str):
        """Everything about the decision at ``history`` (:class:`solver.tables.spots.Spot`): its
        mix, both seats' reach and values, the acting seat's value of each action. ValueError if
        the history is not a decision."""
        if self.tree is not None:
            return tree_spot(self, history)
        return self.spots.spot(history)

    @cached_property
    def draw_model(self):
        return get_draw_model(self.config.ranks, self.config.suits, self.config.hand_size)

    @cached_property
    def walker(self) -> Walker:
        """Walks for reach and values (needs the draw model; made on first use)."""
        if self.tree is None:
            raise ValueError(f"{self.config.describe()}: its public tree is too big to build, so there is no "
                             "strategy table by history for it; history_stats() (badugi show --history), its "
                             "charts (badugi plot), policy() and badugi match read it")
        return Walker(self.tree, self.layout, self.draw_model)

    @cached_property
    def locks(self):
        """The (decision, class) pairs a locked solve fixed (its directory's lock_pairs.npz, beside
        its lock.toml), or None."""
        from ..cfr.locks import LOCK_FILE_NAME, LOCK_PAIRS_NAME, load_locked_pairs

        path = self.directory / LOCK_PAIRS_NAME
        if self.tree is None or not path.is_file():
            return None
        text = (self.directory / LOCK_FILE_NAME).read_text() if (self.directory / LOCK_FILE_NAME).is_file() else ""
        return load_locked_pairs(path, text)

    def locked_classes(self, node: int) -> np.ndarray:
        """(classes,) bool: which hand classes a lock fixes at a decision node."""
        mask = np.zeros(self.n_states, bool)
        if self.locks is not None:
            mask[self.locks.classes_at(node)] = True
        return mask

    @cached_property
    def templates(self) -> RoundTemplates:
        return RoundTemplates.of(self.config)

    # -- single decisions --------------------------------------------------
    def node(self, history: str) -> int:
        """The decision node a history names; ValueError if malformed or not a decision."""
        if self.tree is None:
            raise ValueError(f"{self.config.describe()}: its public tree is not built; decisions are located "
                             "by history (see decision())")
        return decision_node(self.tree, history)

    def decision(self, history: str) -> Decision:
        """Who decides at a history, what kind of decision, its action labels and its slot;
        ValueError if malformed or not a decision."""
        if self.store is not None:
            at = locate(self.templates, history)
            slot = self.store.key_slot(at.round, at.phase, at.pot, at.records)
            if slot < 0:
                raise ValueError(f"history {history!r}: the strategy has no slot for it")
            return Decision(at.seat, at.kind, list(at.labels), slot, -1)
        return find_decision(self.config, self.tree, self.layout, history, self.templates)

    def labels(self, node: int) -> list[str]:
        return node_labels(self.tree, node)

    def strategy_at(self, node: int) -> np.ndarray:
        """(n_actions, n_states) probabilities at a decision node (a bucket's for each of its classes),
        as the evaluate walks play them."""
        return class_strategy(self.layout, self.probabilities, node)

    def hand_class(self, cards) -> int:
        if isinstance(cards, str):
            cards = parse_cards(cards, self.evaluator.deck, count=self.config.hand_size)
        return self.evaluator.evaluate(np.asarray(cards))

    def policy(self, history: str, cards) -> dict[str, float]:
        """Legal actions (``f k c b r`` or draw counts ``"0"``-``"4"``) to probabilities."""
        decision = self.decision(history)
        value = self.hand_class(cards)
        probs = self.decision_strategy(decision)[:, value]
        legal = self.rows_layout.class_legal[value] if decision.kind == DRAW else None
        return {label: float(p) for a, (label, p) in enumerate(zip(decision.labels, probs))
                if legal is None or legal[a]}

    def reach(self, history: str, cards) -> float:
        """How often the strategy brings a hand of this class here: the probability that the
        player to act holds it and both seats' earlier actions lead to this history (the
        policy of a hand with reach 0 was never tested by the solve)."""
        decision = self.decision(history)
        value = self.hand_class(cards)
        return float(self.history_stats(history).reach_of(0, decision.seat)[value])

    def history_stats(self, history: str) -> NodeStats:
        """Both seats' reach and values at one decision (a batch of one): from the built tree's
        walks, or, for a game whose tree is never built, from streamed walks of the subtree
        below the history's first round (whole-tree walks for a first-round decision)."""
        decision = self.decision(history)
        if decision.node >= 0:
            return next(self.stats([decision.node]))
        return self.spots.spot(history).stats

    def decision_strategy(self, decision: Decision) -> np.ndarray:
        """(n_actions, n_states) probabilities at a decision, as the walks play them."""
        if decision.node >= 0:
            return self.strategy_at(decision.node)
        if self.store is not None:
            return self.store.slot_strategy(decision.slot)
        return slot_strategy(self.layout, self.probabilities, decision.slot)

    @cached_property
    def streamed(self):
        """Walks of a game whose tree is never built (made on first use)."""
        from ..cfr.streamed import StreamedWalker
        from ..game.tree import StreamedGame

        return StreamedWalker(StreamedGame(self.templates), self.layout, self.draw_model)

    # -- reach and values --------------------------------------------------
    def stats(self, nodes=None) -> Iterator[NodeStats]:
        """Reach and values of decision nodes, in batches of at most one subtree (see
        :meth:`Walker.node_stats`)."""
        return self.walker.node_stats(self.probabilities, nodes)

    def rows(self, rounds=None, prefix: str | None = None, min_reach: float = 0.0,
             kinds=None) -> Iterator[dict]:
        """Table rows (see the module docstring), streamed one subtree at a time (a game whose tree
        is never built: the first round's, or the subtree below a second-round start that
        ``prefix`` names, each walked on its own)."""
        if self.tree is None:
            yield from self._streamed_rows(rounds, prefix, min_reach, kinds)
            return
        tree = self.tree
        nodes = np.nonzero(tree.kind <= DRAW)[0]
        if rounds is not None:
            nodes = nodes[np.isin(tree.round[nodes], list(rounds))]
        if kinds is not None:
            nodes = nodes[np.isin(tree.kind[nodes], [BET if k == "bet" else DRAW for k in kinds])]
        if prefix:
            inside = np.zeros(tree.n_nodes, dtype=bool)
            tree.mark_subtree(inside, tree.node_at(prefix))  # ValueError names a bad prefix
            nodes = nodes[inside[nodes]]
        names = [self.evaluator.describe(v) for v in range(self.n_states)]
        legal = self.layout.class_legal
        columns = BET_COLUMNS + draw_columns(self.config.hand_size)
        for batch in self.stats(nodes):
            for i, node in enumerate(batch.nodes):
                node = int(node)
                decision = Decision(int(tree.seat[node]), int(tree.kind[node]), self.labels(node),
                                    int(self.layout.slot_of[node]), node)
                locked = self.locked_classes(node) if self.locks is not None else None
                yield from self._node_rows(batch, i, decision, tree.history(node), int(tree.round[node]), names, legal,
                                           columns, min_reach, locked)

    def _streamed_rows(self, rounds, prefix, min_reach, kinds) -> Iterator[dict]:
        walks = self.spots.walks
        trunk, shape = walks.trunk, walks.shape
        if prefix:
            self.decision(prefix)  # ValueError names a bad prefix
        cut, node = walks.locate(prefix or "")
        whole_rounds = rounds is not None and set(rounds) <= {0}
        if cut < 0 and not whole_rounds:
            raise ValueError(f"{self.config.describe()} has {walks.n_decisions:,} decision points: export the first "
                             "round (--round 0), or the decisions below a second-round start (--prefix, e.g. "
                             "--prefix ck/00/)")
        wanted_kind = None if kinds is None else [BET if k == "bet" else DRAW for k in kinds]

        def chosen(tree, nodes):
            if rounds is not None:
                nodes = nodes[np.isin(tree.round[nodes], list(rounds))]
            if wanted_kind is not None:
                nodes = nodes[np.isin(tree.kind[nodes], wanted_kind)]
            return nodes

        if cut < 0:
            inside = np.zeros(trunk.n_nodes, bool)
            trunk.mark_subtree(inside, node)
            nodes = chosen(trunk, np.nonzero(inside & (trunk.kind <= DRAW) & (walks.cut_index < 0))[0])
            batches = walks.node_stats(nodes, None)
            names = (trunk, "")
        else:
            inside = np.zeros(shape.n_nodes, bool)
            shape.mark_subtree(inside, node)
            nodes = chosen(shape, np.nonzero(inside & (shape.kind <= DRAW))[0])
            batches = walks.node_stats(None, {cut: nodes})
            names = (shape, trunk.history(int(walks.cut_nodes[cut])))
        tree, above = names
        labels = [self.evaluator.describe(v) for v in range(self.n_states)]
        legal = self.rows_layout.class_legal
        columns = BET_COLUMNS + draw_columns(self.config.hand_size)
        for _, batch in batches:
            for i, node in enumerate(batch.nodes.tolist()):
                history = above + tree.history(node)
                decision = self.decision(history)
                yield from self._node_rows(batch, i, decision, history, int(tree.round[node]), labels, legal, columns,
                                           min_reach, None)

    def _node_rows(self, batch, i, decision, history, rnd, labels, legal, columns, min_reach, locked):
        seat = decision.seat
        reach = batch.reach_of(i, seat)
        ev = batch.ev_mbb(i, seat)
        probs = self.decision_strategy(decision)
        is_draw = decision.kind == DRAW
        for value in np.nonzero(reach >= min_reach)[0] if min_reach > 0 else range(self.n_states):
            row = {"seat": SEAT_NAMES[seat], "history": history, "round": rnd,
                   "kind": "draw" if is_draw else "bet", "class": int(value), "class_name": labels[value],
                   "reach": float(reach[value]), "ev_mbb": float(ev[value])}
            if locked is not None:
                row["locked"] = bool(locked[value])
            for column in columns:
                row[column] = None
            for a, label in enumerate(decision.labels):
                if is_draw:
                    if legal[value, a]:
                        row[f"d{label}"] = float(probs[a, value])
                else:
                    row[label] = float(probs[a, value])
            yield row

    def table_columns(self) -> list[str]:
        """The table's columns (``locked``, whether a lock fixes the row, in locked solves only)."""
        return (["seat", "history", "round", "kind", "class", "class_name", "reach", "ev_mbb"]
                + (["locked"] if self.locks is not None else []) + BET_COLUMNS + draw_columns(self.config.hand_size))


def load_strategy(directory: str | Path, cache_mb: float | None = None) -> Strategy:
    """The strategy a ``badugi solve`` run wrote to ``directory`` (or a compact strategy;
    ``cache_mb``: the bound of a stored one's chunk cache)."""
    return Strategy(directory, cache_mb=cache_mb)
