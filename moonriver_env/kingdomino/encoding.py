"""Tensor observations of a Kingdomino game for one seat (the layer between the rules and the
PettingZoo adapter, :mod:`moonriver_env.kingdomino_v0`).

One flat float32 vector, planes first, then features, every value in ``[0, 1]``:

* **planes** ``(num_players * 10, side, side)``: per kingdom, in seat order starting with the
  observer's own (``seat, seat + 1, ...``), 10 channels: the six landscapes (W F L G S M), the
  squares with at least 1, 2 and 3 crowns, and the squares still free inside every frame the
  kingdom can end in. The castle is the middle square of every kingdom (not a channel).
* **features**: the phase (4, one-hot); the game (index / 3, Dynasty); the pile left (/48);
  the last round (1); per seat in the same order, its points (/200) and whether it is to act;
  the current line and the next line, per position: a domino there (1), each half's
  landscape (6, one-hot) and crowns (/3), its number (/48), whose king stands on it (one-hot
  over the seats in the same order, then "none"), and for the current line whether it is
  the domino being placed; and **what is unseen**, as counts: per domino number, 1 if it is
  still unseen (in the pile or set aside in the box, whose order and split are never shown).
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase
from moonriver_env.kingdomino.rules.components import NUM_DOMINOES
from moonriver_env.kingdomino.rules.kingdom import NUM_LANDSCAPES, Kingdom
from moonriver_env.kingdomino.rules.state import DOMINOES, NO_KING

__all__ = ["CHANNELS", "DOMINO_FEATURES", "KingdominoEncoder"]


def floats(array: np.ndarray) -> memoryview[float]:
    """A memoryview of a float32 array, to write single values at a third of the cost of a
    NumPy item write (NumPy's typing does not declare the buffer protocol)."""
    return cast("memoryview[float]", memoryview(cast(Any, array)))


def _domino_features() -> np.ndarray:
    """Per domino index, the 16 features of a line position holding it: present, the first
    half's landscape (one-hot) and crowns / 3, the second half's, the number / 48."""
    table = np.zeros((NUM_DOMINOES, 16), dtype=np.float32)
    for d, dom in enumerate(DOMINOES):
        table[d, 0] = 1.0
        table[d, 1 + dom.land1] = 1.0
        table[d, 7] = dom.crowns1 / 3
        table[d, 8 + dom.land2] = 1.0
        table[d, 14] = dom.crowns2 / 3
        table[d, 15] = dom.number / NUM_DOMINOES
    return table


DOMINO_FEATURES = _domino_features()
_DOMINO_ROWS = tuple(floats(row) for row in DOMINO_FEATURES)  # to write into a memoryview

CHANNELS = ("W", "F", "L", "G", "S", "M", "crown1", "crown2", "crown3", "free")
FREE_CHANNEL = CHANNELS.index("free")
CACHE_LIMIT = 256  # entries of each encoder cache before it is emptied


class KingdominoEncoder:
    """Encodes states of one config; ``encode_flat(state, seat)`` is the observation.

    What does not change from one step to the next is kept: each seat's planes (rewritten
    only when that seat's kingdom changed: kingdoms are values), the unseen set of a pile.
    The features are written through a ``memoryview`` (:func:`floats`).
    """

    def __init__(self, config: KingdominoConfig) -> None:
        self.config = config
        n = config.num_players
        side = config.side
        self.side = side
        self.cells = side * side
        self.plane_shape = (n * len(CHANNELS), side, side)
        self.plane_size = n * len(CHANNELS) * self.cells
        L = config.line_size
        self._pos_width = 1 + 6 + 1 + 6 + 1 + 1 + (n + 1)
        self.feature_size = (
            4 + 1 + 1 + 1 + 2 * n + L * (self._pos_width + 1) + L * self._pos_width + NUM_DOMINOES
        )
        self.size = self.plane_size + self.feature_size
        self.plane_high = np.ones(self.plane_shape, dtype=np.float32)
        self.feature_high = np.ones(self.feature_size, dtype=np.float32)
        # feature offsets: the seats, the current line, the next line, the unseen dominoes
        self._at_seats = 7
        self._at_cur = self._at_seats + 2 * n
        self._at_next = self._at_cur + L * (self._pos_width + 1)
        self._at_unseen = self._at_next + L * self._pos_width
        self._zero_features = floats(np.zeros(self.feature_size, dtype=np.float32))
        # a kingdom's channels, bit c of channel i at bit i * cells + c of one int
        self._channel_bits = len(CHANNELS) * self.cells
        self._bits_cache: dict[int, tuple[Kingdom, np.ndarray]] = {}
        # per seat (absolute), the planes of the kingdom last shown for it, and that kingdom
        self._seat_planes = np.zeros(self.plane_size, dtype=np.float32)
        self._seat_planes_view = floats(self._seat_planes)
        self._seat_kingdoms: list[Kingdom | None] = [None] * n
        self._unseen_key: tuple[object, ...] = ()
        self._unseen = self._zero_features[self._at_unseen :]
        self._slots = [self._feature_slots(seat) for seat in range(n)]

    @property
    def feature_ranges(self) -> dict[str, tuple[int, int]]:
        """Each feature group's ``(start, stop)`` in the flat observation (after the planes;
        module docstring)."""
        p = self.plane_size
        bounds = {
            "phase": (0, 4),
            "game": (4, 5),
            "pile": (5, 6),
            "last_round": (6, 7),
            "seats": (7, self._at_cur),
            "current_line": (self._at_cur, self._at_next),
            "next_line": (self._at_next, self._at_unseen),
            "unseen": (self._at_unseen, self.feature_size),
        }
        return {name: (p + a, p + b) for name, (a, b) in bounds.items()}

    @property
    def sparse_width(self) -> int:
        """A bound on the non-zero entries of any observation (the sparse width): per square
        of each kingdom its landscape and three crown channels (or the one "free" channel),
        and every feature."""
        n = self.config.num_players
        return min(self.size, n * self.cells * 4 + self.feature_size)

    def _feature_slots(self, observer: int) -> tuple[Any, ...]:
        """Where ``observer``'s features put each seat: ``(feature index of the points, seat)``
        in observation order (the observer first); per seat, the index of its "to act" flag;
        per position of the current and of the next line, where its domino's features start
        and the index of each seat's king there (the last entry, index ``NO_KING``, for no
        king); per position of the current line, the index of its placing flag."""
        n = self.config.num_players
        lines = range(self.config.line_size)
        rel = [(s - observer) % n for s in range(n)] + [n]  # a seat's place, "none" last
        order = [(observer + i) % n for i in range(n)]
        width = self._pos_width
        points_at = tuple((self._at_seats + 2 * i, s) for i, s in enumerate(order))
        acting_at = tuple(self._at_seats + 2 * rel[s] + 1 for s in range(n))
        cur_starts = [self._at_cur + pos * (width + 1) for pos in lines]
        next_starts = [self._at_next + pos * width for pos in lines]
        cur_at = tuple((at, tuple(at + 16 + r for r in rel)) for at in cur_starts)
        next_at = tuple((at, tuple(at + 16 + r for r in rel)) for at in next_starts)
        placing_at = tuple(at + width for at in cur_starts)
        return points_at, acting_at, cur_at, placing_at, next_at

    def kingdom_bits(self, kingdom: Kingdom) -> np.ndarray:
        """The 10 channels of one kingdom as 0/1 bytes, ``(10 * side * side,)`` uint8, channel
        by channel (cached per kingdom object: kingdoms are values; do not write into it)."""
        key = id(kingdom)
        hit = self._bits_cache.get(key)
        if hit is not None and hit[0] is kingdom:
            return hit[1]
        board = kingdom.board
        free = board.allowed(kingdom.rmin, kingdom.rmax, kingdom.cmin, kingdom.cmax)
        free &= ~kingdom.occupied
        cells = self.cells
        packed = 0
        for i, mask in enumerate((*kingdom.land, *kingdom.crowns, free)):
            packed |= mask << (i * cells)
        count = self._channel_bits
        raw = np.frombuffer(packed.to_bytes((count + 7) // 8, "little"), dtype=np.uint8)
        bits = np.unpackbits(raw, count=count, bitorder="little")
        if len(self._bits_cache) >= CACHE_LIMIT:
            self._bits_cache.clear()
        self._bits_cache[key] = (kingdom, bits)
        return bits

    def kingdom_planes(self, kingdom: Kingdom) -> np.ndarray:
        """The 10 channels of one kingdom, ``(10, side * side)`` float32 (a new array)."""
        return self.kingdom_bits(kingdom).reshape(len(CHANNELS), self.cells).astype(np.float32)

    def encode(self, state: KingdominoState, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``(planes, features)`` for ``seat``."""
        flat = self.encode_flat(state, seat)
        return flat[: self.plane_size].reshape(self.plane_shape), flat[self.plane_size :]

    def encode_flat(
        self, state: KingdominoState, seat: int, points: list[int] | None = None
    ) -> np.ndarray:
        """The flat observation (module docstring) of ``state`` for ``seat`` (``points``:
        ``state.points()`` if the caller has them), a new array."""
        points_at, acting_at, cur_at, placing_at, next_at = self._slots[seat]
        block = self._channel_bits
        planes = self._seat_planes
        shown = self._seat_kingdoms
        for s, k in enumerate(state.kingdoms):
            if shown[s] is not k:
                self._show(s, k)
        out = np.empty(self.size, dtype=np.float32)
        # the planes: the observer's kingdom first, then the seats after it
        ps = self.plane_size
        split = seat * block
        out[: ps - split] = planes[split:]
        out[ps - split : ps] = planes[:split]
        f = floats(out)[ps:]
        f[:] = self._zero_features
        phase = state.phase
        f[phase] = 1.0
        f[4] = state.game / 3
        f[5] = len(state.pile) / NUM_DOMINOES
        if points is None:
            points = state.points()
        for at, s in points_at:
            f[at] = min(points[s], 200) / 200
        if phase != GAME_OVER:
            f[acting_at[state.seat]] = 1.0
        # the lines: per position its domino's features and the king on it
        rows = _DOMINO_ROWS
        for (at, kings_at), d, king in zip(cur_at, state.cur_line, state.cur_kings, strict=True):
            if d >= 0:
                f[at : at + 16] = rows[d]
            f[kings_at[king]] = 1.0
        if phase == PLACE:
            f[placing_at[state.turn_pos]] = 1.0
        if state.next_line:
            for (at, kings_at), d, king in zip(
                next_at, state.next_line, state.next_kings, strict=True
            ):
                f[at : at + 16] = rows[d]
                f[kings_at[king]] = 1.0
        else:  # the last round (no next line): its positions hold nothing and no king
            f[6] = 1.0
            for _, kings_at in next_at:
                f[kings_at[NO_KING]] = 1.0
        f[self._at_unseen :] = self._unseen_of(state)
        return out

    def _show(self, seat: int, kingdom: Kingdom) -> None:
        """Write ``kingdom``'s channels into ``seat``'s planes. A kingdom placed on the one
        shown there (:attr:`Kingdom.origin`) only adds its two squares and takes cells from
        the free channel; any other is written whole."""
        block = self._channel_bits
        base = seat * block
        origin = kingdom.origin
        if origin is None or origin[0] is not self._seat_kingdoms[seat]:
            self._seat_planes[base : base + block] = self.kingdom_bits(kingdom)
        else:
            parent, domino, first, second = origin
            planes = self._seat_planes_view
            cells = self.cells
            for cell, land, crowns in (
                (first, domino.land1, domino.crowns1),
                (second, domino.land2, domino.crowns2),
            ):
                planes[base + land * cells + cell] = 1.0
                for c in range(NUM_LANDSCAPES, NUM_LANDSCAPES + crowns):
                    planes[base + c * cells + cell] = 1.0
            board = kingdom.board
            was_free = board.allowed(parent.rmin, parent.rmax, parent.cmin, parent.cmax)
            is_free = board.allowed(kingdom.rmin, kingdom.rmax, kingdom.cmin, kingdom.cmax)
            taken = (was_free & ~parent.occupied) & ~(is_free & ~kingdom.occupied)
            at = base + FREE_CHANNEL * cells - 1
            while taken:  # few cells: the two squares, and the frame's lost rows or columns
                low = taken & -taken
                planes[at + low.bit_length()] = 0.0
                taken ^= low
        self._seat_kingdoms[seat] = kingdom

    def _unseen_of(self, state: KingdominoState) -> memoryview[float]:
        """1 per domino number nobody has seen (the pile and the box). The set changes only
        when a line is drawn: it is kept while the pile and the box are the same lists with
        the same lengths."""
        pile, box = state.pile, state.box
        key = self._unseen_key
        if (
            not key
            or key[0] is not pile
            or key[1] != len(pile)
            or key[2] is not box
            or key[3] != len(box)
        ):
            self._unseen_key = (pile, len(pile), box, len(box))
            unseen = np.zeros(NUM_DOMINOES, dtype=np.float32)
            unseen[pile + box] = 1.0
            self._unseen = floats(unseen)
        return self._unseen

    def points(self, state: KingdominoState) -> list[int]:
        """Each seat's points now (dense rewards)."""
        return state.points()


GAME_OVER = Phase.GAME_OVER
PLACE = Phase.PLACE
