"""Pictures of a Kingdomino game: a text view and an RGB image (NumPy only).

:func:`render_text` prints every kingdom in its text form (:mod:`.kingdomino.kingdom`) with
its points, then the two lines with their kings. :func:`render_rgb` draws the kingdoms side by
side, one square per cell in its landscape's colour with a dark dot per crown, the castle
white; below them the current and the next line.
"""

from __future__ import annotations

import numpy as np

from moonriver_env.kingdomino import Kingdom, KingdominoState, Phase
from moonriver_env.kingdomino.rules.state import DOMINOES

__all__ = ["LANDSCAPE_COLOURS", "kingdom_image", "render_rgb", "render_text"]

# W F L G S M, then the castle, empty, a frame line.
LANDSCAPE_COLOURS = np.array(
    [
        (236, 200, 60),  # wheat field
        (34, 110, 50),  # forest
        (50, 120, 210),  # lake
        (140, 200, 90),  # grassland
        (120, 110, 80),  # swamp
        (90, 70, 60),  # mine
    ],
    dtype=np.uint8,
)
CASTLE = np.array((245, 245, 245), dtype=np.uint8)
EMPTY = np.array((32, 32, 40), dtype=np.uint8)
CROWN = np.array((20, 20, 20), dtype=np.uint8)


def render_text(state: KingdominoState) -> str:
    """The kingdoms (text form), points, and the lines with their kings."""
    points = state.points()
    lines = [
        f"Kingdomino, {state.config.describe()}, game {state.game + 1}/{state.config.num_games}"
    ]
    for s, k in enumerate(state.kingdoms):
        mark = "  <- to act" if state.phase != Phase.GAME_OVER and s == state.seat else ""
        lines.append(f"player_{s}: {points[s]} points{mark}")
        lines.extend("  " + row for row in k.to_text().splitlines())
    for name, line, kings in (
        ("current line", state.cur_line, state.cur_kings),
        ("next line", state.next_line, state.next_kings),
    ):
        if not line:
            continue
        cells = []
        for d, king in zip(line, kings, strict=True):
            text = DOMINOES[d].text() if d >= 0 else "--"
            cells.append(f"{text}{f' [p{king}]' if king >= 0 else ''}")
        lines.append(f"{name}: " + ", ".join(cells))
    if state.phase == Phase.GAME_OVER:
        lines.append(f"winners: {', '.join(f'player_{s}' for s in state.winners())}")
    return "\n".join(lines)


def kingdom_image(kingdom: Kingdom, cell: int = 12) -> np.ndarray:
    """One kingdom's frame region as an RGB image (``side * cell`` pixels square)."""
    board = kingdom.board
    side = board.side
    img = np.zeros((side * cell, side * cell, 3), dtype=np.uint8)
    img[:] = EMPTY
    for c in range(board.cells):
        sq = kingdom.square(c)
        if sq is None:
            continue
        r, q = divmod(c, side)
        y, x = r * cell, q * cell
        colour = CASTLE if sq[0] < 0 else LANDSCAPE_COLOURS[sq[0]]
        img[y + 1 : y + cell - 1, x + 1 : x + cell - 1] = colour
        for i in range(sq[1]):
            dx = x + 2 + 3 * i
            img[y + 2 : y + 4, dx : dx + 2] = CROWN
    return img


def render_rgb(state: KingdominoState, cell: int = 12) -> np.ndarray:
    """The kingdoms side by side and both lines below them, uint8 ``(H, W, 3)``."""
    tiles = [kingdom_image(k, cell) for k in state.kingdoms]
    gap = np.zeros((tiles[0].shape[0], cell // 2, 3), dtype=np.uint8)
    row: list[np.ndarray] = []
    for t in tiles:
        row += [t, gap]
    top = np.concatenate(row[:-1], axis=1)
    width = top.shape[1]
    strip = np.zeros((3 * cell, width, 3), dtype=np.uint8)
    for li, line in enumerate((state.cur_line, state.next_line)):
        for pos, d in enumerate(line):
            if d < 0:
                continue
            dom = DOMINOES[d]
            x = (li * (len(line) + 1) + pos) * 2 * cell + (li * cell)
            y = cell // 2
            for h, (land, crowns) in enumerate(
                ((dom.land1, dom.crowns1), (dom.land2, dom.crowns2))
            ):
                x0 = x + h * cell
                if x0 + cell > width:
                    continue
                strip[y : y + cell - 1, x0 : x0 + cell - 1] = LANDSCAPE_COLOURS[land]
                for i in range(crowns):
                    strip[y + 1 : y + 3, x0 + 1 + 3 * i : x0 + 3 + 3 * i] = CROWN
    return np.concatenate([top, strip], axis=0)
