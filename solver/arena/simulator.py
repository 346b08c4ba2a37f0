"""Real heads-up fixed-limit Badugi: one deck, discards mucked, replacements from the stub.

The solver's model gives each player a deck of his own; this simulator plays
the real game, so a solved strategy can be measured where it will be used.

Rules (DESIGN section 2, as the public tree encodes them: the simulator walks
the same tree, so blinds, betting order and cap are the solver's):

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
solved strategies the probabilities and their layout,
:class:`solver.game.layout.LayoutArrays`):

- ``STRATEGY``: a solved average strategy; the hand's value class picks its
  row position through the layout (its bucket in bucketed games); draws use
  the canonical discard.
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
from abstractions.transitions import reference_draw

from ..game.layout import policy_entry
from ..game.tree import DRAW, FOLD, SHOWDOWN

# A player: its code, and for a solved strategy its probabilities (read-only float32) and layout.
PlayerArrays = namedtuple("PlayerArrays", "code probabilities layout")
# What the kernels need of a game: the public tree's arrays and the deck.
GameArrays = namedtuple("GameArrays", "kind seat contrib first_child n_children action node_round draws suits ranks "
                                      "hand_size code_to_value")

STRATEGY, RULE, STATION, RANDOM = 0, 1, 2, 3
PLAYER_CODES = {"strategy": STRATEGY, "rule": RULE, "station": STATION, "random": RANDOM}
LABEL_F, LABEL_K, LABEL_C, LABEL_B, LABEL_R = ord("f"), ord("k"), ord("c"), ord("b"), ord("r")
GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True)
def _uniform(state):
    """A float in [0, 1) from the splitmix64 stream in ``state[0]``."""
    state[0] += GOLDEN
    return float(_mix(state[0]) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _below(state, n):
    return min(int(_uniform(state) * n), n - 1)


@njit(cache=True)
def deal_seed(seed, deal):
    """The random stream's start for one deal of a match."""
    return _mix(np.uint64(seed) * GOLDEN + np.uint64(deal) + np.uint64(1))


@njit(cache=True)
def shuffle(cards, n, state):
    """Fisher-Yates on ``cards[:n]``."""
    for i in range(n - 1, 0, -1):
        j = _below(state, i + 1)
        cards[i], cards[j] = cards[j], cards[i]


@njit(cache=True)
def hand_value(hand, suits, ranks, code_to_value):
    """The hand's value class (``code_to_value`` maps the evaluator's strength codes)."""
    return code_to_value[strength_code(hand, len(hand), suits, ranks, len(hand))]


@njit(cache=True)
def _sample(probs, start, stride, n, state):
    u = _uniform(state)
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


@njit(cache=True)
def choose_action(player, node, hand, game, state):
    """The child index a player picks at a decision node."""
    n_act = game.n_children[node]
    is_draw = game.kind[node] == DRAW
    rnd = game.node_round[node]
    hand_size = len(hand)
    if player.code == STRATEGY:
        value = hand_value(hand, game.suits, game.ranks, game.code_to_value)
        return _sample(player.probabilities, policy_entry(player.layout, node, rnd, 0, value),
                       player.layout.row_width[rnd], n_act, state)
    count, top = value_shape(hand, hand_size, game.suits)
    if is_draw:
        if player.code == RANDOM:
            n_legal = 2 + count if count < hand_size else hand_size + 1
            pick = _below(state, n_legal)
            # Legal counts: 0, then hand_size - count .. hand_size.
            return 0 if pick == 0 else max(hand_size - count, 1) + pick - 1
        return reference_draw(count, hand_size)
    if player.code == RANDOM:
        return _below(state, n_act)
    first = game.first_child[node]
    can_check = can_raise = can_fold = -1
    call = -1
    for a in range(n_act):
        label = game.action[first + a]
        if label == LABEL_K:
            can_check = a
        elif label == LABEL_C:
            call = a
        elif label == LABEL_B or label == LABEL_R:
            can_raise = a
        elif label == LABEL_F:
            can_fold = a
    passive = can_check if can_check >= 0 else call
    if player.code == STATION:
        return passive
    ranks = game.ranks
    rounds_left = game.draws - rnd
    strong = count == hand_size and top < (6 * ranks + 9) // 10
    strong = strong or (rounds_left > 0 and count == hand_size - 1 and top < (4 * ranks + 9) // 10)
    if strong and can_raise >= 0:
        return can_raise
    if rounds_left == 0 and count < hand_size and can_check < 0 and can_fold >= 0:
        return can_fold
    return passive


@njit(cache=True)
def _draw(hand, d, suits, stub, stub_pos, n_stub, muck, n_muck, state, discards):
    """Replace ``d`` cards of ``hand`` in place; returns (stub position, stub size, muck size)."""
    hand_size = len(hand)
    keep = hand_size - d
    pick = (1 << hand_size) - 1
    if keep < hand_size:
        pick = 0 if keep == 0 else best_valid_subset(hand, hand_size, suits, keep)[0]
    kept = np.empty(hand_size, np.int64)
    n_kept = 0
    n_discards = 0
    for i in range(hand_size):
        if pick >> i & 1:
            kept[n_kept] = hand[i]
            n_kept += 1
        else:
            discards[n_discards] = hand[i]
            n_discards += 1
    for i in range(n_kept):
        hand[i] = kept[i]
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


@njit(cache=True)
def play_hand(deck, players, seat_player, state, game, hands, payoff):
    """Play one hand from the deck order ``deck``; ``seat_player[s]`` is the index in ``players``
    of the player in seat ``s`` (0 button, 1 big blind).

    Fills ``hands`` (final hands by seat) and ``payoff`` (chips won by seat) and
    returns the terminal node.
    """
    n_cards = len(deck)
    hand_size = game.hand_size
    stub = np.empty(n_cards, np.int64)
    muck = np.empty(n_cards, np.int64)
    discards = np.empty(hand_size, np.int64)
    for s in range(2):
        for i in range(hand_size):
            hands[s, i] = deck[s * hand_size + i]
    n_stub = n_cards - 2 * hand_size
    for i in range(n_stub):
        stub[i] = deck[2 * hand_size + i]
    stub_pos = 0
    n_muck = 0
    node = 0
    while True:
        k = game.kind[node]
        if k == FOLD:
            folder = game.seat[node]
            payoff[folder] = -game.contrib[node, folder]
            payoff[1 - folder] = game.contrib[node, folder]
            return node
        if k == SHOWDOWN:
            v0 = hand_value(hands[0], game.suits, game.ranks, game.code_to_value)
            v1 = hand_value(hands[1], game.suits, game.ranks, game.code_to_value)
            pot = game.contrib[node, 0]
            payoff[0] = pot if v0 < v1 else (-pot if v0 > v1 else 0.0)
            payoff[1] = -payoff[0]
            return node
        s = game.seat[node]
        a = choose_action(players[seat_player[s]], node, hands[s], game, state)
        if k == DRAW and a > 0:
            stub_pos, n_stub, n_muck = _draw(hands[s], a, game.suits, stub, stub_pos, n_stub, muck, n_muck,
                                             state, discards)
        node = game.first_child[node] + a


@njit(cache=True)
def play_match(players, deal_lo, deal_hi, seed, game, out):
    """Duplicate match: each deal is played twice with the same deck, seats swapped.

    ``out[i]`` = (player 0's chips with the button, player 0's chips in the big
    blind) for deal ``i`` (deals ``deal_lo`` to ``deal_hi - 1``).
    """
    n_cards = game.ranks * game.suits
    deck = np.empty(n_cards, np.int64)
    hands = np.empty((2, game.hand_size), np.int64)
    payoff = np.empty(2)
    seat_player = np.empty(2, np.int64)
    state = np.empty(1, np.uint64)
    for i in range(deal_lo, deal_hi):
        start = deal_seed(seed, i)
        state[0] = start
        for c in range(n_cards):
            deck[c] = c
        shuffle(deck, n_cards, state)
        for seat_game in range(2):
            # Player 0 on the button, then in the big blind; the actions' stream starts afresh.
            seat_player[0] = seat_game
            seat_player[1] = 1 - seat_game
            state[0] = _mix(start + np.uint64(seat_game + 1))
            play_hand(deck, players, seat_player, state, game, hands, payoff)
            out[i, seat_game] = payoff[seat_game]


@njit(cache=True)
def fill_class_policy(player, target_seat, game, legal, hand_of_class, layout, out):
    """Write ``player``'s policy per value class at ``target_seat``'s decision nodes into ``out``,
    laid out by ``layout`` (full resolution: one entry per class).

    Solved strategies are read through their own layout (a bucket's
    probabilities for each of its classes); ``RANDOM`` is uniform over legal
    actions; ``RULE`` and ``STATION`` are asked, through the same choice the
    simulator makes, about one real hand of each class (their rules depend
    only on the class).
    """
    n_states = hand_of_class.shape[0]
    state = np.zeros(1, np.uint64)
    for node in range(len(game.kind)):
        if game.kind[node] > DRAW or game.seat[node] != target_seat:
            continue
        n_act = game.n_children[node]
        rnd = game.node_round[node]
        is_draw = game.kind[node] == DRAW
        for v in range(n_states):
            for a in range(n_act):
                out[policy_entry(layout, node, rnd, a, v)] = 0.0
            if player.code == STRATEGY:
                for a in range(n_act):
                    out[policy_entry(layout, node, rnd, a, v)] = player.probabilities[
                        policy_entry(player.layout, node, rnd, a, v)]
            elif player.code == RANDOM:
                n_legal = 0
                for a in range(n_act):
                    if not is_draw or legal[v, a]:
                        n_legal += 1
                for a in range(n_act):
                    if not is_draw or legal[v, a]:
                        out[policy_entry(layout, node, rnd, a, v)] = 1.0 / n_legal
            else:
                a = choose_action(player, node, hand_of_class[v], game, state)
                out[policy_entry(layout, node, rnd, a, v)] = 1.0
