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

import numpy as np

from .kingdomino import KingdominoConfig, KingdominoState, Phase
from .kingdomino.components import NUM_DOMINOES
from .kingdomino.kingdom import Kingdom
from .kingdomino.state import DOMINOES

__all__ = ["CHANNELS", "DOMINO_FEATURES", "KingdominoEncoder"]


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
DOMINO_FEATURE_LISTS: tuple[list[float], ...] = tuple(row.tolist() for row in DOMINO_FEATURES)

CHANNELS = ("W", "F", "L", "G", "S", "M", "crown1", "crown2", "crown3", "free")


class KingdominoEncoder:
    """Encodes states of one config; ``encode_flat(state, seat)`` is the observation."""

    def __init__(self, config: KingdominoConfig) -> None:
        self.config = config
        n = config.num_players
        side = config.side
        self.side = side
        self.cells = side * side
        self._nbytes = (self.cells + 7) // 8
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
        self._cache: dict[int, tuple[Kingdom, np.ndarray]] = {}
        self._blocks: dict[int, tuple[list[Kingdom | None], np.ndarray]] = {}
        # per observer: the seats in observation order, and each seat's place in it (index
        # -1, "no king", maps to n)
        self._orders = [
            ([(seat + i) % n for i in range(n)], [*((s - seat) % n for s in range(n)), n])
            for seat in range(n)
        ]

    def kingdom_planes(self, kingdom: Kingdom) -> np.ndarray:
        """The 10 channels of one kingdom, ``(10, side * side)`` float32 (cached per kingdom
        object: kingdoms are values)."""
        key = id(kingdom)
        hit = self._cache.get(key)
        if hit is not None and hit[0] is kingdom:
            return hit[1]
        board = kingdom.board
        free = board.allowed(kingdom.rmin, kingdom.rmax, kingdom.cmin, kingdom.cmax)
        free &= ~kingdom.occupied
        nb = self._nbytes
        raw = b"".join(m.to_bytes(nb, "little") for m in (*kingdom.land, *kingdom.crowns, free))
        bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
        planes = bits.reshape(len(CHANNELS), nb * 8)[:, : self.cells].astype(np.float32)
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[key] = (kingdom, planes)
        return planes

    def encode(self, state: KingdominoState, seat: int) -> tuple[np.ndarray, np.ndarray]:
        """``(planes, features)`` for ``seat``."""
        flat = self.encode_flat(state, seat)
        return flat[: self.plane_size].reshape(self.plane_shape), flat[self.plane_size :]

    def encode_flat(
        self, state: KingdominoState, seat: int, points: list[int] | None = None
    ) -> np.ndarray:
        """The flat observation (module docstring) of ``state`` for ``seat`` (``points``:
        ``state.points()`` if the caller has them)."""
        n = self.config.num_players
        order, rel = self._orders[seat]
        cells10 = len(CHANNELS) * self.cells
        kingdoms = state.kingdoms
        # The observer's planes, kept per seat: only a kingdom that changed is rewritten.
        cached = self._blocks.get(seat)
        if cached is None:
            cached = self._blocks[seat] = ([None] * n, np.zeros(self.plane_size, np.float32))
        shown, block = cached
        for i, s in enumerate(order):
            k = kingdoms[s]
            if shown[i] is not k:
                block[i * cells10 : (i + 1) * cells10] = self.kingdom_planes(k).ravel()
                shown[i] = k
        out = np.empty(self.size, dtype=np.float32)
        out[: self.plane_size] = block
        # The features: a few single writes, whole rows for the dominoes, one fancy write for
        # the unseen set (converting a Python list into the array costs per element).
        f = out[self.plane_size :]
        f.fill(0.0)
        f[int(state.phase)] = 1.0
        f[4] = state.game / 3
        f[5] = len(state.pile) / NUM_DOMINOES
        if not state.next_line:
            f[6] = 1.0
        if points is None:
            points = state.points()
        acting = state.seat if state.phase != Phase.GAME_OVER else -1
        at = 7
        for s in order:
            f[at] = min(points[s], 200) / 200
            if s == acting:
                f[at + 1] = 1.0
            at += 2
        width = self._pos_width
        placing = state.turn_pos if state.phase == Phase.PLACE else -1
        kings = state.cur_kings
        for pos, d in enumerate(state.cur_line):
            if d >= 0:
                f[at : at + 16] = DOMINO_FEATURES[d]
            f[at + 16 + rel[kings[pos]]] = 1.0
            if pos == placing:
                f[at + width] = 1.0
            at += width + 1
        if state.next_line:
            kings = state.next_kings
            for pos, d in enumerate(state.next_line):
                base = at + pos * width
                if d >= 0:
                    f[base : base + 16] = DOMINO_FEATURES[d]
                f[base + 16 + rel[kings[pos]]] = 1.0
        else:
            f[at + 16 + n : at + self.config.line_size * width : width] = 1.0
        at += self.config.line_size * width
        unseen = state.pile + state.box
        if unseen:
            f[np.add(unseen, at)] = 1.0
        return out

    def points(self, state: KingdominoState) -> list[int]:
        """Each seat's points now (dense rewards)."""
        return state.points()
