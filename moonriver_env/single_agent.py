"""A single-agent Gymnasium view of any registered game, for stable-baselines3 / MaskablePPO.

``SingleAgentEnv`` plays one *learner* seat against opponent policies. Opponent moves happen
inside ``step``; the reward returned is everything the learner's seat received in the
meantime (its own action, every opponent action, the end of the game), so each reward is
credited to the seat that earned it, whichever seat acted last (the known pitfall of the
PettingZoo tutorial wrapper, which hands the final reward to the wrong agent).

The game is a registered game's name (``game=``, :mod:`moonriver_env.games`; default the
registry's default game): the env plays that game's PettingZoo ``raw_env`` (its entry's
``env_entry_point``), and every other keyword argument goes to it. ``import moonriver_env``
registers each game's Gymnasium id (its entry's ``gymnasium_id``, e.g. ``MoonRiver-v0``,
``Kingdomino-v0``; keyword arguments pass through: ``gymnasium.make("MoonRiver-v0",
num_players=3, opponents="heuristic")``).

An opponent is any callable ``policy(observation, env) -> action`` taking the PettingZoo
observation dict (``"observation"``, ``"action_mask"``) and the raw AEC environment (agents
from the ``agents`` package pass their ``act`` method), or an agent spec of the game
(``"heuristic"``, ``"mcts:sims=50"``), built through the agents' plug
(:mod:`moonriver_env.opponents`).

Illegal actions: ``illegal_action="penalty"`` (default) ends the episode with reward
``illegal_penalty`` (default ``-1``) and ``info["illegal_action"] = True``, leaving the game
unchanged; ``"raise"`` raises the engine's ``IllegalActionError``. ``action_masks()`` gives the
legal actions (MaskablePPO reads it), also in ``info["action_mask"]``.

``info`` has the same keys after every ``reset`` and ``step``: the learner's AEC infos (the
game's own, e.g. ``phase``, ``score``, ``scores``, ``winners``; see its environment card),
plus ``action_mask``, ``learner_seat`` and ``illegal_action``.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from moonriver_env.aec_base import ResetNeeded
from moonriver_env.env_checks import check_options, check_seat, check_seed
from moonriver_env.family.validation import check_choice, check_finite
from moonriver_env.games import DEFAULT_GAME, GameEntry, config_entry, game_entry
from moonriver_env.opponents import make_opponent
from moonriver_env.seat_rewards import SeatRewards

Policy = Callable[[dict[str, Any], Any], int]
OpponentSpec = Policy | str
ILLEGAL_MODES = ("penalty", "raise")
SINGLE_AGENT_OBS_TYPES = ("flat", "planes")
"""The learner's observation: one flat vector, or the planes and features apart."""


class RandomPolicy:
    """Uniformly random legal actions (the default opponent)."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def __call__(self, observation: dict[str, Any], env: Any = None) -> int:
        legal = np.flatnonzero(observation["action_mask"])
        return int(legal[self.rng.integers(legal.size)])

    def act(self, observation: dict[str, Any], env: Any = None) -> int:
        return self(observation, env)


class SingleAgentEnv(gymnasium.Env[Any, np.int64]):
    """One learner seat against opponent policies.

    Args:
        opponents: ``None`` (random opponents), one callable or agent spec (``"heuristic"``)
            for every opponent seat, or a sequence of ``num_players - 1`` of them for the seats
            after the learner's in turn order (``+1``, ``+2``, ...).
        learner_seat: a seat number, or ``"random"`` to draw it each episode.
        obs_type: ``"flat"`` (one float32 Box, planes then features) or ``"planes"``
            (``{"planes": (channels, rows, 5), "features": (n,)}``, for CNN extractors; the
            older name ``"dict"``, which the PettingZoo env uses for its own observation dict,
            is read with a ``DeprecationWarning``).
        illegal_action: ``"penalty"`` or ``"raise"`` (see the module docstring).
        illegal_penalty: reward of an illegal action in ``"penalty"`` mode.
        game: a registered game's name (``None``: the class's :attr:`aec_class`, else the
            registry's default game); ``ValueError`` naming the known games.
        **env_kwargs: passed to the game's ``raw_env``, which checks them (``num_players``
            defaults to 2; ``mode``, ``reward``, ``render_mode``, the game's own settings such
            as ``scenario``, ...).
    """

    metadata = {"render_modes": ["ansi", "rgb_array", "human"], "render_fps": 2}

    aec_class: Any = None
    """A subclass's fixed AEC env class (a game's own single-agent class may set it); ``None``:
    the ``raw_env`` of the game named by ``game=`` (the registry's entry point)."""

    def __init__(
        self,
        opponents: OpponentSpec | Sequence[OpponentSpec] | None = None,
        learner_seat: int | str = "random",
        obs_type: str = "flat",
        illegal_action: str = "penalty",
        illegal_penalty: float = -1.0,
        game: str | None = None,
        **env_kwargs: Any,
    ) -> None:
        if "obs_type" in env_kwargs:
            raise ValueError("obs_type: pass it to SingleAgentEnv, not to the AEC env")
        if obs_type == "dict":
            warnings.warn(
                'obs_type: SingleAgentEnv calls this observation "planes" ("dict" is the '
                "PettingZoo env's observation dict)",
                DeprecationWarning,
                stacklevel=2,
            )
            obs_type = "planes"
        check_choice("obs_type", obs_type, SINGLE_AGENT_OBS_TYPES)
        check_choice("illegal_action", illegal_action, ILLEGAL_MODES)
        check_finite("illegal_penalty", illegal_penalty)
        aec_class = self.aec_class
        if game is not None or aec_class is None:
            entry = game_entry(DEFAULT_GAME if game is None else game)
            if aec_class is not None and aec_class is not entry.env_factory():
                raise ValueError(
                    f"game: {type(self).__name__} plays its own environment, not {entry.title}'s"
                )
            aec_class = entry.env_factory()
        self.aec = aec_class(**env_kwargs, obs_type="dict")
        self.game_entry: GameEntry | None = config_entry(self.aec.config)
        """The registered game played (``None``: an environment of no registered game)."""
        if obs_type == "planes" and not hasattr(self.aec.encoder, "plane_high"):
            raise ValueError(f"obs_type: {self._title()}'s observation has no planes; use 'flat'")
        n = self.aec.config.num_players
        check_seat("learner_seat", learner_seat, n)
        if opponents is None:
            opps: list[OpponentSpec] = [RandomPolicy() for _ in range(n - 1)]
        elif callable(opponents) or isinstance(opponents, str):
            opps = [opponents] * (n - 1)
        else:
            opps = list(opponents)
            if len(opps) != n - 1 or not all(callable(o) or isinstance(o, str) for o in opps):
                raise ValueError(
                    f"opponents: expected {n - 1} callables or agent specs, got {opponents!r}"
                )
        # opponents built here from specs: agents whose reset(seed) a seeded reset calls
        self._from_spec = frozenset(i for i, o in enumerate(opps) if isinstance(o, str))
        self.opponents: list[Policy] = [
            self._make_opponent(o, i) if isinstance(o, str) else o for i, o in enumerate(opps)
        ]
        self.learner_seat_option = learner_seat
        self.obs_type = obs_type
        self.illegal_action = illegal_action
        self.illegal_penalty = float(illegal_penalty)
        self.render_mode = self.aec.render_mode
        self.action_space = spaces.Discrete(self.aec.config.num_actions)
        enc = self.aec.encoder
        if obs_type == "flat":
            self.observation_space = self.aec.observation_spaces["player_0"]["observation"]
        else:
            self.observation_space = spaces.Dict(
                {
                    "planes": spaces.Box(low=0.0, high=enc.plane_high, dtype=np.float32),
                    "features": spaces.Box(low=0.0, high=enc.feature_high, dtype=np.float32),
                }
            )
        self.learner_seat = 0
        self.learner = "player_0"
        self._done = True
        self._credit = SeatRewards(self.aec.config.num_players)  # the learner's seat only

    # -- Gymnasium API -----------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[Any, dict[str, Any]]:
        seed = check_seed(seed)
        check_options(options, self.aec.constructor_args)
        super().reset(seed=seed)
        rng = self.np_random
        n = self.aec.config.num_players
        if self.learner_seat_option == "random":
            self.learner_seat = int(rng.integers(n))
        else:
            self.learner_seat = int(self.learner_seat_option)
        self.learner = self.aec.possible_agents[self.learner_seat]
        for i, opp in enumerate(self.opponents):
            if seed is None:
                continue
            if isinstance(opp, RandomPolicy):
                opp.rng = np.random.default_rng(int(rng.integers(2**63 - 1)) + i)
            elif i in self._from_spec:
                opp.reset(seed=int(rng.integers(2**63 - 1)) + i)  # type: ignore[attr-defined]
        self.aec.reset(seed=int(rng.integers(2**63 - 1)))
        self._done = False
        self._credit.reset([self.learner_seat])
        self._play_opponents()  # rewards before the learner's first decision are not its own
        return self._observation(), self._info()

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._done:
            raise ResetNeeded(
                "step: call reset() first"
                if self.aec.state is None
                else "step: the episode is over; call reset()"
            )
        state = self.aec.state
        assert state is not None
        if not (_is_int(action) and state.is_legal(int(action))):
            if self.illegal_action == "raise":
                state.apply(action)  # raises the engine's precise IllegalActionError
                raise ValueError(f"action: illegal action {action!r}")  # unreachable
            self._done = True
            return self._observation(), self.illegal_penalty, True, False, self._info(True)
        aec = self.aec
        aec.step(int(action))
        self._credit.bank(aec.rewards, aec.possible_agents)
        # its own move's reward, then the opponents' moves' (summed apart, then added)
        reward = self._credit.take(self.learner_seat)
        reward += self._play_opponents()
        terminated = state.is_terminal
        self._done = terminated
        return self._observation(), reward, terminated, False, self._info()

    def action_masks(self) -> np.ndarray:
        """Boolean mask of the learner's legal actions (what MaskablePPO asks for)."""
        return self.aec.action_mask(self.learner).astype(bool)

    def render(self) -> Any:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()

    # -- helpers -----------------------------------------------------------------------------
    def _make_opponent(self, spec: str, index: int) -> Policy:
        """An opponent from an agent spec (the game's agents, through the plug;
        ``reset(seed=...)`` reseeds it)."""
        entry = self.game_entry
        policy: Policy = make_opponent(spec, seed=index, game=None if entry is None else entry.name)
        return policy

    def _title(self) -> str:
        entry = self.game_entry
        return type(self.aec).__name__ if entry is None else entry.title

    def _play_opponents(self) -> float:
        """Play opponents until the learner is to act or the game ends; return the reward the
        learner's seat received meanwhile."""
        aec = self.aec
        state = aec.state
        assert state is not None
        n = aec.config.num_players
        while not state.is_terminal and aec.agent_selection != self.learner:
            agent = aec.agent_selection
            seat = aec.agent_name_mapping[agent]
            policy = self.opponents[(seat - self.learner_seat) % n - 1]
            action = policy(aec.observe(agent), aec)
            aec.step(int(action))
            self._credit.bank(aec.rewards, aec.possible_agents)
        return self._credit.take(self.learner_seat)

    def _observation(self) -> Any:
        enc = self.aec.encoder
        state = self.aec.state
        assert state is not None
        if self.obs_type == "flat":
            return enc.encode_flat(state, self.learner_seat)
        planes, features = enc.encode(state, self.learner_seat)
        return {"planes": planes, "features": features}

    def _info(self, illegal_action: bool = False) -> dict[str, Any]:
        # copies: Gymnasium's checker wants no object shared between two calls' infos
        info: dict[str, Any] = {k: np.copy(v) for k, v in self.aec.infos[self.learner].items()}
        info["action_mask"] = self.action_masks()
        info["learner_seat"] = self.learner_seat
        info["illegal_action"] = illegal_action
        return info


def _is_int(action: Any) -> bool:
    return isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))
