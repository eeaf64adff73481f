"""The agent interface shared by every baseline, search and learned agent.

An :class:`Agent` plays one seat of a game through the PettingZoo environment::

    agent.reset(seed=0)                       # before each game
    action = agent.act(observation, env)      # observation: {"observation", "action_mask"}

``env`` is the PettingZoo environment (wrapped or raw); agents that look at the table read
``env.unwrapped.state`` (the engine's :class:`~moonriver_env.rules.GameState`) and only what
the table shows (RULES.md section 8): ranches, reserves, columns, saloon, counts. Search agents
copy the state and re-shuffle its hidden parts before simulating (:func:`determinize`); none
ever reads the order of the draw pile or of the partner stack.

Engine-level agents also implement :meth:`Agent.choose` (state in, action id out), which
``act`` calls; tournaments that drive the engine directly call ``choose`` and skip the
observation encoding.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from moonriver_env.rules import GameState


def engine_state(env: Any) -> GameState:
    """The engine state behind a PettingZoo env (wrapped or raw) or a ``SingleAgentEnv``."""
    state = getattr(getattr(env, "unwrapped", env), "state", None)
    if state is None:
        aec = getattr(env, "aec", None)
        state = getattr(aec, "state", None)
    if not isinstance(state, GameState):
        raise TypeError(f"env: expected a Moon River environment after reset(), got {env!r}")
    return state


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

    def __call__(self, observation: dict[str, Any], env: Any = None) -> int:
        """Agents are policies too (``SingleAgentEnv`` opponents)."""
        return self.act(observation, env)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(seed={self.seed!r})"


class PolicyAgent(Agent):
    """Wraps a callable ``policy(observation, env) -> int`` or a stable-baselines3 /
    sb3-contrib model (anything with ``predict(obs, action_masks=..., deterministic=...)``).

    A model gets the flat observation vector ``observation["observation"]`` and the boolean
    mask; the agent falls back to a uniformly random legal action if the model returns an
    illegal one (counted in :attr:`illegal`). ``PolicyAgent.from_path("model.zip")`` loads
    a ``MaskablePPO``.
    """

    name = "policy"

    def __init__(
        self,
        policy: Callable[[dict[str, Any], Any], int] | Any,
        seed: int | None = None,
        deterministic: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(seed)
        if not (callable(policy) or hasattr(policy, "predict")):
            raise TypeError(
                f"policy: expected a callable or a model with predict(), got {policy!r}"
            )
        self.policy = policy
        self.deterministic = deterministic
        self.illegal = 0
        self._encoders: dict[int, Any] = {}
        if name is not None:
            self.name = name

    @classmethod
    def from_path(
        cls, path: str | Path, seed: int | None = None, deterministic: bool = True
    ) -> PolicyAgent:
        """Load a ``MaskablePPO`` model saved with ``model.save(path)``."""
        p = Path(path)
        if not p.exists() and not p.with_suffix(".zip").exists():
            raise ValueError(f"path: no model file {str(path)!r}")
        from sb3_contrib import MaskablePPO

        model = MaskablePPO.load(str(p), device="cpu")
        return cls(model, seed=seed, deterministic=deterministic, name="ppo")

    def act(self, observation: dict[str, Any], env: Any) -> int:
        mask = np.asarray(observation["action_mask"]).astype(bool)
        if hasattr(self.policy, "predict"):
            action, _ = self.policy.predict(
                observation["observation"], action_masks=mask, deterministic=self.deterministic
            )
            a = int(np.asarray(action).reshape(-1)[0])
        else:
            a = int(self.policy(observation, env))
        if not (0 <= a < mask.size and mask[a]):
            self.illegal += 1
            legal = np.flatnonzero(mask)
            a = int(legal[self.rng.integers(legal.size)])
        return a

    def choose(self, state: GameState) -> int:
        """Engine-level entry point: builds the observation the env would give."""
        from moonriver_env.encoding import ObservationEncoder

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
