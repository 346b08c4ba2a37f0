"""The CFR engine: one object from config to solved strategy.

Lifecycle: configured -> tree built -> memory planned and allocated -> solved.
Algorithms are flags of one engine (a :class:`Schedule`), all with alternating
updates:

- ``dcfr``   Discounted CFR, alpha=1.5, beta=0, gamma=2 (Brown & Sandholm 2019): the
  default. Positive regrets are scaled by t^a/(t^a+1), negative by 1/2, the
  average strategy by (t/(t+1))^g each iteration.
- ``cfr+``   CFR+ (Tammelin 2014): regrets floored at zero, linear averaging.
- ``linear`` Linear CFR: DCFR with alpha=beta=gamma=1.
- ``cfr``    vanilla CFR with uniform averaging.

Exploitability is exact: a best response for each seat against the other's
average strategy in the same tree, (BR value vs button + BR value vs big
blind) / 2, reported in mbb/hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np

from abstractions.buckets import bucket_map
from abstractions.transitions import DrawModel, get_draw_model

from . import kernels
from .config import GameConfig
from .plan import SolvePlan, SolveTooLarge, format_bytes, plan_solve, row_widths
from .tree import BET, DRAW, PublicTree, build_tree

ALGORITHMS = ("dcfr", "cfr+", "linear", "cfr")
PARALLEL_MIN_ENTRIES = 200_000
CUTS_PER_THREAD = 8  # cut walks at the first draws only with this many subtrees per thread


@dataclass(frozen=True)
class Schedule:
    """Per-iteration scaling of regrets and strategy sums for each algorithm."""

    algorithm: str = "dcfr"
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {self.algorithm!r} (choose from {', '.join(ALGORITHMS)})")

    def params(self, t: int) -> np.ndarray:
        """(pos_scale, neg_scale, floor, sum_scale, sum_weight) for iteration t >= 1.

        The scales apply to what was accumulated over iterations 1..t-1.
        """
        prev = float(t - 1)
        if self.algorithm == "cfr":
            return np.array([1.0, 1.0, 0.0, 1.0, 1.0])
        if self.algorithm == "cfr+":
            return np.array([1.0, 1.0, 1.0, 1.0, float(t)])
        alpha, beta, gamma = (1.0, 1.0, 1.0) if self.algorithm == "linear" else (self.alpha, self.beta, self.gamma)
        pos = prev ** alpha / (prev ** alpha + 1.0)
        neg = prev ** beta / (prev ** beta + 1.0)
        return np.array([pos, neg, 0.0, (prev / t) ** gamma, 1.0])


@dataclass(frozen=True)
class Exploitability:
    """Best-response values (BB/hand) against the average strategy, and the game value."""

    br_button: float      # button's best-response value vs the big blind's strategy
    br_big_blind: float   # big blind's best-response value vs the button's strategy
    game_value: float     # button's value when both play the average strategy

    @property
    def exploitability(self) -> float:
        return (self.br_button + self.br_big_blind) / 2.0

    @property
    def exploitability_mbb(self) -> float:
        return 1000.0 * self.exploitability

    @property
    def game_value_mbb(self) -> float:
        return 1000.0 * self.game_value


class Engine:
    """Range-vector CFR over the public tree of one game config."""

    def __init__(self, config: GameConfig, algorithm: str = "dcfr", check_memory: bool = True,
                 strategy: np.ndarray | None = None):
        """``strategy``: evaluate a fixed average strategy (probabilities laid out like the
        strategy sums) instead of solving; no regret storage is allocated."""
        self.config = config
        self.schedule = Schedule(algorithm)
        self.plan: SolvePlan = plan_solve(config)
        if check_memory:
            self.plan.check_tree_fits()
        if check_memory and not self.plan.fits:
            where = "with these buckets" if self.plan.bucketed else "at full resolution"
            raise SolveTooLarge(
                f"{config.describe()} needs {format_bytes(self.plan.bytes)} {where}, "
                f"more than this machine's {format_bytes(self.plan.machine_bytes)} allows; "
                "use a smaller cap, fewer draws or (fewer) card buckets")
        self.tree: PublicTree = build_tree(config)
        self.model: DrawModel = get_draw_model(config.ranks, config.suits, config.hand_size)
        self.n_states = self.model.n_values
        self._build_abstraction()
        size = self.n_entries
        if strategy is None:
            self.regret = np.zeros(size, dtype=np.float32)
            self.strat_sum = np.zeros(size, dtype=np.float32)
        else:
            if strategy.shape != (size,) or strategy.dtype != np.float32:
                raise ValueError(f"a strategy for this game has {size} float32 entries, got {strategy.shape} "
                                 f"{strategy.dtype}")
            self.regret = np.zeros(0, dtype=np.float32)
            self.strat_sum = strategy
        self.iteration = 0
        self._prepare()

    @property
    def algorithm(self) -> str:
        return self.schedule.algorithm

    def _build_abstraction(self) -> None:
        """Bucket maps per round and each decision node's place in storage.

        A round with 0 buckets (or a game without buckets) keeps one entry per
        value class. Draw nodes use the buckets of the betting round before
        them; those are formed within card counts, so a bucket's classes have
        the same legal draws.
        """
        config, tree, n = self.config, self.tree, self.n_states
        legal = self.model.legal
        self.bucketed = any(config.buckets)
        bucket_of = np.tile(np.arange(n, dtype=np.int64), (config.rounds, 1))
        widths = np.array(row_widths(config, n), dtype=np.int64)
        if self.bucketed:
            for r, k in enumerate(config.buckets):
                if k > 0:
                    bucket_of[r] = bucket_map(config.ranks, config.suits, config.hand_size, config.draws, r, k)
                    widths[r] = int(bucket_of[r].max()) + 1
        bucket_legal = np.zeros((config.rounds, int(widths.max()), legal.shape[1]), dtype=np.bool_)
        for r in range(config.rounds):
            bucket_legal[r, bucket_of[r]] = legal
            if r < config.draws and not np.array_equal(bucket_legal[r, bucket_of[r]], legal):
                raise RuntimeError(f"round {r} buckets mix classes with different legal draws")
        self.bucket_of, self.bucket_width = bucket_of, widths
        # Kernels take legality as a (rounds, draws + 1, width) 0/1 mask, so regret matching vectorises.
        legal_mask = np.ascontiguousarray(bucket_legal.transpose(0, 2, 1), dtype=np.float64)
        self.abstraction = (self.bucketed, bucket_of, widths, legal_mask)
        self.node_round = tree.round.astype(np.int64)
        decision = tree.kind <= DRAW
        n_entries = np.where(decision, tree.n_children.astype(np.int64) * widths[self.node_round], 0)
        self.entry_offset = np.where(decision, np.cumsum(n_entries) - n_entries, -1).astype(np.int64)
        self.n_entries = int(n_entries.sum())

    def _prepare(self) -> None:
        tree = self.tree
        depth = np.zeros(tree.n_nodes, dtype=np.int64)
        # Parents come before children, so a few whole-array passes settle the depths.
        while True:
            new = np.where(tree.parent >= 0, depth[np.maximum(tree.parent, 0)] + 1, 0)
            if np.array_equal(new, depth):
                break
            depth = new
        decision = tree.kind <= DRAW
        self.max_depth = int(depth[decision].max()) + 1
        self.n_actions_max = int(tree.n_children.max())
        # Independent subtrees for parallel walks and for strategy tables, cut at the start of the
        # second betting round. Walks cut higher when that still leaves enough subtrees to balance
        # the threads: at the big blind's first draws, or at the button's. The trunk is walked
        # serially, and its draws are a large share of a small game's work.
        parent_kind = tree.kind[np.maximum(tree.parent, 0)]
        table_cut = (tree.kind == BET) & (tree.round == 1) & (tree.parent >= 0) & (parent_kind == DRAW)
        self.cut_nodes, self.cut_index, self.cut_reach, self.cut_value = self._cut_arrays(table_cut)
        first_draws = (tree.kind == DRAW) & (tree.round == 0) & (tree.parent >= 0)
        walk_cut = table_cut
        for candidate in (first_draws & (parent_kind == BET), first_draws & (parent_kind == DRAW)):
            if candidate.sum() >= CUTS_PER_THREAD * numba.config.NUMBA_NUM_THREADS:
                walk_cut = candidate
                break
        self._walk_cuts = self._cut_arrays(walk_cut)
        self.no_record = (np.full(tree.n_nodes, -1, dtype=np.int64), np.zeros((0, 2, self.n_states)),
                          np.zeros((0, 2, self.n_states)))
        m = self.model
        self._tree_args = (tree.kind, tree.seat, tree.contrib, tree.first_child, tree.n_children.astype(np.int64),
                           self.entry_offset, self.node_round, self.cut_index, self.cut_nodes)
        # Draw tables are indexed through unsigned arrays: Numba adds a negative-index wraparound to
        # every load through a signed index, which keeps the scatter and gather loops slow.
        # (keep_set is -1 where a draw is illegal; the kernels check legality first.)
        keep_set = np.where(m.keep_set >= 0, m.keep_set, 0).astype(np.uint64)
        self._model_args = (m.legal, keep_set, m.set_start.astype(np.uint64), m.set_value.astype(np.uint64),
                            m.set_prob, m.set_size, self.config.hand_size)

    def _cut_arrays(self, is_cut: np.ndarray):
        """(cut nodes, each node's cut index or -1, reach and value buffers per cut)."""
        nodes = np.nonzero(is_cut)[0].astype(np.int64)
        index = np.full(self.tree.n_nodes, -1, dtype=np.int64)
        index[nodes] = np.arange(len(nodes))
        n_cuts = max(len(nodes), 1)
        # both seats' reach and the traverser's chance-only reach; the traverser's value
        return nodes, index, np.zeros((n_cuts, 3, self.n_states)), np.zeros((n_cuts, self.n_states))

    def _walk(self, traverser: int, policy: int, params: np.ndarray, record=None) -> float:
        cut_nodes, cut_index, cut_reach, cut_value = self._walk_cuts
        return kernels.traverse_all(traverser, policy, params, self.model.deal_prob,
                                    *self._tree_args[:-2], cut_index, cut_nodes, *self._model_args, *self.abstraction,
                                    self.regret, self.strat_sum, cut_reach, cut_value,
                                    self.max_depth, self.n_actions_max, self.threads(),
                                    record or self.no_record)

    def walk_subtree(self, root: int, reach_button: np.ndarray, reach_bb: np.ndarray, traverser: int,
                     policy: int, record, out_value: np.ndarray, mode: int = kernels.FULL) -> None:
        """One walk under ``root``: ``FULL`` ignores cuts; ``COLLECT`` (from the root) only
        fills ``cut_reach``. Strategy tables use this."""
        work = kernels.make_work(self.max_depth, self.n_actions_max, self.n_states, self.model.n_sets,
                                 int(self.bucket_width.max()))
        # The chance-only reach is used by updates only; strategy tables evaluate.
        kernels.traverse(root, reach_button, reach_bb, reach_button, traverser, policy, mode,
                         self.schedule.params(1), *self._tree_args[:-1], *self._model_args, self.abstraction,
                         self.regret, self.strat_sum, self.cut_reach, self.cut_value, work, out_value, record)

    def threads(self) -> int:
        """Threads for a walk: one for small trees, where starting threads costs more than it saves."""
        work = self.tree.n_rows * self.n_states  # a walk's work does not shrink with buckets
        return 1 if work < PARALLEL_MIN_ENTRIES else numba.get_num_threads()

    def run_iterations(self, n: int) -> None:
        """``n`` iterations of alternating updates (button, then big blind)."""
        for _ in range(n):
            t = self.iteration + 1
            params = self.schedule.params(t)
            for seat in (0, 1):
                self._walk(seat, kernels.UPDATE, params)
            self.iteration = t

    def exploitability(self) -> Exploitability:
        params = self.schedule.params(max(self.iteration, 1))
        br_button = self._walk(0, kernels.BEST_RESPONSE, params)
        br_bb = self._walk(1, kernels.BEST_RESPONSE, params)
        value = self._walk(0, kernels.EVALUATE, params)
        return Exploitability(br_button, br_bb, value)

    # -- strategies --------------------------------------------------------
    def node_rows(self, node: int, array: np.ndarray | None = None) -> np.ndarray:
        """(n_actions, width) view of a decision node's rows in ``array`` (default: strategy sums);
        the width is the number of buckets of the node's round, or of value classes."""
        array = self.strat_sum if array is None else array
        n_act = int(self.tree.n_children[node])
        width = int(self.bucket_width[self.node_round[node]])
        start = int(self.entry_offset[node])
        return array[start:start + n_act * width].reshape(n_act, width)

    def average_strategy(self, node: int) -> np.ndarray:
        """Average strategy at a decision node per value class: (n_actions, n_states), rows sum to 1
        over legal actions (with buckets, every class gets its bucket's strategy)."""
        n_act = int(self.tree.n_children[node])
        rnd = int(self.node_round[node])
        width = int(self.bucket_width[rnd])
        out = np.empty((n_act, self.n_states))
        scratch = np.empty(max(width, self.n_states))
        kernels._node_strategy(self.strat_sum, int(self.entry_offset[node]), n_act, width,
                               bool(self.tree.kind[node] == DRAW), self.bucketed, rnd, self.bucket_of,
                               self.abstraction[3], np.empty((n_act, width)), scratch, scratch.copy(), out)
        return out

    def average_probability_chunks(self, max_entries: int = 1 << 24):
        """The average strategy, laid out like the strategy sums, as float32 chunks in order.

        Chunks end at node boundaries, so a big game's strategy can be written
        without a second full-size array.
        """
        tree = self.tree
        n_children = tree.n_children.astype(np.int64)
        widths = self.bucket_width[self.node_round]
        ends = np.where(tree.kind <= DRAW, self.entry_offset + n_children * widths, 0)
        ends = np.maximum.accumulate(ends)  # storage used by nodes 0..i
        node_lo, done = 0, 0
        while node_lo < tree.n_nodes:
            node_hi = int(np.searchsorted(ends, done + max_entries, side="right"))
            node_hi = max(node_hi, node_lo + 1)
            stop = int(ends[node_hi - 1])
            out = np.empty(stop - done, dtype=np.float32)
            kernels.average_all(tree.kind, n_children, self.entry_offset, self.node_round, self.model.legal,
                                self.abstraction, self.strat_sum, self.n_states, out, node_lo, node_hi, done)
            if len(out):
                yield out
            node_lo, done = node_hi, stop

    def average_probabilities(self) -> np.ndarray:
        """The average strategy of every decision node, laid out like the strategy sums (float32)."""
        return np.concatenate(list(self.average_probability_chunks()) or [np.zeros(0, np.float32)])

    def set_average_strategy(self, fill) -> None:
        """Replace the strategy sums by ``fill(node, tree) -> (n_actions, n_states)`` at every decision node.

        Used to evaluate a fixed strategy (uniform random, always call, a bucketed
        solution expanded to classes, ...) at full resolution.
        """
        if self.bucketed:
            raise ValueError("set_average_strategy needs a full-resolution engine (no buckets)")
        for node in np.nonzero(self.tree.kind <= DRAW)[0]:
            self.node_rows(int(node))[:] = fill(int(node), self.tree)
