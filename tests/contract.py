"""The solver's contract: what every kind of engine computes on small games, as digests.

Each case builds one engine kind on a small game, runs a fixed number of iterations and
reduces what it computed to text: the SHA-256 of its regret and strategy-sum bytes (16-bit
storage: the integers and every row's two scales), the exact certificate and progress check
(each float in hex), and the SHA-256 of the average strategy's chunks. tests/test_contract.py
pins these texts (recorded before the redesign of issue 58) and checks them, also with a CPU
load beside the run; ``python tests/contract.py`` prints them afresh (``--ray``: the Ray cases
too) to compare or to record.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import sys

import numpy as np

from solver.cfr.algorithms import DEFAULT_ALGORITHM
from solver.cfr.locks import LockFile
from solver.cfr.solve import RaySetup, make_engine
from solver.game.config import GameConfig, load_preset
from solver.game.setup import GameSetup

TINY_DOUBLE = load_preset("tiny-double-draw")
TINY_TRIPLE = dataclasses.replace(TINY_DOUBLE, draws=3, bets=(1.0, 1.0, 2.0, 2.0))
TINY_RECALL = dataclasses.replace(TINY_TRIPLE, cap=2, buckets=(3, 4, 3, 2), recall=3, draw_limit=1)
STREAMED = dataclasses.replace(TINY_DOUBLE, buckets=(3, 4, 2), recall=1, remember_draws=True)
SAMPLED = GameConfig(ranks=3, suits=2, hand_size=2, draws=1, cap=1, bets=(1.0, 2.0))
LOCK = """
[[lock]]
seat = "big blind"
history = "*"
probabilities = { f = 0.0 }
[[lock]]
seat = "big blind"
history = "ck/00/kb"
probabilities = { c = 1.0 }
"""


def _built(config, algorithm="dcfr-ramp", **options):
    from solver.cfr.engine import Engine

    return lambda: Engine(config, algorithm, **options)


def _streamed(config, algorithm="dcfr-ramp"):
    return lambda: make_engine(GameSetup(config, streamed=True), algorithm, streamed=True)


def _sampled(config, seed):
    from solver.cfr.sampled import SampledEngine

    return lambda: SampledEngine(config, seed=seed)


# name: (maker, iterations). Every engine kind, every update rule, both storage forms.
CASES = {
    "built single-draw dcfr-ramp": (_built(load_preset("single-draw")), 12),
    "built tiny-double dcfr": (_built(TINY_DOUBLE, "dcfr"), 12),
    "built tiny-double cfr+": (_built(TINY_DOUBLE, "cfr+"), 12),
    "built tiny-double linear": (_built(TINY_DOUBLE, "linear"), 12),
    "built tiny-double cfr": (_built(TINY_DOUBLE, "cfr"), 12),
    "built tiny-double unpruned": (_built(TINY_DOUBLE, pruned=False), 12),
    "built tiny-double buckets": (_built(dataclasses.replace(TINY_DOUBLE, buckets=(5, 4, 3))), 12),
    "built tiny-double locked": (_built(TINY_DOUBLE, locks=LockFile.parse(LOCK)), 12),
    "streamed tiny-triple full": (_streamed(TINY_TRIPLE), 10),
    "abstract tiny-double recall": (_streamed(STREAMED), 12),
    "abstract tiny-double recall cfr+": (_streamed(STREAMED, "cfr+"), 12),
    "abstract tiny-triple recall": (_streamed(TINY_RECALL), 12),
    "abstract tiny-triple recall 16-bit": (_streamed(dataclasses.replace(TINY_RECALL, storage_bits=16)), 12),
    "abstract tiny-double recall 16-bit dcfr": (
        _streamed(dataclasses.replace(STREAMED, storage_bits=16), "dcfr"), 12),
    "sampled": (_sampled(SAMPLED, 4), 30),
}


def _ray_built(config, actors):
    from solver.cfr.distributed import RayEngine

    return lambda address: RayEngine(config, address=address, actors=actors, actor_cpus=0.5)


def _ray_streamed(config, actors):
    return lambda address: make_engine(GameSetup(config, streamed=True), streamed=True,
                                       ray=RaySetup(address, actors, 0.5))


# The same games on Ray actors: their digests are the one-process cases' (the test says so).
RAY_CASES = {
    "built single-draw dcfr-ramp": (_ray_built(load_preset("single-draw"), 2), 12),
    "built tiny-double locked": (lambda address: _ray_locked(address), 12),
    "streamed tiny-triple full": (_ray_streamed(TINY_TRIPLE, 2), 10),
    "abstract tiny-triple recall": (_ray_streamed(TINY_RECALL, 3), 12),
    "abstract tiny-triple recall 16-bit": (_ray_streamed(dataclasses.replace(TINY_RECALL, storage_bits=16), 2), 12),
}


def _in_process(config, actors, algorithm=DEFAULT_ALGORITHM):
    """The streamed engine of parts with its actors in this process (solver.cfr.runners.InProcess)."""
    def make():
        from solver.cfr.runners import InProcess
        from solver.cfr.streamed_ray import StreamedRayEngine

        return StreamedRayEngine(GameSetup(config, streamed=True), algorithm, actors=actors, runner=InProcess())

    return make


# The streamed games on the other runner, actors in this process: their digests are the
# one-process engines' too (the runner is a part).
IN_PROCESS_CASES = {
    "streamed tiny-triple full": (_in_process(TINY_TRIPLE, 2), 10),
    "abstract tiny-double recall": (_in_process(STREAMED, 2), 12),
    "abstract tiny-double recall cfr+": (_in_process(STREAMED, 1, "cfr+"), 12),
    "abstract tiny-triple recall": (_in_process(TINY_RECALL, 3), 12),
    "abstract tiny-triple recall 16-bit": (_in_process(dataclasses.replace(TINY_RECALL, storage_bits=16), 2), 12),
    "abstract tiny-double recall 16-bit dcfr": (
        _in_process(dataclasses.replace(STREAMED, storage_bits=16), 1, "dcfr"), 12),
}


def in_process(name: str) -> dict:
    make, iterations = IN_PROCESS_CASES[name]
    return _digest_and_shut(make(), iterations)


def _ray_locked(address):
    from solver.cfr.distributed import RayEngine

    return RayEngine(TINY_DOUBLE, address=address, actors=2, actor_cpus=0.5, locks=LockFile.parse(LOCK))


def _sha(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:24]


def _row_scales(engine):
    """16-bit storage's (regret, sum) row scales, wherever the engine keeps them."""
    if getattr(engine, "storage_bits", 32) != 16:
        return ()
    if hasattr(engine, "_gather_scales"):
        return tuple(engine._gather_scales())
    return engine.storage.regret_scale, engine.storage.sum_scale


def _floats(x) -> list[str]:
    return [float(v).hex() for v in (x.br_button, x.br_big_blind, x.game_value)]


def digest(engine, iterations: int) -> dict:
    """Run ``iterations`` and reduce what the engine holds and certifies to text."""
    engine.run_iterations(iterations)
    regret, strat_sum = np.asarray(engine.regret), np.asarray(engine.strat_sum)
    return {
        "storage": _sha(regret, strat_sum, *_row_scales(engine)),
        "certificate": _floats(engine.exploitability()),
        "progress": _floats(engine.progress_exploitability()),
        "average": _sha(*engine.average_probability_chunks(5000)),
    }


def _digest_and_shut(engine, iterations: int) -> dict:
    try:
        return digest(engine, iterations)
    finally:
        engine.shutdown()


def one_process(name: str) -> dict:
    make, iterations = CASES[name]
    return _digest_and_shut(make(), iterations)


def on_ray(name: str, address: str) -> dict:
    make, iterations = RAY_CASES[name]
    return _digest_and_shut(make(address), iterations)


def main(argv: list[str]) -> None:
    out = {name: one_process(name) for name in CASES}
    if "--ray" in argv:
        import ray

        ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
        out.update({"ray " + name: on_ray(name, "local") for name in RAY_CASES})
        ray.shutdown()
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
