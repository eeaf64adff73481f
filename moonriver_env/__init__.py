"""moonriver-env: the reference reinforcement-learning environment for the board game Moon River.

Importing the package registers ``MoonRiver-v0`` and ``Kingdomino-v0`` with Gymnasium (the single-agent
:class:`moonriver_env.single_agent.SingleAgentEnv`, by entry-point string) if Gymnasium is
installed, without importing Gymnasium here: the rules engine (``moonriver_env.moonriver.rules``) stays
free of RL libraries. If Gymnasium is already imported the id is registered now, otherwise as
soon as Gymnasium is imported.
"""

from __future__ import annotations

import importlib.abc
import importlib.util
import sys
from types import ModuleType
from typing import Any

__version__ = "0.1.0"

from moonriver_env.games import GAMES

GYMNASIUM_ENTRY_POINTS: dict[str, str] = {
    entry.gymnasium_id: entry.single_agent_entry_point
    for entry in GAMES.values()
    if entry.single_agent_entry_point is not None
}
"""Each registered game's Gymnasium id and the entry point of its single-agent env, read from
its registry entry."""
GYMNASIUM_VECTOR_ENTRY_POINTS: dict[str, str] = {
    entry.gymnasium_id: f"moonriver_env.vector.gym_env:vector_env_{entry.name}"
    for entry in GAMES.values()
    if entry.single_agent_entry_point is not None and "vector_game" in entry.hooks
}
"""The vector entry point of each id whose game has a batched form (``gymnasium.make_vec``
builds :class:`moonriver_env.vector.gym_env.GameVectorEnv`)."""
GYMNASIUM_ID = next(iter(GYMNASIUM_ENTRY_POINTS))
"""The default game's Gymnasium id (``MoonRiver-v0``)."""


def _register_with_gymnasium(gymnasium: Any) -> None:
    for env_id, entry_point in GYMNASIUM_ENTRY_POINTS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                id=env_id,
                entry_point=entry_point,
                vector_entry_point=GYMNASIUM_VECTOR_ENTRY_POINTS.get(env_id),
            )


class _RegisterOnImport(importlib.abc.MetaPathFinder):
    """Finds nothing itself: when ``gymnasium`` is first imported, it lets the other finders
    locate it and registers :data:`GYMNASIUM_ENTRY_POINTS` right after the module has run."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != "gymnasium":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            if hasattr(module, "register"):  # not a stub package without Gymnasium's API
                _register_with_gymnasium(module)

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


if "gymnasium" in sys.modules:
    _register_with_gymnasium(sys.modules["gymnasium"])
elif not any(isinstance(f, _RegisterOnImport) for f in sys.meta_path):
    sys.meta_path.insert(0, _RegisterOnImport())
