"""The PettingZoo AEC environment for Moon River (the adapter: agent names, spaces, rewards).

Import it as ``from moonriver_env import moonriver_v0``. The environment card (spaces, action
layout, observation channels, rewards, version history) is in :mod:`moonriver_env.moonriver_v0`.
"""

from __future__ import annotations

import operator
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .encoding import ObservationEncoder
from .rules import GameConfig, GameState, Phase, new_game
from .rules.scoring import ScoreBreakdown

REWARD_MODES = ("win", "score", "score_diff")
_PHASE_NAMES = [p.name for p in Phase]
OBS_TYPES = ("dict", "flat")
RENDER_MODES = ("ansi", "rgb_array", "human")


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


class TerminateIllegalWrapper(wrappers.TerminateIllegalWrapper):  # type: ignore[misc]
    """PettingZoo's wrapper of that name, with direct attribute reads (see :func:`env`)."""

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._raw = env.unwrapped


class AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):  # type: ignore[misc]
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


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """PettingZoo's wrapper of that name, with direct attribute reads (see :func:`env`);
    reading them before ``reset()`` still raises ``AttributeError``."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped

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
        num_players: int = 2,
        mode: str = "base",
        scenario: str | None = None,
        boards: tuple[str, ...] | str | None = None,
        reward: str = "win",
        dense_reward: float = 0.0,
        obs_type: str = "dict",
        auto_resolve: bool = False,
        render_mode: str | None = None,
        config: GameConfig | None = None,
    ) -> None:
        EzPickle.__init__(
            self,
            num_players=num_players,
            mode=mode,
            scenario=scenario,
            boards=boards,
            reward=reward,
            dense_reward=dense_reward,
            obs_type=obs_type,
            auto_resolve=auto_resolve,
            render_mode=render_mode,
            config=config,
        )
        super().__init__()
        if reward not in REWARD_MODES:
            raise ValueError(f"reward: expected one of {REWARD_MODES}, got {reward!r}")
        if isinstance(dense_reward, bool) or not isinstance(dense_reward, (int, float)):
            raise ValueError(f"dense_reward: expected a number, got {dense_reward!r}")
        if obs_type not in OBS_TYPES:
            raise ValueError(f"obs_type: expected one of {OBS_TYPES}, got {obs_type!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(
                f"render_mode: expected one of {RENDER_MODES} or None, got {render_mode!r}"
            )
        if config is None:
            config = GameConfig(
                num_players=num_players,
                mode=mode,
                scenario=scenario,
                boards=boards,
                auto_resolve=auto_resolve,
            )
        self.config = config
        self.reward_mode = reward
        self.dense_reward = float(dense_reward)
        self.obs_type = obs_type
        self.render_mode = render_mode
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
        self.action_spaces = {a: spaces.Discrete(num_actions) for a in self.possible_agents}
        self._seed_rng = np.random.default_rng()
        self.state: GameState | None = None
        self._last_totals: list[int] = []

    # -- PettingZoo API ----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. With a seed the game (and the seeds of later seedless resets)
        is determined by it."""
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        game_seed = int(self._seed_rng.integers(2**63 - 1))
        self.state = new_game(self.config, seed=game_seed)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._last_totals = [0] * self.config.num_players
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
        from . import render as rendering

        state = self._require_state()
        if self.render_mode == "ansi":
            return rendering.render_ansi(state)
        if self.render_mode == "rgb_array":
            return rendering.render_rgb(state)
        if rendering.can_display():  # "human": a window, else the text view on stdout
            rendering.show_human(rendering.render_rgb(state))
        else:
            print(rendering.render_ansi(state))
        return None

    def close(self) -> None:
        """Nothing to release: the human-mode window (if any) belongs to matplotlib."""

    # -- helpers -----------------------------------------------------------------------------
    def _require_state(self) -> GameState:
        if self.state is None:
            raise RuntimeError("call reset() before using the environment")
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
        state = self._require_state()
        phase = _PHASE_NAMES[state.phase]
        infos: dict[str, dict[str, Any]] = {a: {"phase": phase} for a in self.agents}
        if state.is_terminal:
            scores = state.scores()
            winners = state.winners()
            for a in self.agents:
                seat = self.agent_name_mapping[a]
                infos[a]["score"] = _breakdown_dict(scores[seat])
                infos[a]["scores"] = [_breakdown_dict(s) for s in scores]
                infos[a]["winners"] = [self.possible_agents[w] for w in winners]
        elif self.obs_type == "flat":
            sel = self.agent_selection
            if sel in infos:
                infos[sel]["action_mask"] = self._mask(sel)
        self.infos = infos


def _breakdown_dict(b: ScoreBreakdown) -> dict[str, int]:
    return {
        "territories": b.territories,
        "resources": b.resources,
        "partners": b.partners,
        "scenario": b.scenario,
        "total": b.total,
        "largest_territory": b.largest_territory,
        "cows": b.cows,
    }
