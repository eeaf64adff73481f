"""The players of every game of the family, and the arenas they play in.

``make_agent("heuristic")`` (Moon River, the default game) or ``make_agent("greedy",
game="kingdomino")`` builds one by spec (:mod:`agents.registry`); every agent has
``reset(seed)`` and ``act(observation, env)`` (:mod:`agents.base`). This package names no
game: each game's own agents live in its folder (``moonriver_env/moonriver/agents/``,
``moonriver_env/kingdomino/agents/``) and are found through its registry entry.
"""

from moonriver_env.opponents import AgentFactory, register_agent_factory

from .base import Agent, AgentKind, PolicyAgent
from .random_agent import RandomAgent
from .registry import AGENT_NAMES, make_agent, parse_spec

# The environments build opponents given by spec through this plug (they never import agents).
register_agent_factory(AgentFactory(make=make_agent, check=parse_spec))

__all__ = [
    "AGENT_NAMES",
    "Agent",
    "AgentKind",
    "PolicyAgent",
    "RandomAgent",
    "make_agent",
    "parse_spec",
]
