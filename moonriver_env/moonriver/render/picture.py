"""The picture painter: a :class:`TableView` as an RGB frame (drawn with Pillow).

:func:`render_rgb` lays out every ranch with its reserve (RULES.md sections 1 and 3), the
game information, the saloon, both columns with their claims (section 2), with 2 players the
bonus tiles (section 6), and a legend. Pillow is imported lazily, so importing the module
needs only NumPy. Every length is in pixels at scale 1 and multiplied by the scale.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from moonriver_env.family.colours import seat_rgb
from moonriver_env.family.geometry import COLUMN_LETTERS
from moonriver_env.family.validation import check_int
from moonriver_env.moonriver.render.glyphs import (
    BLACK,
    FONT,
    INK,
    LANDSCAPE_RGB,
    RGB,
    SMALL,
    STAR,
    WHITE,
    Pen,
    darker,
    draw_circle_mark,
    draw_cow,
    draw_face,
    draw_partner,
    draw_resource,
    draw_skull,
    star_points,
)
from moonriver_env.moonriver.render.view import PARTNER_NAMES, Face, TableView, table_view
from moonriver_env.moonriver.rules.components import Landscape, PartnerKind

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from moonriver_env.moonriver.rules.state import GameState

DEFAULT_SCALE = 1
"""The zoom factor of :func:`render_rgb` when none is given (the env's ``render_scale``)."""
MAX_SCALE = 8
"""The largest zoom factor (a 4-player frame is then about 7000 x 3800 pixels)."""


def check_scale(scale: object, name: str = "scale") -> int:
    """``scale`` if it is a zoom factor :func:`render_rgb` accepts (an int in
    1..:data:`MAX_SCALE`), else ``ValueError`` naming ``name``; ``None``: the default."""
    if scale is None:
        return DEFAULT_SCALE
    return check_int(name, scale, 1, MAX_SCALE)


_MUTED: RGB = (110, 110, 110)
_BG: RGB = (250, 248, 242)
_PANEL: RGB = (234, 232, 226)
_ACTING_BG: RGB = (255, 241, 190)
_ACTING_EDGE: RGB = (230, 140, 0)
_EMPTY: RGB = (252, 252, 250)
_GRID: RGB = (150, 150, 150)
_EMPTY_EDGE: RGB = (215, 215, 210)
_PANEL_EDGE: RGB = (200, 198, 190)
_RIVER: RGB = (60, 130, 205)
_RIVER_WAVE: RGB = (150, 200, 245)
_PLANK: RGB = (140, 95, 50)
_PLANK_EDGE: RGB = (70, 45, 20)
_PIECE: RGB = (230, 0, 200)

# Layout, in pixels at scale 1.
_CELL = 36
_ROW_LABEL = 14
_RANCH_PAD = 6
_RANCH_GAP = 10
_MARGIN = 8
_LABEL_H = 32
_LETTERS_H = 12
_RIVER_H = 12
_MINI = 22
_RESERVE_H = _MINI + 18
_PANEL_W = 200
_INFO_W = 200
_BOX_GAP_X = 18
_BOX_GAP_Y = 8
_FACE = 30  # column squares
_GROUP_H = 14 + _FACE + 18
_TOKEN_R = 10  # saloon tokens
_TITLE = 15

# --- the table: ranches, then boxes (info, saloon, columns, bonus tiles, legend) ----------


@dataclass(frozen=True)
class _Box:
    """A rectangular group of the picture, drawn by ``draw(pen, x, y)``."""

    w: float
    h: float
    draw: Callable[[Pen, float, float], None]


def _ranch_size(rows: int) -> tuple[int, int]:
    w = _RANCH_PAD * 2 + _ROW_LABEL + 5 * _CELL
    h = _RANCH_PAD * 2 + _LABEL_H + _LETTERS_H + rows * _CELL + _RIVER_H + _RESERVE_H
    return w, h


def _flow(boxes: Sequence[_Box], limit: float) -> tuple[list[tuple[float, float]], float]:
    """Top-left corners of ``boxes`` laid out left to right, wrapping at width ``limit``;
    and the total height."""
    out: list[tuple[float, float]] = []
    x = y = line_h = 0.0
    for box in boxes:
        if x and x + box.w > limit:
            x, y, line_h = 0.0, y + line_h + _BOX_GAP_Y, 0.0
        out.append((x, y))
        x += box.w + _BOX_GAP_X
        line_h = max(line_h, box.h)
    return out, y + line_h


def _info_lines(view: TableView) -> list[tuple[str, int]]:
    """(text, seat whose colour tags the line or -1) of the game information."""
    head = f"Round {view.round}" + (" (final)" if view.final_round else "")
    lines: list[tuple[str, int]] = []
    if view.terminal:
        lines.append((head + " - GAME OVER", -1))
        names = ", ".join(view.labels[s] for s in sorted(view.winners))
        lines.append(("Winner: " + names, -1))
    else:
        lines.append((head + f" - {view.phase.replace('_', ' ').lower()}", -1))
        seat = view.to_act
        if seat is not None:
            lines.append(("To act: " + view.labels[seat], seat))
    lines.append((f"Scenario: {view.scenario}", -1))
    lines.append((f"Cows in supply: {view.supply}", -1))
    lines.append((f"Plot pile: {view.pile}   Partner stack: {view.stack}", -1))
    return lines


def _info_box(view: TableView) -> _Box:
    lines = _info_lines(view)

    def draw(pen: Pen, x: float, y: float) -> None:
        pen.text(x, y, "MOON RIVER", INK, _TITLE)
        for i, (text, seat) in enumerate(lines):
            ty = y + 20 + i * 14
            tx = x
            if seat >= 0:
                pen.rect((x, ty + 1, x + 8, ty + 10), fill=seat_rgb(seat), outline=BLACK)
                tx += 12
            pen.text(tx, ty, pen.fit(text, FONT, _INFO_W - (tx - x)), INK, FONT)

    return _Box(_INFO_W, 20 + 14 * len(lines), draw)


def _saloon_box(view: TableView) -> _Box:
    saloon = view.saloon
    step = 2 * _TOKEN_R + 4

    def draw(pen: Pen, x: float, y: float) -> None:
        pen.text(x, y, "Saloon", INK, FONT)
        for i, tok in enumerate(saloon):
            cx, cy = x + _TOKEN_R + i * step, y + 14 + _FACE / 2
            if tok >= 0:
                draw_partner(pen, cx, cy, _TOKEN_R, 2 * tok)
            else:
                pen.disc(cx, cy, _TOKEN_R, _EMPTY, _GRID)

    return _Box(len(saloon) * step, _GROUP_H, draw)


def _column_box(view: TableView, now: bool) -> _Box:
    column = view.now if now else view.next
    step = _FACE + 4

    def draw(pen: Pen, x: float, y: float) -> None:
        pen.text(x, y, "Column now" if now else "Column next", INK, FONT)
        top = y + 14
        for i, (face, seat) in enumerate(zip(column.plots, column.claims, strict=True)):
            fx = x + i * step
            if face is None:
                pen.rect((fx, top, fx + _FACE, top + _FACE), fill=_EMPTY, outline=_GRID)
                pen.line([(fx + 4, top + _FACE - 4), (fx + _FACE - 4, top + 4)], _GRID)
            else:
                draw_face(pen, fx, top, _FACE, face, back=True)
            if seat >= 0:  # the claiming ranchero
                cx, cy = fx + _FACE / 2, top + _FACE + 8
                pen.disc(cx, cy, 7, seat_rgb(seat), BLACK)
                pen.center_text(cx, cy, str(seat), WHITE, SMALL)

    return _Box(len(column.plots) * step, _GROUP_H, draw)


def _bonus_box(view: TableView) -> _Box:
    tiles = view.bonus_tiles
    step = 2 * _FACE + 10

    def draw(pen: Pen, x: float, y: float) -> None:
        pen.text(x, y, "Bonus tiles", INK, FONT)
        top = y + 14
        for t, tile in enumerate(tiles):
            fx = x + t * step
            for side, face in enumerate(tile.faces):
                sx = fx + side * _FACE
                if tile.free:
                    draw_face(pen, sx, top, _FACE, face)
                else:
                    pen.rect((sx, top, sx + _FACE, top + _FACE), fill=_EMPTY, outline=_GRID)
            pen.center_text(fx + _FACE, top + _FACE + 8, tile.name, INK, SMALL)

    return _Box(len(tiles) * step, _GROUP_H, draw)


def _legend_band(pen: Pen, limit: float) -> _Box:
    """The legend as one wrapped band of (icon, label) items."""
    items = [
        _Box(16 + pen.text_size(label, SMALL + 1)[0], 13, _legend_item(icon, label))
        for label, icon in _legend_items()
    ]
    items.append(_Box(pen.text_size(_SCORE_NOTE, SMALL + 1)[0], 13, _legend_note(_SCORE_NOTE)))
    placed, height = _flow(items, limit - 50)

    def draw(pen: Pen, x: float, y: float) -> None:
        pen.text(x, y, "Legend", INK, FONT)
        for item, (ix, iy) in zip(items, placed, strict=True):
            item.draw(pen, x + 50 + ix, y + iy)

    return _Box(limit, height, draw)


_SCORE_NOTE = "Score: T territories, R resources, P partners, S scenario"


def _legend_note(text: str) -> Callable[[Pen, float, float], None]:
    def draw(pen: Pen, x: float, y: float) -> None:
        pen.text(x, y + 1, text, _MUTED, SMALL + 1)

    return draw


def _legend_columns(pen: Pen, width: float) -> _Box:
    """The legend in two columns (for the side panel)."""
    items = _legend_items()
    half = -(-len(items) // 2)
    col_w = width / 2

    def draw(pen: Pen, x: float, y: float) -> None:
        pen.text(x, y, "Legend", INK, FONT)
        for i, (label, icon) in enumerate(items):
            _legend_item(icon, label)(pen, x + (i // half) * col_w, y + 16 + (i % half) * 15)
        note_y = y + 20 + half * 15
        pen.text(x, note_y, "Score: T territories, R resources,", _MUTED, SMALL + 1)
        pen.text(x, note_y + 14, "P partners, S scenario", _MUTED, SMALL + 1)

    return _Box(width, 20 + half * 15 + 28, draw)


def _legend_item(
    icon: Callable[[Pen, float, float], None], label: str
) -> Callable[[Pen, float, float], None]:
    def draw(pen: Pen, x: float, y: float) -> None:
        icon(pen, x, y)
        pen.text(x + 16, y + 1, label, INK, SMALL + 1)

    return draw


def _draw_ranch(pen: Pen, view: TableView, seat: int, x0: float, y0: float) -> None:
    ranch = view.ranches[seat]
    rows, cols = view.rows, view.cols
    ranch_w, ranch_h = _ranch_size(rows)
    acting = ranch.acting
    pen.rect(
        (x0, y0, x0 + ranch_w, y0 + ranch_h),
        fill=_ACTING_BG if acting else _PANEL,
        outline=_ACTING_EDGE if acting else _PANEL_EDGE,
        width=3 if acting else 1,
    )
    x = x0 + _RANCH_PAD
    y = y0 + _RANCH_PAD
    # Label: seat colour tag, name, board; the score so far by category.
    pen.rect((x, y + 1, x + 8, y + 11), fill=seat_rgb(seat), outline=BLACK)
    title = ("> " if acting else "") + f"{ranch.label} - {ranch.board}"
    room = ranch_w - 2 * _RANCH_PAD - 12 - (80 if ranch.winner else 0)
    w = pen.text(x + 12, y + 1, pen.fit(title, FONT + 1, room), INK, FONT + 1)
    if ranch.winner:
        pen.polygon(star_points(x + 12 + w + 9, y + 6, 6), fill=STAR, outline=BLACK)
        pen.text(x + 12 + w + 18, y + 1, "WINNER", (170, 90, 0), FONT)
    sc = ranch.score
    sx = x + pen.text(x, y + 17, f"{sc.total} pts", INK, FONT) + 10
    for part in (
        f"T{sc.territories}",
        f"R{sc.resources}",
        f"P{sc.partners}",
        f"S{sc.scenario}",
    ):
        sx += pen.text(sx, y + 17, part, _MUTED, FONT) + 8
    # The grid, far row at the top, row 1 (the river) at the bottom.
    gx = x + _ROW_LABEL
    gy = y + _LABEL_H + _LETTERS_H
    for col, letter in enumerate(COLUMN_LETTERS):
        pen.center_text(gx + col * _CELL + _CELL / 2, gy - _LETTERS_H / 2, letter, _MUTED, SMALL)

    def corner(cell: int) -> tuple[float, float]:
        row, col = divmod(cell, cols)
        return gx + col * _CELL, gy + (rows - 1 - row) * _CELL

    for row in range(rows):
        cy = gy + (rows - 1 - row) * _CELL
        pen.center_text(x + _ROW_LABEL / 2, cy + _CELL / 2, str(row + 1), _MUTED, SMALL)
    for index, cell in enumerate(ranch.cells):
        cx, cy = corner(index)
        if cell.face is None:
            pen.rect((cx, cy, cx + _CELL, cy + _CELL), fill=_EMPTY, outline=_EMPTY_EDGE)
        else:
            draw_face(pen, cx, cy, _CELL, cell.face, cows=cell.cows, partner=cell.partner)
    for index in ranch.piece:  # sorted, and only on the acting seat's ranch
        cx, cy = corner(index)
        pen.rect((cx, cy, cx + _CELL, cy + _CELL), outline=_PIECE, width=3)
    # The river under row 1, with the board's bridges as planks across it.
    ry = gy + rows * _CELL + 1
    pen.rect((gx, ry, gx + 5 * _CELL, ry + _RIVER_H), fill=_RIVER)
    for i in range(10):
        wx = gx + 4 + i * 16
        pen.line([(wx, ry + 6), (wx + 4, ry + 4), (wx + 8, ry + 6)], _RIVER_WAVE)
    plank = _CELL - 14
    for col, bridge in enumerate(ranch.bridges):
        if bridge:
            bx = gx + col * _CELL + 7
            pen.rect((bx, ry - 1, bx + plank, ry + _RIVER_H + 1), fill=_PLANK, outline=_PLANK_EDGE)
            for k in (1, 2):
                px = bx + k * plank / 3
                pen.line([(px, ry), (px, ry + _RIVER_H)], _PLANK_EDGE)
    # The reserve: a box per storage slot; a plot beyond the slots (just collected, must be
    # placed) waits beside them with a red edge.
    sy = ry + _RIVER_H + 4
    held = ranch.held
    slots = ranch.slots
    pen.text(x, sy + 1, f"Reserve {len(held)}/{slots}", INK, SMALL)
    ty = sy + 13
    for i in range(max(slots, len(held))):
        tx = x + i * (_MINI + 4)
        if i < len(held):
            draw_face(pen, tx, ty, _MINI, held[i])
            if i >= slots:
                box = (tx - 1, ty - 1, tx + _MINI + 1, ty + _MINI + 1)
                pen.rect(box, outline=(220, 0, 0), width=2)
        else:
            pen.rect((tx, ty, tx + _MINI, ty + _MINI), fill=_EMPTY, outline=_GRID)


def _draw_bridge_icon(pen: Pen, x: float, y: float) -> None:
    pen.rect((x - 1, y + 3, x + 13, y + 9), fill=_RIVER)
    pen.rect((x + 3, y + 1, x + 9, y + 11), fill=_PLANK, outline=_PLANK_EDGE)


def _draw_swatch(land: int) -> Callable[[Pen, float, float], None]:
    def draw(pen: Pen, x: float, y: float) -> None:
        color = LANDSCAPE_RGB[land]
        pen.rect((x, y, x + 12, y + 12), fill=color, outline=darker(color))

    return draw


def _draw_token_icon(code: int) -> Callable[[Pen, float, float], None]:
    return lambda pen, x, y: draw_partner(pen, x + 6, y + 6, 6, code)


def _draw_resource_icon(face: Face) -> Callable[[Pen, float, float], None]:
    return lambda pen, x, y: draw_resource(pen, x, y + 12, face, 5)


def _legend_items() -> list[tuple[str, Callable[[Pen, float, float], None]]]:
    """(label, icon drawer) pairs; an icon fits a 12 x 12 box at (x, y)."""
    items = [(land.name.lower(), _draw_swatch(int(land))) for land in Landscape]
    items += [
        ("cow", lambda pen, x, y: draw_cow(pen, x + 6, y + 7, 5)),
        ("gold", _draw_resource_icon(Face(0, 1, 0, 0, 0, False, False))),
        ("beaver", _draw_resource_icon(Face(3, 0, 1, 0, 0, False, False))),
        ("corn (count)", _draw_resource_icon(Face(4, 0, 0, 3, 0, False, False))),
        ("skull", lambda pen, x, y: draw_skull(pen, x + 6, y + 6, 5)),
        ("circle", lambda pen, x, y: draw_circle_mark(pen, x + 6, y + 6, 5)),
    ]
    items += [(PARTNER_NAMES[k].lower(), _draw_token_icon(2 * k)) for k in PartnerKind]
    items += [
        ("cowboy side", _draw_token_icon(1)),
        ("bridge", _draw_bridge_icon),
        ("bonus tile", lambda pen, x, y: pen.polygon(star_points(x + 6, y + 6, 6), STAR, BLACK)),
        (
            "piece in play",
            lambda pen, x, y: pen.rect((x, y, x + 12, y + 12), outline=_PIECE, width=2),
        ),
    ]
    return items


def render_rgb(
    state: GameState, *, scale: int = DEFAULT_SCALE, seat_names: Sequence[str] | None = None
) -> NDArray[np.uint8]:
    """A picture of the whole (public) table.

    With 3-4 players the ranches stand in a row above the game information, the saloon,
    the columns and a legend band; with 2 players (tall 5 x 10 ranches) the information and
    the legend fill a side panel.

    Args:
        state: the game state.
        scale: integer zoom factor, 1..:data:`MAX_SCALE` (every length and font size is
            multiplied by it; glyphs are drawn at the final size, not enlarged pixels).
        seat_names: a label per seat (default ``"seat 0"``, ...).

    Returns:
        A ``uint8`` array ``(H, W, 3)``: about 870 x 450 pixels for 4 players at scale 1
        (2 players: about 650 x 630).
        The same state always gives the same frame.
    """
    from PIL import Image

    scale = check_scale(scale)
    view = table_view(state, seat_names)
    n = view.num_players
    ranch_w, ranch_h = _ranch_size(view.rows)
    area_w = n * ranch_w + (n - 1) * _RANCH_GAP
    # Measure text with a pen of the final scale, then lay out and draw.
    probe = Pen(Image.new("RGB", (1, 1)), scale)
    table = [_saloon_box(view), _column_box(view, True), _column_box(view, False)]
    side: list[_Box] = []
    if n == 2:
        table.append(_bonus_box(view))
        side = [_info_box(view), _legend_columns(probe, _PANEL_W - 16)]
    else:
        table.insert(0, _info_box(view))
    placed, table_h = _flow(table, area_w)
    table_y = _MARGIN + ranch_h + _MARGIN + 2
    bottom = table_y + table_h
    legend: _Box | None = None
    if not side:
        legend = _legend_band(probe, area_w)
        bottom += _MARGIN + 4 + legend.h
    width = _MARGIN + area_w + _MARGIN
    side_h = 0.0
    if side:
        side_h = 12 + sum(box.h for box in side) + 14 * (len(side) - 1)
        width += _PANEL_W + _MARGIN
    height = int(max(bottom, _MARGIN + side_h) + _MARGIN)
    image = Image.new("RGB", (int(width) * scale, height * scale), _BG)
    pen = Pen(image, scale)
    for seat in range(n):
        _draw_ranch(pen, view, seat, _MARGIN + seat * (ranch_w + _RANCH_GAP), _MARGIN)
    for box, (bx, by) in zip(table, placed, strict=True):
        box.draw(pen, _MARGIN + bx, table_y + by)
    if legend is not None:
        ly = table_y + table_h + _MARGIN + 4
        pen.line([(_MARGIN, ly - 5), (_MARGIN + area_w, ly - 5)], _GRID)
        legend.draw(pen, _MARGIN, ly)
    if side:
        px = _MARGIN + area_w + _MARGIN
        pen.rect((px, _MARGIN, px + _PANEL_W, height - _MARGIN), fill=_PANEL, outline=_PANEL_EDGE)
        y = _MARGIN + 6.0
        for i, box in enumerate(side):
            if i:
                pen.line([(px + 8, y), (px + _PANEL_W - 8, y)], _GRID)
                y += 8
            box.draw(pen, px + 8, y)
            y += box.h + 6
    return np.asarray(image, dtype=np.uint8).copy()
