"""Checksums of arrays written to strategy files, checkpoints and shard files.

A file's members are memory-mapped or read past the zip's own CRC check, so
each array carries a checksum written with it (:mod:`solver.cfr.files` stores
and checks them; nothing else computes one). The checksum of an array is a
64-bit sum, modulo 2**64, over its bytes read as little 8-byte words (the last
one padded with zeros): word ``i`` contributes the SplitMix64 finalizer of
``word + (i + 1) * golden`` (Steele, Lea and Flood, "Fast splittable
pseudorandom number generators", OOPSLA 2014). The finalizer is a bijection,
so any change to one word changes the sum; the word's position goes in, so
swapped words do too; and an integer sum is the same in any order, so threads
add their parts in whatever order they finish and the figure never changes.
The byte count is mixed in last (zero padding is not data).

Big arrays are summed by a parallel Numba kernel (memory speed:
``scripts/bench/bench_checksums.py``); small ones with NumPy, the same
arithmetic, so reading a small file compiles nothing.

>>> import numpy as np
>>> checksum(np.arange(10, dtype=np.float32)) == checksum(np.arange(10, dtype=np.float32))
True
>>> stream = Checksum()
>>> for part in np.array_split(np.arange(10, dtype=np.float32), 3):
...     stream.update(part)
>>> stream.value == checksum(np.arange(10, dtype=np.float32))
True
"""

from __future__ import annotations

import numba
import numpy as np
from numba import prange

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
MIX_2 = np.uint64(0x94D049BB133111EB)
KERNEL_WORDS = 1 << 21  # from 16 MiB on, the Numba kernel (below, NumPy: no compiling for a small file)
NUMPY_BLOCK = 1 << 16   # words NumPy sums at a time (temporaries stay in cache)


@numba.njit(cache=True, parallel=True)
def _word_sum_kernel(words, first):
    """Sum of the mixed words (``first``: the position of ``words[0]`` in the array)."""
    total = np.uint64(0)
    for i in prange(words.shape[0]):
        y = words[i] + (first + np.uint64(i) + np.uint64(1)) * GOLDEN
        y = (y ^ (y >> np.uint64(30))) * MIX_1
        y = (y ^ (y >> np.uint64(27))) * MIX_2
        total += y ^ (y >> np.uint64(31))
    return total


def _word_sum_numpy(words: np.ndarray, first: int) -> int:
    """:func:`_word_sum_kernel`'s sum in NumPy (uint64 arithmetic wraps as in the kernel)."""
    total = np.uint64(0)
    with np.errstate(over="ignore"):
        for a in range(0, len(words), NUMPY_BLOCK):
            y = words[a:a + NUMPY_BLOCK] + (np.arange(first + a + 1, first + a + 1 + len(words[a:a + NUMPY_BLOCK]),
                                                      dtype=np.uint64) * GOLDEN)
            y = (y ^ (y >> np.uint64(30))) * MIX_1
            y = (y ^ (y >> np.uint64(27))) * MIX_2
            total += np.sum(y ^ (y >> np.uint64(31)), dtype=np.uint64)
    return int(total)


def word_sum(words: np.ndarray, first: int = 0) -> int:
    """The sum of mixed little-endian words ``words`` (uint64) at positions ``first``, ``first + 1``, ..."""
    if len(words) >= KERNEL_WORDS:
        return int(_word_sum_kernel(words, np.uint64(first)))
    return _word_sum_numpy(words, first)


def _finish(total: int, nbytes: int) -> int:
    mask = (1 << 64) - 1
    y = (total + (nbytes + 1) * int(GOLDEN)) & mask
    y = ((y ^ (y >> 30)) * int(MIX_1)) & mask
    y = ((y ^ (y >> 27)) * int(MIX_2)) & mask
    return y ^ (y >> 31)


def _bytes_of(array: np.ndarray) -> np.ndarray:
    """An array's bytes (uint8, C order; a view where the array is contiguous)."""
    array = np.asarray(array)
    if not array.flags.c_contiguous:
        array = np.ascontiguousarray(array)
    return array.reshape(-1).view(np.uint8)


class Checksum:
    """A checksum fed in parts (an array streamed into a file chunk by chunk); ``value`` is
    :func:`checksum` of the parts joined."""

    def __init__(self):
        self._total = 0
        self._words = 0        # whole words summed so far
        self._pending = b""    # the bytes of a word not yet whole (fewer than 8)

    def update(self, part: np.ndarray) -> None:
        data = _bytes_of(part)
        if self._pending:
            take = min(8 - len(self._pending), len(data))
            self._pending += data[:take].tobytes()
            data = data[take:]
            if len(self._pending) < 8:
                return
            self._add(np.frombuffer(self._pending, dtype="<u8"))
            self._pending = b""
        whole = len(data) // 8 * 8
        if whole:
            body = data[:whole]
            if body.ctypes.data % 8:  # a part after an odd-length one: realign (a copy) to read words
                body = body.copy()
            self._add(body.view("<u8"))
        self._pending = data[whole:].tobytes()

    def _add(self, words: np.ndarray) -> None:
        self._total = (self._total + word_sum(words, self._words)) & ((1 << 64) - 1)
        self._words += len(words)

    @property
    def value(self) -> int:
        total, words = self._total, self._words
        if self._pending:
            last = np.frombuffer(self._pending.ljust(8, b"\0"), dtype="<u8")
            total = (total + word_sum(last, words)) & ((1 << 64) - 1)
        return _finish(total, 8 * self._words + len(self._pending))


def checksum(array: np.ndarray) -> int:
    """The checksum of an array's bytes (see the module docstring): a 64-bit integer."""
    stream = Checksum()
    stream.update(array)
    return stream.value
