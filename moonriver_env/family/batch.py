"""What every game's batched binding of the native core shares (a game's ``vector/``
folder): the checked arguments of a step, the read-only views a vector game shows, and the
NumPy dtype of a game record whose fields the core lists. A record's generator words are
:mod:`moonriver_env.family.rng`'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from moonriver_env.family.validation import check_int

__all__ = [
    "MAX_ROW_THREADS",
    "RowsObserved",
    "fields_dtype",
    "observation_rows",
    "random_seats",
    "random_stream",
    "readonly",
    "step_arrays",
]

_TYPE_CODES = {"b": np.int8, "h": np.int16, "I": np.uint32, "Q": np.uint64}
"""The core's type codes of a record's fields (Python's ``struct`` letters)."""


def fields_dtype(fields: Any, itemsize: int) -> np.dtype:
    """The NumPy dtype of a record whose fields the core lists as ``(name, byte offset, type
    code, count)`` (``state_fields()``, ``KD_GAME_FIELDS``)."""
    names, formats, offsets = [], [], []
    for name, offset, code, count in fields:
        names.append(name)
        base = np.dtype(_TYPE_CODES[code])
        formats.append(base if count == 1 else (base, (count,)))
        offsets.append(offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": itemsize})


SPARSE_OVERFLOW = -2
"""A core batch's ``step`` answer when a sparse row did not fit its width (``Batch`` in
batch.c, ``KdBatch`` in kdbind.c): the encoder's proven bound broken, a bug."""


def sparse_overflow() -> RuntimeError:
    """The error a vector game raises when a sparse row did not fit its width."""
    return RuntimeError("the sparse observation overflowed its width (a bug; report it)")


def check_sparse_rows(
    nnz: np.ndarray | None, rows: int | slice | np.ndarray = slice(None)
) -> None:
    """Raise :func:`sparse_overflow` when a sparse row among ``rows`` was refused (its count
    -1): after a reset or a set state, whose rows the core writes without a step's answer."""
    if nnz is not None and np.size(nnz[rows]) and int(np.min(nnz[rows])) < 0:
        raise sparse_overflow()


def step_arrays(
    num_games: int,
    actions: Sequence[int] | np.ndarray,
    active: np.ndarray | None,
    illegal: type[ValueError],
) -> tuple[np.ndarray, np.ndarray | None]:
    """A step's checked arguments: ``actions`` as contiguous int64 (N,) and ``active`` as
    contiguous bool (N,) or ``None``; ``ValueError`` naming a wrong shape or dtype, ``illegal``
    (the game's IllegalActionError) for an id no int64 holds. A bool is no action id, in an
    array or in a list among integers (which NumPy would read as 0 and 1)."""
    if not isinstance(actions, np.ndarray) and isinstance(actions, Sequence):
        for i, a in enumerate(actions):
            if isinstance(a, bool | np.bool_):
                raise ValueError(f"actions: expected integers, got {a!r} at {i}")
    arr = np.asarray(actions)
    if arr.shape != (num_games,):
        raise ValueError(f"actions: expected shape ({num_games},), got {arr.shape}")
    if arr.dtype.kind not in "iu":
        raise ValueError(f"actions: expected an integer array, got dtype {arr.dtype}")
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) >= 2**63:
        raise illegal(f"actions: id {int(arr.max())} is out of range")
    if active is not None:
        active = np.asarray(active)
        if active.shape != (num_games,) or active.dtype != np.bool_:
            raise ValueError(
                f"active: expected a bool array of shape ({num_games},), "
                f"got {active.dtype} {active.shape}"
            )
        active = np.ascontiguousarray(active)
    return np.ascontiguousarray(arr, dtype=np.int64), active


def observation_rows(out: np.ndarray | None, num_games: int, size: int) -> np.ndarray:
    """The array a vector game's ``observe_rows`` writes: ``out`` checked (float32, shape
    ``(num_games, size)``, C-contiguous and writable; ``ValueError`` naming what is wrong,
    before anything is written), or a new one when ``None``."""
    if out is None:
        return np.empty((num_games, size), dtype=np.float32)
    if not isinstance(out, np.ndarray):
        raise TypeError(f"out: expected a NumPy array, got {type(out).__name__}")
    if out.dtype != np.float32 or out.shape != (num_games, size):
        raise ValueError(
            f"out: expected a float32 array of shape ({num_games}, {size}), "
            f"got {out.dtype} {out.shape}"
        )
    if not out.flags.c_contiguous or not out.flags.writeable:
        raise ValueError("out: expected a C-contiguous, writable array")
    return out


MAX_ROW_THREADS = 64
"""The most threads ``observe_rows`` shares the rows among (the core's ``MAX_ROW_THREADS``,
binding.h: equal, tested)."""


class RowsObserved:
    """A vector game's :meth:`observe_rows` (its backend's ``observe_rows(out, threads)``
    writes; the Python engines write the rows in one thread)."""

    num_games: int
    observation_size: int
    _backend: Any

    def observe_rows(self, out: np.ndarray | None = None, threads: int = 1) -> np.ndarray:
        """Every game's flat observation for its acting seat (seat 0 for a finished game), the
        rows ``observation`` shows with ``observe=True``, written into ``out`` (float32
        ``(num_games, observation_size)``, C-contiguous and writable; a new array when
        ``None``) and returned. Any ``observe`` setting: a batch stepped without the dense
        observation writes it only when asked. ``threads`` (1..``MAX_ROW_THREADS``): the core
        shares the rows among that many threads (the rows are the same)."""
        threads = check_int("threads", threads, 1, MAX_ROW_THREADS)
        out = observation_rows(out, self.num_games, self.observation_size)
        self._backend.observe_rows(out, threads)
        return out


_MASK64 = (1 << 64) - 1
RANDOM_GAME_STRIDE = 0xD1B54A32D192ED03
"""Game ``i``'s random-opponent stream starts at ``seed + i * RANDOM_GAME_STRIDE`` (mod
2**64): the core's ``play_random`` (batch.c) and the Python engines' (:func:`random_stream`)."""


def random_stream(seed: int, i: int) -> Any:
    """Game ``i``'s draws of a ``play_random(seats, seed)``: a generator that, sent the number
    of legal ids, yields the index of the one drawn (splitmix64; index ``(r * count) >> 64``),
    as the core draws them."""
    x = (seed + i * RANDOM_GAME_STRIDE) & _MASK64
    count = yield 0
    while True:
        x = (x + 0x9E3779B97F4A7C15) & _MASK64
        z = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
        z ^= z >> 31
        count = yield (z * count) >> 64


def random_seats(seats: Any, num_games: int, num_players: int) -> np.ndarray:
    """``play_random``'s ``seats`` checked: ``num_games`` integer seats in ``0..num_players -
    1`` (``ValueError`` naming what is wrong), as contiguous int32."""
    arr = np.asarray(seats)
    if arr.shape != (num_games,) or arr.dtype.kind not in "iu":
        raise ValueError(
            f"seats: expected {num_games} integer seats, got {arr.dtype} {arr.shape}"
        )
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) >= num_players):
        raise ValueError(f"seats: expected seats 0..{num_players - 1}, got {arr.tolist()}")
    return np.ascontiguousarray(arr, dtype=np.int32)


def readonly(arr: np.ndarray) -> np.ndarray:
    """A read-only view of ``arr`` (the arrays a vector game shows)."""
    view = arr.view()
    view.flags.writeable = False
    return view
