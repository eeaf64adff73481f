"""The agent interface shared by every game's baseline, search and learned agents.

An :class:`Agent` plays one seat of a game through the PettingZoo environment::

    agent.reset(seed=0)                       # before each game
    action = agent.act(observation, env)      # observation: {"observation", "action_mask"}

``env`` is the PettingZoo environment (wrapped or raw); agents that look at the table read
``env.unwrapped.state`` (the engine's state, :class:`~moonriver_env.family.contract.GameStateLike`)
and only what the table shows. Search agents copy the state and re-draw its hidden parts
before simulating; none ever reads the order of a hidden pile.

Engine-level agents also implement :meth:`Agent.choose` (state in, action id out), which
``act`` calls; the game runner (:mod:`agents.runner`) calls ``choose`` directly and skips the
observation encoding.

This module names no game: what it needs of one (its configuration class, its observation
encoder) it reads from the game registry (:mod:`moonriver_env.games`). Each game's own agents
live in its folder (``moonriver_env/<game>/agents/``) and are offered by spec name through its
entry's ``agents`` hook (:class:`AgentKind`, :mod:`agents.registry`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from moonriver_env.games import GameSpec, config_entry, games_with_actions

from .networks.acting import policy_action
from .networks.snapshots import load_model, load_policy


def engine_state(env: Any) -> Any:
    """The engine state behind a PettingZoo env (wrapped or raw) or a ``SingleAgentEnv``
    (``env`` may also be the state itself); ``TypeError`` unless it is the state of a
    registered game."""
    state = getattr(getattr(env, "unwrapped", env), "state", None)
    if state is None:
        aec = getattr(env, "aec", None)
        state = getattr(aec, "state", None)
    if state is None:
        state = env
    if config_entry(getattr(state, "config", None)) is None:
        raise TypeError(f"env: expected a game environment after reset(), got {env!r}")
    return state


def env_config(env: Any) -> Any | None:
    """The game of ``env`` (the AEC env, ``SingleAgentEnv``, a Gymnasium wrapper of it, or
    anything with a ``state``): a registered game's configuration, or ``None`` when it does
    not tell."""
    inner = getattr(env, "unwrapped", env)
    inner = getattr(inner, "aec", inner)
    config = getattr(inner, "config", None)
    if config_entry(config) is not None:
        return config
    config = getattr(getattr(inner, "state", None), "config", None)
    return config if config_entry(config) is not None else None


class Agent:
    """Base class: a player for one seat.

    Subclasses implement :meth:`choose` (engine agents) or override :meth:`act`.
    """

    name: str = "agent"
    spec: str | None = None
    """The spec the agent was built from (:func:`agents.registry.make_agent`), if any."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new game; reseeds the agent's own ``numpy.random.Generator``."""
        if seed is not None:
            self.seed = seed
        self.rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, Any], env: Any) -> int:
        """A legal action id for the agent to act in ``env``."""
        return self.choose(engine_state(env))

    def choose(self, state: Any) -> int:
        """A legal action id for ``state.current_seat`` (engine-level entry point; ``state``:
        the game's state, :class:`~moonriver_env.family.contract.GameStateLike`)."""
        raise NotImplementedError

    def check_game(self, config: Any) -> None:
        """Refuse (``ValueError`` naming both games) a game the agent cannot play; called when
        it is seated, before any move. Engine agents play every game: accept."""

    def __call__(self, observation: dict[str, Any], env: Any = None) -> int:
        """Agents are policies too (``SingleAgentEnv`` opponents)."""
        return self.act(observation, env)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"


def describe_game(config: Any) -> str:
    """``"3p_legends"``, ``"kingdomino_2p_base"``: how refusals name a game (its one
    spelling, :attr:`moonriver_env.games.GameSpec.text`; the class name for a configuration
    of no registered game)."""
    try:
        return GameSpec.from_config(config).text
    except ValueError:
        return f"{type(config).__name__}({config.num_players} players)"


def check_game(agent: Any, config: Any) -> None:
    """Ask ``agent`` whether it can play ``config`` (objects without ``check_game`` accept)."""
    check = getattr(agent, "check_game", None)
    if check is not None:
        check(config)


def _trained_game(num_actions: int, num_features: int | None) -> str:
    """The game(s) whose action count (and observation size) a policy's spaces match."""
    games = games_with_actions(num_actions, num_features)
    if games:
        return " or ".join(spec.text for spec in games)
    return f"a game with {num_actions} actions and observation length {num_features}"


class PolicyAgent(Agent):
    """A learned policy as an agent (the one adapter: tournaments, evaluation, self-play).

    Wraps an SB3 maskable policy (anything with ``get_distribution``, or a model whose
    ``.policy`` has one, e.g. a ``MaskablePPO``: :func:`~agents.networks.acting.policy_action` with the agent's own
    Generator, so sampling is reproducible), another model with ``predict(obs,
    action_masks=..., deterministic=...)``, or a callable ``policy(observation, env) -> int``.
    A model gets the flat observation vector ``observation["observation"]`` and the boolean
    mask; the agent falls back to a uniformly random legal action if the policy returns an
    illegal one (counted in :attr:`illegal`), unless ``repair=False`` (then the illegal action
    is returned, for evaluations that must not hide it). ``PolicyAgent.from_path("model.zip")``
    loads a ``MaskablePPO``, ``from_path("snapshot.pt")`` a saved policy.

    :meth:`check_game` refuses a game whose action count or observation size differs from the
    policy's spaces (a model trained for another player count or mode).
    """

    name = "policy"

    def __init__(
        self,
        policy: Callable[[dict[str, Any], Any], int] | Any,
        seed: int | None = None,
        deterministic: bool = True,
        name: str | None = None,
        repair: bool = True,
    ) -> None:
        super().__init__(seed)
        if not (callable(policy) or hasattr(policy, "predict")):
            raise TypeError(
                f"policy: expected a callable or a model with predict(), got {policy!r}"
            )
        self.policy = policy
        inner = getattr(policy, "policy", policy)
        self.sb3_policy = inner if hasattr(inner, "get_distribution") else None
        self.deterministic = deterministic
        self.repair = repair
        self.illegal = 0
        self._encoder: tuple[Any, Any] = (None, None)  # the last game's (config, encoder)
        self._accepted: set[GameSpec] = set()  # the games the policy's spaces fit
        self._last_accepted: Any = None  # the last configuration accepted
        if name is not None:
            self.name = name

    @classmethod
    def from_path(
        cls, path: str | Path, seed: int | None = None, deterministic: bool = True
    ) -> PolicyAgent:
        """Load a ``MaskablePPO`` model saved with ``model.save(path)`` (``.zip``) or a policy
        snapshot (``.pt``, :func:`agents.networks.snapshots.load_policy`)."""
        p = Path(path)
        if not p.exists() and p.with_suffix(".zip").exists():
            p = p.with_suffix(".zip")
        if not p.is_file():
            raise ValueError(f"path: no model file {str(path)!r}")
        if p.suffix == ".pt":
            policy = load_policy(p)  # ValueError naming the file if it is not a snapshot
            return cls(policy, seed=seed, deterministic=deterministic, name="ppo")
        model = load_model(p)  # read without unpickling: see agents.networks.snapshots
        return cls(model, seed=seed, deterministic=deterministic, name="ppo")

    def check_game(self, config: Any) -> None:
        """``ValueError`` naming both games if the policy's spaces do not fit ``config`` (a
        registered game's configuration)."""
        if config is self._last_accepted:
            return
        spec = GameSpec.from_config(config)
        if spec in self._accepted:
            self._last_accepted = config
            return
        holder = self.sb3_policy if self.sb3_policy is not None else self.policy
        action_space = getattr(holder, "action_space", None)
        obs_space = getattr(holder, "observation_space", None)
        n_actions = getattr(action_space, "n", None)
        shape = getattr(obs_space, "shape", None)
        n_features = int(shape[0]) if shape is not None and len(shape) == 1 else None
        if n_actions is not None:
            want_features = spec.entry.observation_size(config)
            if int(n_actions) != config.num_actions or (
                n_features is not None and n_features != want_features
            ):
                trained = _trained_game(int(n_actions), n_features)
                raise ValueError(
                    f"agent {self.name!r}: the game is {describe_game(config)} "
                    f"({config.num_actions} actions, observation length {want_features}) "
                    f"but the policy was trained for {trained} ({int(n_actions)} actions, "
                    f"observation length {n_features})"
                )
        self._accepted.add(spec)
        self._last_accepted = config

    def act(self, observation: dict[str, Any], env: Any) -> int:
        """The policy's action; a game the policy was not trained for (``env``'s game, when
        it tells it) is refused by :meth:`check_game` before the policy is asked."""
        config = env_config(env)
        if config is not None:
            self.check_game(config)
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if self.sb3_policy is not None:
            a = policy_action(
                self.sb3_policy, observation["observation"], mask, self.deterministic, self.rng
            )
        elif hasattr(self.policy, "predict"):
            action, _ = self.policy.predict(
                observation["observation"], action_masks=mask, deterministic=self.deterministic
            )
            a = int(np.asarray(action).reshape(-1)[0])
        else:
            a = int(self.policy(observation, env))
        if self.repair and not (0 <= a < mask.size and mask[a]):
            self.illegal += 1
            legal = np.flatnonzero(mask)
            a = int(legal[self.rng.integers(legal.size)])
        return a

    def choose(self, state: Any) -> int:
        """Engine-level entry point: builds the observation the env would give (the game's
        encoder: its entry's ``encoder`` hook)."""
        config = state.config
        if self._encoder[0] is not config:
            encoder_class = GameSpec.from_config(config).entry.hook("encoder")
            self._encoder = (config, encoder_class(config))
        enc = self._encoder[1]
        seat = state.current_seat
        assert seat is not None, "the game is over"
        obs = {
            "observation": enc.encode_flat(state, seat),
            "action_mask": state.legal_action_mask().astype(np.int8),
        }
        return self.act(obs, _StateEnv(state))


class _StateEnv:
    """The little of an env that policies use: ``unwrapped.state``."""

    def __init__(self, state: Any) -> None:
        self.state = state
        self.unwrapped = self


@dataclass(frozen=True)
class AgentKind:
    """One agent a game offers by spec name (its entry's ``agents`` hook maps names to kinds;
    :func:`agents.registry.make_agent` builds them).

    Attributes:
        make: ``make(seed=..., **params)`` -> the agent.
        params: the ``key=value`` parameters of the spec and their types
            (:func:`agents.spec_params.parse_params`).
        parse: for a spec that is not a ``key=value`` list (``ppo:PATH``): ``(spec, rest)``
            -> the parameters of ``make`` (``ValueError`` naming the bad field); replaces
            ``params``.
        shown: how the list of known agents spells it (default: its name), e.g.
            ``("ppo", "ppo:PATH")``.
    """

    make: Callable[..., Agent]
    params: Mapping[str, type] = field(default_factory=dict)
    parse: Callable[[str, str], dict[str, Any]] | None = None
    shown: tuple[str, ...] = ()
