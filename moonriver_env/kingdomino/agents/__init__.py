"""Kingdomino's agents, offered by spec name through its registry entry's ``agents`` hook
(:data:`AGENTS`; built with :func:`agents.registry.make_agent` ``(spec, game="kingdomino")``
or :func:`make_kingdomino_agent`):

``random`` (uniform, :mod:`.random_agent`), ``greedy`` (the placement and the pick with the
largest immediate gain: the paper's "full greedy"; ``greedy:draft=random``: greedy placement,
random pick; :mod:`.greedy`), ``heuristic`` (one ply on a position value, :mod:`.heuristic`),
``mc`` (flat Monte Carlo over the heuristic's best candidates, with greedy, player-greedy or
random playouts, :mod:`.montecarlo`), ``mcts`` (determinized UCT over the decisions,
:mod:`.mcts`), ``ppo:PATH`` (a model of the reference PPO, or a saved MaskablePPO model,
:mod:`.policy`; a bare ``ppo``: the shipped model of 4 players, the study's rules) and ``az``. The base class
and the playouts they share: :mod:`.common`, :mod:`.search`.
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent, AgentKind
from agents.ppo_agent import reference_ppo_agent
from agents.registry import make_agent
from agents.shipped import CHECKPOINTS
from agents.spec_params import AZ_PARAMS
from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase, new_game

from .common import KingdominoAgent, kingdomino_state
from .greedy import GreedyKingdominoAgent
from .heuristic import HeuristicKingdominoAgent
from .mcts import MCTSKingdominoAgent
from .montecarlo import MonteCarloKingdominoAgent
from .policy import PolicyKingdominoAgent
from .random_agent import RandomKingdominoAgent
from .search import playout

__all__ = [
    "AGENTS",
    "KINGDOMINO_AGENT_NAMES",
    "GreedyKingdominoAgent",
    "HeuristicKingdominoAgent",
    "KingdominoAgent",
    "MCTSKingdominoAgent",
    "MonteCarloKingdominoAgent",
    "PolicyKingdominoAgent",
    "RandomKingdominoAgent",
    "kingdomino_state",
    "make_kingdomino_agent",
    "play_game",
    "playout",
]

KINGDOMINO_AGENT_NAMES = ("random", "greedy", "heuristic", "mc", "mcts")
"""Kingdomino's engine agents (besides ``ppo:PATH``)."""

_SEARCH_PARAMS: dict[str, type] = {
    "sims": int,
    "time": float,
    "rollout": str,
    "value": str,
    "k": int,
}


SHIPPED_PPO = CHECKPOINTS / "ppo_kingdomino_4p_harmony+middle_kingdom+must_place" / "model.pt"
"""The reference PPO's Kingdomino model kept in the repository (4 players, the study's rules;
a core-rollouts run's az model file, played as its raw policy); its provenance (command,
budget, measured results) is in the same folder."""


def _ppo_params(spec: str, rest: str) -> dict[str, Any]:
    """``ppo:PATH`` -> ``{"path": PATH}``; a bare ``ppo``: the shipped model."""
    if rest.strip():
        return {"path": rest.strip()}
    if not SHIPPED_PPO.is_file():
        raise ValueError(
            f"spec: no shipped model at {SHIPPED_PPO}; give ppo:PATH (a model.pt of "
            "training.ppo.ppo, or a MaskablePPO zip trained on Kingdomino-v0)"
        )
    return {"path": str(SHIPPED_PPO)}


def _ppo(seed: int | None = None, path: str = "") -> Agent:
    reference = reference_ppo_agent(path, seed=seed)  # a model of training.ppo.ppo
    return reference if reference is not None else PolicyKingdominoAgent(path, seed=seed)


def _az(seed: int | None = None, **params: Any) -> Agent:
    from agents.az import AzAgent  # imports torch: only when asked for

    return AzAgent(seed=seed, **params)


AGENTS: dict[str, AgentKind] = {
    "random": AgentKind(RandomKingdominoAgent),
    "greedy": AgentKind(GreedyKingdominoAgent, params={"draft": str, "study": str}),
    "heuristic": AgentKind(HeuristicKingdominoAgent),
    "mc": AgentKind(MonteCarloKingdominoAgent, params={**_SEARCH_PARAMS, "engine": str}),
    "mcts": AgentKind(MCTSKingdominoAgent, params={**_SEARCH_PARAMS, "c": float}),
    "ppo": AgentKind(_ppo, parse=_ppo_params, shown=("ppo", "ppo:PATH")),
    "az": AgentKind(_az, params=AZ_PARAMS),
}
"""Kingdomino's agents by spec name: the ``agents`` hook of its entry."""

STRONGEST = ("az", "mc:sims=0,time=0.5,rollout=greedy,k=3,value=margin")
"""The agents seated by default, strongest first (the ``strongest`` hook of its entry): ``az``,
which plays every table (the own models of the study's rules and of the 2- and 3-player base
games, the model of every table ``az_kingdomino`` elsewhere); flat Monte Carlo at 0.5 s a move
where no model plays (a missing or damaged file), which won 0.857 [0.812, 0.892] against three
greedy agents (300 games, 4 players; docs/kingdomino.md) and plays every table."""


def make_kingdomino_agent(spec: str, seed: int | None = None) -> KingdominoAgent:
    """Build a Kingdomino agent from a spec: ``"greedy"``, ``"greedy:draft=random"``,
    ``"mc:sims=200,rollout=greedy"``, ``"mcts:time=1"``, ``"ppo:PATH"``; ``ValueError``
    naming a bad field (:func:`agents.registry.make_agent` with ``game="kingdomino"``)."""
    agent = make_agent(spec, seed=seed, game="kingdomino")
    if not isinstance(agent, KingdominoAgent):
        raise TypeError(f"spec: {spec!r} built {agent!r}, not a Kingdomino agent")
    return agent


def play_game(
    config: KingdominoConfig, agents: list[KingdominoAgent], seed: int
) -> KingdominoState:
    """Play one game at the engine level (each agent ``choose``s for its seat); the final
    state. Agent ``i`` is reset with seed ``seed * 1000 + i``."""
    for i, agent in enumerate(agents):
        agent.reset(seed * 1000 + i)
    state = new_game(config, seed)
    while state.phase != Phase.GAME_OVER:
        state.apply(agents[state.seat].choose(state))
    return state
