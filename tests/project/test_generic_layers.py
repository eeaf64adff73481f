"""The generic layers name no game, and no game's package imports another game's (STYLE.md:
one home per fact; docs/architecture.md, "One folder per game").

Read from the source with :mod:`ast` (the import graph's reading of ``test_architecture.py``),
every import counted wherever it stands (module level, inside a function, under
``TYPE_CHECKING``):

* **The generic layers**: ``moonriver_env/family/``, ``moonriver_env/vector/`` and the modules
  at the package's top (``single_agent.py``, ``rllib_env.py``, ``play_random.py``, the
  benchmarks, ...). None imports a game's package, a game's public path (an alias, below) or
  a module that imports a game (``moonriver_env.vector``: import what it re-exports from its
  home), and none names a game in its code: an identifier or a string other than a docstring that
  holds a shipped game's name or title, as the registry spells them (``moonriver``, ``Moon
  River``, ``kingdomino``). Docstrings and comments may name games as examples; the project's
  own names (the package ``moonriver_env``, the distribution ``moonriver-env``, the
  environment variables ``MOONRIVER_*``) are not a game's.
* **The games**: no module of one shipped game's package imports another's package, a public
  path of it, or a module outside the games that imports it (``moonriver_env.vector``, whose
  ``__init__`` re-exports each game's vector class).

A game's public path (``moonriver_v0``, ``kingdomino_v0``, ``aec``, ``encoding``, ``rules``,
...) is a module outside the game folders whose every import comes from one game's package:
it is that game's, not a generic layer. :data:`KEPT` lists the few modules outside the game
folders that name games on purpose, each with its reason.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator, Mapping

from test_architecture import _targets, _with, project_sources

from moonriver_env.games import BUILTIN_GAMES, GAMES

PACKAGE = "moonriver_env"

GAME_PACKAGES: dict[str, str] = {
    name: module.rpartition(".")[0] for name, module in BUILTIN_GAMES.items()
}
"""Each shipped game's package (``moonriver_env.<game>``), read from the registry."""
KEPT: dict[str, str] = {
    "moonriver_env.games": "the registry: BUILTIN_GAMES is the one home naming the shipped games",
    "moonriver_env.rllib": "keeps the RLlib env's first public name, MoonRiverMultiAgentEnv "
    "(a pure re-export: test_architecture.py, ALIASES)",
    "moonriver_env.vector": "the documented public path of each game's vector class "
    "(VectorGame, KingdominoVectorGame)",
}
"""Modules outside the game folders that name games on purpose."""
PROJECT_NAMES = re.compile(r"moonriver[_-]env|MOONRIVER_[A-Z0-9_]*")
"""The project's own names, which share the first game's: left out before the search."""


def game_words() -> re.Pattern[str]:
    """Each shipped game's name and title, in any case, the title's words joined by nothing,
    a space, ``_`` or ``-`` (``MoonRiver``, ``moon_river``, ``Kingdomino``)."""
    words = []
    for name in BUILTIN_GAMES:
        entry = GAMES[name]
        words.append(re.escape(entry.name))
        words.append(r"[\s_-]*".join(re.escape(w) for w in entry.title.split()))
    return re.compile("|".join(words), re.IGNORECASE)


GAME_WORDS = game_words()


def imports(name: str, source: str, is_package: bool) -> Iterator[tuple[str, int]]:
    """Each module ``name`` imports (and each name imported from one, as ``module.name``),
    with its line; relative imports resolved (:func:`test_architecture._targets`)."""
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for target in _targets(node, package):
                if target != "__future__" and not target.startswith("__future__."):
                    yield target, node.lineno


def game_of(module: str) -> str | None:
    """The shipped game whose package ``module`` is in, or ``None``."""
    for game, package in GAME_PACKAGES.items():
        if module == package or module.startswith(package + "."):
            return game
    return None


def games_imported(sources: Mapping[str, tuple[str, bool]], name: str) -> set[str]:
    """The games whose packages module ``name`` imports directly."""
    source, is_package = sources[name]
    found = {game_of(target) for target, _ in imports(name, source, is_package)}
    return {g for g in found if g is not None}


def public_paths(sources: Mapping[str, tuple[str, bool]]) -> dict[str, str]:
    """The modules outside the game folders whose every import comes from one game's package
    (module docstring): module -> game."""
    out = {}
    for name, (source, is_package) in sources.items():
        if game_of(name) is not None:
            continue
        targets = [t for t, _ in imports(name, source, is_package)]
        games = {game_of(t) for t in targets}
        if targets and len(games) == 1 and None not in games:
            out[name] = games.pop()  # type: ignore[assignment]
    return out


def generic_modules(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """``family/``, ``vector/`` and the package's top: the modules that are no game's."""
    aliases = public_paths(sources)
    out = []
    for name in sources:
        parts = name.split(".")
        if parts[0] != PACKAGE:
            continue
        top = len(parts) <= 2
        layer = len(parts) >= 2 and parts[1] in ("family", "vector")
        if (top or layer) and game_of(name) is None and name not in aliases and name not in KEPT:
            out.append(name)
    return sorted(out)


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the string constants standing as statements (docstrings, also an
    attribute's docstring after its assignment)."""
    out = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        for stmt in body if isinstance(body, list) else []:
            if isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant):
                out.add(id(stmt.value))
    return out


def _code_words(tree: ast.AST) -> Iterator[tuple[str, int]]:
    """Every identifier and every string that is not a docstring, with its line."""
    docs = _docstrings(tree)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.value, line
        elif isinstance(node, ast.Name):
            yield node.id, line
        elif isinstance(node, ast.Attribute):
            yield node.attr, line
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            yield node.name, line
        elif isinstance(node, (ast.arg, ast.keyword)) and node.arg:
            yield node.arg, line
        elif isinstance(node, ast.alias):
            yield node.name, line
            if node.asname:
                yield node.asname, line
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module, line


def generic_breaches(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """Every import of a game and every game named in a generic module's code, one line each."""
    aliases = public_paths(sources)
    out = []
    for name in generic_modules(sources):
        source, is_package = sources[name]
        for target, line in imports(name, source, is_package):
            game = game_of(target) or aliases.get(target)
            if game is not None:
                out.append(f"{name}:{line} imports {target} ({game}'s)")
            elif target in sources and games_imported(sources, target):
                games = ", ".join(sorted(games_imported(sources, target)))
                out.append(f"{name}:{line} imports {target}, which imports {games}")
        for text, line in _code_words(ast.parse(source)):
            found = GAME_WORDS.search(PROJECT_NAMES.sub("", text))
            if found:
                out.append(f"{name}:{line} names the game {found.group()!r} in {text[:60]!r}")
    return out


def cross_game_imports(sources: Mapping[str, tuple[str, bool]]) -> list[str]:
    """Every import by one game's package of another game's package, public path, or of a
    module outside the games that imports it."""
    aliases = public_paths(sources)
    out = []
    for name, (source, is_package) in sources.items():
        mine = game_of(name)
        if mine is None:
            continue
        for target, line in imports(name, source, is_package):
            if target not in sources:  # a name imported from a module, or outside the package
                continue
            others = {game_of(target) or aliases.get(target)} - {None, mine}
            if game_of(target) is None and target not in aliases:
                others = games_imported(sources, target) - {mine}
            for other in sorted(o for o in others if o is not None):
                out.append(f"{name}:{line} imports {target}, which is {other}'s")
    return out


def test_the_scan_sees_the_layers_and_the_public_paths() -> None:
    sources = project_sources()
    generic = generic_modules(sources)
    for expected in (
        "moonriver_env.single_agent",
        "moonriver_env.rllib_env",
        "moonriver_env.rllib_module",
        "moonriver_env.play_random",
        "moonriver_env.family.batch",
        "moonriver_env.vector.gym_env",
        "moonriver_env.vector.slot",
    ):
        assert expected in generic, expected
    aliases = public_paths(sources)
    first, second = list(GAME_PACKAGES)[:2]
    assert aliases["moonriver_env.moonriver_v0"] == first
    assert aliases["moonriver_env.rules"] == first
    assert aliases["moonriver_env.kingdomino_v0"] == second
    assert not set(KEPT) - set(sources), "a kept module is gone: drop it from KEPT"


def test_the_generic_layers_name_no_game() -> None:
    found = generic_breaches(project_sources())
    assert not found, "\n".join(found)


def test_no_game_imports_another_game() -> None:
    found = cross_game_imports(project_sources())
    assert not found, "\n".join(found)


def test_a_generic_module_that_names_or_imports_a_game_fails() -> None:
    first, second = (GAMES[name] for name in list(GAME_PACKAGES)[:2])
    bad = {
        "moonriver_env.bad_import": (
            "def f():\n    from moonriver_env.rules import GameConfig\n    return GameConfig\n"
        ),
        "moonriver_env.bad_shared": "from moonriver_env.vector import NATIVE\n",
        "moonriver_env.vector.bad_name": f'"""Docstrings may say {first.title}."""\n'
        f'GAME = "{second.name}_2p_base"\nclass {first.title.replace(" ", "")}Env: ...\n',
        "moonriver_env.family.fine": f'"""{second.title} in prose."""\n'
        'import moonriver_env._native\nFLAG = "MOONRIVER_NATIVE"\n',
    }
    found = generic_breaches(_with(bad))
    assert "moonriver_env.bad_import:2 imports moonriver_env.rules (moonriver's)" in found
    games = ", ".join(sorted(GAME_PACKAGES))
    assert (
        f"moonriver_env.bad_shared:1 imports moonriver_env.vector, which imports {games}" in found
    )
    assert any(f.startswith("moonriver_env.vector.bad_name:2 names the game") for f in found)
    assert any(f.startswith("moonriver_env.vector.bad_name:3 names the game") for f in found)
    assert not [f for f in found if ":1 " in f and "bad_name" in f]  # the docstring
    assert not [f for f in found if "family.fine" in f]


def test_a_game_importing_another_game_fails_also_through_a_shared_path() -> None:
    first, second = list(GAME_PACKAGES.values())[:2]
    bad = {
        f"{second}.bad_direct": f"from {first}.rules import GameConfig\n",
        f"{second}.bad_shared": "def f():\n    from moonriver_env.vector import NATIVE\n",
        f"{second}.fine": "from moonriver_env.family.native import NATIVE\n",
    }
    found = cross_game_imports(_with(bad))
    names = list(GAME_PACKAGES)
    assert f"{second}.bad_direct:1 imports {first}.rules, which is {names[0]}'s" in found
    assert f"{second}.bad_shared:2 imports moonriver_env.vector, which is {names[0]}'s" in found
    assert not [f for f in found if f.startswith(f"{second}.fine")]


TOOLS = ("training.common.ladder", "agents.animate", "training.rllib.train")
"""Modules over the games that once imported Moon River's own (its ``win_share``, its picture,
its env's first name): they read those from the family's kit and the registry."""


def test_the_tools_over_the_games_import_no_games_package() -> None:
    """``training.common.ladder`` (``win_share`` from ``family/records.py``), ``agents.animate``
    (the game's ``render`` hook) and ``training.rllib.train`` (``GameMultiAgentEnv`` with the
    run's ``game``) import no game's package or public path; a game's import put into one of
    them is found."""
    sources = project_sources()
    aliases = public_paths(sources)

    def games_of(name: str, source: str) -> set[str]:
        found = {game_of(t) or aliases.get(t) for t, _ in imports(name, source, False)}
        return {g for g in found if g is not None}

    for name in TOOLS:
        assert games_of(name, sources[name][0]) == set(), name
    bad = sources[TOOLS[0]][0] + "\nfrom moonriver_env.moonriver.rules.scoring import win_share\n"
    assert games_of(TOOLS[0], bad) == {"moonriver"}
