"""The last betting round as a game of its own: walks over one round's template, and re-solving
it at full resolution behind a safe gadget.

A last-round subgame is one betting round (:class:`solver.game.rounds.RoundTemplate`) entered
with both seats' contributions equal (the *pot level*), each seat's reach vector over value
classes (classes sorted by strength, 0 best; hands independent, so a showdown is a prefix sum),
and no draw after it. :func:`round_values` walks it once for a traverser; :func:`resolve_round`
re-solves it for one *player* with the re-solve gadget of Burch, Johanson and Bowling (2014,
"Solving imperfect information games using decomposition"), as Brown and Sandholm (2017, "Safe
and nested subgame solving") call Resolve: before the round, the opponent chooses for each of
his classes to *follow* into the round or to *terminate* and take his counterfactual
best-response value against the blueprint there (``cbv``). A strategy that the gadget game's
equilibrium gives the player leaves each opponent class at most its ``cbv``, so re-solving
cannot make the player more exploitable than the blueprint was in the round (*safe*), and where
the blueprint gave some class more, it gives less.

The gadget game is solved by DCFR (Brown and Sandholm 2019: alpha 1.5, beta 0, gamma 2) with
alternating updates, the player's first. Values are counterfactual and in the walk's units:
what a class wins, weighted by the other seat's reach (which holds its chance), as ``cbv``.
"""

from __future__ import annotations

from collections import namedtuple

from numba import njit

from ...game.codes import BET, FOLD

# One round's template as the kernels read it (``RoundTemplate`` arrays, int64 and float64):
# per position the seat to act, per (position, action) its kind (BET: ``target`` is the next
# position; FOLD: ``target`` is the folder; CONTINUE: the showdown; -1: no action), target and
# both seats' contributions in the round after it.
RoundArrays = namedtuple("RoundArrays", "seat kind target contrib")
# A re-solve's buffers, over (positions T, actions A, classes n): regrets and strategy sums of
# whoever acts at each position, the gadget's regrets (follow, terminate) per opponent class,
# the strategy played, and a walk's reach (T, 2, n), action values and position values.
ResolveWork = namedtuple("ResolveWork", "regret gadget play avg reach child value")

ALPHA, GAMMA = 1.5, 2.0  # DCFR's positive-regret and average exponents (beta 0: negatives halved)


@njit(cache=True, fastmath=True, nogil=True)
def round_values(rnd, pot, traverser, best, play, reach, child, value):
    """One walk of a round from the reach vectors in ``reach[0]`` (both seats'), each position's
    actor playing ``play[p, a, s]``; with ``best`` the traverser plays a best response instead.
    Fills every position's reach (``reach[p, seat]``), the traverser's value of each action
    (``child[p, a]``) and of each position (``value[p]``), counterfactual: weighted by the
    opponent's reach. ``pot`` is what each seat has put in before the round. Loops run over
    classes innermost, without branches, so they vectorise."""
    seat, kind, target, contrib = rnd.seat, rnd.kind, rnd.target, rnd.contrib
    n_pos, n_act = kind.shape
    n = reach.shape[2]
    opponent = 1 - traverser
    for p in range(n_pos):  # positions come before their children
        actor = seat[p]
        for a in range(n_act):
            if kind[p, a] == BET:
                q = target[p, a]
                for s in range(n):
                    reach[q, 1 - actor, s] = reach[p, 1 - actor, s]
                for s in range(n):
                    reach[q, actor, s] = reach[p, actor, s] * play[p, a, s]
    for p in range(n_pos - 1, -1, -1):
        actor = seat[p]
        own = actor == traverser
        for a in range(n_act):
            k = kind[p, a]
            if k < 0:
                continue
            if k == BET:
                q = target[p, a]
                for s in range(n):
                    child[p, a, s] = value[q, s]
                continue
            # A fold or the showdown: the opponent's reach after the action (his own or not),
            # into the value row first.
            if own:
                for s in range(n):
                    child[p, a, s] = reach[p, opponent, s]
            else:
                for s in range(n):
                    child[p, a, s] = reach[p, opponent, s] * play[p, a, s]
            if k == FOLD:
                total = 0.0
                for s in range(n):
                    total += child[p, a, s]
                if target[p, a] == traverser:
                    gain = -(pot + contrib[p, a, traverser])
                else:
                    gain = pot + contrib[p, a, opponent]
                for s in range(n):
                    child[p, a, s] = gain * total
                continue
            # Showdown (equal contributions): value = gain * (worse - better), by prefix sums.
            gain = pot + contrib[p, a, traverser]
            better = 0.0
            for s in range(n):
                here = child[p, a, s]
                child[p, a, s] = better + better + here
                better += here
            for s in range(n):
                child[p, a, s] = gain * (better - child[p, a, s])
        first = True
        for a in range(n_act):
            if kind[p, a] < 0:
                continue
            if first:
                for s in range(n):
                    value[p, s] = child[p, a, s] if (best or not own) else play[p, a, s] * child[p, a, s]
                first = False
            elif not own:
                for s in range(n):
                    value[p, s] += child[p, a, s]
            elif best:
                for s in range(n):
                    value[p, s] = max(value[p, s], child[p, a, s])
            else:
                for s in range(n):
                    value[p, s] += play[p, a, s] * child[p, a, s]


@njit(cache=True, fastmath=True, nogil=True)
def _match_regrets(kind, seat, who, regret, play, total):
    """Regret matching at ``who``'s positions (uniform over legal actions where none is
    positive); ``total`` is a scratch row of the classes."""
    n_pos, n_act = kind.shape
    n = regret.shape[2]
    for p in range(n_pos):
        if seat[p] != who:
            continue
        legal = 0
        for s in range(n):
            total[s] = 0.0
        for a in range(n_act):
            if kind[p, a] >= 0:
                legal += 1
                for s in range(n):
                    total[s] += max(regret[p, a, s], 0.0)
        uniform = 1.0 / legal
        for a in range(n_act):
            if kind[p, a] < 0:
                for s in range(n):
                    play[p, a, s] = 0.0
                continue
            for s in range(n):
                positive = max(regret[p, a, s], 0.0)
                play[p, a, s] = positive / total[s] if total[s] > 0.0 else uniform


@njit(cache=True, fastmath=True, nogil=True)
def resolve_round(rnd, pot, player, ranges, cbv, iterations, work):
    """Re-solve a last-round subgame for ``player`` behind the gadget (module docstring).

    ``ranges`` (2, n) are both seats' reach at the round's start; ``cbv`` (n,) the opponent's
    counterfactual best-response values there against the blueprint (in the walk's units). The
    buffers of ``work`` (:data:`ResolveWork`) start zero, or hold an earlier solve to go on from
    (``iterations`` more); afterwards ``work.avg`` holds both seats' strategy sums (the player's,
    normalised, is his re-solved strategy) and ``work.gadget`` the opponent's follow/terminate
    regrets. Returns the opponent's value in the gadget game against the player's last strategy
    (per class, weighted by his reach), summed: at most ``cbv``'s sum (safe), and less where the
    blueprint gave something away."""
    regret, gadget, play, avg, reach, child, value = work
    kind, seat = rnd.kind, rnd.seat
    n_pos, n_act = kind.shape
    n = ranges.shape[1]
    opponent = 1 - player
    # (The last position's value row is scratch for regret matching: a walk writes it before reading it.)
    _match_regrets(kind, seat, player, regret, play, value[n_pos - 1])
    _match_regrets(kind, seat, opponent, regret, play, value[n_pos - 1])
    gadget_value = 0.0
    for t in range(1, iterations + 1):
        keep = 1.0
        if t > 1:
            w = (t - 1.0) ** ALPHA
            keep = w / (w + 1.0)
        weight = t ** GAMMA
        for traverser in (player, opponent):
            for s in range(n):
                go = max(gadget[0, s], 0.0)
                stop = max(gadget[1, s], 0.0)
                f = go / (go + stop) if go + stop > 0.0 else 0.5
                reach[0, player, s] = ranges[player, s]
                reach[0, opponent, s] = ranges[opponent, s] * f
            round_values(rnd, pot, traverser, False, play, reach, child, value)
            for p in range(n_pos):
                if seat[p] != traverser:
                    continue
                for a in range(n_act):
                    if kind[p, a] < 0:
                        continue
                    for s in range(n):
                        r = regret[p, a, s]
                        r = r * keep if r > 0.0 else r * 0.5
                        regret[p, a, s] = r + child[p, a, s] - value[p, s]
                    for s in range(n):
                        avg[p, a, s] += weight * reach[p, traverser, s] * play[p, a, s]
            if traverser == opponent:
                gadget_value = 0.0
                for s in range(n):
                    go = max(gadget[0, s], 0.0)
                    stop = max(gadget[1, s], 0.0)
                    f = go / (go + stop) if go + stop > 0.0 else 0.5
                    mixed = f * value[0, s] + (1.0 - f) * cbv[s]
                    gadget_value += ranges[opponent, s] * mixed
                    g0 = gadget[0, s]
                    g1 = gadget[1, s]
                    gadget[0, s] = (g0 * keep if g0 > 0.0 else g0 * 0.5) + value[0, s] - mixed
                    gadget[1, s] = (g1 * keep if g1 > 0.0 else g1 * 0.5) + cbv[s] - mixed
            _match_regrets(kind, seat, traverser, regret, play, value[n_pos - 1])
    return gadget_value
