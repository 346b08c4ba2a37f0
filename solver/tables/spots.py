"""One spot of a stored strategy: its mix, both seats' reach and values, and each action's value.

A *spot* is a decision point named by its public history. What ``badugi show --hand``, the
explorer and the review print about one comes from the bytes that hold it, never from walks of
the whole tree at query time:

- **the mix**: the spot's own slot, one chunk of the store;
- **reach** (both seats' ranges there): a first-round spot's from the *spot tables*, written
  once with the store (:func:`spot_tables`: two walks of the whole tree); below the first round,
  the reach at each round start on the way down, each from one collecting walk of the round
  before (a few hundred nodes each: the slots of one history key);
- **values** (each seat's, by hand class, and the acting seat's value of each action): a
  first-round spot's from the spot tables (the values at its children, and at the second-round
  starts for the button's draw); below, from one walk of the spot's own round and everything
  below it, from the reach at the round's start: the last round is one betting round (ms), the
  third a betting round, a draw and the last (ms), the second the subtree below a
  second-round start (1.4 million nodes at cap 4: about a second on two cores).

These are the numbers the whole-tree walks give (:meth:`solver.cfr.streamed.StreamedWalker.node_stats`),
to the bit: the same kernel calls on the same rows, split at round starts.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from ..cfr import kernels
from ..cfr.store import CompactStore, compress
from ..cfr.store_walks import StoreWalks
from ..cfr.walker import NodeStats
from ..game.rounds import BET, DRAW, FOLD, SHOWDOWN, RoundTemplates, locate, stakes
from ..game.tree import PublicTree


def first_round_tables(walks: StoreWalks) -> dict:
    """Both seats' reach and values at every decision of the first round and its draws, and the
    button's value at every second-round start (what his draws lead to): two evaluate walks of
    the whole tree, as :meth:`solver.cfr.streamed.StreamedWalker.node_stats` makes them."""
    trunk = walks.trunk
    n = walks.n_states
    nodes = np.nonzero((trunk.kind <= DRAW) & (walks.cut_index < 0))[0].astype(np.int64)
    index = np.full(trunk.n_nodes, -1, np.int64)
    index[nodes] = np.arange(len(nodes))
    record = kernels.no_record(trunk.n_nodes, n)._replace(index=index, reach=np.zeros((len(nodes), 2, n)),
                                                          value=np.zeros((len(nodes), 2, n)))
    cut_value = np.zeros((0, n))
    for seat in (0, 1):
        walks.walk(seat, kernels.EVALUATE, record)
        if seat == 0:
            cut_value = walks.last_cuts.value[:len(walks.cut_nodes)].copy()
    return {"trunk_size": np.array(trunk.n_nodes), "nodes": nodes, "reach": record.reach, "value": record.value,
            "cut_value": cut_value}


def spot_tables(store: CompactStore) -> bytes:
    """The spot tables of a store (:func:`first_round_tables`), compressed as its chunks are."""
    buffer = io.BytesIO()
    np.savez(buffer, **first_round_tables(StoreWalks(store)))
    return compress(store.codec, buffer.getvalue())


@dataclass
class Spot:
    """One decision point's numbers (see the module docstring)."""

    history: str
    round: int
    seat: int                  # who decides
    kind: int                  # BET or DRAW
    labels: list               # the actions' labels
    slot: int                  # its stored slot
    stats: NodeStats           # both seats' reach and values there (a batch of one)
    strategy: np.ndarray       # (actions, classes) the mix each class plays
    action_values: np.ndarray  # (actions, classes) the acting seat's value of each action, weighted by
    #                            the opponent's reach (NaN where a draw is illegal)
    pot: float
    to_call: float

    @property
    def reach(self) -> np.ndarray:
        """(classes,) how often a hand gets here with the acting seat holding each class."""
        return self.stats.reach_of(0, self.seat)

    @property
    def opponent_range(self) -> np.ndarray:
        """(classes,) the opponent's hands here, a distribution (zeros if he never gets here)."""
        own = self.stats.reach[0, 1 - self.seat]
        total = own.sum()
        return own / total if total > 0 else np.zeros_like(own)

    def ev_mbb(self) -> np.ndarray:
        """(classes,) the acting seat's expected value here by class (NaN where the opponent never
        gets here)."""
        return self.stats.ev_mbb(0, self.seat)

    def action_ev_mbb(self) -> np.ndarray:
        """(actions, classes) the acting seat's expected value of each action by class, then
        playing the strategy (mbb/hand; NaN where the opponent never gets here or a draw is
        illegal)."""
        opponent = self.stats.reach[0, 1 - self.seat].sum()
        if opponent <= 0:
            return np.full_like(self.action_values, np.nan)
        return self.action_values / opponent * 1000.0


class SpotEngine:
    """The numbers of any spot of a stored strategy (see the module docstring)."""

    def __init__(self, store):
        """``store``: a :class:`CompactStore`, or a whole strategy as
        :class:`solver.cfr.store_walks.LayoutRows` (its first round's tables then made by two
        walks of the whole tree, when first needed)."""
        self.store = store
        self.templates: RoundTemplates = store.templates
        self.config = store.config
        self._walked: dict = {}
        self._cut_reach = None

    @cached_property
    def walks(self) -> StoreWalks:
        return StoreWalks(self.store)

    @cached_property
    def tables(self) -> dict:
        tables = self.store.tables
        if tables is None:
            tables = first_round_tables(self.walks)
        if int(tables["trunk_size"]) != self.walks.trunk.n_nodes:
            raise ValueError(f"{self.store.where}: its spot tables are of another first round")
        return tables

    def spot(self, history: str) -> Spot:
        """The numbers of the decision at ``history``; ValueError if it is not one."""
        at = locate(self.templates, history)
        store = self.store
        slot = store.key_slot(at.round, at.phase, at.pot, at.records)
        if slot < 0:
            raise ValueError(f"history {history!r}: the strategy has no slot for it")
        strategy = store.slot_strategy(slot)
        if at.round == 0:
            stats, values = self._first_round(history, strategy)
        else:
            stats, values = self._below(history, at, strategy)
        pot, to_call = stakes(self.templates, at)
        return Spot(history, at.round, at.seat, at.kind, list(at.labels), slot, stats, strategy, values, pot, to_call)

    # -- the first round: the spot tables
    def _first_round(self, history: str, strategy: np.ndarray):
        walks, tables = self.walks, self.tables
        trunk = walks.trunk
        node = trunk.node_at(history)
        where = {int(x): i for i, x in enumerate(tables["nodes"])}
        i = where[node]
        stats = NodeStats(np.array([node]), tables["reach"][i:i + 1], tables["value"][i:i + 1])
        seat = int(trunk.seat[node])
        children = []
        for c in trunk.children(node):
            c = int(c)
            if c in where:
                children.append(("node", tables["value"][where[c], seat]))
            elif walks.cut_index[c] >= 0:
                if seat != 0:
                    raise AssertionError("a second-round start follows the button's draw")
                children.append(("node", tables["cut_value"][walks.cut_index[c]]))
            else:
                children.append(("end", c))
        return stats, self._action_values(trunk, node, stats, children, strategy)

    # -- below: the reach at each round start, then the spot's round walked
    def _below(self, history: str, at, strategy: np.ndarray):
        starts = round_starts(history, at.round)
        tree, record = self._round(at.round, starts)
        node = tree.node_at(history[len(starts[at.round]):])
        i = int(record.index[node])
        stats = NodeStats(np.array([node]), record.reach[i:i + 1], record.value[i:i + 1])
        seat = int(tree.seat[node])
        children = []
        for c in tree.children(node):
            c = int(c)
            j = int(record.index[c])
            children.append(("node", record.value[j, seat]) if j >= 0 else ("end", c))
        return stats, self._action_values(tree, node, stats, children, strategy)

    def _round(self, rnd: int, starts: list[str]):
        """The walk of round ``rnd`` from its start on the way to a spot (and everything below it),
        recording every decision of the round and the next round's starts: any spot of that round
        then reads it (the last few are kept: a page clicked through one round walks it once)."""
        key = (rnd, starts[rnd])
        found = self._walked.pop(key, None)
        if found is None:
            walks = self.walks
            cut = int(walks.trunk.node_at(starts[1]))
            if self._cut_reach is None:
                self._cut_reach = walks.cut_reach()
            reach = self._cut_reach[walks.cut_index[cut]]
            for r in range(1, rnd):
                start = locate(self.templates, starts[r])
                tree, _, cuts = walks.round_walk(r, start.pot, start.records, reach, last_round=r)
                node = tree.node_at(starts[r + 1][len(starts[r]):])
                reach = cuts.reach[cuts.index[node]]
            start = locate(self.templates, starts[rnd])

            def this_round(tree):
                return np.nonzero(((tree.kind <= DRAW) & (tree.round == rnd))
                                  | ((tree.kind == BET) & (tree.round == rnd + 1) & (tree.phase == 0)))[0]

            tree, record, _ = walks.round_walk(rnd, start.pot, start.records, reach, this_round)
            found = (tree, record)
        self._walked[key] = found
        while len(self._walked) > WALKS_KEPT:
            self._walked.pop(next(iter(self._walked)))
        return found

    def _action_values(self, tree, node: int, stats: NodeStats, children, strategy: np.ndarray) -> np.ndarray:
        return action_values(tree, node, stats, children, self.walks.draws, self.store.lite.class_legal)


def action_values(tree: PublicTree, node: int, stats: NodeStats, children: list, draws, class_legal) -> np.ndarray:
    """(actions, classes) the acting seat's value at ``node`` of each action, weighted by the
    opponent's reach: ``children[a]`` is ``("node", value)`` (the acting seat's value vector at the
    child decision, taken through the draw table at a draw) or ``("end", child)`` (a fold or a
    showdown, valued from the opponent's reach as the walks value them)."""
    seat = int(tree.seat[node])
    n = stats.reach.shape[2]
    opponent = stats.reach[0, 1 - seat]
    out = np.zeros((len(children), n))
    agg = np.zeros(len(draws.set_size))
    rnd = int(tree.round[node])
    is_draw = tree.kind[node] == DRAW
    for a, (what, child) in enumerate(children):
        if what == "node":
            if is_draw:
                kernels.draw_value(np.ascontiguousarray(child), a, rnd, draws, agg, out[a])
                out[a][~class_legal[:, a]] = np.nan
            else:
                out[a] = child
            continue
        kind = int(tree.kind[child])
        if kind == FOLD:
            folder = int(tree.seat[child])
            gain = -tree.contrib[child, seat] if folder == seat else tree.contrib[child, folder]
            out[a] = gain * opponent.sum()
        elif kind == SHOWDOWN:
            better = np.concatenate([[0.0], np.cumsum(opponent)[:-1]])
            out[a] = tree.contrib[child, seat] * (opponent.sum() - 2.0 * better - opponent)
        else:
            raise AssertionError(f"an action at {tree.history(node)!r} leads nowhere a walk recorded")
    return out


def tree_spot(strategy, history: str) -> Spot:
    """A spot of a strategy whose tree is built (a small game): its node and children's reach and
    values from the walks of the tree (:meth:`solver.tables.strategy.Strategy.stats`)."""
    tree = strategy.tree
    decision = strategy.decision(history)
    node = decision.node
    wanted = [node] + [int(c) for c in tree.children(node) if tree.kind[c] <= DRAW]
    found = {}
    for batch in strategy.stats(np.array(wanted, np.int64)):
        for i, x in enumerate(batch.nodes.tolist()):
            found[x] = (batch.reach[i], batch.value[i])
    seat = decision.seat
    stats = NodeStats(np.array([node]), found[node][0][None], found[node][1][None])
    children = [("node", found[int(c)][1][seat]) if int(c) in found else ("end", int(c)) for c in tree.children(node)]
    values = action_values(tree, node, stats, children, strategy.walker.draws, strategy.layout.class_legal)
    at = locate(RoundTemplates.of(strategy.config), history)
    pot, to_call = stakes(RoundTemplates.of(strategy.config), at)
    return Spot(history, at.round, seat, decision.kind, decision.labels, decision.slot, stats,
                strategy.decision_strategy(decision), values, pot, to_call)


WALKS_KEPT = 8   # round walks a spot engine keeps (8 MB each at cap 4)


def round_starts(history: str, rnd: int) -> list[str]:
    """The histories of the starts of rounds 0 to ``rnd`` on the way to ``history`` (a round's
    betting, then its draws, each ended by a ``/``)."""
    pieces = history.split("/")
    return ["/".join(pieces[:2 * r]) + ("/" if r else "") for r in range(rnd + 1)]

