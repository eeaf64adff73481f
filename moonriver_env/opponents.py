"""Who plays the seats beside the learner: the roles' names (one home) and the environments'
plug for agents given by spec (``"heuristic"``, ``"mcts:sims=50"``).

The environments (``SingleAgentEnv``, the RLlib env) take agent specs as opponents, but the
agents live on a floor above the environments, which never import them. Instead the agents
package fills this plug when it is imported (:func:`register_agent_factory`, called by
``agents/__init__.py``). A spec given before anyone imported the agents loads the provider
named by the entry-point group :data:`ENTRY_POINT_GROUP` (the package's ``pyproject.toml``
declares ``agents.registry``), or :data:`DEFAULT_PROVIDER` when the installed metadata has
none; that is how ``gymnasium.make("MoonRiver-v0", opponents="heuristic")`` works without an
import of ``agents`` in the environment's code.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

LEARNER = "learner"
"""The role of the seats the learning policy plays (in every pipeline and config)."""
SNAPSHOT = "snapshot"
"""The role of a seat played by a frozen earlier copy of the learner."""
BASELINES = ("random", "greedy", "heuristic")
"""The baseline agents that training configs weigh by name."""
OPPONENT_ROLES = (LEARNER, SNAPSHOT, *BASELINES)
"""Every role a training config or the RLlib env weighs (any agent spec is accepted too)."""
DEPRECATED_ROLES = {"self": LEARNER}
"""Older words for a role, accepted with a ``DeprecationWarning``."""

ENTRY_POINT_GROUP = "moonriver_env.agents"
DEFAULT_PROVIDER = "agents.registry"


@dataclass(frozen=True)
class AgentFactory:
    """What the agents package plugs in.

    Attributes:
        make: ``(spec, seed, game=NAME) -> agent`` (an object with ``act(observation, env)``
            and ``reset(seed)``) for the registered game ``NAME``.
        check: ``(spec, game=NAME) -> None``, or ``ValueError`` naming the bad field of the
            spec (without ``game``: the default game).
    """

    make: Callable[..., Any]
    check: Callable[..., object]


_factory: AgentFactory | None = None


def register_agent_factory(factory: AgentFactory) -> None:
    """Plug ``factory`` in (the agents package does this on import; the last one wins)."""
    global _factory
    _factory = factory


def agent_factory() -> AgentFactory:
    """The plugged-in factory, loading the provider (module docstring) if none is yet."""
    if _factory is None:
        providers = metadata.entry_points(group=ENTRY_POINT_GROUP)
        names = [ep.module for ep in providers] or [DEFAULT_PROVIDER]
        for name in names:
            importlib.import_module(name)  # registers itself on import
            if _factory is not None:
                break
        if _factory is None:
            raise RuntimeError(
                f"opponents: no agent factory registered (tried {', '.join(names)}); "
                "import the agents package or pass callables"
            )
    return _factory


def make_opponent(spec: str, seed: int | None = None, game: str | None = None) -> Any:
    """The agent named by ``spec`` for the registered game ``game`` (``None``: the default
    game; ``ValueError`` naming the bad field)."""
    if game is None:
        return agent_factory().make(spec, seed)
    return agent_factory().make(spec, seed, game=game)


def check_agent_spec(spec: str, game: str | None = None) -> None:
    """``ValueError`` naming the bad field if ``spec`` names no agent of the registered game
    ``game`` (``None``: the default game)."""
    if game is None:
        agent_factory().check(spec)
    else:
        agent_factory().check(spec, game=game)
