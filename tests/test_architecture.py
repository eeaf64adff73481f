"""The project's structure: no import circles; the state's fields declared once
(:data:`moonriver_env.rules.core.STATE_FIELDS`) and clone and JSON derived.

The import graph of ``moonriver_env``, ``agents`` and ``training`` is read from the source
with :mod:`ast`. Inside ``moonriver_env`` every import of one of its modules counts, wherever
it stands (module level, inside a function, under ``TYPE_CHECKING``): a circle that only a
late import breaks at run time is still a circle in the design (STYLE.md, "Layers, one way
down"). For ``agents`` and ``training``, and for any import from one package into another,
only module-level imports count (including those under ``if``/``try`` and ``TYPE_CHECKING``
at module level, and in class bodies): a few function-level imports cross the layers upwards
on purpose and are resolved lazily at call time (``moonriver_env/wrappers.py`` ->
``agents.registry`` to build opponents from specs, ``agents/base.py`` ->
``training.selfplay`` to load ``.pt`` snapshots).
"""

from __future__ import annotations

import ast
import json
from collections.abc import Iterator
from pathlib import Path

from moonriver_env.rules import GameConfig, new_game
from moonriver_env.rules.core import STATE_FIELDS, StateCore

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("moonriver_env", "agents", "training")
ENGINE = "moonriver_env"  # the package whose function-level imports count too


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _package(name: str) -> str:
    return name.partition(".")[0]


def import_nodes(tree: ast.AST, module_level_only: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """The import statements of ``tree``; with ``module_level_only``, not those inside a
    function (those run at call time, not at import time)."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif module_level_only and isinstance(
            node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        ):
            continue
        stack.extend(ast.iter_child_nodes(node))


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The project modules that ``path`` imports (a package import counts for the package's
    ``__init__``; ``from pkg import mod`` counts for ``pkg.mod``), by the counting rule of
    the module docstring."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    tree = ast.parse(path.read_text(), filename=str(path))
    at_import = {id(n) for n in import_nodes(tree, module_level_only=True)}
    out: set[str] = set()
    for node in import_nodes(tree, module_level_only=False):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif node.level:
            base = package.split(".")
            base = base[: len(base) - node.level + 1]
            stem = ".".join([*base, node.module] if node.module else base)
            targets = [stem, *(f"{stem}.{alias.name}" for alias in node.names)]
        else:
            stem = node.module or ""
            targets = [stem, *(f"{stem}.{alias.name}" for alias in node.names)]
        for target in targets:
            if target not in modules or target == name:
                continue
            inside_engine = _package(name) == _package(target) == ENGINE
            if inside_engine or id(node) in at_import:
                out.add(target)
    return out


def import_graph() -> dict[str, set[str]]:
    paths = sorted(p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py"))
    modules = {module_name(p) for p in paths}
    return {module_name(p): imported_modules(p, modules) for p in paths}


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One cycle per strongly connected component of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return cycles


def test_the_graph_is_read() -> None:
    graph = import_graph()
    assert "moonriver_env.rules.state" in graph["moonriver_env.rules"]
    assert "moonriver_env.rules.core" in graph["moonriver_env.rules.state"]
    # agents and training are in it, by their module-level imports only
    assert "agents.tournament.report" in graph["agents.tournament.results"]
    assert "agents.base" in graph["training.selfplay"]
    assert "training.selfplay" not in graph["agents.base"]  # a function-level import
    assert "agents.registry" not in graph["moonriver_env.wrappers"]  # ditto, across layers


def test_module_level_imports_count_and_function_level_ones_do_not() -> None:
    tree = ast.parse(
        "import a\nif X:\n    import b\nclass C:\n    import c\ndef f():\n    import d\n"
    )
    names = {n.names[0].name for n in import_nodes(tree, module_level_only=True)}
    assert names == {"a", "b", "c"}
    assert {n.names[0].name for n in import_nodes(tree, module_level_only=False)} == {
        *names,
        "d",
    }


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_in_the_packages() -> None:
    cycles = find_cycles(import_graph())
    assert not cycles, "import circles: " + "; ".join(" <-> ".join(c) for c in cycles)


# ------------------------------------------------------------------ the state's declaration


def test_state_fields_are_declared_once_and_drive_clone_and_json() -> None:
    assert tuple(f.name for f in STATE_FIELDS) == StateCore.__slots__
    state = new_game(GameConfig(num_players=2, mode="legends"), seed=3)
    for _ in range(30):
        state.apply(state.legal_action_list()[0])
    copy = state.clone()
    for f in STATE_FIELDS:
        mine, theirs = getattr(state, f.name), getattr(copy, f.name)
        if f.copy == "share":
            assert mine is theirs, f.name
        elif f.name != "rng":
            assert mine == theirs and mine is not theirs, f.name
            if f.copy == "copy_each":
                assert all(a is not b for a, b in zip(mine, theirs, strict=True)), f.name
    doc = json.loads(state.to_json())
    saved = {f.key for f in STATE_FIELDS if f.check is not None and not f.per_seat}
    assert set(doc) == saved | {"format", "version", "config", "rng", "seats"}
    assert set(doc["seats"][0]) == {f.key for f in STATE_FIELDS if f.per_seat}
