"""The package's structure: no import circles inside ``moonriver_env``; the state's fields
declared once (:data:`moonriver_env.rules.core.STATE_FIELDS`) and clone and JSON derived.

The import graph is read from the source with :mod:`ast`, counting every import of a
``moonriver_env`` module wherever it stands (module level, inside a function, under
``TYPE_CHECKING``): a circle that only a late import breaks at run time is still a circle
in the design (STYLE.md, "Layers, one way down").
"""

from __future__ import annotations

import ast
import json
from pathlib import Path

from moonriver_env.rules import GameConfig, new_game
from moonriver_env.rules.core import STATE_FIELDS, StateCore

PACKAGE = "moonriver_env"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_modules(path: Path, modules: set[str]) -> set[str]:
    """The ``moonriver_env`` modules that ``path`` imports (a package import counts for
    the package's ``__init__``; ``from pkg import mod`` counts for ``pkg.mod``)."""
    name = module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                stem = ".".join([*base, node.module] if node.module else base)
            else:
                stem = node.module or ""
            targets = [stem, *(f"{stem}.{alias.name}" for alias in node.names)]
        else:
            continue
        for target in targets:
            if target in modules and target != name:
                out.add(target)
    return out


def import_graph() -> dict[str, set[str]]:
    paths = sorted(ROOT.rglob("*.py"))
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


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_in_the_package() -> None:
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
