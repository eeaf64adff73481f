"""``VectorGame``: many Moon River games stepped together, on the native core.

Game ``i`` of ``VectorGame(seed=s)`` is the game that ``moonriver_v0.env(...).reset(seed=s+i)``
plays, decision for decision (the same legal ids, observation, mask, rewards and score
breakdowns, the same :class:`~moonriver_env.moonriver.rules.GameState` JSON, its generator included).
When a game ends and ``auto_reset`` is on, slot ``i`` starts the game that env would play after
a seedless ``reset()``: each slot keeps the env's seed generator, ``default_rng(s + i)``, and
draws the next game's seed from it (``integers(2**63 - 1)``), so slot ``i`` plays exactly the
env's sequence of games. ``reset(seed=None)`` does the same for every slot at once.

The arrays (attributes, updated in place by every ``reset`` and ``step``; read-only views):

==================  ===========  ===============================================================
``observation``     (N, D) f32   the acting seat's flat observation (``None`` if
                                 ``observe=False``); a finished game (``auto_reset=False``)
                                 shows seat 0's view of its final state
``action_mask``     (N, A) i8    1 for the legal ids of the acting seat
``legal_ids``       (N, A) i16   the legal ids, ascending, in the first ``num_legal[i]`` entries
``num_legal``       (N,) i32
``current_seat``    (N,) i32     the seat to act, ``-1`` for a finished game
``rewards``         (N, n) f64   every seat's reward of the last step (the env's rewards)
``terminated``      (N,) bool    the game ended at the last step (with ``auto_reset`` the
                                 arrays above already show the next game)
``scores``          (N, n, 7)    the final score breakdown of a game that ended at the last
                    i32          step (columns ``moonriver_env.moonriver.env.SCORE_COLUMNS``), else 0
==================  ===========  ===============================================================

With ``observe="sparse"`` (or ``"both"``) the core also writes the observation as its non-zero
entries, ``obs_idx``, ``obs_val`` and ``obs_nnz`` (:mod:`moonriver_env.family.sparse`), at a fixed
width ``sparse_width``. The layout is described by ``plane_shape`` (the planes ahead of the
features, ``(n * channels, rows, 5)``, channels ``RANCH_CHANNEL_NAMES``), ``feature_ranges``
(each feature slice's ``(start, stop)`` in the flat observation) and ``action_table`` (each
id's segment and components, :class:`~moonriver_env.family.sparse.ActionTable`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from moonriver_env.env_checks import DEFAULT_DENSE_REWARD, DEFAULT_REWARD, check_seed
from moonriver_env.family.batch import (
    SPARSE_OVERFLOW,
    RowsObserved,
    check_sparse_rows,
    random_seats,
    readonly,
    sparse_overflow,
    step_arrays,
)
from moonriver_env.family.native import SCORE_WIDTH, choose_backend
from moonriver_env.family.sparse import AfterstatesOf, observe_forms, sparse_arrays
from moonriver_env.family.validation import check_int
from moonriver_env.moonriver.args import env_settings
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameConfig, GameState, IllegalActionError, Phase
from moonriver_env.moonriver.vector._backend import NativeBackend, PythonBackend
from moonriver_env.moonriver.vector.search import NativeState

_SEED_LIMIT = 2**64


class VectorGame(AfterstatesOf, RowsObserved):
    """``num_games`` games of one config, one action per game per :meth:`step`.

    Args:
        num_games: how many games (N).
        num_players, mode, scenario, boards, auto_resolve, config, reward, dense_reward:
            as for ``moonriver_v0.env`` (checked by the env's own validators).
        seed: game ``i`` is the env's game after ``reset(seed=seed + i)``; ``None`` draws one.
        observe: which observation to write: ``True`` or ``"dense"`` (the flat float32 rows),
            ``"sparse"`` (their non-zero entries), ``"both"``, or ``False`` (masks only, for
            search and rules speed).
        auto_reset: a finished game starts its next game in the same step.
        backend: ``"native"`` (default when built), or ``"python"`` (the reference engine).
    """

    def __init__(
        self,
        num_games: int = 1024,
        num_players: int | None = None,
        mode: str | None = None,
        scenario: str | None = None,
        boards: tuple[str, ...] | str | None = None,
        reward: str | None = None,
        dense_reward: float | None = None,
        auto_resolve: bool | None = None,
        config: GameConfig | None = None,
        seed: int | None = None,
        observe: bool | str = True,
        auto_reset: bool = True,
        backend: str | None = None,
    ) -> None:
        settings = env_settings(
            {
                "num_players": num_players,
                "mode": mode,
                "scenario": scenario,
                "boards": boards,
                "reward": DEFAULT_REWARD if reward is None else reward,
                "dense_reward": DEFAULT_DENSE_REWARD if dense_reward is None else dense_reward,
                "obs_type": "flat",
                "auto_resolve": auto_resolve,
                "render_mode": None,
                "config": config,
            }
        )
        self.num_games = n_games = check_int("num_games", num_games, 1, 1 << 24)
        forms = observe_forms(observe)
        if not isinstance(auto_reset, bool):
            raise TypeError(f"auto_reset: expected a bool, got {auto_reset!r}")
        self.backend = backend = choose_backend(backend, "VectorGame")
        self.config = cfg = settings.config
        self.reward_mode = settings.reward
        self.dense_reward = settings.dense_reward
        self.observe = "dense" in forms
        self.sparse = "sparse" in forms
        self.auto_reset = auto_reset
        self.num_players = n = cfg.num_players
        self.num_actions = a = cfg.num_actions
        encoder = ObservationEncoder(cfg)
        self.observation_size = encoder.flat_size
        self.plane_shape: tuple[int, ...] = encoder.plane_shape
        self.feature_ranges: dict[str, tuple[int, int]] = encoder.feature_ranges
        self.sparse_width = encoder.sparse_width
        self._ranch_width = encoder.ranch_sparse_width  # the core's ranch lists' width
        self.action_table = cfg.layout.action_table
        self._arrays: dict[str, np.ndarray] = {
            "observation": np.zeros((n_games, self.observation_size), dtype=np.float32),
            "mask": np.zeros((n_games, a), dtype=np.int8),
            "legal": np.zeros((n_games, a), dtype=np.int16),
            "num_legal": np.zeros(n_games, dtype=np.int32),
            "seat": np.zeros(n_games, dtype=np.int32),
            "rewards": np.zeros((n_games, n), dtype=np.float64),
            "terminated": np.zeros(n_games, dtype=np.bool_),
            "scores": np.zeros((n_games, n, SCORE_WIDTH), dtype=np.int32),
        }
        if not self.observe:
            self._arrays["observation"] = np.zeros((0, 0), dtype=np.float32)
        self.observation: np.ndarray | None = readonly(self._arrays["observation"])
        if not self.observe:
            self.observation = None
        self.obs_idx = self.obs_val = self.obs_nnz = None
        if self.sparse:
            self._arrays.update(sparse_arrays(n_games, self.sparse_width, self.observation_size))
            self.obs_idx = readonly(self._arrays["obs_idx"])
            self.obs_val = readonly(self._arrays["obs_val"])
            self.obs_nnz = readonly(self._arrays["obs_nnz"])
        self.action_mask = readonly(self._arrays["mask"])
        self.legal_ids = readonly(self._arrays["legal"])
        self.num_legal = readonly(self._arrays["num_legal"])
        self.current_seat = readonly(self._arrays["seat"])
        self.rewards = readonly(self._arrays["rewards"])
        self.terminated = readonly(self._arrays["terminated"])
        self.scores = readonly(self._arrays["scores"])
        self._backend: Any = NativeBackend(self) if backend == "native" else PythonBackend(self)
        self.reset(seed=int(np.random.default_rng().integers(2**62)) if seed is None else seed)

    # -- the batched API ---------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """Start a new game in every slot: with ``seed``, slot ``i`` plays the env's game after
        ``reset(seed=seed + i)``; without, each slot's next game (as a seedless env reset)."""
        seed = check_seed(seed)
        seeds = None
        if seed is not None:
            if seed + self.num_games > _SEED_LIMIT:
                raise ValueError(
                    f"seed: expected seed + num_games <= 2**64 for VectorGame, got {seed}"
                )
            seeds = np.arange(self.num_games, dtype=np.uint64) + np.uint64(seed)
        self._backend.reset(seeds)
        check_sparse_rows(self._arrays.get("obs_nnz"))

    def reset_game(self, i: int, seed: int | None = None) -> None:
        """A new game in slot ``i`` only: with ``seed``, the env's game after
        ``reset(seed=seed)`` (and its sequence after that); without, the slot's next game."""
        i = self._index(i)
        seed = check_seed(seed)
        if seed is not None and seed >= _SEED_LIMIT:
            raise ValueError(f"seed: expected a seed below 2**64 for VectorGame, got {seed}")
        self._backend.reset_game(i, seed)
        check_sparse_rows(self._arrays.get("obs_nnz"), i)

    def step(self, actions: Sequence[int] | np.ndarray, active: np.ndarray | None = None) -> None:
        """Play one action per game (for its acting seat); the arrays show the result.

        ``active`` (optional, bool (N,)): only the games marked ``True`` play; the others, and
        their entries of every array, stay as they are (their actions are not read).

        Raises:
            ValueError: ``actions`` is not N integers.
            IllegalActionError: an action is not legal for its game (naming the game index,
                the action and the phase); no game has changed.
        """
        arr, active = step_arrays(self.num_games, actions, active, IllegalActionError)
        bad = self._backend.step(arr, active)
        if bad >= 0:
            raise IllegalActionError(self._illegal_message(bad, int(arr[bad])))
        if bad == SPARSE_OVERFLOW:  # the width's bound broke
            raise sparse_overflow()

    def play_random(self, seats: Any, seed: int) -> tuple[np.ndarray, np.ndarray]:
        """Uniformly random legal moves in every game while it is not finished and
        ``seats[i]`` is not to act (the moves of random opponents until the learner's turn),
        drawn from ``seed`` (game ``i``'s stream: :func:`~moonriver_env.family.batch.random_stream`;
        the same on both engines). A game that ends stops there (the next game begun with
        ``auto_reset``). Returns ``gained`` (float64 (N,): the sum of ``seats[i]``'s rewards
        over game ``i``'s moves) and ``ended`` (bool (N,)); the arrays show each game as
        ``step`` leaves it after its last move (``rewards``, ``terminated`` and ``scores``
        of that move). ``seats`` out of range: ``ValueError``, nothing played."""
        seats = random_seats(seats, self.num_games, self.num_players)
        seed = check_int("seed", seed, 0, _SEED_LIMIT - 1)
        gained = np.zeros(self.num_games, dtype=np.float64)
        ended = np.zeros(self.num_games, dtype=np.bool_)
        if self._backend.play_random(seats, seed, gained, ended) == SPARSE_OVERFLOW:
            raise sparse_overflow()
        return gained, ended

    def observation_of(self, i: int, seat: int) -> np.ndarray:
        """Game ``i`` as ``seat`` sees it (a new flat observation; any seat, also with
        ``observe=False``)."""
        i = self._index(i)
        seat = check_int("seat", seat, 0, self.num_players - 1)
        return self._backend.observe(i, seat)

    def get_state(self, i: int) -> GameState:
        """Game ``i`` as a :class:`GameState` (a copy: changing it changes nothing here)."""
        return self._backend.get_state(self._index(i))

    def native_state(self, i: int) -> NativeState | None:
        """Game ``i`` in the core for search (a copy: a :class:`NativeState`, read from the
        core's record with no :class:`GameState` in between); ``None`` on the Python backend.
        The batched opponents decide on it (``HeuristicAgent.choose_batch``)."""
        record = self._backend.record(self._index(i))
        return None if record is None else NativeState.from_record(self.config, record)

    def set_state(self, i: int, state: GameState) -> None:
        """Game ``i`` plays on from ``state`` (a state of this config; checked first)."""
        i = self._index(i)
        if not isinstance(state, GameState) or type(state) is not GameState:
            raise TypeError(f"state: expected a GameState, got {type(state).__name__}")
        if state.config != self.config:
            raise ValueError("state: its config differs from this VectorGame's config")
        self._backend.set_state(i, state)
        check_sparse_rows(self._arrays.get("obs_nnz"), i)

    # -- helpers -----------------------------------------------------------------------------
    def _index(self, i: int) -> int:
        return check_int("i", i, 0, self.num_games - 1)

    def _illegal_message(self, i: int, action: int) -> str:
        phase = Phase(self._backend.phase(i))
        seat = int(self._arrays["seat"][i])
        layout = self.config.layout
        text = layout.to_text(action) if 0 <= action < layout.num_actions else "out of range"
        return (
            f"game {i}: action {action} ({text}) is not legal in phase {phase.name} for seat {seat}"
        )

    def __repr__(self) -> str:
        cfg = self.config
        return (
            f"VectorGame(num_games={self.num_games}, num_players={cfg.num_players}, "
            f"mode={cfg.mode!r}, backend={self.backend!r})"
        )

