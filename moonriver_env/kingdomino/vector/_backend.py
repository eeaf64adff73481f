"""The two engines behind :class:`~moonriver_env.vector.KingdominoVectorGame`: the native core
(``_native.KdBatch``) and the Python engine (:mod:`moonriver_env.kingdomino`: the fallback
without a built core, and a second implementation the tests compare).

Both publish every game's legal ids, mask, number of legal ids, acting seat, phase and (when
observing) the acting seat's observation into the vector game's arrays, and have the same
small interface: ``new_game(i, seed)`` (the game ``new_game(config, seed)`` sets up),
``step(actions, active) -> -1 or the first bad game index`` (nothing changes then; a
finished game ignores its action), ``observe(i, seat)``, ``rank_keys(i)``, ``get_state(i)``
and ``set_state(i, state)`` (a checked state).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from moonriver_env.family.sparse import pack_rows
from moonriver_env.kingdomino import KingdominoState, new_game
from moonriver_env.kingdomino.encoding import KingdominoEncoder
from moonriver_env.kingdomino.vector._spec import (
    core_config,
    kd_record_dtype,
    record_to_state,
    state_to_record,
)

__all__ = ["KdNativeBackend", "KdPythonBackend"]

Arrays = dict[str, np.ndarray]
"""The vector game's arrays: legal, mask, num_legal, seat, phase, observation, and with the
sparse observation obs_idx, obs_val, obs_nnz."""


class KdNativeBackend:
    """The games live in the core (``moonriver_env._native.KdBatch``)."""

    def __init__(self, native: Any, config: Any, num_games: int, arrays: Arrays) -> None:
        self._config = config
        self._dtype = kd_record_dtype(native)
        self._obs_size = KingdominoEncoder(config).size
        self._batch = native.KdBatch(
            core_config(native, config),
            num_games,
            arrays["legal"],
            arrays["mask"],
            arrays["num_legal"],
            arrays["seat"],
            arrays["phase"],
            arrays["observation"] if arrays["observation"].size else None,
            **(
                {
                    "sparse_idx": arrays["obs_idx"],
                    "sparse_val": arrays["obs_val"],
                    "sparse_nnz": arrays["obs_nnz"],
                    "sparse_width": arrays["obs_idx"].shape[1],
                }
                if "obs_idx" in arrays
                else {}
            ),
        )

    def new_game(self, i: int, seed: int) -> None:
        self._batch.new_game(i, seed)

    def step(self, actions: np.ndarray, active: np.ndarray) -> int:
        return int(self._batch.step(actions, active))

    def observe(self, i: int, seat: int) -> np.ndarray:
        out = np.empty(self._obs_size, dtype=np.float32)
        self._batch.observe(i, seat, out)
        return out

    def observe_rows(self, out: np.ndarray, threads: int) -> None:
        self._batch.observe_rows(out, threads)

    def rank_keys(self, i: int) -> list[tuple[int, int]]:
        return [(int(p), int(b)) for p, b in self._batch.scores(i)]

    def get_state(self, i: int) -> KingdominoState:
        rec = np.frombuffer(self._batch.get_record(i), dtype=self._dtype)[0]
        return record_to_state(self._config, rec)

    def set_state(self, i: int, state: KingdominoState) -> None:
        self._batch.set_record(i, state_to_record(self._dtype, state))

    def best_moves(self, i: int, agent: str) -> tuple[int, ...] | None:
        method = self._batch.greedy_top if agent == "greedy" else self._batch.heuristic_top
        top: tuple[int, ...] = method(i)
        return top


class KdPythonBackend:
    """The games are :class:`KingdominoState` objects of the Python engine."""

    def __init__(self, native: Any, config: Any, num_games: int, arrays: Arrays) -> None:
        self._config = config
        self._arrays = arrays
        self._encoder = KingdominoEncoder(config)
        self._observe = bool(arrays["observation"].size)
        self._sparse = "obs_idx" in arrays
        self._states: list[KingdominoState] = [new_game(config, 0)] * num_games

    def new_game(self, i: int, seed: int) -> None:
        self._states[i] = new_game(self._config, seed)
        self._publish(i)

    def step(self, actions: np.ndarray, active: np.ndarray) -> int:
        moving = [i for i in np.flatnonzero(active).tolist() if not self._states[i].is_terminal]
        for i in moving:
            if not self._states[i].is_legal(int(actions[i])):
                return i
        for i in moving:
            self._states[i].apply(int(actions[i]))
            self._publish(i)
        return -1

    def observe(self, i: int, seat: int) -> np.ndarray:
        return self._encoder.encode_flat(self._states[i], seat)

    def observe_rows(self, out: np.ndarray, threads: int) -> None:
        for i, state in enumerate(self._states):
            out[i] = self._encoder.encode_flat(state, max(state.seat, 0))

    def rank_keys(self, i: int) -> list[tuple[int, int]]:
        return self._states[i].rank_keys()

    def get_state(self, i: int) -> KingdominoState:
        return self._states[i].clone()

    def best_moves(self, i: int, agent: str) -> tuple[int, ...] | None:
        return None  # the agent decides on the state

    def set_state(self, i: int, state: KingdominoState) -> None:
        self._states[i] = state.clone()
        self._publish(i)

    def _publish(self, i: int) -> None:
        arrays = self._arrays
        state = self._states[i]
        legal = state.legal_action_list()
        arrays["mask"][i] = 0
        arrays["mask"][i, legal] = 1
        arrays["legal"][i] = 0
        arrays["legal"][i, : len(legal)] = legal
        arrays["num_legal"][i] = len(legal)
        arrays["seat"][i] = state.seat
        arrays["phase"][i] = int(state.phase)
        if self._observe or self._sparse:
            flat = self._encoder.encode_flat(state, max(state.seat, 0))
            if self._observe:
                arrays["observation"][i] = flat
            if self._sparse:
                row = slice(i, i + 1)
                pack_rows(
                    flat[None], arrays["obs_idx"][row], arrays["obs_val"][row],
                    arrays["obs_nnz"][row],
                )
