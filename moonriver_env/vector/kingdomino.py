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
from ..kingdomino.components import NUM_DOMINOES
from ..kingdomino.core import IllegalActionError
from ..kingdomino.scoring import HARMONY_BONUS, MIDDLE_KINGDOM_BONUS
from ..kingdomino.state import DOMINOES, new_game
from ..kingdomino_args import game_config, rank_rewards
from ..kingdomino_encoding import KingdominoEncoder
from ..rules.validation import check_choice, check_int
from ._native_core import IMPORT_ERROR, NATIVE, native

__all__ = ["KingdominoVectorGame", "UnsupportedKingdominoConfig"]

_SEED_LIMIT = 2**64
NATIVE_VARIANTS_MISSING: tuple[str, ...] = ()
"""Variants the core does not play (refused with :class:`UnsupportedKingdominoConfig`):
none today."""


class UnsupportedKingdominoConfig(ValueError):
    """A Kingdomino config the native core does not play, or no core built."""


def core_params(native: Any, config: KingdominoConfig) -> bytes:
    """The core's checked parameters for ``config``: the layout, the bonuses, the phase
    numbers and the domino table, all read from the Python package."""
    layout_encoder = KingdominoEncoder(config)
    layout = action_layout(config)
    head = [
        config.num_players,
        config.size,
        config.line_size,
        config.dominoes_in_play,
        int(config.has("must_place")),
        int(config.bonus_flags[0]),
        int(config.bonus_flags[1]),
        HARMONY_BONUS,
        MIDDLE_KINGDOM_BONUS,
        layout.discard,
        layout.pick_base,
        layout.num_actions,
        layout_encoder.size,
        int(Phase.SETUP_PICK),
        int(Phase.PLACE),
        int(Phase.PICK),
        int(Phase.GAME_OVER),
        config.num_games,
    ]
    if len(DOMINOES) != NUM_DOMINOES:
        raise ValueError(f"the domino table has {len(DOMINOES)} dominoes, the core {NUM_DOMINOES}")
    table = []
    for d in DOMINOES:
        table += [d.land1, d.crowns1, d.land2, d.crowns2, d.number, int(d.symmetric)]
    vec = np.array(head + table, dtype=np.int64)
    if len(vec) != native.KD_PARAMS_LEN:
        raise ValueError(f"core params: {len(vec)} entries, the core reads {native.KD_PARAMS_LEN}")
    params: bytes = native.kd_params(vec.tobytes())
    return params


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
        self._params = core_params(native, cfg)
        self.observe = observe
        self.auto_reset = auto_reset
        self.num_players = n = cfg.num_players
        self.num_actions = a = cfg.num_actions
        self.observation_size = KingdominoEncoder(cfg).size
        self._games = np.zeros(n_games * self._native.KD_GAME_SIZE, dtype=np.uint8)
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
            on = np.ones(self.num_games, dtype=np.uint8)
        else:
            act = np.asarray(active)
            if act.shape != (self.num_games,) or act.dtype != np.bool_:
                raise ValueError(
                    f"active: expected a bool array of shape ({self.num_games},), "
                    f"got {act.dtype} {act.shape}"
                )
            on = act.astype(np.uint8)
        bad = self._native.kd_step(self._params, self._games, arr, on)
        if bad >= 0:
            raise IllegalActionError(self._illegal_message(bad, int(arr[bad])))
        for i in np.flatnonzero(on):
            self._after_step(int(i))

    def observation_of(self, i: int, seat: int) -> np.ndarray:
        """Game ``i`` as ``seat`` sees it (a new flat observation)."""
        i = check_int("i", i, 0, self.num_games - 1)
        seat = check_int("seat", seat, 0, self.num_players - 1)
        out = np.empty(KingdominoEncoder(self.config).size, dtype=np.float32)
        self._native.kd_observe(self._params, self._games, i, seat, out)
        return out

    def points(self, i: int) -> list[tuple[int, int]]:
        """Game ``i``'s ``(points, largest territory)`` per seat, as things stand."""
        i = check_int("i", i, 0, self.num_games - 1)
        return [tuple(x) for x in self._native.kd_scores(self._params, self._games, i)]

    # -- helpers -----------------------------------------------------------------------------
    def _new_game(self, i: int, seed: int | None) -> None:
        rng = self._seed_rngs[i]
        if seed is not None or rng is None:  # a seedless first reset: the env's fresh generator
            rng = self._seed_rngs[i] = np.random.default_rng(seed)
        state = new_game(self.config, seed=int(rng.integers(2**63 - 1)))
        for game in range(self.config.num_games):
            if game:
                state._start_game()  # the Dynasty's next set-up, drawn as the engine draws it
            setup = [
                np.array(x, dtype=np.int64).tobytes()
                for x in (state.pile, state.box, state.cur_line, state.setup_order)
            ]
            self._native.kd_reset(self._params, self._games, i, game, *setup)
        self._publish(i)

    def _publish(self, i: int) -> None:
        k, seat, phase = self._native.kd_publish(
            self._params, self._games, i, self._legal[i], self._mask[i], self._obs[i]
        )
        self._num_legal[i] = k
        self._seat[i] = seat
        self._phase[i] = phase

    def _after_step(self, i: int) -> None:
        self._publish(i)
        over = self._phase[i] == int(Phase.GAME_OVER)
        self._terminated[i] = over
        if not over:
            self._rewards[i] = 0.0
            self._scores[i] = 0
            return
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
