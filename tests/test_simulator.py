"""The real-Badugi simulator on hand-made deals, and matches between players."""

import dataclasses
import json

import numpy as np
import pytest

from abstractions.cards import Deck, parse_cards
from solver.cli import main
from solver.game.config import GameConfig, load_preset
from solver.cfr.engine import Engine
from solver.arena.match import MatchGame, Player, load_player, play_hand, play_match
from solver.game.layout import StrategyLayout
from solver.game.tree import DRAW, build_tree

TINY = GameConfig(ranks=3, suits=2, hand_size=2, draws=1, cap=1, bets=(1.0, 2.0))


def deck_order(config, *hands_then_stub):
    """Cards named in order first, then the rest of the deck in card order."""
    deck = Deck(config.ranks, config.suits)
    named = [c for text in hands_then_stub for c in parse_cards(text, deck)]
    return named + [c for c in range(deck.n_cards) if c not in named]


def scripted(game, bet_order="rbck", draw=0, name="scripted"):
    """A deterministic player: at betting points the first label of ``bet_order`` that is legal;
    at draws, ``draw`` cards (the tests give it hands for which that count is legal)."""
    tree = build_tree(game.config)
    # One bucket a round: a row of one entry per action.
    layout = StrategyLayout.build(tree, np.ones((game.n_states, tree.config.hand_size + 1), dtype=bool),
                                  row_of=np.zeros((game.config.rounds, game.n_states), np.int64))
    probs = np.zeros(layout.n_entries, dtype=np.float32)
    for node in np.nonzero(tree.kind <= DRAW)[0]:
        labels = [chr(tree.action[c]) for c in tree.children(int(node))]
        pick = str(draw) if tree.kind[node] == DRAW else next(x for x in bet_order if x in labels)
        layout.rows(probs, layout.slot_of[node])[labels.index(pick)] = 1.0
    return Player.of_strategy(name, game.config, tree, layout, probs)


def same_cards(config, shown, text):
    deck = Deck(config.ranks, config.suits)
    return sorted(parse_cards(shown, deck)) == sorted(parse_cards(text, deck))


def test_order_of_action_and_the_cap():
    game = MatchGame.of(load_preset("single-draw"))
    aggressor = scripted(game)
    deck = deck_order(game.config, "As2h3d4c", "5s6h7d8c")
    hand = play_hand(game, deck, aggressor, aggressor)
    # Button raises, big blind re-raises, button caps (4 bets, the blind the first), big blind calls;
    # after the draw the big blind acts first and the round caps again.
    assert hand.history == "rrrc/00/brrrc"
    assert hand.payoff == [12.0, -12.0]  # 4 small bets + 4 big bets each, A-2-3-4 wins
    assert same_cards(game.config, hand.hands[0], "As2h3d4c")


def test_draws_come_from_the_stub_big_blind_first_with_the_canonical_discard():
    game = MatchGame.of(load_preset("single-draw"))
    station = load_player("station")
    # Button: A-2-3 with a king of a used suit; big blind: 7-5-4 with the 6 of spades paired in suit.
    deck = deck_order(game.config, "As2h3dKd", "4s5h6s7c", "8d4c")
    hand = play_hand(game, deck, station, station)
    assert hand.history == "ck/11/kk"
    assert same_cards(game.config, hand.hands[1], "4s5h7c8d")  # first stub card to the big blind
    assert same_cards(game.config, hand.hands[0], "As2h3d4c")  # the next to the button
    assert hand.payoff == [1.0, -1.0]


def test_the_muck_is_shuffled_into_a_new_stub_when_the_stub_runs_out():
    game = MatchGame.of(TINY)
    # 6 cards, 2-card hands: after the deal the stub holds 2 cards.
    deck = deck_order(TINY, "AsAh", "2s3h", "2h3s")
    caller = dict(bet_order="ck")
    hand = play_hand(game, deck, scripted(game, draw=2, **caller), scripted(game, draw=2, **caller))
    assert hand.history == "ck/22/kk"
    assert same_cards(TINY, hand.hands[1], "2h3s")  # the whole stub
    assert same_cards(TINY, hand.hands[0], "2s3h")  # the big blind's discards, reshuffled
    # The stub runs short mid-draw: the button takes the last stub card, then the muck.
    hand = play_hand(game, deck, scripted(game, draw=2, **caller), scripted(game, draw=1, **caller))
    assert hand.history == "ck/12/kk"
    assert same_cards(TINY, hand.hands[1], "2s2h")  # kept its lowest card, the 2s, and drew the 2h
    assert same_cards(TINY, hand.hands[0], "3s3h")  # the stub's last card and the big blind's discard


def test_split_pot_and_fold():
    game = MatchGame.of(load_preset("single-draw"))
    station = load_player("station")
    deck = deck_order(game.config, "As2h3d4c", "Ah2s3c4d")
    hand = play_hand(game, deck, station, station)
    assert hand.history == "ck/00/kk" and hand.payoff == [0.0, 0.0]  # equal values split the pot
    # The rule player calls a raise with a weak draw, misses, checks and folds to a bet at the end.
    deck = deck_order(game.config, "As2h3d4c", "KsQhJdJc", "Qs")
    hand = play_hand(game, deck, scripted(game), load_player("rule"))
    assert hand.history == "rc/10/kbf"
    assert hand.payoff == [2.0, -2.0]


def test_same_seed_same_result_and_duplicate_symmetry():
    config = load_preset("tiny-single-draw")
    a = play_match(config, "rule", "random", hands=4000, seed=7)
    b = play_match(config, "rule", "random", hands=4000, seed=7)
    c = play_match(config, "rule", "random", hands=4000, seed=8)
    assert (a.mbb, a.button_mbb, a.big_blind_mbb) == (b.mbb, b.button_mbb, b.big_blind_mbb)
    assert a.mbb != c.mbb
    # The same deterministic player on both sides of every duplicate pair: exactly even.
    even = play_match(config, "station", "station", hands=4000, seed=7)
    assert even.mbb == 0.0 and even.button_mbb == -even.big_blind_mbb


def test_solved_strategy_beats_the_baselines_in_a_small_real_game(tmp_path):
    """A solved tiny-game strategy, played with real cards from one deck, beats every baseline."""
    config = load_preset("tiny-single-draw")
    engine = Engine(config)
    engine.run_iterations(500)
    player = Player.of_strategy("solved", config, engine.tree, engine.layout, engine.average_probabilities())
    for baseline in ("rule", "station", "random"):
        result = play_match(None, player, baseline, hands=200_000, seed=1)
        assert result.mbb - result.ci95 > 0, (baseline, result.describe())


def test_match_command(capsys):
    assert main(["match", "rule", "random", "--preset", "tiny-single-draw", "--hands", "1000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["games"] == 1000 and data["deals"] == 500 and data["ci95_mbb"] > 0
    assert main(["match", "rule", "nobody", "--preset", "tiny-single-draw"]) == 2
    assert "neither a baseline" in capsys.readouterr().err
    assert main(["match", "rule", "random", "--hands", "1"]) == 2
    capsys.readouterr()
    # Cap-4 triple draw, the real game: played from the round templates, its 242-million-node
    # tree never built (the example of `badugi match --help`).
    assert main(["match", "rule", "random", "--preset", "triple-draw", "--hands", "20000", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["game"].startswith("triple-draw Badugi, cap 4") and data["mbb_per_hand"] - data["ci95_mbb"] > 0
    bad = GameConfig(ranks=2, suits=2, hand_size=3, draws=1, cap=1, bets=(1.0, 2.0))
    with pytest.raises(ValueError, match="cannot deal two"):
        play_match(bad, "rule", "random", hands=10)


def test_model_values_of_baselines_equal_the_real_card_reference():
    """The baselines' class policies (used for model values) are what the simulator plays: the
    reference's brute-force evaluation, asking the simulator's own choice about each real hand,
    gives the same values."""
    import reference_game as ref
    from solver.arena import simulator
    from solver.arena.match import model_values

    config = GameConfig(ranks=3, suits=2, hand_size=2, draws=1, cap=1, bets=(1.0, 2.0))
    game = MatchGame.of(config)
    tree = build_tree(config)
    players = {name: load_player(name) for name in ("rule", "station", "random")}

    def reference_policy(button, big_blind):
        def policy(at, history, hand):
            node = tree.node_at(history)
            player = (button, big_blind)[at]
            labels = [chr(tree.action[c]) for c in tree.children(node)]
            if player.name == "random":
                legal = ref.legal_actions(*_args, history, hand)
                return {label: 1.0 / len(legal) for label in legal}
            a = simulator.choose_action(game.player_arrays(player), node, int(tree.round[node]),
                                        int(tree.phase[node]), float(tree.pot[node]), tree.records[node].astype(np.int64),
                                        np.array(hand, dtype=np.int64), game.rules, np.zeros(1, np.uint64))
            return {labels[a]: 1.0}
        return policy

    _args = (config.ranks, config.suits, config.hand_size, config.draws, config.cap, config.bets)
    for a, b in [("rule", "random"), ("station", "rule"), ("rule", "rule")]:
        as_button, as_big_blind = model_values(players[a], players[b], config)
        _, _, value = ref.best_response_values(*_args, reference_policy(players[a], players[b]))
        assert as_button == pytest.approx(1000 * value, abs=1e-6)
        _, _, value = ref.best_response_values(*_args, reference_policy(players[b], players[a]))
        assert as_big_blind == pytest.approx(-1000 * value, abs=1e-6)


def test_model_value_of_a_solved_strategy_is_its_game_value():
    from solver.arena.match import model_values

    config = load_preset("tiny-double-draw")
    bucketed = Engine(dataclasses.replace(config, buckets=(3, 4, 2)))
    bucketed.run_iterations(30)
    probabilities = bucketed.average_probabilities()
    player = Player.of_strategy("solved", bucketed.config, bucketed.tree, bucketed.layout, probabilities)
    as_button, as_big_blind = model_values(player, player)
    assert as_button == pytest.approx(bucketed.walker.exploitability(probabilities).game_value_mbb, abs=1e-6)
    assert as_big_blind == pytest.approx(-as_button, abs=1e-9)


def test_model_values_refuse_a_game_too_big_to_walk_per_class():
    """Cap-4 triple draw: its tree would build in 14 GiB, but an exact value in the model walks
    a strategy per (action, value class) of it, 9.7e10 entries: a one-line refusal, not a run
    that is killed for memory (run_matches.py was, on the triple-draw-cap4 strategy)."""
    from solver.arena.match import model_values
    from solver.game.plan import SolveTooLarge

    with pytest.raises(SolveTooLarge, match="strategy per value class on the built tree"):
        model_values(load_player("rule"), load_player("random"), load_preset("triple-draw"))
