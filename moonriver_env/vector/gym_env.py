"""One Gymnasium ``VectorEnv`` for every game with a batched form (a native core), written once
over the registry: the learner plays one seat per game, opponents play the others.

    from moonriver_env.vector.gym_env import make_vector_env
    env = make_vector_env("kingdomino_2p_base", num_envs=64, opponents="greedy", seed=0)
    obs, infos = env.reset(seed=0)              # (64, observation size) float32
    obs, rewards, terminated, truncated, infos = env.step(actions)   # (64,) ints
    env.action_masks()                          # (64, num_actions) bool, the learner's

:class:`GameVectorEnv` plays ``num_envs`` games of one :class:`~moonriver_env.games.GameSpec`
in the game's batched form (:func:`~moonriver_env.vector.vector_game`, the entry's
``vector_game`` hook: ``VectorGame``, ``KingdominoVectorGame``, any game's core). It names no
game: the observation bounds come from the entry's ``encoder`` hook, the opponents from the
agents' plug (:func:`~moonriver_env.opponents.make_opponent` with ``game=``).

**Steps.** Every ``step`` takes the learner's action in every game, then plays the opponents
(every seat but the learner's) until the learner is to act again; the reward is everything the
learner's seat received meanwhile (its own move, the opponents' moves, the end of the game), as
:class:`~moonriver_env.single_agent.SingleAgentEnv` credits it. The observation is the learner's
flat observation (a ``Box`` with the encoder's bounds), ``infos["action_mask"]`` and
:meth:`GameVectorEnv.action_masks` its legal actions, ``infos["learner_seat"]`` its seat.

**Autoreset.** ``AutoresetMode.SAME_STEP``: a game that ends (on the learner's move or an
opponent's) restarts within the same ``step``; ``terminated[i]`` is ``True``, ``rewards[i]``
is the finished game's last reward, and ``obs[i]`` is already the next game's first
observation. The finished game's last observation is not kept: a game only ends by its rules
(terminated, never truncated), so nothing bootstraps from it. ``infos["scores"]`` holds the
batched game's score rows of the games that ended in this step (rows of other games: zero).
The next game's learner seat is drawn again when ``learner_seat="random"``, or rotates with
``learner_seat="rotate"``: slot ``i``'s ``k``-th episode since the last ``reset`` (from 0) seats
the learner at ``(k + i) % num_players``.

**Seeds.** ``reset(seed=s)`` deals game ``i`` as the game's env after ``reset(seed=s + i)``,
and seeds the learner-seat draws, the ``random`` opponents and the agents' generators from
``s``: the same seed and the same actions give the same games, decision for decision.
``reset()`` without a seed continues (new deals drawn, generators running on).

**Opponents** (``opponents=``): ``"random"`` (uniform over the legal ids: played inside the
batched game by its ``play_random`` where it has one, all the opponents' moves of a step in one
call, each call seeded from the env's generator; else drawn in NumPy on the whole batch, one
``step`` a move), any agent spec of the game (``"greedy"``,
``"heuristic"``, ``"mc:sims=16"``, ``"az"``, ``"ppo:PATH"``...), or a batched policy: a callable
``policy(observations, masks) -> actions`` given the acting opponents' own flat observations
(k, observation size) and legal masks (k, A) of the k games where an opponent is to act, all
at once (a snapshot of the learner: :func:`moonriver_env.vector.sb3.policy_opponent`). An agent
decides for every game where an opponent is to act: through its ``choose_batch(vg, rows)``
when it has one (a batched decision on the core's arrays; Moon River's ``heuristic`` decides on
the core's copies of the games), else through ``choose(vg.get_state(i))`` per game.

**Observations.** With ``"random"`` or an agent spec the batched game steps without writing
observations (``vg.observation`` is ``None``) and the env writes the learner's rows once a
step (``vg.observe_rows``, into an array nothing else holds; ``threads=`` shares it among
threads of the core). A batched policy reads the opponents' rows, so with one the batched game writes the
observation at every move.

**Gymnasium's registry.** Every game with a batched form registers this env as its id's
vector entry point (``moonriver_env/__init__.py``), so that ``gymnasium.make_vec(
"Kingdomino-v0", num_envs=64, num_players=3, opponents="greedy")`` builds it (Gymnasium
prefers a vector entry point; ``vectorization_mode="sync"`` still copies the single env).

**Illegal actions** raise the game's ``IllegalActionError`` (a ``ValueError`` naming the game,
the action and the phase) and change nothing: not the games, the rewards or the seats.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from moonriver_env.env_checks import check_seat, check_seed
from moonriver_env.family.batch import MAX_ROW_THREADS
from moonriver_env.family.validation import check_int
from moonriver_env.games import GAMES, GameSpec, parse_game
from moonriver_env.opponents import make_opponent
from moonriver_env.vector.dispatch import vector_game

__all__ = [
    "LEARNER_SEATS",
    "BatchPolicy",
    "Opponents",
    "VECTOR_ENTRY_PREFIX",
    "GameVectorEnv",
    "gymnasium_vector_env",
    "make_vector_env",
    "observes",
]

BatchPolicy = Callable[[np.ndarray, np.ndarray], Any]
"""A batched opponent: ``(observations (k, obs), masks (k, A) bool) -> k actions``."""
Opponents = str | BatchPolicy
"""What plays the seats beside the learner: ``"random"``, an agent spec, a batched policy."""

_ROWS_POOL = 4
"""The observation arrays a GameVectorEnv keeps for reuse: the last ones it handed out
(:meth:`GameVectorEnv._free_rows`)."""

_SEED_HIGH = 2**63
"""The random opponents' seed of each ``play_random`` call is drawn below this."""

LEARNER_SEATS = ("random", "rotate")
"""The learner-seat rules besides a fixed seat: drawn per episode, or rotating."""


class GameVectorEnv(VectorEnv):
    """``num_envs`` single-agent games of one spec on its batched form (module docstring).

    Args:
        game: a :class:`~moonriver_env.games.GameSpec` or its text (``"2p_base"``,
            ``"kingdomino_4p_base"``).
        num_envs: games played together.
        opponents: ``"random"``, an agent spec of the game, or a batched policy
            ``(observations, masks) -> actions`` (module docstring).
        learner_seat: a seat, ``"random"`` (drawn per episode) or ``"rotate"``.
        seed: the seed of the first deal (as ``reset(seed=seed)``); ``None`` draws one.
        threads: the threads the core writes the learner's observations with at each step
            (``observe_rows``; the observations are the same for any number).
        **kwargs: the batched game's other arguments (``reward``, ``dense_reward``,
            ``backend``, ...; checked there).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game: GameSpec | str = "2p_base",
        num_envs: int = 64,
        opponents: Opponents = "random",
        learner_seat: int | str = "random",
        seed: int | None = None,
        threads: int = 1,
        **kwargs: Any,
    ) -> None:
        spec = parse_game(game) if isinstance(game, str) else game
        if not isinstance(spec, GameSpec):
            raise TypeError(f"game: expected a GameSpec or its text, got {type(game).__name__}")
        for key in ("observe", "auto_reset", "num_games"):
            if key in kwargs:
                raise TypeError(f"{key}: set by the environment, not an argument")
        vg = vector_game(
            spec, num_envs, seed=seed, observe=observes(opponents), auto_reset=True, **kwargs
        )
        self._setup(vg, spec, opponents, learner_seat, seed, threads)

    def _setup(
        self,
        vg: Any,
        spec: GameSpec,
        opponents: Opponents,
        learner_seat: int | str,
        seed: int | None,
        threads: int = 1,
    ) -> None:
        """Everything but building the batched game ``vg`` (subclasses build their own)."""
        self.threads = check_int("threads", threads, 1, MAX_ROW_THREADS)
        self.vg = vg
        self.game_spec = spec
        self.num_envs = n_envs = int(vg.num_games)
        n = int(vg.num_players)
        self._learner_cfg: int | str
        if learner_seat == "rotate":
            self._learner_cfg = "rotate"
        else:
            self._learner_cfg = check_seat("learner_seat", learner_seat, n)
        self.opponents = opponents
        self._agent: Any = None
        self._policy: BatchPolicy | None = None
        if not isinstance(opponents, str):
            if not callable(opponents):
                raise TypeError(
                    "opponents: expected 'random', an agent spec or a batched policy, "
                    f"got {opponents!r}"
                )
            self._policy = opponents
        elif opponents != "random":
            self._agent = make_opponent(opponents, seed=seed, game=spec.entry.name)
        encoder = spec.entry.hook("encoder")(vg.config)
        high = np.concatenate([encoder.plane_high.ravel(), encoder.feature_high])
        high = high.astype(np.float32)
        self.single_observation_space = spaces.Box(np.zeros_like(high), high, dtype=np.float32)
        self.single_action_space = spaces.Discrete(int(vg.num_actions))
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, n_envs
        )
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n_envs)
        self._rng = np.random.default_rng(seed)
        self._rows = np.arange(n_envs)
        self._seats = np.zeros(n_envs, dtype=np.int32)
        self._episodes = np.zeros(n_envs, dtype=np.int64)
        self._carry = np.zeros(n_envs, dtype=np.float64)
        self._scores = np.zeros_like(vg.scores)
        self._rows_pool: list[np.ndarray] = []
        self._started = False
        self.calls = 0
        """The env's ``reset`` and ``step`` calls so far (what its masks are of, for a cache)."""

    # -- Gymnasium API -------------------------------------------------------------------------
    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        seed = check_seed(seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            if self._agent is not None and hasattr(self._agent, "reset"):
                self._agent.reset(seed)
        self.calls += 1
        self.vg.reset(seed=seed)
        self._episodes[:] = 0
        self._draw_seats(np.ones(self.num_envs, dtype=bool))
        this, later, _ = self._play_opponents(np.zeros(self.num_envs, dtype=bool))
        self._carry[:] = this + later
        self._started = True
        return self._obs(), self._infos()

    def step(
        self, actions: Any
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("step: call reset() first")
        vg = self.vg
        vg.step(actions)  # checked there: refused as a whole, nothing changed
        self.calls += 1
        rewards = self._carry
        self._carry = np.zeros(self.num_envs, dtype=np.float64)
        rewards += vg.rewards[self._rows, self._seats]
        ended = vg.terminated.copy()
        self._scores = np.zeros_like(vg.scores)  # a new array each step: infos["scores"]
        if ended.any():
            self._scores[ended] = vg.scores[ended]
        self._draw_seats(ended)
        # Opponents play until the learner is to act; what a seat receives after its game
        # ended in this step belongs to the next episode.
        this, later, ended = self._play_opponents(ended)
        rewards += this
        self._carry += later
        infos = self._infos()
        infos["scores"] = self._scores
        return self._obs(), rewards, ended, np.zeros(self.num_envs, dtype=bool), infos

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, (N, A) bool (MaskablePPO's name)."""
        return self.vg.action_mask.astype(bool)

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release."""

    # -- helpers -----------------------------------------------------------------------------
    def _draw_seats(self, which: np.ndarray) -> None:
        n = int(self.vg.num_players)
        if self._learner_cfg == "random":
            drawn = self._rng.integers(n, size=self.num_envs)
        elif self._learner_cfg == "rotate":
            self._episodes += which
            drawn = (self._episodes - 1 + self._rows) % n
        else:
            drawn = np.full(self.num_envs, int(self._learner_cfg))
        self._seats = np.where(which, drawn, self._seats).astype(np.int32)

    def _play_opponents(self, ended: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Opponent moves until the learner is to act in every game. Returns the learner's
        rewards for the episode of this step, those for the next (games that ended already),
        and which games ended (``ended``, or on an opponent's move)."""
        vg = self.vg
        rows = self._rows
        this = np.zeros(self.num_envs, dtype=np.float64)
        later = np.zeros(self.num_envs, dtype=np.float64)
        ended = ended.copy()
        play = getattr(vg, "play_random", None)
        if play is not None and self._agent is None and self._policy is None:
            # random opponents, played in the batched game until every learner is to act
            while True:
                gained, newly = play(self._seats, int(self._rng.integers(_SEED_HIGH)))
                later += gained * ended
                this += gained * ~ended
                if not newly.any():
                    return this, later, ended
                self._scores[newly] = vg.scores[newly]
                self._draw_seats(newly)  # the next game's seat; its moves go to `later`
                ended |= newly
        split = bool(ended.any())  # some games' rewards already belong to the next episode
        while True:
            waiting = vg.current_seat != self._seats
            if not waiting.any():
                return this, later, ended
            vg.step(self._opponent_actions(waiting), waiting)
            got = vg.rewards[rows, self._seats] * waiting
            if split:
                later += got * ended
                got *= ~ended
            this += got
            newly = waiting & vg.terminated
            if newly.any():  # a game ended on an opponent's move: the next game's seat
                self._scores[newly] = vg.scores[newly]
                self._draw_seats(newly)
                ended |= newly
                split = True

    def _opponent_actions(self, waiting: np.ndarray) -> np.ndarray:
        vg = self.vg
        if self._policy is not None:
            rows = np.flatnonzero(waiting)
            assert vg.observation is not None
            chosen = np.asarray(
                self._policy(vg.observation[rows], vg.action_mask[rows].astype(bool))
            )
            if chosen.shape != rows.shape:
                raise ValueError(
                    f"opponents: the policy gave actions of shape {chosen.shape}, "
                    f"expected {rows.shape}"
                )
            actions = np.zeros(self.num_envs, dtype=np.int64)
            actions[rows] = chosen
            return actions
        if self._agent is None:
            pick = (self._rng.random(self.num_envs) * vg.num_legal).astype(np.int64)
            return vg.legal_ids[self._rows, pick].astype(np.int64)
        rows = np.flatnonzero(waiting)
        actions = np.zeros(self.num_envs, dtype=np.int64)
        batch = getattr(self._agent, "choose_batch", None)
        if batch is not None:
            actions[rows] = batch(vg, rows)
            return actions
        for i in rows.tolist():
            actions[i] = self._agent.choose(vg.get_state(i))
        return actions

    def _obs(self) -> np.ndarray:
        """The learner's rows, in an array no one else holds (the caller may keep it)."""
        if self.vg.observation is None:  # the steps wrote none: the learner's rows, once
            rows = self.vg.observe_rows(self._free_rows(), threads=self.threads)
            return rows.view()  # the caller's own view: its flags and shape are the caller's
        return np.array(self.vg.observation, dtype=np.float32)

    def _free_rows(self) -> np.ndarray:
        """A private array for the learner's rows: one whose view this env handed out before
        and that nothing references any more (a view, an array or a tensor made from it holds
        a reference to it), else a new one. Reusing them spares the allocator a fresh mapping
        of the rows (megabytes) at every step. A caller who keeps only a weak reference or a
        raw pointer to the data does not hold it."""
        pool = self._rows_pool
        for k in range(len(pool)):
            if sys.getrefcount(pool[k]) == 2:  # the pool's reference and the call's own
                return pool[k]
        rows = np.empty((self.num_envs, self.vg.observation_size), dtype=np.float32)
        pool.append(rows)  # the last few handed out (the oldest left to whoever holds it)
        if len(pool) > _ROWS_POOL:
            del pool[0]
        return rows

    def _infos(self) -> dict[str, Any]:
        return {"action_mask": self.action_masks(), "learner_seat": self._seats.copy()}


def observes(opponents: Opponents) -> bool:
    """Whether the batched game under a :class:`GameVectorEnv` with these ``opponents`` writes
    the dense observation at every move: only for a batched policy, which reads the acting
    opponents' rows. Otherwise its steps write none and the env asks for the learner's rows
    once a step (``observe_rows``), the one observation it hands out."""
    return not isinstance(opponents, str)


def make_vector_env(
    game: GameSpec | str = "2p_base",
    num_envs: int = 64,
    opponents: Opponents = "random",
    learner_seat: int | str = "random",
    seed: int | None = None,
    **kwargs: Any,
) -> GameVectorEnv:
    """The :class:`GameVectorEnv` of ``game`` (its text, ``"kingdomino_4p_base"``, or a
    :class:`~moonriver_env.games.GameSpec`); :class:`~moonriver_env.vector.NoVectorGame` for a
    game without a batched form."""
    return GameVectorEnv(game, num_envs, opponents, learner_seat, seed, **kwargs)


VECTOR_ENTRY_PREFIX = "vector_env_"
"""``moonriver_env.vector.gym_env:vector_env_NAME`` is the registered game ``NAME``'s vector
entry point for Gymnasium (:func:`gymnasium_vector_env` with the game given)."""


def gymnasium_vector_env(game: str, num_envs: int = 64, **kwargs: Any) -> GameVectorEnv:
    """``gymnasium.make_vec(id, num_envs=..., **kwargs)`` for the registered game ``game``:
    ``num_players``, ``mode`` and the game's settings (``scenario``, ...) make its
    :class:`~moonriver_env.games.GameSpec`; the other keywords are :func:`make_vector_env`'s
    (``opponents``, ``learner_seat``, ``seed``, ``reward``, ...)."""
    entry = GAMES[game]
    names = ("num_players", "mode", *entry.settings)
    fields = {name: kwargs.pop(name) for name in names if kwargs.get(name) is not None}
    return GameVectorEnv(GameSpec(game=game, **fields), num_envs, **kwargs)


def __getattr__(name: str) -> Callable[..., GameVectorEnv]:
    """``vector_env_NAME``: the vector entry point of the registered game ``NAME``."""
    game = name.removeprefix(VECTOR_ENTRY_PREFIX)
    if name.startswith(VECTOR_ENTRY_PREFIX) and game in GAMES:
        return functools.partial(gymnasium_vector_env, game)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
