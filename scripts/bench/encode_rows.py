"""Nanoseconds an entry to encode a walk's rows back into 16 bits (``quantized.encode_slots``, what
is stored plus what the walk added, as a cap-4 walk does): 200,000 slots of 3 rows of 16 entries
(the preset's last round), one seat's, nine rows in ten with additions; the best of 5.

    python scripts/bench/encode_rows.py [--seed 12345] [--source DIR]

``--seed 0`` rounds to the nearest step (regrets), any other seed stochastically (strategy
sums). ``--source`` runs another tree's kernel (a ``git worktree`` of an older commit, whose
encoder reads a ``values`` buffer: given the decoded rows).
"""
import argparse
import sys
import time
from pathlib import Path

import numpy as np

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--seed", type=int, default=12345)
parser.add_argument("--source", default=str(Path(__file__).resolve().parents[2]))
args = parser.parse_args()
sys.path.insert(0, args.source)

from solver.cfr import quantized  # noqa: E402

rng = np.random.default_rng(1)
n_slots, actions, width = 200_000, 3, 16
slot_width = np.full(n_slots, width, np.int64)
slot_actions = np.full(n_slots, actions, np.int64)
slot_offset = np.arange(n_slots + 1, dtype=np.int64) * actions * width
row_base = np.arange(n_slots, dtype=np.int64) * actions
slot_seat = (np.arange(n_slots) % 2).astype(np.int8)
n = int(slot_offset[-1])
q = rng.integers(0, 65535, n).astype(np.uint16)
scale = rng.random(n_slots * actions).astype(np.float32)
added = (rng.random(n) * (rng.random(n) < 0.9)).astype(np.float32)
slots, base = np.arange(n_slots, dtype=np.int64), slot_offset[:-1].copy()
if hasattr(quantized, "NO_VALUES"):
    values = quantized.NO_VALUES
else:  # (before: the walk's decoded rows)
    values = np.empty(n, np.float32)
    quantized.decode_slots(slots, base, slot_offset, row_base, slot_width, slot_actions, slot_seat, -1, q, scale,
                           values)


# (since issue 36: the bounds as one pair and the entries the rounding hashes; before: levels, low)
HASHED = "hash_offset" in quantized.encode_slots.py_func.__code__.co_varnames
rounding = ((0.0, 65535.0),) if HASHED else (65535.0, 0.0)


def run() -> float:
    t0 = time.perf_counter()
    quantized.encode_slots(slots, base, slot_offset, row_base, slot_width, slot_actions, slot_seat, 0, values, added,
                           False, *rounding, np.uint64(args.seed), q, scale, *((slot_offset,) if HASHED else ()))
    return time.perf_counter() - t0


run()
best = min(run() for _ in range(5))
print(f"{args.source}: {n // 2:,} entries, seed {args.seed}: {best / (n // 2) * 1e9:.2f} ns an entry")
