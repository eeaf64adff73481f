"""The two engines behind :class:`~moonriver_env.vector.VectorGame`: the native core and the
Python reference engine (the fallback, and a second implementation the tests compare).

Both write the VectorGame's arrays in place and have the same small interface:
``reset(seeds or None)``, ``step(actions) -> -1 or the first bad game index`` (nothing changes
then), ``get_state(i)``, ``set_state(i, state)``, ``phase(i)``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from moonriver_env.family.batch import random_stream
from moonriver_env.family.native import GAME_SEED_HIGH, REWARD_CODES, SCORE_WIDTH
from moonriver_env.family.sparse import pack_rows
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameState, new_game
from moonriver_env.moonriver.rules.scoring import ScoreBreakdown
from moonriver_env.moonriver.vector._spec import (
    build_spec,
    record_dtype,
    record_to_state,
    state_to_record,
)

VectorGame = (
    Any  # moonriver_env.moonriver.vector.game.VectorGame (not imported: it imports this module)
)

_CONFIGS: dict[int, tuple[Any, Any]] = {}


def native_config(config: Any) -> Any:
    """The core's checked tables for ``config`` (built once per config object)."""
    import moonriver_env._native as _native

    key = id(config)
    hit = _CONFIGS.get(key)
    if hit is None or hit[0] is not config:
        hit = _CONFIGS[key] = (config, _native.Config(build_spec(_native, config)))
    return hit[1]


class NativeBackend:
    """The games live in the core (``moonriver_env._native.Batch``)."""

    def __init__(self, vg: VectorGame) -> None:
        import moonriver_env._native as _native

        self._config = vg.config
        self._obs_size = vg.observation_size
        self._dtype = record_dtype(_native)
        arrays = vg._arrays
        self._batch = _native.Batch(
            native_config(vg.config),
            vg.num_games,
            REWARD_CODES[vg.reward_mode],
            vg.dense_reward,
            vg.auto_reset,
            arrays["observation"] if vg.observe else None,
            arrays["mask"],
            arrays["legal"],
            arrays["num_legal"],
            arrays["seat"],
            arrays["rewards"],
            arrays["terminated"],
            arrays["scores"],
            ranch_width=vg._ranch_width,
            **(
                {
                    "sparse_idx": arrays["obs_idx"],
                    "sparse_val": arrays["obs_val"],
                    "sparse_nnz": arrays["obs_nnz"],
                    "sparse_width": vg.sparse_width,
                }
                if vg.sparse
                else {}
            ),
        )

    def reset(self, seeds: np.ndarray | None) -> None:
        self._batch.reset(seeds)

    def reset_game(self, i: int, seed: int | None) -> None:
        self._batch.reset_game(i, seed)

    def step(self, actions: np.ndarray, active: np.ndarray | None) -> int:
        return int(self._batch.step(actions, active))

    def get_state(self, i: int) -> GameState:
        rec = np.frombuffer(self._batch.get_record(i), dtype=self._dtype)[0]
        return record_to_state(self._config, rec)

    def set_state(self, i: int, state: GameState) -> None:
        self._batch.set_record(i, state_to_record(self._dtype, state))

    def record(self, i: int) -> bytes | None:
        """Game ``i``'s record in the core."""
        record: bytes = self._batch.get_record(i)
        return record

    def phase(self, i: int) -> int:
        return int(self._batch.phase(i))

    def observe(self, i: int, seat: int) -> np.ndarray:
        out = np.empty(self._obs_size, dtype=np.float32)
        self._batch.observe(i, seat, out)
        return out

    def observe_rows(self, out: np.ndarray, threads: int) -> None:
        self._batch.observe_rows(out, threads)

    def play_random(
        self, seats: np.ndarray, seed: int, gained: np.ndarray, ended: np.ndarray
    ) -> int:
        return int(self._batch.play_random(seats, seed, gained, ended))


class PythonBackend:
    """The games are :class:`GameState` objects of the reference engine, one encoder each."""

    def __init__(self, vg: VectorGame) -> None:
        self._vg = vg
        self._states: list[GameState] = []
        self._seeders: list[np.random.Generator] = [
            np.random.default_rng(0) for _ in range(vg.num_games)
        ]
        self._encoders = [ObservationEncoder(vg.config) for _ in range(vg.num_games)]
        self._totals: list[list[int]] = [[0] * vg.num_players for _ in range(vg.num_games)]

    def _new_game(self, i: int) -> GameState:
        seed = int(self._seeders[i].integers(GAME_SEED_HIGH))
        self._totals[i] = [0] * self._vg.num_players
        return new_game(self._vg.config, seed=seed)

    def reset(self, seeds: np.ndarray | None) -> None:
        vg = self._vg
        if seeds is not None:
            self._seeders = [np.random.default_rng(int(s)) for s in seeds]
        self._states = [self._new_game(i) for i in range(vg.num_games)]
        arrays = vg._arrays
        arrays["rewards"][:] = 0.0
        arrays["terminated"][:] = False
        arrays["scores"][:] = 0
        for i in range(vg.num_games):
            self._publish(i)

    def reset_game(self, i: int, seed: int | None) -> None:
        if seed is not None:
            self._seeders[i] = np.random.default_rng(seed)
        self._states[i] = self._new_game(i)
        self._clear(i)

    def _clear(self, i: int) -> None:
        """Slot ``i`` after a new game or a set state: no reward, not ended, no scores."""
        arrays = self._vg._arrays
        arrays["rewards"][i] = 0.0
        arrays["terminated"][i] = False
        arrays["scores"][i] = 0
        self._publish(i)

    def _publish(self, i: int, observe: bool = True) -> None:
        arrays = self._vg._arrays
        state = self._states[i]
        legal = state.legal_action_list() if not state.is_terminal else []
        arrays["mask"][i] = 0
        arrays["mask"][i, legal] = 1
        arrays["legal"][i, : len(legal)] = legal
        arrays["num_legal"][i] = len(legal)
        seat = state.current_seat
        arrays["seat"][i] = -1 if seat is None else seat
        if observe and (self._vg.observe or self._vg.sparse):
            flat = self._encoders[i].encode_flat(state, seat or 0)
            if self._vg.observe:
                arrays["observation"][i] = flat
            if self._vg.sparse:
                row = slice(i, i + 1)
                pack_rows(
                    flat[None], arrays["obs_idx"][row], arrays["obs_val"][row],
                    arrays["obs_nnz"][row],
                )

    def step(self, actions: np.ndarray, active: np.ndarray | None) -> int:
        playing = [active is None or bool(active[i]) for i in range(len(self._states))]
        for i, state in enumerate(self._states):
            if playing[i] and not state.is_terminal and not state.is_legal(int(actions[i])):
                return i
        arrays = self._vg._arrays
        for i, state in enumerate(self._states):
            if not playing[i]:
                continue
            if state.is_terminal:
                arrays["rewards"][i] = 0.0
                continue
            self._move(i, int(actions[i]))
            self._publish(i)
        return -1

    def play_random(
        self, seats: np.ndarray, seed: int, gained: np.ndarray, ended: np.ndarray
    ) -> int:
        arrays = self._vg._arrays
        gained[:] = 0.0
        ended[:] = False
        for i in range(len(self._states)):
            seat = int(seats[i])
            draws = random_stream(seed, i)
            next(draws)
            moved = False
            while True:
                state = self._states[i]
                count = int(arrays["num_legal"][i])
                if state.is_terminal or state.current_seat == seat or count <= 0:
                    break
                self._move(i, int(arrays["legal"][i, draws.send(count)]))
                self._publish(i, observe=False)
                moved = True
                gained[i] += arrays["rewards"][i, seat]
                if arrays["terminated"][i]:
                    ended[i] = True
                    break
            if moved:
                self._publish(i)
        return -1

    def _move(self, i: int, action: int) -> None:
        """Game ``i`` (not finished) plays ``action``: its rewards, terminated flag and scores
        as the core's ``play_move`` writes them; the legal list and observation are left to
        ``_publish``."""
        vg = self._vg
        arrays = vg._arrays
        state = self._states[i]
        rewards = arrays["rewards"][i]
        was_done = bool(arrays["terminated"][i])
        state.apply(action)
        row = [0.0] * vg.num_players
        if vg.dense_reward:
            totals = self._encoders[i].ranch_totals(state)
            for s in range(vg.num_players):
                row[s] += vg.dense_reward * (totals[s] - self._totals[i][s])
            self._totals[i] = totals
        if was_done:
            arrays["scores"][i] = 0
        if state.is_terminal:
            scores = state.scores()
            for s, r in enumerate(_final_rewards(vg.reward_mode, scores)):
                row[s] += r
            arrays["scores"][i] = [[getattr(sc, f) for f in _SCORE_FIELDS] for sc in scores]
            arrays["terminated"][i] = True
            if vg.auto_reset:
                self._states[i] = self._new_game(i)
        else:
            arrays["terminated"][i] = False
        rewards[:] = row

    def observe_rows(self, out: np.ndarray, threads: int) -> None:
        for i, state in enumerate(self._states):
            out[i] = self._encoders[i].encode_flat(state, state.current_seat or 0)

    def record(self, i: int) -> bytes | None:
        """``None``: the games are the engine's, not the core's."""
        return None

    def get_state(self, i: int) -> GameState:
        return self._states[i].clone()

    def set_state(self, i: int, state: GameState) -> None:
        self._states[i] = state.clone()
        self._totals[i] = self._encoders[i].ranch_totals(self._states[i])
        self._clear(i)

    def phase(self, i: int) -> int:
        return int(self._states[i].phase)

    def observe(self, i: int, seat: int) -> np.ndarray:
        return self._encoders[i].encode_flat(self._states[i], seat)


_SCORE_FIELDS = tuple(f.name for f in dataclasses.fields(ScoreBreakdown))
assert len(_SCORE_FIELDS) == SCORE_WIDTH


def _final_rewards(mode: str, scores: list[Any]) -> list[float]:
    """The env's final rewards (``raw_env._final_rewards``)."""
    if mode == "win":
        from moonriver_env.moonriver.env import win_rewards

        return win_rewards(scores)
    totals = [float(s.total) for s in scores]
    if mode == "score":
        return totals
    return [t - max(o for j, o in enumerate(totals) if j != i) for i, t in enumerate(totals)]


__all__ = ["NativeBackend", "PythonBackend"]
