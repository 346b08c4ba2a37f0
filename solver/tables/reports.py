"""Reach-weighted summaries of a strategy: what the charts and the compact CSVs show.

Hand classes are grouped by card count and top card ("badugi 7", "3-card 5",
...), strongest first. Every frequency is reach-weighted: the probability of
reaching a decision with a class, times the probability of the action, summed
and divided by the reach of the group. The same numbers can be recomputed from
``badugi export`` rows (the tests do).
"""

from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from abstractions.cards import rank_name
from abstractions.files import atomic_write
from abstractions.evaluator import get_evaluator

from ..game.config import GameConfig
from ..game.setup import GameSetup
from ..game.tree import (BET_SITUATIONS, DRAW, N_SITUATIONS, SEAT_NAMES, situation_name,
                         situation_pots)
from .strategy import BET_COLUMNS, Strategy


def class_groups(strategy: Strategy) -> tuple[np.ndarray, list[str]]:
    """Group index of every value class (by card count, then top card) and the group labels."""
    return hand_groups(strategy.evaluator, strategy.config.hand_size)


def hand_groups(ev, hand: int) -> tuple[np.ndarray, list[str]]:
    """:func:`class_groups` of an evaluator's value classes, hands of ``hand`` cards."""
    keys, group_of = [], np.empty(ev.n_values, dtype=np.int64)
    for v in range(ev.n_values):
        count = int(ev.value_card_count[v])
        top = ev.value_ranks(v)[0]
        key = (count, top)
        if not keys or keys[-1] != key:  # value classes are sorted, so groups are contiguous
            keys.append(key)
        group_of[v] = len(keys) - 1
    labels = [f"badugi {rank_name(top)}" if count == hand == 4 else f"{count}-card {rank_name(top)}"
              for count, top in keys]
    return group_of, labels


@dataclass
class Summary:
    """Reach-weighted frequencies by seat and round, and by situation (what the player faces)."""

    group_labels: list[str]
    draw_reach: dict = field(default_factory=dict)    # (seat, round) -> (groups,) reach
    draw_freq: dict = field(default_factory=dict)     # (seat, round) -> (groups, hand_size+1)
    pat_snow_break: dict = field(default_factory=dict)  # (seat, round) -> {"pat","snow","break","reach",
                                                        # "snow_of_non_badugis","break_of_badugis"}
    bet_reach: dict = field(default_factory=dict)     # (seat, round) -> (groups,)
    bet_freq: dict = field(default_factory=dict)      # (seat, round) -> (groups, 5) over f k c b r
    # By situation (``solver.game.tree.situations`` codes): (seat, round, code) -> as above
    situation_reach: dict = field(default_factory=dict)
    situation_freq: dict = field(default_factory=dict)
    deal_ev: dict = field(default_factory=dict)       # seat -> (groups,) EV in mbb given the dealt group
    deal_prob: np.ndarray | None = None               # (groups,)
    # (seat, round) -> (groups,) bool: groups with a decision fixed by a lock (locked solves)
    draw_locked: dict = field(default_factory=dict)
    bet_locked: dict = field(default_factory=dict)
    # (seat, round, code) -> (groups,) the pot (big blinds) at the situation's decisions, averaged
    # over its histories weighted by how often each hand gets there; empty where unknown (a game
    # whose tree is never built, tables written before it was kept)
    situation_pot: dict = field(default_factory=dict)
    # (seat, round, code) -> SituationPot: the pot's range over every history and the bet to call
    pots: dict = field(default_factory=dict)
    # round -> (groups,) the card bucket holding every class of the group in that round, -1 where
    # its classes lie in several (see :func:`group_buckets`); empty where the round has no buckets
    group_bucket: dict = field(default_factory=dict)

    def average_pot(self, key) -> float | None:
        """The situation's pot (big blinds) averaged over its histories, weighted by reach; None
        where unknown."""
        if key not in self.situation_pot:
            return None
        reach = self.situation_reach[key]
        known = reach > 0
        return float((self.situation_pot[key][known] * reach[known]).sum() / reach[known].sum())


def group_buckets(config: GameConfig, row_of: np.ndarray | None, group_of: np.ndarray, n_groups: int) -> dict:
    """Round -> (groups,) the card bucket of that round that holds every value class of the
    group, -1 where the group's classes lie in several buckets: for each round with card buckets
    (``config.buckets``; ``row_of`` (rounds, classes) each class's bucket, None where none). Two
    groups with the same bucket play one strategy at every decision of the round (a bucket's
    hands share their rows), so their rows in a chart are alike by construction: the charts say
    so. A group split over buckets plays a mix of them and is never marked, even where its
    figures happen to match another's.

    >>> config = GameConfig(ranks=4, suits=2, hand_size=2, draws=1, buckets=(2, 0))
    >>> group_buckets(config, np.array([[0, 1, 1, 1], [0, 1, 2, 3]]), np.array([0, 0, 1, 2]), 3)
    {0: array([-1,  1,  1])}
    """
    if row_of is None or not config.buckets:
        return {}
    out = {}
    for rnd, buckets in enumerate(config.buckets):
        if buckets <= 0:
            continue   # (value classes at full resolution: every group is its classes' own)
        low = np.full(n_groups, np.iinfo(np.int64).max)
        high = np.full(n_groups, -1)
        np.minimum.at(low, group_of, row_of[rnd])
        np.maximum.at(high, group_of, row_of[rnd])
        out[rnd] = np.where(low == high, high, -1)
    return out


def summarise(strategy: Strategy) -> Summary:
    """The strategy's summary: from its built tree's node statistics, or, for a game whose tree
    is never built, from two streamed evaluate walks that sum the same masses over every public
    history (:meth:`solver.cfr.streamed.StreamedWalker.summary`; a compact strategy's store
    walked a subtree at a time, :meth:`solver.cfr.store_walks.StoreWalks.summary`)."""
    if strategy.tree is None:
        walked = strategy.walks.summary() if strategy.store is not None else \
            strategy.streamed.summary(strategy.probabilities)
        out = _from_masses(strategy, walked.mass, walked.pot / strategy.config.big_blind)
        _deal_ev(out, class_groups(strategy)[0], strategy.draw_model.deal_prob, walked.root_value * 1000.0)
        return out
    tree = strategy.tree
    columns = 1 + max(len(BET_COLUMNS), strategy.config.hand_size + 1)
    mass = np.zeros((2, strategy.config.rounds, N_SITUATIONS, columns, strategy.n_states))
    pot_mass = np.zeros((2, strategy.config.rounds, N_SITUATIONS, strategy.n_states))  # reach times pot
    root_value = np.zeros((2, strategy.n_states))
    situation = tree.situation
    for batch in strategy.stats():
        for i, node in enumerate(batch.nodes):
            node = int(node)
            seat, rnd = int(tree.seat[node]), int(tree.round[node])
            reach = batch.reach_of(i, seat)
            if node == 0:
                root_value = batch.value[i] * 1000.0  # per dealt class; the opponent's reach at the root is 1
            if reach.sum() <= 0:
                continue
            probs = strategy.strategy_at(node)
            at = mass[seat, rnd, situation[node]]
            at[0] += reach
            pot_mass[seat, rnd, situation[node]] += reach * (tree.contrib[node].sum() / strategy.config.big_blind)
            for a, label in enumerate(strategy.labels(node)):
                at[1 + (int(label) if tree.kind[node] == DRAW else BET_COLUMNS.index(label))] += reach * probs[a]
    out = _from_masses(strategy, mass, pot_mass)
    group_of = class_groups(strategy)[0]
    _deal_ev(out, group_of, strategy.walker.model.deal_prob, root_value)
    if strategy.locks is not None:
        locks = strategy.locks
        n_groups = len(out.group_labels)
        seat, rnd = tree.seat[locks.pair_node], tree.round[locks.pair_node]
        is_draw = tree.kind[locks.pair_node] == DRAW
        for key in set(zip(seat.tolist(), rnd.tolist(), is_draw.tolist())):
            here = (seat == key[0]) & (rnd == key[1]) & (is_draw == key[2])
            table = out.draw_locked if key[2] else out.bet_locked
            table[key[:2]] = np.bincount(group_of[locks.pair_class[here]], minlength=n_groups) > 0
    return out


def _from_masses(strategy: Strategy, mass: np.ndarray, pot_mass: np.ndarray | None = None) -> Summary:
    """A summary from per-class masses (seat, round, situation, column, class): column 0 the
    reach of the seat to act holding the class, column 1 + a that times the probability of
    action a (f k c b r at bets, cards drawn at draws); ``pot_mass`` (seat, round, situation,
    class) the reach times the pot, where known."""
    group_of, labels = class_groups(strategy)
    n_groups, hand = len(labels), strategy.config.hand_size
    badugi = strategy.evaluator.value_card_count == hand
    out = Summary(labels, pots=situation_pots(strategy.config),
                  group_bucket=group_buckets(strategy.config, strategy.rows_layout.row_of, group_of, n_groups))
    bets = len(BET_SITUATIONS)

    def by_group(per_class):  # (columns, classes) -> (groups, columns)
        return np.stack([np.bincount(group_of, weights=row, minlength=n_groups) for row in per_class], axis=1)

    for seat in (0, 1):
        for rnd in range(strategy.config.rounds):
            for code in range(N_SITUATIONS):
                m = mass[seat, rnd, code, :1 + (len(BET_COLUMNS) if code < bets else hand + 1)]
                if m[0].sum() > 0:
                    grouped = by_group(m)
                    out.situation_reach[(seat, rnd, code)] = grouped[:, 0]
                    out.situation_freq[(seat, rnd, code)] = _divide(grouped[:, 1:], grouped[:, :1])
                    if pot_mass is not None:
                        pot = np.bincount(group_of, weights=pot_mass[seat, rnd, code], minlength=n_groups)
                        out.situation_pot[(seat, rnd, code)] = _divide(pot, grouped[:, 0])
            bet = mass[seat, rnd, :bets].sum(axis=0)
            draw = mass[seat, rnd, bets:].sum(axis=0)
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
                    "break": (draw[0] - draw[1])[badugi].sum() / reach,
                    "snow_of_non_badugis": _ratio(draw[1][~badugi].sum(), draw[0][~badugi].sum()),
                    "break_of_badugis": _ratio((draw[0] - draw[1])[badugi].sum(), draw[0][badugi].sum())}
    return out


def _ratio(a: float, b: float) -> float:
    return float(a / b) if b > 0 else float("nan")


def group_figures(group_of: np.ndarray, n_groups: int, reach: np.ndarray, probs: np.ndarray, value: np.ndarray):
    """One decision's figures per hand group, as ``badugi show`` prints them and the explorer
    shows them: (reach mass, action frequencies weighted by reach within the group, EV mbb).
    A group never reached gets its classes' plain average."""
    for g in range(n_groups):
        members = group_of == g
        mass = reach[members].sum()
        weights = reach[members] / mass if mass > 0 else np.full(members.sum(), 1.0 / members.sum())
        freq = [float((probs[a, members] * weights).sum()) for a in range(probs.shape[0])]
        yield float(mass), freq, float(np.nansum(value[members] * weights))


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
               "break": round(float(m["break"]), 6),
               "snow_of_non_badugis": round(float(m["snow_of_non_badugis"]), 6),
               "break_of_badugis": round(float(m["break_of_badugis"]), 6)}


def situation_csv_rows(summary: Summary, hand_size: int):
    """The charts by situation as a table: one row per (seat, round, decision, situation, hand
    group) reached, with reach and action frequencies (f k c b r, or cards drawn)."""
    bets = len(BET_SITUATIONS)
    for (seat, rnd, code), freq in sorted(summary.situation_freq.items()):
        reach = summary.situation_reach[(seat, rnd, code)]
        names = BET_COLUMNS if code < bets else [f"draw_{d}" for d in range(hand_size + 1)]
        for g, label in enumerate(summary.group_labels):
            if reach[g] <= 0:
                continue
            row = {"seat": SEAT_NAMES[seat], "round": rnd, "kind": "bet" if code < bets else "draw",
                   "situation": situation_name(code, rnd), "hand": label, "reach": float(f"{reach[g]:.6g}")}
            for column in BET_COLUMNS + [f"draw_{d}" for d in range(hand_size + 1)]:
                row[column] = round(float(freq[g, names.index(column)]), 4) if column in names else None
            if summary.situation_pot:
                row["pot"] = round(float(summary.situation_pot[(seat, rnd, code)][g]), 4)
            if summary.draw_locked or summary.bet_locked:
                locked = (summary.bet_locked if code < bets else summary.draw_locked).get((seat, rnd))
                row["locked"] = int(locked is not None and bool(locked[g]))
            yield row


def deal_ev_rows(summary: Summary):
    """Each dealt hand group's probability and each seat's EV (mbb/hand) given it: the EV chart's table."""
    for g, label in enumerate(summary.group_labels):
        yield {"hand": label, "deal_prob": float(f"{summary.deal_prob[g]:.6g}"),
               **{f"ev_{SEAT_NAMES[s].replace(' ', '_')}_mbb": round(float(summary.deal_ev[s][g]), 3) for s in (0, 1)}}


TABLES = ("situations.csv", "pat_snow_break.csv", "ev_by_hand.csv")  # what summary_from_tables reads


def write_tables(summary: Summary, hand_size: int, directory: str | Path) -> list[Path]:
    """The compact CSV tables of a summary (draws.csv, pat_snow_break.csv, situations.csv,
    ev_by_hand.csv) into ``directory``, each whole or not at all; :func:`summary_from_tables` reads
    them back."""
    directory = Path(directory)
    written = []
    for name, rows in (("draws.csv", list(draw_csv_rows(summary, hand_size))),
                       ("pat_snow_break.csv", list(pat_snow_break_rows(summary))),
                       ("situations.csv", list(situation_csv_rows(summary, hand_size))),
                       ("ev_by_hand.csv", list(deal_ev_rows(summary)))):
        with atomic_write(directory / name, "w") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]) if rows else ["seat"])
            writer.writeheader()
            writer.writerows(rows)
        written.append(directory / name)
    return written


def summary_from_tables(directory: str | Path, config: GameConfig | None = None) -> Summary:
    """The summary the charts need, read back from a solve's tables (``situations.csv``,
    ``pat_snow_break.csv``, ``ev_by_hand.csv``) and ``summary.json`` (the game): charts are
    redrawn from committed tables without the strategy. Frequencies come back as the tables
    round them (4 decimals, reach to 6 digits); the average pot only where the table has a
    ``pot`` column, the locked groups only where it has ``locked``; the groups' card buckets from
    the game's bucket maps (:attr:`solver.game.setup.GameSetup.row_of`). The game is ``config``, else
    the one ``summary.json`` names. ValueError names a missing file."""
    directory = Path(directory)
    for name in (() if config else ("summary.json",)) + TABLES:
        if not (directory / name).is_file():
            raise ValueError(f"{directory / name}: not found (charts from tables need {', '.join(TABLES)} "
                             "and summary.json)")
    if config is None:
        config = GameConfig.from_dict(json.loads((directory / "summary.json").read_text())["config"],
                                      str(directory / "summary.json"))
    hand = config.hand_size
    group_of, labels = hand_groups(get_evaluator(config.ranks, config.suits, hand), hand)
    index = {label: g for g, label in enumerate(labels)}
    n_groups, bets = len(labels), len(BET_SITUATIONS)
    out = Summary(labels, pots=situation_pots(config),
                  group_bucket=group_buckets(config, GameSetup(config).row_of, group_of, n_groups))
    seats = {name: seat for seat, name in SEAT_NAMES.items()}
    codes = {}
    for rnd in range(config.rounds):
        codes.update({(rnd, situation_name(code, rnd)): code for code in range(N_SITUATIONS)})
    draw_columns = [f"draw_{d}" for d in range(hand + 1)]
    for row in _read(directory / "situations.csv"):
        rnd = int(row["round"])
        key = (seats[row["seat"]], rnd, codes[(rnd, row["situation"])])
        columns = BET_COLUMNS if key[2] < bets else draw_columns
        if key not in out.situation_reach:
            out.situation_reach[key] = np.zeros(n_groups)
            out.situation_freq[key] = np.full((n_groups, len(columns)), np.nan)
            if "pot" in row:
                out.situation_pot[key] = np.full(n_groups, np.nan)
        g = index[row["hand"]]
        out.situation_reach[key][g] = float(row["reach"])
        out.situation_freq[key][g] = [float(row[c]) for c in columns]
        if "pot" in row:
            out.situation_pot[key][g] = float(row["pot"])
        if row.get("locked") == "1":
            table = out.bet_locked if key[2] < bets else out.draw_locked
            table.setdefault(key[:2], np.zeros(n_groups, bool))[g] = True
    for row in _read(directory / "pat_snow_break.csv"):
        out.pat_snow_break[(seats[row["seat"]], int(row["draw"]) - 1)] = {
            k: float(v) for k, v in row.items() if k not in ("seat", "draw")}
    deal = _read(directory / "ev_by_hand.csv")
    out.deal_prob = np.zeros(n_groups)
    out.deal_ev = {s: np.full(n_groups, np.nan) for s in (0, 1)}
    for row in deal:
        g = index[row["hand"]]
        out.deal_prob[g] = float(row["deal_prob"]) if row.get("deal_prob") else np.nan
        for s in (0, 1):
            out.deal_ev[s][g] = float(row[f"ev_{SEAT_NAMES[s].replace(' ', '_')}_mbb"])
    return out


def _read(path: Path) -> list[dict]:
    with open(path, newline="") as f:
        return list(csv.DictReader(f))
