"""The structure the code promises (DESIGN.md, STYLE.md): each fact has one owner.

These read the source (ast), so they fail the day someone builds a second layout, asks an
engine what it is, or moves chart writing back into the CLI."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("solver", "abstractions")


def _modules():
    for package in PACKAGES:
        yield from sorted((ROOT / package).rglob("*.py"))


def _calls(tree: ast.AST):
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            yield node, ast.unparse(node.func)


def test_the_layout_of_a_game_is_built_in_one_function():
    """The map from (node, action, class) to a storage entry: every StrategyLayout of a game
    is made by GameSetup.layout_for (files read theirs back), and row maps, the recall
    normalisation and the bucket game come from the setup alone."""
    owners = {"build": {"solver/game/setup.py"}, "by_recall": {"solver/game/setup.py"}, "for_config": set(),
              "config_row_maps": {"solver/game/setup.py"}, "bucket_game": {"solver/game/setup.py"},
              "plan_solve": {"solver/game/setup.py"}}
    found = {name: set() for name in owners}
    for path in _modules():
        rel = path.relative_to(ROOT).as_posix()
        if rel in ("solver/game/layout.py", "abstractions/buckets.py"):
            continue  # where they are defined
        for _, name in _calls(ast.parse(path.read_text())):
            last = name.rsplit(".", 1)[-1]
            if last in owners and (last not in ("build",) or name.endswith("StrategyLayout.build")):
                found[last].add(rel)
    assert found == owners
    copies = [path.relative_to(ROOT).as_posix() for path in _modules()
              if "recall if " in path.read_text() or "recall >= 0 else" in path.read_text()]
    assert copies == ["solver/game/setup.py"]


def test_solve_asks_no_engine_what_it_is():
    """solve.py calls the engine protocol: no hasattr, isinstance or getattr on anything."""
    tree = ast.parse((ROOT / "solver/cfr/solve.py").read_text())
    asked = [ast.unparse(call) for call, name in _calls(tree) if name in ("hasattr", "isinstance", "getattr")]
    assert asked == []


@pytest.mark.parametrize("module", ["solver/cli.py", "solver/commands.py"])
def test_charts_are_written_by_the_tables_package(module):
    tree = ast.parse((ROOT / module).read_text())
    defined = [node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef) and "chart" in node.name]
    assert defined == []


def test_no_module_is_over_800_lines():
    long = {path.relative_to(ROOT).as_posix(): n for path in _modules()
            if (n := len(path.read_text().splitlines())) > 800}
    assert long == {}


@pytest.mark.parametrize("path", [p for p in _modules() if "njit" in p.read_text()], ids=lambda p: p.name)
def test_no_kernel_takes_more_than_16_parameters(path):
    tree = ast.parse(path.read_text())
    long = [(node.name, len(node.args.args)) for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and any("njit" in ast.unparse(d) for d in node.decorator_list)
            and len(node.args.args) > 16]
    assert long == []


def test_a_solve_plans_its_game_once(tmp_path, monkeypatch):
    """`badugi solve` checks the game, picks its engine and solves it from one plan (the plan of
    the triple-draw preset enumerates a million history keys: it was made twice)."""
    import solver.game.setup as setup_module
    from solver.cli import main

    planned = []
    real = setup_module.plan_solve
    monkeypatch.setattr(setup_module, "plan_solve", lambda config, *rest: planned.append(config) or real(config, *rest))
    out = tmp_path / "run"
    assert main(["solve", "--preset", "tiny-single-draw", "--iterations", "20", "--out", str(out), "--no-charts",
                 "--quiet"]) == 0
    assert len(planned) == 1
    assert main(["solve", "--preset", "tiny-single-draw", "--iterations", "40", "--out", str(out), "--no-charts",
                 "--quiet", "--resume"]) == 0
    assert len(planned) == 2


def test_the_walks_run_as_python_with_the_jit_off():
    """NUMBA_DISABLE_JIT=1 (debugging, coverage) runs every kernel as Python: the same numbers."""
    import subprocess
    import sys

    code = ("from solver.game.config import load_preset; from solver.cfr.engine import Engine; "
            "e = Engine(load_preset('tiny-no-draw')); e.run_iterations(3); print(float(e.exploitability().exploitability_mbb))")
    out = {}
    for jit_off in ("0", "1"):
        env = {**__import__("os").environ, "NUMBA_DISABLE_JIT": jit_off}
        out[jit_off] = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                                      check=True, cwd=ROOT).stdout.strip()
    assert float(out["1"]) == pytest.approx(float(out["0"]), rel=1e-9) and float(out["0"]) > 0


# -- layers: imports only go down ------------------------------------------------------------
def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join(parts)


MODULES = {_module_name(p): p for p in _modules()}


def _runtime_imports(tree: ast.AST):
    """Every import statement of a module, inside functions too, except those under ``if
    TYPE_CHECKING:`` (annotations only: never run)."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in skip:
            yield node


def _imports(name: str) -> dict[str, set[str]]:
    """The project's modules ``name`` imports, each with the names it takes from it."""
    path = MODULES[name]
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: dict[str, set[str]] = {}
    for node in _runtime_imports(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in MODULES:
                    found.setdefault(alias.name, set())
            continue
        base = package.split(".")
        base = base[:len(base) - node.level + 1] if node.level else []
        source = ".".join(base + ([node.module] if node.module else []))
        for alias in node.names:
            if f"{source}.{alias.name}" in MODULES:      # a module itself
                found.setdefault(f"{source}.{alias.name}", set())
            elif source in MODULES:
                found.setdefault(source, set()).add(alias.name)
    found.pop(name, None)
    return found


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_import_circle():
    """No module of solver/ or abstractions/ reaches itself through imports, counting imports
    inside functions (a layer imports only the layers below it)."""
    graph = {name: set(_imports(name)) for name in MODULES}
    # (A package's __init__ importing its own modules is not a layer going up.)
    for name in graph:
        if MODULES[name].name == "__init__.py":
            graph[name] = {m for m in graph[name] if not m.startswith(name + ".")}
    assert _circles(graph) == []


def test_no_private_name_is_imported_across_modules():
    taken = sorted(f"{name} <- {source}.{n}" for name in MODULES for source, names in _imports(name).items()
                   for n in names if n.startswith("_"))
    assert taken == []
