"""Betting rounds as templates: the public tree generated round by round, and public-history keys.

Every betting round after the first starts the same way (both seats have put
in the same amount, the big blind acts first, no bet yet), so the public tree
is a handful of small round *templates* glued by draws: a round's template is
the betting tree of that one round, its leaves are folds and *outcomes* (the
round ends without a fold: a draw follows, or the showdown). Contributions in
a template are relative to the round's start (the first round's include the
blinds).

Each node of the public tree has a *phase* within its round:

- ``0 .. T-1``: a betting position of the round's template (``T`` positions);
- ``T + o``: the big blind's draw after outcome ``o``;
- ``T + O + o * (H + 1) + d``: the button's draw after outcome ``o`` when the
  big blind drew ``d`` (``O`` outcomes, ``H`` cards a hand).

A node's public history is then: the round, the contribution at the round's
start (the *pot level*), one *round record* per earlier round (its outcome
and both draw counts, ``o * (H + 1)^2 + d_bb * (H + 1) + d_button``) and the
phase. :func:`expand` generates trees from templates in the order of the
recursive builder (children of a node allocated together, then each child's
subtree, depth first), with those annotations.

>>> templates = RoundTemplates.of(load_preset("single-draw"))
>>> [t.n_positions for t in templates.rounds], [t.n_outcomes for t in templates.rounds]
([8, 10], [7, 9])
>>> templates.pot_levels
[[0.0], [1.0, 2.0, 3.0, 4.0]]
>>> templates.n_phases(0), templates.n_phases(1)   # 8 + 7 + 7 * 5 phases; the last round bets only
(50, 10)
>>> templates.count_nodes()
4782
"""

from __future__ import annotations

from collections import namedtuple
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numba import njit

from .codes import BET, BIG_BLIND, BUTTON, CONTINUE, DRAW, FOLD, SHOWDOWN  # noqa: F401  (read from here too)
from .config import GameConfig, load_preset  # noqa: F401  (load_preset: doctest)

# The rounds' templates as :func:`expand` reads them (:attr:`RoundTemplates.arrays`), padded to the
# widest round: per (round, position) the seat to act, per (round, position, action) its label,
# kind, target (next position, outcome or folder) and contributions, positions and outcomes per
# round, and the contributions at the first round's start.
TemplateArrays = namedtuple("TemplateArrays", "seat label kind target contrib n_pos n_out start_contrib")
# A generated tree's node arrays, filled by :func:`expand` (the fields of
# ``solver.game.tree.PublicTree``).
TreeNodes = namedtuple("TreeNodes", "kind seat round contrib parent action first_child n_children phase pot records")


def _child_specs(cfg: GameConfig, state):
    """Children of a betting state within its round: (label, kind, seat, contrib, next state or None).

    A state is (round, contrib, to_act, n_bets, facing). ``kind`` is BET (the
    round goes on), FOLD, or CONTINUE (the round ends: a draw or the showdown).
    """
    rnd, contrib, to_act, n_bets, facing = state
    other = 1 - to_act
    bet_size = cfg.bets[rnd]

    def put(amount_to, extra):
        new = list(contrib)
        new[to_act] = amount_to + extra
        return tuple(new)

    def bet(new_contrib, label, nxt):
        return (label, BET, nxt[2], new_contrib, nxt)

    if facing:
        yield ("f", FOLD, to_act, contrib, None)
        called = put(contrib[other], 0.0)
        if rnd == 0 and n_bets == 1 and to_act == BUTTON:
            # The button's limp: the big blind still has the option.
            yield bet(called, "c", (rnd, called, BIG_BLIND, 1, False))
        else:
            yield ("c", CONTINUE, -1, called, None)
        if n_bets < cfg.cap:
            raised = put(contrib[other], bet_size)
            yield bet(raised, "r", (rnd, raised, other, n_bets + 1, True))
        return
    # Not facing a bet: check, or bet (a raise when the blind counts as a bet).
    if to_act == BUTTON or rnd == 0:
        yield ("k", CONTINUE, -1, contrib, None)
    else:
        yield bet(contrib, "k", (rnd, contrib, BUTTON, 0, False))
    if n_bets < cfg.cap:
        raised = put(contrib[other], bet_size)
        yield bet(raised, "b" if n_bets == 0 else "r", (rnd, raised, other, n_bets + 1, True))


def round_start(cfg: GameConfig, rnd: int):
    """The first betting state of a round, contributions relative to the round's start."""
    if rnd == 0:
        return (0, (cfg.small_blind, cfg.big_blind), BUTTON, 1, True)
    return (rnd, (0.0, 0.0), BIG_BLIND, 0, False)


@dataclass(frozen=True)
class RoundTemplate:
    """The betting tree of one round (positions numbered depth first, the first decision 0)."""

    round: int
    seat: np.ndarray      # (T,) int8: who acts at each position
    label: np.ndarray     # (T, A) uint8: action labels (0 past the position's actions)
    kind: np.ndarray      # (T, A) int8: BET (target: a position), FOLD (target: the folder), CONTINUE (target: outcome)
    target: np.ndarray    # (T, A) int64
    contrib: np.ndarray   # (T, A, 2) float64: both seats' contributions in this round after the action
    start_contrib: tuple  # contributions at the first position (the blinds in round 0)

    @property
    def n_positions(self) -> int:
        return len(self.seat)

    @property
    def n_actions(self) -> np.ndarray:
        return (self.label > 0).sum(axis=1).astype(np.int8)

    @property
    def n_outcomes(self) -> int:
        return int(self.target[self.kind == CONTINUE].max()) + 1

    @cached_property
    def position_contrib(self) -> np.ndarray:
        """(T, 2) both seats' contributions in this round at each position (the blinds at round 0's first)."""
        out = np.zeros((self.n_positions, 2))
        out[0] = self.start_contrib
        betting = self.kind == BET
        out[self.target[betting]] = self.contrib[betting]
        return out

    @cached_property
    def outcome_contrib(self) -> np.ndarray:
        """(O,) what each seat has put in this round when it ends with outcome o."""
        out = np.zeros(self.n_outcomes)
        out[self.target[self.kind == CONTINUE]] = self.contrib[self.kind == CONTINUE][:, 0]
        return out

    @classmethod
    def build(cls, cfg: GameConfig, rnd: int) -> "RoundTemplate":
        outcomes, rows = 0, []
        order = [round_start(cfg, rnd)]
        stack = [0]
        while stack:  # depth first, children in action order: a position comes before its children
            position = stack.pop()
            state = order[position]
            row, children = [], []
            for label, kind, _, contrib, nxt in _child_specs(cfg, state):
                if kind == BET:
                    target = len(order)
                    order.append(nxt)
                    children.append(target)
                elif kind == FOLD:
                    target = state[2]
                else:
                    target = outcomes
                    outcomes += 1
                row.append((label, kind, target, contrib))
            rows.append((position, row))
            stack.extend(reversed(children))
        n, width = len(order), max(len(r) for _, r in rows)
        seat = np.array([s[2] for s in order], dtype=np.int8)
        label = np.zeros((n, width), np.uint8)
        kind = np.full((n, width), -1, np.int8)
        target = np.full((n, width), -1, np.int64)
        contrib = np.zeros((n, width, 2))
        for t, row in rows:
            for a, (lab, k, tgt, c) in enumerate(row):
                label[t, a], kind[t, a], target[t, a], contrib[t, a] = ord(lab), k, tgt, c
        return cls(rnd, seat, label, kind, target, contrib, round_start(cfg, rnd)[1])


@dataclass(frozen=True)
class RoundTemplates:
    """The templates of every round of a game, its pot levels, and arrays for the kernels."""

    config: GameConfig
    rounds: tuple

    @classmethod
    def of(cls, config: GameConfig) -> "RoundTemplates":
        return cls(config, tuple(RoundTemplate.build(config, r) for r in range(config.rounds)))

    @property
    def outcomes_max(self) -> int:
        return max(t.n_outcomes for t in self.rounds)

    @property
    def record_radix(self) -> int:
        """Distinct round records (outcome and both draw counts) of any round."""
        return self.outcomes_max * (self.config.hand_size + 1) ** 2

    def n_phases(self, rnd: int) -> int:
        t = self.rounds[rnd]
        if rnd == self.config.draws:
            return t.n_positions
        return t.n_positions + t.n_outcomes * (self.config.hand_size + 2)

    @cached_property
    def pot_levels(self) -> list[list[float]]:
        """Per round, the contributions each seat may have made when the round starts (sorted)."""
        levels = [[0.0]]
        for r in range(1, self.config.rounds):
            prev = self.rounds[r - 1].outcome_contrib
            levels.append(sorted({round(float(c + d), 9) for c in levels[-1] for d in prev}))
        return levels

    def pot_index(self, rnd: int, pot: float) -> int:
        return self.pot_levels[rnd].index(round(float(pot), 9))

    @cached_property
    def arrays(self) -> TemplateArrays:
        """(seat (R, T), label (R, T, A), kind, target, contrib (R, T, A, 2), n_positions (R,),
        n_outcomes (R,), start contrib (2,)), padded to the widest round (:data:`TemplateArrays`)."""
        rounds = len(self.rounds)
        t_max = max(t.n_positions for t in self.rounds)
        a_max = max(t.label.shape[1] for t in self.rounds)
        seat = np.zeros((rounds, t_max), np.int64)
        label = np.zeros((rounds, t_max, a_max), np.uint8)
        kind = np.full((rounds, t_max, a_max), -1, np.int64)
        target = np.full((rounds, t_max, a_max), -1, np.int64)
        contrib = np.zeros((rounds, t_max, a_max, 2))
        for r, t in enumerate(self.rounds):
            n, a = t.label.shape
            seat[r, :n], label[r, :n, :a], kind[r, :n, :a] = t.seat, t.label, t.kind
            target[r, :n, :a], contrib[r, :n, :a] = t.target, t.contrib
        return TemplateArrays(seat, label, kind, target, contrib,
                              np.array([t.n_positions for t in self.rounds], np.int64),
                              np.array([t.n_outcomes for t in self.rounds], np.int64),
                              np.array(self.rounds[0].start_contrib, np.float64))

    def subtree_sizes(self, last_round: int | None = None) -> np.ndarray:
        """(R, T) nodes in the subtree of each betting position (itself included), rounds after
        ``last_round`` not expanded (their first position counts as one node)."""
        seat, label, kind, target, _, n_pos, _, _ = self.arrays
        last = self.config.draws if last_round is None else last_round
        return _subtree_sizes(label, kind, target, n_pos, self.config.draws, self.config.hand_size, last)

    def count_nodes(self, rnd: int = 0, last_round: int | None = None) -> int:
        """Nodes of the public tree below (and with) the first position of round ``rnd``."""
        return int(self.subtree_sizes(last_round)[rnd, 0])


@dataclass(frozen=True)
class Position:
    """A decision point located by its history, without a tree (see :meth:`RoundTemplates.locate`)."""

    round: int
    phase: int
    pot: float
    records: tuple       # the earlier rounds' records, latest first
    kind: int            # BET or DRAW
    seat: int
    labels: str          # its actions


def locate(templates: RoundTemplates, history: str) -> Position:
    """The decision point a history names (the notation of :mod:`solver.game.tree`); ValueError
    naming the first impossible step, or if the hand is over there."""
    if not isinstance(history, str):
        raise ValueError(f"history must be text, got {type(history).__name__}")
    config = templates.config
    h1 = config.hand_size + 1
    digits = "".join(str(d) for d in range(h1))
    rnd, phase, pot, records, done = 0, 0, 0.0, (), ""
    expected = ""  # the canonical history so far, separators included
    for char in history:
        if char == "/":
            done += char
            continue
        t = templates.rounds[rnd]
        labels = "".join(chr(x) for x in t.label[phase][:t.n_actions[phase]]) if phase < t.n_positions else digits
        a = labels.find(char)
        if a < 0:
            raise ValueError(f"history {history!r}: {char!r} is not possible after {done!r} (possible: {labels})")
        done += char
        expected += char
        if phase < t.n_positions:
            kind, target = int(t.kind[phase, a]), int(t.target[phase, a])
            if kind == BET:
                phase = target
            elif kind == FOLD or rnd == config.draws:
                rest = history[len(done):].strip("/")
                if rest:
                    raise ValueError(f"history {history!r}: {rest[0]!r} is not possible after {done!r} "
                                     "(the hand is over)")
                raise ValueError(f"history {history!r} ends the hand: there is no decision there")
            else:
                phase = t.n_positions + target
                expected += "/"
        elif phase < t.n_positions + t.n_outcomes:
            phase = t.n_positions + t.n_outcomes + (phase - t.n_positions) * h1 + a
        else:
            o, d_bb = divmod(phase - t.n_positions - t.n_outcomes, h1)
            records = ((o * h1 + d_bb) * h1 + a,) + records
            pot = pot + t.outcome_contrib[o] if rnd > 0 else t.outcome_contrib[o]
            rnd, phase = rnd + 1, 0
            expected += "/"
    if history not in (expected, expected.rstrip("/")) and history + "/" != expected:
        raise ValueError(f"history {history!r}: rounds are separated as in {expected!r}")
    t = templates.rounds[rnd]
    if phase < t.n_positions:
        labels = "".join(chr(x) for x in t.label[phase][:t.n_actions[phase]])
        return Position(rnd, phase, float(pot), records, BET, int(t.seat[phase]), labels)
    seat = BIG_BLIND if phase < t.n_positions + t.n_outcomes else BUTTON
    return Position(rnd, phase, float(pot), records, DRAW, seat, digits)


def stakes(templates: RoundTemplates, at: Position) -> tuple[float, float]:
    """(pot, to call) at a located decision: both seats' chips in the middle, and what the seat to
    act must put in to call (0 at a draw).

    >>> templates = RoundTemplates.of(load_preset("single-draw"))
    >>> stakes(templates, locate(templates, "")), stakes(templates, locate(templates, "rc/21/kb"))
    ((1.5, 0.5), (6.0, 2.0))
    """
    t = templates.rounds[at.round]
    if at.kind == DRAW:
        outcome = at.phase - t.n_positions
        if outcome >= t.n_outcomes:  # the button's draw: after outcome o and the big blind's count
            outcome = (outcome - t.n_outcomes) // (templates.config.hand_size + 1)
        return float(2 * (at.pot + t.outcome_contrib[outcome])), 0.0
    button, big_blind = t.position_contrib[at.phase]
    mine, theirs = (button, big_blind) if at.seat == BUTTON else (big_blind, button)
    return float(2 * at.pot + button + big_blind), float(theirs - mine)


@njit(cache=True)
def _subtree_sizes(label, kind, target, n_pos, draws, hand_size, last_round):
    rounds = label.shape[0]
    sizes = np.zeros(label.shape[:2], np.int64)
    below_draw = 0  # nodes under an outcome of the round after the current one
    for r in range(rounds - 1, -1, -1):
        if r > last_round:
            sizes[r, 0] = 1
            continue
        if r < draws:
            # The big blind's draw node, its hand_size + 1 button draws, each with the next round.
            below_draw = 1 + (hand_size + 1) * (1 + (hand_size + 1) * sizes[r + 1, 0])
        # Positions are numbered depth first, so children come after their parent.
        for t in range(n_pos[r] - 1, -1, -1):
            total = 1
            for a in range(label.shape[2]):
                if label[r, t, a] == 0:
                    break
                if kind[r, t, a] == BET:
                    total += sizes[r, target[r, t, a]]
                elif kind[r, t, a] == CONTINUE and r < draws:
                    total += below_draw
                else:
                    total += 1
            sizes[r, t] = total
    return sizes


@njit(cache=True)
def expand(templates, draws, hand_size, first_round, last_round, base, records_in, n_nodes, out):
    """Generate the public tree below the first position of ``first_round`` (contributions at its
    start ``base``, earlier round records ``records_in``) from the rounds' ``templates``
    (:data:`TemplateArrays`) into the node arrays ``out`` (:data:`TreeNodes`), in the builder's
    order; the first positions of rounds after ``last_round`` are left as leaves.
    ``out.records[node, k]`` is the record of the round ``k + 1`` before the node's (-1 if none);
    ``out.pot[node]`` the contribution at the start of the node's round."""
    seat_t, label_t, kind_t, target_t, contrib_t = (templates.seat, templates.label, templates.kind, templates.target,
                                                    templates.contrib)
    n_pos, n_out, start_contrib = templates.n_pos, templates.n_out, templates.start_contrib
    kind, seat, rnd, contrib, parent, action = out.kind, out.seat, out.round, out.contrib, out.parent, out.action
    first_child, n_children, phase, pot, records = out.first_child, out.n_children, out.phase, out.pot, out.records
    h1 = hand_size + 1
    n_rec = records.shape[1]
    # node 0: the round's first position
    kind[0] = BET
    seat[0] = seat_t[first_round, 0]
    rnd[0] = first_round
    if first_round == 0:
        contrib[0, 0] = start_contrib[0]
        contrib[0, 1] = start_contrib[1]
    else:
        contrib[0, 0] = base
        contrib[0, 1] = base
    parent[0] = -1
    action[0] = 94  # '^'
    phase[0] = 0
    pot[0] = base
    for k in range(n_rec):
        records[0, k] = records_in[k]
    used = 1
    stack = np.empty(n_nodes, np.int64)
    stack[0] = 0
    top = 1
    while top > 0:
        top -= 1
        node = stack[top]
        k_node = kind[node]
        if k_node == FOLD or k_node == SHOWDOWN or rnd[node] > last_round:
            first_child[node] = -1
            n_children[node] = 0
            continue
        r = rnd[node]
        p = phase[node]
        n_t = n_pos[r]
        first = used
        if k_node == BET:
            count = 0
            for a in range(label_t.shape[2]):
                if label_t[r, p, a] == 0:
                    break
                child = used
                used += 1
                count += 1
                parent[child] = node
                action[child] = label_t[r, p, a]
                rnd[child] = r
                pot[child] = pot[node]
                for k in range(n_rec):
                    records[child, k] = records[node, k]
                add = pot[node] if r > 0 else 0.0
                contrib[child, 0] = add + contrib_t[r, p, a, 0]
                contrib[child, 1] = add + contrib_t[r, p, a, 1]
                kk = kind_t[r, p, a]
                if kk == BET:
                    kind[child] = BET
                    phase[child] = target_t[r, p, a]
                    seat[child] = seat_t[r, target_t[r, p, a]]
                elif kk == FOLD:
                    kind[child] = FOLD
                    phase[child] = -1
                    seat[child] = target_t[r, p, a]
                    # a fold leaves the contributions as they were
                    contrib[child, 0] = contrib[node, 0]
                    contrib[child, 1] = contrib[node, 1]
                elif r < draws:
                    kind[child] = DRAW
                    phase[child] = n_t + target_t[r, p, a]
                    seat[child] = BIG_BLIND
                else:
                    kind[child] = SHOWDOWN
                    phase[child] = -1
                    seat[child] = -1
        else:
            count = hand_size + 1
            n_o = n_out[r]
            for d in range(count):
                child = used
                used += 1
                parent[child] = node
                action[child] = 48 + d  # '0' + d
                contrib[child, 0] = contrib[node, 0]
                contrib[child, 1] = contrib[node, 1]
                if p < n_t + n_o:
                    # the big blind drew d: the button's draw
                    kind[child] = DRAW
                    seat[child] = BUTTON
                    rnd[child] = r
                    phase[child] = n_t + n_o + (p - n_t) * h1 + d
                    pot[child] = pot[node]
                    for k in range(n_rec):
                        records[child, k] = records[node, k]
                else:
                    # the button drew d: the next round starts
                    q = p - n_t - n_o
                    o, d_bb = q // h1, q % h1
                    kind[child] = BET
                    seat[child] = seat_t[r + 1, 0]
                    rnd[child] = r + 1
                    phase[child] = 0
                    pot[child] = contrib[node, 0]
                    records[child, 0] = (o * h1 + d_bb) * h1 + d
                    for k in range(1, n_rec):
                        records[child, k] = records[node, k - 1]
        first_child[node] = first
        n_children[node] = count
        for c in range(first + count - 1, first - 1, -1):
            stack[top] = c
            top += 1
    return used
