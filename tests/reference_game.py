"""Independent reference implementation of simplified heads-up fixed-limit Badugi.

This module deliberately imports nothing from the project.  It is a slow but
exact oracle used to check the CFR solver:

* its own brute-force hand evaluator (subset enumeration),
* the explicit perfect-recall game of the "independent-deck" model with real
  cards (public tree x each player's private tree of dealt/drawn hands),
* ``solve_lp``: the exact game value via the sequence-form LP
  (Koller-Megiddo-von Stengel) solved with HiGHS,
* ``best_response_values``: exact best responses (perfect recall) and the
  on-policy value for any policy ``policy(seat, history, hand)``.

Conventions (see docs in the project's DESIGN.md, sections 1-3):

* card integer = rank * suits + suit, rank 0 = ace (lowest, best);
* seat 0 = button (small blind), seat 1 = big blind; values in big blinds;
* public history: betting rounds are strings over ``f k c b r``; a draw round
  is two digits (big blind's count, then button's); rounds separated by '/'.
  A decision point is named by the history *before* it ('' = button's first
  decision, 'ck/' = big blind's draw, 'ck/2' = button's draw, ...).

Because each player deals and draws from a deck of his own, chance factorizes
into the two players' private chance trees.  The explicit game is therefore
represented exactly as (public tree) x (private tree of seat 0) x (private tree
of seat 1); an information set of seat s is (public decision node, full
sequence of seat s's hands so far), i.e. perfect recall with real cards.
"""

from __future__ import annotations

import itertools
import math
import time
from functools import lru_cache

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

BUTTON = 0
BIG_BLIND = 1

RANK_CHARS = "A23456789TJQK"
SUIT_CHARS = "shdc"
_SUIT_SYMBOLS = {"\u2660": "s", "\u2665": "h", "\u2666": "d", "\u2663": "c"}


# --------------------------------------------------------------------------
# Cards and the brute-force evaluator
# --------------------------------------------------------------------------

def make_card(rank: int, suit: int, suits: int) -> int:
    return rank * suits + suit


def card_rank(card: int, suits: int) -> int:
    return card // suits


def card_suit(card: int, suits: int) -> int:
    return card % suits


def parse_hand(text: str, ranks: int = 13, suits: int = 4) -> tuple:
    """Parse e.g. 'As2h3d4c' (or '10d', unicode suits) into a sorted tuple of card ints."""
    s = text.replace(" ", "").replace(",", "")
    for sym, ch in _SUIT_SYMBOLS.items():
        s = s.replace(sym, ch)
    s = s.upper().replace("10", "T")
    if len(s) % 2:
        raise ValueError(f"cannot parse hand {text!r}")
    cards = []
    for i in range(0, len(s), 2):
        rc, sc = s[i], s[i + 1].lower()
        r = RANK_CHARS.find(rc)
        u = SUIT_CHARS.find(sc)
        if r < 0 or u < 0 or r >= ranks or u >= suits:
            raise ValueError(f"bad card {s[i:i + 2]!r} in {text!r}")
        c = make_card(r, u, suits)
        if c in cards:
            raise ValueError(f"duplicate card {s[i:i + 2]!r} in {text!r}")
        cards.append(c)
    return tuple(sorted(cards))


def card_str(card: int, suits: int) -> str:
    return RANK_CHARS[card_rank(card, suits)] + SUIT_CHARS[card_suit(card, suits)]


def hand_str(hand, suits: int) -> str:
    return "".join(card_str(c, suits) for c in hand)


def is_valid_subset(cards, suits: int) -> bool:
    """Pairwise distinct ranks and pairwise distinct suits."""
    rs = [c // suits for c in cards]
    ss = [c % suits for c in cards]
    return len(set(rs)) == len(rs) and len(set(ss)) == len(ss)


def subset_key(cards, suits: int) -> tuple:
    """Strength key of a *valid* subset; larger key = stronger hand.

    (number of cards, then the ranks from the highest down, negated so that a
    lower rank compares larger)."""
    rs = sorted((c // suits for c in cards), reverse=True)
    return (len(rs), tuple(-r for r in rs))


def best_subset(hand, suits: int, size: int | None = None):
    """Best valid subset of ``hand`` (optionally restricted to ``size`` cards).

    Returns (key, subset) where subset is a sorted tuple.  Ties in value are
    broken by the lexicographically smallest sorted tuple of card indices.
    Returns (None, None) if no valid subset of the requested size exists."""
    hand = tuple(sorted(hand))
    sizes = range(len(hand), -1, -1) if size is None else (size,)
    best_k, best_s = None, None
    for k in sizes:
        for sub in itertools.combinations(hand, k):  # lexicographic order
            if not is_valid_subset(sub, suits):
                continue
            key = subset_key(sub, suits)
            if best_k is None or key > best_k:
                best_k, best_s = key, sub
    return best_k, best_s


def hand_value(hand, suits: int) -> tuple:
    """Value key of a hand (its best valid subset); compare with < / > / ==."""
    return best_subset(hand, suits)[0]


def value_count(hand, suits: int) -> int:
    """m = number of cards in the hand's value."""
    return hand_value(hand, suits)[0]


def allowed_draws(hand, suits: int, hand_size: int | None = None) -> list:
    """0 (stand pat) and every d with hand_size - m <= d <= hand_size."""
    if hand_size is None:
        hand_size = len(hand)
    m = value_count(hand, suits)
    return sorted({0} | set(range(max(hand_size - m, 1), hand_size + 1)))


def kept_cards(hand, d: int, suits: int) -> tuple:
    """Cards kept when drawing d: best (len(hand)-d)-card valid subset."""
    hand = tuple(sorted(hand))
    if d == 0:
        return hand
    key, sub = best_subset(hand, suits, len(hand) - d)
    if sub is None:
        raise ValueError(f"drawing {d} from {hand} is not allowed")
    return sub


# --------------------------------------------------------------------------
# Configuration, hand tables, private chance trees
# --------------------------------------------------------------------------

class Config:
    __slots__ = ("ranks", "suits", "hand_size", "draws", "cap", "bets",
                 "small_blind", "big_blind")

    def __init__(self, ranks, suits, hand_size, draws, cap, bets,
                 small_blind=0.5, big_blind=1.0):
        self.ranks = int(ranks)
        self.suits = int(suits)
        self.hand_size = int(hand_size)
        self.draws = int(draws)
        self.cap = int(cap)
        self.bets = tuple(float(b) for b in bets)
        self.small_blind = float(small_blind)
        self.big_blind = float(big_blind)
        if len(self.bets) != self.draws + 1:
            raise ValueError("need one bet size per betting round (draws + 1)")
        if not 1 <= self.hand_size <= self.ranks * self.suits:
            raise ValueError("bad hand_size")
        if self.hand_size > 9:
            raise ValueError("draw counts must be single digits")
        if self.cap < 1:
            raise ValueError("cap must be >= 1")

    def key(self):
        return (self.ranks, self.suits, self.hand_size, self.draws, self.cap,
                self.bets, self.small_blind, self.big_blind)


class HandTables:
    """All hands of one deck with their value class, legal draws and draw outcomes."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        S, n = cfg.suits, cfg.hand_size
        deck = list(range(cfg.ranks * cfg.suits))
        self.deck = deck
        self.hands = list(itertools.combinations(deck, n))
        self.index = {h: i for i, h in enumerate(self.hands)}
        keys = [hand_value(h, S) for h in self.hands]
        distinct = sorted(set(keys))  # weakest first
        self.class_keys = distinct
        kidx = {k: i for i, k in enumerate(distinct)}
        self.cls = np.array([kidx[k] for k in keys], dtype=np.int64)
        self.n_classes = len(distinct)
        self.allowed = np.zeros((len(self.hands), n + 1), dtype=bool)
        for i, h in enumerate(self.hands):
            for d in allowed_draws(h, S, n):
                self.allowed[i, d] = True
        self._trans = {}

    def transitions(self, h: int, d: int) -> np.ndarray:
        """Hand indices reachable from hand h drawing d (each equally likely)."""
        key = (h, d)
        out = self._trans.get(key)
        if out is None:
            hand = self.hands[h]
            if d == 0:
                out = np.array([h], dtype=np.int64)
            else:
                kept = kept_cards(hand, d, self.cfg.suits)
                rest = [c for c in self.deck if c not in kept]
                out = np.array([self.index[tuple(sorted(kept + new))]
                                for new in itertools.combinations(rest, d)],
                               dtype=np.int64)
            self._trans[key] = out
        return out


class PrivateTree:
    """One player's private chance tree (both players' trees are identical).

    A private node (pid) is a full sequence of that player's hands; its
    'pattern' is the tuple of draw counts taken so far.  ``ids(P)`` lists the
    private nodes with pattern P; ``parent_pos(P)`` gives, for each of them,
    the position of its parent inside ``ids(P[:-1])``."""

    def __init__(self, tables: HandTables):
        self.t = tables
        n = len(tables.hands)
        self.hand = list(range(n))
        self.parent = [-1] * n
        self.prob = [1.0 / n] * n
        self._ids = {(): np.arange(n, dtype=np.int64)}
        self._parent_pos = {}
        self._cond = {}
        self._seq_cache = {}
        self._np_hand = None
        self._np_prob = None

    def ids(self, pattern: tuple) -> np.ndarray:
        out = self._ids.get(pattern)
        if out is None:
            self._extend(pattern)
            out = self._ids[pattern]
        return out

    def parent_pos(self, pattern: tuple) -> np.ndarray:
        self.ids(pattern)
        return self._parent_pos[pattern]

    def cond(self, pattern: tuple) -> np.ndarray:
        self.ids(pattern)
        return self._cond[pattern]

    def _extend(self, pattern):
        prev = self.ids(pattern[:-1])
        d = pattern[-1]
        new_ids, ppos, cond = [], [], []
        for pos, pid in enumerate(prev):
            h = self.hand[pid]
            if not self.t.allowed[h, d]:
                continue
            outs = self.t.transitions(h, d)
            p = 1.0 / len(outs)
            base = self.prob[pid]
            for nh in outs:
                nid = len(self.hand)
                self.hand.append(int(nh))
                self.parent.append(int(pid))
                self.prob.append(base * p)
                new_ids.append(nid)
                ppos.append(pos)
                cond.append(p)
        self._ids[pattern] = np.array(new_ids, dtype=np.int64)
        self._parent_pos[pattern] = np.array(ppos, dtype=np.int64)
        self._cond[pattern] = np.array(cond, dtype=np.float64)
        self._np_hand = None
        self._np_prob = None

    def hand_arr(self) -> np.ndarray:
        if self._np_hand is None or len(self._np_hand) != len(self.hand):
            self._np_hand = np.array(self.hand, dtype=np.int64)
        return self._np_hand

    def prob_arr(self) -> np.ndarray:
        if self._np_prob is None or len(self._np_prob) != len(self.prob):
            self._np_prob = np.array(self.prob, dtype=np.float64)
        return self._np_prob

    def sequence(self, pid: int) -> tuple:
        """Full sequence of hands (tuple of sorted card tuples), oldest first."""
        s = self._seq_cache.get(pid)
        if s is None:
            hands = self.t.hands
            seq = []
            p = pid
            while p >= 0:
                seq.append(hands[self.hand[p]])
                p = self.parent[p]
            s = tuple(reversed(seq))
            self._seq_cache[pid] = s
        return s


# --------------------------------------------------------------------------
# Public tree
# --------------------------------------------------------------------------

class Node:
    __slots__ = ("id", "history", "kind", "player", "actions", "children",
                 "round", "contrib", "nbets", "pattern", "last", "folder")

    def __repr__(self):
        return (f"Node({self.id}, {self.history!r}, {self.kind}, p={self.player}, "
                f"a={self.actions}, contrib={self.contrib})")


def betting_actions(cfg: Config, r: int, contrib, nbets: int, actor: int) -> list:
    """Legal betting actions (public rule, independent of cards)."""
    to_call = max(contrib) - contrib[actor]
    if to_call > 1e-12:
        acts = ["f", "c"]
        if nbets < cfg.cap:
            acts.append("r")
    else:
        acts = ["k"]
        if nbets < cfg.cap:
            acts.append("r" if r == 0 else "b")
    return acts


class Game:
    """Public tree plus the (shared) private tree of the independent-deck model."""

    def __init__(self, cfg: Config):
        self.cfg = cfg
        self.tables = HandTables(cfg)
        self.priv = PrivateTree(self.tables)
        self.nodes: list[Node] = []
        self.by_history: dict[str, Node] = {}
        self._build_betting("", 0, (cfg.small_blind, cfg.big_blind), 1, BUTTON,
                            "", ((), ()), (None, None))

    # -- construction -----------------------------------------------------
    def _new(self, history, kind, player, rnd, contrib, nbets, pattern, last):
        n = Node()
        n.id = len(self.nodes)
        n.history = history
        n.kind = kind
        n.player = player
        n.actions = []
        n.children = []
        n.round = rnd
        n.contrib = tuple(contrib)
        n.nbets = nbets
        n.pattern = pattern
        n.last = last
        n.folder = None
        self.nodes.append(n)
        if kind in ("bet", "draw"):
            if history in self.by_history:
                raise AssertionError(f"duplicate decision history {history!r}")
            self.by_history[history] = n
        return n

    def _build_betting(self, hist, r, contrib, nbets, actor, round_hist, pattern, last):
        cfg = self.cfg
        node = self._new(hist, "bet", actor, r, contrib, nbets, pattern, last)
        node.actions = betting_actions(cfg, r, contrib, nbets, actor)
        opp = 1 - actor
        for ai, a in enumerate(node.actions):
            nl = list(last)
            nl[actor] = (node.id, ai)
            nl = tuple(nl)
            h2 = hist + a
            c2 = list(contrib)
            if a == "f":
                ch = self._new(h2, "fold", None, r, contrib, nbets, pattern, nl)
                ch.folder = actor
            elif a == "c":
                c2[actor] = max(contrib)
                if r == 0 and round_hist == "":
                    # the button's limp: the big blind gets his option
                    ch = self._build_betting(h2, r, c2, nbets, opp, round_hist + a, pattern, nl)
                else:
                    ch = self._end_round(h2, r, c2, pattern, nl)
            elif a == "k":
                if r > 0 and actor == BIG_BLIND and round_hist == "":
                    ch = self._build_betting(h2, r, c2, nbets, opp, round_hist + a, pattern, nl)
                else:
                    ch = self._end_round(h2, r, c2, pattern, nl)
            elif a in ("b", "r"):
                c2[actor] = max(contrib) + cfg.bets[r]
                ch = self._build_betting(h2, r, c2, nbets + 1, opp, round_hist + a, pattern, nl)
            else:  # pragma: no cover
                raise AssertionError(a)
            node.children.append(ch)
        return node

    def _end_round(self, hist, r, contrib, pattern, last):
        if r == self.cfg.draws:
            return self._new(hist, "showdown", None, r, contrib, 0, pattern, last)
        return self._build_draw(hist + "/", r, contrib, BIG_BLIND, pattern, last)

    def _build_draw(self, hist, r, contrib, actor, pattern, last):
        node = self._new(hist, "draw", actor, r, contrib, 0, pattern, last)
        pv = self.priv
        for d in range(self.cfg.hand_size + 1):
            newpat = list(pattern)
            newpat[actor] = pattern[actor] + (d,)
            newpat = tuple(newpat)
            if len(pv.ids(newpat[actor])) == 0:
                continue  # no hand can draw d here
            ai = len(node.actions)
            node.actions.append(str(d))
            nl = list(last)
            nl[actor] = (node.id, ai)
            nl = tuple(nl)
            if actor == BIG_BLIND:
                ch = self._build_draw(hist + str(d), r, contrib, BUTTON, newpat, nl)
            else:
                ch = self._build_betting(hist + str(d) + "/", r + 1, contrib, 0, BIG_BLIND,
                                         "", newpat, nl)
            node.children.append(ch)
        return node

    # -- helpers ------------------------------------------------------------
    def ids(self, node: Node, seat: int) -> np.ndarray:
        return self.priv.ids(node.pattern[seat])

    def legal_mask(self, node: Node) -> np.ndarray:
        """(n_private, n_actions) legality for the acting seat at a decision node."""
        ids = self.ids(node, node.player)
        if node.kind == "bet":
            return np.ones((len(ids), len(node.actions)), dtype=bool)
        hands = self.priv.hand_arr()[ids]
        ds = [int(a) for a in node.actions]
        return self.tables.allowed[hands][:, ds]

    def last_positions(self, node: Node, seat: int):
        """For each private node of ``seat`` at ``node``: (decision node id, action index,
        position of the private prefix at that decision node), or None if the seat has
        not acted yet."""
        last = node.last[seat]
        if last is None:
            return None
        mid, ai = last
        m = self.nodes[mid]
        pn, pm = node.pattern[seat], m.pattern[seat]
        if pn == pm:
            pos = np.arange(len(self.priv.ids(pn)), dtype=np.int64)
        else:
            assert len(pn) == len(pm) + 1 and pn[:-1] == pm
            pos = self.priv.parent_pos(pn)
        return mid, ai, pos

    def terminal_payoff_button(self, node: Node) -> float:
        """Payoff to the button at a fold terminal."""
        assert node.kind == "fold"
        if node.folder == BUTTON:
            return -node.contrib[BUTTON]
        return node.contrib[BIG_BLIND]

    def decision_nodes(self):
        return [n for n in self.nodes if n.kind in ("bet", "draw")]

    def terminals(self):
        return [n for n in self.nodes if n.kind in ("fold", "showdown")]


@lru_cache(maxsize=16)
def _game_cached(key) -> Game:
    return Game(Config(*key))


def get_game(ranks, suits, hand_size, draws, cap, bets, small_blind=0.5, big_blind=1.0) -> Game:
    cfg = Config(ranks, suits, hand_size, draws, cap, bets, small_blind, big_blind)
    return _game_cached(cfg.key())


# --------------------------------------------------------------------------
# Sequence-form LP
# --------------------------------------------------------------------------

class _SeqIndex:
    """Sequence numbering of one seat: seq[node_id] = (n_private, n_actions) int array
    (-1 where the action is illegal); 0 is the empty sequence."""

    def __init__(self, game: Game, seat: int):
        self.seat = seat
        self.seq = {}
        self.parent = {}
        n = 1
        for node in game.decision_nodes():
            if node.player != seat:
                continue
            legal = game.legal_mask(node)
            arr = np.full(legal.shape, -1, dtype=np.int64)
            k = int(legal.sum())
            arr[legal] = np.arange(n, n + k)
            n += k
            self.seq[node.id] = arr
        self.n = n
        for node in game.decision_nodes():
            if node.player == seat:
                self.parent[node.id] = self.parent_seq(game, node)

    def parent_seq(self, game: Game, node: Node) -> np.ndarray:
        """Seat's last sequence before ``node`` for each of its private nodes there."""
        n_priv = len(game.ids(node, self.seat))
        lp = game.last_positions(node, self.seat)
        if lp is None:
            return np.zeros(n_priv, dtype=np.int64)
        mid, ai, pos = lp
        out = self.seq[mid][pos, ai]
        assert (out >= 0).all()
        return out


def _build_lp(game: Game, factored: bool = True):
    tb, pv = game.tables, game.priv
    cls = tb.cls
    K = tb.n_classes
    X = _SeqIndex(game, BUTTON)
    Y = _SeqIndex(game, BIG_BLIND)
    pid_hand = pv.hand_arr
    prob = pv.prob_arr

    # variable layout: [x (X.n) | q_root, q_infosets (BB) | aux]
    nx = X.n
    q_root = nx
    q_index = {}
    nv = nx + 1
    for node in game.decision_nodes():
        if node.player == BIG_BLIND:
            k = len(game.ids(node, BIG_BLIND))
            q_index[node.id] = np.arange(nv, nv + k)
            nv += k

    eq_r, eq_c, eq_v = [np.array([0])], [np.array([0])], [np.array([1.0])]
    b_eq = [1.0]
    n_eq = 1
    ub_r, ub_c, ub_v = [np.array([0])], [np.array([q_root])], [np.array([1.0])]

    # button realization constraints
    for node in game.decision_nodes():
        if node.player != BUTTON:
            continue
        arr = X.seq[node.id]
        par = X.parent[node.id]
        npriv, na = arr.shape
        rows = n_eq + np.arange(npriv)
        legal = arr >= 0
        rr = np.repeat(rows[:, None], na, axis=1)[legal]
        eq_r += [rr, rows]
        eq_c += [arr[legal], par]
        eq_v += [np.ones(len(rr)), -np.ones(npriv)]
        b_eq += [0.0] * npriv
        n_eq += npriv

    # dual (F^T q) part of the BB-sequence constraints
    for node in game.decision_nodes():
        if node.player != BIG_BLIND:
            continue
        arr = Y.seq[node.id]
        par = Y.parent[node.id]
        qi = q_index[node.id]
        legal = arr >= 0
        qq = np.repeat(qi[:, None], arr.shape[1], axis=1)[legal]
        ub_r += [arr[legal], par]
        ub_c += [qq, qi]
        ub_v += [np.ones(len(qq)), -np.ones(len(qi))]

    # payoff part: - (A^T x)_sigma
    for z in game.terminals():
        ids0 = game.ids(z, BUTTON)
        ids1 = game.ids(z, BIG_BLIND)
        par0 = X.parent_seq(game, z)
        par1 = Y.parent_seq(game, z)
        p0 = prob()[ids0]
        p1 = prob()[ids1]
        if z.kind == "fold":
            u = game.terminal_payoff_button(z)
        else:
            assert abs(z.contrib[0] - z.contrib[1]) < 1e-12
            C = z.contrib[0]
            c0 = cls[pid_hand()[ids0]]
            c1 = cls[pid_hand()[ids1]]
        if not factored:
            J0, J1 = np.meshgrid(np.arange(len(ids0)), np.arange(len(ids1)), indexing="ij")
            J0, J1 = J0.ravel(), J1.ravel()
            if z.kind == "fold":
                val = u * p0[J0] * p1[J1]
            else:
                val = C * np.sign(c0[J0] - c1[J1]) * p0[J0] * p1[J1]
            ub_r.append(par1[J1])
            ub_c.append(par0[J0])
            ub_v.append(-val)
            continue
        if z.kind == "fold":
            R = nv
            nv += 1
            # R - sum_j p0_j x_{par0_j} = 0
            eq_r += [np.array([n_eq]), np.full(len(ids0), n_eq)]
            eq_c += [np.array([R]), par0]
            eq_v += [np.array([1.0]), -p0]
            b_eq.append(0.0)
            n_eq += 1
            ub_r.append(par1)
            ub_c.append(np.full(len(ids1), R))
            ub_v.append(-u * p1)
        else:
            L = nv + np.arange(K)  # L[k] = button mass with class <= k
            nv += K
            rows = n_eq + np.arange(K)
            eq_r += [rows, rows[1:], rows[c0]]
            eq_c += [L, L[:-1], par0]
            eq_v += [np.ones(K), -np.ones(K - 1), -p0]
            b_eq += [0.0] * K
            n_eq += K
            # button payoff vs BB seq with class c1:
            #   C*p1*(mass above c1 - mass below c1) = C*p1*(L[K-1] - L[c1] - L[c1-1])
            w = C * p1
            ub_r += [par1, par1]
            ub_c += [np.full(len(ids1), L[K - 1]), L[c1]]
            ub_v += [-w, w]
            m = c1 >= 1
            ub_r.append(par1[m])
            ub_c.append(L[c1[m] - 1])
            ub_v.append(w[m])

    A_eq = sp.csr_matrix((np.concatenate(eq_v), (np.concatenate(eq_r), np.concatenate(eq_c))),
                         shape=(n_eq, nv))
    A_ub = sp.csr_matrix((np.concatenate(ub_v), (np.concatenate(ub_r), np.concatenate(ub_c))),
                         shape=(Y.n, nv))
    c = np.zeros(nv)
    c[q_root] = -1.0
    lb = np.full(nv, -np.inf)
    lb[:nx] = 0.0
    bounds = np.stack([lb, np.full(nv, np.inf)], axis=1)
    return dict(c=c, A_ub=A_ub, b_ub=np.zeros(Y.n), A_eq=A_eq, b_eq=np.array(b_eq),
                bounds=bounds, X=X, Y=Y, nx=nx)


class SequencePolicy:
    """Behaviour strategies of both seats from realization plans.

    ``policy(seat, history, hand)``:
      * ``hand`` a tuple of card ints (current hand): the strategy averaged over
        the seat's past private hands, weighted by the seat's own reach times
        chance (equivalent in this model; see module docs);
      * ``hand`` a tuple of hands (full private sequence, oldest first): the
        exact perfect-recall behaviour strategy.
    """

    def __init__(self, game: Game, plans, indices):
        self.game = game
        self.tables = {}  # node id -> (n_private, n_actions) behaviour
        self.reach = {}   # node id -> own reach * chance, per private node
        self._marg = {}
        self._seq_lookup = {}
        for seat in (BUTTON, BIG_BLIND):
            r = np.clip(plans[seat], 0.0, None)
            S = indices[seat]
            for nid, arr in S.seq.items():
                node = game.nodes[nid]
                legal = arr >= 0
                par = S.parent[nid]
                reach = r[par]
                vals = np.where(legal, r[np.where(legal, arr, 0)], 0.0)
                tot = vals.sum(axis=1)
                beh = np.where(legal, 1.0, 0.0) / legal.sum(axis=1, keepdims=True)
                ok = tot > 1e-14
                beh[ok] = vals[ok] / tot[ok, None]
                self.tables[nid] = beh
                self.reach[nid] = reach * game.priv.prob_arr()[game.ids(node, seat)]

    def _node(self, seat, history):
        node = self.game.by_history.get(history)
        if node is None or node.player != seat:
            raise KeyError(f"no decision of seat {seat} at {history!r}")
        return node

    def by_sequence(self, seat, history, seq):
        node = self._node(seat, history)
        lk = self._seq_lookup.get(node.id)
        if lk is None:
            ids = self.game.ids(node, seat)
            lk = {self.game.priv.sequence(int(p)): j for j, p in enumerate(ids)}
            self._seq_lookup[node.id] = lk
        j = lk[tuple(tuple(h) for h in seq)]
        return {a: float(p) for a, p in zip(node.actions, self.tables[node.id][j]) if p > 0}

    def by_hand(self, seat, history, hand):
        node = self._node(seat, history)
        mt = self._marg.get(node.id)
        if mt is None:
            g = self.game
            ids = g.ids(node, seat)
            hidx = g.priv.hand_arr()[ids]
            nh = len(g.tables.hands)
            beh = self.tables[node.id]
            w = self.reach[node.id]
            num = np.zeros((nh, beh.shape[1]))
            np.add.at(num, hidx, beh * w[:, None])
            den = np.bincount(hidx, weights=w, minlength=nh)
            cnt = np.bincount(hidx, minlength=nh)
            fallback = np.zeros((nh, beh.shape[1]))
            np.add.at(fallback, hidx, beh)
            mt = np.zeros_like(num)
            ok = den > 1e-300
            mt[ok] = num[ok] / den[ok, None]
            nz = (~ok) & (cnt > 0)
            mt[nz] = fallback[nz] / cnt[nz, None]
            self._marg[node.id] = mt
        h = self.game.tables.index[tuple(sorted(hand))]
        return {a: float(p) for a, p in zip(node.actions, mt[h]) if p > 0}

    def __call__(self, seat, history, hand):
        hand = tuple(hand)
        if hand and isinstance(hand[0], (tuple, list)):
            return self.by_sequence(seat, history, hand)
        return self.by_hand(seat, history, hand)


def solve_lp(ranks, suits, hand_size, draws, cap, bets, small_blind=0.5, big_blind=1.0,
             return_policy=False, factored=True, verbose=False, tol=1e-10,
             method="highs"):
    """Exact value (big blinds, for the button) of the game via the sequence-form LP.

    The LP (button maximizes):  max q_root  s.t.  E x = e, x >= 0,
    F^T q - A^T x <= 0 (one row per big-blind sequence).  Terminal payoffs are
    factored through auxiliary variables (per public terminal: the button's
    reach mass, or its cumulative mass per value class at a showdown), which is
    exact and keeps the matrix linear in the number of sequences.  With
    ``factored=False`` the payoff matrix A is built pair by pair instead
    (entries only between sequences ending at the same public terminal).

    Returns the value, or (value, SequencePolicy) if ``return_policy``; the big
    blind's plan comes from the duals of the sequence constraints.  ``method`` is
    passed to linprog ("highs" = HiGHS's choice, usually dual simplex;
    "highs-ipm" is 2-5x faster on the larger single-draw games)."""
    t0 = time.perf_counter()
    game = get_game(ranks, suits, hand_size, draws, cap, bets, small_blind, big_blind)
    lp = _build_lp(game, factored=factored)
    t1 = time.perf_counter()
    opts = dict(primal_feasibility_tolerance=tol, dual_feasibility_tolerance=tol)
    res = linprog(lp["c"], A_ub=lp["A_ub"], b_ub=lp["b_ub"], A_eq=lp["A_eq"], b_eq=lp["b_eq"],
                  bounds=lp["bounds"], method=method, options=opts)
    t2 = time.perf_counter()
    if res.status != 0:
        raise RuntimeError(f"LP failed: {res.message}")
    value = -float(res.fun)
    if verbose:
        print(f"LP {game.cfg.key()}: vars={lp['c'].size} eq={lp['A_eq'].shape[0]} "
              f"ub={lp['A_ub'].shape[0]} nnz={lp['A_eq'].nnz + lp['A_ub'].nnz} "
              f"build={t1 - t0:.2f}s solve={t2 - t1:.2f}s value={value!r}")
    if not return_policy:
        return value
    x = res.x[:lp["nx"]]
    y = -np.asarray(res.ineqlin.marginals)
    pol = SequencePolicy(game, (x, y), (lp["X"], lp["Y"]))
    return value, pol


# --------------------------------------------------------------------------
# Best response / policy evaluation over the explicit tree
# --------------------------------------------------------------------------

def _policy_tables(game: Game, seat: int, policy, sequence: bool):
    """node id -> (n_private, n_actions) probabilities of ``policy`` for ``seat``."""
    pv, hands = game.priv, game.tables.hands
    out = {}
    for node in game.decision_nodes():
        if node.player != seat:
            continue
        ids = game.ids(node, seat)
        legal = game.legal_mask(node)
        tab = np.zeros(legal.shape)
        for j, pid in enumerate(ids):
            pid = int(pid)
            arg = pv.sequence(pid) if sequence else hands[pv.hand[pid]]
            dist = policy(seat, node.history, arg)
            for a, p in dist.items():
                p = float(p)
                if p == 0.0:
                    continue
                try:
                    ai = node.actions.index(str(a))
                except ValueError:
                    ai = -1
                if ai < 0 or not legal[j, ai]:
                    raise ValueError(f"policy gives illegal action {a!r} prob {p} at seat {seat} "
                                     f"history {node.history!r} hand {arg}")
                if p < 0:
                    raise ValueError("negative probability")
                tab[j, ai] += p
            s = tab[j].sum()
            if abs(s - 1.0) > 1e-6:
                raise ValueError(f"policy probabilities sum to {s} at seat {seat} "
                                 f"history {node.history!r} hand {arg}")
            tab[j] /= s
        out[node.id] = tab
    return out


def _evaluate(game: Game, me: int, opp_tab, my_tab=None) -> float:
    """Value for seat ``me``: best response (my_tab None) or on-policy (my_tab given)
    against the opponent's tables.  Vectorized over both seats' private nodes."""
    pv, tb = game.priv, game.tables
    opp = 1 - me
    cls = tb.cls
    K = tb.n_classes
    hand_of = pv.hand_arr()
    nodes = game.nodes

    def rec(node, w):
        my_ids = game.ids(node, me)
        if node.kind == "fold":
            u = -node.contrib[me] if node.folder == me else node.contrib[opp]
            return np.full(len(my_ids), u * w.sum())
        if node.kind == "showdown":
            C = node.contrib[me]
            opp_ids = game.ids(node, opp)
            hist = np.bincount(cls[hand_of[opp_ids]], weights=w, minlength=K)
            cum = np.cumsum(hist)
            tot = cum[-1] if K else 0.0
            below = np.concatenate([[0.0], cum[:-1]])
            above = tot - cum
            mc = cls[hand_of[my_ids]]
            return C * (below[mc] - above[mc])
        if w.sum() <= 0.0:
            return np.zeros(len(my_ids))
        if node.player == opp:
            P = opp_tab[node.id]
            V = np.zeros(len(my_ids))
            for ai, ch in enumerate(node.children):
                wa = w * P[:, ai]
                if node.kind == "draw":
                    pat = ch.pattern[opp]
                    wa = wa[pv.parent_pos(pat)] * pv.cond(pat)
                V += rec(ch, wa)
            return V
        # my decision
        vals = []
        legal = game.legal_mask(node)
        for ai, ch in enumerate(node.children):
            Vc = rec(ch, w)
            if node.kind == "draw":
                pat = ch.pattern[me]
                Vc = np.bincount(pv.parent_pos(pat), weights=Vc * pv.cond(pat),
                                 minlength=len(my_ids))
            vals.append(Vc)
        vals = np.stack(vals, axis=1)
        if my_tab is None:
            return np.where(legal, vals, -np.inf).max(axis=1)
        return (my_tab[node.id] * vals).sum(axis=1)

    root = nodes[0]
    w0 = pv.prob_arr()[game.ids(root, opp)]
    V = rec(root, w0)
    return float((pv.prob_arr()[game.ids(root, me)] * V).sum())


def best_response_values(ranks, suits, hand_size, draws, cap, bets, policy,
                         small_blind=0.5, big_blind=1.0, sequence_policy=False):
    """(br_button, br_bigblind, value_button) for ``policy(seat, history, hand)``.

    br_button: the button's best-response value (perfect recall) against the big
    blind's policy; br_bigblind: the big blind's best-response value (for the big
    blind) against the button's policy; value_button: the button's value when both
    follow the policy.  Exploitability = (br_button + br_bigblind) / 2.

    ``hand`` is the seat's current hand as a sorted tuple of card ints; with
    ``sequence_policy=True`` it is instead the full tuple of the seat's hands so far
    (oldest first), allowing perfect-recall policies."""
    game = get_game(ranks, suits, hand_size, draws, cap, bets, small_blind, big_blind)
    t0 = _policy_tables(game, BUTTON, policy, sequence_policy)
    t1 = _policy_tables(game, BIG_BLIND, policy, sequence_policy)
    br_button = _evaluate(game, BUTTON, t1)
    br_bigblind = _evaluate(game, BIG_BLIND, t0)
    value_button = _evaluate(game, BUTTON, t1, t0)
    return br_button, br_bigblind, value_button


def exploitability(ranks, suits, hand_size, draws, cap, bets, policy, **kw) -> float:
    b0, b1, _ = best_response_values(ranks, suits, hand_size, draws, cap, bets, policy, **kw)
    return 0.5 * (b0 + b1)


def legal_actions(ranks, suits, hand_size, draws, cap, bets, history, hand,
                  small_blind=0.5, big_blind=1.0) -> list:
    """Legal actions of the seat to act at decision point ``history`` holding ``hand``."""
    game = get_game(ranks, suits, hand_size, draws, cap, bets, small_blind, big_blind)
    node = game.by_history[history]
    if node.kind == "bet":
        return list(node.actions)
    allowed = allowed_draws(tuple(sorted(hand)), suits, hand_size)
    return [a for a in node.actions if int(a) in allowed]


def make_uniform_policy(ranks, suits, hand_size, draws, cap, bets, small_blind=0.5, big_blind=1.0):
    def pol(seat, history, hand):
        acts = legal_actions(ranks, suits, hand_size, draws, cap, bets, history, hand,
                             small_blind, big_blind)
        return {a: 1.0 / len(acts) for a in acts}
    return pol


# --------------------------------------------------------------------------
# Explicit (non-factored) enumeration, for cross-checks on tiny games
# --------------------------------------------------------------------------

def explicit_value(ranks, suits, hand_size, draws, cap, bets, policy0, policy1,
                   small_blind=0.5, big_blind=1.0) -> float:
    """Button's expected value by plain enumeration of the full game tree with both
    players' real cards (deal every pair of hands, every draw outcome).  Policies
    take (seat, history, current hand).  Exponential: tiny games only."""
    game = get_game(ranks, suits, hand_size, draws, cap, bets, small_blind, big_blind)
    deck = list(range(ranks * suits))
    pols = (policy0, policy1)

    def rec(node, hands):
        if node.kind == "fold":
            return -node.contrib[0] if node.folder == 0 else node.contrib[1]
        if node.kind == "showdown":
            v0, v1 = hand_value(hands[0], suits), hand_value(hands[1], suits)
            return node.contrib[0] * ((v0 > v1) - (v0 < v1))
        s = node.player
        dist = pols[s](s, node.history, hands[s])
        tot = 0.0
        for a, p in dist.items():
            if p == 0:
                continue
            ch = node.children[node.actions.index(a)]
            if node.kind == "bet":
                tot += p * rec(ch, hands)
            else:
                d = int(a)
                if d == 0:
                    tot += p * rec(ch, hands)
                    continue
                kept = kept_cards(hands[s], d, suits)
                rest = [c for c in deck if c not in kept]
                outs = list(itertools.combinations(rest, d))
                acc = 0.0
                for new in outs:
                    nh = list(hands)
                    nh[s] = tuple(sorted(kept + new))
                    acc += rec(ch, tuple(nh))
                tot += p * acc / len(outs)
        return tot

    all_hands = list(itertools.combinations(deck, hand_size))
    tot = 0.0
    for h0 in all_hands:
        for h1 in all_hands:
            tot += rec(game.nodes[0], (h0, h1))
    return tot / len(all_hands) ** 2


def normal_form_value(ranks, suits, hand_size, cap, bets, small_blind=0.5, big_blind=1.0):
    """Game value for draws=0 by enumerating pure strategies (normal form) and solving
    the matrix game with an LP.  Tiny games only (independent of the sequence form)."""
    game = get_game(ranks, suits, hand_size, 0, cap, bets, small_blind, big_blind)
    deck = list(range(ranks * suits))
    hands = list(itertools.combinations(deck, hand_size))
    infosets = ([], [])
    for node in game.decision_nodes():
        for h in hands:
            infosets[node.player].append((node.history, h, node.actions))
    pure = []
    for s in (0, 1):
        choices = [acts for (_, _, acts) in infosets[s]]
        keys = [(hist, h) for (hist, h, _) in infosets[s]]
        pure.append([dict(zip(keys, combo)) for combo in itertools.product(*choices)])
    if len(pure[0]) * len(pure[1]) > 200000:
        raise ValueError("normal form too large")

    def value(s0, s1):
        strat = (s0, s1)

        def rec(node, hh):
            if node.kind == "fold":
                return -node.contrib[0] if node.folder == 0 else node.contrib[1]
            if node.kind == "showdown":
                v0, v1 = hand_value(hh[0], suits), hand_value(hh[1], suits)
                return node.contrib[0] * ((v0 > v1) - (v0 < v1))
            a = strat[node.player][(node.history, hh[node.player])]
            return rec(node.children[node.actions.index(a)], hh)

        return sum(rec(game.nodes[0], (h0, h1)) for h0 in hands for h1 in hands) / len(hands) ** 2

    A = np.array([[value(a, b) for b in pure[1]] for a in pure[0]])
    m, n = A.shape
    # max v s.t. A^T p >= v, sum p = 1, p >= 0
    c = np.zeros(m + 1)
    c[-1] = -1.0
    A_ub = np.hstack([-A.T, np.ones((n, 1))])
    res = linprog(c, A_ub=A_ub, b_ub=np.zeros(n), A_eq=np.hstack([np.ones((1, m)), [[0.0]]]),
                  b_eq=[1.0], bounds=[(0, None)] * m + [(None, None)], method="highs")
    assert res.status == 0
    return -float(res.fun)


def lp_size(ranks, suits, hand_size, draws, cap, bets, small_blind=0.5, big_blind=1.0) -> dict:
    game = get_game(ranks, suits, hand_size, draws, cap, bets, small_blind, big_blind)
    lp = _build_lp(game)
    return dict(variables=lp["c"].size, eq_rows=lp["A_eq"].shape[0], ub_rows=lp["A_ub"].shape[0],
                nnz=lp["A_eq"].nnz + lp["A_ub"].nnz, button_sequences=lp["X"].n,
                bigblind_sequences=lp["Y"].n, public_nodes=len(game.nodes))
