"""The sparse observation of a batched game, and the layout facts that describe it.

A vector game built with ``observe="sparse"`` (or ``"both"``) shows, beside or instead of the
dense ``(N, D)`` observation, the same observation as its non-zero entries:

==================  ===========  ===============================================================
``obs_idx``         (N, W) i32   the indices of the non-zero entries, ascending, in the first
                                 ``obs_nnz[i]`` columns; the rest hold ``D`` (the padding index)
``obs_val``         (N, W) f32   their values (0 in the padding)
``obs_nnz``         (N,) i32     how many entries row ``i`` holds
==================  ===========  ===============================================================

``W`` (``sparse_width``) is fixed per config: a bound on the non-zero entries of any state that
the game's encoder proves from its layout (``sparse_width`` of the encoder), so no row is ever
cut. ``D`` as the padding index lets ``torch.nn.EmbeddingBag(D + 1, H, padding_idx=D,
mode="sum")`` take ``obs_idx`` and ``obs_val`` (``per_sample_weights``) as they are.

The native core writes these arrays itself; the Python engine packs its dense rows with
:func:`pack_rows`, and the tests compare the two.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

OBSERVE_FORMS = {
    True: ("dense",),
    False: (),
    "dense": ("dense",),
    "sparse": ("sparse",),
    "both": ("dense", "sparse"),
}
"""What ``observe`` may be, and the observation forms each asks for."""


def observe_forms(observe: object) -> tuple[str, ...]:
    """The forms ``observe`` asks for; ``TypeError`` for neither a bool nor a string,
    ``ValueError`` for another string (both naming the choices)."""
    choices = "True, False, 'dense', 'sparse' or 'both'"
    if not isinstance(observe, (bool, str)):
        raise TypeError(f"observe: expected {choices}, got {observe!r}")
    if observe not in OBSERVE_FORMS:
        raise ValueError(f"observe: expected {choices}, got {observe!r}")
    return OBSERVE_FORMS[observe]


def sparse_arrays(num_games: int, width: int, size: int) -> dict[str, np.ndarray]:
    """The three sparse arrays of a vector game, every row empty (padding only)."""
    return {
        "obs_idx": np.full((num_games, width), size, dtype=np.int32),
        "obs_val": np.zeros((num_games, width), dtype=np.float32),
        "obs_nnz": np.zeros(num_games, dtype=np.int32),
    }


def pack_rows(dense: np.ndarray, idx: np.ndarray, val: np.ndarray, nnz: np.ndarray) -> None:
    """Writes the non-zero entries of each row of ``dense`` (N, D) into the sparse arrays, as
    the core does (ascending indices, padding ``D`` and 0). ``ValueError`` if a row holds more
    entries than the width (the encoder's bound would be wrong)."""
    size = dense.shape[1]
    width = idx.shape[1]
    rows, cols = np.nonzero(dense)
    counts = np.bincount(rows, minlength=dense.shape[0])
    if counts.size and int(counts.max()) > width:
        raise ValueError(
            f"a row has {int(counts.max())} non-zero entries, more than the sparse width {width}"
        )
    idx[:] = size
    val[:] = 0.0
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    pos = np.arange(rows.size) - np.repeat(starts, counts)
    idx[rows, pos] = cols
    val[rows, pos] = dense[rows, cols]
    nnz[:] = counts


def unpack_rows(idx: np.ndarray, val: np.ndarray, size: int) -> np.ndarray:
    """The dense rows (N, ``size``) of sparse rows (padding index ``size`` ignored)."""
    out = np.zeros((idx.shape[0], size + 1), dtype=np.float32)
    rows = np.repeat(np.arange(idx.shape[0]), idx.shape[1])
    np.add.at(out, (rows, idx.ravel()), val.ravel())
    return out[:, :size]


@dataclass(frozen=True)
class ActionTable:
    """The structure of a game's action ids, as arrays (for networks that score actions by
    their parts: a placement's cell and direction, a claim's position).

    Attributes:
        segments: the segment names in id order.
        axes: per segment, the names of its components (``()`` for a single id).
        segment: (A,) int16, each id's segment (an index into ``segments``).
        components: (A, K) int16, each id's components in its segment's axis order, ``-1``
            past them (``K``: the most axes of any segment).
        sizes: per segment, each axis's size.
    """

    segments: tuple[str, ...]
    axes: tuple[tuple[str, ...], ...]
    sizes: tuple[tuple[int, ...], ...]
    segment: np.ndarray
    components: np.ndarray

    @property
    def num_actions(self) -> int:
        return int(self.segment.shape[0])

    def ids_of(self, name: str) -> np.ndarray:
        """The ids of segment ``name`` (ascending); ``KeyError`` for an unknown name."""
        return np.flatnonzero(self.segment == self.segments.index(name))


def action_table(located: list[tuple[str, tuple[int, ...]]], order: list[str],
                 axes: dict[str, tuple[str, ...]], sizes: dict[str, tuple[int, ...]]
                 ) -> ActionTable:
    """An :class:`ActionTable` from each id's ``(segment name, component tuple)`` (``located``,
    in id order) and the segments' names in id order with their axes and axis sizes."""
    width = max((len(axes[name]) for name in order), default=0)
    seg = np.empty(len(located), dtype=np.int16)
    comp = np.full((len(located), max(width, 1)), -1, dtype=np.int16)
    code = {name: k for k, name in enumerate(order)}
    for a, (name, index) in enumerate(located):
        seg[a] = code[name]
        comp[a, : len(index)] = index
    for arr in (seg, comp):
        arr.flags.writeable = False
    return ActionTable(
        segments=tuple(order),
        axes=tuple(axes[name] for name in order),
        sizes=tuple(sizes[name] for name in order),
        segment=seg,
        components=comp,
    )


@dataclass(frozen=True)
class Afterstates:
    """The afterstates of the acting seat's legal moves in some games of a batched game
    (``VectorGame.afterstates``): row ``j`` of the games asked for has ``counts[j]`` moves, its
    entries in ``legal`` (ascending, as ``legal_ids`` lists them) one after another; move ``m``'s
    afterstate, seen by the seat that moved, is the sparse row ``idx`` / ``val`` at
    ``off[m]:off[m + 1]``. Each game's hidden pieces are redetermined once before its moves (the
    seat to act cannot know them), from the seed and the game's index (not the other rows
    asked for), so an afterstate reveals nothing that seat does not see."""

    legal: np.ndarray  # (M,) int32
    counts: np.ndarray  # (R,) int32
    off: np.ndarray  # (M + 1,) int64
    idx: np.ndarray  # (nnz,) int16
    val: np.ndarray  # (nnz,) float32


def afterstates_of(batch: object, num_games: int, rows: object, seed: object,
                   features: bool) -> Afterstates:
    """:class:`Afterstates` of games ``rows`` of a core batch (``Batch``, ``KdBatch``) holding
    ``num_games`` games (``features``: each row with the core's territory features appended);
    ``ValueError`` for rows that are not integers in range or a game that is over,
    ``TypeError`` for a seed that is not an integer, ``NotImplementedError`` with no core batch
    (``None``: the games play on the Python engine). The one body of every vector game's
    ``afterstates``."""
    if batch is None:
        raise NotImplementedError(
            "afterstates: computed in the native core; this vector game plays on the Python engine"
        )
    arr = np.asarray(rows)
    if arr.ndim != 1 or not (arr.size == 0 or np.issubdtype(arr.dtype, np.integer)):
        raise ValueError("rows: expected a 1-d sequence of game indices (integers)")
    if arr.size and (arr.min() < 0 or arr.max() >= num_games):
        raise ValueError(f"rows: every game index must be in 0..{num_games - 1}")
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2**64:
        raise TypeError("seed: expected an integer in 0..2**64 - 1")
    legal, counts, off, idx, val = batch.afterstates(  # type: ignore[attr-defined]
        arr.astype(np.int64).tobytes(), int(seed), bool(features)
    )
    return Afterstates(np.frombuffer(legal, np.int32), np.frombuffer(counts, np.int32),
                       np.frombuffer(off, np.int64), np.frombuffer(idx, np.int16),
                       np.frombuffer(val, np.float32))  # fmt: skip


class AfterstatesOf:
    """The ``afterstates`` method of a vector game (``VectorGame``, ``KingdominoVectorGame``)
    whose games, on the native backend, live in a core batch (``_backend._batch``)."""

    num_games: int
    _backend: Any

    def afterstates(self, rows: Sequence[int] | np.ndarray, seed: int = 0, *,
                    features: bool = False) -> Afterstates:
        """The afterstates of the legal moves of games ``rows``, each seen by the seat that
        moves, on one redetermination of the game drawn from ``seed`` (:class:`Afterstates`;
        ``features``: the core's territory features appended). The games do not change.
        Native core only (``NotImplementedError`` on the Python engine)."""
        return afterstates_of(getattr(self._backend, "_batch", None), self.num_games, rows,
                              seed, features)  # fmt: skip
