"""The CFR variants the engine runs, one row each: ``--help``, the README's table and the engines
read these rows (no numba import, so ``badugi --help`` stays fast). Adding a variant is adding a
row to :data:`ALGORITHMS`.

A row says what iteration t does to what iterations 1..t-1 accumulated: the positive regrets
are scaled by (t-1)^a/((t-1)^a+1) (``alpha``), the negative ones by (t-1)^b/((t-1)^b+1)
(``beta``; minus infinity resets them to zero), the strategy sums by ((t-1)/t)^g (``gamma``);
None leaves them as they are. ``floor`` floors regrets at zero after each update (CFR+),
``weighted`` weighs iteration t's strategy by t (else 1). ``prunes``: its discounts can be kept
as per-seat factors of the storage (``solver.cfr.engine.StorageScales``), which lets a walk over
a built tree skip what the opponent never reaches; ``lockable``: node locks may fix decisions
of its solves (``solver.cfr.locks``).

>>> ALGORITHMS[0].name == DEFAULT_ALGORITHM
True
>>> find_algorithm("dcfr").discount(5)["neg_scale"]
0.5
>>> find_algorithm("cfr+").discount(7)
{'pos_scale': 1.0, 'neg_scale': 1.0, 'floor': 1.0, 'sum_scale': 1.0, 'sum_weight': 7.0}
"""

from __future__ import annotations

from dataclasses import dataclass

NEVER = float("-inf")  # a beta that resets negative regrets to zero every iteration


@dataclass(frozen=True)
class Ramp:
    """An alpha that rises with the iteration: alpha_t = min(``top``, 1 + t / ``iterations``)."""

    iterations: float
    top: float

    def at(self, t: int) -> float:
        return min(self.top, 1.0 + t / self.iterations)


@dataclass(frozen=True)
class Algorithm:
    """One CFR variant (see the module docstring for what each field does)."""

    name: str
    help: str                           # one line: its --help text and its README table row
    alpha: float | Ramp | None = None   # positive regrets' discount exponent (None: kept whole)
    beta: float | None = None           # negative regrets' (NEVER: reset to zero; None: kept whole)
    gamma: float | None = None          # strategy sums' (None: kept whole)
    floor: bool = False                 # regrets floored at zero after each update
    weighted: bool = False              # iteration t's strategy weighted by t
    prunes: bool = True                 # discounts kept as storage factors: pruned walks over a built tree
    lockable: bool = True               # node locks may fix some of its decisions

    def discount(self, t: int) -> dict[str, float]:
        """The discount of iteration t >= 1 as plain floats, named as ``kernels.Discount``'s
        fields: its scales apply to what iterations 1..t-1 accumulated (positive and negative
        regrets, strategy sums), ``floor`` > 0 floors regrets at zero, ``sum_weight`` weighs the
        iteration's strategy."""
        prev = float(t - 1)
        # (Each scale is computed with the float operations of before: resumed runs are pinned bit for bit.)
        alpha = self.alpha.at(t) if isinstance(self.alpha, Ramp) else self.alpha
        return {"pos_scale": _scale(prev, alpha), "neg_scale": _scale(prev, self.beta),
                "floor": 1.0 if self.floor else 0.0,
                "sum_scale": 1.0 if self.gamma is None else (prev / t) ** self.gamma,
                "sum_weight": float(t) if self.weighted else 1.0}


def _scale(prev: float, exponent: float | None) -> float:
    """prev^e / (prev^e + 1): the share of t-1 iterations' regrets kept (None: all, NEVER: none)."""
    if exponent is None:
        return 1.0
    if exponent == NEVER:
        return 0.0
    return prev ** exponent / (prev ** exponent + 1.0)


# The table: the default first. dcfr-ramp discounts early regrets hard, later ones less and less
# (the idea of hyperparameter schedules, Zhang, McAleer & Sandholm 2024; this schedule is ours,
# chosen by measurement): single draw reaches 0.1 mbb/hand in 456 iterations against 856 for
# dcfr, double draw at cap 2 1 mbb/hand in 231 against 301 (BENCHMARKS.md, the algorithms on
# single and double draw).
ALGORITHMS: tuple[Algorithm, ...] = (
    Algorithm("dcfr-ramp",
              "Discounted CFR with a rising alpha: at iteration t the positive regrets of the t-1 iterations before "
              "are scaled by (t-1)^a/((t-1)^a+1), a = min(4, 1 + t/100); negative regrets reset to zero; the average "
              "strategy weighted by t^4 (ours, chosen by measurement)",
              alpha=Ramp(iterations=100.0, top=4.0), beta=NEVER, gamma=4.0),
    Algorithm("dcfr",
              "Discounted CFR (Brown & Sandholm 2019), alpha 1.5, beta 0, gamma 2: positive regrets scaled by "
              "(t-1)^1.5/((t-1)^1.5+1), negative by 1/2, the average strategy weighted by t^2",
              # Negative regrets halved every iteration: as a storage factor they would fall below
              # what float32 storage can be divided by, so its walks discount every entry.
              alpha=1.5, beta=0.0, gamma=2.0, prunes=False),
    Algorithm("cfr+", "CFR+ (Tammelin 2014): regrets floored at zero, the average strategy weighted by t",
              floor=True, weighted=True),
    Algorithm("linear", "Linear CFR: regrets and the average strategy weighted by t", alpha=1.0, beta=1.0, gamma=1.0),
    Algorithm("cfr", "vanilla CFR: regrets and the average strategy unweighted"),
)
DEFAULT_ALGORITHM = ALGORITHMS[0].name


def algorithm_names() -> tuple[str, ...]:
    """The names ``--algorithm`` accepts, the default first."""
    return tuple(row.name for row in ALGORITHMS)


def find_algorithm(name: str | Algorithm) -> Algorithm:
    """The row of ``name`` (a row is its own); ValueError naming the choices if there is none."""
    if isinstance(name, Algorithm):
        return name
    for row in ALGORITHMS:
        if row.name == name:
            return row
    raise ValueError(f"unknown algorithm {name!r} (choose from {', '.join(algorithm_names())})")


def _named(row: Algorithm) -> str:
    return f"{row.name}{' (default)' if row.name == DEFAULT_ALGORITHM else ''}"


def algorithm_help() -> str:
    """The ``--algorithm`` help text: every variant's line, the default first."""
    return "; ".join(f"{_named(row)}: {row.help}" for row in ALGORITHMS) + "; a resumed run keeps its own"


def algorithm_table() -> str:
    """The README's table of the variants (checked against it by tests/test_readme.py)."""
    rows = ["| `--algorithm` | what an iteration does | pruned walks (discounts as storage scales) | node locks |",
            "|---|---|---|---|"]
    rows += [f"| `{row.name}`{' (default)' if row.name == DEFAULT_ALGORITHM else ''} | {row.help} | "
             f"{'yes' if row.prunes else 'no (on a built tree): every node walked, every entry discounted'} | "
             f"{'yes' if row.lockable else 'no'} |" for row in ALGORITHMS]
    return "\n".join(rows)
