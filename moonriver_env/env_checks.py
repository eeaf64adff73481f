"""The environments' arguments that do not depend on the game, checked in one place: the
reward, observation and render modes, ``reset``'s ``seed`` and ``options``, a seat argument
and the RLlib env's seat roles.

Every game's environments (:class:`moonriver_env.aec_base.GameAECEnv` and its subclasses, the
single-agent, RLlib and vector envs) read them here; a game's own arguments and defaults live
in its folder (Moon River's: :mod:`moonriver_env.moonriver.args`). Every rejection is a
``ValueError`` (a bad value) or ``TypeError`` (a bad type) whose message starts with the
argument's name and says what is allowed, raised before anything changes. No RL library is
imported here.
"""

from __future__ import annotations

import operator
import warnings
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from moonriver_env.family.validation import check_choice, check_finite, check_int
from moonriver_env.opponents import (
    DEPRECATED_ROLES,
    LEARNER,
    OPPONENT_ROLES,
    SNAPSHOT,
    check_agent_spec,
)

__all__ = [
    "CONSTRUCTOR_ARGS",
    "DEFAULT_DENSE_REWARD",
    "DEFAULT_REWARD",
    "OBS_TYPES",
    "RENDER_MODES",
    "RESET_OPTIONS",
    "REWARD_MODES",
    "SEAT_ROLES",
    "EnvSettings",
    "check_env_modes",
    "check_options",
    "check_seat",
    "check_seat_roles",
    "check_seed",
]

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
RESET_OPTIONS: tuple[str, ...] = ()
"""Keys ``reset(options=...)`` accepts (none: every game choice is a constructor argument)."""
CONSTRUCTOR_ARGS = frozenset(
    (
        "num_players",
        "mode",
        "config",
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
"""The constructor arguments every game's environments share, refused as reset options (an
environment adds its own: :attr:`moonriver_env.aec_base.GameAECEnv.constructor_args`)."""


@dataclass(frozen=True)
class EnvSettings:
    """The validated arguments of one environment (``config``: the game's configuration)."""

    config: Any
    reward: str
    dense_reward: float
    obs_type: str
    render_mode: str | None


def check_env_modes(
    config: Any, reward: Any, obs_type: Any, render_mode: Any, dense_reward: Any = 0.0
) -> EnvSettings:
    """The game-independent arguments of an environment checked (``reward`` one of
    :data:`REWARD_MODES`, a finite ``dense_reward``, ``obs_type`` one of :data:`OBS_TYPES`,
    ``render_mode`` ``None`` or one of :data:`RENDER_MODES`), with the game's ``config``."""
    reward = check_choice("reward", reward, REWARD_MODES)
    dense = check_finite("dense_reward", dense_reward)
    obs_type = check_choice("obs_type", obs_type, OBS_TYPES)
    if render_mode is not None:
        check_choice("render_mode", render_mode, RENDER_MODES)
    return EnvSettings(config, reward, dense, obs_type, render_mode)


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


def check_options(options: Any, constructor_args: Collection[str] = CONSTRUCTOR_ARGS) -> None:
    """``options`` for ``reset``: ``None`` or a dict; no key is used (:data:`RESET_OPTIONS`).

    A key that is a constructor argument (``constructor_args``, default the shared ones;
    ``{"num_players": 3}``: the game is fixed when the environment is built) raises
    ``ValueError``; any other key is ignored with a warning (PettingZoo's ``api_test`` passes
    an arbitrary key to check that ``options`` is taken).
    """
    allowed = ", ".join(RESET_OPTIONS) or "none"
    if options is None:
        return
    if not isinstance(options, dict):
        raise TypeError(
            f"options: expected None or a dict (allowed keys: {allowed}), got {options!r}"
        )
    unknown = [k for k in options if k not in RESET_OPTIONS]
    misplaced = [k for k in unknown if k in constructor_args]
    if misplaced:
        raise ValueError(
            f"options: {', '.join(map(repr, misplaced))} is an argument of the environment's "
            f"constructor, not of reset() (allowed keys: {allowed}); build a new environment, "
            f"e.g. env({misplaced[0]}=...)"
        )
    if unknown:
        warnings.warn(
            f"options: unknown key(s) {', '.join(map(repr, unknown))} ignored "
            f"(allowed keys: {allowed})",
            stacklevel=3,
        )


def check_seat_roles(
    roles: Any, snapshot_slots: int, game: str | None = None
) -> tuple[list[str], np.ndarray]:
    """The RLlib env's ``opponents`` (``{role: weight}``, :data:`SEAT_ROLES` or agent specs of
    the registered game ``game``, ``None``: the default game): the roles with a positive weight
    and their probabilities; ``ValueError`` naming the key."""
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
            check_agent_spec(role, game)  # ValueError naming the bad field
        kept.append(str(role))
        weights.append(float(w))
    if not kept:
        raise ValueError(f"opponents: every weight is zero in {dict(roles)!r}")
    p = np.array(weights)
    return kept, p / p.sum()
