"""Warm starts: a solve in an abstract game begun from a solve of the same game in other buckets.

An iteration at cap 4 costs a fixed part per public node and a part per bucket, most of it the
buckets' (about 0.1 s and 23 ms a bucket on triple draw at cap 1: BENCHMARKS.md, "Key
states"). A coarser abstraction with the same recall rule has the same slots, only narrower
rows, so its iterations are several times cheaper; what it learned (which lines are worth
playing, which hands draw) is what a finer one has to learn first. A warm start copies its
*regrets*: each bucket of the fine abstraction takes, at every slot, the regrets of the coarse
bucket holding most of its classes (weighted by how often each class is dealt), so the first
iteration plays the coarse run's current strategy. The strategy sums start empty (the average
is the fine run's own), and the solve goes on from the coarse run's iteration, so the
schedule's discounts go on as they were (begun at 1, dcfr-ramp's early discounts would wipe the
copied regrets in a few iterations). The coarse run's solving seconds count in the new run's:
a curve against time is honest about what the warm start cost.

Measured on a tiny triple draw (buckets 2/2/2/2 solved 100 iterations, then 3/4/3/2, abstract
exploitability after 10, 25, 50 and 100 more iterations): 461, 250, 158, 133 mbb/hand warm
against 1,721, 473, 144, 99 cold; copying the sums too (1,592, 1,039, 523, 207) or scaling the
regrets down to 10 iterations' (725, 454, 182, 116) was worse. It wins early and loses later
there; whether it wins at cap 4 is for BENCHMARKS.md to say.

Both runs must be the same game, the same recall rule and float32 storage (a 16-bit run keeps
per-row scales that do not carry across buckets), solved in one process without locks; buckets
may be coarser, finer or equal (equal buckets copy the regrets as they are). A pruned solve's
regrets are copied as they are meant (its storage factors applied), so the new run starts with
factors of one.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple

import numpy as np
from numba import njit

from ..game.layout import StrategyLayout
from .files import CHECKPOINT_NAME, CheckpointError, load_checkpoint


class WarmStart(NamedTuple):
    """Where a warm start came from: the run, its game, its iteration and solving seconds."""

    run: str
    game: str
    iteration: int
    seconds: float

    def as_dict(self) -> dict:
        return {"from": self.run, "game": self.game, "iterations": self.iteration, "seconds": round(self.seconds, 3)}


@njit(cache=True)
def copy_rows(slot_round, slot_seat, slot_actions, fine_offset, fine_width, coarse_offset, coarse_width, bucket_map,
              factors, coarse, fine):
    """``fine``'s entries from ``coarse``'s: at every slot and action, fine bucket ``b`` of round
    ``r`` takes coarse bucket ``bucket_map[r, b]``'s entry, times its seat's factor for its sign
    (``factors[0 or 1, seat]``: a pruned solve's storage factors; ones otherwise)."""
    for s in range(len(slot_actions)):
        r = slot_round[s]
        seat = slot_seat[s]
        wf = fine_width[r]
        wc = coarse_width[r]
        for a in range(slot_actions[s]):
            fo = fine_offset[s] + a * wf
            co = coarse_offset[s] + a * wc
            for b in range(wf):
                x = coarse[co + bucket_map[r, b]]
                fine[fo + b] = x * (factors[0, seat] if x > 0 else factors[1, seat])


def bucket_map(fine_rows: np.ndarray, coarse_rows: np.ndarray, weight: np.ndarray) -> np.ndarray:
    """(rounds, fine buckets) the coarse bucket holding most of each fine bucket's classes,
    weighted by ``weight`` (how often each class is dealt); the lowest such bucket on ties."""
    rounds = fine_rows.shape[0]
    width = int(fine_rows.max()) + 1
    out = np.zeros((rounds, width), np.int64)
    for r in range(rounds):
        share = np.zeros((int(fine_rows[r].max()) + 1, int(coarse_rows[r].max()) + 1))
        np.add.at(share, (fine_rows[r], coarse_rows[r]), weight)
        out[r, :len(share)] = np.argmax(share, axis=1)
    return out


def warm_start(engine, run: str | Path) -> WarmStart:
    """Fill ``engine``'s storage (an abstract engine, before its first iteration) from the
    checkpoint of the run in ``run`` (see the module docstring) and set its iteration to that
    run's; CheckpointError or ValueError with a one-line reason if the runs do not match."""
    run = Path(run)
    path = run / CHECKPOINT_NAME
    if not path.is_file():
        raise CheckpointError(f"a warm start needs a run's checkpoint: there is none at {path}")
    from ..game.setup import GameSetup

    if not engine.warm_startable or engine.locks is not None:
        raise ValueError("a warm start begins a one-process solve with float32 storage and no locks")
    config = engine.config
    data = load_checkpoint(path, None, engine.algorithm, regrets_only=True)
    coarse = data["config"]
    if coarse.at_full_resolution() != config.at_full_resolution():
        raise ValueError(f"a warm start needs a run of the same game: {run} is {coarse.describe()}, "
                         f"this is {config.describe()}")
    if (coarse.recall, coarse.remember_draws, coarse.older_betting, coarse.draw_limit) != (
            config.recall, config.remember_draws, config.older_betting, config.draw_limit):
        raise ValueError(f"a warm start needs a run with the same recall rule: {run} is {coarse.describe()}, "
                         f"this is {config.describe()}")
    if coarse.storage_bits != 32:
        raise ValueError("a warm start copies float32 storage (16-bit rows keep scales that do not carry across "
                         "buckets)")
    if engine.iteration != 0:
        raise ValueError("a warm start fills an engine before its first iteration")
    fine_layout: StrategyLayout = engine.layout
    coarse_layout = GameSetup(coarse, row_of=data["row_of"], streamed=engine.setup.streamed).layout
    if (coarse_layout.n_slots != fine_layout.n_slots
            or not np.array_equal(coarse_layout.slot_actions, fine_layout.slot_actions)):
        raise CheckpointError(f"{path}: its slots are not this game's")
    if data["shards"]:   # (a run on streamed Ray actors: its shards made whole)
        from .shards import shards_into

        shards_into(data, coarse_layout, False)
    if data["regret"].shape != (coarse_layout.n_entries,):
        raise CheckpointError(f"{path} does not hold its layout's {coarse_layout.n_entries:,} entries")
    mapping = bucket_map(fine_layout.row_of, coarse_layout.row_of, engine.model.deal_prob)
    factors = np.ones((2, 2)) if data["scales"] is None else np.asarray(data["scales"], np.float64)[:2]
    copy_rows(fine_layout.slot_round, fine_layout.slot_seat, fine_layout.slot_actions, fine_layout.slot_offset,
              fine_layout.row_width, coarse_layout.slot_offset, coarse_layout.row_width, mapping, factors,
              data["regret"], engine.regret)
    engine.strat_sum[:] = 0.0
    engine.iteration = int(data["iteration"])
    return WarmStart(str(run), coarse.describe(), engine.iteration, float(data["seconds"]))
