"""Reach-weighted summaries of a strategy: what the charts and the compact CSVs show.

Hand classes are grouped by card count and top card ("badugi 7", "3-card 5",
...), strongest first. Every frequency is reach-weighted: the probability of
reaching a decision with a class, times the probability of the action, summed
and divided by the reach of the group. The same numbers can be recomputed from
``badugi export`` rows (the tests do).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from abstractions.cards import rank_name

from ..game.tree import DRAW, SEAT_NAMES
from .strategy import BET_COLUMNS, Strategy


def class_groups(strategy: Strategy) -> tuple[np.ndarray, list[str]]:
    """Group index of every value class (by card count, then top card) and the group labels."""
    ev = strategy.evaluator
    keys, group_of = [], np.empty(ev.n_values, dtype=np.int64)
    for v in range(ev.n_values):
        count = int(ev.value_card_count[v])
        top = ev.value_ranks(v)[0]
        key = (count, top)
        if not keys or keys[-1] != key:  # value classes are sorted, so groups are contiguous
            keys.append(key)
        group_of[v] = len(keys) - 1
    hand = strategy.config.hand_size
    labels = [f"badugi {rank_name(top)}" if count == hand == 4 else f"{count}-card {rank_name(top)}"
              for count, top in keys]
    return group_of, labels


@dataclass
class Summary:
    """Reach-weighted frequencies by seat and round."""

    group_labels: list[str]
    draw_reach: dict = field(default_factory=dict)    # (seat, round) -> (groups,) reach
    draw_freq: dict = field(default_factory=dict)     # (seat, round) -> (groups, hand_size+1)
    pat_snow_break: dict = field(default_factory=dict)  # (seat, round) -> {"pat","snow","break","reach"}
    bet_reach: dict = field(default_factory=dict)     # (seat, round) -> (groups,)
    bet_freq: dict = field(default_factory=dict)      # (seat, round) -> (groups, 5) over f k c b r
    deal_ev: dict = field(default_factory=dict)       # seat -> (groups,) EV in mbb given the dealt group
    deal_prob: np.ndarray | None = None               # (groups,)
    # (seat, round) -> (groups,) bool: groups with a decision fixed by a lock (locked solves)
    draw_locked: dict = field(default_factory=dict)
    bet_locked: dict = field(default_factory=dict)


def summarise(strategy: Strategy) -> Summary:
    """The strategy's summary: from its built tree's node statistics, or, for a game whose tree
    is never built, from two streamed evaluate walks that sum the same masses over every public
    history (:meth:`solver.cfr.streamed.StreamedWalker.summary`)."""
    if strategy.tree is None:
        return _summarise_streamed(strategy)
    tree, deal = strategy.tree, strategy.walker.model.deal_prob
    group_of, labels = class_groups(strategy)
    n_groups = len(labels)
    hand = strategy.config.hand_size
    badugi = strategy.evaluator.value_card_count == hand
    out = Summary(labels)
    root_value = np.zeros((2, strategy.n_states))
    draw_mass: dict = {}
    bet_mass: dict = {}
    psb: dict = {}

    def add(table, key, shape):
        if key not in table:
            table[key] = np.zeros(shape)
        return table[key]

    for batch in strategy.stats():
        for i, node in enumerate(batch.nodes):
            node = int(node)
            seat = int(tree.seat[node])
            rnd = int(tree.round[node])
            reach = batch.reach_of(i, seat)
            if node == 0:
                root_value = batch.value[i] * 1000.0  # per dealt class; the opponent's reach at the root is 1
            if reach.sum() <= 0:
                continue
            probs = strategy.strategy_at(node)
            if tree.kind[node] == DRAW:
                mass = add(draw_mass, (seat, rnd), (n_groups, hand + 2))
                np.add.at(mass[:, 0], group_of, reach)
                for d in range(probs.shape[0]):
                    np.add.at(mass[:, d + 1], group_of, reach * probs[d])
                tot = add(psb, (seat, rnd), 4)
                tot += [reach.sum(), (reach * probs[0]).sum(), (reach * probs[0])[~badugi].sum(),
                        (reach * (1.0 - probs[0]))[badugi].sum()]
            else:
                mass = add(bet_mass, (seat, rnd), (n_groups, 1 + len(BET_COLUMNS)))
                np.add.at(mass[:, 0], group_of, reach)
                for a, label in enumerate(strategy.labels(node)):
                    np.add.at(mass[:, 1 + BET_COLUMNS.index(label)], group_of, reach * probs[a])

    for key, mass in draw_mass.items():
        out.draw_reach[key] = mass[:, 0]
        out.draw_freq[key] = _divide(mass[:, 1:], mass[:, :1])
    for key, (reach, pat, snow, brk) in psb.items():
        out.pat_snow_break[key] = {"reach": reach, "pat": pat / reach, "snow": snow / reach, "break": brk / reach}
    for key, mass in bet_mass.items():
        out.bet_reach[key] = mass[:, 0]
        out.bet_freq[key] = _divide(mass[:, 1:], mass[:, :1])
    _deal_ev(out, group_of, deal, root_value)
    if strategy.locks is not None:
        locks = strategy.locks
        for node, value in zip(locks.pair_node.tolist(), locks.pair_class.tolist()):
            key = (int(tree.seat[node]), int(tree.round[node]))
            table = out.draw_locked if tree.kind[node] == DRAW else out.bet_locked
            table.setdefault(key, np.zeros(n_groups, bool))[group_of[value]] = True
    return out


def _summarise_streamed(strategy: Strategy) -> Summary:
    model = strategy.draw_model
    walked = strategy.streamed.summary(strategy.probabilities)
    group_of, labels = class_groups(strategy)
    n_groups, hand = len(labels), strategy.config.hand_size
    badugi = strategy.evaluator.value_card_count == hand
    out = Summary(labels)

    def by_group(per_class):  # (columns, classes) -> (groups, columns)
        return np.stack([np.bincount(group_of, weights=row, minlength=n_groups) for row in per_class], axis=1)

    for seat in (0, 1):
        for rnd in range(strategy.config.rounds):
            bet, draw = walked.mass[seat, rnd, 0], walked.mass[seat, rnd, 1]
            if bet[0].sum() > 0:
                grouped = by_group(bet[:1 + len(BET_COLUMNS)])
                out.bet_reach[(seat, rnd)] = grouped[:, 0]
                out.bet_freq[(seat, rnd)] = _divide(grouped[:, 1:], grouped[:, :1])
            if draw[0].sum() > 0:
                grouped = by_group(draw[:hand + 2])
                out.draw_reach[(seat, rnd)] = grouped[:, 0]
                out.draw_freq[(seat, rnd)] = _divide(grouped[:, 1:], grouped[:, :1])
                reach, pat = draw[0].sum(), draw[1].sum()
                out.pat_snow_break[(seat, rnd)] = {
                    "reach": reach, "pat": pat / reach, "snow": draw[1][~badugi].sum() / reach,
                    "break": (draw[0] - draw[1])[badugi].sum() / reach}
    _deal_ev(out, group_of, model.deal_prob, walked.root_value * 1000.0)
    return out


def _deal_ev(out: Summary, group_of: np.ndarray, deal: np.ndarray, root_value_mbb: np.ndarray) -> None:
    """Each group's deal probability, and each seat's EV (mbb) given the dealt group."""
    n_groups = len(out.group_labels)
    out.deal_prob = np.bincount(group_of, weights=deal, minlength=n_groups)
    for s in (0, 1):
        out.deal_ev[s] = _divide(np.bincount(group_of, weights=deal * root_value_mbb[s], minlength=n_groups),
                                 out.deal_prob)


def _divide(a, b):
    a = np.asarray(a, dtype=float)
    b = np.broadcast_to(np.asarray(b, dtype=float), a.shape)
    return np.divide(a, b, out=np.full(a.shape, np.nan), where=b > 0)


def draw_csv_rows(summary: Summary, hand_size: int):
    """Compact draw/pat table: one row per (seat, draw round, hand group) with reach and frequencies."""
    for (seat, rnd), freq in sorted(summary.draw_freq.items()):
        reach = summary.draw_reach[(seat, rnd)]
        for g, label in enumerate(summary.group_labels):
            if reach[g] <= 0:
                continue
            row = {"seat": SEAT_NAMES[seat], "draw": rnd + 1, "hand": label, "reach": round(float(reach[g]), 6)}
            for d in range(hand_size + 1):
                row[f"draw_{d}"] = round(float(freq[g, d]), 4)
            yield row


def pat_snow_break_rows(summary: Summary):
    """Share of draw decisions (reach-weighted) standing pat, snowing and breaking, per seat and draw."""
    for (seat, rnd), m in sorted(summary.pat_snow_break.items(), key=lambda kv: (kv[0][1], -kv[0][0])):
        yield {"seat": SEAT_NAMES[seat], "draw": rnd + 1, "reach": round(float(m["reach"]), 6),
               "pat": round(float(m["pat"]), 6), "snow": round(float(m["snow"]), 6),
               "break": round(float(m["break"]), 6)}
