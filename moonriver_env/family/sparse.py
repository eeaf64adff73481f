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

from dataclasses import dataclass

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
