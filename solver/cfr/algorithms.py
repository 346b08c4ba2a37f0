"""The CFR variants the engine runs, each described once: ``--help``, the README and the
engine read these names, constants and descriptions (no numba import, so ``badugi --help``
stays fast).

>>> ALGORITHMS[0] == DEFAULT_ALGORITHM
True
>>> sorted(ALGORITHM_HELP) == sorted(ALGORITHMS)
True
"""

from __future__ import annotations

ALGORITHMS = ("dcfr-ramp", "dcfr", "cfr+", "linear", "cfr")
DEFAULT_ALGORITHM = "dcfr-ramp"
# dcfr-ramp: alpha_t = min(RAMP_TOP, 1 + t / RAMP_ITERATIONS), negatives reset, gamma = RAMP_GAMMA.
RAMP_ITERATIONS, RAMP_TOP, RAMP_GAMMA = 100.0, 4.0, 4.0

# One line each: what iteration t does to what iterations 1..t-1 accumulated.
ALGORITHM_HELP = {
    "dcfr-ramp": "Discounted CFR with a rising alpha: at iteration t the positive regrets of the t-1 "
                 "iterations before are scaled by (t-1)^a/((t-1)^a+1), a = min(4, 1 + t/100); negative "
                 "regrets reset to zero; the average strategy weighted by t^4 (ours, chosen by measurement)",
    "dcfr": "Discounted CFR (Brown & Sandholm 2019), alpha 1.5, beta 0, gamma 2: positive regrets scaled by "
            "(t-1)^1.5/((t-1)^1.5+1), negative by 1/2, the average strategy weighted by t^2",
    "cfr+": "CFR+ (Tammelin 2014): regrets floored at zero, the average strategy weighted by t",
    "linear": "Linear CFR: regrets and the average strategy weighted by t",
    "cfr": "vanilla CFR: regrets and the average strategy unweighted",
}


def algorithm_help() -> str:
    """The ``--algorithm`` help text: every variant's line, the default first."""
    return "; ".join(f"{name}{' (default)' if name == DEFAULT_ALGORITHM else ''}: {ALGORITHM_HELP[name]}"
                     for name in ALGORITHMS) + "; a resumed run keeps its own"


def algorithm_table() -> str:
    """The README's table of the variants (checked against it by tests/test_readme.py)."""
    rows = ["| `--algorithm` | what an iteration does |", "|---|---|"]
    rows += [f"| `{name}`{' (default)' if name == DEFAULT_ALGORITHM else ''} | {ALGORITHM_HELP[name]} |"
             for name in ALGORITHMS]
    return "\n".join(rows)
