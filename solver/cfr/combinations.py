"""The valid combinations of a solver's parts, and what builds each.

A combination is (tree, storage, runner): "built", the public tree built at full resolution or
with card buckets; "streamed", a trunk and one shape filled per cut, walked with the abstract
game's bucket vectors (or value classes at full resolution); "float32" or "16-bit" regrets and
sums (rows with scales); walks on this process's "threads" or in "ray" actors. Each maps to the
engine that runs it and, where the engine takes its storage as a part
(:mod:`solver.cfr.slot_storage`), that part. What is not here
:func:`solver.cfr.solve.check_solvable` refuses in one line (16-bit storage over a built tree,
for one). Sampled CFR (:mod:`solver.cfr.sampled`) is kept for measurement and built by hand.

Names are strings, imported when asked for: this table sits below every engine.
"""

from __future__ import annotations

import importlib

COMBINATIONS = {
    ("built", "float32", "threads"): ("solver.cfr.engine:Engine", None),
    ("built", "float32", "ray"): ("solver.cfr.distributed:RayEngine", None),
    ("streamed", "float32", "threads"): ("solver.cfr.abstract:AbstractEngine", None),
    ("streamed", "16-bit", "threads"): ("solver.cfr.quantized:QuantizedEngine", None),
    ("streamed", "float32", "ray"): ("solver.cfr.streamed_ray:StreamedRayEngine",
                                     "solver.cfr.slot_storage:Float32Slots"),
    ("streamed", "16-bit", "ray"): ("solver.cfr.streamed_ray:StreamedRayEngine",
                                    "solver.cfr.slot_storage16:Rows16Slots"),
}


def storage_name(storage_bits: int) -> str:
    """The storage of a config's ``storage_bits``, as the table names it."""
    return "16-bit" if storage_bits == 16 else "float32"


def _named(name: str):
    module, attribute = name.split(":")
    return vars(importlib.import_module(module))[attribute]


def engine_class(tree: str, storage: str, runner: str) -> type:
    """The engine of one combination."""
    return _named(COMBINATIONS[tree, storage, runner][0])


def storage_part(tree: str, storage: str, runner: str) -> type:
    """The storage part of one combination (KeyError if its engine keeps its own storage)."""
    part = COMBINATIONS[tree, storage, runner][1]
    if part is None:
        raise KeyError(f"the {storage} storage of ({tree}, {runner}) is not a part")
    return _named(part)
