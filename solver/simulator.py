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

Players (one code each; a player is a tuple ``(code, probabilities,
entry_offset, bucket_of, bucket_width)``, the arrays used by solved strategies
only):

- ``STRATEGY``: a solved average strategy; the hand's value class (bucket for
  bucketed games) picks the row; draws use the canonical discard.
- ``RULE``: pat a badugi, otherwise keep its value's cards and draw the rest.
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

import numpy as np
from numba import njit

from abstractions.evaluator import _best_subset, _code_of
from .kernels import BET, DRAW, FOLD, SHOWDOWN

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
def hand_info(hand, suits):
    """(cards in the value, top rank of the value)."""
    _, code = _best_subset(hand, len(hand), suits, 0)
    mask = code & 0xFFFF
    top = 0
    for r in range(16):
        if mask >> r & 1:
            top = r
    return 4 - (code >> 16), top


@njit(cache=True)
def hand_value(hand, suits, ranks, code_to_value):
    """The hand's value class (``code_to_value`` maps the evaluator's strength codes)."""
    return code_to_value[_code_of(hand, len(hand), suits, ranks, len(hand))]


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
def _choose(player, node, hand, n_act, is_draw, rounds_left, first_child, action, node_round,
            suits, ranks, code_to_value, state):
    """The child index a player picks at a decision node."""
    code, probs, entry_offset, bucket_of, bucket_width = player
    hand_size = len(hand)
    if code == STRATEGY:
        rnd = node_round[node]
        value = hand_value(hand, suits, ranks, code_to_value)
        return _sample(probs, entry_offset[node] + bucket_of[rnd, value], bucket_width[rnd], n_act, state)
    count, top = hand_info(hand, suits)
    if is_draw:
        if code == RANDOM:
            n_legal = 2 + count if count < hand_size else hand_size + 1
            pick = _below(state, n_legal)
            # Legal counts: 0, then hand_size - count .. hand_size.
            return 0 if pick == 0 else max(hand_size - count, 1) + pick - 1
        return 0 if count == hand_size else hand_size - count
    if code == RANDOM:
        return _below(state, n_act)
    first = first_child[node]
    can_check = can_raise = can_fold = -1
    call = -1
    for a in range(n_act):
        label = action[first + a]
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
        pick = 0 if keep == 0 else _best_subset(hand, hand_size, suits, keep)[0]
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
def play_hand(deck, players, seat_player, state, kind, seat, contrib, first_child, n_children, action,
              node_round, draws, suits, ranks, hand_size, code_to_value, hands, payoff):
    """Play one hand from the deck order ``deck``; ``seat_player[s]`` is the index in ``players``
    of the player in seat ``s`` (0 button, 1 big blind).

    Fills ``hands`` (final hands by seat) and ``payoff`` (chips won by seat) and
    returns the terminal node.
    """
    n_cards = len(deck)
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
        k = kind[node]
        if k == FOLD:
            folder = seat[node]
            payoff[folder] = -contrib[node, folder]
            payoff[1 - folder] = contrib[node, folder]
            return node
        if k == SHOWDOWN:
            v0 = hand_value(hands[0], suits, ranks, code_to_value)
            v1 = hand_value(hands[1], suits, ranks, code_to_value)
            pot = contrib[node, 0]
            payoff[0] = pot if v0 < v1 else (-pot if v0 > v1 else 0.0)
            payoff[1] = -payoff[0]
            return node
        s = seat[node]
        player = players[seat_player[s]]
        a = _choose(player, node, hands[s], n_children[node], k == DRAW, draws - node_round[node],
                    first_child, action, node_round, suits, ranks, code_to_value, state)
        if k == DRAW and a > 0:
            stub_pos, n_stub, n_muck = _draw(hands[s], a, suits, stub, stub_pos, n_stub, muck, n_muck,
                                             state, discards)
        node = first_child[node] + a


@njit(cache=True)
def play_match(players, deal_lo, deal_hi, seed, n_cards, kind, seat, contrib, first_child, n_children, action,
               node_round, draws, suits, ranks, hand_size, code_to_value, out):
    """Duplicate match: each deal is played twice with the same deck, seats swapped.

    ``out[i]`` = (player 0's chips with the button, player 0's chips in the big
    blind) for deal ``i`` (deals ``deal_lo`` to ``deal_hi - 1``).
    """
    deck = np.empty(n_cards, np.int64)
    hands = np.empty((2, hand_size), np.int64)
    payoff = np.empty(2)
    seat_player = np.empty(2, np.int64)
    state = np.empty(1, np.uint64)
    for i in range(deal_lo, deal_hi):
        start = deal_seed(seed, i)
        state[0] = start
        for c in range(n_cards):
            deck[c] = c
        shuffle(deck, n_cards, state)
        for game in range(2):
            # Player 0 on the button, then in the big blind; the actions' stream starts afresh.
            seat_player[0] = game
            seat_player[1] = 1 - game
            state[0] = _mix(start + np.uint64(game + 1))
            play_hand(deck, players, seat_player, state, kind, seat, contrib, first_child, n_children, action,
                      node_round, draws, suits, ranks, hand_size, code_to_value, hands, payoff)
            out[i, game] = payoff[game]


@njit(cache=True)
def fill_class_policy(player, target_seat, kind, seat, first_child, n_children, action, node_round, draws,
                      legal, hand_of_class, suits, ranks, code_to_value, entry_offset, out):
    """Write ``player``'s policy per value class at ``target_seat``'s decision nodes into ``out``
    (full-resolution layout: rows of one entry per class from ``entry_offset``).

    Solved strategies are expanded from their buckets; ``RANDOM`` is uniform over
    legal actions; ``RULE`` and ``STATION`` are asked, through the same choice
    the simulator makes, about one real hand of each class (their rules depend
    only on the class).
    """
    code, probs, p_offset, bucket_of, bucket_width = player
    n_states = hand_of_class.shape[0]
    state = np.zeros(1, np.uint64)
    for node in range(len(kind)):
        if kind[node] > DRAW or seat[node] != target_seat:
            continue
        n_act = n_children[node]
        base = entry_offset[node]
        rnd = node_round[node]
        is_draw = kind[node] == DRAW
        for v in range(n_states):
            for a in range(n_act):
                out[base + a * n_states + v] = 0.0
            if code == STRATEGY:
                for a in range(n_act):
                    out[base + a * n_states + v] = probs[p_offset[node] + a * bucket_width[rnd] + bucket_of[rnd, v]]
            elif code == RANDOM:
                n_legal = 0
                for a in range(n_act):
                    if not is_draw or legal[v, a]:
                        n_legal += 1
                for a in range(n_act):
                    if not is_draw or legal[v, a]:
                        out[base + a * n_states + v] = 1.0 / n_legal
            else:
                a = _choose(player, node, hand_of_class[v], n_act, is_draw, draws - rnd, first_child, action,
                            node_round, suits, ranks, code_to_value, state)
                out[base + a * n_states + v] = 1.0
