"""Agents by name: ``make_agent("mcts:sims=200,time=0.5")``.

A spec is a registered name, optionally followed by ``:`` and comma-separated
``key=value`` parameters:

=============  ===========================================================================
``random``     uniformly random legal actions
``greedy``     one-ply greedy on the own score
``heuristic``  one-ply on the position evaluation; parameters: the evaluation weights
               (``agents.evaluation.Weights``, e.g. ``heuristic:grow_w=0.8``)
``mc``         flat Monte Carlo; ``sims``, ``time``, ``rollout``, ``depth``, ``value``, ``k``
``mcts``       determinized UCT; the same plus ``c`` (exploration) and ``width``
``ppo:PATH``   a saved MaskablePPO model (``PolicyAgent.from_path``)
``ppo``        the shipped checkpoint, 2 players, base game (:data:`SHIPPED_PPO`)
``trained``    the learned afterstate-value agent (:mod:`agents.trained`): the shipped model
               for the game played (2 or 4 players, base game; other games raise
               ValueError); ``trained:PATH``: a model folder or ``model.pt``
``rllib:DIR``  the learner of an RLlib run (``training.rllib.train``; the ``ray`` extra,
               :mod:`agents.rllib_agent`), its latest checkpoint; options after the path:
               ``rllib:DIR,sample=true,checkpoint=iter_000010``; RLlib unpickles the
               checkpoint: ``trust=1`` (or ``MOONRIVER_TRUST_FILES=1``) must opt in
``az``         the learned policy and value network with a Gumbel root search
               (:mod:`agents.az`): the shipped model for the game played; parameters
               ``sims`` (0: the raw policy), ``k``, ``path`` (a model file), ``sample``,
               ``gumbel``, ``rescale``, ``threads``
=============  ===========================================================================

``openspiel_mcts`` is OpenSpiel's MCTSBot on ``python_moonriver`` (the ``openspiel`` extra,
imported on first use); parameters ``sims``, ``c``, ``rollouts`` (:mod:`agents.openspiel_mcts`).

``time=none`` / ``time=0`` switch the time budget off. Bad specs raise ``ValueError`` naming
the offending field (``spec``, the agent name, or the parameter).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .base import Agent, PolicyAgent
from .evaluation import Weights
from .greedy import GreedyAgent
from .heuristic import HeuristicAgent
from .kingdomino_agents import make_kingdomino_agent
from .mcts import MCTSAgent
from .montecarlo import MonteCarloAgent
from .openspiel_mcts import OpenSpielMCTSAgent
from .random_agent import RandomAgent
from .rllib_agent import RLlibAgent
from .shipped import CHECKPOINTS
from .spec_params import parse_params, split_spec

AGENT_NAMES = ("random", "greedy", "heuristic", "mc", "mcts")
# The MaskablePPO checkpoint kept in the repository (2 players, base game); its provenance
# (command, budget, measured results) is in the same folder.
SHIPPED_PPO = CHECKPOINTS / "ppo_2p_base" / "model.zip"

_SEARCH_PARAMS: dict[str, type] = {
    "sims": int,
    "time": float,
    "rollout": str,
    "depth": int,
    "value": str,
    "k": int,
}
_PARAMS: dict[str, dict[str, type]] = {
    "random": {},
    "greedy": {},
    "heuristic": {name: float for name in Weights.names()},
    "mc": dict(_SEARCH_PARAMS),
    "mcts": {**_SEARCH_PARAMS, "c": float, "width": int},
    "openspiel_mcts": {"sims": int, "c": float, "rollouts": int},
    "az": {
        "sims": int,
        "k": int,
        "path": str,
        "sample": str,
        "gumbel": float,
        "rescale": str,
        "threads": int,
    },
}


def parse_spec(spec: str) -> tuple[str, dict[str, Any]]:
    """``"mcts:sims=200,time=0.5"`` -> ``("mcts", {"sims": 200, "time": 0.5})``."""
    name, rest = split_spec(spec, "mcts:sims=200")
    if name == "ppo":
        if not rest.strip():
            if not SHIPPED_PPO.exists():
                raise ValueError(
                    f"spec: no shipped checkpoint at {SHIPPED_PPO}; give a model path, "
                    "e.g. 'ppo:runs/NAME/best_model.zip'"
                )
            return name, {"path": str(SHIPPED_PPO)}
        return name, {"path": rest.strip()}
    if name == "trained":
        return name, {"path": rest.strip()} if rest.strip() else {}
    if name == "rllib":
        return name, _rllib_params(spec, rest)
    if name not in _PARAMS:
        known = ", ".join(
            (
                *AGENT_NAMES,
                *("ppo", "ppo:PATH", "trained", "trained:PATH", "rllib:DIR", "openspiel_mcts"),
                "az",
            )
        )
        raise ValueError(f"spec: unknown agent {name!r} (known: {known})")
    params = parse_params(spec, name, rest, _PARAMS[name])
    return name, params


def _rllib_params(spec: str, rest: str) -> dict[str, Any]:
    """``DIR[,sample=true][,checkpoint=iter_<N>][,trust=1]`` -> ``{"run_dir", "sample",
    "checkpoint", "trust"}``."""
    path, *items = [p.strip() for p in rest.split(",")]
    if not path:
        raise ValueError(f"spec: expected rllib:RUN_DIR, got {spec!r}")
    params: dict[str, Any] = {"run_dir": path}
    for item in items:
        key, eq, text = (p.strip() for p in item.partition("="))
        if not eq or key not in ("sample", "checkpoint", "trust") or key in params:
            raise ValueError(
                f"{key or item}: not a parameter of agent 'rllib' (parameters: sample, "
                f"checkpoint, trust), or given twice, in {spec!r}"
            )
        if key in ("sample", "trust"):
            if text.lower() not in ("true", "false", "1", "0"):
                raise ValueError(f"{key}: expected true or false for agent 'rllib', got {text!r}")
            params[key] = text.lower() in ("true", "1")
        else:
            params[key] = text
    return params


def make_agent(spec: str, seed: int | None = None, game: str = "moonriver") -> Agent:
    """Build an agent from a spec (module docstring); ``ValueError`` naming a bad field.
    ``game="kingdomino"``: a Kingdomino agent (:func:`agents.kingdomino_agents.make_kingdomino_agent`)."""
    if game == "kingdomino":
        return make_kingdomino_agent(spec, seed=seed)
    name, params = parse_spec(spec)
    if name == "ppo":
        return PolicyAgent.from_path(params["path"], seed=seed)
    if name == "trained":
        from .trained import TrainedAgent  # imports torch: only when asked for

        return TrainedAgent(seed=seed, **params)
    if name == "rllib":
        return RLlibAgent(seed=seed, **params)
    if name == "az":
        from .az import AzAgent  # imports torch: only when asked for

        return AzAgent(seed=seed, **params)
    factories: dict[str, Callable[..., Agent]] = {
        "random": RandomAgent,
        "greedy": GreedyAgent,
        "heuristic": lambda seed, **w: HeuristicAgent(seed, Weights(**w) if w else None),
        "mc": MonteCarloAgent,
        "mcts": MCTSAgent,
        "openspiel_mcts": OpenSpielMCTSAgent,
    }
    return factories[name](seed=seed, **params)
