"""Reproducible random streams for Numba kernels: splitmix64 (Steele, Lea & Flood 2014).

A stream is a one-element uint64 array; every draw advances it. Seeds and
per-deal or per-iteration streams are derived by mixing, so a result depends
only on the seed and the item's index, whatever the machine or the chunking.

>>> state = np.array([stream_seed(7, 0)], dtype=np.uint64)
>>> 0.0 <= uniform(state) < 1.0, below(state, 6) in range(6)
(True, True)
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@njit(cache=True)
def mix(z):
    """splitmix64's output function: a well-mixed uint64 of ``z``."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def uniform(state):
    """A float in [0, 1) from the stream in ``state[0]``."""
    state[0] += GOLDEN
    return float(mix(state[0]) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, inline="always")
def below(state, n):
    """An integer in 0..n-1 from the stream."""
    return min(int(uniform(state) * n), n - 1)


@njit(cache=True)
def stream_seed(seed, index):
    """The start of stream ``index`` of a seed (a deal of a match, an iteration of a solve)."""
    return mix(np.uint64(seed) * GOLDEN + np.uint64(index) + np.uint64(1))
