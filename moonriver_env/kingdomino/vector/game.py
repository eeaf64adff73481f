"""``KingdominoVectorGame``: many Kingdomino games stepped together, on the native core
(``moonriver_env/_core/kingdomino.c``) or, without it, on the Python engine.

Game ``i`` of ``KingdominoVectorGame(seed=s)`` is the game that
``kingdomino_v0.env(...).reset(seed=s + i)`` plays, decision for decision: the same legal ids,
``np.array_equal`` observations and masks, the same rewards and points, and the same
:class:`~moonriver_env.kingdomino.KingdominoState` JSON from :meth:`get_state` (its generator
included). The deal is the engine's own: the core draws each set-up (the shuffle, the box,
the first line, the set-up order) from NumPy's generator exactly as
:func:`~moonriver_env.kingdomino.rules.state.new_game` does, and a Dynasty's next set-up from the
same generator when the game before ends. As in :class:`~moonriver_env.vector.VectorGame`,
slot ``i`` keeps the env's seed generator ``default_rng(s + i)``: an auto-reset plays the
env's next game after a seedless ``reset()``.

The domino table, the bonus values, the action layout and the phase numbers are read from the
Python package (:mod:`moonriver_env.kingdomino`) into the core at construction and checked
there (:mod:`._spec`). ``backend="python"`` (or no built core, with one warning) plays the
same games on the Python engine with the same arrays (:mod:`._backend`).

Arrays (read-only views, updated in place) as :class:`~moonriver_env.vector.VectorGame`'s:
``observation`` (N, D) f32, ``action_mask`` (N, A) i8, ``legal_ids`` (N, A) i16,
``num_legal`` (N,) i32, ``current_seat`` (N,) i32 (``-1`` when over), ``rewards`` (N, n) f64,
``terminated`` (N,) bool, and ``scores`` (N, n, 2) i32: each seat's rank key, points and
largest territory (a Dynasty: the totals and the largest of its kingdoms, ruling KR5), for a
game that ended at the last step, else 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from moonriver_env.env_checks import DEFAULT_DENSE_REWARD, REWARD_MODES, check_seed
from moonriver_env.family.batch import (
    SPARSE_OVERFLOW,
    RowsObserved,
    check_sparse_rows,
    readonly,
    sparse_overflow,
    step_arrays,
)
from moonriver_env.family.native import GAME_SEED_HIGH, choose_backend, native
from moonriver_env.family.sparse import AfterstatesOf, observe_forms, sparse_arrays
from moonriver_env.family.validation import check_choice, check_finite, check_int
from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase
from moonriver_env.kingdomino.args import dense_gains, game_config, rank_rewards
from moonriver_env.kingdomino.encoding import KingdominoEncoder
from moonriver_env.kingdomino.rules.actions import action_layout
from moonriver_env.kingdomino.rules.core import IllegalActionError, StateFormatError
from moonriver_env.kingdomino.rules.invariants import check_state
from moonriver_env.kingdomino.vector._backend import KdNativeBackend, KdPythonBackend

__all__ = ["KingdominoVectorGame", "UnsupportedKingdominoConfig"]

_SEED_LIMIT = 2**64
NATIVE_VARIANTS_MISSING: tuple[str, ...] = ()
"""Variants the core does not play (refused with :class:`UnsupportedKingdominoConfig`):
none today."""


class UnsupportedKingdominoConfig(ValueError):
    """A Kingdomino config the native core does not play."""


class KingdominoVectorGame(AfterstatesOf, RowsObserved):
    """``num_games`` Kingdomino games of one config, one action per game per :meth:`step`.

    Args:
        num_games: how many games (N).
        num_players, variants, mode, config, reward, dense_reward: as for
            ``kingdomino_v0.env`` (``dense_reward``: each seat also gets this times the change
            of its points at every step).
        seed: game ``i`` is the env's game after ``reset(seed=seed + i)``; ``None`` draws one.
        observe: which observation to write (as for ``VectorGame``): ``True`` or ``"dense"``,
            ``"sparse"`` (``obs_idx``, ``obs_val``, ``obs_nnz``), ``"both"``, or ``False``
            (masks only).
        auto_reset: a finished game starts its next game in the same step.
        backend: ``"native"`` (the core), ``"python"`` (the engine) or ``None`` (the core
            when it is built, else the engine with one warning).
    """

    def __init__(
        self,
        num_games: int = 1024,
        num_players: int | None = None,
        variants: tuple[str, ...] | str | None = None,
        mode: str | None = None,
        reward: str = "win",
        config: KingdominoConfig | None = None,
        seed: int | None = None,
        observe: bool | str = True,
        auto_reset: bool = True,
        backend: str | None = None,
        dense_reward: float | None = None,
    ) -> None:
        if mode is not None:
            if variants is not None:
                raise ValueError("mode: names the variants too; give mode or variants, not both")
            variants = "" if mode == "base" else str(mode).replace("+", ",")
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        self.dense_reward = (DEFAULT_DENSE_REWARD if dense_reward is None
                             else check_finite("dense_reward", dense_reward))  # fmt: skip
        self.config = cfg = game_config(num_players, variants, config)
        self.num_games = n_games = check_int("num_games", num_games, 1, 1 << 24)
        forms = observe_forms(observe)
        if not isinstance(auto_reset, bool):
            raise TypeError(f"auto_reset: expected a bool, got {auto_reset!r}")
        self.backend = choose_backend(backend, "KingdominoVectorGame")
        missing = [v for v in NATIVE_VARIANTS_MISSING if cfg.has(v)]
        if missing and self.backend == "native":
            raise UnsupportedKingdominoConfig(
                f"variants: {', '.join(missing)} is not in the native core (backend='python')"
            )
        self.observe = observe = "dense" in forms
        self.sparse = "sparse" in forms
        self.auto_reset = auto_reset
        self.num_players = n = cfg.num_players
        self.num_actions = a = cfg.num_actions
        encoder = KingdominoEncoder(cfg)
        self.observation_size = encoder.size
        self.plane_shape: tuple[int, ...] = encoder.plane_shape
        self.feature_ranges: dict[str, tuple[int, int]] = encoder.feature_ranges
        self.sparse_width = encoder.sparse_width
        self.action_table = action_layout(cfg).action_table
        self._arrays: dict[str, np.ndarray] = {
            "observation": np.zeros((n_games, self.observation_size if observe else 0), np.float32),
            "mask": np.zeros((n_games, a), dtype=np.int8),
            "legal": np.zeros((n_games, a), dtype=np.int16),
            "num_legal": np.zeros(n_games, dtype=np.int32),
            "seat": np.zeros(n_games, dtype=np.int32),
            "phase": np.zeros(n_games, dtype=np.int32),
        }
        if self.sparse:
            self._arrays.update(sparse_arrays(n_games, self.sparse_width, self.observation_size))
        self._rewards = np.zeros((n_games, n), dtype=np.float64)
        self._dense_points = np.zeros((n_games, n), dtype=np.int64)  # points after the last step
        self._terminated = np.zeros(n_games, dtype=np.bool_)
        self._scores = np.zeros((n_games, n, 2), dtype=np.int32)
        self._seed_rngs: list[np.random.Generator | None] = [None] * n_games
        engine = KdNativeBackend if self.backend == "native" else KdPythonBackend
        self._backend: Any = engine(native, cfg, n_games, self._arrays)
        self.observation = readonly(self._arrays["observation"]) if observe else None
        self.obs_idx = self.obs_val = self.obs_nnz = None
        if self.sparse:
            self.obs_idx = readonly(self._arrays["obs_idx"])
            self.obs_val = readonly(self._arrays["obs_val"])
            self.obs_nnz = readonly(self._arrays["obs_nnz"])
        self.action_mask = readonly(self._arrays["mask"])
        self.legal_ids = readonly(self._arrays["legal"])
        self.num_legal = readonly(self._arrays["num_legal"])
        self.current_seat = readonly(self._arrays["seat"])
        self.rewards = readonly(self._rewards)
        self.terminated = readonly(self._terminated)
        self.scores = readonly(self._scores)
        self.reset(seed=int(np.random.default_rng().integers(2**62)) if seed is None else seed)

    # -- the batched API ---------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """A new game in every slot (as :meth:`VectorGame.reset`)."""
        seed = check_seed(seed)
        if seed is not None and seed + self.num_games > _SEED_LIMIT:
            raise ValueError(f"seed: expected seed + num_games <= 2**64, got {seed}")
        for i in range(self.num_games):
            self._new_game(i, None if seed is None else seed + i)
        check_sparse_rows(self._arrays.get("obs_nnz"))
        self._rewards.fill(0.0)
        self._terminated.fill(False)
        self._scores.fill(0)

    def reset_game(self, i: int, seed: int | None = None) -> None:
        """A new game in slot ``i`` only (the env's game after ``reset(seed=seed)``)."""
        i = self._index(i)
        seed = check_seed(seed)
        if seed is not None and seed >= _SEED_LIMIT:
            raise ValueError(f"seed: expected a seed below 2**64, got {seed}")
        self._new_game(i, seed)
        self._clear(i)
        check_sparse_rows(self._arrays.get("obs_nnz"), i)

    def step(self, actions: Sequence[int] | np.ndarray, active: np.ndarray | None = None) -> None:
        """Play one action per game (for its acting seat); the arrays show the result.

        ``active`` (optional, bool (N,)): only the games marked ``True`` play. A finished
        game (``auto_reset=False``) ignores its action.

        Raises:
            ValueError: ``actions`` is not N integers, or ``active`` not N bools.
            IllegalActionError: an action is not legal for its game (naming the game, the
                action and the phase); no game has changed.
        """
        arr, active = step_arrays(self.num_games, actions, active, IllegalActionError)
        on = np.ones(self.num_games, dtype=np.bool_) if active is None else active
        phase = self._arrays["phase"]
        moving = on & (phase != int(Phase.GAME_OVER))
        bad = self._backend.step(arr, on)
        if bad >= 0:
            raise IllegalActionError(self._illegal_message(bad, int(arr[bad])))
        over = phase == int(Phase.GAME_OVER)
        self._rewards[on] = 0.0
        if self.dense_reward:
            for i in np.flatnonzero(moving).tolist():
                points = [p for p, _ in self._backend.rank_keys(i)]
                gains = dense_gains(points, self._dense_points[i].tolist())
                self._rewards[i] = self.dense_reward * np.array(gains, dtype=np.float64)
                self._dense_points[i] = points
        self._scores[moving] = 0
        self._terminated[moving] = over[moving]
        ended = np.flatnonzero(moving & over)
        for i in ended.tolist():
            self._game_over(i)
        # the width's bound broke (a bug): said once every array agrees with the games
        if bad == SPARSE_OVERFLOW:
            raise sparse_overflow()
        if self.auto_reset:
            check_sparse_rows(self._arrays.get("obs_nnz"), ended)

    def observation_of(self, i: int, seat: int) -> np.ndarray:
        """Game ``i`` as ``seat`` sees it (a new flat observation)."""
        i = self._index(i)
        seat = check_int("seat", seat, 0, self.num_players - 1)
        out: np.ndarray = self._backend.observe(i, seat)
        return out

    def points(self, i: int) -> list[tuple[int, int]]:
        """Game ``i``'s ``(points, largest territory)`` per seat, as things stand."""
        keys: list[tuple[int, int]] = self._backend.rank_keys(self._index(i))
        return keys

    def get_state(self, i: int) -> KingdominoState:
        """Game ``i`` as a :class:`KingdominoState` (a copy: changing it changes nothing
        here)."""
        state: KingdominoState = self._backend.get_state(self._index(i))
        return state

    def best_moves(self, i: int, agent: str) -> tuple[int, ...] | None:
        """The legal ids of game ``i`` that ``agent`` values most, in the legal list's order,
        computed in the core: the options the agent draws among (empty for a finished game).
        ``agent``: ``"greedy"`` (the largest gain: the points a placement adds, the discard 0;
        a pick: its domino's best placement now) or ``"heuristic"`` (the best
        ``position_value`` after a placement; a pick: its domino's best one). ``None`` on the
        Python backend. The batched opponents decide on it (``choose_batch`` of both agents)."""
        if agent not in ("greedy", "heuristic"):
            raise ValueError(f"agent: expected 'greedy' or 'heuristic', got {agent!r}")
        return self._backend.best_moves(self._index(i), agent)

    def set_state(self, i: int, state: KingdominoState) -> None:
        """Game ``i`` plays on from ``state`` (a state of this config, checked first:
        :class:`~moonriver_env.kingdomino.rules.core.StateFormatError` naming the broken rule,
        and nothing changes)."""
        i = self._index(i)
        if type(state) is not KingdominoState:
            raise TypeError(f"state: expected a KingdominoState, got {type(state).__name__}")
        if state.config != self.config:
            raise ValueError("state: its config differs from this vector game's config")
        check_state(state)
        if not state.is_terminal and not state.legal_action_list():
            raise StateFormatError("phase: no legal action in a game that is not over")
        self._backend.set_state(i, state)
        self._clear(i)
        self._note_points(i)
        check_sparse_rows(self._arrays.get("obs_nnz"), i)

    # -- helpers -----------------------------------------------------------------------------
    def _index(self, i: int) -> int:
        return check_int("i", i, 0, self.num_games - 1)

    def _clear(self, i: int) -> None:
        self._rewards[i] = 0.0
        self._terminated[i] = False
        self._scores[i] = 0

    def _new_game(self, i: int, seed: int | None) -> None:
        """A new game in slot ``i`` (its caller checks the sparse row: ``check_sparse_rows``)."""
        rng = self._seed_rngs[i]
        if seed is not None or rng is None:  # a seedless first reset: the env's fresh generator
            rng = self._seed_rngs[i] = np.random.default_rng(seed)
        self._backend.new_game(i, int(rng.integers(GAME_SEED_HIGH)))
        self._note_points(i)

    def _note_points(self, i: int) -> None:
        """Game ``i``'s points as they stand: what the next step's ``dense_reward`` starts from."""
        if self.dense_reward:
            self._dense_points[i] = [p for p, _ in self._backend.rank_keys(i)]

    def _game_over(self, i: int) -> None:
        keys = self.points(i)
        self._scores[i] = keys
        self._rewards[i] += self._final_rewards(keys)
        if self.auto_reset:
            self._new_game(i, None)

    def _final_rewards(self, keys: list[tuple[int, int]]) -> list[float]:
        """The env's final rewards (``kingdomino_v0.raw_env._final_rewards``)."""
        if self.reward_mode == "win":
            return rank_rewards(keys)
        pts = [float(p) for p, _ in keys]
        if self.reward_mode == "score":
            return pts
        return [p - max(o for j, o in enumerate(pts) if j != s) for s, p in enumerate(pts)]

    def _illegal_message(self, i: int, action: int) -> str:
        layout = action_layout(self.config)
        text = layout.to_text(action) if 0 <= action < layout.num_actions else "out of range"
        phase = Phase(int(self._arrays["phase"][i]))
        seat = int(self._arrays["seat"][i])
        return (
            f"game {i}: action {action} ({text}) is not legal in phase {phase.name} for seat {seat}"
        )

    def __repr__(self) -> str:
        return (
            f"KingdominoVectorGame(num_games={self.num_games}, num_players={self.num_players}, "
            f"mode={self.config.mode!r}, backend={self.backend!r})"
        )
