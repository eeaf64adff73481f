"""The SVG painter: a :class:`TableView` as SVG markup, for browsers and notebooks.

It draws what the picture painter (``picture.py``) draws, from the same view model: every ranch
with its reserve, cows, partners and bridges (RULES.md sections 1 and 3), the game information,
the saloon, both columns with their claims (section 2) and, with 2 players, the bonus tiles
(section 6). Only the standard library is needed.

The pieces are separate so that a page showing many positions (the browser replay,
:mod:`agents.replay`) can share what repeats: :class:`SvgDefs` holds one ``<symbol>`` per plot
face, cow count and partner token, drawn once; :func:`ranch_svg` and :func:`table_svg` return
``<svg>`` elements that refer to those symbols; :func:`render_svg` puts a whole table in one
self-contained document.
"""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

from moonriver_env.family.colours import seat_hex
from moonriver_env.family.geometry import COLUMN_LETTERS
from moonriver_env.moonriver.render.glyphs import (
    _PARTNER_RGB,
    _PARTNER_TEXT,
    LANDSCAPE_RGB,
    RGB,
    RING,
    STAR,
    darker,
)
from moonriver_env.moonriver.render.view import (
    PARTNER_LETTERS,
    PARTNER_NAMES,
    Cell,
    Face,
    TableView,
    table_view,
)
from moonriver_env.moonriver.rules.components import Landscape, PartnerKind

if TYPE_CHECKING:
    from moonriver_env.moonriver.rules.state import GameState

# Layout, in SVG user units (pixels at 100 %), as in the picture painter.
CELL = 36
"""The side of a ranch cell; every symbol is drawn on a square of this side and scaled."""
_ROW_LABEL = 14
_PAD = 6
_LABEL_H = 32
_LETTERS_H = 12
_RIVER_H = 12
_MINI = 22
_RESERVE_H = _MINI + 18
_FACE = 30
_TOKEN_R = 10
_GROUP_H = 14 + _FACE + 18
_INFO_W = 210
_GAP = 18

_BG = "#faf8f2"
_PANEL = "#eae8e2"
_PANEL_EDGE = "#c8c6be"
_ACTING_BG = "#fff1be"
_ACTING_EDGE = "#e68c00"
_EMPTY = "#fcfcfa"
_EMPTY_EDGE = "#d7d7d2"
_GRID = "#969696"
_MUTED = "#6e6e6e"
_INK = "#232323"
_RIVER = "#3c82cd"
_RIVER_WAVE = "#96c8f5"
_PLANK = "#8c5f32"
_PLANK_EDGE = "#462d14"
_PIECE = "#e600c8"
_FONT = "font-family:DejaVu Sans,Verdana,sans-serif"


def _hex(rgb: RGB) -> str:
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def _esc(text: str) -> str:
    return html.escape(text, quote=True)


def _text(x: float, y: float, text: str, size: int = 11, fill: str = _INK, extra: str = "") -> str:
    """A text whose baseline is at ``y``."""
    return f'<text x="{x:g}" y="{y:g}" font-size="{size}" fill="{fill}"{extra}>{_esc(text)}</text>'


def _centred(x: float, y: float, text: str, size: int, fill: str, weight: str = "") -> str:
    bold = ' font-weight="bold"' if weight else ""
    return (
        f'<text x="{x:g}" y="{y:g}" font-size="{size}" fill="{fill}" text-anchor="middle" '
        f'dominant-baseline="central"{bold}>{_esc(text)}</text>'
    )


def _star(x: float, y: float, r: float) -> str:
    import math

    pts = []
    for i in range(10):
        rad = r if i % 2 == 0 else r * 0.45
        ang = -math.pi / 2 + i * math.pi / 5
        pts.append(f"{x + rad * math.cos(ang):.1f},{y + rad * math.sin(ang):.1f}")
    return f'<polygon points="{" ".join(pts)}" fill="{_hex(STAR)}" stroke="#000"/>'


def _cow(x: float, y: float, r: float) -> str:
    """A cow head centred at (x, y): white, a black patch, horns and a muzzle."""
    horns = "".join(
        f'<polygon points="{x + s * r * 0.35:.1f},{y - r * 0.55:.1f} '
        f"{x + s * r * 1.27:.1f},{y - r * 0.95:.1f} "
        f'{x + s * r * 0.85:.1f},{y - r * 0.2:.1f}" fill="#e1d7be" stroke="#000" '
        'stroke-width="0.6"/>'
        for s in (-1, 1)
    )
    return (
        horns + f'<rect x="{x - r * 0.8:.1f}" y="{y - r * 0.65:.1f}" width="{r * 1.6:.1f}" '
        f'height="{r * 1.5:.1f}" rx="{r * 0.45:.1f}" fill="#fff" stroke="#000" '
        'stroke-width="0.6"/>'
        f'<circle cx="{x - r * 0.3:.1f}" cy="{y - r * 0.15:.1f}" r="{r * 0.32:.1f}" fill="#000"/>'
        f'<rect x="{x - r * 0.55:.1f}" y="{y + r * 0.35:.1f}" width="{r * 1.1:.1f}" '
        f'height="{r * 0.5:.1f}" rx="{r * 0.25:.1f}" fill="#f0aaaa"/>'
    )


_R = CELL * 0.14  # the small symbols' radius on a cell (as ``glyphs.glyph_radius``)


def _skull(x: float, y: float, r: float) -> str:
    return (
        f'<circle cx="{x:.1f}" cy="{y - r * 0.15:.1f}" r="{r:.1f}" fill="#fff" stroke="#000"/>'
        f'<rect x="{x - r * 0.55:.1f}" y="{y + r * 0.4:.1f}" width="{r * 1.1:.1f}" '
        f'height="{r * 0.6:.1f}" fill="#fff" stroke="#000" stroke-width="0.6"/>'
        f'<circle cx="{x - r * 0.38:.1f}" cy="{y - r * 0.15:.1f}" r="{r * 0.28:.1f}"/>'
        f'<circle cx="{x + r * 0.38:.1f}" cy="{y - r * 0.15:.1f}" r="{r * 0.28:.1f}"/>'
    )


def _ring(x: float, y: float, r: float) -> str:
    """A circle symbol: a dark ring with a white halo (visible on dark forest too)."""
    return (
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="none" stroke="#fff" '
        f'stroke-width="4"/><circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="none" '
        f'stroke="{_hex(RING)}" stroke-width="2"/>'
    )


def _resource(face: Face, x: float, y: float, r: float) -> str:
    """A face's resource symbol (gold, beaver or corn with its count) centred at (x, y)."""
    if face.gold:
        return (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="#ffcc00" stroke="#825a00"/>'
            + _centred(x, y, "$", 8, "#825a00", "b")
        )
    if face.beaver:
        return (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="#784b28" stroke="#000"/>'
            + _centred(x, y, "B", 8, "#fff", "b")
        )
    if face.corn:
        return (
            f'<rect x="{x - r:.1f}" y="{y - r:.1f}" width="{r * 2:.1f}" height="{r * 2:.1f}" '
            f'rx="2" fill="#fa9600" stroke="#000"/>'
            + _centred(x, y, str(face.corn), 8, "#000", "b")
        )
    return ""


def _face_symbol(face: Face) -> str:
    """The body of a face's symbol on a ``CELL`` square: landscape, skull or circle or bonus
    star (top right), resource (bottom left). Cows, partners and back numbers are overlays."""
    color = LANDSCAPE_RGB[face.land]
    out = [
        f'<rect x="0.5" y="0.5" width="{CELL - 1}" height="{CELL - 1}" fill="{_hex(color)}" '
        f'stroke="{_hex(darker(color))}"/>'
    ]
    r = _R
    tx, ty = CELL - r - 2, r + 2
    if face.bonus:
        out.append(
            f'<rect x="1.5" y="1.5" width="{CELL - 3}" height="{CELL - 3}" fill="none" '
            f'stroke="{_hex(STAR)}" stroke-width="2"/>'
        )
        out.append(_star(CELL - r - 3, r + 3, r + 2))
    elif face.skull:
        out.append(_skull(tx, ty, r))
    elif face.circle:
        out.append(_ring(tx, ty, r))
    rr = r + 1
    out.append(_resource(face, 2 + rr, CELL - 2 - rr, rr))
    return "".join(out)


def _cows_symbol(n: int) -> str:
    """``n`` cows in the top-left corner of a ``CELL`` square: one or two heads, or a head
    and the count."""
    r = _R
    half = 1.3 * r
    step = 2 * half + 1
    cy = 2 + r
    if n <= 2:
        return "".join(_cow(2 + half + i * step, cy, r) for i in range(n))
    label = f"x{n}"
    lx = 2 + 2 * half + 1
    return (
        _cow(2 + half, cy, r)
        + f'<rect x="{lx:.1f}" y="{cy - 5:.1f}" width="{6 * len(label) + 3}" height="10" rx="2" '
        'fill="#fff" stroke="#000" stroke-width="0.6"/>'
        + _centred(lx + (6 * len(label) + 3) / 2, cy, label, 8, "#000", "b")
    )


def _token(x: float, y: float, r: float, code: int) -> str:
    """A partner token (``2 * kind + cowboy side``) centred at (x, y)."""
    kind, cowboy = divmod(code, 2)
    if cowboy:
        return (
            f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="#debe8c" stroke="#000"/>'
            f'<rect x="{x - r * 0.8:.1f}" y="{y + r * 0.05:.1f}" width="{r * 1.6:.1f}" '
            f'height="{r * 0.3:.1f}" fill="{_INK}"/>'
            f'<polygon points="{x - r * 0.45:.1f},{y + r * 0.1:.1f} {x - r * 0.35:.1f},'
            f"{y - r * 0.55:.1f} {x:.1f},{y - r * 0.4:.1f} {x + r * 0.35:.1f},{y - r * 0.55:.1f} "
            f'{x + r * 0.45:.1f},{y + r * 0.1:.1f}" fill="{_INK}"/>'
        )
    size = max(7, round(r * 1.1))
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="{r:.1f}" fill="{_hex(_PARTNER_RGB[kind])}" ' + (
        'stroke="#000"/>'
        + _centred(x, y, PARTNER_LETTERS[kind].upper(), size, _hex(_PARTNER_TEXT[kind]), "b")
    )


def _partner_symbol(code: int) -> str:
    """A partner token in the bottom-right corner of a ``CELL`` square."""
    pr = CELL * 0.26
    return _token(CELL - pr - 2, CELL - pr - 2, pr, code)


class SvgDefs:
    """The symbols shared by the SVG elements of one page: one per plot face (as drawn on a
    ranch), per cow count and per partner token, each drawn once on a ``CELL`` square and
    referred to by ``<use>``; :meth:`markup` is the ``<svg>`` holding them."""

    def __init__(self) -> None:
        self._ids: dict[object, str] = {}
        self._bodies: list[str] = []

    def _symbol(self, key: object, prefix: str, body: str) -> str:
        sid = self._ids.get(key)
        if sid is None:
            sid = f"{prefix}{len(self._ids)}"
            self._ids[key] = sid
            self._bodies.append(
                f'<symbol id="{sid}" viewBox="0 0 {CELL} {CELL}" overflow="visible">{body}</symbol>'
            )
        return sid

    def face(self, face: Face) -> str:
        """The id of ``face``'s symbol."""
        return self._symbol(face, "f", _face_symbol(face))

    def cows(self, n: int) -> str:
        return self._symbol(("cows", n), "c", _cows_symbol(n))

    def partner(self, code: int) -> str:
        return self._symbol(("partner", code), "p", _partner_symbol(code))

    def use(self, sid: str, x: float, y: float, size: float = CELL) -> str:
        return f'<use href="#{sid}" x="{x:g}" y="{y:g}" width="{size:g}" height="{size:g}"/>'

    def draw_face(self, x: float, y: float, size: float, face: Face, back: bool = False) -> str:
        """A face off the ranch at (x, y), as ``glyphs.draw_face`` draws it: its own cow
        symbols and, with ``back``, the back number."""
        out = self._dressed(x, y, size, face, face.cows, -1)
        if back:
            label = str(face.back)
            w = 6 * len(label) + 4
            out += (
                f'<rect x="{x + size - w - 1:g}" y="{y + size - 12:g}" width="{w}" height="11" '
                f'fill="{_INK}"/>'
                + _centred(x + size - 1 - w / 2, y + size - 6.5, label, 9, "#fff")
            )
        return out

    def draw_cell(self, x: float, y: float, face: Face, cell: Cell) -> str:
        """A ranch cell holding ``face`` at (x, y), as ``glyphs.draw_face`` draws it: the cows
        standing there and the partner token."""
        return self._dressed(x, y, CELL, face, cell.cows, cell.partner)

    def _dressed(self, x: float, y: float, size: float, face: Face, cows: int, token: int) -> str:
        out = [self.use(self.face(face), x, y, size)]
        if cows:
            out.append(self.use(self.cows(cows), x, y, size))
        if token >= 0:
            out.append(self.use(self.partner(token), x, y, size))
        return "".join(out)

    def markup(self) -> str:
        """An invisible ``<svg>`` element holding every symbol used so far."""
        return (
            '<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" '
            f'style="position:absolute" aria-hidden="true"><defs>{"".join(self._bodies)}</defs>'
            "</svg>"
        )

    def defs(self) -> str:
        """The symbols as a ``<defs>`` block (inside a standalone SVG document)."""
        return f"<defs>{''.join(self._bodies)}</defs>"


def ranch_size(rows: int) -> tuple[int, int]:
    """Width and height of a ranch element with ``rows`` rows."""
    w = _PAD * 2 + _ROW_LABEL + 5 * CELL
    h = _PAD * 2 + _LABEL_H + _LETTERS_H + rows * CELL + _RIVER_H + _RESERVE_H
    return w, h


def _svg(w: float, h: float, body: str, attrs: str = "") -> str:
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{w:g}" height="{h:g}" '
        f'viewBox="0 0 {w:g} {h:g}" style="{_FONT}"{attrs}>{body}</svg>'
    )


def ranch_svg(view: TableView, seat: int, defs: SvgDefs) -> str:
    """One seat's ranch and reserve as an ``<svg>`` element (symbols from ``defs``)."""
    ranch = view.ranches[seat]
    rows, cols = view.rows, view.cols
    w, h = ranch_size(rows)
    out = [
        f'<rect x="0.5" y="0.5" width="{w - 1}" height="{h - 1}" '
        + (
            f'fill="{_ACTING_BG}" stroke="{_ACTING_EDGE}" stroke-width="3"/>'
            if ranch.acting
            else f'fill="{_PANEL}" stroke="{_PANEL_EDGE}"/>'
        )
    ]
    x, y = _PAD, _PAD
    out.append(
        f'<rect x="{x}" y="{y + 1}" width="8" height="10" fill="{seat_hex(seat)}" stroke="#000"/>'
    )
    title = ("> " if ranch.acting else "") + f"{ranch.label} - {ranch.board}"
    if len(title) > 26:
        title = title[:25] + "..."
    out.append(_text(x + 12, y + 10, title, 12, extra=' font-weight="bold"'))
    if ranch.winner:
        out.append(_star(w - 58, y + 6, 6))
        out.append(_text(w - 50, y + 10, "WINNER", 11, "#aa5a00", ' font-weight="bold"'))
    sc = ranch.score
    parts = f"T{sc.territories}  R{sc.resources}  P{sc.partners}  S{sc.scenario}"
    out.append(
        _text(x, y + 26, f"{sc.total} pts", 11, extra=' font-weight="bold"')
        + _text(x + 52, y + 26, parts, 11, _MUTED)
    )
    gx = x + _ROW_LABEL
    gy = y + _LABEL_H + _LETTERS_H
    for col, letter in enumerate(COLUMN_LETTERS[:cols]):
        out.append(_centred(gx + col * CELL + CELL / 2, gy - _LETTERS_H / 2, letter, 9, _MUTED))
    for row in range(rows):
        cy = gy + (rows - 1 - row) * CELL
        out.append(_centred(x + _ROW_LABEL / 2, cy + CELL / 2, str(row + 1), 9, _MUTED))
    for index, cell in enumerate(ranch.cells):
        row, col = divmod(index, cols)
        cx, cy = gx + col * CELL, gy + (rows - 1 - row) * CELL
        if cell.face is None:
            out.append(
                f'<rect x="{cx + 0.5:g}" y="{cy + 0.5:g}" width="{CELL - 1}" height="{CELL - 1}" '
                f'fill="{_EMPTY}" stroke="{_EMPTY_EDGE}"/>'
            )
        else:
            out.append(defs.draw_cell(cx, cy, cell.face, cell))
    for index in ranch.piece:
        row, col = divmod(index, cols)
        cx, cy = gx + col * CELL, gy + (rows - 1 - row) * CELL
        out.append(
            f'<rect x="{cx + 1.5:g}" y="{cy + 1.5:g}" width="{CELL - 3}" height="{CELL - 3}" '
            f'fill="none" stroke="{_PIECE}" stroke-width="3"/>'
        )
    ry = gy + rows * CELL + 1
    out.append(
        f'<rect x="{gx}" y="{ry}" width="{5 * CELL}" height="{_RIVER_H}" fill="{_RIVER}"/>'
        f'<path d="{" ".join(f"M{gx + 4 + i * 16},{ry + 6} l4,-2 l4,2" for i in range(10))}" '
        f'stroke="{_RIVER_WAVE}" fill="none"/>'
    )
    plank = CELL - 14
    for col, bridge in enumerate(ranch.bridges):
        if bridge:
            bx = gx + col * CELL + 7
            out.append(
                f'<rect x="{bx}" y="{ry - 1}" width="{plank}" height="{_RIVER_H + 2}" '
                f'fill="{_PLANK}" stroke="{_PLANK_EDGE}"/>'
            )
    sy = ry + _RIVER_H + 4
    held = ranch.held
    out.append(_text(x, sy + 9, f"Reserve {len(held)}/{ranch.slots}", 9))
    ty = sy + 13
    for i in range(max(ranch.slots, len(held))):
        tx = x + i * (_MINI + 4)
        if i < len(held):
            out.append(defs.draw_face(tx, ty, _MINI, held[i]))
            if i >= ranch.slots:  # collected, waiting to be placed
                out.append(
                    f'<rect x="{tx - 1}" y="{ty - 1}" width="{_MINI + 2}" height="{_MINI + 2}" '
                    'fill="none" stroke="#dc0000" stroke-width="2"/>'
                )
        else:
            out.append(
                f'<rect x="{tx}" y="{ty}" width="{_MINI}" height="{_MINI}" fill="{_EMPTY}" '
                f'stroke="{_GRID}"/>'
            )
    attrs = f' class="ranch" data-seat="{seat}" role="img" aria-label="{_esc(ranch.label)}"'
    return _svg(w, h, "".join(out), attrs)


def _info_lines(view: TableView) -> list[tuple[str, int]]:
    head = f"Round {view.round}" + (" (final)" if view.final_round else "")
    lines: list[tuple[str, int]] = []
    if view.terminal:
        lines.append((head + " - GAME OVER", -1))
        lines.append(("Winner: " + ", ".join(view.labels[s] for s in sorted(view.winners)), -1))
    else:
        lines.append((head + f" - {view.phase.replace('_', ' ').lower()}", -1))
        if view.to_act is not None:
            lines.append(("To act: " + view.labels[view.to_act], view.to_act))
    lines.append((f"Scenario: {view.scenario}", -1))
    lines.append((f"Cows in supply: {view.supply}", -1))
    lines.append((f"Plot pile: {view.pile}   Partner stack: {view.stack}", -1))
    return lines


def table_svg(view: TableView, defs: SvgDefs) -> str:
    """The shared table as an ``<svg>`` element: the game information, the saloon, both
    columns with their claims and, with 2 players, the bonus tiles."""
    out: list[str] = [_text(0, 13, "MOON RIVER", 15, extra=' font-weight="bold"')]
    for i, (line, seat) in enumerate(_info_lines(view)):
        ty = 30 + i * 15
        tx = 0
        if seat >= 0:
            out.append(
                f'<rect x="0" y="{ty - 9}" width="8" height="10" fill="{seat_hex(seat)}" '
                'stroke="#000"/>'
            )
            tx = 12
        out.append(_text(tx, ty, line, 11))
    x = _INFO_W + _GAP
    groups_x = x
    # The saloon.
    step = 2 * _TOKEN_R + 4
    out.append(_text(x, 10, "Saloon", 11))
    for i, tok in enumerate(view.saloon):
        cx, cy = x + _TOKEN_R + i * step, 14 + _FACE / 2
        if tok >= 0:
            out.append(_token(cx, cy, _TOKEN_R, 2 * tok))
        else:
            out.append(
                f'<circle cx="{cx}" cy="{cy}" r="{_TOKEN_R}" fill="{_EMPTY}" stroke="{_GRID}"/>'
            )
    x += len(view.saloon) * step + _GAP
    # The columns.
    for name, column in (("Column now", view.now), ("Column next", view.next)):
        out.append(_text(x, 10, name, 11))
        fstep = _FACE + 4
        for i, (face, seat) in enumerate(zip(column.plots, column.claims, strict=True)):
            fx = x + i * fstep
            if face is None:
                out.append(
                    f'<rect x="{fx}" y="14" width="{_FACE}" height="{_FACE}" fill="{_EMPTY}" '
                    f'stroke="{_GRID}"/><path d="M{fx + 4},{14 + _FACE - 4} L{fx + _FACE - 4},18" '
                    f'stroke="{_GRID}"/>'
                )
            else:
                out.append(defs.draw_face(fx, 14, _FACE, face, back=True))
            if seat >= 0:
                mx, my = fx + _FACE / 2, 14 + _FACE + 8
                out.append(
                    f'<circle cx="{mx:g}" cy="{my:g}" r="7" fill="{seat_hex(seat)}" stroke="#000"/>'
                    + _centred(mx, my, str(seat), 9, "#fff", "b")
                )
        x += len(column.plots) * fstep + _GAP
    # The bonus tiles (2 players).
    if view.bonus_tiles:
        out.append(_text(x, 10, "Bonus tiles", 11))
        tstep = 2 * _FACE + 10
        for t, tile in enumerate(view.bonus_tiles):
            fx = x + t * tstep
            for side, face in enumerate(tile.faces):
                sx = fx + side * _FACE
                if tile.free:
                    out.append(defs.draw_face(sx, 14, _FACE, face))
                else:
                    out.append(
                        f'<rect x="{sx}" y="14" width="{_FACE}" height="{_FACE}" '
                        f'fill="{_EMPTY}" stroke="{_GRID}"/>'
                    )
            out.append(_centred(fx + _FACE, 14 + _FACE + 8, tile.name, 9, _INK))
        x += len(view.bonus_tiles) * tstep
    width = max(x, groups_x)
    height = max(30 + 15 * len(_info_lines(view)), _GROUP_H)
    return _svg(width, height, "".join(out), ' class="table"')


def legend_svg() -> str:
    """What the symbols mean, as an ``<svg>`` element in two columns (the picture painter's
    legend): landscapes, cows, resources, skull, circle, partners, bridge, bonus tile, the
    piece in play and the score letters."""
    items: list[tuple[str, str]] = [
        (
            land.name.lower(),
            f'<rect x="0" y="0" width="12" height="12" fill="{_hex(LANDSCAPE_RGB[land])}" '
            f'stroke="{_hex(darker(LANDSCAPE_RGB[land]))}"/>',
        )
        for land in Landscape
    ]
    items += [
        ("cow", _cow(6, 7, 5)),
        ("gold", _resource(Face(0, 1, 0, 0, 0, False, False), 6, 6, 6)),
        ("beaver", _resource(Face(3, 0, 1, 0, 0, False, False), 6, 6, 6)),
        ("corn (count)", _resource(Face(4, 0, 0, 3, 0, False, False), 6, 6, 6)),
        ("skull", _skull(6, 6, 5)),
        ("circle", _ring(6, 6, 4.5)),
    ]
    items += [(PARTNER_NAMES[k].lower(), _token(6, 6, 6, 2 * k)) for k in PartnerKind]
    items += [
        ("cowboy side", _token(6, 6, 6, 1)),
        (
            "bridge",
            f'<rect x="-1" y="3" width="14" height="6" fill="{_RIVER}"/><rect x="3" y="1" '
            f'width="6" height="10" fill="{_PLANK}" stroke="{_PLANK_EDGE}"/>',
        ),
        ("bonus tile", _star(6, 6, 6)),
        (
            "piece in play",
            f'<rect x="1" y="1" width="10" height="10" fill="none" stroke="{_PIECE}" '
            'stroke-width="2"/>',
        ),
    ]
    half = -(-len(items) // 2)
    out = [_text(0, 11, "Legend", 12, extra=' font-weight="bold"')]
    for i, (label, icon) in enumerate(items):
        x, y = (i // half) * 130, 20 + (i % half) * 17
        out.append(
            f'<g transform="translate({x},{y})">{icon}</g>' + _text(x + 18, y + 10, label, 11)
        )
    note_y = 20 + half * 17 + 10
    out.append(_text(0, note_y, "Score: T territories, R resources, P partners,", 10, _MUTED))
    out.append(_text(0, note_y + 13, "S scenario", 10, _MUTED))
    return _svg(260, note_y + 18, "".join(out), ' class="legend"')


def render_svg(state: GameState, *, seat_names: Sequence[str] | None = None) -> str:
    """A self-contained SVG document of the whole (public) table: the ranches in a row, the
    shared table under them. The same state always gives the same text.

    Raises:
        ValueError: ``seat_names`` does not have one name per seat.
    """
    view = table_view(state, seat_names)
    defs = SvgDefs()
    rw, rh = ranch_size(view.rows)
    parts = []
    for seat in range(view.num_players):
        parts.append(
            ranch_svg(view, seat, defs).replace(
                "<svg ", f'<svg x="{8 + seat * (rw + 10)}" y="8" ', 1
            )
        )
    table = table_svg(view, defs)
    parts.append(table.replace("<svg ", f'<svg x="8" y="{rh + 18}" ', 1))
    width = max(16 + view.num_players * (rw + 10), 16 + _table_width(table))
    height = rh + 18 + _GROUP_H + 40
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
        f'viewBox="0 0 {width:g} {height:g}" style="background:{_BG};{_FONT}">'
        f"{defs.defs()}{''.join(parts)}</svg>"
    )


def _table_width(markup: str) -> float:
    start = markup.index('width="') + 7
    return float(markup[start : markup.index('"', start)])
