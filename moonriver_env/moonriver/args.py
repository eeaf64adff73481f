"""The environment's arguments, checked in one place.

``raw_env`` (and through it ``env()`` and ``SingleAgentEnv``) builds its settings with
:func:`env_settings`; both ``reset`` methods check ``seed`` and ``options`` with
:func:`check_seed` and :func:`check_options`. Every rejection is a ``ValueError`` (a bad
value) or ``TypeError`` (a bad type) whose message starts with the argument's name and says
what is allowed, raised before anything changes. No RL library is imported here.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from moonriver_env.family.validation import check_choice, check_finite, check_int
from moonriver_env.games import DEFAULT_MODE, DEFAULT_NUM_PLAYERS
from moonriver_env.moonriver.rules import GameConfig
from moonriver_env.opponents import (
    DEPRECATED_ROLES,
    LEARNER,
    OPPONENT_ROLES,
    SNAPSHOT,
    check_agent_spec,
)

if TYPE_CHECKING:
    import numpy as np

REWARD_MODES = ("win", "score", "score_diff")
DEFAULT_REWARD = "win"
"""The reward mode of the envs, the vector game and the runner when none is given."""
DEFAULT_DENSE_REWARD = 0.0
"""The dense reward's weight when none is given (no shaping)."""
OBS_TYPES = ("dict", "flat")
RENDER_MODES = ("ansi", "rgb_array", "human")
SEAT_ROLES = OPPONENT_ROLES
"""Who may play a seat beside the learner in the RLlib env (:mod:`moonriver_env.rllib`): the
learner itself, a frozen snapshot of it, or a baseline agent (any :func:`agents.make_agent`
spec is accepted too)."""
# The game arguments and their values when neither they nor ``config`` are given.
GAME_DEFAULTS: dict[str, Any] = {
    "num_players": DEFAULT_NUM_PLAYERS,
    "mode": DEFAULT_MODE,
    "scenario": None,
    "boards": None,
    "auto_resolve": False,
}
# Keys ``reset(options=...)`` accepts (none: every game choice is a constructor argument).
RESET_OPTIONS: tuple[str, ...] = ()
# Constructor arguments of raw_env / env() / SingleAgentEnv, refused as reset options.
CONSTRUCTOR_ARGS = frozenset(
    (
        *GAME_DEFAULTS,
        "config",
        "variants",  # Kingdomino (moonriver_env.kingdomino_v0)
        "reward",
        "dense_reward",
        "obs_type",
        "render_mode",
        "render_scale",
        "opponents",
        "learner_seat",
        "illegal_action",
        "illegal_penalty",
        "seed",
    )
)


@dataclass(frozen=True)
class EnvSettings:
    """The validated arguments of one environment."""

    config: GameConfig
    reward: str
    dense_reward: float
    obs_type: str
    render_mode: str | None


def env_settings(arguments: Mapping[str, Any]) -> EnvSettings:
    """Check the environment's arguments (``raw_env``'s keyword arguments by name; its
    signature holds their defaults) and build its :class:`EnvSettings`.

    The game is given either by the game arguments (``num_players``, ``mode``, ``scenario``,
    ``boards``, ``auto_resolve``; ``None`` means the default of :data:`GAME_DEFAULTS`) or by
    ``config``; a game argument given together with a ``config`` that says otherwise raises
    ``ValueError`` naming both.
    """
    reward = check_choice("reward", arguments["reward"], REWARD_MODES)
    dense_reward = check_finite("dense_reward", arguments["dense_reward"])
    obs_type = check_choice("obs_type", arguments["obs_type"], OBS_TYPES)
    render_mode = arguments["render_mode"]
    if render_mode is not None:
        check_choice("render_mode", render_mode, RENDER_MODES)
    config = arguments["config"]
    given = {key: arguments[key] for key in GAME_DEFAULTS}
    if config is None:
        game: dict[str, Any] = {k: GAME_DEFAULTS[k] if v is None else v for k, v in given.items()}
        config = GameConfig(**game)
    elif not isinstance(config, GameConfig):
        raise TypeError(f"config: expected a GameConfig or None, got {type(config).__name__}")
    else:
        for key, value in given.items():
            if isinstance(value, list):
                value = tuple(value)
            if value is not None and value != getattr(config, key):
                raise ValueError(
                    f"{key}={value!r} contradicts config.{key}={getattr(config, key)!r}: "
                    f"give the game either by config or by {key}, not both"
                )
    return EnvSettings(config, reward, dense_reward, obs_type, render_mode)


def check_seat(
    name: str, value: Any, num_players: int | None = None, error: type[ValueError] = ValueError
) -> int | str:
    """``value`` if it is a seat ``0..num_players-1`` (any seat number when ``num_players``
    is ``None``) or ``"random"``, else ``error`` naming ``name``."""
    if value == "random":
        return "random"
    if num_players is None:
        return check_int(name, value, 0, expected="'random' or a seat number", error=error)
    hi = num_players - 1
    return check_int(name, value, 0, hi, expected=f"0..{hi} or 'random'", error=error)


def check_seed(seed: Any) -> int | None:
    """``seed`` for ``reset``: ``None`` or a non-negative integer (NumPy integers too)."""
    if seed is None:
        return None
    if isinstance(seed, bool) or not hasattr(seed, "__index__"):
        raise TypeError(f"seed: expected None or a non-negative integer, got {seed!r}")
    value = operator.index(seed)
    if value < 0:
        raise ValueError(f"seed: expected None or a non-negative integer, got {value}")
    return value


def check_options(options: Any) -> None:
    """``options`` for ``reset``: ``None`` or a dict; no key is used (:data:`RESET_OPTIONS`).

    A key that is a constructor argument (``{"num_players": 3}``: the game is fixed when the
    environment is built) raises ``ValueError``; any other key is ignored with a warning
    (PettingZoo's ``api_test`` passes an arbitrary key to check that ``options`` is taken).
    """
    allowed = ", ".join(RESET_OPTIONS) or "none"
    if options is None:
        return
    if not isinstance(options, dict):
        raise TypeError(
            f"options: expected None or a dict (allowed keys: {allowed}), got {options!r}"
        )
    unknown = [k for k in options if k not in RESET_OPTIONS]
    misplaced = [k for k in unknown if k in CONSTRUCTOR_ARGS]
    if misplaced:
        raise ValueError(
            f"options: {', '.join(map(repr, misplaced))} is an argument of the environment's "
            f"constructor, not of reset() (allowed keys: {allowed}); build a new environment, "
            f"e.g. moonriver_v0.env({misplaced[0]}=...)"
        )
    if unknown:
        warnings.warn(
            f"options: unknown key(s) {', '.join(map(repr, unknown))} ignored "
            f"(allowed keys: {allowed})",
            stacklevel=3,
        )


def check_seat_roles(roles: Any, snapshot_slots: int) -> tuple[list[str], np.ndarray]:
    """The RLlib env's ``opponents`` (``{role: weight}``, :data:`SEAT_ROLES` or agent specs):
    the roles with a positive weight and their probabilities; ``ValueError`` naming the key."""
    import numpy as np

    if not isinstance(roles, Mapping) or not roles:
        raise ValueError(f"opponents: expected a non-empty {{role: weight}} mapping, got {roles!r}")
    kept, weights = [], []
    for role, w in roles.items():
        if role in DEPRECATED_ROLES:
            warnings.warn(
                f"opponents[{role!r}]: the role is now called {DEPRECATED_ROLES[role]!r}",
                DeprecationWarning,
                stacklevel=3,
            )
            role = DEPRECATED_ROLES[role]
        w = check_finite(f"opponents[{role!r}]", w)
        if w < 0:
            raise ValueError(f"opponents[{role!r}]: expected a weight >= 0, got {w!r}")
        if w == 0:
            continue
        if role == SNAPSHOT and snapshot_slots == 0:
            raise ValueError("opponents['snapshot']: a positive weight needs snapshot_slots >= 1")
        if role not in (LEARNER, SNAPSHOT):
            check_agent_spec(role)  # ValueError naming the bad field
        kept.append(str(role))
        weights.append(float(w))
    if not kept:
        raise ValueError(f"opponents: every weight is zero in {dict(roles)!r}")
    p = np.array(weights)
    return kept, p / p.sum()
