"""The seats' colours, the same in every game's pictures and replays: one home, so a seat
wears one colour whichever game it plays (Okabe-Ito colours, told apart by colour-blind
readers; a fifth seat wears the first colour again)."""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["SEAT_RGB", "hex_colour", "seat_hex", "seat_rgb"]

SEAT_RGB: tuple[tuple[int, int, int], ...] = (
    (213, 94, 0),
    (0, 114, 178),
    (0, 158, 115),
    (204, 121, 167),
)
"""Each seat's colour as ``(red, green, blue)``, seat 0 first."""


def seat_rgb(seat: int) -> tuple[int, int, int]:
    """Seat ``seat``'s colour as ``(red, green, blue)``."""
    return SEAT_RGB[seat % len(SEAT_RGB)]


def hex_colour(rgb: Iterable[int]) -> str:
    """A colour ``(red, green, blue)`` as ``#rrggbb``."""
    r, g, b = (int(v) for v in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def seat_hex(seat: int) -> str:
    """Seat ``seat``'s colour as ``#rrggbb``."""
    return hex_colour(seat_rgb(seat))
