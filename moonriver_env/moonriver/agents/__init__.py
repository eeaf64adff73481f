"""Moon River's agents, offered by spec name through its registry entry's ``agents`` hook
(:data:`AGENTS`; built with :func:`agents.registry.make_agent`):

=============  ===========================================================================
``random``     uniformly random legal actions (:class:`agents.random_agent.RandomAgent`)
``greedy``     one-ply greedy on the own score (:mod:`.greedy`)
``heuristic``  one-ply on the position evaluation; parameters: the evaluation weights
               (:class:`.evaluation.Weights`, e.g. ``heuristic:grow_w=0.8``)
``mc``         flat Monte Carlo (:mod:`.montecarlo`); ``sims``, ``time``, ``rollout``,
               ``depth``, ``value``, ``k``
``mcts``       determinized UCT (:mod:`.mcts`); the same plus ``c`` (exploration) and ``width``
``ppo:PATH``   a saved MaskablePPO model (:meth:`agents.base.PolicyAgent.from_path`)
``ppo``        the shipped checkpoint, 2 players, base game (:data:`SHIPPED_PPO`)
``trained``    the learned afterstate-value agent (:mod:`.trained`): the shipped model
               for the game played (2 or 4 players, base game; other games raise
               ValueError); ``trained:PATH``: a model folder or ``model.pt``
``rllib:DIR``  the learner of an RLlib run (``training.rllib.train``; the ``ray`` extra,
               :mod:`agents.rllib_agent`), its latest checkpoint; options after the path:
               ``rllib:DIR,sample=true,checkpoint=iter_000010``; RLlib unpickles the
               checkpoint: ``trust=1`` (or ``MOONRIVER_TRUST_FILES=1``) must opt in
``az``         the learned policy and value network with its search in the core
               (:mod:`agents.az`): the shipped model for the game played; parameters
               ``sims`` (0: the raw policy), ``k``, ``r``, ``depth``, ``path`` (a model
               file), ``sample``
=============  ===========================================================================

``openspiel_mcts`` is OpenSpiel's MCTSBot on ``python_moonriver`` (the ``openspiel`` extra,
imported on first use); parameters ``sims``, ``c``, ``rollouts`` (:mod:`.openspiel_mcts`).

Ladder (README, 400 games per pair, 2 players, base game): greedy beat random 400/400,
the heuristic beat greedy 398/400, ``mc:sims=64`` beat the heuristic 266/400.
"""

from __future__ import annotations

from typing import Any

from agents.base import Agent, AgentKind, PolicyAgent
from agents.ppo_agent import reference_ppo_agent
from agents.random_agent import RandomAgent
from agents.rllib_agent import RLlibAgent, rllib_params
from agents.shipped import CHECKPOINTS
from agents.spec_params import AZ_PARAMS

from .evaluation import Weights
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .mcts import MCTSAgent
from .montecarlo import MonteCarloAgent
from .openspiel_mcts import OpenSpielMCTSAgent

__all__ = [
    "AGENTS",
    "SHIPPED_PPO",
    "GreedyAgent",
    "HeuristicAgent",
    "MCTSAgent",
    "MonteCarloAgent",
]

SHIPPED_PPO = CHECKPOINTS / "ppo_2p_base" / "model.zip"
"""The MaskablePPO checkpoint kept in the repository (2 players, base game); its provenance
(command, budget, measured results) is in the same folder."""

_SEARCH_PARAMS: dict[str, type] = {
    "sims": int,
    "time": float,
    "rollout": str,
    "depth": int,
    "value": str,
    "k": int,
}


def _ppo_params(spec: str, rest: str) -> dict[str, Any]:
    """``ppo:PATH`` -> ``{"path": PATH}``; a bare ``ppo``: the shipped checkpoint."""
    if rest.strip():
        return {"path": rest.strip()}
    if not SHIPPED_PPO.exists():
        raise ValueError(
            f"spec: no shipped checkpoint at {SHIPPED_PPO}; give a model path, "
            "e.g. 'ppo:runs/NAME/best_model.zip'"
        )
    return {"path": str(SHIPPED_PPO)}


def _trained_params(spec: str, rest: str) -> dict[str, Any]:
    """``trained:PATH`` -> ``{"path": PATH}``; a bare ``trained``: the shipped model."""
    return {"path": rest.strip()} if rest.strip() else {}


def _ppo(seed: int | None = None, path: str = "") -> Agent:
    reference = reference_ppo_agent(path, seed=seed)  # a model of training.ppo.ppo
    return reference if reference is not None else PolicyAgent.from_path(path, seed=seed)


def _heuristic(seed: int | None = None, **weights: float) -> Agent:
    return HeuristicAgent(seed, Weights(**weights) if weights else None)


def _trained(seed: int | None = None, **params: Any) -> Agent:
    from .trained import TrainedAgent  # imports torch: only when asked for

    return TrainedAgent(seed=seed, **params)


def _az(seed: int | None = None, **params: Any) -> Agent:
    from agents.az import AzAgent  # imports torch: only when asked for

    return AzAgent(seed=seed, **params)


AGENTS: dict[str, AgentKind] = {
    "random": AgentKind(RandomAgent),
    "greedy": AgentKind(GreedyAgent),
    "heuristic": AgentKind(_heuristic, params={name: float for name in Weights.names()}),
    "mc": AgentKind(MonteCarloAgent, params=_SEARCH_PARAMS),
    "mcts": AgentKind(MCTSAgent, params={**_SEARCH_PARAMS, "c": float, "width": int}),
    "ppo": AgentKind(_ppo, parse=_ppo_params, shown=("ppo", "ppo:PATH")),
    "trained": AgentKind(_trained, parse=_trained_params, shown=("trained", "trained:PATH")),
    "rllib": AgentKind(RLlibAgent, parse=rllib_params, shown=("rllib:DIR",)),
    "openspiel_mcts": AgentKind(
        OpenSpielMCTSAgent, params={"sims": int, "c": float, "rollouts": int}
    ),
    "az": AgentKind(
        _az,
        params=AZ_PARAMS,
    ),
}
"""Moon River's agents by spec name (module docstring): the ``agents`` hook of its entry."""

STRONGEST = ("az", "mc:sims=64")
"""The agents seated by default, strongest first (the ``strongest`` hook of its entry): ``az``,
which plays every table (the 2- and 4-player base game's own models, the model of every table
``az_moonriver`` elsewhere); flat Monte Carlo where no model plays (a missing or damaged file),
which beats the heuristic agent (0.665 [0.617, 0.709] over 400 games, 2 players, base game;
docs/results.md) and plays every table."""
