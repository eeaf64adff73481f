"""The ``az`` agent: a policy and value network with a Gumbel root search (:mod:`.search`).

``az`` plays the shipped model of the game seated in (``agents/checkpoints/az_<n>p_<mode>/
model.pt``; other games are refused before the first move, naming both games); ``az:path=FILE``
plays a saved model (a training run's ``checkpoints/latest.pt``). Parameters: ``sims`` (value
evaluations per decision, default the model's; ``sims=0`` is the raw policy), ``k``
(candidates), ``sample=1`` (with ``sims=0``: sample the policy instead of its argmax),
``gumbel`` (noise scale; 0 by default), ``rescale`` (0: Q-values in utility units, not
min-max rescaled), ``threads`` (torch threads; 1 by default).

At play time the agent uses only the network, the rules (to list and apply actions, and to score a
finished game) and :func:`moonriver_env.moonriver.agents.common.determinize`: no hand-written
evaluation, heuristic or rule-based rollout.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.base import Agent
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameConfig, GameState

from .checkpoint import (
    CheckpointError,
    check_game,
    game_text,
    load_checkpoint,
    net_shape,
    read_blob,
    shipped_path,
)
from .network import AzNet
from .search import Evaluator, SearchResult, SearchSettings, gumbel_search


def _flag(name: str, value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes"):
        return True
    if text in ("0", "false", "no"):
        return False
    raise ValueError(f"{name}: expected true or false (1 or 0), got {value!r}")


class AzAgent(Agent):
    """The learned ``az`` agent (module docstring).

    Args:
        seed: seeds the determinizations and the Gumbel noise.
        path: a model file (default: the shipped model of the game played).
        sims, k, gumbel, sample: override the model's search settings.
        threads: torch threads (1: the agent shares the cores with other players).
    """

    name = "az"

    def __init__(
        self,
        seed: int | None = None,
        path: str | os.PathLike[str] | None = None,
        sims: int | None = None,
        k: int | None = None,
        gumbel: float | None = None,
        sample: bool | str | int | None = None,
        rescale: bool | str | int | None = None,
        threads: int = 1,
    ) -> None:
        super().__init__(seed)
        if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
            raise ValueError(f"threads: expected an integer >= 1, got {threads!r}")
        self.overrides: dict[str, Any] = {}
        if sims is not None:
            self.overrides["sims"] = sims
        if k is not None:
            self.overrides["k"] = k
        if gumbel is not None:
            self.overrides["gumbel_scale"] = float(gumbel)
        if sample is not None:
            self.overrides["sample"] = _flag("sample", sample)
        if rescale is not None:
            self.overrides["rescale"] = _flag("rescale", rescale)
        replace(SearchSettings(), **self.overrides)  # a bad value raises now, naming it
        self.path = None if path is None else Path(path)
        if self.path is not None:
            net_shape(read_blob(self.path), self.path)  # refuse a bad file at once
        self.threads = threads
        self._loaded: tuple[str, Evaluator, SearchSettings, Path] | None = None
        self.last: SearchResult | None = None

    def model_path(self, config: GameConfig) -> Path:
        """The model file for ``config``: the one given, or the game's shipped model."""
        if self.path is not None:
            return self.path
        game = game_text(config)
        p = shipped_path(game)
        if not p.is_file():
            raise CheckpointError(
                f"game: no shipped az model for {game} (looked for {p}); give one with az:path=FILE"
            )
        return p

    def load_for(self, config: GameConfig) -> tuple[Evaluator, SearchSettings]:
        """The evaluator and search settings for ``config`` (``CheckpointError`` for a model
        of another game, another shape, or a damaged file)."""
        key = game_text(config)
        if self._loaded is not None and self._loaded[0] == key:
            return self._loaded[1], self._loaded[2]
        path = self.model_path(config)
        net, meta = load_checkpoint(path)
        check_game(net.shape, config, path)
        self._set_threads()
        settings = replace(SearchSettings(**meta.get("search", {})), **self.overrides)
        evaluator = Evaluator(net, ObservationEncoder(config))
        self._loaded = (key, evaluator, settings, path)
        return evaluator, settings

    def _set_threads(self) -> None:
        if torch.get_num_threads() != self.threads:
            torch.set_num_threads(self.threads)

    @property
    def net(self) -> AzNet | None:
        """The loaded network (``None`` before the first game)."""
        return None if self._loaded is None else self._loaded[1].net

    @property
    def settings(self) -> SearchSettings | None:
        """The search settings in use (``None`` before the first game)."""
        return None if self._loaded is None else self._loaded[2]

    def check_game(self, config: GameConfig) -> None:
        """Load the model when seated: a model of another game (or none, or a damaged file)
        is refused before any move."""
        self.load_for(config)

    def search(self, state: GameState) -> SearchResult:
        """The full search result of the decision in ``state`` (what :meth:`choose` plays)."""
        evaluator, settings = self.load_for(state.config)
        self._set_threads()
        return gumbel_search(evaluator, [state], settings, [self.rng])[0]

    def choose(self, state: GameState) -> int:
        self.last = self.search(state)
        return self.last.action

    def __repr__(self) -> str:
        return f"AzAgent(seed={self.seed!r}, path={self.path!r}, {self.overrides})"


def policy_probabilities(agent: AzAgent, state: GameState) -> dict[int, float]:
    """The raw policy's probability of each legal action in ``state`` (no search)."""
    evaluator, _ = agent.load_for(state.config)
    seat = state.current_seat
    if seat is None:
        raise ValueError("state: the game is over")
    logits, _ = evaluator.policy_value(evaluator.encode([state], [seat]))
    legal = np.asarray(state.legal_action_list(), dtype=np.int64)
    z = logits[0, legal] - logits[0, legal].max()
    p = np.exp(z) / np.exp(z).sum()
    return {int(a): float(x) for a, x in zip(legal, p, strict=True)}
