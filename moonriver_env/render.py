"""Pictures of a game state for people: ANSI text, RGB frames, and a human display.

Everything shown is public (RULES.md section 8): every ranch with its cows, partners and
bridges (section 1), every reserve, both columns with their claims (section 2), the saloon,
the cow supply, the stack and pile sizes, the scores so far (section 5), the scenario
(section 7) and, with 2 players, the bonus tiles still available (section 6).

- :func:`render_ansi` returns a compact text view (ANSI 256-colour backgrounds, or plain
  letters with ``color=False``). Ranch row 1 (the river) is printed last, next to the river
  line, as on the table.
- :func:`render_rgb` returns a ``uint8`` image ``(H, W, 3)`` drawn with Pillow (imported
  lazily, so the module itself needs only NumPy).
- :func:`show_human` puts a frame in a matplotlib window when a display exists, else prints
  the text view; it never blocks.

Cell codes of the text view (4 characters, see :data:`ANSI_LEGEND`)::

    M2d$    landscape M (meadow), 2 cows, a Desperado (specialist side), a gold symbol
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .rules.components import Landscape, PartnerKind
from .rules.core import Phase
from .rules.scoring import ScoreBreakdown

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from .rules.state import GameState

__all__ = [
    "ANSI_LEGEND",
    "LANDSCAPE_LETTERS",
    "PARTNER_LETTERS",
    "can_display",
    "render_ansi",
    "render_rgb",
    "show_human",
]

# ---------------------------------------------------------------------------------- shared

LANDSCAPE_LETTERS = "DCMFKA"
"""One letter per :class:`Landscape`: Desert, Canyon, Meadow, Forest, Korn (cornfield), fArm."""

PARTNER_LETTERS = "dtgrf"
"""One letter per :class:`PartnerKind` (specialist side up); a Cowboy side up is ``W``."""

COWBOY_LETTER = "W"

PARTNER_NAMES = ("Desperado", "Cattle Thief", "Gold Digger", "Trapper", "Farmer")

ANSI_LEGEND = (
    "legend: a cell shows landscape, cows, partner, symbol; > marks the piece being resolved",
    "  landscapes: D desert, C canyon, M meadow, F forest, K cornfield, A farm; ~ river, = bridge",
    "  partners: d desperado, t cattle thief, g gold digger, r trapper, f farmer (specialist side);"
    " W cowboy side",
    "  symbols: $ gold, b beaver, 3/5 corn, x skull, o circle, * bonus tile; c cow symbol (plots"
    " in columns and reserves)",
    "  columns: plot (back number) @seat that claimed it; score: T territories, R resources,"
    " P partners, S scenario",
)
"""The legend lines printed under the text view."""

# Phases in which ``state.piece`` is the piece whose symbols are being resolved.
_RESOLVING = frozenset(
    {Phase.SKULL, Phase.RECRUIT, Phase.COWBOY, Phase.DESPERADO, Phase.THIEF, Phase.BONUS}
)


def _seat_labels(state: GameState, seat_names: Sequence[str] | None) -> list[str]:
    n = state.config.num_players
    if seat_names is None:
        return [f"seat {i}" for i in range(n)]
    if len(seat_names) != n:
        raise ValueError(f"seat_names: expected {n} names, got {len(seat_names)}")
    return [str(name) for name in seat_names]


def _active_piece(state: GameState) -> set[int]:
    """Cells of the piece being resolved (on the acting seat's ranch), if any."""
    if state.phase in _RESOLVING:
        return set(state.piece)
    return set()


@dataclass(frozen=True)
class _Face:
    """What a cell content shows (a plot kind or a bonus tile side)."""

    land: int
    gold: int
    beaver: int
    corn: int
    cows: int
    skull: bool
    circle: bool
    back: int
    bonus: bool


def _face(state: GameState, kind: int) -> _Face:
    kt = state.kind_table
    return _Face(
        land=kt.land[kind],
        gold=kt.gold[kind],
        beaver=kt.beaver[kind],
        corn=kt.corn[kind],
        cows=kt.cows[kind],
        skull=kt.skull[kind],
        circle=kt.circle[kind],
        back=kt.back[kind],
        bonus=kind >= kt.num_plot_kinds,
    )


def _scenario_title(state: GameState) -> str:
    if state.scenario is None:
        return "base game"
    return state.scenario.replace("_", " ")


# ------------------------------------------------------------------------------------ ANSI

# 256-colour backgrounds and foregrounds per landscape.
_ANSI_BG = (223, 131, 150, 22, 220, 172)
_ANSI_FG = (16, 231, 16, 231, 16, 16)
_ANSI_RIVER = "48;5;25;38;5;231"
_ANSI_BRIDGE = "48;5;94;38;5;231"
_ANSI_ACTING = "1;7"
_ANSI_PIECE = "1;4"
_ANSI_TITLE = 28  # a ranch block is 27 characters wide; longer labels are cut


class _Line:
    """A text line made of segments, each with an optional SGR style."""

    def __init__(self) -> None:
        self.parts: list[tuple[str, str | None]] = []

    def add(self, text: str, style: str | None = None) -> _Line:
        self.parts.append((text, style))
        return self

    @property
    def width(self) -> int:
        return sum(len(text) for text, _ in self.parts)

    def render(self, color: bool) -> str:
        if not color:
            return "".join(text for text, _ in self.parts)
        out = []
        for text, style in self.parts:
            out.append(f"\x1b[{style}m{text}\x1b[0m" if style and text else text)
        return "".join(out)


def _land_style(land: int) -> str:
    return f"48;5;{_ANSI_BG[land]};38;5;{_ANSI_FG[land]}"


def _plot_code(state: GameState, kind: int) -> str:
    """Short description of a plot face: landscape letter, ``c`` per cow symbol, symbols."""
    f = _face(state, kind)
    text = LANDSCAPE_LETTERS[f.land] + "c" * f.cows + "$" * f.gold + "b" * f.beaver
    if f.corn:
        text += str(f.corn)
    if f.skull:
        text += "x"
    if f.circle:
        text += "o"
    return text


def _cell_code(state: GameState, seat: int, cell: int) -> str:
    """The 4-character code of a ranch cell (``" .  "`` when empty)."""
    kind = state.kinds[seat][cell]
    if kind < 0:
        return " .  "
    f = _face(state, kind)
    cows = state.cows[seat][cell]
    cow_char = " " if cows == 0 else (str(cows) if cows < 10 else "+")
    partner = state.partners[seat][cell]
    if partner < 0:
        partner_char = " "
    else:
        pkind, cowboy = divmod(partner, 2)
        partner_char = COWBOY_LETTER if cowboy else PARTNER_LETTERS[pkind]
    if f.bonus:
        sym = "*"
    elif f.gold:
        sym = "$"
    elif f.beaver:
        sym = "b"
    elif f.corn:
        sym = str(f.corn) if f.corn < 10 else "+"
    elif f.skull:
        sym = "x"
    elif f.circle:
        sym = "o"
    else:
        sym = " "
    return LANDSCAPE_LETTERS[f.land] + cow_char + partner_char + sym


def _ranch_block(state: GameState, seat: int, label: str, acting: bool) -> list[_Line]:
    grid = state.grid
    score = state.scores()[seat]
    piece = _active_piece(state) if acting else set()
    winners = set(state.winners()) if state.is_terminal else set()
    lines: list[_Line] = []
    head = _Line()
    head.add("> " if acting else "  ")
    title = f"{label} [{state.boards[seat]}]"
    if len(title) > _ANSI_TITLE:
        title = title[: _ANSI_TITLE - 3] + "..."
    head.add(title, _ANSI_ACTING if acting else "1")
    if seat in winners:
        head.add(" WINNER", "1;33")
    lines.append(head)
    lines.append(
        _Line().add(
            f"  {score.total} pts: T{score.territories} R{score.resources} "
            f"P{score.partners} S{score.scenario}"
        )
    )
    lines.append(_Line().add("  " + "".join(f" {letter}   " for letter in "abcde")))
    for row in reversed(range(grid.rows)):
        line = _Line().add(f"{row + 1:>2}")
        for col in range(grid.cols):
            cell = row * grid.cols + col
            line.add(">" if cell in piece else " ")
            code = _cell_code(state, seat, cell)
            kind = state.kinds[seat][cell]
            style = None
            if kind >= 0:
                style = _land_style(state.kind_table.land[kind])
                if cell in piece:
                    style += ";" + _ANSI_PIECE
            line.add(code, style)
        lines.append(line)
    river = _Line().add("  ")
    for col in range(grid.cols):
        if state.bridges[seat] >> col & 1:
            river.add("~", _ANSI_RIVER).add("====", _ANSI_BRIDGE)
        else:
            river.add("~~~~~", _ANSI_RIVER)
    lines.append(river)
    held = state.held[seat]
    reserve = _Line().add(f"  hold {len(held)}/{state.slots[seat]}:")
    for kind in held:
        reserve.add(" ")
        reserve.add(_plot_code(state, kind), _land_style(state.kind_table.land[kind]))
    lines.append(reserve)
    return lines


def _column_line(
    state: GameState, title: str, col: Sequence[int], claim: Sequence[int], drawn: bool
) -> _Line:
    line = _Line().add(title)
    if not drawn:
        note = "(none: final round)" if state.final_round else "(not drawn yet)"
        return line.add(" " + note)
    for kind, seat in zip(col, claim, strict=True):
        line.add("  ")
        if kind < 0:
            line.add("--")
            continue
        line.add(_plot_code(state, kind), _land_style(state.kind_table.land[kind]))
        line.add(f"({state.kind_table.back[kind]})")
        if seat >= 0:
            line.add(f"@{seat}", "1")
    return line


def _header_lines(state: GameState, labels: Sequence[str]) -> list[_Line]:
    first = _Line().add("Moon River", "1")
    first.add(f"  round {state.round}" + (" (final)" if state.final_round else ""))
    if state.is_terminal:
        win = ", ".join(labels[s] for s in state.winners())
        first.add("  GAME OVER", "1").add(f"  winner: {win}")
    else:
        seat = state.current_seat
        who = labels[seat] if seat is not None else "-"
        first.add(f"  phase {state.phase.name}").add("  to act: ").add(who, "1")
        piece = _active_piece(state)
        if piece:
            names = " ".join(state.grid.cell_name(c) for c in sorted(piece))
            first.add(f"  piece: {names}")
    second = _Line().add(
        f"scenario: {_scenario_title(state)}  cows in supply: {state.supply}  "
        f"partner stack: {len(state.stack)}  plot pile: {len(state.pile)}"
    )
    return [first, second]


def _table_lines(state: GameState) -> list[_Line]:
    saloon = _Line().add("saloon:")
    for i, tok in enumerate(state.saloon):
        saloon.add(f"  {i + 1} " + (PARTNER_NAMES[tok] if tok >= 0 else "-"))
    lines = [saloon]
    cur_drawn = any(k >= 0 for k in state.cur_col) or state.round > 0
    lines.append(_column_line(state, "column now: ", state.cur_col, state.cur_claim, cur_drawn))
    next_drawn = state.round > 0 and not state.final_round
    lines.append(_column_line(state, "column next:", state.next_col, state.next_claim, next_drawn))
    if state.config.num_players == 2:
        tiles = state.config.components.bonus_tiles
        avail = [
            f"{t.name} {t.sides[0].name.lower()}/{t.sides[1].name.lower()}"
            for t, free in zip(tiles, state.tiles, strict=True)
            if free
        ]
        lines.append(_Line().add("bonus tiles: " + (", ".join(avail) if avail else "none left")))
    return lines


def score_table(state: GameState, seat_names: Sequence[str] | None = None) -> str:
    """The score breakdown of every seat as a plain text table (section 5): territories,
    resources, partners, scenario, total and the tie-break keys; ``*`` marks the winners
    once the game is over."""
    labels = _seat_labels(state, seat_names)
    winners = set(state.winners()) if state.is_terminal else set()
    head = (
        "seat",
        "board",
        "territories",
        "resources",
        "partners",
        "scenario",
        "total",
        "largest",
        "cows",
        "",
    )
    rows = [head]
    for seat, sc in enumerate(state.scores()):
        rows.append(
            (
                labels[seat],
                state.boards[seat],
                str(sc.territories),
                str(sc.resources),
                str(sc.partners),
                str(sc.scenario),
                str(sc.total),
                str(sc.largest_territory),
                str(sc.cows),
                "*" if seat in winners else "",
            )
        )
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = []
    for k, r in enumerate(rows):
        cells = [r[0].ljust(widths[0]), r[1].ljust(widths[1])]
        cells += [r[i].rjust(widths[i]) for i in range(2, len(head) - 1)] + [r[-1]]
        lines.append("  ".join(cells).rstrip())
        if k == 0:
            lines.append("  ".join("-" * w for w in widths[:-1]))
    return "\n".join(lines)


def render_ansi(
    state: GameState,
    *,
    color: bool = True,
    seat_names: Sequence[str] | None = None,
    width: int = 160,
) -> str:
    """A compact text view of the whole (public) table.

    Args:
        state: the game state.
        color: use ANSI 256-colour backgrounds per landscape (else plain letters only).
        seat_names: a label per seat (default ``"seat 0"``, ``"seat 1"``, ...).
        width: the widest line allowed; ranches are printed side by side while they fit,
            else on several rows.

    Returns:
        The text, lines separated by ``"\\n"``, no trailing newline.
    """
    labels = _seat_labels(state, seat_names)
    lines = _header_lines(state, labels) + _table_lines(state)
    blocks = [
        _ranch_block(state, seat, labels[seat], seat == state.current_seat)
        for seat in range(state.config.num_players)
    ]
    gap = 3
    row: list[list[_Line]] = []
    rows: list[list[list[_Line]]] = []
    used = 0
    for block in blocks:
        w = max(line.width for line in block)
        if row and used + gap + w > width:
            rows.append(row)
            row, used = [], 0
        used += (gap if row else 0) + w
        row.append(block)
    rows.append(row)
    for group in rows:
        lines.append(_Line())
        widths = [max(line.width for line in block) for block in group]
        height = max(len(block) for block in group)
        for i in range(height):
            merged = _Line()
            for j, block in enumerate(group):
                line = block[i] if i < len(block) else _Line()
                merged.parts.extend(line.parts)
                if j < len(group) - 1:
                    merged.add(" " * (widths[j] - line.width + gap))
            lines.append(merged)
    lines.append(_Line())
    lines.extend(_Line().add(text) for text in ANSI_LEGEND)
    return "\n".join(line.render(color).rstrip() for line in lines)


# ------------------------------------------------------------------------------------- RGB

RGB = tuple[int, int, int]

# Landscape colours: distinct in hue *and* lightness (light sand, dark rust, light green,
# dark green, saturated yellow, mid orange), so they stay apart for most colour-blind eyes.
LANDSCAPE_RGB: tuple[RGB, ...] = (
    (238, 218, 160),  # desert: sand
    (168, 68, 40),  # canyon: rust
    (160, 214, 110),  # meadow: light green
    (32, 96, 50),  # forest: dark green
    (250, 206, 30),  # cornfield: yellow
    (232, 148, 62),  # farm: orange
)
_PARTNER_RGB: tuple[RGB, ...] = (
    (30, 30, 30),  # desperado: black
    (170, 30, 40),  # cattle thief: dark red
    (255, 215, 0),  # gold digger: gold
    (110, 72, 40),  # trapper: brown
    (120, 80, 170),  # farmer: purple
)
_PARTNER_TEXT: tuple[RGB, ...] = (
    (255, 255, 255),
    (255, 255, 255),
    (0, 0, 0),
    (255, 255, 255),
    (255, 255, 255),
)
# Okabe-Ito colours for the seats (claim markers, labels).
SEAT_RGB: tuple[RGB, ...] = ((213, 94, 0), (0, 114, 178), (0, 158, 115), (204, 121, 167))

_BLACK: RGB = (0, 0, 0)
_WHITE: RGB = (255, 255, 255)
_INK: RGB = (35, 35, 35)
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
_STAR: RGB = (255, 200, 0)
_GOLD: RGB = (255, 204, 0)
_GOLD_EDGE: RGB = (130, 90, 0)
_BEAVER: RGB = (120, 75, 40)
_CORN: RGB = (250, 150, 0)

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
_FONT = 11
_SMALL = 9
_TITLE = 15


class _Pen:
    """Pillow drawing in logical pixels (multiplied by ``scale``), with cached fonts."""

    def __init__(self, image: Any, scale: int) -> None:
        from PIL import ImageDraw

        self.draw = ImageDraw.Draw(image)
        self.s = scale
        self._fonts: dict[int, Any] = {}

    def font(self, size: int) -> Any:
        font = self._fonts.get(size)
        if font is None:
            from PIL import ImageFont

            try:
                font = ImageFont.load_default(size=size * self.s)
            except (TypeError, ValueError, OSError, ImportError):  # Pillow without FreeType
                font = ImageFont.load_default()
            self._fonts[size] = font
        return font

    def _box(self, box: Sequence[float]) -> list[float]:
        return [v * self.s for v in box]

    def rect(
        self,
        box: Sequence[float],
        fill: RGB | None = None,
        outline: RGB | None = None,
        width: int = 1,
    ) -> None:
        self.draw.rectangle(self._box(box), fill=fill, outline=outline, width=width * self.s)

    def rounded(
        self,
        box: Sequence[float],
        radius: float,
        fill: RGB | None = None,
        outline: RGB | None = None,
    ) -> None:
        self.draw.rounded_rectangle(
            self._box(box), radius=radius * self.s, fill=fill, outline=outline, width=self.s
        )

    def disc(
        self, x: float, y: float, r: float, fill: RGB | None, outline: RGB | None = _BLACK
    ) -> None:
        self.draw.ellipse(
            self._box((x - r, y - r, x + r, y + r)), fill=fill, outline=outline, width=self.s
        )

    def polygon(self, points: Sequence[tuple[float, float]], fill: RGB, outline: RGB) -> None:
        pts = [(x * self.s, y * self.s) for x, y in points]
        self.draw.polygon(pts, fill=fill, outline=outline)

    def line(self, points: Sequence[tuple[float, float]], fill: RGB, width: int = 1) -> None:
        pts = [(x * self.s, y * self.s) for x, y in points]
        self.draw.line(pts, fill=fill, width=width * self.s)

    def text_size(self, text: str, size: int = _FONT) -> tuple[float, float]:
        box = self.draw.textbbox((0, 0), text, font=self.font(size))
        return (box[2] - box[0]) / self.s, (box[3] - box[1]) / self.s

    def fit(self, text: str, size: int, width: float) -> str:
        """``text``, cut short with ``...`` if wider than ``width``."""
        if self.text_size(text, size)[0] <= width:
            return text
        while text and self.text_size(text + "...", size)[0] > width:
            text = text[:-1]
        return text + "..."

    def text(self, x: float, y: float, text: str, fill: RGB = _INK, size: int = _FONT) -> float:
        """Draw ``text`` with the top of its capitals at ``y`` (so texts of one size share a
        baseline) and its ink starting at ``x``; return its width."""
        font = self.font(size)
        box = self.draw.textbbox((0, 0), text, font=font)
        cap_top = self.draw.textbbox((0, 0), "H", font=font)[1]
        self.draw.text((x * self.s - box[0], y * self.s - cap_top), text, font=font, fill=fill)
        return (box[2] - box[0]) / self.s

    def center_text(
        self, x: float, y: float, text: str, fill: RGB = _INK, size: int = _FONT
    ) -> None:
        """Draw ``text`` with its ink box centred on (x, y)."""
        font = self.font(size)
        box = self.draw.textbbox((0, 0), text, font=font)
        w, h = box[2] - box[0], box[3] - box[1]
        pos = (x * self.s - box[0] - w / 2, y * self.s - box[1] - h / 2)
        self.draw.text(pos, text, font=font, fill=fill)


def _darker(color: RGB, f: float = 0.6) -> RGB:
    return (int(color[0] * f), int(color[1] * f), int(color[2] * f))


# --- small symbols -------------------------------------------------------------------------


def _draw_cows(pen: _Pen, x: float, y: float, n: int, r: float) -> None:
    """Cows as white dots with a black outline, left to right from (x, y); ``n > 3`` adds
    the count."""
    if n <= 3:
        for i in range(n):
            pen.disc(x + r + i * (2 * r + 1), y + r, r, _WHITE)
        return
    pen.disc(x + r, y + r, r, _WHITE)
    label = f"{n}"
    w, h = pen.text_size(label, _SMALL)
    pen.rect((x + 2 * r + 1, y, x + 2 * r + 3 + w, y + 2 * r), fill=_WHITE)
    pen.text(x + 2 * r + 2, y + r - h / 2, label, _BLACK, _SMALL)


def _draw_skull(pen: _Pen, x: float, y: float, r: float) -> None:
    pen.disc(x, y - r * 0.15, r, _WHITE)
    pen.rect((x - r * 0.55, y + r * 0.4, x + r * 0.55, y + r * 1.0), fill=_WHITE, outline=_BLACK)
    e = max(r * 0.28, 0.8)
    pen.disc(x - r * 0.38, y - r * 0.15, e, _BLACK, None)
    pen.disc(x + r * 0.38, y - r * 0.15, e, _BLACK, None)


def _draw_circle_mark(pen: _Pen, x: float, y: float, r: float) -> None:
    pen.disc(x, y, r, None, _BLACK)
    pen.disc(x, y, r - 1, None, _WHITE)


def _star_points(x: float, y: float, r: float) -> list[tuple[float, float]]:
    pts = []
    for i in range(10):
        rad = r if i % 2 == 0 else r * 0.45
        ang = -np.pi / 2 + i * np.pi / 5
        pts.append((x + rad * float(np.cos(ang)), y + rad * float(np.sin(ang))))
    return pts


def _draw_resource(pen: _Pen, x: float, y: float, face: _Face, r: float) -> None:
    """The resource symbols of a face, at the bottom-left corner (x, y = bottom-left)."""
    cy = y - r - 1
    cx = x + r + 1
    if face.gold:
        pen.disc(cx, cy, r, _GOLD, _GOLD_EDGE)
        pen.center_text(cx, cy, "$", _GOLD_EDGE, _SMALL)
    elif face.beaver:
        pen.disc(cx, cy, r, _BEAVER, _BLACK)
        pen.center_text(cx, cy, "B", _WHITE, _SMALL)
    elif face.corn:
        label = str(face.corn)
        w, h = pen.text_size(label, _SMALL)
        pen.rounded((x + 1, cy - r, x + w + 6, cy + r), 2, fill=_CORN, outline=_BLACK)
        pen.center_text(x + 3.5 + w / 2, cy, label, _BLACK, _SMALL)


def _draw_partner(pen: _Pen, x: float, y: float, r: float, code: int) -> None:
    kind, cowboy = divmod(code, 2)
    if cowboy:
        pen.disc(x, y, r, (222, 190, 140), _BLACK)
        # A cowboy hat: brim and crown.
        pen.rounded((x - r * 0.8, y + r * 0.05, x + r * 0.8, y + r * 0.35), r * 0.15, fill=_INK)
        pen.polygon(
            [
                (x - r * 0.45, y + r * 0.1),
                (x - r * 0.35, y - r * 0.55),
                (x, y - r * 0.4),
                (x + r * 0.35, y - r * 0.55),
                (x + r * 0.45, y + r * 0.1),
            ],
            fill=_INK,
            outline=_INK,
        )
        return
    pen.disc(x, y, r, _PARTNER_RGB[kind], _BLACK)
    pen.center_text(x, y, PARTNER_LETTERS[kind].upper(), _PARTNER_TEXT[kind], _SMALL)


def _draw_face(
    pen: _Pen,
    x: float,
    y: float,
    size: float,
    face: _Face,
    *,
    cows: int | None = None,
    partner: int = -1,
    back: bool = False,
) -> None:
    """One plot (or bonus tile side) as a square at (x, y).

    In a ranch, ``cows`` are the cows standing there and ``partner`` its token; elsewhere
    (``cows=None``) the face's cow symbols are drawn and, with ``back``, the back number.
    """
    color = LANDSCAPE_RGB[face.land]
    pen.rect((x, y, x + size, y + size), fill=color, outline=_darker(color))
    small = size < 26
    r = 2.5 if small else 3.5
    n_cows = face.cows if cows is None else cows
    if n_cows:
        _draw_cows(pen, x + 2, y + 2, n_cows, r)
    if face.bonus:
        pen.rect((x + 1, y + 1, x + size - 1, y + size - 1), outline=_STAR, width=2)
        pen.polygon(_star_points(x + size - r - 3, y + r + 3, r + 2), fill=_STAR, outline=_BLACK)
    elif face.skull:
        _draw_skull(pen, x + size - r - 2, y + r + 2, r)
    elif face.circle and partner < 0:
        _draw_circle_mark(pen, x + size - r - 2, y + r + 2, r)
    _draw_resource(pen, x + 1, y + size - 1, face, r + 1)
    if partner >= 0:
        pr = size * 0.26
        _draw_partner(pen, x + size - pr - 2, y + size - pr - 2, pr, partner)
    if back:
        label = str(face.back)
        w, h = pen.text_size(label, _SMALL)
        pen.rect(
            (x + size - w - 5, y + size - h - 5, x + size - 1, y + size - 1),
            fill=_INK,
            outline=_INK,
        )
        pen.text(x + size - w - 3, y + size - h - 3, label, _WHITE, _SMALL)


# --- the table: ranches, then boxes (info, saloon, columns, bonus tiles, legend) ----------


@dataclass(frozen=True)
class _Box:
    """A rectangular group of the picture, drawn by ``draw(pen, x, y)``."""

    w: float
    h: float
    draw: Callable[[_Pen, float, float], None]


@dataclass(frozen=True)
class _View:
    """Everything the drawing functions share for one frame."""

    state: GameState
    labels: Sequence[str]
    scores: Sequence[ScoreBreakdown]
    winners: frozenset[int]


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


def _info_lines(view: _View) -> list[tuple[str, int]]:
    """(text, seat whose colour tags the line or -1) of the game information."""
    state = view.state
    head = f"Round {state.round}" + (" (final)" if state.final_round else "")
    lines: list[tuple[str, int]] = []
    if state.is_terminal:
        lines.append((head + " - GAME OVER", -1))
        names = ", ".join(view.labels[s] for s in sorted(view.winners))
        lines.append(("Winner: " + names, -1))
    else:
        lines.append((head + f" - {state.phase.name.replace('_', ' ').lower()}", -1))
        seat = state.current_seat
        if seat is not None:
            lines.append(("To act: " + view.labels[seat], seat))
    lines.append((f"Scenario: {_scenario_title(state)}", -1))
    lines.append((f"Cows in supply: {state.supply}", -1))
    lines.append((f"Plot pile: {len(state.pile)}   Partner stack: {len(state.stack)}", -1))
    return lines


def _info_box(view: _View) -> _Box:
    lines = _info_lines(view)

    def draw(pen: _Pen, x: float, y: float) -> None:
        pen.text(x, y, "MOON RIVER", _INK, _TITLE)
        for i, (text, seat) in enumerate(lines):
            ty = y + 20 + i * 14
            tx = x
            if seat >= 0:
                pen.rect((x, ty + 1, x + 8, ty + 10), fill=_seat_rgb(seat), outline=_BLACK)
                tx += 12
            pen.text(tx, ty, pen.fit(text, _FONT, _INFO_W - (tx - x)), _INK, _FONT)

    return _Box(_INFO_W, 20 + 14 * len(lines), draw)


def _saloon_box(view: _View) -> _Box:
    saloon = view.state.saloon
    step = 2 * _TOKEN_R + 4

    def draw(pen: _Pen, x: float, y: float) -> None:
        pen.text(x, y, "Saloon", _INK, _FONT)
        for i, tok in enumerate(saloon):
            cx, cy = x + _TOKEN_R + i * step, y + 14 + _FACE / 2
            if tok >= 0:
                _draw_partner(pen, cx, cy, _TOKEN_R, 2 * tok)
            else:
                pen.disc(cx, cy, _TOKEN_R, _EMPTY, _GRID)

    return _Box(len(saloon) * step, _GROUP_H, draw)


def _column_box(view: _View, now: bool) -> _Box:
    state = view.state
    col = state.cur_col if now else state.next_col
    claim = state.cur_claim if now else state.next_claim
    step = _FACE + 4

    def draw(pen: _Pen, x: float, y: float) -> None:
        pen.text(x, y, "Column now" if now else "Column next", _INK, _FONT)
        top = y + 14
        for i, (kind, seat) in enumerate(zip(col, claim, strict=True)):
            fx = x + i * step
            if kind < 0:
                pen.rect((fx, top, fx + _FACE, top + _FACE), fill=_EMPTY, outline=_GRID)
                pen.line([(fx + 4, top + _FACE - 4), (fx + _FACE - 4, top + 4)], _GRID)
            else:
                _draw_face(pen, fx, top, _FACE, _face(state, kind), back=True)
            if seat >= 0:  # the claiming ranchero
                cx, cy = fx + _FACE / 2, top + _FACE + 8
                pen.disc(cx, cy, 7, _seat_rgb(seat), _BLACK)
                pen.center_text(cx, cy, str(seat), _WHITE, _SMALL)

    return _Box(len(col) * step, _GROUP_H, draw)


def _bonus_box(view: _View) -> _Box:
    state = view.state
    tiles = state.config.components.bonus_tiles
    nk = state.kind_table.num_plot_kinds
    step = 2 * _FACE + 10

    def draw(pen: _Pen, x: float, y: float) -> None:
        pen.text(x, y, "Bonus tiles", _INK, _FONT)
        top = y + 14
        for t, free in enumerate(state.tiles):
            fx = x + t * step
            for side in range(2):
                sx = fx + side * _FACE
                if free:
                    _draw_face(pen, sx, top, _FACE, _face(state, nk + 2 * t + side))
                else:
                    pen.rect((sx, top, sx + _FACE, top + _FACE), fill=_EMPTY, outline=_GRID)
            pen.center_text(fx + _FACE, top + _FACE + 8, tiles[t].name, _INK, _SMALL)

    return _Box(len(tiles) * step, _GROUP_H, draw)


def _legend_band(pen: _Pen, limit: float) -> _Box:
    """The legend as one wrapped band of (icon, label) items."""
    items = [
        _Box(16 + pen.text_size(label, _SMALL + 1)[0], 13, _legend_item(icon, label))
        for label, icon in _legend_items()
    ]
    items.append(_Box(pen.text_size(_SCORE_NOTE, _SMALL + 1)[0], 13, _legend_note(_SCORE_NOTE)))
    placed, height = _flow(items, limit - 50)

    def draw(pen: _Pen, x: float, y: float) -> None:
        pen.text(x, y, "Legend", _INK, _FONT)
        for item, (ix, iy) in zip(items, placed, strict=True):
            item.draw(pen, x + 50 + ix, y + iy)

    return _Box(limit, height, draw)


_SCORE_NOTE = "Score: T territories, R resources, P partners, S scenario"


def _legend_note(text: str) -> Callable[[_Pen, float, float], None]:
    def draw(pen: _Pen, x: float, y: float) -> None:
        pen.text(x, y + 1, text, _MUTED, _SMALL + 1)

    return draw


def _legend_columns(pen: _Pen, width: float) -> _Box:
    """The legend in two columns (for the side panel)."""
    items = _legend_items()
    half = -(-len(items) // 2)
    col_w = width / 2

    def draw(pen: _Pen, x: float, y: float) -> None:
        pen.text(x, y, "Legend", _INK, _FONT)
        for i, (label, icon) in enumerate(items):
            _legend_item(icon, label)(pen, x + (i // half) * col_w, y + 16 + (i % half) * 15)
        note_y = y + 20 + half * 15
        pen.text(x, note_y, "Score: T territories, R resources,", _MUTED, _SMALL + 1)
        pen.text(x, note_y + 14, "P partners, S scenario", _MUTED, _SMALL + 1)

    return _Box(width, 20 + half * 15 + 28, draw)


def _legend_item(
    icon: Callable[[_Pen, float, float], None], label: str
) -> Callable[[_Pen, float, float], None]:
    def draw(pen: _Pen, x: float, y: float) -> None:
        icon(pen, x, y)
        pen.text(x + 16, y + 1, label, _INK, _SMALL + 1)

    return draw


def _seat_rgb(seat: int) -> RGB:
    return SEAT_RGB[seat % len(SEAT_RGB)]


def _draw_ranch(pen: _Pen, view: _View, seat: int, x0: float, y0: float) -> None:
    state = view.state
    grid = state.grid
    ranch_w, ranch_h = _ranch_size(grid.rows)
    acting = seat == state.current_seat
    pen.rect(
        (x0, y0, x0 + ranch_w, y0 + ranch_h),
        fill=_ACTING_BG if acting else _PANEL,
        outline=_ACTING_EDGE if acting else _PANEL_EDGE,
        width=3 if acting else 1,
    )
    x = x0 + _RANCH_PAD
    y = y0 + _RANCH_PAD
    # Label: seat colour tag, name, board; the score so far by category.
    pen.rect((x, y + 1, x + 8, y + 11), fill=_seat_rgb(seat), outline=_BLACK)
    title = ("> " if acting else "") + f"{view.labels[seat]} - {state.boards[seat]}"
    room = ranch_w - 2 * _RANCH_PAD - 12 - (80 if seat in view.winners else 0)
    w = pen.text(x + 12, y + 1, pen.fit(title, _FONT + 1, room), _INK, _FONT + 1)
    if seat in view.winners:
        pen.polygon(_star_points(x + 12 + w + 9, y + 6, 6), fill=_STAR, outline=_BLACK)
        pen.text(x + 12 + w + 18, y + 1, "WINNER", (170, 90, 0), _FONT)
    sc = view.scores[seat]
    sx = x + pen.text(x, y + 17, f"{sc.total} pts", _INK, _FONT) + 10
    for part in (
        f"T{sc.territories}",
        f"R{sc.resources}",
        f"P{sc.partners}",
        f"S{sc.scenario}",
    ):
        sx += pen.text(sx, y + 17, part, _MUTED, _FONT) + 8
    # The grid, far row at the top, row 1 (the river) at the bottom.
    gx = x + _ROW_LABEL
    gy = y + _LABEL_H + _LETTERS_H
    for col, letter in enumerate("abcde"):
        pen.center_text(gx + col * _CELL + _CELL / 2, gy - _LETTERS_H / 2, letter, _MUTED, _SMALL)

    def corner(cell: int) -> tuple[float, float]:
        row, col = divmod(cell, grid.cols)
        return gx + col * _CELL, gy + (grid.rows - 1 - row) * _CELL

    for row in range(grid.rows):
        cy = gy + (grid.rows - 1 - row) * _CELL
        pen.center_text(x + _ROW_LABEL / 2, cy + _CELL / 2, str(row + 1), _MUTED, _SMALL)
    for cell in range(grid.cells):
        cx, cy = corner(cell)
        kind = state.kinds[seat][cell]
        if kind < 0:
            pen.rect((cx, cy, cx + _CELL, cy + _CELL), fill=_EMPTY, outline=_EMPTY_EDGE)
        else:
            face = _face(state, kind)
            partner = state.partners[seat][cell]
            _draw_face(pen, cx, cy, _CELL, face, cows=state.cows[seat][cell], partner=partner)
    if acting:
        for cell in sorted(_active_piece(state)):
            cx, cy = corner(cell)
            pen.rect((cx, cy, cx + _CELL, cy + _CELL), outline=_PIECE, width=3)
    # The river under row 1, with the board's bridges as planks across it.
    ry = gy + grid.rows * _CELL + 1
    pen.rect((gx, ry, gx + 5 * _CELL, ry + _RIVER_H), fill=_RIVER)
    for i in range(10):
        wx = gx + 4 + i * 16
        pen.line([(wx, ry + 6), (wx + 4, ry + 4), (wx + 8, ry + 6)], _RIVER_WAVE)
    plank = _CELL - 14
    for col in range(grid.cols):
        if state.bridges[seat] >> col & 1:
            bx = gx + col * _CELL + 7
            pen.rect((bx, ry - 1, bx + plank, ry + _RIVER_H + 1), fill=_PLANK, outline=_PLANK_EDGE)
            for k in (1, 2):
                px = bx + k * plank / 3
                pen.line([(px, ry), (px, ry + _RIVER_H)], _PLANK_EDGE)
    # The reserve: a box per storage slot; a plot beyond the slots (just collected, must be
    # placed) waits beside them with a red edge.
    sy = ry + _RIVER_H + 4
    held = state.held[seat]
    slots = state.slots[seat]
    pen.text(x, sy + 1, f"Reserve {len(held)}/{slots}", _INK, _SMALL)
    ty = sy + 13
    for i in range(max(slots, len(held))):
        tx = x + i * (_MINI + 4)
        if i < len(held):
            _draw_face(pen, tx, ty, _MINI, _face(state, held[i]))
            if i >= slots:
                box = (tx - 1, ty - 1, tx + _MINI + 1, ty + _MINI + 1)
                pen.rect(box, outline=(220, 0, 0), width=2)
        else:
            pen.rect((tx, ty, tx + _MINI, ty + _MINI), fill=_EMPTY, outline=_GRID)


def _draw_bridge_icon(pen: _Pen, x: float, y: float) -> None:
    pen.rect((x - 1, y + 3, x + 13, y + 9), fill=_RIVER)
    pen.rect((x + 3, y + 1, x + 9, y + 11), fill=_PLANK, outline=_PLANK_EDGE)


def _draw_swatch(land: int) -> Callable[[_Pen, float, float], None]:
    def draw(pen: _Pen, x: float, y: float) -> None:
        color = LANDSCAPE_RGB[land]
        pen.rect((x, y, x + 12, y + 12), fill=color, outline=_darker(color))

    return draw


def _draw_token_icon(code: int) -> Callable[[_Pen, float, float], None]:
    return lambda pen, x, y: _draw_partner(pen, x + 6, y + 6, 6, code)


def _draw_resource_icon(face: _Face) -> Callable[[_Pen, float, float], None]:
    return lambda pen, x, y: _draw_resource(pen, x, y + 12, face, 5)


def _legend_items() -> list[tuple[str, Callable[[_Pen, float, float], None]]]:
    """(label, icon drawer) pairs; an icon fits a 12 x 12 box at (x, y)."""
    items = [(land.name.lower(), _draw_swatch(int(land))) for land in Landscape]
    items += [
        ("cow", lambda pen, x, y: pen.disc(x + 6, y + 6, 4, _WHITE)),
        ("gold", _draw_resource_icon(_Face(0, 1, 0, 0, 0, False, False, 0, False))),
        ("beaver", _draw_resource_icon(_Face(3, 0, 1, 0, 0, False, False, 0, False))),
        ("corn (count)", _draw_resource_icon(_Face(4, 0, 0, 3, 0, False, False, 0, False))),
        ("skull", lambda pen, x, y: _draw_skull(pen, x + 6, y + 6, 5)),
        ("circle", lambda pen, x, y: _draw_circle_mark(pen, x + 6, y + 6, 5)),
    ]
    items += [(PARTNER_NAMES[k].lower(), _draw_token_icon(2 * k)) for k in PartnerKind]
    items += [
        ("cowboy side", _draw_token_icon(1)),
        ("bridge", _draw_bridge_icon),
        ("bonus tile", lambda pen, x, y: pen.polygon(_star_points(x + 6, y + 6, 6), _STAR, _BLACK)),
        (
            "piece in play",
            lambda pen, x, y: pen.rect((x, y, x + 12, y + 12), outline=_PIECE, width=2),
        ),
    ]
    return items


def render_rgb(
    state: GameState, *, scale: int = 1, seat_names: Sequence[str] | None = None
) -> NDArray[np.uint8]:
    """A picture of the whole (public) table.

    With 3-4 players the ranches stand in a row above the game information, the saloon,
    the columns and a legend band; with 2 players (tall 5 x 10 ranches) the information and
    the legend fill a side panel.

    Args:
        state: the game state.
        scale: integer zoom factor (every length and font size is multiplied by it).
        seat_names: a label per seat (default ``"seat 0"``, ...).

    Returns:
        A ``uint8`` array ``(H, W, 3)``: about 870 x 450 pixels for 4 players at scale 1
        (2 players: about 650 x 630).
        The same state always gives the same frame.
    """
    from PIL import Image

    if isinstance(scale, bool) or not isinstance(scale, int) or scale < 1:
        raise ValueError(f"scale: expected a positive integer, got {scale!r}")
    scores = state.scores()
    winners = frozenset(state.winners()) if state.is_terminal else frozenset()
    view = _View(state, _seat_labels(state, seat_names), scores, winners)
    n = state.config.num_players
    ranch_w, ranch_h = _ranch_size(state.grid.rows)
    area_w = n * ranch_w + (n - 1) * _RANCH_GAP
    # Measure text with a pen of the final scale, then lay out and draw.
    probe = _Pen(Image.new("RGB", (1, 1)), scale)
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
    pen = _Pen(image, scale)
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


# ----------------------------------------------------------------------------------- human

_figure: Any = None
_artist: Any = None

_NON_INTERACTIVE = frozenset({"agg", "pdf", "ps", "svg", "pgf", "cairo", "template"})


def _backend_name(matplotlib: Any) -> str:
    """The chosen matplotlib backend, lower case, "" if none is chosen yet (never picks one:
    picking would import a GUI toolkit)."""
    try:
        name = matplotlib.get_backend(auto_select=False)  # matplotlib >= 3.10
    except TypeError:
        getter = getattr(matplotlib.rcParams, "_get_backend_or_none", None)
        name = getter() if getter is not None else matplotlib.rcParams.get("backend")
    return str(name or "").lower()


def can_display() -> bool:
    """Whether :func:`show_human` can open a window: matplotlib with an interactive backend
    and, on Linux, a display. Never imports a GUI toolkit."""
    if sys.platform.startswith("linux") and not (
        os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
    ):
        return False
    try:
        import matplotlib
    except ImportError:
        return False
    backend = _backend_name(matplotlib)
    if not backend:  # not chosen yet: matplotlib would pick one; a display exists
        return True
    return _interactive(backend)


def _interactive(backend: str) -> bool:
    if backend.startswith("module://"):
        return "inline" in backend or "ipympl" in backend
    return backend not in _NON_INTERACTIVE


def show_human(frame: NDArray[np.uint8], text: str | None = None) -> bool:
    """Show ``frame`` in a matplotlib window (updated in place, never blocking).

    Without a usable display (headless, no matplotlib, a non-interactive backend) print
    ``text`` instead (the ANSI view; pass ``render_ansi(state)``).

    Returns:
        True if the frame was shown in a window, False if the text was printed.
    """
    global _figure, _artist
    if can_display():
        try:
            import matplotlib.pyplot as plt

            if not _interactive(str(plt.get_backend()).lower()):
                raise RuntimeError("matplotlib fell back to a non-interactive backend")
            if _figure is None or not plt.fignum_exists(_figure.number):
                plt.ion()
                _figure, ax = plt.subplots(num="Moon River")
                ax.set_axis_off()
                _artist = ax.imshow(frame)
                _figure.tight_layout()
            else:
                _artist.set_data(frame)
                _artist.set_extent((-0.5, frame.shape[1] - 0.5, frame.shape[0] - 0.5, -0.5))
            _figure.canvas.draw_idle()
            plt.pause(0.001)
            return True
        except Exception:  # a broken GUI setup must not stop a game: fall back to text
            _figure = _artist = None
    if text is not None:
        print(text)
    else:
        print(f"[moonriver frame {frame.shape[1]}x{frame.shape[0]}: no display]")
    return False
