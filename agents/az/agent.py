"""The ``az`` agent: the learned network with its search in the native core (:mod:`.search`).

``az`` plays the shipped model of the table seated at: the table's own where one ships
(``agents/checkpoints/az_<table>/model.pt``, ``<table>`` as
:attr:`moonriver_env.games.GameSpec.text` spells it: ``2p_base``,
``kingdomino_4p_harmony+middle_kingdom+must_place``), else the game's model of every table
(``agents/checkpoints/az_<game>/model.pt``: ``az_moonriver``, ``az_kingdomino``; :mod:`.tables`).
A model of another game is refused before the first move, naming both games; ``az:path=FILE`` plays a saved model (a training run's
``checkpoints/latest.pt``). A model plays each table with its search settings, changed for
some tables where its file says so (:func:`.checkpoint.play_settings`). Parameters, each
overriding the model's own search settings:
``sims`` (``sims=0``: the raw policy, no search; else the candidates ``k``), ``k``, ``r``
(determinizations), ``depth`` (decisions after the next reveal), ``leaves`` (values averaged
along a rollout, every ``depth`` decisions), ``rollout_temp`` (the rollouts' policy
temperature; 0: its argmax), ``opponent_temp`` (the other seats' temperature in the rollouts;
negative: ``rollout_temp``'s), ``sample=1`` (draw the move: from the policy with ``sims=0``,
else from the improved policy).

At play time the agent uses only the network and the rules (to list and apply actions,
re-deal hidden pieces and score a finished game): no hand-written evaluation, heuristic or
rule-based rollout.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Any

from agents.base import Agent
from moonriver_env.games import GameSpec

from .checkpoint import (
    CheckpointError,
    check_game,
    game_text,
    load_checkpoint,
    net_shape,
    play_settings,
    read_blob,
    shipped_model,
    shipped_path,
)
from .network import AzNet
from .search import SearchResult, SearchSettings, native_search


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
        seed: seeds the determinizations and the rollouts' noise.
        path: a model file (default: the shipped model of the game played).
        sims, k, r, depth, leaves, rollout_temp, opponent_temp, sample: override the model's
            search settings (``sims=0``: the raw policy; any other ``sims``: the search with
            that many candidates, ``k`` when ``k`` is not given).
    """

    name = "az"

    def __init__(
        self,
        seed: int | None = None,
        path: str | os.PathLike[str] | None = None,
        sims: int | None = None,
        k: int | None = None,
        r: int | None = None,
        depth: int | None = None,
        leaves: int | None = None,
        sample: bool | str | int | None = None,
        rollout_temp: float | str | None = None,
        opponent_temp: float | str | None = None,
    ) -> None:
        super().__init__(seed)
        self.overrides: dict[str, Any] = {}
        for name, value in (("k", k), ("r", r), ("depth", depth), ("leaves", leaves)):
            if value is not None:
                self.overrides[name] = _integer(name, value)
        for name, text in (("rollout_temp", rollout_temp), ("opponent_temp", opponent_temp)):
            if text is not None:
                try:
                    self.overrides[name] = float(text)
                except (TypeError, ValueError):
                    raise ValueError(f"{name}: expected a number, got {text!r}") from None
        count = None if sims is None else _integer("sims", sims)
        self.raw = count == 0
        if count and "k" not in self.overrides:  # sims=N: the search with N candidates
            try:
                replace(SearchSettings(), k=count)
            except ValueError as exc:
                raise ValueError(f"sims: {str(exc).removeprefix('k: ')}") from None
            self.overrides["k"] = count
        self.sample = False if sample is None else _flag("sample", sample)
        replace(SearchSettings(), **self.overrides)  # a bad value raises now, naming it
        self.path = None if path is None else Path(path)
        if self.path is not None:
            net_shape(read_blob(self.path), self.path)  # refuse a bad file at once
        self._loaded: tuple[str, AzNet, Any, SearchSettings, Any] | None = None
        self.last: SearchResult | None = None

    def model_path(self, config: Any) -> Path:
        """The model file for ``config``: the one given, or the game's shipped model."""
        if self.path is not None:
            return self.path
        spec = GameSpec.from_config(config)
        p = shipped_model(spec)
        if p is None:
            raise CheckpointError(
                f"game: no shipped az model for {spec.text} (looked for "
                f"{shipped_path(spec.text)} and {shipped_path(spec.game)}); give one with "
                "az:path=FILE"
            )
        return p

    def load_for(self, config: Any) -> tuple[AzNet, Any, SearchSettings]:
        """The network, its core copy and the search settings for ``config``
        (``CheckpointError`` for a model of another game, another shape, or a damaged file)."""
        key = game_text(config)
        if self._loaded is not None and self._loaded[0] == key:
            return self._loaded[1], self._loaded[2], self._loaded[3]
        path = self.model_path(config)
        net, meta = load_checkpoint(path)
        check_game(net.shape, config, path)
        settings = replace(play_settings(meta, key), **self.overrides)
        if self.raw:
            settings = replace(settings, k=0)
        spec = GameSpec.from_config(config)
        core = net.native(spec if net.shape.tables else None)
        native_state = spec.entry.hook("native_state")
        self._loaded = (key, net, core, settings, native_state)
        return net, self._loaded[2], settings

    @property
    def net(self) -> AzNet | None:
        """The loaded network (``None`` before the first game)."""
        return None if self._loaded is None else self._loaded[1]

    @property
    def settings(self) -> SearchSettings | None:
        """The search settings in use (``None`` before the first game)."""
        return None if self._loaded is None else self._loaded[3]

    def check_game(self, config: Any) -> None:
        """Load the model when seated: a model of another game (or none, or a damaged file)
        is refused before any move."""
        self.load_for(config)

    def search(self, state: Any) -> SearchResult:
        """The full search result of the decision in ``state`` (what :meth:`choose` plays)."""
        _, core_net, settings = self.load_for(state.config)
        assert self._loaded is not None
        root = self._loaded[4].from_state(state)
        seed = int(self.rng.integers(2**63))
        return native_search(core_net, root._core, settings, seed, self.sample)

    def choose(self, state: Any) -> int:
        self.last = self.search(state)
        return self.last.action

    def __repr__(self) -> str:
        return f"AzAgent(seed={self.seed!r}, path={self.path!r}, {self.overrides})"


def _integer(name: str, value: Any) -> int:
    try:
        out = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected an integer, got {value!r}") from None
    if isinstance(value, bool) or str(out) != str(value).strip() and out != value:
        raise ValueError(f"{name}: expected an integer, got {value!r}")
    if out < 0:
        raise ValueError(f"{name}: expected an integer >= 0, got {value!r}")
    return out


def policy_probabilities(agent: AzAgent, state: Any) -> dict[int, float]:
    """The raw policy's probability of each legal action in ``state`` (no search)."""
    _, core_net, settings = agent.load_for(state.config)
    if state.current_seat is None:
        raise ValueError("state: the game is over")
    assert agent._loaded is not None
    root = agent._loaded[4].from_state(state)
    result = native_search(core_net, root._core, replace(settings, k=0), 0)
    return {int(a): float(p) for a, p in zip(result.legal, result.prior, strict=True)}
