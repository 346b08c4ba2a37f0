"""One game's setup: everything about a config that solving, certifying, playing, exporting and
charting read, built once and handed to each of them.

A :class:`GameSetup` holds the config and what follows from it: the round
templates, the plan (sizes and memory, :func:`solver.game.plan.plan_solve`,
computed once), the draw model of value classes, the class-to-row maps (card
buckets, or full resolution), the strategy layout with its recall rule (the
one map from (public node, action, class) to a storage entry), and either the
built public tree or, for a game too big to build, its streamed form (a built
trunk and one shape). Each part is made when first asked for, so a command
that needs only the plan builds nothing else.

Every question about the abstraction is asked of it: :attr:`bucketed` (card
buckets), :attr:`shares_rows` (rows shared by classes or by public nodes),
:attr:`abstracted`, :attr:`abstract_game_ready`, :attr:`recall_rounds`, and
:meth:`entry` (where the strategy of a node, action and class is stored).

>>> setup = GameSetup(load_preset("tiny-single-draw"))
>>> setup.plan.counts.betting_nodes, setup.n_states, setup.streamed, setup.bucketed, setup.shares_rows
(38, 6, False, False, False)
>>> node = setup.tree.node_at("ck/")     # the big blind's draw
>>> setup.entry(node, 2, 5) - int(setup.layout.slot_offset[setup.layout.slot_of[node]])   # action 2, class 5
17
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from abstractions.transitions import DrawModel, get_draw_model

from .config import GameConfig, load_preset  # noqa: F401  (load_preset: doctest)
from .layout import LayoutError, StrategyLayout, config_row_maps
from .plan import SolvePlan, plan_solve
from .rounds import RoundTemplates
from .tree import PublicTree, StreamedGame, expand_tree


class GameSetup:
    """A config and everything built from it (see the module docstring)."""

    def __init__(self, config: GameConfig, row_of: np.ndarray | None = None, streamed: bool | None = None,
                 plan: SolvePlan | None = None):
        """``row_of``: class -> row maps per round to use instead of the config's buckets (a
        checkpoint's: a bucketed run resumes without clustering again). ``streamed``: walk the
        tree streamed even where it could be built (None: where the plan says it must be).
        ``plan``: the config's plan, if already made."""
        self.config = config
        self._row_of = None if row_of is None else np.asarray(row_of, np.int64)
        self._streamed = streamed
        if plan is not None:
            self.plan = plan

    @classmethod
    def of(cls, game: "GameConfig | GameSetup", row_of: np.ndarray | None = None,
           streamed: bool | None = None) -> "GameSetup":
        """``game`` itself if it is a setup (``row_of`` and ``streamed``, if given, must be its
        own), else a new setup of the config: the entry of the engines, which take either."""
        if isinstance(game, GameSetup):
            if row_of is not None and not np.array_equal(row_of, game.row_of):
                raise LayoutError("a setup's row maps are its own")
            if streamed is not None and streamed != game.streamed:
                raise LayoutError(f"{game.config.describe()}: this setup's tree is "
                                  + ("streamed" if game.streamed else "built"))
            return game
        return cls(game, row_of, streamed)

    def decided(self, streamed: bool, row_of: np.ndarray | None = None) -> "GameSetup":
        """This game with its tree built or streamed as decided (and a checkpoint's row maps, if
        given), sharing the plan: itself when nothing changes."""
        if streamed == self.streamed and row_of is None:
            return self
        return GameSetup(self.config, self._row_of if row_of is None else row_of, streamed, self.plan)

    # -- the game ----------------------------------------------------------
    @cached_property
    def templates(self) -> RoundTemplates:
        return RoundTemplates.of(self.config)

    @cached_property
    def plan(self) -> SolvePlan:
        return plan_solve(self.config, self.templates)

    @cached_property
    def model(self) -> DrawModel:
        """The draw model of value classes."""
        return get_draw_model(self.config.ranks, self.config.suits, self.config.hand_size)

    @property
    def n_states(self) -> int:
        return self.plan.private_states

    @property
    def streamed(self) -> bool:
        """Whether the public tree is walked streamed (a trunk and one shape) instead of built."""
        return self.plan.streamed if self._streamed is None else self._streamed

    @cached_property
    def tree(self) -> PublicTree:
        """The built public tree (a streamed game has none: LayoutError)."""
        if self.streamed:
            raise LayoutError(f"{self.config.describe()}: its public tree is walked streamed, not built")
        return expand_tree(self.templates, 0)   # (build_tree, from the templates made already)

    @cached_property
    def game(self) -> StreamedGame:
        """The public tree as a built trunk and one shape (:class:`StreamedGame`)."""
        return StreamedGame(self.templates)

    # -- the abstraction ---------------------------------------------------
    @cached_property
    def row_of(self) -> np.ndarray:
        """(rounds, classes) each class's position in a row of each round: its card bucket, or
        itself at full resolution."""
        if self._row_of is not None:
            return self._row_of
        maps = config_row_maps(self.config, self.n_states)
        return np.tile(np.arange(self.n_states, dtype=np.int64), (self.config.rounds, 1)) if maps is None else maps

    @property
    def bucketed(self) -> bool:
        """Whether classes share rows (card buckets) in some round."""
        return bool((self.row_of != np.arange(self.n_states)).any())

    @property
    def recall_rounds(self) -> int:
        """The rounds a layout by recall rule remembers whole (perfect recall: every round)."""
        return self.config.recall if self.config.recall >= 0 else self.config.draws

    @property
    def by_rule(self) -> bool:
        """Whether storage is found by a recall rule (a history abstraction, or a streamed tree)."""
        return self.config.recall >= 0 or self.streamed

    @property
    def shares_rows(self) -> bool:
        """Whether a row serves several (public node, class) pairs: card buckets, or public
        histories the recall rule does not tell apart."""
        return self.bucketed or self.recall_rounds < self.config.draws or bool(self.config.draw_limit)

    @property
    def abstracted(self) -> bool:
        return self.config.abstracted

    @property
    def abstract_game_ready(self) -> bool:
        """Whether the abstract game (bucket vectors, streamed) can be solved: buckets in every
        round and a recall (a fact of the config: no plan needed)."""
        return self.config.abstract_game_ready

    @cached_property
    def layout(self) -> StrategyLayout:
        """The strategy layout: the one map from (public node, action, class) to a storage
        entry. One slot per decision node of the built tree, or slots by the recall rule (with
        the tree's nodes located, where it is built)."""
        return self.layout_for(self.model.legal, self.row_of)

    def layout_for(self, class_legal: np.ndarray, row_of: np.ndarray) -> StrategyLayout:
        """The layout of this game's storage for private states with legality ``class_legal``
        and rows ``row_of``: the value classes' (:attr:`layout`) or the abstract game's buckets
        (:attr:`abstract_layout`): one set of slots whatever the states."""
        if not self.by_rule:
            return StrategyLayout.build(self.tree, class_legal, row_of)
        layout = StrategyLayout.by_recall(self.templates, class_legal, self.recall_rounds, row_of,
                                          self.config.remember_draws, self.config.older_betting,
                                          self.config.draw_limit)
        return layout if self.streamed else layout.materialize(self.tree)

    def entry(self, node: int, action: int, state: int) -> int:
        """The storage entry of (decision node, action, class) in :attr:`layout` (a built tree's)."""
        return self.layout.entry(node, action, state)

    # -- the abstract game -------------------------------------------------
    @cached_property
    def bucket_game(self):
        """The abstract game's private states: card buckets, with their transitions and showdown
        order (:class:`abstractions.buckets.BucketGame`)."""
        from abstractions.buckets import bucket_game

        if not (self.config.buckets and all(self.config.buckets)):
            raise LayoutError("the abstract game needs card buckets in every round")
        c = self.config
        return bucket_game(c.ranks, c.suits, c.hand_size, c.draws, self.row_of)

    @property
    def solves_real_game(self) -> bool:
        """Whether a solve over the streamed tree walks the real game itself (no card buckets:
        value classes, the layout by recall rule, exact checks) rather than an abstract game of
        bucket vectors: a full-resolution solve, or a recall rule alone."""
        return not self.config.bucketed

    @property
    def walked_states(self):
        """The private states a streamed solve walks: the abstract game's card buckets
        (:attr:`bucket_game`), or the value classes (:attr:`model`, :attr:`solves_real_game`)."""
        return self.model if self.solves_real_game else self.bucket_game

    @property
    def walked_layout(self) -> StrategyLayout:
        """The layout a streamed solve walks: :attr:`abstract_layout`, or :attr:`layout` itself
        (:attr:`solves_real_game`)."""
        return self.layout if self.solves_real_game else self.abstract_layout

    @cached_property
    def abstract_layout(self) -> StrategyLayout:
        """The abstract game's layout: each bucket its own row position, the same slots and
        entries as :attr:`layout`."""
        n = self.bucket_game.n_values
        widths = self.row_of.max(axis=1) + 1
        own_rows = np.where(np.arange(n)[None, :] < widths[:, None], np.arange(n)[None, :], 0).astype(np.int64)
        if self.by_rule:
            return self.layout.with_rows(self.bucket_game.legal, own_rows)  # (its arrays, shared)
        layout = self.layout_for(self.bucket_game.legal, own_rows)
        if not np.array_equal(layout.slot_offset, self.layout.slot_offset):
            raise AssertionError("the abstract game's storage must be the real game's")
        return layout
