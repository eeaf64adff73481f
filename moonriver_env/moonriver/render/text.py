"""The text painter: a :class:`TableView` as compact text, and the score table.

:func:`render_ansi` prints ANSI 256-colour backgrounds per landscape (or plain letters with
``color=False``). Ranch row 1 (the river) is printed last, next to the river line, as on the
table. Cell codes are 4 characters (see :data:`ANSI_LEGEND`)::

    M2d$    landscape M (meadow), 2 cows, a Desperado (specialist side), a gold symbol
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from moonriver_env.family.geometry import COLUMN_LETTERS
from moonriver_env.moonriver.render.view import (
    COWBOY_LETTER,
    LANDSCAPE_LETTERS,
    PARTNER_LETTERS,
    PARTNER_NAMES,
    Cell,
    Column,
    Face,
    Ranch,
    TableView,
    table_view,
)

if TYPE_CHECKING:
    from moonriver_env.moonriver.rules.state import GameState

ANSI_LEGEND = (
    "legend: a cell shows landscape, cows, partner, symbol; > marks the piece being resolved",
    "  landscapes: D desert, C canyon, M meadow, F forest, K cornfield, A farm; ~ river, = bridge",
    "  partners: d desperado, t cattle thief, g gold digger, r trapper, f farmer (specialist side);"
    " W cowboy side",
    "  symbols: $ gold, b beaver, 3/5 corn, x skull, o circle, * bonus tile; c cow symbol (plots"
    " in columns and reserves)",
    "  columns: N plot (back number) @seat that claimed it (claim N); score: T territories, R resources,"
    " P partners, S scenario",
)
"""The legend lines printed under the text view."""

# 256-colour backgrounds and foregrounds per landscape.
_ANSI_BG = (223, 131, 150, 22, 220, 172)
_ANSI_FG = (16, 231, 16, 231, 16, 16)
_ANSI_RIVER = "48;5;25;38;5;231"
_ANSI_BRIDGE = "48;5;94;38;5;231"
_ANSI_ACTING = "1;7"
_ANSI_PIECE = "1;4"
_ANSI_TITLE = 28  # a ranch block is 27 characters wide; longer labels are cut
_BLOCK_GAP = 3  # spaces between ranches printed side by side


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


def _plot_code(f: Face) -> str:
    """Short description of a plot face: landscape letter, ``c`` per cow symbol, symbols."""
    text = LANDSCAPE_LETTERS[f.land] + "c" * f.cows + "$" * f.gold + "b" * f.beaver
    if f.corn:
        text += str(f.corn)
    if f.skull:
        text += "x"
    if f.circle:
        text += "o"
    return text


def _cell_code(cell: Cell) -> str:
    """The 4-character code of a ranch cell (``" .  "`` when empty)."""
    f = cell.face
    if f is None:
        return " .  "
    cows = cell.cows
    cow_char = " " if cows == 0 else (str(cows) if cows < 10 else "+")
    if cell.partner < 0:
        partner_char = " "
    else:
        pkind, cowboy = divmod(cell.partner, 2)
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


def _ranch_block(view: TableView, ranch: Ranch) -> list[_Line]:
    score = ranch.score
    lines: list[_Line] = []
    head = _Line()
    head.add("> " if ranch.acting else "  ")
    title = f"{ranch.label} [{ranch.board}]"
    if len(title) > _ANSI_TITLE:
        title = title[: _ANSI_TITLE - 3] + "..."
    head.add(title, _ANSI_ACTING if ranch.acting else "1")
    if ranch.winner:
        head.add(" WINNER", "1;33")
    lines.append(head)
    lines.append(
        _Line().add(
            f"  {score.total} pts: T{score.territories} R{score.resources} "
            f"P{score.partners} S{score.scenario}"
        )
    )
    lines.append(_Line().add("  " + "".join(f" {letter}   " for letter in COLUMN_LETTERS)))
    for row in reversed(range(view.rows)):
        line = _Line().add(f"{row + 1:>2}")
        for col in range(view.cols):
            index = row * view.cols + col
            cell = ranch.cells[index]
            in_piece = index in ranch.piece
            line.add(">" if in_piece else " ")
            style = None
            if cell.face is not None:
                style = _land_style(cell.face.land)
                if in_piece:
                    style += ";" + _ANSI_PIECE
            line.add(_cell_code(cell), style)
        lines.append(line)
    river = _Line().add("  ")
    for bridge in ranch.bridges:
        if bridge:
            river.add("~", _ANSI_RIVER).add("====", _ANSI_BRIDGE)
        else:
            river.add("~~~~~", _ANSI_RIVER)
    lines.append(river)
    reserve = _Line().add(f"  hold {len(ranch.held)}/{ranch.slots}:")
    for face in ranch.held:
        reserve.add(" ")
        reserve.add(_plot_code(face), _land_style(face.land))
    lines.append(reserve)
    return lines


def _column_line(view: TableView, title: str, column: Column) -> _Line:
    line = _Line().add(title)
    if not column.drawn:
        note = "(none: final round)" if view.final_round else "(not drawn yet)"
        return line.add(" " + note)
    for number, (face, seat) in enumerate(zip(column.plots, column.claims, strict=True), 1):
        line.add(f"  {number} ")  # the number 'claim N' takes (move_text), as the saloon's
        if face is None:
            line.add("--")
            continue
        line.add(_plot_code(face), _land_style(face.land))
        line.add(f"({face.back})")
        if seat >= 0:
            line.add(f"@{seat}", "1")
    return line


def _header_lines(view: TableView) -> list[_Line]:
    first = _Line().add("Moon River", "1")
    first.add(f"  round {view.round}" + (" (final)" if view.final_round else ""))
    if view.terminal:
        win = ", ".join(view.labels[s] for s in view.winners)
        first.add("  GAME OVER", "1").add(f"  winner: {win}")
    else:
        seat = view.to_act
        who = view.labels[seat] if seat is not None else "-"
        first.add(f"  phase {view.phase}").add("  to act: ").add(who, "1")
        if view.piece:
            first.add(f"  piece: {' '.join(view.piece_names)}")
    second = _Line().add(
        f"scenario: {view.scenario}  cows in supply: {view.supply}  "
        f"partner stack: {view.stack}  plot pile: {view.pile}"
    )
    return [first, second]


def _table_lines(view: TableView) -> list[_Line]:
    saloon = _Line().add("saloon:")
    for i, tok in enumerate(view.saloon):
        saloon.add(f"  {i + 1} " + (PARTNER_NAMES[tok] if tok >= 0 else "-"))
    lines = [saloon]
    lines.append(_column_line(view, "column now: ", view.now))
    lines.append(_column_line(view, "column next:", view.next))
    if view.num_players == 2:
        avail = [
            f"{tile.name} {tile.side_names[0]}/{tile.side_names[1]}"
            for tile in view.bonus_tiles
            if tile.free
        ]
        lines.append(_Line().add("bonus tiles: " + (", ".join(avail) if avail else "none left")))
    return lines


def _side_by_side(blocks: list[list[_Line]], width: int) -> list[_Line]:
    """The ranch blocks side by side while they fit in ``width``, else on several rows; a
    blank line before each row."""
    row: list[list[_Line]] = []
    rows: list[list[list[_Line]]] = []
    used = 0
    for block in blocks:
        w = max(line.width for line in block)
        if row and used + _BLOCK_GAP + w > width:
            rows.append(row)
            row, used = [], 0
        used += (_BLOCK_GAP if row else 0) + w
        row.append(block)
    rows.append(row)
    lines: list[_Line] = []
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
                    merged.add(" " * (widths[j] - line.width + _BLOCK_GAP))
            lines.append(merged)
    return lines


def render_ansi(
    state: GameState,
    *,
    color: bool = True,
    seat_names: Sequence[str] | None = None,
    width: int = 160,
    legend: bool = True,
) -> str:
    """A compact text view of the whole (public) table.

    Args:
        state: the game state.
        color: use ANSI 256-colour backgrounds per landscape (else plain letters only).
        seat_names: a label per seat (default ``"seat 0"``, ``"seat 1"``, ...).
        width: the widest line allowed; ranches are printed side by side while they fit,
            else on several rows.
        legend: end with :data:`ANSI_LEGEND` (the play CLI prints it once instead).

    Returns:
        The text, lines separated by ``"\\n"``, no trailing newline.
    """
    view = table_view(state, seat_names)
    lines = _header_lines(view) + _table_lines(view)
    lines += _side_by_side([_ranch_block(view, ranch) for ranch in view.ranches], width)
    if legend:
        lines.append(_Line())
        lines.extend(_Line().add(text) for text in ANSI_LEGEND)
    return "\n".join(line.render(color).rstrip() for line in lines)


def score_table(state: GameState, seat_names: Sequence[str] | None = None) -> str:
    """The score breakdown of every seat as a plain text table (section 5): territories,
    resources, partners, scenario, total and the tie-break keys; ``*`` marks the winners
    once the game is over."""
    view = table_view(state, seat_names)
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
    for ranch in view.ranches:
        sc = ranch.score
        rows.append(
            (
                ranch.label,
                ranch.board,
                str(sc.territories),
                str(sc.resources),
                str(sc.partners),
                str(sc.scenario),
                str(sc.total),
                str(sc.largest_territory),
                str(sc.cows),
                "*" if ranch.winner else "",
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
