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
best-response value against the blueprint there (``cbv``); or Maxmargin, where he picks the class
with the least margin below its ``cbv``. At the gadget game's equilibrium the player's strategy
leaves each opponent class at most its ``cbv``, so re-solving cannot make the player more
exploitable than the blueprint was in the round (*safe*). Two cautions, measured in BENCHMARKS.md
("Re-solving the last round"): a solve of finitely many iterations is only near that equilibrium,
and Resolve weighs each class by the opponent's blueprint reach, so a class the blueprint never
brings here is held only as far as a reach floor lifts it (where no class is brought at all, the
blueprint is kept); Maxmargin weighs every class alike.

The gadget game is solved by DCFR (Brown and Sandholm 2019: alpha 1.5, beta 0, gamma 2) with
alternating updates, the player's first. Values are counterfactual and in the walk's units:
what a class wins, weighted by the other seat's reach (which holds its chance), as ``cbv``.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from ...game.codes import BET, FOLD
from .cuts import cut_walker, fill_cut, fill_cut_from, walk_sizes
from .nodes import node_strategy
from .types import BEST_RESPONSE, COLLECT, EVALUATE, TRUNK
from .walk import traverse

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
def _gadget_reach(gadget, ranges, opponent, margin, out):
    """The opponent's reach into the round by the gadget's regrets: Resolve, his reach times the
    share with which each class follows; Maxmargin, his choice of class (regret matching over
    classes, uniform where none is positive)."""
    n = ranges.shape[1]
    if margin:
        total = 0.0
        for s in range(n):
            total += max(gadget[0, s], 0.0)
        for s in range(n):
            out[s] = max(gadget[0, s], 0.0) / total if total > 0.0 else 1.0 / n
        return
    for s in range(n):
        go = max(gadget[0, s], 0.0)
        stop = max(gadget[1, s], 0.0)
        out[s] = ranges[opponent, s] * (go / (go + stop) if go + stop > 0.0 else 0.5)


@njit(cache=True, fastmath=True, nogil=True)
def resolve_round(rnd, pot, player, ranges, cbv, iterations, margin, work):
    """Re-solve a last-round subgame for ``player`` behind a gadget (module docstring): Resolve,
    or with ``margin`` Maxmargin (Moravcik et al. 2016; Brown and Sandholm 2017): the opponent
    first picks which of his classes to play, and each class's value is its margin over ``cbv``,
    so the equilibrium makes the smallest margin as large as it can.

    ``ranges`` (2, n) are both seats' reach at the round's start; ``cbv`` (n,) the opponent's
    counterfactual best-response values there against the blueprint (in the walk's units). The
    buffers of ``work`` (:data:`ResolveWork`) start zero (the schedule starts at iteration 1);
    afterwards ``work.avg`` holds both seats' strategy sums (the player's,
    normalised, is his re-solved strategy) and ``work.gadget`` the opponent's gadget regrets
    (Resolve: follow, terminate; Maxmargin: row 0, by class). Returns the opponent's gadget value
    against the player's last strategy: Resolve, his values (each class's better of following
    and ``cbv``, weighted by his reach) summed; Maxmargin, his mean margin."""
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
                reach[0, player, s] = ranges[player, s]
            _gadget_reach(gadget, ranges, opponent, margin, reach[0, opponent])
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
                gadget_value = _gadget_update(gadget, ranges, cbv, value[0], opponent, margin, keep)
            _match_regrets(kind, seat, traverser, regret, play, value[n_pos - 1])
    return gadget_value


@njit(cache=True, fastmath=True, nogil=True)
def _gadget_update(gadget, ranges, cbv, follow, opponent, margin, keep):
    """The gadget's regrets after the opponent's walk (``follow``: his value of each class in the
    round), discounted as the round's; returns his gadget value (see :func:`resolve_round`)."""
    n = ranges.shape[1]
    if margin:
        total = 0.0
        for s in range(n):
            total += max(gadget[0, s], 0.0)
        mean = 0.0
        for s in range(n):
            q = max(gadget[0, s], 0.0) / total if total > 0.0 else 1.0 / n
            mean += q * (follow[s] - cbv[s])
        for s in range(n):
            g = gadget[0, s]
            gadget[0, s] = (g * keep if g > 0.0 else g * 0.5) + follow[s] - cbv[s] - mean
        return mean
    value = 0.0
    for s in range(n):
        go = max(gadget[0, s], 0.0)
        stop = max(gadget[1, s], 0.0)
        f = go / (go + stop) if go + stop > 0.0 else 0.5
        mixed = f * follow[s] + (1.0 - f) * cbv[s]
        value += ranges[opponent, s] * mixed
        g0 = gadget[0, s]
        g1 = gadget[1, s]
        gadget[0, s] = (g0 * keep if g0 > 0.0 else g0 * 0.5) + follow[s] - mixed
        gadget[1, s] = (g1 * keep if g1 > 0.0 else g1 * 0.5) + cbv[s] - mixed
    return value


# -- the certificate of a strategy whose last rounds are re-solved ---------------------------------
# The shape's last-round roots as cuts of its walks (``cuts``: :data:`Cuts` over the shape's nodes),
# each root's decision nodes by template position (``positions``: (roots, T), -1 where the
# position is not in the tree) and the round's template arrays (``rnd``).
LastCuts = namedtuple("LastCuts", "cuts positions rnd")
# What re-solves: a subgame where the player's reach summed over classes is at least ``min_reach``
# (``iterations`` of the gadget, ``margin``: Maxmargin, ``floor``: Resolve's reach floor); the walks'
# fixed arguments (``discount``: no update; ``empty``: no storage).
ResolveOptions = namedtuple("ResolveOptions", "min_reach iterations margin floor discount empty")
# One thread's buffers: a re-solve's, the blueprint's strategy of a subgame (T, A, n), the ranges
# and values of the gadget (2, n), (n,), and node_strategy's scratch (A, width), (width,), (width,).
LastWork = namedtuple("LastWork", "resolve strategy ranges cbv per_bucket total uniform")


@njit(cache=True, nogil=True)
def _subgame_blueprint(tree, layout, play, positions, j, n, lw):
    """The strategy ``play`` gives every class at each position of last-round root ``j``
    (``lw.strategy``; uniform where a node has no storage)."""
    strategy = lw.strategy
    for p in range(positions.shape[1]):
        node = positions[j, p]
        if node < 0:
            continue
        n_act = tree.n_children[node]
        start = layout.entry_offset[node]
        if start < 0:
            for a in range(n_act):
                for s in range(n):
                    strategy[p, a, s] = 1.0 / n_act
            continue
        node_strategy(play, start, n_act, tree.node_round[node], False, layout, lw.per_bucket, lw.total, lw.uniform,
                      strategy[p], n)


@njit(cache=True, nogil=True)
def last_round_values(tree, layout, play, last, traverser, options, lw, stats):
    """The traverser's best-response value at each last-round root of a cut's shape
    (``last.cuts.value``) from the reach a collecting walk left there (``last.cuts.reach``),
    against the other seat's strategy: the blueprint in ``play``, or, where his reach is at
    least ``options.min_reach``, the blueprint re-solved there (:func:`resolve_round`). Adds to
    ``stats``: subgames re-solved, and what re-solving took from the traverser's values there
    (weighted by his blueprint reach)."""
    cuts, positions, rnd = last.cuts, last.positions, last.rnd
    player = 1 - traverser
    n = cuts.reach.shape[2]
    work = lw.resolve
    for j in range(len(cuts.nodes)):
        mass = 0.0
        for s in range(n):
            mass += cuts.reach[j, player, s]
        if mass == 0.0:
            for s in range(n):
                cuts.value[j, s] = 0.0
            continue
        root = cuts.nodes[j]
        pot = tree.contrib[root, 0]
        _subgame_blueprint(tree, layout, play, positions, j, n, lw)
        for i in range(2):
            for s in range(n):
                work.reach[0, i, s] = cuts.reach[j, i, s]
        top = 0.0
        for s in range(n):
            top = max(top, cuts.reach[j, traverser, s])
        # (Resolve weighs the opponent's classes by his reach: with none at all, the blueprint stays.)
        if options.iterations > 0 and mass >= options.min_reach and (options.margin or top > 0.0):
            round_values(rnd, pot, traverser, True, lw.strategy, work.reach, work.child, work.value)
            for s in range(n):
                lw.cbv[s] = work.value[0, s]
                lw.ranges[player, s] = cuts.reach[j, player, s]
                lw.ranges[traverser, s] = max(cuts.reach[j, traverser, s], options.floor * top)
            work.regret[...] = 0.0
            work.gadget[...] = 0.0
            work.avg[...] = 0.0
            resolve_round(rnd, pot, player, lw.ranges, lw.cbv, options.iterations, options.margin, work)
            # (Strategy sums normalised as regrets are matched; the last value row is scratch.)
            _match_regrets(rnd.kind, rnd.seat, player, work.avg, lw.strategy, work.value[rnd.kind.shape[0] - 1])
            for i in range(2):
                for s in range(n):
                    work.reach[0, i, s] = cuts.reach[j, i, s]
            round_values(rnd, pot, traverser, True, lw.strategy, work.reach, work.child, work.value)
            stats[0] += 1.0
            for s in range(n):
                stats[1] += cuts.reach[j, traverser, s] * (lw.cbv[s] - work.value[0, s])
        else:
            round_values(rnd, pot, traverser, True, lw.strategy, work.reach, work.child, work.value)
        for s in range(n):
            cuts.value[j, s] = work.value[0, s]


@njit(cache=True, nogil=True)
def resolved_cut_chunk(chunk, traverser, game, draws, play, last, options, lw, stats, record):
    """The best response below each cut of ``chunk`` of a streamed ``game`` (its value into
    ``game.cuts.value``) against ``play`` with last rounds re-solved: a collecting walk of the
    cut's shape for the reach at its last-round roots, their values (:func:`last_round_values`),
    then a best-response walk of the shape down to them (``TRUNK``). ``last.cuts`` are this
    thread's; a cut the other seat never reaches is worth 0. ``stats`` (cuts, 2): each cut's
    :func:`last_round_values` statistics (summed in cut order by the caller: the same bits on any
    number of threads). ``record``: the shape's, recording nothing."""
    max_depth, n_act_max, n_sets, max_width = walk_sizes(game, draws)
    n_states = game.cuts.reach.shape[2]
    work, tree, layout = cut_walker(game, max_depth, n_act_max, n_states, n_sets, max_width)
    cuts = game.cuts
    roots = np.zeros(1, np.int64)
    for i in range(len(chunk)):
        c = chunk[i]
        reached = False
        for s in range(n_states):
            if cuts.reach[c, 1 - traverser, s] != 0.0:
                reached = True
        if not reached:
            for s in range(n_states):
                cuts.value[c, s] = 0.0
            continue
        if game.cut_entries.table.shape[0] > 0:
            fill_cut_from(game, c, tree.contrib, layout.entry_offset)
        else:
            fill_cut(game, c, tree.contrib, layout.entry_offset)
        traverse(roots, cuts.reach[c:c + 1], cuts.value[c:c + 1], traverser, np.int64(EVALUATE), np.int64(COLLECT),
                 options.discount, tree, layout, draws, play, options.empty, options.empty, last.cuts, work, record)
        last_round_values(tree, layout, play, last, traverser, options, lw, stats[c])
        traverse(roots, cuts.reach[c:c + 1], cuts.value[c:c + 1], traverser, np.int64(BEST_RESPONSE), np.int64(TRUNK),
                 options.discount, tree, layout, draws, play, options.empty, options.empty, last.cuts, work, record)
    return 0
