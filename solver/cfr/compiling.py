"""What Numba is compiling, said as it happens: a first run on a machine compiles the
kernels (about half a minute on two cores) and should not look stuck.

Numba announces every compilation it does (not the loads from its disk cache) as a
``numba:compile`` event; :func:`compile_report` listens to them and writes one line per
outermost kernel (the kernels a kernel calls compile inside it and are counted in its
time): its name when it starts, and its seconds when it ends.

    >>> import io
    >>> from numba import njit
    >>> out = io.StringIO()
    >>> with compile_report(out) as report:
    ...     _ = njit(lambda x: x + 1)(1)
    >>> out.getvalue().startswith("compiling <lambda> ... ") and report.count
    1
"""

from __future__ import annotations

import time
from contextlib import contextmanager

from numba.core import event


class CompileReport(event.Listener):
    """Writes ``compiling NAME ... S s`` for each outermost compilation to ``out``; keeps the
    count and the total seconds."""

    def __init__(self, out):
        self.out = out
        self.depth = 0
        self.count = 0
        self.seconds = 0.0
        self._start = 0.0

    def on_start(self, ev) -> None:
        if self.depth == 0:
            dispatcher = ev.data["dispatcher"]
            name = getattr(dispatcher.py_func, "__qualname__", str(dispatcher))
            self.out.write(f"compiling {name} ... ")
            self.out.flush()
            self._start = time.perf_counter()
        self.depth += 1

    def on_end(self, ev) -> None:
        self.depth -= 1
        if self.depth == 0:
            seconds = time.perf_counter() - self._start
            self.count += 1
            self.seconds += seconds
            self.out.write(f"{seconds:.1f} s\n")
            self.out.flush()


@contextmanager
def compile_report(out):
    """Within the block, say what Numba compiles on ``out`` (a text stream); yields the
    :class:`CompileReport` (its ``count`` and ``seconds`` when the block ends)."""
    report = CompileReport(out)
    with event.install_listener("numba:compile", report):
        yield report
