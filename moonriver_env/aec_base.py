"""What the PettingZoo AEC environments of the two games share, whatever the game: the
standard wrappers, the error for a step out of order, and :class:`GameAECEnv`, the
bookkeeping of a turn-based game with one acting seat (agents, spaces, reset with seeds,
observe with the legal-action mask, step with rewards and terminations, render dispatch).

A game's environment (:mod:`moonriver_env.moonriver.env` for Moon River,
:mod:`moonriver_env.kingdomino.env` for Kingdomino) subclasses :class:`GameAECEnv` and supplies the game: its engine's
``new_game``, its encoder, its final rewards, its infos and its pictures.
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
from pettingzoo.utils.env_logger import EnvLogger

from moonriver_env.env_checks import CONSTRUCTOR_ARGS, RENDER_MODES, check_options, check_seed

__all__ = [
    "ActionOutOfBounds",
    "AssertOutOfBoundsWrapper",
    "GameAECEnv",
    "OrderEnforcingWrapper",
    "ResetNeeded",
    "TerminateIllegalWrapper",
    "env_metadata",
    "score_differences",
    "wrap",
]

SEED_LIMIT = 2**63 - 1
"""A game's seed is drawn below this from the env's seed generator."""


class ResetNeeded(gymnasium.error.ResetNeeded, RuntimeError):
    """The environment was stepped or observed before ``reset()``, or stepped with an action
    after its game was over (Gymnasium's error of that name; also a ``RuntimeError``)."""


class ActionOutOfBounds(AssertionError, ValueError):
    """An action that is not in the agent's action space, refused by :func:`wrap`'s bounds
    check before anything changes: an ``AssertionError`` as PettingZoo's
    ``AssertOutOfBoundsWrapper`` raises, and a ``ValueError`` naming the argument."""


def wrap(raw: AECEnv) -> AECEnv:
    """The environment wrapped PettingZoo's way: an illegal action ends the game for everybody
    with ``-1`` for the offender and ``0`` for the others (``TerminateIllegalWrapper``);
    out-of-range actions (and values that are no action id: ``True``, ``2**70``, a list)
    raise :class:`ActionOutOfBounds` (an ``AssertionError``); calls out of order raise.

    The wrappers are PettingZoo's standard three (``isinstance`` holds), subclassed only to
    read the per-step attributes (``agent_selection``, ``terminations``, ...) straight from the
    raw environment: PettingZoo's ``BaseWrapper.__getattr__`` forwards them one wrapper at a
    time through a failed lookup, which cost about 40% of a step. Behaviour is unchanged.
    """
    e: AECEnv = TerminateIllegalWrapper(raw, illegal_reward=-1)
    e = AssertOutOfBoundsWrapper(e)
    return OrderEnforcingWrapper(e)


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
    """PettingZoo's wrapper of that name, with direct attribute reads (see :func:`wrap`) and
    a fast path for the common step, a legal ``int`` action of a live agent after ``observe``
    gave a dict with its mask (what PettingZoo's ``step`` does then: forget the observation
    and step the env); anything else takes PettingZoo's ``step``."""

    def __init__(self, env: AECEnv, illegal_reward: float) -> None:
        super().__init__(env, illegal_reward)
        self._raw = env.unwrapped

    def observe(self, agent: Any) -> Any:
        raw = self._raw
        obs = raw.observe(agent)
        if agent == raw.agent_selection:
            self._prev_obs = obs
            self._prev_info = raw.infos.get(agent, {})
        return obs

    def step(self, action: Any) -> None:
        raw = self._raw
        prev = self._prev_obs
        agent = raw.agent_selection
        if (
            type(prev) is dict
            and type(action) is int
            and not self._terminated
            and not raw.terminations[agent]
            and not raw.truncations[agent]
            and "action_mask" in prev
            and prev["action_mask"][action]
        ):
            self._prev_obs = None
            self._prev_info = None
            raw.step(action)
        else:
            super().step(action)


def _is_action_id(action: Any, n: int) -> bool:
    """Whether ``action`` is an int id ``0..n-1``: a Python or NumPy integer (not a bool) or
    a 0-d integer array, what ``Discrete(n).contains`` takes, checked without overflowing."""
    if isinstance(action, np.ndarray) and action.ndim == 0 and action.dtype.kind in "iu":
        action = action.item()
    if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
        return False
    return 0 <= int(action) < n


class AssertOutOfBoundsWrapper(wrappers.AssertOutOfBoundsWrapper):
    """PettingZoo's wrapper of that name, with direct attribute reads (see :func:`wrap`) and a
    fast path for the common case, a plain ``int`` inside ``Discrete(num_actions)`` (exactly
    what ``Discrete.contains`` accepts for an ``int``); anything else takes the full check."""

    def __init__(self, env: AECEnv) -> None:
        super().__init__(env)
        self._raw = env.unwrapped
        self._num_actions = self._raw.config.num_actions

    def step(self, action: Any) -> None:
        if type(action) is int and 0 <= action < self._num_actions:
            self.env.step(action)
            return
        raw = self._raw
        agent = raw.agent_selection
        if action is None and (raw.terminations[agent] or raw.truncations[agent]):
            self.env.step(action)
            return
        n = self._num_actions
        if not _is_action_id(action, n):
            shown = repr(action) if len(repr(action)) <= 80 else f"{type(action).__name__}"
            raise ActionOutOfBounds(
                f"action: {shown} is not in action space Discrete({n}): expected an int "
                f"action id 0..{n - 1} (or None for an agent that is done)"
            )
        self.env.step(action)

    def observe(self, agent: Any) -> Any:
        return self.env.observe(agent)


class OrderEnforcingWrapper(wrappers.OrderEnforcingWrapper):
    """PettingZoo's wrapper of that name, with direct attribute reads (see :func:`wrap`);
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

    def observe(self, agent: Any) -> Any:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        return self.env.observe(agent)

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        super().reset(seed=seed, options=options)
        if type(self) is OrderEnforcingWrapper:  # reset for good: the reads need no check
            self.__class__ = _ResetOrderEnforcingWrapper

    def __str__(self) -> str:
        return str(self.env)


class _ResetOrderEnforcingWrapper(OrderEnforcingWrapper):
    """:class:`OrderEnforcingWrapper` once reset (it never goes back): the per-step reads
    skip the before-reset check, and ``last`` reads the raw env's entries directly (the
    observation still comes through the wrappers' ``observe``)."""

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        raw = self._raw
        agent = raw.agent_selection
        observation = self.env.observe(agent) if observe else None
        return (
            observation,
            raw._cumulative_rewards[agent],
            raw.terminations[agent],
            raw.truncations[agent],
            raw.infos[agent],
        )


for _name in _FORWARDED:
    setattr(TerminateIllegalWrapper, _name, _direct(_name))
    setattr(AssertOutOfBoundsWrapper, _name, _direct(_name))
    setattr(
        OrderEnforcingWrapper,
        _name,
        _direct_after_reset(_name) if _name in _NEEDS_RESET else _direct(_name),
    )
    setattr(_ResetOrderEnforcingWrapper, _name, _direct(_name))
del _name


def env_metadata(name: str) -> dict[str, Any]:
    """PettingZoo's ``metadata`` of an environment of this project: its ``name``, the render
    modes, turn-based (not parallelizable), 2 frames a second."""
    return {
        "render_modes": list(RENDER_MODES),
        "name": name,
        "is_parallelizable": False,
        "render_fps": 2,
    }


def score_differences(points: list[float]) -> list[float]:
    """The ``"score_diff"`` reward: each seat's points minus the best other seat's."""
    return [p - max(o for j, o in enumerate(points) if j != i) for i, p in enumerate(points)]


class GameAECEnv(AECEnv, EzPickle):
    """A turn-based game as a PettingZoo AEC environment: the bookkeeping both games share.

    A subclass sets, in its constructor, ``config`` (with ``num_players`` and
    ``num_actions``), ``encoder``, ``reward_mode``, ``obs_type``, ``render_mode`` (and
    ``dense_reward`` to get :meth:`_add_dense_rewards` called), then calls
    :meth:`_init_agents`; it supplies :meth:`_new_game`, :meth:`_observation`,
    :meth:`_win_rewards`, :meth:`_final_points`, :meth:`_set_infos` and the three render
    hooks. Agents are ``player_0 .. player_{n-1}``, agent ``player_i`` plays seat ``i``.
    """

    config: Any
    encoder: Any
    reward_mode: str
    obs_type: str
    render_mode: str | None
    dense_reward: float = 0.0
    constructor_args: frozenset[str] = CONSTRUCTOR_ARGS
    """The names ``reset(options=...)`` refuses: the shared constructor arguments and this
    environment's own (set by :meth:`_record_arguments`)."""

    def _record_arguments(self, arguments: dict[str, Any]) -> dict[str, Any]:
        """Take the constructor's arguments (its ``locals()`` before anything else) for
        pickling (``EzPickle``) and start the AEC env; returns them by name."""
        kwargs = {k: v for k, v in arguments.items() if k not in ("self", "__class__")}
        EzPickle.__init__(self, **kwargs)
        AECEnv.__init__(self)
        self.constructor_args = frozenset((*CONSTRUCTOR_ARGS, *kwargs))
        return kwargs

    def _init_agents(self, obs_box: spaces.Box) -> None:
        """The agents, their spaces (``obs_box`` the observation's; in ``"dict"`` mode with
        an int8 ``action_mask`` beside it) and an unseeded seed generator."""
        n = self.config.num_players
        num_actions = self._num_actions = self.config.num_actions
        self.possible_agents = [f"player_{i}" for i in range(n)]
        self.agent_name_mapping = {a: i for i, a in enumerate(self.possible_agents)}
        mask_box = spaces.Box(low=0, high=1, shape=(num_actions,), dtype=np.int8)
        self.observation_spaces: dict[str, spaces.Space[Any]] = {
            a: spaces.Dict({"observation": obs_box, "action_mask": mask_box})
            if self.obs_type == "dict"
            else obs_box
            for a in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            a: spaces.Discrete(num_actions) for a in self.possible_agents
        }
        self._seed_rng = np.random.default_rng()
        self.state: Any = None
        self.agents: list[str] = []

    # -- PettingZoo API ----------------------------------------------------------------------
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[self.possible_agents[self._seat(agent)]]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[self.possible_agents[self._seat(agent)]]

    def _seat(self, agent: Any) -> int:
        """``agent``'s seat; ``ValueError`` naming the argument for no agent of this env."""
        try:
            return int(self.agent_name_mapping[agent])
        except (KeyError, TypeError):
            shown = repr(agent) if len(repr(agent)) <= 80 else type(agent).__name__
            raise ValueError(
                f"agent: expected one of {', '.join(self.possible_agents)}, got {shown}"
            ) from None

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game. With a seed (a non-negative integer) the game (and the seeds of
        later seedless resets) is determined by it. No ``options`` are taken (``None`` or
        ``{}``); anything else raises before the environment changes."""
        seed = check_seed(seed)
        check_options(options, self.constructor_args)
        if seed is not None:
            self._seed_rng = np.random.default_rng(seed)
        self.state = state = self._new_game(int(self._seed_rng.integers(SEED_LIMIT)))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self._start_game(state)
        self.agent_selection = self.possible_agents[state.current_seat]
        self._set_infos()

    def observe(self, agent: str) -> Any:
        state = self.state
        if state is None:
            raise ResetNeeded("call reset() before using the environment")
        obs = self._observation(state, self._seat(agent))
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
        state = self.state
        self._cumulative_rewards[agent] = 0.0
        state.apply(action)  # the engine's IllegalActionError (precise), state unchanged
        rewards = dict.fromkeys(self.agents, 0.0)
        if self.dense_reward:
            self._add_dense_rewards(state, rewards)
        if state.is_terminal:
            for a, r in zip(self.possible_agents, self._final_rewards(state), strict=True):
                rewards[a] += r
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[state.current_seat]
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
            return self._render_text(state)
        if self.render_mode == "rgb_array":
            return self._render_rgb(state)
        self._render_human(state)
        return None

    def close(self) -> None:
        """Nothing to release (a human-mode window, if any, belongs to matplotlib)."""

    # -- helpers -----------------------------------------------------------------------------
    def _require_state(self) -> Any:
        if self.state is None:
            raise ResetNeeded("call reset() before using the environment")
        return self.state

    def _mask(self, agent: str) -> np.ndarray:
        state = self.state
        if state is None:
            raise ResetNeeded("call reset() before using the environment")
        self._seat(agent)
        mask = np.zeros(self._num_actions, dtype=np.int8)
        if agent == self.agent_selection and not state.is_terminal:
            # an index array first: NumPy converts a list index far more slowly
            mask[np.array(state.legal_action_list(), dtype=np.intp)] = 1
        return mask

    def _final_rewards(self, state: Any) -> list[float]:
        """The rewards at the end of a game, by ``reward_mode``: rank-based (``"win"``), the
        final points (``"score"``) or their difference to the best other seat's."""
        if self.reward_mode == "win":
            return self._win_rewards(state)
        points = [float(p) for p in self._final_points(state)]
        if self.reward_mode == "score":
            return points
        return score_differences(points)

    # -- the game's part ---------------------------------------------------------------------
    def _new_game(self, seed: int) -> Any:
        """The engine's new game for ``seed``."""
        raise NotImplementedError

    def _start_game(self, state: Any) -> None:
        """Per-game bookkeeping after the new game is set up (before the first infos)."""

    def _observation(self, state: Any, seat: int) -> np.ndarray:
        """``seat``'s flat observation of ``state`` (a new array)."""
        raise NotImplementedError

    def _add_dense_rewards(self, state: Any, rewards: dict[str, float]) -> None:
        """Add the step's shaped rewards (called only when ``dense_reward`` is set)."""

    def _win_rewards(self, state: Any) -> list[float]:
        """The ``"win"`` rewards of the finished game, by seat."""
        raise NotImplementedError

    def _final_points(self, state: Any) -> list[int]:
        """The final points of the finished game, by seat."""
        raise NotImplementedError

    def _set_infos(self) -> None:
        """Write ``self.infos`` for the current state."""
        raise NotImplementedError

    def _render_text(self, state: Any) -> str:
        raise NotImplementedError

    def _render_rgb(self, state: Any) -> np.ndarray:
        raise NotImplementedError

    def _render_human(self, state: Any) -> None:
        print(self._render_text(state))
