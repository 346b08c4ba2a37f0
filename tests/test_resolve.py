"""Re-solving the last round (solver.cfr.resolving): walks against brute force, the re-solved
gadget game against an independent sequence-form LP, and safety."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from scipy.optimize import linprog

from abstractions.transitions import get_draw_model
from solver.cfr.engine import Engine
from solver.cfr.kernels.resolve import resolve_round
from solver.cfr.resolving import (LastRound, ResolvedCertifier, ResolveRule, class_by_class,
                                  resolved_full_resolution)
from solver.cfr.streamed import StreamedWalker
from solver.cfr.walker import Walker
from solver.game.codes import BET, FOLD
from solver.game.config import load_preset
from solver.game.rounds import RoundTemplates
from solver.game.setup import GameSetup
from solver.game.tree import StreamedGame

N = 6  # classes a side (0 strongest): small enough for the LP, every kind of action still there


@pytest.fixture(scope="module")
def last():
    return LastRound(load_preset("triple-draw"))


def random_strategy(last, rng, n=N):
    kind = last.arrays.kind
    weights = rng.random((last.n_positions, last.n_actions, n)) * (kind >= 0)[:, :, None]
    return weights / weights.sum(axis=1, keepdims=True)


def brute_values(last, pot, traverser, play, ranges):
    """The traverser's counterfactual value per class by enumerating every path and opponent class."""
    seat, kind, target, contrib = last.arrays
    opponent = 1 - traverser
    out = np.zeros(N)
    for mine in range(N):
        for theirs in range(N):
            hands = {traverser: mine, opponent: theirs}

            def walk(p):
                total = 0.0
                for a in range(last.n_actions):
                    k = kind[p, a]
                    if k < 0:
                        continue
                    actor = seat[p]
                    prob = play[p, a, hands[actor]]
                    if k == BET:
                        total += prob * walk(target[p, a])
                    elif k == FOLD:
                        folder = target[p, a]
                        sign = -1.0 if folder == traverser else 1.0
                        total += prob * sign * (pot + contrib[p, a, folder])
                    else:
                        gain = pot + contrib[p, a, traverser]
                        total += prob * gain * np.sign(theirs - mine)
                return total

            out[mine] += ranges[opponent, theirs] * walk(0)
    return out


def test_round_values_match_brute_force(last):
    rng = np.random.default_rng(3)
    play = random_strategy(last, rng)
    ranges = rng.random((2, N))
    for traverser in (0, 1):
        got = last.values(7.0, traverser, play, ranges)
        np.testing.assert_allclose(got, brute_values(last, 7.0, traverser, play, ranges), rtol=1e-12, atol=1e-12)
    # Zero-sum: the two seats' values, each weighted by its own reach, cancel.
    assert abs(ranges[0] @ last.values(7.0, 0, play, ranges) + ranges[1] @ last.values(7.0, 1, play, ranges)) < 1e-9


def test_best_response_beats_every_pure_deviation(last):
    rng = np.random.default_rng(4)
    play = random_strategy(last, rng)
    ranges = rng.random((2, N))
    best = last.values(3.0, 1, play, ranges, best=True)
    assert np.all(best >= last.values(3.0, 1, play, ranges) - 1e-12)
    for _ in range(20):  # random strategies of the responder never beat it, class by class
        other = play.copy()
        mine = last.arrays.seat == 1
        other[mine] = random_strategy(last, rng)[mine]
        assert np.all(last.values(3.0, 1, other, ranges) <= best + 1e-12)


def gadget_lp(last, pot, player, ranges, cbv):
    """The gadget game's value to ``player`` by the sequence-form LP (von Stengel 1996): the
    opponent first picks, per class, to take ``cbv`` or to play the round. ``cbv=None``: he must
    play it (the round's own equilibrium)."""
    seat, kind, target, contrib = last.arrays
    opponent = 1 - player
    seqs = {player: {(): 0}, opponent: {(): 0}}  # per seat: sequence -> column; () is the empty one
    infosets = {player: [], opponent: []}  # (parent sequence column, [child columns])

    def column(who, key):
        return seqs[who].setdefault(key, len(seqs[who]))

    follow = {}
    if cbv is not None:
        for h in range(N):
            term, fol = column(opponent, ("term", h)), column(opponent, ("follow", h))
            infosets[opponent].append((0, [term, fol]))
            follow[h] = fol
    leaves = []  # (player's column, opponent's column, player's payoff)

    def walk(p, last_seq, hands):
        actor = seat[p]
        key = (p, hands[actor], last_seq[actor])
        children = []
        for a in range(last.n_actions):
            k = kind[p, a]
            if k < 0:
                continue
            col = column(actor, ("act", p, a, hands[actor]))
            children.append(col)
            nxt = dict(last_seq)
            nxt[actor] = col
            if k == BET:
                walk(target[p, a], nxt, hands)
                continue
            if k == FOLD:
                folder = target[p, a]
                value = (pot + contrib[p, a, folder]) * (-1.0 if folder == player else 1.0)
            else:
                value = (pot + contrib[p, a, player]) * np.sign(hands[opponent] - hands[player])
            weight = ranges[player, hands[player]] * ranges[opponent, hands[opponent]]
            leaves.append((nxt[player], nxt[opponent], weight * value))
        if key not in seen:
            seen.add(key)
            infosets[actor].append((last_seq[actor], children))

    seen = set()
    for hp in range(N):
        for ho in range(N):
            start = {player: 0, opponent: follow[ho] if cbv is not None else 0}
            walk(0, start, {player: hp, opponent: ho})
    if cbv is not None:
        for h in range(N):
            leaves.append((0, column(opponent, ("term", h)), -ranges[opponent, h] * cbv[h]))
    nx, ny = len(seqs[player]), len(seqs[opponent])
    payoff = np.zeros((nx, ny))
    for i, j, v in leaves:
        payoff[i, j] += v

    def constraints(who, size):
        rows = [np.eye(1, size, 0)[0]]
        for parent, children in infosets[who]:
            row = np.zeros(size)
            row[parent] -= 1.0
            row[children] += 1.0
            rows.append(row)
        return np.array(rows)

    e, f = constraints(player, nx), constraints(opponent, ny)
    rhs = np.zeros(len(e))
    rhs[0] = 1.0
    # max q0 s.t. E x = e, F^T q <= A^T x, x >= 0: variables (x, q), q free.
    c = np.concatenate([np.zeros(nx), -np.eye(1, len(f), 0)[0]])
    a_ub = np.hstack([-payoff.T, f.T])
    a_eq = np.hstack([e, np.zeros((len(e), len(f)))])
    bounds = [(0, None)] * nx + [(None, None)] * len(f)
    result = linprog(c, A_ub=a_ub, b_ub=np.zeros(ny), A_eq=a_eq, b_eq=rhs, bounds=bounds, method="highs")
    assert result.status == 0
    return -result.fun


@pytest.mark.parametrize("player", [0, 1])
def test_the_round_alone_matches_the_lp(last, player):
    """Without the opponent's way out, the re-solve is the round's equilibrium: the player's
    guaranteed value (the opponent best-responding) comes to the LP's."""
    rng = np.random.default_rng(10 + player)
    ranges = rng.random((2, N))
    work = last.work(N)
    resolve_round(last.arrays, 5.0, player, ranges, np.full(N, -1e6), 3000, False, work)
    strategy = last.average(work.avg, player)
    guaranteed = -ranges[1 - player] @ last.values(5.0, 1 - player, strategy, ranges, best=True)
    value = gadget_lp(last, 5.0, player, ranges, None)
    assert abs(guaranteed - value) < 2e-3 * max(1.0, abs(value))
    assert guaranteed <= value + 1e-9  # never above the game's value


@pytest.mark.parametrize("player", [0, 1])
def test_the_gadget_game_matches_the_lp_and_is_safe(last, player):
    """From a poor blueprint, the re-solved strategy's guaranteed value in the gadget game comes
    to the LP's, and no opponent class gets more than the blueprint gave it (safety)."""
    rng = np.random.default_rng(20 + player)
    ranges = rng.random((2, N))
    blueprint = random_strategy(last, rng)
    resolved = last.resolve(4.0, player, ranges, blueprint, iterations=3000)
    opponent = 1 - player
    assert np.all(resolved.after <= resolved.cbv + 2e-3 * np.abs(resolved.cbv).max())
    assert resolved.gain(ranges[opponent]) > 0.0  # a random blueprint gives something away
    guaranteed = -ranges[opponent] @ np.maximum(resolved.cbv, resolved.after)
    value = gadget_lp(last, 4.0, player, ranges, resolved.cbv)
    assert abs(guaranteed - value) < 2e-3 * max(1.0, abs(value))


def test_resolving_an_equilibrium_keeps_it(last):
    """A blueprint that is already the round's equilibrium leaves nothing to take: the re-solve
    gives the opponent the same values, to the solve's precision."""
    rng = np.random.default_rng(30)
    ranges = rng.random((2, N))
    work = last.work(N)
    resolve_round(last.arrays, 2.0, 0, ranges, np.full(N, -1e6), 4000, False, work)
    equilibrium = last.average(work.avg, 0)
    resolved = last.resolve(2.0, 0, ranges, equilibrium, iterations=2000)
    assert abs(resolved.gain(ranges[1])) < 2e-3 * np.abs(ranges[1] @ resolved.cbv)


def test_bad_input_is_refused(last):
    play = np.zeros((last.n_positions, last.n_actions, N))
    with pytest.raises(ValueError, match="non-negative"):
        last.values(1.0, 0, play, -np.ones((2, N)))
    with pytest.raises(ValueError, match="strategy over this round"):
        last.values(1.0, 0, play[:, :, :3], np.ones((2, N)))
    with pytest.raises(ValueError, match="iterations"):
        last.resolve(1.0, 0, np.ones((2, N)), play, iterations=0)


def test_a_binding_gadget_matches_the_lp(last):
    """Values lower than the round can hold every class to (so the opponent's way out binds
    for some classes and not others): the gadget game's value comes to the LP's."""
    rng = np.random.default_rng(40)
    ranges = rng.random((2, N))
    work = last.work(N)
    resolve_round(last.arrays, 5.0, 0, ranges, np.full(N, -1e6), 3000, False, work)
    held = last.values(5.0, 1, last.average(work.avg, 0), ranges, best=True)
    cbv = held - rng.random(N) * np.abs(held).max()  # below the equilibrium's: some must bind
    work = last.work(N)
    resolve_round(last.arrays, 5.0, 0, ranges, cbv, 4000, False, work)
    after = last.values(5.0, 1, last.average(work.avg, 0), ranges, best=True)
    guaranteed = -ranges[1] @ np.maximum(cbv, after)
    value = gadget_lp(last, 5.0, 0, ranges, cbv)
    assert value < -ranges[1] @ cbv - 1e-3  # the way out binds: the LP cannot hold every class
    assert abs(guaranteed - value) < 2e-3 * max(1.0, abs(value))


@pytest.mark.parametrize("player", [0, 1])
def test_maxmargin_is_safe_for_every_class(last, player):
    """Maxmargin weighs every opponent class alike, reached or not: none gets more than the
    blueprint gave it, and the smallest margin is positive from a random blueprint."""
    rng = np.random.default_rng(50 + player)
    ranges = rng.random((2, N))
    ranges[1 - player, :2] = 0.0  # classes the blueprint never brings here are protected too
    blueprint = random_strategy(last, rng)
    resolved = last.resolve(3.0, player, ranges, blueprint, iterations=3000, gadget="maxmargin")
    margins = resolved.cbv - resolved.after
    assert margins.min() > 0.0
    with pytest.raises(ValueError, match="gadget"):
        last.resolve(3.0, player, ranges, blueprint, gadget="reach")


def _built_and_streamed(rule):
    """A bucketed tiny double-draw strategy by recall rule: its certificate with re-solved last
    rounds over the streamed game, and over the built tree with every re-solve written out."""
    config = dataclasses.replace(load_preset("tiny-double-draw"), recall=1, buckets=(3, 4, 2))
    engine = Engine(config)
    engine.run_iterations(40)
    model = get_draw_model(config.ranks, config.suits, config.hand_size)
    walker = StreamedWalker(StreamedGame(RoundTemplates.of(config)), engine.layout, model)
    streamed = ResolvedCertifier(walker, rule).certify(engine.strat_sum)
    full = GameSetup(dataclasses.replace(config, buckets=(), recall=-1))
    built = Walker(full.tree, full.layout, full.model)
    blueprint = class_by_class(full.tree, full.layout, engine.layout, engine.strat_sum, np.float64)
    combined = resolved_full_resolution(full.tree, full.layout, built, blueprint, config, rule)
    return streamed, built.exploitability(combined), walker.exploitability(engine.strat_sum)


@pytest.mark.parametrize("rule, rel", [
    (ResolveRule(iterations=1, gadget="resolve"), 1e-9), (ResolveRule(iterations=1, floor=0.3), 1e-9),
    (ResolveRule(iterations=300), 2e-3), (ResolveRule(iterations=300, gadget="resolve", floor=0.01), 2e-3),
    (ResolveRule(min_reach=0.05, iterations=300), 2e-3)])
def test_the_certificate_of_resolved_last_rounds_is_the_built_trees(rule, rel):
    """The streamed certificate of a strategy with re-solved last rounds equals the exact best
    response over the built tree of that strategy written out class by class (float64). After
    one iteration, to rounding: every subgame's pot, positions, seats, ranges and values are the
    built tree's. After more, to what last bits move: the two paths' ranges and blueprints differ
    in their last bits (sums in other orders), and regret matching turns uniform where regrets are
    exactly zero, so a class can play otherwise (a ulp moves a 300-iteration re-solve's values by
    up to about 1e-4 relative). Maxmargin takes from the blueprint's best responses."""
    streamed, built, blueprint = _built_and_streamed(rule)
    assert streamed.br_button == pytest.approx(built.br_button, rel=rel)
    assert streamed.br_big_blind == pytest.approx(built.br_big_blind, rel=rel)
    assert streamed.resolved > 0
    if rule.iterations > 1 and rule.gadget == "maxmargin":
        assert streamed.taken > 0.0
        assert streamed.exploitability_mbb < blueprint.exploitability_mbb


def test_no_resolving_is_the_plain_certificate():
    streamed, built, blueprint = _built_and_streamed(ResolveRule(iterations=0))
    assert streamed.resolved == 0
    assert streamed.br_button == pytest.approx(blueprint.br_button, rel=1e-12)
    assert streamed.br_big_blind == pytest.approx(blueprint.br_big_blind, rel=1e-12)
    with pytest.raises(ValueError, match="gadget"):
        ResolveRule(gadget="reach").checked()


def test_the_frontier_certifies_a_point_with_its_last_rounds_resolved(tmp_path):
    """scripts/bench/frontier.py: a point run with --keep and --resolve gets its re-solved
    certificate, one measured afterwards from the kept strategy equals it, and the table and CSV
    show it."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent.parent / "scripts" / "bench" / "frontier.py"
    spec = importlib.util.spec_from_file_location("frontier", path)
    frontier = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(frontier)
    out, keep = tmp_path / "f.jsonl", tmp_path / "keep"
    rule = frontier.parse_rule("maxmargin:50:0")
    frontier.run("tiny-double-draw", None, ["3:1"], 10, 10, out, keep, rule)
    first = frontier._done(out)["3:1"]
    assert first["resolved_subgames"] > 0 and first["resolved_mbb"] < first["certified_mbb"]
    frontier.resolve("tiny-double-draw", None, ["3:1"], keep, rule, out)
    again = frontier._done(out)["3:1"]
    assert again["resolved_mbb"] == pytest.approx(first["resolved_mbb"], rel=1e-12)
    assert f"{first['resolved_mbb']:.1f} (maxmargin:50:0" in frontier.table([out])
    assert "resolved_mbb" in frontier.table_csv([out]).splitlines()[0]
    with pytest.raises(SystemExit, match="GADGET:ITERATIONS:MIN_REACH"):
        frontier.parse_rule("maxmargin:many")


def test_the_certificate_is_the_same_on_any_number_of_threads():
    config = dataclasses.replace(load_preset("tiny-double-draw"), recall=1, buckets=(3, 4, 2))
    engine = Engine(config)
    engine.run_iterations(20)
    model = get_draw_model(config.ranks, config.suits, config.hand_size)
    walker = StreamedWalker(StreamedGame(RoundTemplates.of(config)), engine.layout, model)
    certifier = ResolvedCertifier(walker, ResolveRule(iterations=50))
    one, three = certifier.certify(engine.strat_sum, threads=1), certifier.certify(engine.strat_sum, threads=3)
    assert (one.br_button, one.br_big_blind, one.resolved, one.taken) == (
        three.br_button, three.br_big_blind, three.resolved, three.taken)


def test_single_draw_is_refused_by_the_streamed_certifier():
    config = dataclasses.replace(load_preset("tiny-single-draw"), recall=1)
    model = get_draw_model(config.ranks, config.suits, config.hand_size)
    setup = GameSetup.of(config, streamed=True)
    with pytest.raises(ValueError, match="two draws or more"):
        ResolvedCertifier(StreamedWalker(StreamedGame(RoundTemplates.of(config)), setup.layout, model))


def test_resolve_keeps_the_blueprint_where_the_opponent_brings_no_class(last):
    rng = np.random.default_rng(60)
    ranges = rng.random((2, N))
    ranges[1] = 0.0
    blueprint = random_strategy(last, rng)
    resolved = last.resolve(3.0, 0, ranges, blueprint, iterations=100)
    mine = last.arrays.seat == 0
    np.testing.assert_allclose(resolved.strategy[mine], blueprint[mine], rtol=1e-12)
    assert resolved.iterations == 0
