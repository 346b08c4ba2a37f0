"""Size and memory plan of a solve, computed without building the tree.

Memory of a solve: regrets and strategy sums (float32) for each entry of the
strategy layout (each action row of every decision node times its row width:
every private state at full resolution, the round's buckets otherwise), the
flattened tree (about 40 bytes a node) and the draw tables. Work buffers per
thread are a few vectors per tree level and are counted in a fixed allowance.

>>> plan = plan_solve(load_preset("single-draw"))
>>> plan.counts.betting_nodes, plan.private_states, plan.storage_entries
(1758, 1092, 5220852)
>>> plan.fits
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numba

from abstractions.evaluator import get_evaluator

from .config import GameConfig, load_preset  # noqa: F401  (load_preset: doctest)
from .history import describe_draw_limit, describe_older, draw_pair_codes
from .layout import StrategyLayout, recall_sizes_by_round
from .rounds import RoundTemplates
from .tree import TreeCounts, count_tree

BYTES_PER_ENTRY = 8          # float32 regret + float32 strategy sum
STREAMED_DELTA_BYTES = 4     # a streamed solve's float32 regret delta (solver/cfr/abstract.py)
BYTES_PER_NODE = 100         # the tree's arrays and annotations, and a walker's per-node arrays
CUT_ENTRY_BYTES = 8          # a streamed game's storage entry per decision node (solver/cfr/streamed.py)
QUANTIZED_BYTES_PER_ENTRY = 4  # 16-bit storage: an int16 regret and a uint16 sum (solver/cfr/quantized.py)
QUANTIZED_BYTES_PER_ROW = 8    # and two float32 scales per action row
QUANTIZED_LOCAL_BYTES = 8      # a thread's float32 buffers of the cut group it walks, per entry of the group
# The largest cut group's share of the storage, for rules whose keys keep the first round's draws
# (measured: 4.0% for the triple-draw preset, 1.0% for double draw at cap 4); the engine checks
# the real one once it has grouped the cuts (solver/cfr/quantized.py).
LARGEST_GROUP_SHARE = 0.05
WORK_ALLOWANCE = 64 << 20    # traversal buffers, transition tables, Python overhead
RULE_CODE_BYTES = 8          # a recall rule's dense key table: the slot of each history key (int64)
KEY_STATE_BYTES = 24         # a slot's layout arrays (its offset, round, seat, kind, actions) and its cut group
BUILD_BYTES_PER_NODE = 64    # peak while the tree is generated (measured: 43 on double draw)
# Seconds per (public node, value class) and thread of a best-response and of an evaluate walk
# (measured on triple draw at cap 4 on this project's 2-core machine).
BR_NS, EVALUATE_NS = 1.5, 3.0


class SolveTooLarge(ValueError):
    """The planned solve does not fit in this machine's memory."""


@dataclass(frozen=True)
class SolvePlan:
    config: GameConfig
    counts: TreeCounts
    private_states: int
    entries: int        # (betting node, private state) pairs
    storage_entries: int  # layout entries that hold regrets and sums
    bytes: int
    machine_bytes: int
    full_resolution_bytes: int = 0  # the same game without buckets or recall, on a built tree
    streamed: bool = False          # too big to build: solved in its abstract game on a streamed tree
    streamed_nodes: int = 0         # nodes built for a streamed walk (trunk and one shape)
    threads: int = 1
    key_states_by_round: tuple[int, ...] = ()  # with a recall rule: decision states of its key graph per round
    group_buffer_bytes: int = 0     # 16-bit storage: the threads' buffers of the largest cut group (planned)

    @property
    def key_states(self) -> int:
        """Decisions a recall rule tells apart (its slots), against ``counts``' decision nodes."""
        return sum(self.key_states_by_round)

    @property
    def build_bytes(self) -> int:
        """Peak memory of building the public tree (needed by solves, tables and matches alike)."""
        return self.counts.nodes * BUILD_BYTES_PER_NODE

    @property
    def tree_fits(self) -> bool:
        return self.build_bytes <= 0.75 * self.machine_bytes

    def check_fits(self) -> None:
        """SolveTooLarge unless the solve's storage fits in this machine (over its built tree, or
        streamed: the abstract game's)."""
        if self.fits:
            return
        if self.streamed:
            raise SolveTooLarge(f"{self.config.describe()} needs {format_bytes(self.bytes)}, more than this machine's "
                                f"{format_bytes(self.machine_bytes)} allows; use fewer buckets or a shorter recall")
        where = "with these buckets" if self.bucketed else "at full resolution"
        raise SolveTooLarge(f"{self.config.describe()} needs {format_bytes(self.bytes)} {where}, more than this "
                            f"machine's {format_bytes(self.machine_bytes)} allows; use a smaller cap, fewer draws or "
                            "(fewer) card buckets")

    def check_tree_fits(self) -> None:
        if not self.tree_fits:
            raise SolveTooLarge(f"{self.config.describe()}: building its public tree ({self.counts.nodes:,} nodes) "
                             f"needs about {format_bytes(self.build_bytes)}, more than this machine's "
                             f"{format_bytes(self.machine_bytes)} allows; use a smaller cap or fewer draws")

    @property
    def bucketed(self) -> bool:
        return self.config.bucketed

    @property
    def abstract_game_ready(self) -> bool:
        """A streamed solve walks bucket vectors: it needs buckets in every round and a recall."""
        return self.config.abstract_game_ready

    @property
    def row_widths(self) -> list[int]:
        """Entries per action row in each round (at most: k-means may leave a bucket empty)."""
        return StrategyLayout.planned_row_widths(self.config.buckets, self.config.rounds, self.private_states)

    @property
    def fits(self) -> bool:
        # Leave a quarter of the machine to the system and other work.
        return self.bytes <= 0.75 * self.machine_bytes and (self.tree_fits or self.abstract_game_ready)

    @property
    def certificate_seconds(self) -> float:
        """Estimated seconds of the exact full-resolution best response and game value (two
        best-response walks and an evaluate walk over every public node and value class)."""
        node_states = self.counts.nodes * self.private_states
        return node_states * (2 * BR_NS + EVALUATE_NS) * 1e-9 / max(self.threads, 1)

    def to_json(self) -> dict:
        return {
            "betting_nodes": self.counts.betting_nodes,
            "draw_nodes": self.counts.draw_nodes,
            "terminal_nodes": self.counts.terminal_nodes,
            "private_states": self.private_states,
            "entries": self.entries,
            "bytes": self.bytes,
            "storage_entries": self.storage_entries,
            "machine_bytes": self.machine_bytes,
            "fits": self.fits,
            "full_resolution_bytes": self.full_resolution_bytes,
            "tree_build_bytes": self.build_bytes,
            "streamed": self.streamed,
            "certificate_seconds": round(self.certificate_seconds, 1),
            "decision_nodes_by_round": list(self.counts.decisions_by_round),
            "key_states_by_round": list(self.key_states_by_round),
            "config": self.config.to_dict(),
        }

    def describe(self) -> str:
        c = self.counts
        lines = [
            f"game:            {self.config.describe()}",
            f"betting nodes:   {c.betting_nodes:,}",
            f"draw nodes:      {c.draw_nodes:,}",
            f"terminal nodes:  {c.terminal_nodes:,}",
            f"private states:  {self.private_states:,} value classes",
            f"entries:         {self.entries:,} (betting node, state) pairs",
        ]
        if self.config.recall >= 0:
            kept = describe_older(self.config.remember_draws, self.config.older_betting, "the draw counts")
            older = f"of earlier rounds only {kept}" if kept else "earlier rounds are forgotten"
            limit = describe_draw_limit(self.config.draw_limit)
            kept = (f"the pot and the last {self.config.recall} round(s); {older}"
                    if self.config.recall < self.config.draws else "the whole public history")
            lines.append(f"history:         strategies remember {kept}" + (f"; {limit}" if limit else ""))
            nodes = self.counts.decisions_by_round
            lines.append(f"key states:      {self.key_states:,} decisions told apart, against "
                         f"{sum(nodes):,} decision nodes ({sum(nodes) / max(self.key_states, 1):.1f} nodes a key "
                         f"state); by round " + ", ".join(f"{k:,}/{n:,}" for k, n in
                                                           zip(self.key_states_by_round, nodes)))
        if self.bucketed:
            widths = "/".join(str(w) for w in self.row_widths)
            lines.append(f"buckets:         {widths} per round (strategies shared within a bucket)")
        if self.config.abstracted:
            lines.append(f"abstract size:   {self.storage_entries:,} strategy entries")
            lines.append(f"memory:          {format_bytes(self.bytes)} for this abstracted solve "
                         f"(full resolution: {format_bytes(self.full_resolution_bytes)})")
        else:
            lines.append(f"memory:          {format_bytes(self.bytes)} for a full-resolution solve")
        if self.streamed:
            lines += [
                f"tree:            {c.nodes:,} nodes, too many to build; walks stream it from a built trunk and "
                f"one shape ({self.streamed_nodes:,} nodes)",
                "solver:          " + ("CFR in the abstract game (bucket vectors), alternating DCFR updates"
                                       if self.abstract_game_ready else
                                       "none: a tree this big needs card buckets in every round and a recall"),
            ]
        else:
            lines.append(f"tree building:   about {format_bytes(self.build_bytes)} at its peak")
        if self.config.abstracted or self.streamed:
            minutes = self.certificate_seconds / 60
            lines.append(f"certificate:     exact best response at full resolution, about "
                         f"{minutes:,.1f} min on {self.threads} thread(s)")
        lines.append(f"this machine:    {format_bytes(self.machine_bytes)}")
        if self.fits:
            lines.append("verdict:         fits in this machine's memory")
        else:
            lines.append("verdict:         does NOT fit in this machine's memory "
                         "(use card buckets, a recall, a smaller cap, or fewer draws)")
        return "\n".join(lines)


def largest_group_share(config: GameConfig) -> float:
    """The share of a 16-bit solve's storage in its largest group of first-round subtrees (those
    sharing slots: :func:`solver.cfr.kernels.cut_groups`): a few percent when every later key keeps
    the first round's draw counts (they split the subtrees; a draw limit splits them fewer ways),
    all of it otherwise (assumed)."""
    keeps_first_draws = config.remember_draws or config.recall >= config.draws
    if not keeps_first_draws:
        return 1.0
    pairs = (config.hand_size + 1) ** 2
    return LARGEST_GROUP_SHARE * pairs / (draw_pair_codes(config.hand_size, config.draw_limit)[1])


def machine_memory_bytes() -> int:
    """Physical memory of this machine (MemTotal)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def format_bytes(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if abs(n) < 1024 or unit == "PiB":
            return f"{n:,.1f} {unit}" if unit != "B" else f"{int(n)} B"
        n /= 1024
    raise AssertionError


def plan_solve(config: GameConfig, templates: RoundTemplates | None = None) -> SolvePlan:
    """The size and memory plan of solving ``config`` (``templates``: its round templates, if
    made); :class:`solver.game.setup.GameSetup` makes it once per game."""
    counts = count_tree(config)
    group_buffers = 0
    states = get_evaluator(config.ranks, config.suits, config.hand_size).n_values
    widths = StrategyLayout.planned_row_widths(config.buckets, config.rounds, states)
    templates = templates or RoundTemplates.of(config)
    sizes = (None if config.recall < 0
             else recall_sizes_by_round(templates, config.recall, config.remember_draws, config.older_betting,
                                        config.draw_limit))
    rows = counts.rows_by_round if sizes is None else sizes.rows
    storage = sum(r * w for r, w in zip(rows, widths))
    threads = numba.config.NUMBA_NUM_THREADS
    machine = machine_memory_bytes()
    # A game is streamed when a solve over its built tree would not fit.
    on_built_tree = storage * BYTES_PER_ENTRY + counts.nodes * BYTES_PER_NODE + WORK_ALLOWANCE
    # (Only a game with card buckets in every round and a recall can be solved streamed.)
    # (16-bit storage is the streamed abstract solver's.)
    streamed = config.abstract_game_ready and (config.storage_bits == 16 or max(
        on_built_tree, counts.nodes * BUILD_BYTES_PER_NODE) > 0.75 * machine)
    # A recall rule's key table and its slots' arrays (1.8 GB and 1.3 GB for recall 2 with every
    # draw count at cap 4, where the entries' storage is 18.8 GB: measured peak 23.7 GB)
    layout_bytes = 0 if sizes is None else sizes.codes * RULE_CODE_BYTES + sum(sizes.key_states) * KEY_STATE_BYTES
    if streamed:
        # the trunk and one shape, and per thread one cut's arrays; a regret delta of the storage;
        # the storage entry of every decision node (found once for every walk)
        built = templates.count_nodes(0, 0) + (templates.count_nodes(1) if config.draws else 0)
        fixed = (built * (BYTES_PER_NODE + 24 * threads) + (counts.betting_nodes + counts.draw_nodes) * CUT_ENTRY_BYTES
                 + WORK_ALLOWANCE)
        per_entry = BYTES_PER_ENTRY + STREAMED_DELTA_BYTES
        if config.storage_bits == 16:
            # 16-bit entries, two float32 scales a row, and each thread's float32 buffers of one
            # cut group (solver/cfr/quantized.py)
            per_entry = QUANTIZED_BYTES_PER_ENTRY
            group_buffers = int(QUANTIZED_LOCAL_BYTES * threads * largest_group_share(config) * storage)
            fixed += QUANTIZED_BYTES_PER_ROW * sum(rows) + group_buffers
    else:
        built = counts.nodes
        fixed = counts.nodes * BYTES_PER_NODE + WORK_ALLOWANCE
        per_entry = BYTES_PER_ENTRY
    full = (counts.betting_rows + counts.draw_rows) * states * BYTES_PER_ENTRY + counts.nodes * BYTES_PER_NODE \
        + WORK_ALLOWANCE
    fixed += layout_bytes
    return SolvePlan(config, counts, states, counts.betting_nodes * states, storage, int(storage * per_entry + fixed),
                     machine, full, streamed, built if streamed else 0, threads,
                     () if sizes is None else tuple(sizes.key_states), group_buffers)
