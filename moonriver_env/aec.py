"""The PettingZoo AEC environment for Moon River (the adapter: agent names, spaces, rewards).

Import it as ``from moonriver_env import moonriver_v0``. The environment card (spaces, action
layout, observation channels, rewards, version history) is in :mod:`moonriver_env.moonriver_v0`.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from . import render as rendering
from .encoding import ObservationEncoder
from .env_args import (
    OBS_TYPES,
    RENDER_MODES,
    REWARD_MODES,
    check_options,
    check_seed,
    env_settings,
)
from .render.picture import check_scale
from .rules import GameConfig, GameState, Phase, new_game, scoring
from .rules.scoring import ScoreBreakdown

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


class ResetNeeded(gymnasium.error.ResetNeeded, RuntimeError):
    """The environment was stepped or observed before ``reset()``, or stepped with an action
    after its game was over (Gymnasium's error of that name; also a ``RuntimeError``)."""


def env(**kwargs: Any) -> AECEnv:
    """The environment wrapped PettingZoo's way: an illegal action ends the game for everybody
    with ``-1`` for the offender and ``0`` for the others (``TerminateIllegalWrapper``);
    out-of-range actions assert; calls out of order raise.

    The wrappers are PettingZoo's standard three (``isinstance`` holds), subclassed only to
    read the per-step attributes (``agent_selection``, ``terminations``, ...) straight from the
    raw environment: PettingZoo's ``BaseWrapper.__getattr__`` forwards them one wrapper at a
    time through a failed lookup, which cost about 40% of a step. Behaviour is unchanged.
    """
    e: AECEnv = raw_env(**kwargs)
    e = TerminateIllegalWrapper(e, illegal_reward=-1)
    e = AssertOutOfBoundsWrapper(e)
    e = OrderEnforcingWrapper(e)
    return e


# Attributes an AEC loop reads every step; none of the three wrappers changes them (the
# illegal-move wrapper writes them on ``env.unwrapped``), so reading the raw env is exact.
_FORWARDED = (
    "agents",
    "possible_agents",
    "agent_selection",
    "rewards",
    "_cumulative_rewards",
    "terminations",
    "truncations",
    "infos",
)
# What PettingZoo's OrderEnforcingWrapper refuses before reset().
_NEEDS_RESET = frozenset(
    ("rewards", "terminations", "truncations", "infos", "agent_selection", "agents")
)


def _direct(name: str) -> property:
    return property(operator.attrgetter(f"_raw.{name}"), doc=f"``env.unwrapped.{name}``")


def _direct_after_reset(name: str) -> property:
    get = operator.attrgetter(name)

    def fget(self: Any) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return get(self._raw)

    return property(fget, doc=f"``env.unwrapped.{name}`` (after reset)")


class TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):
    """PettingZoo's wrapper of that name, with direct attribute reads (see :func:`env`)."""

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._raw = env.unwrapped


class AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's wrapper of that name, with direct attribute reads (see :func:`env`) and a
    fast path for the common case, a plain ``int`` inside ``Discrete(num_actions)`` (exactly
    what ``Discrete.contains`` accepts for an ``int``); anything else takes the full check."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        self._num_actions = self._raw.config.num_actions

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._num_actions:
            self.env.step(action)
        else:
            super().step(action)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's wrapper of that name, with direct attribute reads (see :func:`env`);
    reading them before ``reset()`` still raises ``AttributeError``. One change: an action
    other than ``None`` after the game is over (every agent removed) raises
    :class:`ResetNeeded` instead of being dropped with a warning."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

    def step(self, action: Any) -> None:
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        self._has_updated = True
        if self._raw.agents:
            self.env.step(action)
        elif action is None:
            EnvLogger.warn_step_after_terminated_truncated()
        else:
            raise ResetNeeded(
                f"step: the game is over (every agent is done), got action {action!r}; "
                "call reset() to start a new game"
            )

    def __str__(self) -> str:
        return str(self.env)


for _name in _FORWARDED:
    setattr(TerminateIllegalWrapper, _name, _direct(_name))
    setattr(AssertOutOfBoundsWrapper, _name, _direct(_name))
    setattr(
        OrderEnforcingWrapper,
        _name,
        _direct_after_reset(_name) if _name in _NEEDS_RESET else _direct(_name),
    )
del _name


def win_rewards(scores: list[ScoreBreakdown]) -> list[float]:
    """Rank-based rewards summing to zero: each seat gets (opponents it beats - opponents that
    beat it) / (n - 1), comparing (total, largest territory, cows) as the tie-breaks do.
    With 2 players: +1 win, -1 loss, 0 shared win."""
    keys = [s.rank_key for s in scores]
    n = len(keys)
    return [(sum(k > o for o in keys) - sum(k < o for o in keys)) / (n - 1) for k in keys]


def win_share(winners: np.ndarray, seat: int) -> float:
    """The seat's share of the win from ``infos[agent]["winners"]`` (a 0/1 mask over seats):
    :func:`moonriver_env.rules.scoring.win_share` of the winning seats (1 for a sole winner,
    1/k for one of k winners, 0 otherwise and before the end)."""
    return scoring.win_share(np.flatnonzero(winners).tolist(), seat)


class raw_env(AECEnv, EzPickle):  # noqa: N801 (PettingZoo's naming)
    """Moon River as a PettingZoo AEC environment (see :mod:`moonriver_env.moonriver_v0`)."""

    metadata = {
        "render_modes": list(RENDER_MODES),
        "name": "moonriver_v0",
        "is_parallelizable": False,
        "render_fps": 2,
    }

    def __init__(
        self,
        num_players: int | None = None,
        mode: str | None = None,
        scenario: str | None = None,
        boards: tuple[str, ...] | str | None = None,
        reward: str = "win",
        dense_reward: float = 0.0,
        obs_type: str = "dict",
        auto_resolve: bool | None = None,
        render_mode: str | None = None,
        config: GameConfig | None = None,
        render_scale: int | None = None,
    ) -> None:
        """Arguments: the environment card (:mod:`moonriver_env.moonriver_v0`); they are
        checked by :func:`moonriver_env.env_args.env_settings`."""
        arguments: dict[str, Any] = {
            "num_players": num_players,
            "mode": mode,
            "scenario": scenario,
            "boards": boards,
            "reward": reward,
            "dense_reward": dense_reward,
            "obs_type": obs_type,
            "auto_resolve": auto_resolve,
            "render_mode": render_mode,
            "config": config,
        }
        EzPickle.__init__(self, **arguments, render_scale=render_scale)
        super().__init__()
        settings = env_settings(arguments)
        self.render_scale = check_scale(render_scale, "render_scale")  # rgb_array zoom
        config = settings.config
        self.config = config
        self.reward_mode = settings.reward
        self.dense_reward = settings.dense_reward
        self.obs_type = settings.obs_type
        self.render_mode = settings.render_mode
        self.encoder = ObservationEncoder(config)
        n = config.num_players
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        enc = self.encoder
        high = np.concatenate([enc.plane_high.ravel(), enc.feature_high]).astype(np.float32)
        obs_box = spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32)
        num_actions = config.num_actions
        mask_box = spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8)
        self.observation_spaces: dict[str, spaces.Space[Any]] = {}
        for a in self.possible_agents:
            if obs_type == "dict":
                self.observation_spaces[a] = spaces.Dict(
                    {"observation": obs_box, "action_mask": mask_box}
                )
            else:
                self.observation_spaces[a] = obs_box
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}  # type: ignore[var-annotated]
        self._seed_rng = np.random.default_rng()
        self.state: GameState | None = None
        self.agents: list[str] = []
        self._last_totals: list[int] = []
        self._blank_info: dict[str, np.ndarray] = {}
        self._no_mask = np.zeros(num_actions, dtype=np.int8)

    # -- PettingZoo API ----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. With a seed (a non-negative integer) the game (and the seeds of
        later seedless resets) is determined by it. No ``options`` are taken (``None`` or
        ``{}``); anything else raises before the environment changes."""
        seed = check_seed(seed)
        check_options(options)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        game_seed = int(self._seed_rng.integers(2**63 - 1))
        self.state = new_game(self.config, seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
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
        seat = self.state.current_seat
        assert seat is not None
        self.agent_selection = self.possible_agents[seat]
        self._set_infos()

    def observe(self, agent: str) -> Any:
        state = self._require_state()
        seat = self.agent_name_mapping[agent]
        obs = self.encoder.encode_flat(state, seat)
        if self.obs_type == "flat":
            return obs
        return {"observation": obs, "action_mask": self._mask(agent)}

    def action_mask(self, agent: str) -> np.ndarray:
        """int8 mask of ``agent``'s legal actions (all zero when it is not to act)."""
        return self._mask(agent)

    def step(self, action: Any) -> None:
        if not self.agents:
            raise ResetNeeded(
                "step: call reset() first"
                if self.state is None
                else "step: the game is over (every agent is done); call reset()"
            )
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self._require_state()
        self._cumulative_rewards[agent] = 0.0
        state.apply(action)  # IllegalActionError (precise) in raw_env
        rewards = dict.fromkeys(self.agents, 0.0)
        if self.dense_reward:
            totals = self.encoder.ranch_totals(state)
            for i, a in enumerate(self.possible_agents):
                rewards[a] += self.dense_reward * (totals[i] - self._last_totals[i])
            self._last_totals = totals
        if state.is_terminal:
            for a, r in zip(self.possible_agents, self._final_rewards(state.scores()), strict=True):
                rewards[a] += r
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            seat = state.current_seat
            assert seat is not None
            self.agent_selection = self.possible_agents[seat]
        self.rewards = rewards
        self._accumulate_rewards()
        self._set_infos()
        if self.render_mode == "human":
            self.render()

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn("render() called without a render_mode")
            return None
        state = self._require_state()
        if self.render_mode == "ansi":
            return rendering.render_ansi(state)
        if self.render_mode == "rgb_array":
            return rendering.render_rgb(state, scale=self.render_scale)
        if rendering.can_display():  # "human": a window, else the text view on stdout
            rendering.show_human(rendering.render_rgb(state, scale=self.render_scale))
        else:
            print(rendering.render_ansi(state))
        return None

    def close(self) -> None:
        """Nothing to release: the human-mode window (if any) belongs to matplotlib."""

    # -- helpers -----------------------------------------------------------------------------
    def _require_state(self) -> GameState:
        if self.state is None:
            raise ResetNeeded("call reset() before using the environment")
        return self.state

    def _mask(self, agent: str) -> np.ndarray:
        mask = np.zeros(self.config.num_actions, dtype=np.int8)
        state = self._require_state()
        if agent == self.agent_selection and not state.is_terminal:
            # an index array first: NumPy converts a list index far more slowly
            mask[np.array(state.legal_action_list(), dtype=np.intp)] = 1
        return mask

    def _final_rewards(self, scores: list[ScoreBreakdown]) -> list[float]:
        if self.reward_mode == "win":
            return win_rewards(scores)
        totals = [float(s.total) for s in scores]
        if self.reward_mode == "score":
            return totals
        return [t - max(o for j, o in enumerate(totals) if j != i) for i, t in enumerate(totals)]

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
