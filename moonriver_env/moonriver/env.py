"""The PettingZoo AEC environment for Moon River (the adapter: agent names, spaces, rewards).

Import it as ``from moonriver_env import moonriver_v0``. The environment card (spaces, action
layout, observation channels, rewards, version history) is in :mod:`moonriver_env.moonriver_v0`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from moonriver_env.aec_base import GameAECEnv, ResetNeeded, env_metadata, wrap
from moonriver_env.env_checks import (
    DEFAULT_DENSE_REWARD,
    DEFAULT_REWARD,
    OBS_TYPES,
    RENDER_MODES,
    REWARD_MODES,
)
from moonriver_env.moonriver import render as rendering
from moonriver_env.moonriver.args import env_settings
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.render.picture import check_scale
from moonriver_env.moonriver.rules import GameConfig, GameState, Phase, new_game, scoring
from moonriver_env.moonriver.rules.scoring import ScoreBreakdown
from moonriver_env.seat_rewards import rank_rewards

__all__ = [
    "OBS_TYPES",
    "PHASE_NAMES",
    "RENDER_MODES",
    "REWARD_MODES",
    "SCORE_COLUMNS",
    "ResetNeeded",
    "env",
    "raw_env",
    "win_rewards",
    "win_share",
]

PHASE_NAMES: tuple[str, ...] = tuple(p.name for p in Phase)
"""``infos[agent]["phase"]`` is a phase code; ``PHASE_NAMES[code]`` (``Phase(code).name``) names
it."""
SCORE_COLUMNS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(ScoreBreakdown))
"""The columns of ``infos[agent]["score"]`` (one seat) and ``infos[agent]["scores"]`` (one row
per seat): territories, resources, partners, scenario, total, largest_territory, cows."""


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped PettingZoo's way (:func:`moonriver_env.aec_base.wrap`): an
    illegal action ends the game for everybody with ``-1`` for the offender and ``0`` for the
    others; out-of-range actions assert; calls out of order raise."""
    return wrap(raw_env(**kwargs))


def win_rewards(scores: list[ScoreBreakdown]) -> list[float]:
    """Rank-based rewards summing to zero: each seat gets (opponents it beats - opponents that
    beat it) / (n - 1), comparing (total, largest territory, cows) as the tie-breaks do.
    With 2 players: +1 win, -1 loss, 0 shared win."""
    return rank_rewards([s.rank_key for s in scores])


def win_share(winners: np.ndarray, seat: int) -> float:
    """The seat's share of the win from ``infos[agent]["winners"]`` (a 0/1 mask over seats):
    :func:`moonriver_env.moonriver.rules.scoring.win_share` of the winning seats (1 for a sole winner,
    1/k for one of k winners, 0 otherwise and before the end)."""
    return scoring.win_share(np.flatnonzero(winners).tolist(), seat)


class raw_env(GameAECEnv):  # noqa: N801 (PettingZoo's naming)
    """Moon River as a PettingZoo AEC environment (see :mod:`moonriver_env.moonriver_v0`)."""

    metadata = env_metadata("moonriver_v0")

    def __init__(
        self,
        num_players: int | None = None,
        mode: str | None = None,
        scenario: str | None = None,
        boards: tuple[str, ...] | str | None = None,
        reward: str = DEFAULT_REWARD,
        dense_reward: float = DEFAULT_DENSE_REWARD,
        obs_type: str = "dict",
        auto_resolve: bool | None = None,
        render_mode: str | None = None,
        config: GameConfig | None = None,
        render_scale: int | None = None,
    ) -> None:
        """Arguments: the environment card (:mod:`moonriver_env.moonriver_v0`); they are
        checked by :func:`moonriver_env.moonriver.args.env_settings`."""
        settings = env_settings(self._record_arguments(locals()))
        self.render_scale = check_scale(render_scale, "render_scale")  # rgb_array zoom
        config = settings.config
        self.config = config
        self.reward_mode = settings.reward
        self.dense_reward = settings.dense_reward
        self.obs_type = settings.obs_type
        self.render_mode = settings.render_mode
        self.encoder = enc = ObservationEncoder(config)
        high = np.concatenate([enc.plane_high.ravel(), enc.feature_high]).astype(np.float32)
        self._init_agents(spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32))
        self.state: GameState | None = None
        self._last_totals: list[int] = []
        self._blank_info: dict[str, np.ndarray] = {}
        self._no_mask = np.zeros(config.num_actions, dtype=np.int8)

    # -- the game's part of the AEC bookkeeping (moonriver_env.aec_base) ---------------------
    def _new_game(self, seed: int) -> GameState:
        return new_game(self.config, seed=seed)

    def _start_game(self, state: GameState) -> None:
        n = self.config.num_players
        self._last_totals = [0] * n
        # The end-of-game entries of the infos until the end (zeros) and the mask of an agent
        # not to act (flat mode): new for every game, shared by its steps and never written
        # (the final infos get new arrays), so infos a caller keeps stay as they were given.
        self._blank_info = {
            "score": np.zeros(len(SCORE_COLUMNS), dtype=np.int64),
            "scores": np.zeros((n, len(SCORE_COLUMNS)), dtype=np.int64),
            "winners": np.zeros(n, dtype=np.int8),
        }
        self._no_mask = np.zeros(self.config.num_actions, dtype=np.int8)

    def _observation(self, state: GameState, seat: int) -> np.ndarray:
        return self.encoder.encode_flat(state, seat)

    def _add_dense_rewards(self, state: GameState, rewards: dict[str, float]) -> None:
        totals = self.encoder.ranch_totals(state)
        for i, a in enumerate(self.possible_agents):
            rewards[a] += self.dense_reward * (totals[i] - self._last_totals[i])
        self._last_totals = totals

    def _win_rewards(self, state: GameState) -> list[float]:
        return win_rewards(state.scores())

    def _final_points(self, state: GameState) -> list[int]:
        return [s.total for s in state.scores()]

    def _render_text(self, state: GameState) -> str:
        return rendering.render_ansi(state)

    def _render_rgb(self, state: GameState) -> np.ndarray:
        return rendering.render_rgb(state, scale=self.render_scale)

    def _render_human(self, state: GameState) -> None:
        if rendering.can_display():  # a window, else the text view on stdout
            rendering.show_human(rendering.render_rgb(state, scale=self.render_scale))
        else:
            print(rendering.render_ansi(state))

    def _set_infos(self) -> None:
        """The same keys for every agent on every step, every value a number or a numeric
        array (batchable): ``phase`` (code), ``score`` / ``scores`` / ``winners`` (zero until
        the end), and in flat mode ``action_mask`` (all zero unless the agent is to act)."""
        state = self._require_state()
        if state.is_terminal:
            self.infos = self._final_infos(state)
            return
        blank = self._blank_info
        phase = int(state.phase)
        if self.obs_type == "flat":
            sel = self.agent_selection
            mask, no_mask = self._mask(sel), self._no_mask
            self.infos = {
                a: dict(blank, phase=phase, action_mask=mask if a == sel else no_mask)
                for a in self.agents
            }
        else:
            self.infos = {a: dict(blank, phase=phase) for a in self.agents}

    def _final_infos(self, state: GameState) -> dict[str, dict[str, Any]]:
        table = np.array(
            [[getattr(s, c) for c in SCORE_COLUMNS] for s in state.scores()], dtype=np.int64
        )
        winners = np.zeros(len(table), dtype=np.int8)
        winners[state.winners()] = 1
        infos: dict[str, dict[str, Any]] = {}
        for a in self.agents:
            infos[a] = {
                "score": table[self.agent_name_mapping[a]].copy(),
                "scores": table,
                "winners": winners,
                "phase": int(state.phase),
            }
            if self.obs_type == "flat":
                infos[a]["action_mask"] = np.zeros(self.config.num_actions, dtype=np.int8)
        return infos
