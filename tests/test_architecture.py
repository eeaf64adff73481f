"""The package's module structure: no import circles inside ``moonriver_env``.

The import graph is read from the source with :mod:`ast`, counting every import of a
``moonriver_env`` module wherever it stands (module level, inside a function, under
``TYPE_CHECKING``): a circle that only a late import breaks at run time is still a circle
in the design (STYLE.md, "Layers, one way down").
"""

from __future__ import annotations

import ast
from pathlib import Path

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
