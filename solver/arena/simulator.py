"""Real heads-up fixed-limit Badugi: one deck, discards mucked, replacements from the stub.

The solver's model gives each player a deck of his own; this simulator plays
the real game, so a solved strategy can be measured where it will be used.

Rules (DESIGN section 2): the simulator follows the rounds' betting templates
(:mod:`solver.game.rounds`), the ones the solver's public tree is generated
from, so blinds, betting order and cap are the solver's; it builds no tree, so
it plays any cap and number of draws (triple draw at cap 4 too). It tracks the
node's id in the public tree from the templates' subtree sizes, for strategies
whose layout stores one slot per node:

- One shuffled deck. The button's hand is the deck's first ``hand_size`` cards,
  the big blind's the next ``hand_size``; the rest is the stub.
- Betting as in the tree: the button acts first before the first draw, the big
  blind first after every draw; ``cap`` bets a round, the big blind counting as
  the first bet pre-draw.
- Draws: the big blind draws first, then the button. A player drawing ``d``
  keeps his best ``hand_size - d`` card valid subset (the canonical discard:
  the lowest cards of his value), mucks the rest and takes ``d`` cards from the
  top of the stub. If the stub runs short, he takes what is left, then the muck
  (earlier discards, not the cards he is throwing now) is shuffled into a new
  stub and he is dealt the rest from it; his own discards join the muck after.
- Showdown: the better value wins the pot; equal values split it.

Players (one code each; a player is a :data:`PlayerArrays`: its code, and for
solved strategies the probabilities and their layout, by node
(:class:`solver.game.layout.LayoutArrays`) or by recall rule
(:class:`solver.game.layout.RuleArrays`)):

- ``STRATEGY``: a solved average strategy; the node (or its history key) picks
  the slot, the hand's value class its row position (its bucket in bucketed
  games); draws use the canonical discard.
- ``RULE``: the reference draw rule (:func:`abstractions.transitions.reference_draw`):
  pat a badugi, otherwise keep its value's cards and draw the rest.
  Bets or raises with a strong hand: a badugi whose top card is in the lower
  60% of the ranks (8 or better in the full deck), or, while draws remain, a
  three-card hand whose top card is in the lower 40% (5 or better). Otherwise
  checks or calls; in the last betting round it folds a hand without a badugi
  when facing a bet.
- ``STATION``: draws like ``RULE``, never bets or raises, never folds.
- ``RANDOM``: uniformly random among the legal actions and legal draw counts.

Randomness comes from a splitmix64 stream per hand, so a seed fixes every
deal and every mixed action, whatever the machine.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from abstractions.evaluator import best_valid_subset, strength_code, value_shape
from abstractions.random import below, mix, stream_seed, uniform
from abstractions.transitions import draw_is_legal, reference_draw

from ..cfr.kernels import borrowed
from ..cfr.store import stored_row
from ..game.layout import key_slot
from ..game.rounds import BET, CONTINUE, FOLD

# A player: its code, and for a solved strategy its probabilities (read-only float32) or, when
# ``counted``, a compact strategy's counts (``weights``, bytes: each row the same distribution
# unnormalised; the other array is one entry), and their layout: by node (``layout``) or, when
# ``by_rule``, by the history keys of ``rule``; or, when ``stored``, a compact strategy's store
# decoded whole (``store``: :data:`solver.cfr.store.StoreArrays`, read a row at a time by
# :func:`solver.cfr.store.stored_row`: the same numbers). Every player has every array, of these
# types, so that the kernels compile once for any pair of players.
PlayerArrays = namedtuple("PlayerArrays", "code probabilities weights counted layout rule by_rule store stored")
# What the kernels need of a game: the rounds' templates (as RoundTemplates.arrays), actions per
# position, subtree sizes per position, and the deck.
GameRules = namedtuple("GameRules", "seat label kind target contrib n_pos n_out start_contrib n_actions sizes draws "
                                    "hand_size suits ranks code_to_value")

STRATEGY, RULE, STATION, RANDOM = 0, 1, 2, 3
PLAYER_CODES = {"strategy": STRATEGY, "rule": RULE, "station": STATION, "random": RANDOM}
LABEL_F, LABEL_K, LABEL_C, LABEL_B, LABEL_R = ord("f"), ord("k"), ord("c"), ord("b"), ord("r")
@njit(cache=True, inline="always")
def shuffle(cards, n, state):
    """Fisher-Yates on ``cards[:n]``."""
    for i in range(n - 1, 0, -1):
        j = below(state, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


@njit(cache=True, inline="always")
def hand_value(hand, suits, ranks, code_to_value):
    """The hand's value class (``code_to_value`` maps the evaluator's strength codes)."""
    return code_to_value[strength_code(hand, len(hand), suits, ranks, len(hand))]


@njit(cache=True, inline="always")
def _sample(probs, start, stride, n, state):
    u = uniform(state)
    total = 0.0
    for a in range(n):
        total += probs[start + a * stride]
    u *= total
    last = 0
    for a in range(n):
        p = probs[start + a * stride]
        if p > 0.0:
            last = a
            if u < p:
                return a
            u -= p
    return last


@njit(cache=True, inline="always")
def strategy_weight(player, i):
    """A strategy player's weight at storage entry ``i``: its probability, or its count when
    ``counted`` (rows are normalised by whoever reads them)."""
    return player.weights[i] if player.counted else player.probabilities[i]


@njit(cache=True, inline="always")
def strategy_entry(player, node, rnd, phase, pot, records):
    """First storage entry of a decision point's slot for a strategy player."""
    if player.by_rule:
        return player.rule.slot_offset[key_slot(player.rule, rnd, phase, pot, records, -1)]
    return player.layout.entry_offset[node]


@njit(cache=True, inline="always")
def choose_action(player, node, rnd, phase, pot, records, hand, game, state):
    """The action index a player picks at a decision point: public node ``node``, its round,
    phase, pot level and earlier round records (see :mod:`solver.game.rounds`)."""
    if player.code == STRATEGY:
        is_draw = phase >= game.n_pos[rnd]
        n_act = len(hand) + 1 if is_draw else game.n_actions[rnd, phase]
        value = hand_value(hand, game.suits, game.ranks, game.code_to_value)
        if player.stored:
            row = np.empty(8)
            stored_row(player.store, player.layout, player.rule, rnd, phase, pot, records, value, player.counted, row)
            return _sample(row, 0, 1, n_act, state)
        start = strategy_entry(player, node, rnd, phase, pot, records) + player.layout.row_of[rnd, value]
        if player.counted:
            return _sample(player.weights, start, player.layout.row_width[rnd], n_act, state)
        return _sample(player.probabilities, start, player.layout.row_width[rnd], n_act, state)
    return baseline_action(player.code, rnd, phase, hand, game.n_pos, game.n_actions, game.label, game.suits,
                           game.ranks, game.draws, state)


@njit(cache=True)
def action_probabilities(player, node, rnd, phase, pot, records, hand, game, out):
    """A strategy player's probabilities at a decision point for ``hand`` into ``out[:n]``
    (normalised; ``n`` the actions there, or the draw counts 0 to hand_size); returns ``n``."""
    is_draw = phase >= game.n_pos[rnd]
    n_act = len(hand) + 1 if is_draw else game.n_actions[rnd, phase]
    value = hand_value(hand, game.suits, game.ranks, game.code_to_value)
    if player.stored:
        stored_row(player.store, player.layout, player.rule, rnd, phase, pot, records, value, player.counted, out)
    else:
        start = strategy_entry(player, node, rnd, phase, pot, records) + player.layout.row_of[rnd, value]
        stride = player.layout.row_width[rnd]
        for a in range(n_act):
            out[a] = strategy_weight(player, start + a * stride)
    total = 0.0
    for a in range(n_act):
        total += out[a]
    for a in range(n_act):
        out[a] = out[a] / total if total > 0.0 else 1.0 / n_act
    return n_act


@njit(cache=True, inline="always")
def baseline_action(code, rnd, phase, hand, n_pos, n_actions, labels, suits, ranks, draws, state):
    """The action index a baseline player (``code``: rule, station or random) picks; it needs only
    its hand and the public position, and of the game only the arrays named (every array handed
    on, even to an inlined call, costs two atomic reference-count updates: passing whole players
    and games made the simulator spend most of its time counting references)."""
    is_draw = phase >= n_pos[rnd]
    hand_size = len(hand)
    n_act = hand_size + 1 if is_draw else n_actions[rnd, phase]
    count, top = value_shape(hand, hand_size, suits)
    if is_draw:
        if code == RANDOM:
            n_legal = 0
            for d in range(hand_size + 1):
                n_legal += draw_is_legal(count, hand_size, d)
            pick = below(state, n_legal)
            for d in range(hand_size + 1):
                if draw_is_legal(count, hand_size, d):
                    if pick == 0:
                        return d
                    pick -= 1
        return reference_draw(count, hand_size)
    if code == RANDOM:
        return below(state, n_act)
    can_check = can_raise = can_fold = -1
    call = -1
    for a in range(n_act):
        label = labels[rnd, phase, a]
        if label == LABEL_K:
            can_check = a
        elif label == LABEL_C:
            call = a
        elif label == LABEL_B or label == LABEL_R:
            can_raise = a
        elif label == LABEL_F:
            can_fold = a
    passive = can_check if can_check >= 0 else call
    if code == STATION:
        return passive
    rounds_left = draws - rnd
    strong = count == hand_size and top < (6 * ranks + 9) // 10
    strong = strong or (rounds_left > 0 and count == hand_size - 1 and top < (4 * ranks + 9) // 10)
    if strong and can_raise >= 0:
        return can_raise
    if rounds_left == 0 and count < hand_size and can_check < 0 and can_fold >= 0:
        return can_fold
    return passive


@njit(cache=True, inline="always")
def canonical_mask(hand, d, suits):
    """The positions of ``hand`` kept when it draws ``d`` cards: the best valid subset of the
    rest (the canonical discard); -1 if no valid subset is that large (a dead card kept)."""
    hand_size = len(hand)
    keep = hand_size - d
    if keep == hand_size:
        return (1 << hand_size) - 1
    if keep == 0:
        return 0
    return best_valid_subset(hand, hand_size, suits, keep)[0]


@njit(cache=True, inline="always")
def split_kept(hand, mask, thrown, n_thrown):
    """Move the cards of ``hand`` at the positions in ``mask`` to its front, in order, and append
    the others to ``thrown`` from ``n_thrown``; returns (cards kept, the new ``n_thrown``)."""
    n_kept = 0
    for i in range(len(hand)):
        c = hand[i]
        if mask >> i & 1:
            hand[n_kept] = c  # (a position already read)
            n_kept += 1
        else:
            thrown[n_thrown] = c
            n_thrown += 1
    return n_kept, n_thrown


@njit(cache=True, inline="always")
def _draw(hand, d, kept, suits, stub, stub_pos, n_stub, muck, n_muck, state, discards):
    """Replace ``d`` cards of ``hand`` in place: those outside the positions ``kept`` (a mask), or
    with ``kept`` -1 the canonical discard (the lowest cards of the hand's value kept); the cards
    thrown are ``discards[:d]``, the new ones ``hand[hand_size - d:]``. Returns (stub position,
    stub size, muck size)."""
    hand_size = len(hand)
    n_kept, n_discards = split_kept(hand, canonical_mask(hand, d, suits) if kept < 0 else kept, discards, 0)
    for i in range(n_kept, hand_size):
        if stub_pos == n_stub:
            # The stub is out: the muck becomes a new stub.
            for j in range(n_muck):
                stub[j] = muck[j]
            n_stub = n_muck
            stub_pos = 0
            n_muck = 0
            shuffle(stub, n_stub, state)
        hand[i] = stub[stub_pos]
        stub_pos += 1
    for j in range(n_discards):
        muck[n_muck] = discards[j]
        n_muck += 1
    return stub_pos, n_stub, n_muck


@njit(cache=True, inline="always")
def _child_size(kinds, sizes, targets, draws, hand_size, rnd, phase, a):
    """Nodes in the subtree of action ``a`` at a betting position (itself included), from the
    game's ``kind``, ``sizes`` and ``target`` arrays."""
    kind = kinds[rnd, phase, a]
    if kind == BET:
        return sizes[rnd, targets[rnd, phase, a]]
    if kind == CONTINUE and rnd < draws:
        h1 = hand_size + 1
        return 1 + h1 * (1 + h1 * sizes[rnd + 1, 0])
    return 1


# The cards of a hand being played: ``hands`` (2, hand_size) by seat, the ``stub`` and the ``muck``
# (room for the deck each), ``piles`` = (stub position, stub size, muck size), ``discards`` (room
# for a hand: work space).
Cards = namedtuple("Cards", "hands stub muck piles discards")


@njit(cache=True)
def new_cards(n_cards, hand_size):
    return Cards(np.empty((2, hand_size), np.int64), np.empty(n_cards, np.int64), np.empty(n_cards, np.int64),
                 np.zeros(3, np.int64), np.empty(hand_size, np.int64))


# A hand's public position, as the kernels keep it: ``ipos`` = (node id in the public tree, its
# first child's id, round, phase), ``fpos`` = (pot when the round began, the button's and the big
# blind's contributions), ``records`` = the earlier rounds' records, latest first. Positions
# start at :func:`start_position` and move by :func:`advance` (:func:`_advance` on scalars).
GOES_ON, FOLDED, SHOWDOWN_REACHED = 0, 1, 2
# A script's draw that keeps given cards: KEPT_CARDS plus the mask of the hand positions kept
# (:func:`play_on`; a review values the discard a player actually made).
KEPT_CARDS = 1 << 10


@njit(cache=True, inline="always")
def start_position(start_contrib, ipos, fpos, records):
    """The position before the first action: the blinds posted, the button to act."""
    ipos[0], ipos[1], ipos[2], ipos[3] = 0, 1, 0, 0
    fpos[0], fpos[1], fpos[2] = 0.0, start_contrib[0], start_contrib[1]
    for k in range(len(records)):
        records[k] = -1


@njit(cache=True, inline="always")
def acting_seat(n_pos_of, n_out_of, seats, rnd, phase):
    """(seat to act, 1 if it is a draw) at a round's ``phase``."""
    n_pos = n_pos_of[rnd]
    if phase < n_pos:
        return seats[rnd, phase], 0
    return (1 if phase < n_pos + n_out_of[rnd] else 0), 1


@njit(cache=True)
def advance(ipos, fpos, records, a, game, player):
    """Move a position (``ipos``, ``fpos``, ``records``) by action ``a`` (an action index, or a
    draw count); returns GOES_ON, FOLDED (the contributions stay the ones before the fold) or
    SHOWDOWN_REACHED. :func:`play_on` moves it, no card touched; ``player`` (any) is not asked."""
    script = np.full(1, a, np.int64)
    nothing = np.zeros(0, np.int64)
    cards = Cards(np.zeros((2, 1), np.int64), nothing, nothing, nothing, nothing)
    return play_on(ipos, fpos, records, cards, (player, player), np.zeros(2, np.int64), np.zeros(1, np.uint64),
                   game, np.zeros(2), np.zeros(1, np.uint8), 0, script, nothing)[1]


@njit(cache=True)
def betting_value(ipos, fpos, records, hands, player, game, seat):
    """``seat``'s expected chips from a betting position of the last round to the hand's end, both
    seats' cards ``hands`` known and ``player``'s strategy playing both: every line of the betting
    left, each weighed by the strategy's probabilities (no card is dealt any more, so this is
    the exact value a rollout samples)."""
    n_records = len(records)
    stack_ipos = np.empty((64, 4), np.int64)
    stack_fpos = np.empty((64, 3))
    stack_records = np.empty((64, n_records), np.int64)
    stack_prob = np.empty(64)
    out = np.empty(8)
    stack_ipos[0] = ipos
    stack_fpos[0] = fpos
    stack_records[0] = records
    stack_prob[0] = 1.0
    top = 1
    total = 0.0
    suits, ranks, code_to_value = game.suits, game.ranks, game.code_to_value
    v0 = hand_value(hands[0], suits, ranks, code_to_value)
    v1 = hand_value(hands[1], suits, ranks, code_to_value)
    while top > 0:
        top -= 1
        here_i, here_f, here_r, prob = stack_ipos[top].copy(), stack_fpos[top].copy(), stack_records[top].copy(), \
            stack_prob[top]
        rnd, phase = here_i[2], here_i[3]
        s = game.seat[rnd, phase]
        n = action_probabilities(player, here_i[0], rnd, phase, here_f[0], here_r, hands[s], game, out)
        for a in range(n):
            if out[a] <= 0.0:
                continue
            i2, f2, r2 = here_i.copy(), here_f.copy(), here_r.copy()
            end = advance(i2, f2, r2, a, game, player)
            if end == FOLDED:
                c = f2[1] if s == 0 else f2[2]
                total += prob * out[a] * (-c if s == seat else c)
            elif end == SHOWDOWN_REACHED:
                won = f2[1] if v0 < v1 else (-f2[1] if v0 > v1 else 0.0)
                total += prob * out[a] * (won if seat == 0 else -won)
            else:
                stack_ipos[top] = i2
                stack_fpos[top] = f2
                stack_records[top] = r2
                stack_prob[top] = prob * out[a]
                top += 1
    return total


@njit(cache=True, inline="always")
def play_on(ipos, fpos, records, cards, players, seat_player, state, game, payoff, path, n_path, script, log):
    """Play a hand on from a position to its end with the :data:`Cards` ``cards``: ``hands`` by
    seat (0 button, 1 big blind), the stub ``stub[piles[0]:piles[1]]`` and the muck
    ``muck[:piles[2]]``; ``seat_player[s]`` is
    the index in ``players`` of the player in seat ``s``. The first ``len(script)`` decisions take
    the script's actions (action indexes, draw counts, or :data:`KEPT_CARDS` plus the mask of the
    cards a draw keeps); the players choose the rest.

    Fills ``payoff`` (chips won by seat) and ``path[n_path:]`` (the labels of the actions taken,
    as character codes); with a non-empty ``log``, each draw appends (seat, count, the cards
    thrown, the cards taken) to ``log[1:]``, its length in ``log[0]``. Returns the path's length
    and the outcome (FOLDED or SHOWDOWN_REACHED; with no stub, see :func:`advance`).
    """
    # (Borrowed: picking a seat's player from the tuple, and handing its arrays on, costs no
    # reference counts; a stored strategy's player holds two dozen arrays.)
    players = borrowed(players)
    hands, stub, muck, piles, discards = cards.hands, cards.stub, cards.muck, cards.piles, cards.discards
    # The game's arrays, unpacked once (see baseline_action); the position's arithmetic is written
    # out in the loop, not called: a call per decision handing arrays on costs their reference counts.
    seats, labels, kinds, targets, contribs = game.seat, game.label, game.kind, game.target, game.contrib
    n_pos_of, n_out_of, n_actions, sizes = game.n_pos, game.n_out, game.n_actions, game.sizes
    suits, ranks, draws, code_to_value = game.suits, game.ranks, game.draws, game.code_to_value
    hand_size = game.hand_size
    h1 = hand_size + 1
    # Positions only (``advance``): the script's actions move the position, no card is touched.
    positions_only = len(stub) == 0
    end = GOES_ON
    stub_pos, n_stub, n_muck = piles[0], piles[1], piles[2]
    codes = (players[seat_player[0]].code, players[seat_player[1]].code)
    n_script = 0
    node, first, rnd, phase = ipos[0], ipos[1], ipos[2], ipos[3]
    pot, c0, c1 = fpos[0], fpos[1], fpos[2]
    while True:
        s, is_draw = acting_seat(n_pos_of, n_out_of, seats, rnd, phase)
        kept = -1
        if n_script < len(script):
            a = script[n_script]
            n_script += 1
            if a >= KEPT_CARDS:  # a draw that keeps the cards at these positions (a review's actual discard)
                kept = a - KEPT_CARDS
                a = hand_size
                for i in range(hand_size):
                    a -= kept >> i & 1
        elif codes[s] == STRATEGY:
            a = choose_action(players[seat_player[s]], node, rnd, phase, pot, records, hands[s], game, state)
        else:
            a = baseline_action(codes[s], rnd, phase, hands[s], n_pos_of, n_actions, labels, suits, ranks, draws,
                                state)
        path[n_path] = 48 + a if is_draw else labels[rnd, phase, a]
        n_path += 1
        if is_draw and a > 0 and not positions_only:
            stub_pos, n_stub, n_muck = _draw(hands[s], a, kept, suits, stub, stub_pos, n_stub, muck, n_muck,
                                             state, discards)
            if len(log) > 0:
                n = log[0]
                log[n + 1], log[n + 2] = s, a
                for i in range(a):
                    log[n + 3 + i] = discards[i]
                    log[n + 3 + a + i] = hands[s, hand_size - a + i]
                log[0] = n + 2 + 2 * a
        # The position after the action.
        end = GOES_ON
        n_pos, n_out = n_pos_of[rnd], n_out_of[rnd]
        if not is_draw:
            kind = kinds[rnd, phase, a]
            if kind == FOLD:
                end = FOLDED
            else:
                child_first = first + n_actions[rnd, phase]
                for i in range(a):
                    child_first += _child_size(kinds, sizes, targets, draws, hand_size, rnd, phase, i) - 1
                c0 = pot + contribs[rnd, phase, a, 0] if rnd > 0 else contribs[rnd, phase, a, 0]
                c1 = pot + contribs[rnd, phase, a, 1] if rnd > 0 else contribs[rnd, phase, a, 1]
                node, first = first + a, child_first
                if kind == BET:
                    phase = targets[rnd, phase, a]
                elif rnd < draws:
                    phase = n_pos + targets[rnd, phase, a]  # the big blind's draw
                else:
                    end = SHOWDOWN_REACHED
        else:
            big_blind_draws = phase < n_pos + n_out
            below_each = sizes[rnd + 1, 0] if not big_blind_draws else 1 + h1 * sizes[rnd + 1, 0]
            node, first = first + a, first + h1 + a * (below_each - 1)
            if big_blind_draws:
                phase = n_pos + n_out + (phase - n_pos) * h1 + a
            else:
                q = phase - n_pos - n_out
                for k in range(len(records) - 1, 0, -1):
                    records[k] = records[k - 1]
                records[0] = q * h1 + a
                rnd += 1
                phase = 0
                pot = c0
        if positions_only and n_script == len(script):
            break
        if end == FOLDED:
            c = c0 if s == 0 else c1
            payoff[s] = -c
            payoff[1 - s] = c
            break
        if end == SHOWDOWN_REACHED:
            v0 = hand_value(hands[0], suits, ranks, code_to_value)
            v1 = hand_value(hands[1], suits, ranks, code_to_value)
            payoff[0] = c0 if v0 < v1 else (-c0 if v0 > v1 else 0.0)
            payoff[1] = -payoff[0]
            break
    ipos[0], ipos[1], ipos[2], ipos[3] = node, first, rnd, phase
    fpos[0], fpos[1], fpos[2] = pot, c0, c1
    if not positions_only:
        piles[0], piles[1], piles[2] = stub_pos, n_stub, n_muck
    return n_path, end


@njit(cache=True, inline="always")
def deal(deck, hand_size, hands, stub, piles):
    """The button's hand is the deck's first ``hand_size`` cards, the big blind's the next, the
    rest the stub; the muck is empty."""
    for s in range(2):
        for i in range(hand_size):
            hands[s, i] = deck[s * hand_size + i]
    n_stub = len(deck) - 2 * hand_size
    for i in range(n_stub):
        stub[i] = deck[2 * hand_size + i]
    piles[0], piles[1], piles[2] = 0, n_stub, 0


@njit(cache=True)
def play_hand(deck, players, seat_player, state, game, hands, payoff, path, log):
    """Play one hand from the deck order ``deck`` (see :func:`deal` and :func:`play_on`); the final
    hands into ``hands``."""
    cards = new_cards(len(deck), game.hand_size)
    deal(deck, game.hand_size, cards.hands, cards.stub, cards.piles)
    ipos = np.empty(4, np.int64)
    fpos = np.empty(3)
    records = np.empty(max(game.draws, 1), np.int64)
    start_position(game.start_contrib, ipos, fpos, records)
    n = play_on(ipos, fpos, records, cards, players, seat_player, state, game, payoff, path, 0,
                np.zeros(0, np.int64), log)[0]
    hands[:, :] = cards.hands
    return n


@njit(cache=True)
def play_match(players, deal_lo, deal_hi, seed, game, out):
    """Duplicate match: each deal is played twice with the same deck, seats swapped.

    ``out[i]`` = (player 0's chips with the button, player 0's chips in the big
    blind) for deal ``i`` (deals ``deal_lo`` to ``deal_hi - 1``).
    """
    n_cards = game.ranks * game.suits
    deck = np.empty(n_cards, np.int64)
    path = np.zeros(8 * (game.draws + 1) + 2 * game.draws + 2, np.uint8)
    # Work space, reused by every hand.
    nothing = np.zeros(0, np.int64)
    cards = new_cards(n_cards, game.hand_size)
    ipos = np.empty(4, np.int64)
    fpos = np.empty(3)
    records = np.empty(max(game.draws, 1), np.int64)
    payoff = np.empty(2)
    seat_player = np.empty(2, np.int64)
    state = np.empty(1, np.uint64)
    for i in range(deal_lo, deal_hi):
        start = stream_seed(seed, i)
        state[0] = start
        for c in range(n_cards):
            deck[c] = c
        shuffle(deck, n_cards, state)
        for seat_game in range(2):
            # Player 0 on the button, then in the big blind; the actions' stream starts afresh.
            seat_player[0] = seat_game
            seat_player[1] = 1 - seat_game
            state[0] = mix(start + np.uint64(seat_game + 1))
            deal(deck, game.hand_size, cards.hands, cards.stub, cards.piles)
            start_position(game.start_contrib, ipos, fpos, records)
            play_on(ipos, fpos, records, cards, players, seat_player, state, game, payoff, path, 0, nothing, nothing)
            out[i, seat_game] = payoff[seat_game]


@njit(cache=True)
def fill_class_policy(player, target_seat, kind, seat, node_round, phase, pot, records, game, legal, hand_of_class,
                      layout, out):
    """Write ``player``'s policy per value class at ``target_seat``'s decision nodes of a built tree
    (``kind``, ``seat``, ``node_round`` and the annotations ``phase``, ``pot``, ``records``) into
    ``out``, laid out by ``layout`` (full resolution: one entry per class).

    Solved strategies are read through their own layout (a bucket's
    probabilities for each of its classes); ``RANDOM`` is uniform over legal
    actions; ``RULE`` and ``STATION`` are asked, through the same choice the
    simulator makes, about one real hand of each class (their rules depend
    only on the class).
    """
    n_states = hand_of_class.shape[0]
    state = np.zeros(1, np.uint64)
    row = np.empty(8)
    for node in range(len(kind)):
        if kind[node] > 1 or seat[node] != target_seat:
            continue
        rnd = node_round[node]
        p = phase[node]
        is_draw = p >= game.n_pos[rnd]
        n_act = game.hand_size + 1 if is_draw else game.n_actions[rnd, p]
        base = layout.entry_offset[node]
        width = layout.row_width[rnd]
        for v in range(n_states):
            for a in range(n_act):
                out[base + a * width + layout.row_of[rnd, v]] = 0.0
            if player.code == STRATEGY and player.stored:
                stored_row(player.store, player.layout, player.rule, rnd, p, pot[node], records[node], v,
                           player.counted, row)
                total = 1.0
                if player.counted:
                    total = 0.0
                    for a in range(n_act):
                        total += row[a]
                for a in range(n_act):
                    out[base + a * width + layout.row_of[rnd, v]] = row[a] / total
            elif player.code == STRATEGY:
                start = strategy_entry(player, node, rnd, p, pot[node], records[node]) + player.layout.row_of[rnd, v]
                stride = player.layout.row_width[rnd]
                total = 1.0  # (probabilities are copied as they are: x / 1.0 is x)
                if player.counted:
                    total = 0.0
                    for a in range(n_act):
                        total += strategy_weight(player, start + a * stride)
                for a in range(n_act):
                    out[base + a * width + layout.row_of[rnd, v]] = strategy_weight(player, start + a * stride) / total
            elif player.code == RANDOM:
                n_legal = 0
                for a in range(n_act):
                    if not is_draw or legal[v, a]:
                        n_legal += 1
                for a in range(n_act):
                    if not is_draw or legal[v, a]:
                        out[base + a * width + layout.row_of[rnd, v]] = 1.0 / n_legal
            else:
                a = choose_action(player, node, rnd, p, pot[node], records[node], hand_of_class[v], game, state)
                out[base + a * width + layout.row_of[rnd, v]] = 1.0
