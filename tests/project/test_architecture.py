"""The project's structure: the floors and the rule of imports, no import circles; the state's
fields declared once (:data:`moonriver_env.moonriver.rules.core.STATE_FIELDS`) and clone and JSON derived.

The floors, lowest first (README, "Architecture"; STYLE.md, "Layers, one way down")::

    0 rules                        moonriver_env.moonriver.rules
    1 encoding, render, utilities  encoding, render, games, opponents, text_table
    2 envs and integrations        the rest of moonriver_env (aec, wrappers, rllib, openspiel, ...)
    3 agents                       agents.* (the players and what plays a saved model)
    4 tournaments and arenas       agents.runner, .jobs, .seeds, .workers, .ray_backend, .play,
                                   .tournament, .move_list, .replay, .animate (the arena floor
                                   inside the agents package)
    5 training                     training.*

The import graph of ``moonriver_env``, ``agents`` and ``training`` is read from the source with
:mod:`ast`. Every import of a project module counts, wherever it stands (module level, inside a
function, under ``TYPE_CHECKING``). The rules:

1. An import points to the same floor or a lower one.
2. No circles, function-level imports included.
3. A project module is imported inside a function only to defer an optional third-party library:
   the imported module needs (at its module level, through its own module-level imports) a
   library outside the standard library and NumPy that the importing module does not need.

:data:`ALIASES` are modules kept at an old path that only re-export from their new home:
``training/policy.py`` (the shipped ``ppo_2p_base/model.zip`` names ``MoonRiverPolicy`` by that
module path), ``moonriver_env/wrappers.py`` (the single-agent env's old name) and
``moonriver_env/rllib.py`` (the RLlib env and module under their public name; older runs name
the module class by it). All point down or sideways, so rule 1 holds without an exception; the test pins that they stay pure
re-exports.
"""

from __future__ import annotations

import ast
import json
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from moonriver_env.moonriver.rules.core import STATE_FIELDS, StateCore
from moonriver_env.rules import GameConfig, new_game

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("moonriver_env", "agents", "training")
CORE_LIBRARIES = frozenset({"numpy"})  # the one required dependency (pyproject)

FLOOR_NAMES = (
    "rules",
    "encoding, render, utilities",
    "envs and integrations",
    "agents",
    "tournaments and arenas",
    "training",
)
GAME_ROLES: dict[str, int] = {
    "rules": 0,
    "encoding": 1,
    "render": 1,
    "records": 1,
    "move_text": 1,
    "game": 1,
    "args": 2,
    "env": 2,
    "openspiel": 2,
    "vector": 2,
    "agents": 3,
    "replay": 4,
    "board": 4,
    "play": 4,
    "paper": 4,
}
"""The floor of each part of a game's folder (``moonriver_env/<game>/<part>``): a game's folder
crosses the floors, each part standing where the generic layer it plugs into stands. A part
not listed is on no floor (the test says so) until it is given one here."""


def game_folders() -> tuple[str, ...]:
    """The package of each game shipped with the project, read from the registry's
    ``BUILTIN_GAMES`` (``moonriver_env.<game>.game``) without importing it."""
    tree = ast.parse((REPO / "moonriver_env" / "games.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "BUILTIN_GAMES":
            value = ast.literal_eval(node.value)  # type: ignore[arg-type]
            return tuple(module.rpartition(".")[0] for module in value.values())
    raise AssertionError("moonriver_env/games.py: no BUILTIN_GAMES")


GAMES = game_folders()
FLOORS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        FLOOR_NAMES[0],
        (
            "moonriver_env.family",
            "moonriver_env.rules",  # alias of the Moon River engine's public path
            *(f"{g}.{part}" for g in GAMES for part, f in GAME_ROLES.items() if f == 0),
        ),
    ),
    (
        FLOOR_NAMES[1],
        (
            "moonriver_env.encoding",  # aliases of public paths
            "moonriver_env.render",
            "moonriver_env.games",
            "moonriver_env.opponents",
            "moonriver_env.text_table",
            *(f"{g}.{part}" for g in GAMES for part, f in GAME_ROLES.items() if f == 1),
        ),
    ),
    (
        FLOOR_NAMES[2],
        ("moonriver_env", *(f"{g}.{p}" for g in GAMES for p, f in GAME_ROLES.items() if f == 2)),
    ),
    (FLOOR_NAMES[3], tuple(f"{g}.{p}" for g in GAMES for p, f in GAME_ROLES.items() if f == 3)),
    (
        FLOOR_NAMES[4],
        (
            "agents.runner",
            "agents.jobs",
            "agents.seeds",
            "agents.workers",
            "agents.ray_backend",
            "agents.tournament",
            "agents.play",
            "agents.saved_game",
            "agents.ratings",
            "agents.move_list",
            "agents.policy_games",
            "agents.replay",
            "agents.animate",
            "agents.serve",
            *(f"{g}.{p}" for g in GAMES for p, f in GAME_ROLES.items() if f == 4),
        ),
    ),
    (FLOOR_NAMES[5], ("training",)),
)
ALIASES = {
    "training.policy": ("agents.networks.policy",),
    "moonriver_env.wrappers": ("moonriver_env.single_agent",),
    "moonriver_env.rllib": ("moonriver_env.rllib_env", "moonriver_env.rllib_module"),
    # the public paths of README, docs and notebooks, kept when the games got their folders
    "moonriver_env.rules": ("moonriver_env.moonriver.rules",),
    "moonriver_env.render": ("moonriver_env.moonriver.render",),
    "moonriver_env.encoding": ("moonriver_env.moonriver.encoding",),
    "moonriver_env.aec": ("moonriver_env.moonriver.env",),
    "moonriver_env.openspiel": ("moonriver_env.moonriver.openspiel",),
    "moonriver_env.kingdomino": ("moonriver_env.kingdomino.rules",),
    "moonriver_env.kingdomino_v0": ("moonriver_env.kingdomino", "moonriver_env.kingdomino.env"),
}
"""Modules kept at an old path that only re-export from their new home(s)."""


def floor(module: str) -> int:
    """The floor of ``module`` (index into :data:`FLOORS`): the longest matching prefix; a
    game folder's package is on the rules floor (it re-exports its rules, nothing more), and
    a part of a game folder that :data:`GAME_ROLES` does not list is on no floor."""
    if module in GAMES:
        return 0
    game = next((g for g in GAMES if module.startswith(g + ".")), None)
    if game is not None and module[len(game) + 1 :].partition(".")[0] not in GAME_ROLES:
        raise AssertionError(f"{module}: a part of a game folder on no floor (GAME_ROLES)")
    best, length = -1, -1
    for i, (_, prefixes) in enumerate(FLOORS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and len(prefix) > length:
                best, length = i, len(prefix)
    if module == "agents" or module.startswith("agents.") and length < len("agents.x"):
        return 3 if best < 4 else best
    if best < 0:
        raise AssertionError(f"{module}: on no floor")
    return best


def module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@dataclass(frozen=True)
class Edge:
    """One import of a project module (``target``) by ``source``; ``lazy``: inside a
    function."""

    source: str
    target: str
    lazy: bool
    line: int


def _function_nodes(tree: ast.AST) -> set[int]:
    """The ids of the import statements inside a function (or lambda) of ``tree``."""
    inside: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            inside.update(
                id(n) for n in ast.walk(node) if isinstance(n, (ast.Import, ast.ImportFrom))
            )
    return inside


def _targets(node: ast.Import | ast.ImportFrom, package: str) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level:
        base = package.split(".")
        base = base[: len(base) - node.level + 1]
        stem = ".".join([*base, node.module] if node.module else base)
    else:
        stem = node.module or ""
    return [stem, *(f"{stem}.{alias.name}" for alias in node.names)]


def read_module(
    name: str, source: str, is_package: bool, modules: set[str]
) -> tuple[list[Edge], set[str]]:
    """The project imports of module ``name`` (its ``source``) and the third-party libraries
    it imports at module level (top-level names outside the standard library and the
    project)."""
    package = name if is_package else name.rpartition(".")[0]
    tree = ast.parse(source)
    lazy = _function_nodes(tree)
    edges: list[Edge] = []
    libraries: set[str] = set()
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        found = [t for t in _targets(node, package) if t in modules and t != name]
        for target in found:
            edges.append(Edge(name, target, id(node) in lazy, node.lineno))
        top = _targets(node, package)[0].partition(".")[0]
        if (
            not found
            and not node_is_relative(node)
            and id(node) not in lazy
            and top not in PACKAGES
            and top not in sys.stdlib_module_names
            and top != "__future__"
        ):
            libraries.add(top)
    return edges, libraries


def node_is_relative(node: ast.Import | ast.ImportFrom) -> bool:
    return isinstance(node, ast.ImportFrom) and node.level > 0


def project_sources() -> dict[str, tuple[str, bool]]:
    """Every project module: name -> (source, is a package's ``__init__``)."""
    paths = sorted(p for pkg in PACKAGES for p in (REPO / pkg).rglob("*.py"))
    return {module_name(p): (p.read_text(), p.name == "__init__.py") for p in paths}


def read_project(
    sources: Mapping[str, tuple[str, bool]],
) -> tuple[list[Edge], dict[str, set[str]]]:
    """All project imports, and per module the libraries it needs at import time (its own
    module-level ones and those of the project modules it imports at module level)."""
    modules = set(sources)
    edges: list[Edge] = []
    own: dict[str, set[str]] = {}
    for name, (source, is_package) in sources.items():
        found, libraries = read_module(name, source, is_package, modules)
        edges.extend(found)
        own[name] = libraries
    eager: dict[str, set[str]] = {m: set() for m in modules}
    for e in edges:
        if not e.lazy:
            eager[e.source].add(e.target)
    needs: dict[str, set[str]] = {}
    for m in modules:
        seen, stack, libs = {m}, [m], set()
        while stack:
            v = stack.pop()
            libs |= own[v]
            for w in eager[v]:
                if w not in seen:
                    seen.add(w)
                    stack.append(w)
        needs[m] = libs
    return edges, needs


def graph_of(edges: list[Edge]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for e in edges:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    return graph


def violations(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """Every breach of the rules of the module docstring, one line each."""
    edges, needs = read_project(sources)
    out = []
    for e in edges:
        if floor(e.target) > floor(e.source):
            out.append(
                f"{e.source}:{e.line} imports {e.target}: up from floor "
                f"{FLOORS[floor(e.source)][0]!r} to {FLOORS[floor(e.target)][0]!r}"
            )
        if e.lazy:
            deferred = needs[e.target] - needs[e.source] - CORE_LIBRARIES
            if not deferred:
                out.append(
                    f"{e.source}:{e.line} imports {e.target} inside a function, deferring no "
                    "optional library: import it at module level"
                )
    for cycle in find_cycles(graph_of(edges)):
        out.append("import circle: " + " <-> ".join(cycle))
    return out


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
    edges, needs = read_project(project_sources())
    graph = graph_of(edges)
    assert "moonriver_env.moonriver.rules.state" in graph["moonriver_env.moonriver.rules"]
    assert "moonriver_env.moonriver.rules.core" in graph["moonriver_env.moonriver.rules.state"]
    assert "agents.tournament.report" in graph["agents.tournament.results"]
    assert "agents.base" in graph["training.common.ladder"]
    assert any(e.lazy for e in edges)  # function-level imports are read too
    assert "torch" in needs["agents.networks.policy"]
    assert "torch" not in needs["moonriver_env.moonriver.rules"]


def test_the_rules_hold() -> None:
    found = violations(project_sources())
    assert not found, "\n".join(found)


def _with(extra: dict[str, str]) -> dict[str, tuple[str, bool]]:
    sources = dict(project_sources())
    for name, text in extra.items():
        sources[name] = (text, False)
    return sources


def test_an_upward_import_fails_even_inside_a_function() -> None:
    bad = {"moonriver_env.moonriver.rules.bad": "def f():\n    from agents import make_agent\n"}
    found = violations(_with(bad))
    assert any(
        "moonriver_env.moonriver.rules.bad:2 imports agents: up from floor 'rules'" in v
        for v in found
    )


def test_a_circle_fails() -> None:
    bad = {
        "agents.bad_a": "from agents import bad_b\n",
        "agents.bad_b": "def f():\n    from agents import bad_a\n",
    }
    found = violations(_with(bad))
    assert "import circle: agents.bad_a <-> agents.bad_b" in found


def test_a_lazy_import_of_a_pure_module_fails_and_of_an_optional_library_passes() -> None:
    pure = {"training.bad": "def f():\n    from moonriver_env.rules import GameConfig\n"}
    assert any(
        "training.bad:2 imports moonriver_env.rules inside a function" in v
        for v in violations(_with(pure))
    )
    torch_user = {
        "training.fine": "def f():\n    from agents.networks.policy import MoonRiverPolicy\n"
    }
    assert not [v for v in violations(_with(torch_user)) if "training.fine" in v]


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert find_cycles(graph) == [["a", "b", "c"]]
    assert find_cycles({"a": {"b"}, "b": set()}) == []


def test_every_module_is_on_a_floor_and_the_floors_are_ordered() -> None:
    for name in project_sources():
        floor(name)
    assert floor("moonriver_env.moonriver.rules.state") < floor("moonriver_env.moonriver.encoding")
    assert floor("moonriver_env.moonriver.encoding") < floor("moonriver_env.moonriver.env")
    assert (
        floor("moonriver_env.moonriver.env")
        < floor("moonriver_env.moonriver.agents.heuristic")
        < floor("agents.runner")
    )
    assert floor("agents.tournament.games") < floor("training.ppo.ppo")


def test_the_alias_only_re_exports() -> None:
    for alias, homes in ALIASES.items():
        path = REPO / (alias.replace(".", "/") + ".py")
        if not path.exists():
            path = REPO / alias.replace(".", "/") / "__init__.py"
        tree = ast.parse(path.read_text())
        body = [n for n in tree.body if not isinstance(n, ast.Expr)]  # the docstring
        imports = [n for n in body if isinstance(n, ast.ImportFrom)]
        assert imports and all(n.module in homes for n in imports), alias
        rest = [n for n in body if not isinstance(n, ast.ImportFrom)]
        assert all(
            isinstance(n, ast.Assign) and n.targets[0].id in ("__all__", "__doc__")  # type: ignore[attr-defined]
            for n in rest
        ), alias


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


def test_the_cited_house_style_is_in_the_repository() -> None:
    style = (REPO / "STYLE.md").read_text(encoding="utf-8")
    assert "**Layers, one way down**" in style  # the section this module's docstring cites
    assert "test_architecture.py" in style
