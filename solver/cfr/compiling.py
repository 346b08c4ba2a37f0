"""What Numba is compiling, said as it happens: a first run on a machine compiles the
kernels (about ten seconds on two cores) and should not look stuck.

Numba announces every compilation it does (not the loads from its disk cache) as a
``numba:compile`` event; :func:`compile_report` listens to them. Compilations that follow
one another make one line: it opens when the first starts and ends, once, with how many
kernels compiled and their seconds, before anything else is written (the caller says when,
:meth:`CompileReport.end_line`) or when the block ends. On a terminal the line also names
the kernel compiling now, rewritten in place; elsewhere (a pipe, a log file) nothing is
written but the line's opening and its end, so each thing appears once. The kernels a kernel
calls compile inside it and count in its time.

    >>> import io
    >>> from numba import njit
    >>> out = io.StringIO()
    >>> with compile_report(out) as report:
    ...     _ = njit(lambda x: x + 1)(1)
    >>> out.getvalue().startswith("compiling ... compiled 1 kernel in ") and report.count
    1
"""

from __future__ import annotations

import shutil
import time
from contextlib import contextmanager

from numba.core import event

CLEAR_LINE = "\r\x1b[K"  # back to the line's start and clear it (a terminal's status line)


class CompileReport(event.Listener):
    """One line on ``out`` per run of consecutive compilations (see the module docstring); keeps
    the count and total seconds of all of them. ``opening``: the first line's text before
    ``...`` (later lines say ``compiling``)."""

    def __init__(self, out, opening: str = "compiling", tty: bool | None = None):
        self.out = out
        self.opening = opening
        self.tty = bool(getattr(out, "isatty", lambda: False)()) if tty is None else tty
        self.depth = 0
        self.count = 0
        self.seconds = 0.0
        self.line_open = False
        self._line_count = 0
        self._line_seconds = 0.0
        self._start = 0.0

    def _status(self, text: str, end: str = "") -> None:
        line = f"{self.opening} ... {text}"
        if not end:  # a line rewritten in place must not wrap: the rewrite clears only the last row
            line = line[:max(shutil.get_terminal_size().columns - 1, 20)]
        self.out.write(f"{CLEAR_LINE}{line}{end}")
        self.out.flush()

    def on_start(self, ev) -> None:
        if self.depth == 0:
            if not self.line_open:
                self.line_open, self._line_count, self._line_seconds = True, 0, 0.0
                if not self.tty:
                    self.out.write(f"{self.opening} ...")
                    self.out.flush()
            if self.tty:
                dispatcher = ev.data["dispatcher"]
                name = getattr(dispatcher.py_func, "__qualname__", str(dispatcher))
                self._status(f"{name} ({self._line_count} compiled, {self._line_seconds:.0f} s)")
            self._start = time.perf_counter()
        self.depth += 1

    def on_end(self, ev) -> None:
        self.depth -= 1
        if self.depth == 0:
            seconds = time.perf_counter() - self._start
            self.count += 1
            self.seconds += seconds
            self._line_count += 1
            self._line_seconds += seconds

    def end_line(self) -> None:
        """Ends the open line, if any: call before writing anything else to ``out``."""
        if not self.line_open or self.depth > 0:
            return
        n = self._line_count
        text = f"compiled {n} kernel{'' if n == 1 else 's'} in {self._line_seconds:.1f} s"
        if self.tty:
            self._status(text, "\n")
        else:
            self.out.write(f" {text}\n")
            self.out.flush()
        self.line_open = False
        self.opening = "compiling"


@contextmanager
def compile_report(out, opening: str = "compiling", tty: bool | None = None):
    """Within the block, say what Numba compiles on ``out`` (a text stream; ``tty``: whether to
    rewrite a status line in place, by default whether ``out`` is a terminal); yields the
    :class:`CompileReport` (its ``count`` and ``seconds`` when the block ends)."""
    report = CompileReport(out, opening, tty)
    try:
        with event.install_listener("numba:compile", report):
            yield report
    finally:
        report.end_line()
