"""The agent interface shared by every baseline, search and learned agent.

An :class:`Agent` plays one seat of a game through the PettingZoo environment::

    agent.reset(seed=0)                       # before each game
    action = agent.act(observation, env)      # observation: {"observation", "action_mask"}

``env`` is the PettingZoo environment (wrapped or raw); agents that look at the table read
``env.unwrapped.state`` (the engine's :class:`~moonriver_env.moonriver.rules.GameState`) and only what
the table shows (RULES.md section 8): ranches, reserves, columns, saloon, counts. Search agents
copy the state and re-shuffle its hidden parts before simulating (:func:`determinize`); none
ever reads the order of the draw pile or of the partner stack.

Engine-level agents also implement :meth:`Agent.choose` (state in, action id out), which
``act`` calls; the game runner (:mod:`agents.runner`) calls ``choose`` directly and skips the
observation encoding.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from moonriver_env.games import GameSpec, games_with_actions
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameConfig, GameState
from moonriver_env.moonriver.vector.search import NativeState
from moonriver_env.vector import NATIVE

from .networks.acting import policy_action
from .networks.snapshots import load_model, load_policy


def engine_state(env: Any) -> GameState:
    """The engine state behind a PettingZoo env (wrapped or raw) or a ``SingleAgentEnv``."""
    state = getattr(getattr(env, "unwrapped", env), "state", None)
    if state is None:
        aec = getattr(env, "aec", None)
        state = getattr(aec, "state", None)
    if not isinstance(state, GameState):
        raise TypeError(f"env: expected a Moon River environment after reset(), got {env!r}")
    return state


def env_config(env: Any) -> GameConfig | None:
    """The game of ``env`` (the AEC env, ``SingleAgentEnv``, a Gymnasium wrapper of it, or
    anything with a ``state``), or ``None`` when it does not tell."""
    inner = getattr(env, "unwrapped", env)
    inner = getattr(inner, "aec", inner)
    config = getattr(inner, "config", None)
    if isinstance(config, GameConfig):
        return config
    state = getattr(inner, "state", None)
    return state.config if isinstance(state, GameState) else None


def determinize(state: GameState, rng: np.random.Generator) -> GameState:
    """A copy of ``state`` whose hidden information is re-drawn with ``rng``.

    The copy's draw pile and partner stack are first put in a canonical (sorted) order and
    then shuffled, so the result depends only on what the table shows (the multisets, which
    are public) and on ``rng``, never on the true hidden order.
    """
    sim = state.clone()
    sim.pile.sort()
    sim.stack.sort()
    sim.redetermine(rng)
    return sim


def native_root(state: GameState) -> NativeState | None:
    """``state`` in the native core for simulations, or ``None`` (core not built, or a state
    the core does not hold: a chance-node game)."""
    if type(state) is not GameState or not NATIVE:
        return None
    return NativeState.from_state(state)


class Agent:
    """Base class: a player for one seat.

    Subclasses implement :meth:`choose` (engine agents) or override :meth:`act`.
    """

    name: str = "agent"

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

    def choose(self, state: GameState) -> int:
        """A legal action id for ``state.current_seat`` (engine-level entry point)."""
        raise NotImplementedError

    def check_game(self, config: GameConfig) -> None:
        """Refuse (``ValueError`` naming both games) a game the agent cannot play; called when
        it is seated, before any move. Engine agents play every game: accept."""

    def __call__(self, observation: dict[str, Any], env: Any = None) -> int:
        """Agents are policies too (``SingleAgentEnv`` opponents)."""
        return self.act(observation, env)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"


def describe_game(config: GameConfig) -> str:
    """``"3p_legends"``: how refusals name a game (its one spelling,
    :attr:`moonriver_env.games.GameSpec.text`)."""
    return GameSpec(num_players=config.num_players, mode=config.mode).text


def check_game(agent: Any, config: GameConfig) -> None:
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
        self._encoders: dict[int, Any] = {}
        self._accepted: set[tuple[int, str]] = set()
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

    def check_game(self, config: GameConfig) -> None:
        """``ValueError`` naming both games if the policy's spaces do not fit ``config``."""
        key = (config.num_players, config.mode)  # what the spaces depend on
        if key in self._accepted:
            return
        holder = self.sb3_policy if self.sb3_policy is not None else self.policy
        action_space = getattr(holder, "action_space", None)
        obs_space = getattr(holder, "observation_space", None)
        n_actions = getattr(action_space, "n", None)
        shape = getattr(obs_space, "shape", None)
        n_features = int(shape[0]) if shape is not None and len(shape) == 1 else None
        if n_actions is not None:
            want_features = ObservationEncoder(config).flat_size
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
        self._accepted.add(key)

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

    def choose(self, state: GameState) -> int:
        """Engine-level entry point: builds the observation the env would give."""
        enc = self._encoders.get(id(state.config))
        if enc is None:
            enc = self._encoders[id(state.config)] = ObservationEncoder(state.config)
        seat = state.current_seat
        assert seat is not None, "the game is over"
        obs = {
            "observation": enc.encode_flat(state, seat),
            "action_mask": state.legal_action_mask().astype(np.int8),
        }
        return self.act(obs, _StateEnv(state))


class _StateEnv:
    """The little of an env that policies use: ``unwrapped.state``."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.unwrapped = self
