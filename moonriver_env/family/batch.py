"""What every game's batched binding of the native core shares (a game's ``vector/``
folder): the checked arguments of a step, the read-only views a vector game shows, and the
NumPy dtype of a game record whose fields the core lists. A record's generator words are
:mod:`moonriver_env.family.rng`'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["fields_dtype", "readonly", "step_arrays"]

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


def readonly(arr: np.ndarray) -> np.ndarray:
    """A read-only view of ``arr`` (the arrays a vector game shows)."""
    view = arr.view()
    view.flags.writeable = False
    return view
