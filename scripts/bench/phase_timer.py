"""Thread-seconds of an engine's phases, for the cap-4 benchmarks (``cap4_phases.py``,
``merged_draws.py``): the 16-bit storage's decoding, encoding and discounts and the cut walks'
kernel, each one's seconds summed over every thread that calls it."""
import collections
import threading
import time


def time_phases(engine, kernels, names=("decode", "encode", "discount", "walk")) -> dict:
    """Wrap the ``names`` among ``engine.storage``'s methods, and ``kernels.walk_cut_chunk`` as
    "walk"; returns the dict their seconds add to (clear it between iterations)."""
    seconds: dict = collections.defaultdict(float)
    lock = threading.Lock()

    def timed(name, fn):
        def wrapper(*a, **k):
            t0 = time.perf_counter()
            out = fn(*a, **k)
            with lock:
                seconds[name] += time.perf_counter() - t0
            return out
        return wrapper

    for name in names:
        if name == "walk":
            kernels.walk_cut_chunk = timed(name, kernels.walk_cut_chunk)
        else:
            setattr(engine.storage, name, timed(name, getattr(engine.storage, name)))
    return seconds
