"""``KingdominoVectorGame``: many Kingdomino games stepped together, on the native core
(``moonriver_env/_core/kingdomino.c``).

Game ``i`` of ``KingdominoVectorGame(seed=s)`` is the game that
``kingdomino_v0.env(...).reset(seed=s + i)`` plays, decision for decision: the same legal ids,
``np.array_equal`` observations and masks, the same rewards and points. The deal is the
engine's own: each game's set-up (the shuffled pile, the box, the first line, the set-up
order) is taken from :func:`~moonriver_env.kingdomino.state.new_game` with the env's seed; the
core draws nothing afterwards (every later line comes off that pile). As in
:class:`~moonriver_env.vector.VectorGame`, slot ``i`` keeps the env's seed generator
``default_rng(s + i)``: an auto-reset plays the env's next game after a seedless ``reset()``.

The domino table, the bonus values, the action layout and the phase numbers are read from the
Python package (:mod:`moonriver_env.kingdomino`) into the core at construction and checked
there. A Dynasty's three set-ups are all taken at its start: the engine's generator draws
only at a set-up, so the second and third come from the same generator, in order, as the
engine's ``_start_game`` deals them when the game before ends.

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

from ..env_args import REWARD_MODES, check_seed
from ..kingdomino import KingdominoConfig, Phase
from ..kingdomino.actions import action_layout
from ..kingdomino.core import IllegalActionError
from ..kingdomino_args import game_config, rank_rewards
from ..kingdomino_encoding import KingdominoEncoder
from ..rules.validation import check_choice, check_int
from ._kdspec import core_config
from ._native_core import GAME_SEED_HIGH, IMPORT_ERROR, NATIVE, native

__all__ = ["KingdominoVectorGame", "UnsupportedKingdominoConfig"]

_SEED_LIMIT = 2**64
NATIVE_VARIANTS_MISSING: tuple[str, ...] = ()
"""Variants the core does not play (refused with :class:`UnsupportedKingdominoConfig`):
none today."""


class UnsupportedKingdominoConfig(ValueError):
    """A Kingdomino config the native core does not play, or no core built."""


class KingdominoVectorGame:
    """``num_games`` Kingdomino games of one config, one action per game per :meth:`step`.

    Args:
        num_games: how many games (N).
        num_players, variants, mode, config, reward: as for ``kingdomino_v0.env``.
        seed: game ``i`` is the env's game after ``reset(seed=seed + i)``; ``None`` draws one.
        observe: write the observation (``False``: masks only).
        auto_reset: a finished game starts its next game in the same step.

    Raises:
        UnsupportedKingdominoConfig: Dynasty, or the core is not built.
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
        observe: bool = True,
        auto_reset: bool = True,
    ) -> None:
        if mode is not None:
            if variants is not None:
                raise ValueError("mode: names the variants too; give mode or variants, not both")
            variants = "" if mode == "base" else str(mode).replace("+", ",")
        self.reward_mode = check_choice("reward", reward, REWARD_MODES)
        self.config = cfg = game_config(num_players, variants, config)
        self.num_games = n_games = check_int("num_games", num_games, 1, 1 << 24)
        for name, flag in (("observe", observe), ("auto_reset", auto_reset)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name}: expected a bool, got {flag!r}")
        missing = [v for v in NATIVE_VARIANTS_MISSING if cfg.has(v)]
        if missing:
            raise UnsupportedKingdominoConfig(
                f"variants: {', '.join(missing)} is not in the native core "
                "(play it with kingdomino_v0.env)"
            )
        if not NATIVE or native is None:
            raise UnsupportedKingdominoConfig(f"the native core is not built ({IMPORT_ERROR})")
        self._native: Any = native
        self.observe = observe
        self.auto_reset = auto_reset
        self.num_players = n = cfg.num_players
        self.num_actions = a = cfg.num_actions
        self.observation_size = KingdominoEncoder(cfg).size
        self._obs = np.zeros((n_games, self.observation_size if observe else 0), np.float32)
        self._mask = np.zeros((n_games, a), dtype=np.int8)
        self._legal = np.zeros((n_games, a), dtype=np.int16)
        self._num_legal = np.zeros(n_games, dtype=np.int32)
        self._seat = np.zeros(n_games, dtype=np.int32)
        self._phase = np.zeros(n_games, dtype=np.int32)
        self._rewards = np.zeros((n_games, n), dtype=np.float64)
        self._terminated = np.zeros(n_games, dtype=np.bool_)
        self._scores = np.zeros((n_games, n, 2), dtype=np.int32)
        self._seed_rngs: list[np.random.Generator | None] = [None] * n_games
        self._batch = native.KdBatch(
            core_config(native, cfg),
            n_games,
            self._legal,
            self._mask,
            self._num_legal,
            self._seat,
            self._phase,
            self._obs if observe else None,
        )
        self.observation: np.ndarray | None = _readonly(self._obs) if observe else None
        self.action_mask = _readonly(self._mask)
        self.legal_ids = _readonly(self._legal)
        self.num_legal = _readonly(self._num_legal)
        self.current_seat = _readonly(self._seat)
        self.rewards = _readonly(self._rewards)
        self.terminated = _readonly(self._terminated)
        self.scores = _readonly(self._scores)
        self.reset(seed=int(np.random.default_rng().integers(2**62)) if seed is None else seed)

    # -- the batched API ---------------------------------------------------------------------
    def reset(self, seed: int | None = None) -> None:
        """A new game in every slot (as :meth:`VectorGame.reset`)."""
        seed = check_seed(seed)
        if seed is not None and seed + self.num_games > _SEED_LIMIT:
            raise ValueError(f"seed: expected seed + num_games <= 2**64, got {seed}")
        for i in range(self.num_games):
            self._new_game(i, None if seed is None else seed + i)
        self._rewards.fill(0.0)
        self._terminated.fill(False)
        self._scores.fill(0)

    def reset_game(self, i: int, seed: int | None = None) -> None:
        """A new game in slot ``i`` only (the env's game after ``reset(seed=seed)``)."""
        i = check_int("i", i, 0, self.num_games - 1)
        seed = check_seed(seed)
        if seed is not None and seed >= _SEED_LIMIT:
            raise ValueError(f"seed: expected a seed below 2**64, got {seed}")
        self._new_game(i, seed)
        self._rewards[i] = 0.0
        self._terminated[i] = False
        self._scores[i] = 0

    def step(self, actions: Sequence[int] | np.ndarray, active: np.ndarray | None = None) -> None:
        """Play one action per game (for its acting seat); the arrays show the result.

        Raises:
            ValueError: ``actions`` is not N integers, or ``active`` not N bools.
            IllegalActionError: an action is not legal for its game (naming the game, the
                action and the phase); no game has changed.
        """
        arr = np.asarray(actions)
        if arr.shape != (self.num_games,):
            raise ValueError(f"actions: expected shape ({self.num_games},), got {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise ValueError(f"actions: expected an integer array, got dtype {arr.dtype}")
        if arr.dtype.kind == "u" and arr.size and int(arr.max()) >= 2**63:
            raise IllegalActionError(f"actions: id {int(arr.max())} is out of range")
        arr = np.ascontiguousarray(arr, dtype=np.int64)
        if active is None:
            on = np.ones(self.num_games, dtype=np.bool_)
        else:
            on = np.asarray(active)
            if on.shape != (self.num_games,) or on.dtype != np.bool_:
                raise ValueError(
                    f"active: expected a bool array of shape ({self.num_games},), "
                    f"got {on.dtype} {on.shape}"
                )
            on = np.ascontiguousarray(on)
        moving = on & (self._phase != int(Phase.GAME_OVER))
        bad = self._batch.step(arr, on)
        if bad >= 0:
            raise IllegalActionError(self._illegal_message(bad, int(arr[bad])))
        over = self._phase == int(Phase.GAME_OVER)
        self._rewards[on] = 0.0
        self._scores[moving] = 0
        self._terminated[moving] = over[moving]
        for i in np.flatnonzero(moving & over).tolist():
            self._game_over(i)

    def observation_of(self, i: int, seat: int) -> np.ndarray:
        """Game ``i`` as ``seat`` sees it (a new flat observation)."""
        i = check_int("i", i, 0, self.num_games - 1)
        seat = check_int("seat", seat, 0, self.num_players - 1)
        out = np.empty(KingdominoEncoder(self.config).size, dtype=np.float32)
        self._batch.observe(i, seat, out)
        return out

    def points(self, i: int) -> list[tuple[int, int]]:
        """Game ``i``'s ``(points, largest territory)`` per seat, as things stand."""
        i = check_int("i", i, 0, self.num_games - 1)
        return [tuple(x) for x in self._batch.scores(i)]

    # -- helpers -----------------------------------------------------------------------------
    def _new_game(self, i: int, seed: int | None) -> None:
        rng = self._seed_rngs[i]
        if seed is not None or rng is None:  # a seedless first reset: the env's fresh generator
            rng = self._seed_rngs[i] = np.random.default_rng(seed)
        self._batch.new_game(i, int(rng.integers(GAME_SEED_HIGH)))

    def _game_over(self, i: int) -> None:
        keys = self.points(i)
        self._scores[i] = keys
        self._rewards[i] = self._final_rewards(keys)
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
        phase = Phase(int(self._phase[i]))
        return (
            f"game {i}: action {action} ({text}) is not legal in phase {phase.name} "
            f"for seat {int(self._seat[i])}"
        )

    def __repr__(self) -> str:
        return (
            f"KingdominoVectorGame(num_games={self.num_games}, "
            f"num_players={self.num_players}, mode={self.config.mode!r})"
        )


def _readonly(arr: np.ndarray) -> np.ndarray:
    view = arr.view()
    view.flags.writeable = False
    return view
