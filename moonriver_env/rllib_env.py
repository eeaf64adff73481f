"""Every registered game for Ray RLlib (new API stack): a turn-based ``MultiAgentEnv`` (the
``ray`` extra; nothing here is imported by ``import moonriver_env``). Its masking PPO
``RLModule`` is in :mod:`moonriver_env.rllib_module`; :mod:`moonriver_env.rllib` re-exports
both (and this env under its first name, ``MoonRiverMultiAgentEnv``).

The environment (:class:`GameMultiAgentEnv`)
--------------------------------------------
``env_config["game"]`` names the game (a registered game's name, :mod:`moonriver_env.games`;
default the registry's default game); its PettingZoo ``raw_env`` checks the other game and
reward arguments. RLlib's conventions, as in its ``TicTacToe`` and ``action_masking_rlm.py``
examples:

* **Turn-based**: each ``reset`` / ``step`` returns an observation for the one agent to act
  (RULES.md section 3, the turn order); ``step`` takes ``{agent: action}`` for that agent. At
  the end of the game every agent of the episode gets its last observation, its reward and
  ``terminated = True`` (``"__all__"`` too).
* **Observations**: per agent ``Dict(observations=Box(float32, the PettingZoo env's flat
  observation of the acting seat, with its bounds), action_mask=Box(0, 1, (num_actions,),
  float32))``, the keys RLlib's action-masking module reads; the action space is the flat
  ``Discrete(num_actions)`` (the game's environment card has the layout).
* **Rewards** are the PettingZoo env's (its ``raw_env`` checks ``reward`` and the game
  arguments): what a seat received since its last observation is paid with its next one (or at
  the end), so every reward reaches the seat that earned it.
* **Engine**: the game runs in the native core (a one-game vector game, the entry's
  ``vector_game`` hook: the rules, mask and observation in C) when it is built and the game has
  one, else on the Python engine (``raw_env``); ``backend`` (``"native"`` or ``"python"``)
  picks one. Both give the same observations, masks, rewards and games from the same seeds
  (``tests/env/test_rllib.py``), as the vector game is the env's game decision for decision.
* **Seeds**: ``reset(seed=S)`` fixes the game, the seat roles and the embedded opponents'
  seeds of this and every later seedless reset.
* **Illegal actions** (the mask forbids them; RLlib's environment pre-check plays one random
  action unmasked): the game ends for everybody, the offender receives ``illegal_penalty``
  (default ``-1``) and ``infos[agent]["illegal_action"] = True``, the game is left unchanged and
  nothing is logged; the pre-check therefore passes silently.

Seats and agents (self-play with frozen and baseline opponents)
---------------------------------------------------------------
Every episode one seat, drawn uniformly, is the learner's; every other seat draws a role with
the ``opponents`` weights (:data:`ROLES`):

* ``"learner"``: the learner plays it too (shared policy: all its seats train; the older word
  ``"self"`` is read with a ``DeprecationWarning``);
* ``"snapshot"``: a frozen copy of the learner, RLModule ``snapshot_<k>`` (``k`` uniform in
  ``0..snapshot_slots-1``); the trainer refreshes those weights periodically;
* ``"random"``, ``"greedy"``, ``"heuristic"`` (any :func:`agents.make_agent` spec of the
  game): an *embedded* opponent, played inside ``step``; RLlib never sees its seat.

The agent id names the seat and who plays it: ``"player_2"`` is seat 2 played by the learner,
``"player_2@snapshot_1"`` seat 2 played by snapshot 1; :func:`module_for_agent` (the
``policy_mapping_fn``) reads the module id off it, so the env alone decides the lineup, from
its seed.

Example::

    from ray.rllib.algorithms.ppo import PPOConfig
    from moonriver_env.rllib import GameMultiAgentEnv, rl_module_spec, module_for_agent
    env_config = {"game": "kingdomino", "num_players": 3}
    config = (PPOConfig().environment(GameMultiAgentEnv, env_config=env_config)
              .multi_agent(policies={"learner"}, policy_mapping_fn=module_for_agent)
              .rl_module(rl_module_spec=rl_module_spec(GameMultiAgentEnv(env_config))))
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from moonriver_env.env_checks import SEAT_ROLES, check_options, check_seat_roles, check_seed
from moonriver_env.family.native import NATIVE
from moonriver_env.family.records import win_share
from moonriver_env.family.validation import check_finite, check_int
from moonriver_env.games import DEFAULT_GAME, game_entry
from moonriver_env.opponents import LEARNER as OPPONENTS_LEARNER
from moonriver_env.opponents import SNAPSHOT, make_opponent
from moonriver_env.seat_rewards import SeatRewards
from moonriver_env.vector.slot import SlotEnv

__all__ = [
    "LEARNER",
    "MASK_KEY",
    "OBS_KEY",
    "ROLES",
    "GameMultiAgentEnv",
    "module_for_agent",
    "snapshot_module",
]

LEARNER = OPPONENTS_LEARNER
"""The module id of the learner: the project's one word for it
(:data:`moonriver_env.opponents.LEARNER`)."""
ROLES = SEAT_ROLES
"""The roles an opponent seat can draw (module docstring); other keys of ``opponents`` are
taken as :func:`agents.make_agent` specs played embedded."""
OBS_KEY = "observations"
MASK_KEY = "action_mask"
# The env's own arguments (everything else goes to the game's raw_env, which checks it).
_OWN_ARGS = ("game", "opponents", "snapshot_slots", "illegal_penalty", "seed", "backend")
BACKENDS = ("native", "python")
"""Where the game runs: the native core (the default when it is built) or the Python engine."""


def snapshot_module(k: int) -> str:
    """The module id of frozen snapshot slot ``k``."""
    return f"snapshot_{k}"


def module_for_agent(agent_id: str, episode: Any = None, **kwargs: Any) -> str:
    """RLlib's ``policy_mapping_fn``: ``"player_2"`` -> ``"learner"``, ``"player_2@snapshot_1"``
    -> ``"snapshot_1"`` (the env names who plays each seat)."""
    _, at, module = agent_id.partition("@")
    return module if at else LEARNER


class GameMultiAgentEnv(MultiAgentEnv):
    """A registered game as an RLlib ``MultiAgentEnv`` (module docstring).

    ``config`` (RLlib's ``env_config``, a mapping): ``game`` (a registered game's name;
    default the registry's default game), the game and reward arguments of its ``raw_env``
    (``num_players``, ``mode``, ``reward``, the game's own such as ``scenario`` or
    ``dense_reward``, ...), plus

    * ``opponents``: ``{role: weight}`` for the seats other than the learner's (default
      ``{"learner": 1.0}``: pure self-play);
    * ``snapshot_slots``: number of frozen snapshot modules (default 0; needed by a positive
      ``"snapshot"`` weight);
    * ``illegal_penalty``: reward of an illegal action (default ``-1.0``);
    * ``seed``: seed of the first reset when RLlib gives none;
    * ``backend``: ``"native"`` (default when the core is built and the game has a batched
      form) or ``"python"`` (module docstring).
    """

    def __init__(self, config: Mapping[str, Any] | None = None) -> None:
        super().__init__()
        cfg = dict(config or {})
        own = {k: cfg.pop(k) for k in _OWN_ARGS if k in cfg}
        self.game_entry = entry = game_entry(own.get("game", DEFAULT_GAME))
        """The registered game played."""
        self.aec = entry.env_factory()(**cfg, obs_type="dict")
        game = self.aec.config
        self.num_players = game.num_players
        self.snapshot_slots = check_int("snapshot_slots", own.get("snapshot_slots", 0), 0)
        self.roles, self.weights = check_seat_roles(
            own.get("opponents", {LEARNER: 1.0}), self.snapshot_slots, entry.name
        )
        self.illegal_penalty = check_finite("illegal_penalty", own.get("illegal_penalty", -1.0))
        self._rng = np.random.default_rng(check_seed(own.get("seed")))
        vector_game = entry.hook("vector_game")
        backend = own.get("backend", "native" if NATIVE and vector_game is not None else "python")
        if backend not in BACKENDS:
            raise ValueError(f"backend: expected one of {BACKENDS}, got {backend!r}")
        if backend == "native" and vector_game is None:
            raise ValueError(f"backend: {entry.title} has no native core; use 'python'")
        self.backend = backend
        # native: the game lives in slot 0 of a one-game vector game, played through `_table`
        # (the env surface agents read); python: `aec` plays it.
        self._games: Any = None
        self._table: Any = self.aec
        if backend == "native":
            aec = self.aec
            rewards: dict[str, Any] = {"reward": aec.reward_mode}
            if getattr(aec, "dense_reward", 0.0):  # only a game whose env shapes its rewards
                rewards["dense_reward"] = aec.dense_reward
            self._games = vector_game(
                num_games=1, config=game, seed=0, auto_reset=False, backend="native", **rewards
            )
            self._table = SlotEnv(self._games, 0, aec.possible_agents)
        box = self.aec.observation_spaces[self.aec.possible_agents[0]]["observation"]
        n_actions = game.num_actions
        space = gym.spaces.Dict(
            {
                MASK_KEY: gym.spaces.Box(0.0, 1.0, (n_actions,), np.float32),
                OBS_KEY: gym.spaces.Box(box.low, box.high, dtype=np.float32),
            }
        )
        seats = range(self.num_players)
        ids = [f"player_{s}" for s in seats]
        ids += [
            f"player_{s}@{snapshot_module(k)}" for s in seats for k in range(self.snapshot_slots)
        ]
        self.possible_agents = ids  # type: ignore[assignment]
        self.agents = []
        self.observation_spaces = dict.fromkeys(ids, space)
        self.action_spaces = dict.fromkeys(ids, gym.spaces.Discrete(n_actions))
        self._seat_agent: list[str | None] = [None] * self.num_players  # None: embedded
        self._embedded: dict[tuple[str, int], Any] = {}  # (spec, seat) -> agent, built once
        self._seat_policy: list[Any] = [None] * self.num_players
        self._credit = SeatRewards(self.num_players)  # every seat, from the start of a game
        self._done = True

    # -- RLlib API ---------------------------------------------------------------------------
    def reset(  # type: ignore[override]
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        seed = check_seed(seed)
        check_options(
            options, self.aec.constructor_args
        )  # the PettingZoo env's rule: no reset options
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        rng = self._rng
        n = self.num_players
        learner = int(rng.integers(n))
        self._seat_agent = [None] * n
        self._seat_policy = [None] * n
        for seat in range(n):
            role = LEARNER if seat == learner else self.roles[_draw(rng, self.weights)]
            name = f"player_{seat}"
            if role == LEARNER:
                self._seat_agent[seat] = name
            elif role == SNAPSHOT:
                k = int(rng.integers(self.snapshot_slots))
                self._seat_agent[seat] = f"{name}@{snapshot_module(k)}"
            else:
                agent = self._embedded.get((role, seat))
                if agent is None:
                    agent = self._embedded[(role, seat)] = _make_agent(role, self.game_entry.name)
                agent.reset(int(rng.integers(2**63 - 1)))
                self._seat_policy[seat] = agent
        self.agents = [a for a in self._seat_agent if a is not None]
        self._table.reset(seed=int(rng.integers(2**63 - 1)))
        self._credit.reset(range(n))
        self._done = False
        self._play_embedded()
        if self._over():  # pragma: no cover - a game has at least one decision each
            return self._final(), {}
        return {self._acting(): self._observe(self._seat())}, {}

    def step(  # type: ignore[override]
        self,
        action_dict: Mapping[str, Any],  # type: ignore[override]
    ) -> tuple[dict[str, Any], dict[str, float], dict[str, bool], dict[str, bool], dict[str, Any]]:
        if self._done:
            raise RuntimeError("step: the game is over (or not started); call reset()")
        agent = self._acting()
        if agent not in action_dict:
            raise KeyError(f"action_dict: expected an action for {agent!r}, got {action_dict!r}")
        action = action_dict[agent]
        if not (_is_int(action) and self._is_legal(int(action))):
            return self._illegal(agent)
        self._apply(int(action))
        self._play_embedded()
        if self._over():
            obs, rewards = self._final(), self._pay(self.agents)  # type: ignore[arg-type]
            infos = {a: self._final_info(a) for a in self.agents}  # type: ignore[arg-type]
            done = dict.fromkeys([*self.agents, "__all__"], True)
            self._done = True
            return obs, rewards, done, dict.fromkeys(done, False), infos  # type: ignore[arg-type, return-value]
        nxt = self._acting()
        return (
            {nxt: self._observe(self._seat())},
            self._pay([nxt]),
            {"__all__": False},
            {"__all__": False},
            {},
        )

    def render(self) -> Any:
        if self._games is not None:  # the AEC env draws the core's game
            self.aec.state = self.state
        return self.aec.render()

    @property
    def state(self) -> Any:
        """The game's engine state (on the native core, a copy)."""
        state = self._table.state
        if state is None:
            raise RuntimeError("call reset() before using the environment")
        return state

    # -- helpers: the game, read from the core's arrays or the engine's state ----------------
    def _seat(self) -> int:
        """The acting seat (-1 when the game is over)."""
        if self._games is not None:
            return int(self._games.current_seat[0])
        seat = self.state.current_seat
        return -1 if seat is None else int(seat)

    def _over(self) -> bool:
        return self._seat() < 0

    def _is_legal(self, action: int) -> bool:
        games = self._games
        if games is None:
            return self.state.is_legal(action)
        return 0 <= action < games.num_actions and bool(games.action_mask[0, action])

    def _acting(self) -> str:
        agent = self._seat_agent[self._seat()]
        assert agent is not None
        return agent

    def _apply(self, action: int) -> None:
        """Play ``action`` and bank every seat's reward of the step."""
        table = self._table
        table.step(action)
        self._credit.bank(table.rewards, table.possible_agents)

    def _play_embedded(self) -> None:
        """Play the embedded opponents until an RLlib agent is to act or the game ends."""
        table = self._table
        while not self._over():
            seat = self._seat()
            policy = self._seat_policy[seat]
            if policy is None:
                return
            self._apply(int(policy.act(table.observe(table.possible_agents[seat]), table)))

    def _observe(self, seat: int) -> dict[str, np.ndarray]:
        mask = np.zeros(self.aec.config.num_actions, dtype=np.float32)
        acting = self._seat() == seat
        games = self._games
        if games is not None:
            assert games.observation is not None
            if acting:
                mask[:] = games.action_mask[0]
                return {MASK_KEY: mask, OBS_KEY: games.observation[0].copy()}
            return {MASK_KEY: mask, OBS_KEY: games.observation_of(0, seat)}
        state = self.state
        if acting:
            mask[np.array(state.legal_action_list(), dtype=np.intp)] = 1.0
        return {MASK_KEY: mask, OBS_KEY: self.aec.encoder.encode_flat(state, seat)}

    def _pay(self, agents: list[str]) -> dict[str, float]:
        """The rewards banked for ``agents``' seats since their last observation."""
        return {a: self._credit.take(self._seat_agent.index(a)) for a in agents}

    def _final(self) -> dict[str, Any]:
        return {a: self._observe(self._seat_agent.index(a)) for a in self.agents}  # type: ignore[arg-type, misc]

    def _final_info(self, agent: str) -> dict[str, Any]:
        seat = self._seat_agent.index(agent)
        state = self.state  # the finished game (the engine's winners and score breakdowns)
        total = state.scores()[seat].total
        return {"win_share": win_share(state.winners(), seat), "score": float(total)}

    def _illegal(self, agent: str) -> tuple[Any, ...]:
        """End the game: ``illegal_penalty`` for ``agent``, the banked rewards for the others."""
        rewards = self._pay(self.agents)  # type: ignore[arg-type]
        rewards[agent] = self.illegal_penalty
        obs = self._final()
        infos = {a: {"illegal_action": a == agent} for a in self.agents}
        done = dict.fromkeys([*self.agents, "__all__"], True)
        self._done = True
        return obs, rewards, done, dict.fromkeys(done, False), infos


def _draw(rng: np.random.Generator, weights: np.ndarray) -> int:
    return int(rng.choice(weights.size, p=weights))


def _is_int(action: Any) -> bool:
    if isinstance(action, np.ndarray) and action.shape == ():
        action = action.item()
    return isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_))


def _make_agent(spec: str, game: str) -> Any:
    """An embedded opponent of the registered game ``game`` built from an agent spec through
    the agents' plug (:mod:`moonriver_env.opponents`)."""
    return make_opponent(spec, game=game)
