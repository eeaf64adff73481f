"""Agents by name: ``make_agent("mcts:sims=200,time=0.5")``, ``make_agent("greedy",
game="kingdomino")``.

A spec is an agent's name, optionally followed by ``:`` and comma-separated ``key=value``
parameters (``mc:sims=64``), or by what that agent reads instead (``ppo:PATH``,
``rllib:DIR,sample=true``). Which names a game knows, their parameters and how they are built
is the game's own: its registry entry's ``agents`` hook
(:meth:`moonriver_env.games.GameEntry.hook`) maps each name to an
:class:`~agents.base.AgentKind` (Moon River's: :mod:`moonriver_env.moonriver.agents`,
Kingdomino's: :mod:`moonriver_env.kingdomino.agents`). Every game offers the baseline names
:data:`AGENT_NAMES`.

``time=none`` / ``time=0`` switch the time budget off. Bad specs raise ``ValueError`` naming
the offending field (``spec``, the agent name, or the parameter); an unknown agent's message
lists the game's agents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from moonriver_env.games import DEFAULT_GAME, game_entry

from .base import Agent, AgentKind
from .random_agent import RandomAgent
from .spec_params import parse_params, split_spec

__all__ = ["AGENT_NAMES", "GENERIC_AGENTS", "game_agents", "make_agent", "parse_spec"]

AGENT_NAMES = ("random", "greedy", "heuristic", "mc", "mcts")
"""The baseline agents every game offers under these names: uniformly random, one-ply greedy,
one-ply heuristic, flat Monte Carlo and determinized UCT."""


GENERIC_AGENTS: Mapping[str, AgentKind] = {"random": AgentKind(RandomAgent)}
"""The agents that play any game of the family through the contract alone: a game without an
``agents`` hook (the tests' third game) offers these; a game's own table may replace them."""


def game_agents(game: str = DEFAULT_GAME) -> Mapping[str, AgentKind]:
    """The agents ``game`` offers by name: its entry's ``agents`` hook, or
    :data:`GENERIC_AGENTS` for a game without one; ``ValueError`` naming ``game`` for an
    unknown game."""
    own: Mapping[str, AgentKind] | None = game_entry(game).hook("agents")
    return GENERIC_AGENTS if own is None else own


def parse_spec(spec: str, game: str = DEFAULT_GAME) -> tuple[str, dict[str, Any]]:
    """``"mcts:sims=200,time=0.5"`` -> ``("mcts", {"sims": 200, "time": 0.5})`` (the agents of
    ``game``)."""
    name, rest = split_spec(spec, "mcts:sims=200")
    agents = game_agents(game)
    kind = agents.get(name)
    if kind is None:
        known = ", ".join(shown for key, k in agents.items() for shown in (k.shown or (key,)))
        title = game_entry(game).title
        raise ValueError(f"spec: unknown {title} agent {name!r} (known: {known})")
    if kind.parse is not None:
        return name, kind.parse(spec, rest)
    return name, parse_params(spec, name, rest, kind.params)


def make_agent(spec: str, seed: int | None = None, game: str = DEFAULT_GAME) -> Agent:
    """Build an agent of ``game`` from a spec (module docstring); ``ValueError`` naming a bad
    field. The agent's :attr:`~agents.base.Agent.spec` is the spec."""
    name, params = parse_spec(spec, game)
    agent = game_agents(game)[name].make(seed=seed, **params)
    agent.spec = spec.strip()
    return agent
