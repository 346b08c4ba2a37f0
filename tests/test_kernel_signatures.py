"""Kernels take a few named groups, not long positional lists (issue 33): no ``@njit`` function in
solver/ or abstractions/ has more than 16 parameters. A scan of the source with ``ast``, so it
runs without compiling anything."""

import ast
from pathlib import Path

MAX_PARAMETERS = 16
ROOT = Path(__file__).resolve().parent.parent


def _is_njit(decorator: ast.expr) -> bool:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    return name in ("njit", "jit", "vectorize", "guvectorize")


def njit_functions():
    """``(file:line name, parameters)`` of every jitted function under solver/ and abstractions/."""
    for package in ("solver", "abstractions"):
        for path in sorted((ROOT / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.FunctionDef) and any(_is_njit(d) for d in node.decorator_list):
                    args = node.args
                    count = len(args.posonlyargs) + len(args.args) + len(args.kwonlyargs)
                    count += (args.vararg is not None) + (args.kwarg is not None)
                    yield f"{path.relative_to(ROOT)}:{node.lineno} {node.name}", count


def test_the_scan_finds_the_kernels():
    names = {name.split()[-1] for name, _ in njit_functions()}
    assert {"traverse", "walk_cut_chunk", "cut_groups", "expand", "key_slot"} <= names


def test_no_kernel_takes_more_than_16_parameters():
    long = [f"{name} ({count})" for name, count in njit_functions() if count > MAX_PARAMETERS]
    assert not long, "kernels with more than 16 parameters (group them into named tuples): " + ", ".join(long)
