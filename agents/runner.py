"""The one game loop: agents in seats, a seeded game, a per-game record.

Tournaments (:mod:`agents.tournament`) and the ladder evaluation of a learned policy
(:mod:`training.common.ladder`) play their games through :class:`GameRunner` (the seeds: :mod:`agents.seeds`; the fan-out
to worker processes or Ray: :mod:`agents.jobs`); the game's and rewards' arguments live in
:class:`GameSetup`.

Agents
------
A seat's agent is anything with ``reset(seed)`` and ``act(observation, env)`` (the PettingZoo
observation dict and the raw AEC environment). :class:`agents.base.Agent` subclasses that
implement ``choose`` are asked through ``choose(state)`` instead (what their ``act`` does with
the engine state), so no observation is encoded for them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Protocol

from moonriver_env.env_checks import DEFAULT_DENSE_REWARD, DEFAULT_REWARD
from moonriver_env.family.contract import DEFAULT_NUM_PLAYERS
from moonriver_env.games import DEFAULT_GAME, DEFAULT_MODE, GameSpec

from .base import Agent, check_game

__all__ = ["DecisionHook", "GameOutcome", "GameRunner", "GameSetup"]


# ---------------------------------------------------------------------------------- game


@dataclass(frozen=True)
class GameSetup:
    """The game and environment arguments shared by every game of a run (the one home of
    the ``[env]`` section -> ``raw_env`` arguments mapping). The game is Moon River's unless
    :meth:`make_env` and :meth:`game_config` are given another registered game (its
    environment from its entry, given the players, the mode and ``reward``; the training
    configs' ``[env]`` sections name no game)."""

    num_players: int = DEFAULT_NUM_PLAYERS
    mode: str = DEFAULT_MODE
    scenario: str | None = None
    auto_resolve: bool = False
    reward: str = DEFAULT_REWARD
    dense_reward: float = DEFAULT_DENSE_REWARD

    @classmethod
    def from_config(cls, env_cfg: Mapping[str, Any]) -> GameSetup:
        """From a training config's ``[env]`` section (the game read by
        :meth:`moonriver_env.games.GameSpec.from_section`; missing keys: the defaults; Legends
        without a scenario: ``"random"``, drawn per game)."""
        spec = GameSpec.from_section(env_cfg)
        legends = spec.mode == "legends"
        return cls(
            num_players=spec.num_players,
            mode=spec.mode,
            scenario=(spec.scenario or "random") if legends else None,
            auto_resolve=spec.auto_resolve,
            reward=env_cfg.get("reward", "win"),
            dense_reward=float(env_cfg.get("dense_reward", 0.0)),
        )

    @property
    def spec(self) -> GameSpec:
        """The game played (its fields of :data:`~moonriver_env.games.SPEC_KEYS`)."""
        return GameSpec.from_section(asdict(self))

    def env_kwargs(self, rewards: bool = True) -> dict[str, Any]:
        """Keyword arguments of ``raw_env`` / ``SingleAgentEnv`` (``rewards=False``: without
        ``reward`` and ``dense_reward``, for games whose rewards nobody reads)."""
        kwargs: dict[str, Any] = {
            "num_players": self.num_players,
            "mode": self.mode,
            "auto_resolve": self.auto_resolve,
        }
        if rewards:
            kwargs["reward"] = self.reward
            kwargs["dense_reward"] = self.dense_reward
        if self.mode == "legends" or self.scenario is not None:
            kwargs["scenario"] = self.scenario
        return kwargs

    def game_spec(self, game: str = DEFAULT_GAME) -> GameSpec:
        """The game played: ``game`` with these players, mode and scenario."""
        if game == DEFAULT_GAME:
            return self.spec
        return GameSpec(game=game, num_players=self.num_players, mode=self.mode)

    def game_config(self, game: str = DEFAULT_GAME) -> Any:
        """The engine's configuration (``ValueError`` naming a bad argument)."""
        return self.game_spec(game).config()

    def make_env(self, game: str = DEFAULT_GAME) -> Any:
        """The raw AEC environment (dict observations) the runner plays on (``game``'s, from
        its entry)."""
        spec = self.game_spec(game)
        kwargs = self.env_kwargs() if game == DEFAULT_GAME else spec.env_kwargs()
        if game != DEFAULT_GAME:
            kwargs["reward"] = self.reward
        return spec.entry.env_factory()(**kwargs, obs_type="dict")


class DecisionHook(Protocol):
    """Watches (and may steer) a game: :meth:`before_step` sees each decision and returns
    the action to play; :meth:`after_step` runs after every step (rewards are fresh)."""

    def before_step(self, env: Any, seat: int, action: int) -> int: ...

    def after_step(self, env: Any) -> None: ...


@dataclass(frozen=True)
class GameOutcome:
    """A finished game: its final engine state and per seat the decisions taken and the
    seconds spent deciding (wall time, and the deciding thread's CPU time: neither
    reproducible)."""

    state: Any
    """The game's final state (a :class:`~moonriver_env.family.contract.GameStateLike`)."""
    decisions: tuple[int, ...]
    think_seconds: tuple[float, ...]
    seconds: float
    think_cpu_seconds: tuple[float, ...] = ()


def _asks_choose(agent: Any) -> bool:
    """True for :class:`~agents.base.Agent` subclasses that implement ``choose`` (the
    engine-level entry point their ``act`` calls)."""
    return isinstance(agent, Agent) and type(agent).choose is not Agent.choose


class GameRunner:
    """Plays games on one environment, kept between games (``game``: a registered game,
    default Moon River)."""

    def __init__(self, setup: GameSetup, game: str = DEFAULT_GAME) -> None:
        self.setup = setup
        self.game = game
        self.env = setup.make_env(game)

    def play(
        self,
        agents: Sequence[Any],
        env_seed: int,
        agent_seeds: Sequence[int | None],
        names: Sequence[str] | None = None,
        hook: DecisionHook | None = None,
    ) -> GameOutcome:
        """Play one game: ``agents[s]`` in seat ``s`` (reset with ``agent_seeds[s]``), the
        environment reset with ``env_seed``. ``names`` label the agents in the error an
        illegal action raises (``RuntimeError``). An agent that cannot play this game (its
        ``check_game``) raises ``ValueError`` before any move."""
        start = time.perf_counter()
        n = self.setup.num_players
        if len(agents) != n or len(agent_seeds) != n:
            raise ValueError(f"agents: expected {n} agents and seeds, got {len(agents)}")
        config = self.env.config
        for ag in agents:
            check_game(ag, config)
        for ag, s in zip(agents, agent_seeds, strict=True):
            ag.reset(s)
        env = self.env
        env.reset(seed=env_seed)
        state = env.state
        assert state is not None
        decisions = [0] * n
        think = [0.0] * n
        cpu = [0.0] * n
        engine = [_asks_choose(ag) for ag in agents]
        while not state.is_terminal:
            seat = state.current_seat
            assert seat is not None
            ag = agents[seat]
            t0, c0 = time.perf_counter(), time.thread_time()
            if engine[seat]:
                action = int(ag.choose(state))  # Agent.act, minus the observation
            else:
                action = int(ag.act(env.observe(env.possible_agents[seat]), env))
            think[seat] += time.perf_counter() - t0
            cpu[seat] += time.thread_time() - c0
            if not state.is_legal(action):
                name = names[seat] if names is not None else repr(ag)
                raise RuntimeError(
                    f"agent {name!r} in seat {seat} chose illegal action {action} "
                    f"in phase {getattr(state.phase, 'name', state.phase)}"
                )
            if hook is not None:
                action = hook.before_step(env, seat, action)
            env.step(action)
            decisions[seat] += 1
            if hook is not None:
                hook.after_step(env)
        return GameOutcome(
            state=state,
            decisions=tuple(decisions),
            think_seconds=tuple(think),
            seconds=time.perf_counter() - start,
            think_cpu_seconds=tuple(cpu),
        )
