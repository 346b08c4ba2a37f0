"""What a reviewed decision costs (see :mod:`solver.arena.review`): the belief over the opponent's
hands kept through a hand (weighed by the solution's probability of each action and draw he
took, resampled when it crowds onto a few hands), and each action's value against it, played
out with the solution on both seats (exact in the last round's betting), with its interval."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from abstractions.evaluator import value_shape
from abstractions.random import below, stream_seed, uniform
from abstractions.transitions import draw_is_legal
from . import simulator


# The least probability an opponent's past action counts with: an action the solution never takes
# with a sampled hand weighs that hand by this much (a tremble) instead of ruling it out, so a
# baseline that does what the solution never does still gets a belief.
TREMBLE = 1e-6


def _t975(df: np.ndarray) -> np.ndarray:
    """Student's t, its 97.5% point for ``df`` degrees of freedom: exact to 3 decimals for 1 to 4,
    the Cornish-Fisher expansion beyond (within 0.003 of the exact from 5 on)."""
    z = 1.959963984540054
    df = np.asarray(df, np.float64)
    out = z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2) \
        + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3)
    small = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776}
    return np.array([small.get(int(d), x) for d, x in zip(df, out)])


# The 97.5% point for 0, 1, 2, ... degrees of freedom (a decision's interval).
T_975 = np.concatenate([[np.inf], _t975(np.arange(1, 1024))])


@njit(cache=True)
def _card_mask(cards):
    m = np.uint64(0)
    for c in cards:
        m |= np.uint64(1) << np.uint64(c)
    return m


@njit(cache=True)
def _pick(state, avoid, preferred, fallback, n_cards):
    """A card uniformly among those not in ``avoid`` and in ``preferred``, else among those in
    ``fallback`` (masks); -1 if none."""
    allowed = preferred & ~avoid
    for _ in range(16):  # (most cards are allowed: a few tries find one, uniformly)
        c = below(state, n_cards)
        if (allowed >> np.uint64(c)) & np.uint64(1):
            return c
    for allowed in (preferred & ~avoid, fallback & ~avoid):
        n = 0
        for c in range(n_cards):
            if (allowed >> np.uint64(c)) & np.uint64(1):
                n += 1
        if n == 0:
            continue
        k = below(state, n)
        for c in range(n_cards):
            if (allowed >> np.uint64(c)) & np.uint64(1):
                if k == 0:
                    return c
                k -= 1
    return -1


@njit(cache=True)
def _resample(state, weights, picks):
    """Systematic resampling: ``len(picks)`` indices drawn in proportion to ``weights``."""
    total = weights.sum()
    n = len(picks)
    u = uniform(state) / n
    k = 0
    acc = weights[0] / total
    for j in range(n):
        target = u + j / n
        while acc < target and k < len(weights) - 1:
            k += 1
            acc += weights[k] / total
        picks[j] = k


# The opponent's hands a belief holds (see :func:`_review_seat`): each hand, the cards it holds or
# has thrown, those it has thrown, whether it trembled, its weight.
Belief = namedtuple("Belief", "hands used thrown trembled weight")


@njit(cache=True)
def _review_seat(player, game, lo, hi, hero, decisions, samples, n_particles, seed, every, findings):
    """The decisions ``lo..hi-1`` of one hand (in order) reviewed for ``hero``'s seat: the ones
    ``reviewed`` marks. The opponent's cards are a belief of ``n_particles`` hands (a particle
    filter, sequential importance resampling): dealt from the cards the hero has not seen, each
    opponent action weighing each hand by the solution's probability of it (a tremble at least),
    each draw of his throwing a hand's canonical discard and dealing it new cards, a card the hero
    sees later ruling out the hands that hold it; drawn again in proportion to their weights when
    the weights crowd onto a few. At a reviewed decision, ``samples`` of them (in proportion to
    their weights) value the actions its cost needs (see the module's docstring).

    ``dec_int`` rows: node, first child, round, phase, seat, is_draw, action, and the hand
    positions a draw kept (-1: the canonical discard of its count). ``values[i, width]``: the
    value of the action as it was taken; ``bounds[i]``: the cost and its 95% interval; ``stats[i]``: the belief's total weight (-1: nothing sampled, the action taken
    being the solution's only one), its effective number of hands, and of hands that never
    trembled."""
    dec_int, dec_float, dec_records, dec_hand, dec_seen, reviewed = decisions
    hs = game.hand_size
    n_cards = game.ranks * game.suits
    everything = (np.uint64(1) << np.uint64(n_cards)) - np.uint64(1) if n_cards < 64 else ~np.uint64(0)
    state = np.empty(1, np.uint64)
    state[0] = stream_seed(seed, np.uint64(lo) * np.uint64(4) + np.uint64(hero))
    hand = np.empty((n_particles, hs), np.int64)
    used = np.zeros(n_particles, np.uint64)       # cards a hand holds or has thrown
    thrown_mask = np.zeros(n_particles, np.uint64)
    trembled = np.zeros(n_particles, np.bool_)
    w = np.ones(n_particles)
    new_hand = np.empty((n_particles, hs), np.int64)
    new_used = np.zeros(n_particles, np.uint64)
    new_thrown = np.zeros(n_particles, np.uint64)
    new_trembled = np.zeros(n_particles, np.bool_)
    picks = np.empty(n_particles, np.int64)
    row = np.empty(max(hs + 1, findings.probs.shape[1]), np.float64)
    thrown_buffer = np.empty(hs, np.int64)
    seen = np.uint64(0)
    held = np.uint64(0)
    started = False
    for i in range(lo, hi):
        if dec_int[i, 4] == hero:
            mask = np.uint64(0)
            for c in range(n_cards):
                if dec_seen[i, c]:
                    mask |= np.uint64(1) << np.uint64(c)
            if not started:
                # The opponent's hands: dealt from the cards the hero has not seen.
                for k in range(n_particles):
                    hand_mask = np.uint64(0)
                    for j in range(hs):
                        c = _pick(state, mask | hand_mask, everything, np.uint64(0), n_cards)
                        if c < 0:
                            w[k] = 0.0
                            c = 0
                        hand[k, j] = c
                        hand_mask |= np.uint64(1) << np.uint64(c)
                    used[k] = hand_mask
                started = True
            else:
                for k in range(n_particles):  # a card the hero now sees was never the opponent's
                    if used[k] & (mask & ~seen):
                        w[k] = 0.0
            seen = mask
            held = _card_mask(dec_hand[i])
            if reviewed[i]:
                _value_decision(player, game, i, hero, decisions, samples, every, findings,
                                Belief(hand, used, thrown_mask, trembled, w), seen, seed, n_cards)
            continue
        if not started:
            continue  # (the hero has not been dealt in the history yet)
        # The opponent acts: each hand weighed by the solution's probability of the action.
        a = dec_int[i, 6]
        is_draw = dec_int[i, 5] == 1
        for k in range(n_particles):
            if w[k] == 0.0:
                continue
            n = simulator.action_probabilities(player, dec_int[i, 0], dec_int[i, 2], dec_int[i, 3], dec_float[i, 0],
                                               dec_records[i], hand[k], game, row)
            p_a = row[a] if a < n else 0.0
            if p_a < TREMBLE:
                p_a = TREMBLE  # an action the solution never takes with this hand: a tremble
                trembled[k] = True
            w[k] *= p_a
            if is_draw and a > 0:
                mask = simulator.canonical_mask(hand[k], a, game.suits)
                if mask < 0:
                    w[k] = 0.0  # keeping that many would keep a dead card: not a draw of the model
                    continue
                n_kept, n_thrown = simulator.split_kept(hand[k], mask, thrown_buffer, 0)
                for j in range(n_thrown):
                    thrown_mask[k] |= np.uint64(1) << np.uint64(thrown_buffer[j])
                for j in range(n_kept, hs):
                    # New cards from those nobody is known to hold or have thrown; in a small deck,
                    # once those run out, from the hero's thrown ones (the stub remade from the muck).
                    c = _pick(state, used[k], everything & ~seen, seen & ~held, n_cards)
                    if c < 0:
                        w[k] = 0.0
                        break
                    hand[k, j] = c
                    used[k] |= np.uint64(1) << np.uint64(c)
        total = w.sum()
        if total <= 0.0:
            continue
        ess = total * total / (w * w).sum()
        if ess < n_particles / 2:
            _resample(state, w, picks)
            for k in range(n_particles):
                j = picks[k]
                new_hand[k] = hand[j]
                new_used[k] = used[j]
                new_thrown[k] = thrown_mask[j]
                new_trembled[k] = trembled[j]
            hand[:] = new_hand
            used[:] = new_used
            thrown_mask[:] = new_thrown
            trembled[:] = new_trembled
            w[:] = total / n_particles


@njit(cache=True)
def _value_decision(player, game, i, hero, decisions, samples, every, findings, belief, seen, seed, n_cards):
    """Decision ``i``'s values and cost from the belief (see :func:`_review_seat`), its samples
    drawn from a stream of its own (the belief's goes on as if it had not been asked)."""
    dec_int, dec_float, dec_records, dec_hand = decisions.ints, decisions.floats, decisions.records, decisions.hands
    probs, values, bounds, stats = findings
    opp_hands, used, thrown_mask, trembled, w = belief
    state = np.empty(1, np.uint64)
    state[0] = stream_seed(seed ^ np.uint64(0x5A3D1E5), np.uint64(i))
    hs = game.hand_size
    opp = 1 - hero
    node, rnd, phase = dec_int[i, 0], dec_int[i, 2], dec_int[i, 3]
    hero_hand = dec_hand[i].copy()
    n_act = simulator.action_probabilities(player, node, rnd, phase, dec_float[i, 0], dec_records[i], hero_hand,
                                           game, probs[i])
    is_draw = dec_int[i, 5] == 1
    legal = np.ones(n_act, np.bool_)
    if is_draw:
        count, _ = value_shape(hero_hand, hs, game.suits)
        for a in range(n_act):
            legal[a] = draw_is_legal(count, hs, a)
    taken = dec_int[i, 6]
    kept = dec_int[i, 7]
    width = values.shape[1] - 1
    needed = legal.copy()
    if not every:
        n_needed = 0
        for a in range(n_act):
            needed[a] = legal[a] and (probs[i, a] > 0.0 or (a == taken and kept < 0))
            n_needed += needed[a]
        if n_needed == 1 and needed[taken] and kept < 0:
            # The solution's only action, taken: it costs 0 whatever the values, and nothing is
            # sampled (no belief is needed); stats[i, 0] < 0 says so.
            stats[i, 0], stats[i, 1], stats[i, 2] = -1.0, 0.0, 1.0
            for a in range(width + 1):
                values[i, a] = np.nan
            bounds[i, 0], bounds[i, 1], bounds[i, 2] = 0.0, 0.0, 0.0
            return
    total = w.sum()
    stats[i, 0] = total
    if total <= 0.0:
        return
    # The effective number of opponent hands: the particles holding one hand (resampling copies
    # them) counted as one, their weights summed.
    keys = np.empty(len(w), np.uint64)
    for k in range(len(w)):
        keys[k] = _card_mask(opp_hands[k])
    by_key = np.argsort(keys)
    square = 0.0
    run = 0.0
    for j in range(len(w)):
        k = by_key[j]
        if j > 0 and keys[k] != keys[by_key[j - 1]]:
            square += run * run
            run = 0.0
        run += w[k]
    square += run * run
    stats[i, 1] = total * total / square
    untrembled = 0.0
    for k in range(len(w)):
        if w[k] > 0.0 and not trembled[k]:
            untrembled += w[k] / total
    stats[i, 2] = untrembled
    # The last round's betting: each action's value is worked out exactly from the two hands (no
    # card to come; the solution's mixes weigh every line left), not played out once.
    exact = rnd == game.draws and not is_draw
    hero_mask = _card_mask(hero_hand)
    picks = np.empty(samples, np.int64)
    _resample(state, w, picks)
    cards = simulator.new_cards(n_cards, hs)
    hands, stub, muck, piles = cards.hands, cards.stub, cards.muck, cards.piles
    ipos = np.empty(4, np.int64)
    fpos = np.empty(3)
    records = np.empty(dec_records.shape[1], np.int64)
    payoff = np.empty(2)
    path = np.zeros(64, np.uint8)
    script = np.empty(1, np.int64)
    nothing = np.zeros(0, np.int64)
    players = (player, player)
    seat_player = np.zeros(2, np.int64)
    sample_values = np.zeros((samples, width + 1))
    for p in range(samples):
        k = picks[p]
        # The stub: the cards nobody is known to hold or have thrown, in a random order; the muck:
        # the thrown ones (the hero's and this hand's).
        n_stub = 0
        n_muck = 0
        for c in range(n_cards):
            bit = np.uint64(1) << np.uint64(c)
            if not (seen & bit) and not (used[k] & bit):
                stub[n_stub] = c
                n_stub += 1
            elif ((seen & bit) and not (hero_mask & bit)) or (thrown_mask[k] & bit):
                muck[n_muck] = c
                n_muck += 1
        # (Only the cards the rest of the hand can deal need a random order: the first ones.)
        for j in range(min(n_stub, 2 * hs * (game.draws - rnd + 1))):
            jj = j + below(state, n_stub - j)
            stub[j], stub[jj] = stub[jj], stub[j]
        saved_stub = stub[:n_stub].copy()
        saved_muck = muck[:n_muck].copy()
        stream = state[0]
        for a in range(width + 1):
            # (a < n_act: an action as the solution plays it; a == width: the one taken, as taken)
            if a < width and not (a < n_act and needed[a]):
                continue
            if a == width and kept < 0:
                sample_values[p, width] = sample_values[p, taken] if needed[taken] else np.nan
                continue
            for j in range(hs):
                hands[hero, j] = hero_hand[j]
                hands[opp, j] = opp_hands[k, j]
            for j in range(4):
                ipos[j] = dec_int[i, j]
            for j in range(3):
                fpos[j] = dec_float[i, j]
            records[:] = dec_records[i]
            action = taken if a == width else a
            if exact:
                end = simulator.advance(ipos, fpos, records, action, game, player)
                if end == simulator.FOLDED:
                    sample_values[p, a] = -(fpos[1] if hero == 0 else fpos[2])
                elif end == simulator.SHOWDOWN_REACHED:
                    v_hero = simulator.hand_value(hands[hero], game.suits, game.ranks, game.code_to_value)
                    v_opp = simulator.hand_value(hands[opp], game.suits, game.ranks, game.code_to_value)
                    sample_values[p, a] = fpos[1] if v_hero < v_opp else (-fpos[1] if v_hero > v_opp else 0.0)
                else:
                    sample_values[p, a] = simulator.betting_value(ipos, fpos, records, hands, player, game, hero)
                continue
            stub[:n_stub] = saved_stub
            muck[:n_muck] = saved_muck
            piles[0], piles[1], piles[2] = 0, n_stub, n_muck
            script[0] = simulator.KEPT_CARDS + kept if (a == width and kept >= 0) else action
            state[0] = stream
            simulator.play_on(ipos, fpos, records, cards, players, seat_player, state, game, payoff, path, 0, script,
                              nothing)
            sample_values[p, a] = payoff[hero]
        # (The stream goes on from where it stood before the play-outs: the same whichever actions
        # were played out, so asking for every action changes no other figure.)
        state[0] = stream
        uniform(state)
    for a in range(width + 1):
        if (a < n_act and needed[a]) or a == width:
            acc = 0.0
            for p in range(samples):
                acc += sample_values[p, a]
            values[i, a] = acc / samples
        else:
            values[i, a] = np.nan
    cost = -values[i, width]
    per_sample = -sample_values[:, width].copy()
    for a in range(n_act):
        if needed[a] and probs[i, a] > 0.0:
            cost += probs[i, a] * values[i, a]
            for p in range(samples):
                per_sample[p] += probs[i, a] * sample_values[p, a]
    bounds[i, 0] = cost
    # The interval: the samples of one opponent hand (a belief hand drawn more than once) vary
    # together, so the spread is taken over hands (a cluster-robust standard error) and read with
    # Student's t of their number less one: a belief resting on a few hands gets a wide interval,
    # on one hand none at all.
    keys_of = np.empty(samples, np.uint64)
    for p in range(samples):
        keys_of[p] = keys[picks[p]]
    order = np.argsort(keys_of)
    n_groups = 0
    square = 0.0
    run = 0.0
    run_n = 0
    for j in range(samples + 1):
        if j == samples or (j > 0 and keys_of[order[j]] != keys_of[order[j - 1]]):
            square += (run - run_n * cost) ** 2
            n_groups += 1
            run = 0.0
            run_n = 0
        if j < samples:
            run += per_sample[order[j]]
            run_n += 1
    if n_groups < 2:
        bounds[i, 1], bounds[i, 2] = -np.inf, np.inf
        return
    half = T_975[min(n_groups - 1, len(T_975) - 1)] * np.sqrt(square * n_groups / (n_groups - 1)) / samples
    bounds[i, 1] = cost - half
    bounds[i, 2] = cost + half


@njit(cache=True, nogil=True)
def review_seats(player, game, tasks, decisions, samples, n_particles, seed, every, findings):
    """:func:`_review_seat` of each task (``tasks`` rows: first decision, one past the last, seat),
    independent of each other: one stream per hand and seat (threads may share the tasks out: the
    kernel lets go of the GIL)."""
    for t in range(len(tasks)):
        _review_seat(player, game, tasks[t, 0], tasks[t, 1], tasks[t, 2], decisions, samples, n_particles, seed, every,
                     findings)
