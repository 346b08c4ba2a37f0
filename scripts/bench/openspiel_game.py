"""The solver's model game as an OpenSpiel Python game (benchmark only; needs open-spiel).

Same game as the solver's: the public betting tree of a config, chance deals
each seat a value class with the deal distribution, a draw is the seat's
choice of a count followed by a chance node for its new class (the exact
transition table). Information states are perfect recall: a seat's whole
sequence of value classes and the public history. So OpenSpiel's CFR+ and
ours solve the same game, and their game values must agree.
"""

from __future__ import annotations

import numpy as np
import pyspiel

from abstractions.transitions import get_draw_model
from solver.game.config import GameConfig
from solver.game.tree import BET, DRAW, FOLD, SHOWDOWN, build_tree

BET_ACTIONS = "fkcbr"


def make_game(config: GameConfig, name: str = "python_badugi_model") -> pyspiel.Game:
    tree = build_tree(config)
    model = get_draw_model(config.ranks, config.suits, config.hand_size)
    n_actions = len(BET_ACTIONS) + config.hand_size + 1
    stakes = float(tree.contrib.max())
    game_type = pyspiel.GameType(
        short_name=name, long_name=f"Badugi model: {config.describe()}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=2, min_num_players=2,
        provides_information_state_string=True, provides_information_state_tensor=False,
        provides_observation_string=False, provides_observation_tensor=False,
        provides_factored_observation_string=False)
    game_info = pyspiel.GameInfo(
        num_distinct_actions=n_actions, max_chance_outcomes=model.n_values, num_players=2,
        min_utility=-stakes, max_utility=stakes, utility_sum=0.0, max_game_length=200)

    class BadugiModelState(pyspiel.State):
        def __init__(self, game):
            super().__init__(game)
            self.node = 0
            self.values: list[list[int]] = [[], []]
            self.pending_draw = None  # (seat, count) waiting for its chance outcome
            self.history_text = ""

        def current_player(self):
            if len(self.values[0]) == 0 or len(self.values[1]) == 0 or self.pending_draw is not None:
                return pyspiel.PlayerId.CHANCE
            if tree.kind[self.node] in (FOLD, SHOWDOWN):
                return pyspiel.PlayerId.TERMINAL
            return int(tree.seat[self.node])

        def _legal_actions(self, player):
            labels = [chr(tree.action[c]) for c in tree.children(self.node)]
            if tree.kind[self.node] == BET:
                return sorted(BET_ACTIONS.index(label) for label in labels)
            value = self.values[player][-1]
            return [len(BET_ACTIONS) + d for d in range(config.hand_size + 1) if model.legal[value, d]]

        def chance_outcomes(self):
            if len(self.values[0]) == 0 or len(self.values[1]) == 0:
                probs = model.deal_prob
                return [(int(v), float(p)) for v, p in enumerate(probs) if p > 0]
            seat, count = self.pending_draw
            dist = model.next_distribution(self.values[seat][-1], count)
            return [(int(v), float(p)) for v, p in enumerate(dist) if p > 0]

        def _apply_action(self, action):
            if len(self.values[0]) == 0:
                self.values[0].append(action)
                return
            if len(self.values[1]) == 0:
                self.values[1].append(action)
                return
            if self.pending_draw is not None:
                seat, _ = self.pending_draw
                self.values[seat].append(action)
                self.pending_draw = None
                return
            seat = int(tree.seat[self.node])
            if tree.kind[self.node] == DRAW:
                count = action - len(BET_ACTIONS)
                label = str(count)
                if count > 0:
                    self.pending_draw = (seat, count)
            else:
                label = BET_ACTIONS[action]
            self.node = next(c for c in tree.children(self.node) if chr(tree.action[c]) == label)
            self.history_text = tree.history(self.node)

        def _action_to_string(self, player, action):
            if player == pyspiel.PlayerId.CHANCE:
                return f"value:{action}"
            return BET_ACTIONS[action] if action < len(BET_ACTIONS) else f"draw{action - len(BET_ACTIONS)}"

        def is_terminal(self):
            return self.pending_draw is None and len(self.values[1]) > 0 and tree.kind[self.node] in (FOLD, SHOWDOWN)

        def returns(self):
            if not self.is_terminal():
                return [0.0, 0.0]
            contrib = tree.contrib[self.node]
            if tree.kind[self.node] == FOLD:
                folder = int(tree.seat[self.node])
                gain = float(contrib[folder])
                return [-gain, gain] if folder == 0 else [gain, -gain]
            button, big_blind = self.values[0][-1], self.values[1][-1]
            if button == big_blind:
                return [0.0, 0.0]
            won = float(contrib[1]) if button < big_blind else -float(contrib[0])
            return [won, -won]

        def information_state_string(self, player=None):
            player = self.current_player() if player is None else player
            return f"{player}|{','.join(map(str, self.values[player]))}|{self.history_text}"

        def __str__(self):
            return f"{self.values}|{self.history_text}"

    class BadugiModelObserver:
        """Perfect-recall information state strings (the only view CFR needs)."""

        def __init__(self, iig_obs_type=None, params=None):
            self.tensor = np.zeros(0, dtype=np.float32)
            self.dict = {}

        def set_from(self, state, player):
            pass

        def string_from(self, state, player):
            return state.information_state_string(player)

    class BadugiModelGame(pyspiel.Game):
        def __init__(self, params=None):
            super().__init__(game_type, game_info, params or {})

        def new_initial_state(self):
            return BadugiModelState(self)

        def make_py_observer(self, iig_obs_type=None, params=None):
            return BadugiModelObserver(iig_obs_type, params)

    return BadugiModelGame()


def to_efg(game: pyspiel.Game, title: str = "badugi model") -> str:
    """The whole game tree in Gambit's EFG format, for ``pyspiel.load_efg_game`` (a native C++ game)."""
    lines = [f'EFG 2 R "{title}" {{ "button" "big blind" }} ""', ""]
    infosets: list[dict[str, int]] = [{}, {}]
    counters = {"chance": 0, "outcome": 0}

    def walk(state, depth):
        pad = "  " * depth
        if state.is_terminal():
            counters["outcome"] += 1
            u = state.returns()
            lines.append(f'{pad}t "" {counters["outcome"]} "" {{ {u[0]!r} {u[1]!r} }}')
            return
        if state.is_chance_node():
            counters["chance"] += 1
            outcomes = state.chance_outcomes()
            body = " ".join(f'"{a}" {p!r}' for a, p in outcomes)
            lines.append(f'{pad}c "" {counters["chance"]} "" {{ {body} }} 0')
            for action, _ in outcomes:
                walk(state.child(action), depth + 1)
            return
        player = state.current_player()
        key = state.information_state_string(player)
        number = infosets[player].setdefault(key, len(infosets[player]) + 1)
        actions = state.legal_actions()
        body = " ".join(f'"{state.action_to_string(player, a)}"' for a in actions)
        lines.append(f'{pad}p "" {player + 1} {number} "{key}" {{ {body} }} 0')
        for action in actions:
            walk(state.child(action), depth + 1)

    walk(game.new_initial_state(), 0)
    return "\n".join(lines) + "\n"
