"""Baseline and search agents for Moon River.

``make_agent("heuristic")`` builds one by name (:mod:`agents.registry`); every agent has
``reset(seed)`` and ``act(observation, env)`` (:mod:`agents.base`).

Ladder (README, 400 games per pair, 2 players, base game): greedy beat random 400/400,
the heuristic beat greedy 398/400, ``mc:sims=64`` beat the heuristic 266/400 (178 ms per
decision on a loaded machine). During development (2 players, base game, seats alternated):
greedy beat random 200/200; heuristic beat greedy 199/200 (2.7 ms per decision);
``mc`` (flat Monte Carlo, 32 simulations, ~45 ms per decision) beat the heuristic 61/100
(mean margin +12.5); head to head ``mc`` beat ``mcts`` (same budget) 13/20, and on the same
20 seeds against the heuristic ``mc`` won 18, ``mcts`` 11.
"""

from moonriver_env.opponents import AgentFactory, register_agent_factory

from .base import Agent, PolicyAgent
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .mcts import MCTSAgent
from .montecarlo import MonteCarloAgent
from .random_agent import RandomAgent
from .registry import AGENT_NAMES, make_agent, parse_spec

# The environments build opponents given by spec through this plug (they never import agents).
register_agent_factory(AgentFactory(make=make_agent, check=parse_spec))

__all__ = [
    "AGENT_NAMES",
    "Agent",
    "GreedyAgent",
    "HeuristicAgent",
    "MCTSAgent",
    "MonteCarloAgent",
    "PolicyAgent",
    "RandomAgent",
    "make_agent",
]
