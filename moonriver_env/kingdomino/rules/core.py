"""What the Kingdomino state machine and its checks share: the phases, the errors, the
state's fields declared once (RULES.md section 13)."""

from __future__ import annotations

from enum import IntEnum

__all__ = [
    "FIELDS",
    "NO_DOMINO",
    "NO_KING",
    "SCHEMA_VERSION",
    "IllegalActionError",
    "Phase",
    "StateFormatError",
]

NO_DOMINO = -1
NO_KING = -1
SCHEMA_VERSION = 1


class Phase(IntEnum):
    """What the seat to act decides."""

    SETUP_PICK = 0  # put a king on a domino of the first line (seed line 73-75)
    PLACE = 1  # place the domino under one's king, or discard it (seed lines 95, 102-114)
    PICK = 2  # put the king on a free domino of the next line (seed line 96)
    GAME_OVER = 3


class IllegalActionError(ValueError):
    """An action that is not legal now; the state is unchanged."""


class StateFormatError(ValueError):
    """A saved state that cannot be loaded; the message names the entry."""


# name -> how clone copies it: "value" (immutable or shared), "list" (a flat list),
# "lists" (a list of lists). Dominoes are indices 0..47 (number - 1).
FIELDS: dict[str, str] = {
    "game": "value",  # index of the game in a Dynasty (0 otherwise)
    "pile": "list",  # face-down dominoes, drawn from the end; hidden order
    "box": "list",  # set aside unseen at set-up (2-3 players), sorted; hidden
    "discarded": "list",  # put back in the box after being seen, in order; public
    "placed": "lists",  # per seat, the dominoes in its kingdom, in order
    "kingdoms": "list",  # per seat, a Kingdom (a value)
    "cur_line": "list",  # the line being played, by position; NO_DOMINO once placed
    "cur_kings": "list",  # per position, the seat whose king stands there, or NO_KING
    "next_line": "list",  # the line being picked from; empty in the last round
    "next_kings": "list",
    "phase": "value",
    "seat": "value",  # the seat to act (-1 when over)
    "setup_order": "list",  # the order of the set-up picks
    "setup_idx": "value",
    "turn_pos": "value",  # the position of cur_line being played (-1 in set-up)
    "results": "lists",  # per finished game of a Dynasty, per seat: total, largest territory
}
