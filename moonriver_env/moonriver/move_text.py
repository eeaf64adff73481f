"""Moves typed by a person (the play CLI): reading the move words, saying why a move is not legal
and what is, and listing the legal moves compactly.

The move words (:func:`move_words`, :func:`read_move_words`) are the text forms of
:mod:`moonriver_env.moonriver.rules.actions` except where the screen numbers things its own way:
a claim is ``claim N`` with ``N`` the number the column line shows beside the plot (1 = the
lowest), where the engine's ``claim`` counts positions from 0; a recruit is ``recruit s4 cowboy on
b1``: the saloon space as the saloon line numbers it (``s1``..``s5``, or ``saloon 4``) and the
board cell of the plot whose circle takes the partner, where the engine writes ``recruit c0 s3
cowboy`` (``c0``, a circle, reads like board cell c0; its ``s3`` is the fourth space). The
engine's recruit spelling is refused with a message giving the new one. A pair of held plots may
be typed in either order: ``place 1+0 b1 N`` (plot 1 on b1, plot 0 north of it) is the domino the engine
names ``place 0+1 b2 S``, and ``discard 1+0`` is ``discard 0+1``. Illegal placements are
explained by the connection rules (RULES.md section 3).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from moonriver_env.family.geometry import DIRECTIONS
from moonriver_env.moonriver.rules import GameState
from moonriver_env.moonriver.rules.actions import SIDES, Place
from moonriver_env.moonriver.rules.components import Landscape

__all__ = [
    "explain_illegal",
    "format_legal_moves",
    "move_words",
    "normalise_pair",
    "parse_move",
    "read_move_words",
]

RECRUIT_FORM = "recruit sN SIDE on CELL"
"""How a recruit is typed (the module docstring)."""

# How many legal moves an explanation shows as examples.
EXAMPLES = 3


def format_legal_moves(state: GameState, width: int = 100) -> str:
    """The legal moves of ``state`` in text form, grouped compactly by kind.

    Moves are grouped by their first two words (``place 0+2``); within a group, the words in
    between are listed with the alternatives of the last word joined by ``/``
    (``place 0+2: b1 N/E, c1 N``); a group with nothing in between joins the alternatives
    directly (``claim 0/1/2``). A group of one move is printed in full.
    """
    groups: dict[str, dict[str, list[str]]] = {}
    singles: dict[str, str] = {}
    for a in state.legal_action_list():
        text = move_words(state, a)
        words = text.split()
        key = " ".join(words[:2]) if len(words) >= 3 else words[0]
        middle = " ".join(words[2:-1]) if len(words) >= 3 else ""
        last = words[-1] if len(words) >= 2 else ""
        groups.setdefault(key, {}).setdefault(middle, []).append(last)
        singles[key] = text
    lines: list[str] = []
    for key, subs in groups.items():
        count = sum(len(v) for v in subs.values())
        if count == 1:
            lines.append(singles[key])
            continue
        if list(subs) == [""]:  # no words in between: 'claim 0/1/2', 'steal +1 c3/c7'
            lines.extend(_wrap(f"{key} ", ["/".join(subs[""])], width))
            continue
        items = [(f"{m} " if m else "") + "/".join(v) for m, v in subs.items()]
        lines.extend(_wrap(f"{key}: ", items, width))
    return "\n".join("  " + line for line in lines)


def _wrap(head: str, items: Sequence[str], width: int) -> list[str]:
    out: list[str] = []
    line = head
    indent = " " * len(head)
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if line.strip() and len(line) + len(piece) + 1 > width and line != head:
            out.append(line.rstrip())
            line = indent
        line += piece + " "
    out.append(line.rstrip())
    return out


def _circle_cell(state: GameState, circle: int) -> str:
    """The board cell of the plot whose circle is ``circle`` (of the piece being resolved)."""
    if circle < len(state.piece):
        return state.grid.cell_name(state.piece[circle])
    return f"plot {circle + 1}"  # no piece now (an illegal recruit explained)


def move_words(state: GameState, action: int) -> str:
    """The play screen's words for ``action`` (the module docstring): ``claim 1`` for the
    lowest plot of the column, ``recruit s4 cowboy on b1``, else the engine's text form."""
    name, index = state.layout.located[action]
    if name == "claim":
        return f"claim {index[0] + 1}"
    if name == "recruit":
        circle, slot, side = index
        return f"recruit s{slot + 1} {SIDES[side]} on {_circle_cell(state, circle)}"
    return state.action_to_string(action)


def _claim_id(state: GameState, words: list[str]) -> int:
    segment = state.layout.by_name["claim"]
    size = segment.shape[0]
    if len(words) != 2 or not words[1].isdigit():
        raise ValueError(f"write a claim as 'claim N', N from 1 to {size} as the column shows it")
    n = int(words[1])
    if not 1 <= n <= size:
        note = " (claims count from 1, as the column shows them)" if n == 0 else ""
        raise ValueError(f"claim {n}: the column numbers its plots 1 to {size}{note}")
    return int(segment.id(n - 1))


def _recruit_id(state: GameState, words: list[str]) -> int:
    saloon = state.layout.by_name["recruit"].shape[1]
    form = f"'{RECRUIT_FORM}' (e.g. 'recruit s4 cowboy on b1')"
    if len(words) == 4 and re.fullmatch(r"c\d+", words[1]) and re.fullmatch(r"s\d+", words[2]):
        raise ValueError(
            f"'{' '.join(words)}' is the old spelling: write {form}, the saloon space as the "
            "saloon line numbers it and the board cell of the plot whose circle takes the partner"
        )
    rest = words[1:]
    if rest[:1] == ["saloon"] and len(rest) > 1:
        rest = [f"s{rest[1]}", *rest[2:]]
    if len(rest) == 4 and rest[2] == "on":
        rest = [rest[0], rest[1], rest[3]]
    match = re.fullmatch(r"s(\d+)", rest[0]) if rest else None
    if len(rest) != 3 or match is None or rest[1] not in SIDES:
        raise ValueError(f"write a recruit as {form}; sides: {', '.join(SIDES)}")
    space = int(match.group(1))
    if not 1 <= space <= saloon:
        raise ValueError(f"s{space}: the saloon numbers its spaces 1 to {saloon}")
    cells = [state.grid.cell_name(c) for c in state.piece]
    if rest[2] not in cells:
        where = f"its plots are on {' and '.join(cells)}" if cells else "no piece is placed now"
        raise ValueError(f"{rest[2]}: not a plot of the piece being resolved ({where})")
    segment = state.layout.by_name["recruit"]
    return int(segment.id(cells.index(rest[2]), space - 1, SIDES.index(rest[1])))


def read_move_words(state: GameState, text: str) -> int:
    """The action id of the move words ``text`` (:func:`move_words`; any case, a pair in either
    order); ``ValueError`` saying what is wrong and how to write it."""
    words = text.strip().lower().split()
    if words[:1] == ["claim"]:
        return _claim_id(state, words)
    if words[:1] == ["recruit"]:
        return _recruit_id(state, words)
    return state.string_to_action(normalise_pair(state, text))


def normalise_pair(state: GameState, text: str) -> str:
    """``text`` with a pair typed high plot first (``place 1+0 b1 N``, ``discard 1+0``)
    rewritten to the engine's form (``place 0+1 b2 S``, ``discard 0+1``); other text as is.

    ``ValueError`` if the reversed domino's second cell is off the ranch."""
    words = text.split()
    if len(words) < 2 or words[0].lower() not in ("place", "discard"):
        return text
    first, plus, second = words[1].partition("+")
    if not (plus and first.isdigit() and second.isdigit() and int(first) > int(second)):
        return text
    words[1] = f"{second}+{first}"
    if words[0].lower() == "place" and len(words) == 4:
        g = state.grid
        cell = g.parse_cell(words[2].lower())
        d = _direction(words[3])
        other = g.step[d][cell]
        if other < 0:
            raise ValueError(
                f"plot {second} would go off the ranch: no cell {DIRECTIONS[d]} of {words[2]}"
            )
        words[2] = g.cell_name(other)
        words[3] = DIRECTIONS[(d + 2) % 4]
    return " ".join(words)


def _direction(text: str) -> int:
    up = text.upper()
    if up not in DIRECTIONS:
        raise ValueError(f"not a direction: {text!r} (expected one of {' '.join(DIRECTIONS)})")
    return DIRECTIONS.index(up)


def parse_move(state: GameState, text: str) -> tuple[int | None, str | None]:
    """Read a move typed by a person: ``(action, None)`` if legal, else ``(None, message)``.

    Accepts the move words (:func:`read_move_words`) or an action id. The message
    says whether the text could not be read (a mistyped move) or why the move is not legal
    now, with the number of legal moves and a few of them.
    """
    s = text.strip()
    n = state.config.num_actions
    if s.lstrip("-").isdigit():
        a = int(s)
        if not 0 <= a < n:
            return None, f"no action has id {a}: ids are 0..{n - 1}. Type 'moves' for the list."
    else:
        try:
            a = read_move_words(state, s)
        except ValueError as exc:
            return None, (
                f"mistyped move: {exc}. Type a move as listed (e.g. "
                f"'{move_words(state, state.legal_action_list()[0])}'), 'moves' or 'help'."
            )
    if not state.is_legal(a):
        return None, f"illegal move: {explain_illegal(state, a)}. {legal_summary(state)}"
    return a, None


def legal_summary(state: GameState) -> str:
    """``"Legal now: 12 moves, e.g. 'place 0+1 a1 N', 'stop'. Type 'moves' to list them."``"""
    legal = state.legal_action_list()
    shown = ", ".join(f"'{move_words(state, a)}'" for a in _spread(legal, EXAMPLES))
    count = f"{len(legal)} moves, e.g." if len(legal) > EXAMPLES else f"{len(legal)} move(s):"
    return f"Legal now: {count} {shown}. Type 'moves' to list them."


def _spread(items: Sequence[int], k: int) -> list[int]:
    """At most ``k`` items spread over ``items`` (so the examples show different kinds)."""
    if len(items) <= k:
        return list(items)
    return [items[i * (len(items) - 1) // (k - 1)] for i in range(k)]


def explain_illegal(state: GameState, action: int) -> str:
    """Why ``action`` (an id of this config) is not legal in ``state``: the wrong kind of move
    for the phase, or for a placement the connection rule it breaks (RULES.md section 3)."""
    lay = state.layout
    text = move_words(state, action)
    if state.is_terminal:
        return f"'{text}': the game is over"
    kind = lay.segment_of(action)
    kinds = dict.fromkeys(lay.segment_of(a) for a in state.legal_action_list())
    if kind not in kinds:
        return (
            f"'{text}' is not a move of this phase: the phase is {state.phase.name}, "
            f"the moves now are {', '.join(kinds)}"
        )
    move = lay.decode(action)
    if isinstance(move, Place):
        why = _placement_problem(state, move)
        if why:
            return f"'{text}': {why}"
    return f"'{text}' is not among the legal moves of phase {state.phase.name}"


def _placement_problem(state: GameState, move: Place) -> str | None:
    """The connection rule a placement breaks (RULES.md section 3), or None if it is another
    reason (e.g. the domino limit)."""
    seat = state.current_seat
    assert seat is not None
    held = state.held[seat]
    if move.second >= len(held):
        return f"you hold {len(held)} plots (positions 0..{len(held) - 1})"
    g = state.grid
    cells = (move.cell, g.step[move.direction][move.cell])
    if cells[1] < 0:
        return f"plot {move.second} would go off the ranch"
    occupied = state.occ[seat]
    for cell in cells:
        if occupied >> cell & 1:
            return f"cell {g.cell_name(cell)} is already taken"
    land = state.kind_table.land
    lands = (land[held[move.first]], land[held[move.second]])
    bridges = state.bridges[seat]
    for cell, other, lnd in ((cells[0], cells[1], lands[0]), (cells[1], cells[0], lands[1])):
        if bridges >> cell & 1:
            return None
        around = g.neighbours(1 << cell) & ~(1 << other)
        if around & state.land_bb[seat][lnd]:
            return None
    names = [Landscape(lnd).name.lower() for lnd in lands]
    return (
        f"neither plot {move.first} ({names[0]}) on {g.cell_name(cells[0])} nor plot "
        f"{move.second} ({names[1]}) on {g.cell_name(cells[1])} would touch a matching "
        "landscape or a bridge (connection rules, RULES.md section 3)"
    )
