"""The one game loop: agents in seats, a seeded game, a per-game record; worker fan-out.

Tournaments (:mod:`agents.tournament`), the ladder evaluation of a learned policy
(:mod:`training.evaluate`) and the teacher games of behaviour cloning (:mod:`training.pretrain`)
all play their games through :class:`GameRunner` and fan them out with :func:`run_jobs`, on
worker processes or on Ray (:class:`Backend`, :mod:`agents.ray_backend`); the game's arguments
live in :class:`GameSetup` and the seeds are derived here.

Seeds
-----
A run with master seed ``S`` derives every seed of its game ``i`` from
``SeedSequence([S, i, ...])`` (63 bits, :func:`derive_seed`): the environment's reset seed is
:func:`game_seed` ``= derive_seed(S, i)`` and the agent in slot ``k`` is reset with
:func:`agent_seed` ``= derive_seed(S, i, 1 + k)``; other per-game streams use further words
(the teacher games' exploration: ``derive_seed(S, i, 99)``). Results then depend on neither
the number of workers, nor the backend, nor the order in which games finish.

Agents
------
A seat's agent is anything with ``reset(seed)`` and ``act(observation, env)`` (the PettingZoo
observation dict and the raw AEC environment). :class:`agents.base.Agent` subclasses that
implement ``choose`` are asked through ``choose(state)`` instead (what their ``act`` does with
the engine state), so no observation is encoded for them.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import numpy as np

from .base import Agent, check_game

if TYPE_CHECKING:
    from moonriver_env.aec import raw_env
    from moonriver_env.rules import GameConfig, GameState

__all__ = [
    "BACKENDS",
    "Backend",
    "BackendError",
    "DecisionHook",
    "GameOutcome",
    "GameRunner",
    "GameSetup",
    "add_backend_arguments",
    "agent_seed",
    "backend_from_args",
    "derive_seed",
    "game_seed",
    "run_jobs",
]

J = TypeVar("J")
R = TypeVar("R")
W = TypeVar("W")


# --------------------------------------------------------------------------------- seeds


def derive_seed(*words: int) -> int:
    """A 63-bit seed from ``SeedSequence(words)``."""
    return int(np.random.SeedSequence(list(words)).generate_state(1, np.uint64)[0]) >> 1


def game_seed(seed: int, index: int) -> int:
    """The ``env.reset`` seed of game ``index``: 63 bits of ``SeedSequence([seed, index])``."""
    return derive_seed(seed, index)


def agent_seed(seed: int, index: int, slot: int) -> int:
    """The ``agent.reset`` seed of the agent in ``slot`` (a seat) of game ``index``."""
    return derive_seed(seed, index, 1 + slot)


# ---------------------------------------------------------------------------------- game


@dataclass(frozen=True)
class GameSetup:
    """The game and environment arguments shared by every game of a run (the one home of
    the ``[env]`` section -> ``raw_env`` arguments mapping)."""

    num_players: int = 2
    mode: str = "base"
    scenario: str | None = None
    auto_resolve: bool = False
    reward: str = "win"
    dense_reward: float = 0.0

    @classmethod
    def from_config(cls, env_cfg: Mapping[str, Any]) -> GameSetup:
        """From a training config's ``[env]`` section (missing keys: the defaults; Legends
        without a scenario: ``"random"``, drawn per game)."""
        mode = env_cfg.get("mode", "base")
        return cls(
            num_players=int(env_cfg.get("num_players", 2)),
            mode=mode,
            scenario=env_cfg.get("scenario", "random") if mode == "legends" else None,
            auto_resolve=bool(env_cfg.get("auto_resolve", False)),
            reward=env_cfg.get("reward", "win"),
            dense_reward=float(env_cfg.get("dense_reward", 0.0)),
        )

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

    def game_config(self) -> GameConfig:
        """The engine's configuration (``ValueError`` naming a bad argument)."""
        from moonriver_env.rules import GameConfig

        return GameConfig(
            num_players=self.num_players,
            mode=self.mode,
            scenario=self.scenario,
            auto_resolve=self.auto_resolve,
        )

    def make_env(self) -> raw_env:
        """The raw AEC environment (dict observations) the runner plays on."""
        from moonriver_env.aec import raw_env

        return raw_env(**self.env_kwargs(), obs_type="dict")


class DecisionHook(Protocol):
    """Watches (and may steer) a game: :meth:`before_step` sees each decision and returns
    the action to play; :meth:`after_step` runs after every step (rewards are fresh)."""

    def before_step(self, env: raw_env, seat: int, action: int) -> int: ...

    def after_step(self, env: raw_env) -> None: ...


@dataclass(frozen=True)
class GameOutcome:
    """A finished game: its final engine state and per seat the decisions taken and the
    seconds spent deciding (wall time, not reproducible)."""

    state: GameState
    decisions: tuple[int, ...]
    think_seconds: tuple[float, ...]
    seconds: float


def _asks_choose(agent: Any) -> bool:
    """True for :class:`~agents.base.Agent` subclasses that implement ``choose`` (the
    engine-level entry point their ``act`` calls)."""
    return isinstance(agent, Agent) and type(agent).choose is not Agent.choose


class GameRunner:
    """Plays games on one environment, kept between games."""

    def __init__(self, setup: GameSetup) -> None:
        self.setup = setup
        self.env = setup.make_env()

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
        engine = [_asks_choose(ag) for ag in agents]
        while not state.is_terminal:
            seat = state.current_seat
            assert seat is not None
            ag = agents[seat]
            t0 = time.perf_counter()
            if engine[seat]:
                action = int(ag.choose(state))  # Agent.act, minus the observation
            else:
                action = int(ag.act(env.observe(env.possible_agents[seat]), env))
            think[seat] += time.perf_counter() - t0
            if not state.is_legal(action):
                name = names[seat] if names is not None else repr(ag)
                raise RuntimeError(
                    f"agent {name!r} in seat {seat} chose illegal action {action} "
                    f"in phase {state.phase.name}"
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
        )


# ------------------------------------------------------------------------------- fan-out

BACKENDS = ("process", "ray")


class BackendError(ValueError):
    """The backend asked for cannot run the jobs (Ray not installed, no Ray cluster at the
    address); the message says what to do."""


@dataclass(frozen=True)
class Backend:
    """Where :func:`run_jobs` plays: ``"process"``, worker processes on this machine (the
    default), or ``"ray"``, Ray actors (:mod:`agents.ray_backend`): ``address`` ``None``
    starts a Ray on this machine for the run, else the cluster at ``address`` is used."""

    name: str = "process"
    address: str | None = None

    def __post_init__(self) -> None:
        if self.name not in BACKENDS:
            raise ValueError(f"backend: expected one of {', '.join(BACKENDS)}, got {self.name!r}")
        if self.address is not None and self.name != "ray":
            raise ValueError("address: only the ray backend connects to an address (--backend ray)")

    @contextmanager
    def session(self, workers: int) -> Iterator[None]:
        """Keep the backend up for the block, so that a run can check it before writing
        anything and its :func:`run_jobs` calls share it (:class:`BackendError` if it
        cannot start). Nothing to do for processes."""
        if self.name != "ray":
            yield
            return
        from .ray_backend import ray_session

        with ray_session(self.address, workers):
            yield


def add_backend_arguments(parser: argparse.ArgumentParser) -> None:
    """``--backend`` and ``--address``, the options of every command that plays through
    :func:`run_jobs` (read back with :func:`backend_from_args`)."""
    parser.add_argument(
        "--backend",
        choices=BACKENDS,
        default="process",
        help="where the --workers play: process (this machine, default) or ray (Ray actors; "
        "needs the ray extra)",
    )
    parser.add_argument(
        "--address",
        default=None,
        help="with --backend ray: the Ray cluster's address (HOST:PORT as `ray start --head` "
        "prints it, or auto); default: a Ray started on this machine for the command",
    )


def backend_from_args(args: argparse.Namespace) -> Backend:
    """The :class:`Backend` of parsed :func:`add_backend_arguments` options (``ValueError``
    for ``--address`` without ``--backend ray``)."""
    return Backend(args.backend, args.address)


def limit_worker_threads() -> None:
    """One torch thread in a worker (the workers already share the cores)."""
    if "torch" in sys.modules:  # pragma: no cover - depends on the agents
        sys.modules["torch"].set_num_threads(1)


_WORKER: tuple[Any, Callable[[Any, Any], Any]] | None = None


def _init_worker(
    setup: Callable[..., Any], args: tuple[Any, ...], play: Callable[[Any, Any], Any]
) -> None:
    global _WORKER
    # Ctrl-C is the parent's to handle (it stops the pool): no traceback from every worker
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    limit_worker_threads()
    _WORKER = (setup(*args), play)


def _run_indexed(item: tuple[int, Any]) -> tuple[int, Any]:
    assert _WORKER is not None, "worker not initialised"
    state, play = _WORKER
    return item[0], play(state, item[1])


def run_jobs(
    jobs: Iterable[J],
    setup: Callable[..., W],
    setup_args: tuple[Any, ...],
    play: Callable[[W, J], R],
    workers: int = 1,
    on_result: Callable[[R], None] | None = None,
    context: str = "spawn",
    backend: Backend | None = None,
) -> list[R]:
    """Results of ``play(state, job)`` for every job, in job order, where ``state =
    setup(*setup_args)`` is built once per worker (an environment, agents, a loaded policy).

    With the process backend (the default) and ``workers > 1`` the jobs run in that many
    ``context`` processes (``setup`` and ``play`` must then be picklable module-level
    functions); each process uses one BLAS/torch thread unless ``OMP_NUM_THREADS`` /
    ``MKL_NUM_THREADS`` say otherwise. With the ray backend they run on ``workers`` Ray
    actors (:mod:`agents.ray_backend`; ``setup_args`` are sent to them, so they may be
    anywhere on a cluster). ``on_result`` is called here with each result as it arrives
    (progress, appending), in the order the jobs finish."""
    items = list(enumerate(jobs))
    if backend is not None and backend.name == "ray":
        from .ray_backend import run_on_ray

        return run_on_ray(items, setup, setup_args, play, workers, on_result, backend.address)
    results: list[Any] = [None] * len(items)
    if workers <= 1 or len(items) <= 1:
        state = setup(*setup_args)
        for i, job in items:
            results[i] = play(state, job)
            if on_result is not None:
                on_result(results[i])
        return results
    saved = {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "MKL_NUM_THREADS")}
    for k, v in saved.items():
        if v is None:
            os.environ[k] = "1"
    try:
        pool_args = (setup, setup_args, play)
        ctx = mp.get_context(context)
        with ctx.Pool(min(workers, len(items)), _init_worker, pool_args) as pool:
            for i, result in pool.imap_unordered(_run_indexed, items, chunksize=1):
                results[i] = result
                if on_result is not None:
                    on_result(result)
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
    return results
