"""Safe re-solving of the last betting round at full resolution (Python side of
:mod:`solver.cfr.kernels.resolve`).

A strategy solved in card buckets plays the last round, where most of a game's key states are,
with a few dozen buckets of final strength. At a last-round subgame the blueprint's ranges and
the opponent's counterfactual best-response values give a one-round game over every value class
a side; :meth:`LastRound.resolve` solves it behind the Resolve gadget (Burch, Johanson and
Bowling 2014; Brown and Sandholm 2017), so the re-solved strategy leaves every opponent class at
most what the blueprint left it there.

>>> from solver.game.config import load_preset
>>> last = LastRound(load_preset("triple-draw"))
>>> last.n_positions, last.n_actions   # check or bet, then up to a bet and three raises
(10, 3)
"""

from __future__ import annotations

import time
from typing import NamedTuple

import numba
import numpy as np

from ..game.codes import BET, DRAW
from ..game.config import GameConfig
from ..game.layout import StrategyLayout
from ..game.rounds import RoundTemplates
from . import kernels
from .kernels.resolve import (LastCuts, LastWork, ResolveOptions, ResolveWork, RoundArrays, resolve_round,
                              resolved_cut_chunk, round_values)
from .streamed import StreamedWalker, trunk_walk
from .walker import NO_STORAGE, class_strategy, in_threads, read_only, walk_over_cuts


GADGETS = ("resolve", "maxmargin")


class Resolved(NamedTuple):
    """A re-solved subgame: the player's strategy (positions, actions, classes; zero at the
    opponent's positions), the opponent's best-response values per class against the blueprint
    (``cbv``) and against the re-solved strategy (``after``), and the iterations run."""

    strategy: np.ndarray
    cbv: np.ndarray
    after: np.ndarray
    iterations: int

    def gain(self, opponent_reach: np.ndarray) -> float:
        """What re-solving took from the opponent's best response here, in the walk's units
        (weighted by his reach): at least zero up to the solve's precision."""
        return float(opponent_reach @ (self.cbv - self.after))


class LastRound:
    """The last betting round of ``config`` as a subgame over value classes (or any states
    sorted by strength, 0 best): walks and the safe re-solve."""

    def __init__(self, config: GameConfig):
        template = RoundTemplates.of(config).rounds[config.draws]
        self.template = template
        self.arrays = RoundArrays(template.seat.astype(np.int64), template.kind.astype(np.int64),
                                  template.target.astype(np.int64), template.contrib.astype(np.float64))

    @property
    def n_positions(self) -> int:
        return int(self.arrays.kind.shape[0])

    @property
    def n_actions(self) -> int:
        return int(self.arrays.kind.shape[1])

    def work(self, n_states: int) -> ResolveWork:
        """Zeroed buffers for a re-solve over ``n_states`` classes."""
        t, a, n = self.n_positions, self.n_actions, n_states
        return ResolveWork(np.zeros((t, a, n)), np.zeros((2, n)), np.zeros((t, a, n)), np.zeros((t, a, n)),
                           np.zeros((t, 2, n)), np.zeros((t, a, n)), np.zeros((t, n)))

    def _check(self, pot: float, ranges: np.ndarray, play: np.ndarray | None = None) -> np.ndarray:
        ranges = np.ascontiguousarray(ranges, dtype=np.float64)
        if ranges.ndim != 2 or ranges.shape[0] != 2:
            raise ValueError(f"ranges must be (2, classes), not {ranges.shape}")
        if not np.all(np.isfinite(ranges)) or ranges.min() < 0.0:
            raise ValueError("ranges must be finite and non-negative")
        if not np.isfinite(pot) or pot < 0.0:
            raise ValueError(f"pot must be a non-negative number, not {pot}")
        if play is not None and play.shape != (self.n_positions, self.n_actions, ranges.shape[1]):
            raise ValueError(f"a strategy over this round is {(self.n_positions, self.n_actions, ranges.shape[1])}, "
                             f"not {play.shape}")
        return ranges

    def values(self, pot: float, traverser: int, play: np.ndarray, ranges: np.ndarray,
               best: bool = False) -> np.ndarray:
        """The traverser's counterfactual value per class at the round's start, both seats
        playing ``play`` (positions, actions, classes), or the traverser best-responding."""
        ranges = self._check(pot, ranges, play)
        work = self.work(ranges.shape[1])
        work.reach[0] = ranges
        round_values(self.arrays, float(pot), int(traverser), bool(best), np.ascontiguousarray(play, np.float64),
                     work.reach, work.child, work.value)
        return work.value[0].copy()

    def resolve(self, pot: float, player: int, ranges: np.ndarray, blueprint: np.ndarray,
                iterations: int = 200, floor: float = 0.0, gadget: str = "resolve") -> Resolved:
        """Re-solve the round for ``player`` at pot level ``pot`` from both seats' ``ranges``,
        against what ``blueprint`` (positions, actions, classes: the player's probabilities at his
        positions) left the opponent. ``floor`` lifts the opponent's gadget reach to at least that
        share of its largest entry, so classes the blueprint never brings here still keep their
        values (a best response may bring them; where he brings none at all, Resolve keeps the
        blueprint: ``iterations`` 0 in the result). ``gadget``: ``resolve`` or ``maxmargin``
        (:func:`solver.cfr.kernels.resolve.resolve_round`)."""
        if gadget not in GADGETS:
            raise ValueError(f"gadget must be one of {', '.join(GADGETS)}, not {gadget!r}")
        ranges = self._check(pot, ranges, blueprint)
        if iterations < 1:
            raise ValueError(f"iterations must be at least 1, not {iterations}")
        opponent = 1 - player
        cbv = self.values(pot, opponent, blueprint, ranges, best=True)
        if gadget == "resolve" and not ranges[opponent].any():  # no class of his to weigh: the blueprint stays
            return Resolved(self.average(blueprint, player), cbv, cbv.copy(), 0)
        gadget_ranges = ranges.copy()
        if floor > 0.0:
            gadget_ranges[opponent] = np.maximum(ranges[opponent], floor * ranges[opponent].max())
        work = self.work(ranges.shape[1])
        resolve_round(self.arrays, float(pot), int(player), gadget_ranges, cbv, int(iterations), gadget == "maxmargin",
                      work)
        strategy = self.average(work.avg, player)
        after = self.values(pot, opponent, strategy, ranges, best=True)
        return Resolved(strategy, cbv, after, int(iterations))

    def average(self, sums: np.ndarray, seat: int) -> np.ndarray:
        """Strategy sums normalised at ``seat``'s positions (uniform over legal actions where a
        class never came), zero elsewhere."""
        legal = (self.arrays.kind >= 0)[:, :, None]
        mine = (self.arrays.seat == seat)[:, None, None]
        sums = np.where(legal & mine, np.maximum(sums, 0.0), 0.0)
        total = sums.sum(axis=1, keepdims=True)
        uniform = np.broadcast_to(legal / legal.sum(axis=1, keepdims=True), sums.shape)
        out = np.where(total > 0.0, sums / np.where(total > 0.0, total, 1.0), uniform)
        return np.where(mine, out, 0.0)


# -- certificates of strategies with their last rounds re-solved -----------------------------------
class ResolveRule(NamedTuple):
    """Where and how a strategy's last rounds are re-solved: at a last-round subgame where the
    player's blueprint reach (summed over his classes) is at least ``min_reach``, by
    ``iterations`` of the ``gadget`` (``floor``: Resolve's reach floor); elsewhere the blueprint
    plays. A fixed rule of the blueprint alone, so the combined strategy is one fixed strategy."""

    min_reach: float = 0.0
    iterations: int = 200
    gadget: str = "maxmargin"
    floor: float = 0.0

    def checked(self) -> "ResolveRule":
        if self.gadget not in GADGETS:
            raise ValueError(f"gadget must be one of {', '.join(GADGETS)}, not {self.gadget!r}")
        if self.iterations < 0 or not self.min_reach >= 0.0 or not 0.0 <= self.floor <= 1.0:
            raise ValueError(f"a re-solve rule needs iterations >= 0, min_reach >= 0 and a floor in [0, 1]: {self}")
        return self


class ResolvedCertificate(NamedTuple):
    """Exact best responses against a strategy with its last rounds re-solved, how many
    subgames were re-solved (over both best responses) and what re-solving took from the best
    responses there (BB/hand, summed over the subgames: not the change of the total, which a
    best response may take elsewhere), and the seconds."""

    br_button: float
    br_big_blind: float
    resolved: int
    taken: float
    seconds: float

    @property
    def exploitability_mbb(self) -> float:
        return 500.0 * (self.br_button + self.br_big_blind)


def last_round_positions(tree) -> tuple[np.ndarray, np.ndarray]:
    """The last-round roots of a built tree or shape (the first decision after the last draw)
    and, per root, its decision nodes by template position (-1 where none)."""
    parent_kind = tree.kind[np.maximum(tree.parent, 0)]
    roots = np.nonzero((tree.kind == BET) & (tree.round == tree.config.draws) & (tree.parent >= 0)
                       & (parent_kind == DRAW))[0].astype(np.int64)
    n_pos = int(tree.phase[tree.round == tree.config.draws].max()) + 1 if len(roots) else 0
    positions = np.full((len(roots), n_pos), -1, np.int64)
    for j, root in enumerate(roots):
        block = np.arange(tree.first_child[root], tree.subtree_end[root])
        block = np.concatenate([[root], block[tree.kind[block] == BET]])
        positions[j, tree.phase[block]] = block
    return roots, positions


class ResolvedCertifier:
    """The certificate of a strategy played with its last rounds re-solved (:class:`ResolveRule`),
    over a streamed game: each cut's shape walked to collect the reach at its last-round roots,
    each root's value found there (re-solved or not) for the best-responding seat, then the
    shape and the trunk walked down to those values (``solver.cfr.kernels.resolve``)."""

    def __init__(self, walker: StreamedWalker, rule: ResolveRule = ResolveRule()):
        self.walker, self.rule = walker, rule.checked()
        game = walker.game
        if game.shape is None or not len(game.cut_nodes):
            raise ValueError("re-solving the last round needs a streamed game cut below its first round")
        self.last = LastRound(game.shape.config)
        self.roots, self.positions = last_round_positions(game.shape)
        if not len(self.roots):
            raise ValueError("re-solving the last round needs it below the cuts of the streamed game: two draws or "
                             "more (single draw's built tree: solver.cfr.resolving.resolved_full_resolution)")

    def _buffers(self, n: int):
        shape, last, k = self.walker.game.shape, self.last, len(self.roots)
        index = np.full(shape.n_nodes, -1, np.int64)
        index[self.roots] = np.arange(k)
        cuts = kernels.Cuts(self.roots, index, np.zeros((k, 3, n)), np.zeros((k, n)))
        width = int(self.walker.layout.row_width.max())
        lw = LastWork(self.last.work(n), np.zeros((last.n_positions, last.n_actions, n)), np.zeros((2, n)),
                      np.zeros(n), np.zeros((max(last.n_actions, 8), max(width, n))), np.zeros(max(width, n)),
                      np.zeros(max(width, n)))
        return LastCuts(cuts, self.positions, self.last.arrays), lw

    def best_response(self, traverser: int, play: np.ndarray, threads: int | None = None) -> tuple[float, np.ndarray]:
        """The traverser's best-response value (BB/hand) against ``play`` with the other seat's
        last rounds re-solved, and ``(subgames re-solved, what re-solving took)``."""
        walker, rule = self.walker, self.rule
        arrays = walker.arrays
        tree = arrays.tree
        # (Every draw count walked: the values found at last-round roots are each history's own.)
        game = tree._replace(cut_entries=walker.entries, trunk_layout=tree.trunk_layout._replace(merge_from=-1))
        n, deal = walker.n_states, walker.model.deal_prob
        play = read_only(play)
        work, roots, root_reach, root_value = trunk_walk(game, arrays.draws, deal)
        n_cuts = len(game.cuts.nodes)
        threads = max(1, min(n_cuts, threads or numba.get_num_threads()))
        buffers = [self._buffers(n) for _ in range(threads)]
        stats = np.zeros((max(n_cuts, 1), 2))
        options = ResolveOptions(float(rule.min_reach), int(rule.iterations), rule.gadget == "maxmargin",
                                 float(rule.floor), kernels.NO_UPDATE, np.zeros(0, np.float32))
        bounds = [k * n_cuts // threads for k in range(threads + 1)]
        order = np.arange(n_cuts, dtype=np.int64)

        # The gadget needs the best responder's blueprint reach too, which a best-response walk
        # does not carry: an evaluate walk of the trunk collects both seats' at the cuts first.
        groups = (kernels.NO_UPDATE, game.trunk, game.trunk_layout, arrays.draws, play, NO_STORAGE, NO_STORAGE,
                  game.cuts, work, arrays.no_record)
        if n_cuts:
            kernels.traverse(roots, root_reach, root_value, traverser, kernels.EVALUATE, kernels.COLLECT, *groups)
        both = game.cuts.reach.copy()

        def below() -> None:
            game.cuts.reach[...] = both  # (the opponent's is what the best response's walk collected)
            in_threads(threads, lambda k: resolved_cut_chunk(
                order[bounds[k]:bounds[k + 1]], traverser, game, arrays.draws, play, buffers[k][0], options,
                buffers[k][1], stats, arrays.shape_record))

        walk = (roots, root_reach, root_value, traverser, kernels.BEST_RESPONSE)
        walk_over_cuts(walk, groups, n_cuts, below)
        return kernels.root_total(deal, root_value[0]), stats.sum(axis=0)

    def certify(self, play: np.ndarray, threads: int | None = None) -> ResolvedCertificate:
        """Both best responses (the exploitability of the strategy with re-solved last rounds)."""
        t0 = time.perf_counter()
        button, first = self.best_response(0, play, threads)
        big_blind, second = self.best_response(1, play, threads)
        return ResolvedCertificate(button, big_blind, int(first[0] + second[0]), float(first[1] + second[1]),
                                   time.perf_counter() - t0)


def class_by_class(tree, full: StrategyLayout, layout: StrategyLayout, storage: np.ndarray,
                   dtype=np.float32) -> np.ndarray:
    """The strategy a walk plays from ``storage`` in ``layout`` (buckets, a recall rule) at every
    decision of a built tree, written class by class into the full-resolution layout ``full``
    (``dtype``: float64 keeps the probabilities a streamed walk normalises, unrounded)."""
    play = np.zeros(int(full.slot_offset[-1]), dtype)
    for node in np.nonzero(tree.kind <= DRAW)[0]:
        slot = int(full.slot_of[node])
        play[full.slot_offset[slot]:full.slot_offset[slot + 1]] = class_strategy(layout, storage, int(node)).ravel()
    return play


def resolved_full_resolution(tree, layout: StrategyLayout, walker, play: np.ndarray, config: GameConfig,
                             rule: ResolveRule = ResolveRule()) -> np.ndarray:
    """A built tree's strategy with its last rounds re-solved under ``rule``, class by class, in
    the full-resolution ``layout`` (one row per class: ``play`` there holds the blueprint's
    probabilities, :class:`solver.cfr.walker.Walker` ``walker`` walks it); each seat's subgames
    re-solved from both seats' blueprint reach. What :class:`ResolvedCertifier` certifies, made
    explicit (tests compare the two)."""
    rule = rule.checked()
    last = LastRound(config)
    roots, positions, reach = last_round_reach(tree, layout, walker, play)
    out = play.copy()
    n = walker.n_states
    for j, root in enumerate(roots):
        blueprint = np.zeros((last.n_positions, last.n_actions, n))
        for p, node in enumerate(positions[j]):
            if node >= 0:
                blueprint[p, :tree.n_children[node]] = class_strategy(layout, play, int(node))
        ranges = reach[j]
        for player in (0, 1):
            if rule.iterations == 0 or ranges[player].sum() < rule.min_reach or ranges[player].sum() == 0.0:
                continue
            resolved = last.resolve(float(tree.pot[root]), player, ranges, blueprint, rule.iterations, rule.floor,
                                    rule.gadget)
            write_round(out, tree, layout, positions[j], player, resolved.strategy)
    return out


def last_round_reach(tree, layout: StrategyLayout, walker, play: np.ndarray):
    """A built tree's last-round roots, their decision nodes by position (:func:`last_round_positions`)
    and both seats' reach at each root (roots, 2, classes), both playing ``play`` in ``layout``
    (full resolution, one slot per decision node: each subgame's strategy its own)."""
    if layout.shares_slots:
        raise ValueError("a strategy re-solved subgame by subgame needs a layout with one slot per decision node")
    roots, positions = last_round_positions(tree)
    record = walker.record(roots)
    for seat in (0, 1):
        walker.walk(seat, kernels.EVALUATE, play, record=record)
    return roots, positions, record.reach


def write_round(out: np.ndarray, tree, layout: StrategyLayout, nodes: np.ndarray, player: int,
                strategy: np.ndarray) -> None:
    """``player``'s strategy of one last round (positions, actions, classes) into his decision
    nodes ``nodes`` (by position) of the full-resolution ``out`` in ``layout``."""
    for p, node in enumerate(nodes):
        if node >= 0 and tree.seat[node] == player:
            slot = int(layout.slot_of[node])
            out[layout.slot_offset[slot]:layout.slot_offset[slot + 1]] = strategy[p, :tree.n_children[node]].ravel()
