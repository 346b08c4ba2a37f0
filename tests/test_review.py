"""Hand histories (PHH) written by matches and `badugi play`, read back and reviewed against a
strategy (issue 35): PokerKit replays what we write, the reader refuses bad files in one line,
off-tree actions are mapped with a flag, and the costs obey the performance-difference identity."""

import math
import os
import pty
import select
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest

from solver.arena.match import MatchGame, load_player, match_histories, play_deals
from solver.arena.phh import PHHError, read_phh, write_phhs
from solver.arena.review import Replayer, review_hands, to_json
from solver.cfr.solve import solve
from solver.cli import main
from solver.game.config import load_preset

BADUGI = [sys.executable, "-m", "solver.cli"]


@pytest.fixture(scope="module")
def tiny_strategy(tmp_path_factory):
    """A tiny single draw, solved well enough that its mix is not uniform."""
    out = tmp_path_factory.mktemp("tiny") / "run"
    solve(load_preset("tiny-single-draw"), iterations=200, out_dir=out)
    return out


def test_pokerkit_replays_match_histories_and_agrees_on_every_payoff():
    pokerkit = pytest.importorskip("pokerkit")
    config = load_preset("triple-draw")
    texts = match_histories(config, "rule", "random", 300, seed=4)
    game = MatchGame.of(config.at_full_resolution())
    chips = play_deals(game, load_player("rule"), load_player("random"), 150, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # PokerKit warns about cards it did not expect: none here
        for g, text in enumerate(texts):
            for state in pokerkit.HandHistory.loads(text):
                pass
            assert state.status is False  # the hand is over
            deal, seat_game = divmod(g, 2)
            # A ("rule") is on the button (PokerKit's p2) in the first game of a deal, else p1;
            # chips are half big blinds.
            rule_chips = state.payoffs[1] if seat_game == 0 else state.payoffs[0]
            assert rule_chips / 2 == pytest.approx(chips[deal, seat_game])


def test_reader_reads_back_what_matches_write(tmp_path, tiny_strategy):
    texts = match_histories(None, str(tiny_strategy), "rule", 40, seed=2)
    write_phhs(tmp_path / "m.phhs", texts)
    player = load_player(str(tiny_strategy))
    hands = read_phh(tmp_path / "m.phhs", player.config)
    assert len(hands) == 40
    replayed = [Replayer(MatchGame.of(player.config.at_full_resolution())).replay(h) for h in hands]
    game = MatchGame.of(player.config.at_full_resolution())
    chips = play_deals(game, player, load_player("rule"), 20, 2)
    for g, r in enumerate(replayed):
        deal, seat_game = divmod(g, 2)
        assert r.payoff is not None and not r.flags
        assert r.payoff[seat_game] == pytest.approx(chips[deal, seat_game])


def _hand(actions, **fields):
    head = {"variant": '"FB"', "antes": "[0, 0]", "blinds_or_straddles": "[1, 2]", "small_bet": "2",
            "big_bet": "4", "starting_stacks": "[200, 200]"}
    head.update(fields)
    lines = [f"{k} = {v}" for k, v in head.items()]
    return "\n".join(lines) + "\nactions = [\n" + "".join(f'  "{a}",\n' for a in actions) + "]\n"


DEAL = ["d dh p1 As2h3d4c", "d dh p2 5s6h7d8c"]


@pytest.mark.parametrize("text, message", [
    ("this is not toml [", "not a PHH file"),
    (_hand(DEAL, variant='"NT"'), "variant 'NT' is not fixed-limit Badugi"),
    (_hand(DEAL, starting_stacks="[200, 200, 200]"), "3 players"),
    (_hand(DEAL + ["p1 cc"]), "line 10: p1 acts out of turn (p2 is to act)"),
    (_hand(DEAL + ["p2 cbr 6"]), "line 10: 'p2 cbr 6' bets or raises to 3 big blinds; the fixed-limit amount here is 2"),
    (_hand(["d dh p1 As2h3d4x", "d dh p2 5s6h7d8c"]), "line 8: bad card '4x'"),
    (_hand(["d dh p1 As2h3d4c", "d dh p2 As6h7d8c"]), "line 9: As is dealt twice"),
    (_hand(DEAL + ["p2 cc", "p1 cc", "p1 sd Kd"]), "line 12: p1 throws Kd, which is not in the hand"),
    (_hand(DEAL + ["p2 xx"]), "line 10: 'p2 xx' is not an action of fixed-limit Badugi"),
    (_hand(DEAL + ["d db Ks"]), "deals a board card"),
])
def test_bad_files_get_one_line_naming_the_place(tmp_path, text, message):
    path = tmp_path / "bad.phh"
    path.write_text(text)
    config = load_preset("triple-draw").at_full_resolution()
    with pytest.raises(PHHError, match=None) as err:
        hands = read_phh(path, config)
        Replayer(MatchGame.of(config)).replay(hands[0])
    assert message in str(err.value)
    assert "\n" not in str(err.value)


def test_review_command_refuses_bad_input_in_one_line(tmp_path, tiny_strategy, capsys):
    path = tmp_path / "bad.phh"
    path.write_text(_hand(DEAL + ["p1 cc"]))
    assert main(["review", str(path), "--strategy", str(tiny_strategy)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "is not the strategy's" in err  # a full-deck hand, a tiny strategy
    assert main(["review", str(tmp_path / "none.phhs"), "--strategy", str(tiny_strategy)]) == 2
    assert "no such file" in capsys.readouterr().err


def test_off_tree_actions_are_mapped_with_a_flag():
    config = load_preset("triple-draw").at_full_resolution()
    replayer = Replayer(MatchGame.of(config))
    # PokerKit allows a fifth bet before the draw; the solver's cap is four.
    five_bets = _hand(DEAL + ["p2 cbr 4", "p1 cbr 6", "p2 cbr 8", "p1 cbr 10"])
    # A fold when checking is free; a draw keeping a dead card; a discard that is not canonical.
    path = Path(os.environ.get("TMPDIR", "/tmp")) / f"offtree-{os.getpid()}.phh"
    try:
        path.write_text(five_bets)
        hand = replayer.replay(read_phh(path, config)[0])
        assert [d.flags for d in hand.decisions][3] == ["raises beyond the cap of 4 bets: valued as a call"]
        assert hand.decisions[3].action == replayer.labels[0][int(hand.decisions[3].ipos[3])].index("c")
        # PokerKit's player may then fold to the fifth bet (or call it): the solution's tree is at
        # the draw already; the answer is not reviewed and a fold ends the hand.
        path.write_text(_hand(DEAL + ["p2 cbr 4", "p1 cbr 6", "p2 cbr 8", "p1 cbr 10", "p2 f"]))
        hand = replayer.replay(read_phh(path, config)[0])
        assert len(hand.decisions) == 4 and "folds to a bet beyond the cap (action 7 ('p2 f'))" in hand.flags[0]
        assert hand.payoff is not None and hand.payoff[0] < 0
        path.write_text(_hand(DEAL + ["p2 cbr 4", "p1 cbr 6", "p2 cbr 8", "p1 cbr 10", "p2 cc", "p1 sd", "p2 sd"]))
        hand = replayer.replay(read_phh(path, config)[0])
        assert "answers a bet beyond the cap" in hand.flags[0] and len(hand.decisions) == 6
        dead = _hand(["d dh p1 As2s3d4c", "d dh p2 5s6h7d8c", "p2 cc", "p1 f"])
        path.write_text(dead)
        hand = replayer.replay(read_phh(path, config)[0])
        assert hand.decisions[-1].flags == ["folds when checking is free: valued as a check"]
        draws = _hand(["d dh p1 As2s3s4c", "d dh p2 5s6h7d8c", "p2 cc", "p1 cc", "p1 sd 3s",
                       "p2 sd 5s", "d dh p1 Kd", "d dh p2 Kc"])
        path.write_text(draws)
        hand = replayer.replay(read_phh(path, config)[0])
        bb_draw, button_draw = hand.decisions[2], hand.decisions[3]
        # Three spades: two of them are dead; drawing 1 keeps one: valued as it was made, the cards
        # kept at positions 0, 1 and 3 of As2s3s4c.
        assert bb_draw.action == 1 and "keeps a dead card" in bb_draw.flags[0]
        assert bb_draw.kept == 0b1011 and bb_draw.thrown == [bb_draw.cards[2]]
        # 5s6h7d8c is a badugi: drawing one, the canonical discard is the 8c; the 5s is thrown.
        assert button_draw.action == 1 and "not the canonical 8c: valued as thrown" in button_draw.flags[0]
        assert button_draw.kept == 0b1110
        assert hand.flags == ["the history stops before the hand ends"]
    finally:
        path.unlink(missing_ok=True)


def test_review_costs_obey_the_performance_difference_identity(tmp_path, tiny_strategy):
    """The strategy's own decisions cost nothing on average; the baseline's costs add up, hand by
    hand, to what it loses (both within their 95% intervals over 2,000 hands)."""
    texts = match_histories(None, str(tiny_strategy), "rule", 2000, seed=11)
    write_phhs(tmp_path / "m.phhs", texts)
    player = load_player(str(tiny_strategy))
    config = player.config.at_full_resolution()
    review = review_hands(read_phh(tmp_path / "m.phhs", config), player, MatchGame.of(config), samples=64, seed=3)
    totals = review.totals()
    own = totals[str(tiny_strategy)]
    assert own["hands"] > 1000 and abs(own["per_hand"]) <= own["per_hand_ci95"]
    # The identity, hand by hand: the rule player's summed cost against its loss in that hand.
    costs = review.hand_costs()["rule"]
    diffs = []
    for i, h in enumerate(review.hands):
        rule_seat = h.history.players.index("rule")
        diffs.append(costs.get(i, 0.0) + h.payoff[rule_seat] / config.big_blind)
    diffs = np.array(diffs)
    ci = 1.96 * diffs.std(ddof=1) / math.sqrt(len(diffs))
    assert abs(diffs.mean()) <= ci
    loss = -np.mean([h.payoff[h.history.players.index("rule")] for h in review.hands])
    assert loss > 2 * ci  # the rule player does lose: the identity is not 0 = 0
    # JSON holds every decision with its mix and values.
    import json
    data = json.loads(to_json(review, replay_deck(config)))
    assert len(data["decisions"]) == sum(t["decisions"] for t in totals.values())
    first = data["decisions"][0]
    assert abs(sum(first["solution"].values()) - 1) < 1e-3 and first["action"] in first["values_bb"]


def test_review_plays_out_only_what_the_cost_needs(tmp_path, tiny_strategy):
    """By default a decision plays out the solution's mix and the action taken (none where the
    action taken is the solution's only one); --every-action values every legal action with the
    same streams, so every cost is the same and the actions left out are exactly the ones the
    mix never plays."""
    write_phhs(tmp_path / "m.phhs", match_histories(None, str(tiny_strategy), "random", 60, seed=4))
    player = load_player(str(tiny_strategy))
    config = player.config.at_full_resolution()
    hands = read_phh(tmp_path / "m.phhs", config)
    short = review_hands(hands, player, MatchGame.of(config), samples=16, seed=2)
    every = review_hands(read_phh(tmp_path / "m.phhs", config), player, MatchGame.of(config), samples=16, seed=2,
                         every_action=True)
    pure = mixed = 0
    for d, e in zip(short.decisions, every.decisions):
        assert d.cost == pytest.approx(e.cost, abs=1e-12)
        if d.samples == 0:  # nothing played out: the solution's only action, taken
            pure += 1
            assert d.cost == 0 and max(d.probabilities) == 1 and d.probabilities[d.action] == 1
            assert all(math.isnan(v) for v in d.values) and d.effective_samples is None
        else:
            mixed += 1
            for a, (p, v, w) in enumerate(zip(d.probabilities, d.values, e.values)):
                if p > 0 or (a == d.action and d.kept < 0):
                    assert v == w or (math.isnan(v) and math.isnan(w))
                else:
                    assert math.isnan(v)
            # (the action as taken: the same value, the actual discard's where it was not canonical)
            assert d.taken_value == e.taken_value or (math.isnan(d.taken_value) and math.isnan(e.taken_value))
        fits = not any("no opponent hand fits" in f for f in e.flags)
        assert e.samples == 16 and e.effective_samples is not None and math.isnan(e.taken_value) != fits
    assert pure > 0 and mixed > 0
    # One hand has no interval over hands: null in JSON, which strict parsers read (not Infinity).
    import json
    one = review_hands(hands[:1], player, MatchGame.of(config), samples=4)
    data = json.loads(to_json(one, replay_deck(config)), parse_constant=lambda c: pytest.fail(f"{c} in JSON"))
    assert all(p["per_hand_ci95"] is None for p in data["players"].values())


def replay_deck(config):
    from abstractions.cards import Deck
    return Deck(config.ranks, config.suits)


def _read_until(fd, text, timeout=120.0) -> str:
    out = b""
    end = time.monotonic() + timeout
    while text.encode() not in out:
        left = end - time.monotonic()
        if left <= 0:
            raise AssertionError(f"no {text!r} in the output: {out.decode(errors='replace')[-2000:]}")
        ready, _, _ = select.select([fd], [], [], left)
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
    return out.decode(errors="replace")


def test_play_a_whole_hand_by_keystrokes_in_a_terminal(tmp_path, tiny_strategy):
    """`badugi play` in a pseudo-terminal: a hand played by keys, its PHH file written, reviewed."""
    leader, follower = pty.openpty()
    hands = tmp_path / "hands"
    proc = subprocess.Popen(BADUGI + ["play", "--strategy", str(tiny_strategy), "--hands", "1", "--seat", "button",
                                      "--out", str(hands), "--seed", "5", "--samples", "16"],
                            stdin=follower, stdout=follower, stderr=follower, cwd=tmp_path)
    os.close(follower)
    try:
        seen = ""
        keys_sent = 0
        while True:
            chunk = _read_until(leader, "> ")
            seen += chunk
            if "[r] review this hand" in chunk:
                os.write(leader, b"r\n")
                break
            # Call or check at betting; at a draw ask for advice, then draw both cards (always legal).
            if "how many to draw" in chunk:
                os.write(leader, b"2\n" if "solution here" in chunk else b"?\n")
            elif "[c] call" in chunk:
                os.write(leader, b"c\n")
            else:
                os.write(leader, b"k\n")
            keys_sent += 1
            assert keys_sent < 20
        seen += _read_until(leader, "hand(s), score")
    finally:
        proc.wait(timeout=120)
        os.close(leader)
    assert proc.returncode == 0, seen
    assert "your cards" in seen and "showdown" in seen or "folds" in seen
    files = sorted(hands.glob("hand-*.phh"))
    assert [f.name for f in files] == ["hand-0001.phh"]
    # The review printed in the session, and the file reviewed by the command.
    assert "cost bb" in seen
    result = subprocess.run(BADUGI + ["review", str(files[0]), "--strategy", str(tiny_strategy), "--hero", "you",
                                      "--samples", "16"], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "you" in result.stdout and "summary" in result.stdout


def test_a_hand_whose_opponent_cards_are_hidden_is_reviewed_for_the_hero(tmp_path, tiny_strategy):
    """What a player's own history holds: the opponent's cards as ????, shown at the showdown only."""
    import re
    texts = match_histories(None, str(tiny_strategy), "rule", 60, seed=7)
    hidden = []
    for text in texts:
        # p2's deals and discards hidden (each card '??'); its showdown line stays.
        text = re.sub(r'"d dh p2 (\w+)"', lambda m: '"d dh p2 ' + "??" * (len(m.group(1)) // 2) + '"', text)
        text = re.sub(r'"p2 sd (\w+)"', lambda m: '"p2 sd ' + "??" * (len(m.group(1)) // 2) + '"', text)
        hidden.append(text)
    write_phhs(tmp_path / "full.phhs", texts)
    write_phhs(tmp_path / "hidden.phhs", hidden)
    player = load_player(str(tiny_strategy))
    config = player.config.at_full_resolution()
    game = MatchGame.of(config)
    full = review_hands(read_phh(tmp_path / "full.phhs", config), player, game, "p1", samples=16, seed=1)
    seen = review_hands(read_phh(tmp_path / "hidden.phhs", config), player, game, "p1", samples=16, seed=1)
    # The same decisions of p1, valued the same: the review never looks at the opponent's cards.
    assert [d.cost for d in seen.decisions] == [d.cost for d in full.decisions]
    assert len(seen.decisions) > 60
    # Asking for p2, whose cards are hidden: every hand says why nothing was reviewed.
    none = review_hands(read_phh(tmp_path / "hidden.phhs", config), player, game, "p2", samples=4)
    assert not none.decisions
    assert all("p2" not in f and "cards are not in the history" in f for h in none.hands for f in h.flags)


def _tiny_hand(actions: list[str]) -> str:
    head = ('variant = "FB"\nantes = [0, 0]\nblinds_or_straddles = [1, 2]\nsmall_bet = 2\nbig_bet = 4\n'
            'starting_stacks = [2000, 2000]\nplayers = ["bb", "btn"]\n'
            '_badugi_game = { ranks = 3, suits = 2, hand_size = 2, draws = 1, cap = 1, bets = [2, 4] }\n')
    return head + "actions = [\n" + "".join(f'  "{a}",\n' for a in actions) + "]\n"


def test_a_draw_is_valued_as_it_was_made(tmp_path, tiny_strategy):
    """A draw that throws another card than the canonical one is played out with exactly those
    cards thrown: its value is that draw's, not the canonical draw of its count, and the review
    names the cards thrown."""
    player = load_player(str(tiny_strategy))
    config = player.config.at_full_resolution()
    game = MatchGame.of(config)
    # The button holds 3h2h (a two-card 3): drawing one, the canonical discard is the 3h; he throws
    # the 2h instead (keeping the 3h), then the same with the canonical discard.
    made, canonical = (_tiny_hand(["d dh p1 Ah3s", "d dh p2 3h2h", "p2 cc", "p1 cc", "p1 sd", f"p2 sd {card}",
                                   "d dh p2 As"]) for card in ("2h", "3h"))
    (tmp_path / "made.phh").write_text(made)
    (tmp_path / "canonical.phh").write_text(canonical)
    one = review_hands(read_phh(tmp_path / "made.phh", config), player, game, "btn", samples=256, seed=4)
    two = review_hands(read_phh(tmp_path / "canonical.phh", config), player, game, "btn", samples=256, seed=4)
    draw_made = next(d for d in one.decisions if d.is_draw)
    draw_canonical = next(d for d in two.decisions if d.is_draw)
    assert draw_made.kept == 0b01 and draw_canonical.kept == -1 and draw_made.action == draw_canonical.action == 1
    assert any("not the canonical 3h: valued as thrown" in f for f in draw_made.flags)
    from abstractions.cards import Deck
    from solver.arena.review import to_text
    assert "draw 1 (2h)" in to_text(one, Deck(config.ranks, config.suits))
    # Keeping the 3h leaves a weaker hand than keeping the 2h: that draw is worth less, so it costs more.
    assert draw_made.taken_value < draw_canonical.taken_value
    assert draw_made.cost > draw_canonical.cost


def test_the_worst_decisions_are_ranked_by_what_is_known():
    """The list ranks by the low end of the cost's interval: a big cost resting on a few samples
    (wide interval) comes after a smaller one that is known, and one whose interval reaches zero is
    left out."""
    from solver.arena.review import Decision, Review

    def decision(cost, low, high, ess):
        d = Decision(0, 0, 0, False, 0, ["k", "b"], [0, 1], [0, 1], np.zeros(4), np.zeros(3), np.zeros(1))
        d.probabilities, d.values = [0.5, 0.5], [0.0, 0.0]
        d.cost, d.low, d.high, d.effective_samples = cost, low, high, ess
        return d

    noisy, known, nothing = decision(11.9, -3.0, 26.0, 1.2), decision(2.0, 1.5, 2.5, 300.0), decision(0.5, -0.1, 1.1, 80)
    review = Review("s", "g", [], "both", 128, 0.0)
    review.hands = [type("H", (), {"decisions": [noisy, known, nothing]})()]
    assert review.worst() == [known]
    assert noisy.uncertain and not known.uncertain


def test_a_costs_interval_covers_what_many_samples_find(tmp_path, tiny_strategy):
    """Honest intervals: over a hundred decisions of a match against a random player (whose
    actions make the belief uneven), each cost's 95% interval from 64 samples covers the cost that
    thirty times as many samples find (all but a few: at least 85%)."""
    write_phhs(tmp_path / "m.phhs", match_histories(None, str(tiny_strategy), "random", 80, seed=9))
    player = load_player(str(tiny_strategy))
    config = player.config.at_full_resolution()
    hands = read_phh(tmp_path / "m.phhs", config)
    game = MatchGame.of(config)
    small = review_hands(hands, player, game, samples=64, seed=1)
    big = review_hands(read_phh(tmp_path / "m.phhs", config), player, game, samples=2048, seed=2)
    pairs = [(d, e) for d, e in zip(small.decisions, big.decisions) if d.samples and math.isfinite(d.low)]
    assert len(pairs) >= 100
    covered = np.mean([d.low - 1e-9 <= e.cost <= d.high + 1e-9 for d, e in pairs])
    widths = np.array([d.high - d.low for d, _ in pairs])
    assert covered >= 0.85 and np.median(widths) > 0, (covered, np.median(widths))


def test_arguments_are_checked_before_the_strategy_is_read(tmp_path, tiny_strategy, monkeypatch, capsys):
    """A hand number past the files, a history that is no decision, a bad hand: one line, before
    any strategy is read (reading it is made to fail here)."""
    import solver.arena.match as match_module
    import solver.tables.strategy as strategy_module

    write_phhs(tmp_path / "one.phhs", match_histories(None, str(tiny_strategy), "rule", 2, seed=1)[:1])

    def refuse(*args, **kwargs):
        raise AssertionError("the strategy was read")

    monkeypatch.setattr(match_module, "load_player", refuse)
    monkeypatch.setattr(strategy_module, "Strategy", refuse)
    assert main(["review", str(tmp_path / "one.phhs"), "--strategy", str(tiny_strategy), "--hand", "5"]) == 2
    assert "--hand 5: the files hold 1 hand(s)" in capsys.readouterr().err
    assert main(["review", str(tmp_path / "one.phhs"), "--strategy", str(tiny_strategy), "--hero", "nobody"]) == 2
    assert "no hand has a player of that name" in capsys.readouterr().err
    assert main(["show", str(tiny_strategy), "--history", "ck/zz"]) == 2
    assert "'z' is not possible" in capsys.readouterr().err
    assert main(["show", str(tiny_strategy), "--history", "ck/", "--hand", "As2x"]) == 2
    assert "'2x'" in capsys.readouterr().err
