"""The contract of the solver's redesign (issue 58): every engine kind, every update rule and
both storage forms compute what they computed before, to the bit.

tests/contract_digests.json holds, for each case of tests/contract.py, the SHA-256 of its
regret and strategy-sum bytes (16-bit storage: the integers and the row scales), its exact
certificate and progress check (floats in hex) and the digest of its average strategy, all
recorded on main at 8f55867 before any line moved. The Ray runners (subtrees of a built tree
in actors; cut groups of a streamed tree in actors) must give the one-process digests of the
same game, and so must a run with a CPU load beside it (determinism under load: a sum that
depended on which thread or actor finished first would show there).

The float32 walks of the abstract (bucket) games are compiled with fast-math for the machine they
run on, so their last bits follow its vector instructions: tests/contract_digests_by_cpu.json holds,
for a processor without the first machine's (named by its vector features, e.g. ``avx2+fma``), the
digests that 8f55867's code gives there (recorded with ``python tests/contract.py`` in a worktree of
4f3297d, its code, with a fresh ``NUMBA_CACHE_DIR``); they replace those cases' digests on such a
machine. Every other case is the same bits everywhere.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import contract


def cpu_key() -> str:
    """This processor's vector features that decide a fast-math kernel's last bits."""
    import llvmlite.binding as llvm

    features = llvm.get_host_cpu_features()
    return "+".join(name for name in ("avx512f", "avx2", "fma") if features.get(name))


def pinned() -> dict:
    """The recorded digests, with this processor's where they differ from the first machine's."""
    here = Path(__file__).parent
    digests = json.loads((here / "contract_digests.json").read_text())
    digests.update(json.loads((here / "contract_digests_by_cpu.json").read_text()).get(cpu_key(), {}))
    return digests


PINNED = pinned()


def test_every_case_is_pinned():
    assert set(PINNED) == set(contract.CASES)
    by_cpu = json.loads((Path(__file__).parent / "contract_digests_by_cpu.json").read_text())
    assert all(set(cases) <= set(contract.CASES) for cases in by_cpu.values())
    assert set(contract.RAY_CASES) <= set(contract.CASES) and set(contract.IN_PROCESS_CASES) <= set(contract.CASES)


@pytest.mark.parametrize("name", list(contract.CASES))
def test_one_process_digests_are_the_recorded_ones(name):
    assert contract.one_process(name) == PINNED[name]


@contextlib.contextmanager
def cpu_load(processes: int | None = None):
    """Busy processes on every core (a loaded machine) while the block runs."""
    busy = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
            for _ in range(processes or os.cpu_count() or 2)]
    try:
        yield
    finally:
        for p in busy:
            p.kill()
            p.wait()


UNDER_LOAD = ["built single-draw dcfr-ramp", "abstract tiny-triple recall 16-bit", "sampled"]


@pytest.mark.parametrize("name", UNDER_LOAD)
def test_digests_under_a_cpu_load_are_the_recorded_ones(name):
    with cpu_load():
        assert contract.one_process(name) == PINNED[name]


@pytest.mark.parametrize("name", list(contract.IN_PROCESS_CASES))
def test_the_streamed_engine_of_parts_in_process_gives_the_one_process_digests(name):
    """StreamedRayEngine with its actors in this process (solver.cfr.runners.InProcess): the
    runner is a part; the same bits as AbstractEngine and QuantizedEngine."""
    assert contract.in_process(name) == PINNED[name]


# -- the Ray runners ---------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ray_address():
    try:
        import ray
    except ImportError:  # pragma: no cover - the default install has no Ray
        if os.environ.get("BADUGI_REQUIRE_RAY"):
            raise
        pytest.skip("Ray is not installed (pip install -e '.[ray]')")
    if ray.is_initialized():
        ray.shutdown()
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="ERROR", log_to_driver=False)
    yield "local"
    ray.shutdown()


@pytest.mark.parametrize("name", list(contract.RAY_CASES))
def test_ray_runners_give_the_one_process_digests(ray_address, name):
    assert contract.on_ray(name, ray_address) == PINNED[name]


@pytest.mark.parametrize("name", ["built single-draw dcfr-ramp", "abstract tiny-triple recall"])
def test_ray_runners_under_a_cpu_load_give_the_one_process_digests(ray_address, name):
    with cpu_load():
        assert contract.on_ray(name, ray_address) == PINNED[name]
