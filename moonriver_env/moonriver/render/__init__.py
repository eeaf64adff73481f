"""Pictures of a game state for people: ANSI text, RGB frames, and a human display.

Everything shown is public (RULES.md section 8): every ranch with its cows, partners and
bridges (section 1), every reserve, both columns with their claims (section 2), the saloon,
the cow supply, the stack and pile sizes, the scores so far (section 5), the scenario
(section 7) and, with 2 players, the bonus tiles still available (section 6).

- ``view.py``: :func:`table_view` describes that position as plain data (a
  :class:`TableView`); the painters below draw only from it.
- ``text.py``: :func:`render_ansi` returns a compact text view (ANSI 256-colour backgrounds,
  or plain letters with ``color=False``); ranch row 1 (the river) is printed last, next to
  the river line, as on the table. :func:`score_table` is the score breakdown as text.
- ``picture.py`` (with ``glyphs.py``): :func:`render_rgb` returns a ``uint8`` image
  ``(H, W, 3)`` drawn with Pillow (imported lazily, so the package itself needs only NumPy).
- ``svg.py``: :func:`render_svg` returns an SVG document of the table (standard library
  only); its pieces (:func:`~.svg.ranch_svg`, :func:`~.svg.table_svg`, shared symbols in
  :class:`~.svg.SvgDefs`) draw the browser replays (:mod:`agents.replay`).
- ``display.py``: :func:`show_human` puts a frame in a matplotlib window when a display
  exists, else prints the text view; it never blocks.

Cell codes of the text view (4 characters, see :data:`ANSI_LEGEND`)::

    M2d$    landscape M (meadow), 2 cows, a Desperado (specialist side), a gold symbol
"""

from moonriver_env.family.colours import SEAT_RGB
from moonriver_env.moonriver.render.display import can_display, show_human
from moonriver_env.moonriver.render.glyphs import LANDSCAPE_RGB, RGB
from moonriver_env.moonriver.render.picture import render_rgb
from moonriver_env.moonriver.render.svg import render_svg
from moonriver_env.moonriver.render.text import ANSI_LEGEND, render_ansi, score_table
from moonriver_env.moonriver.render.view import (
    COWBOY_LETTER,
    LANDSCAPE_LETTERS,
    PARTNER_LETTERS,
    PARTNER_NAMES,
    Face,
    TableView,
    table_view,
)

__all__ = [
    "ANSI_LEGEND",
    "COWBOY_LETTER",
    "LANDSCAPE_LETTERS",
    "LANDSCAPE_RGB",
    "PARTNER_LETTERS",
    "PARTNER_NAMES",
    "RGB",
    "SEAT_RGB",
    "Face",
    "TableView",
    "can_display",
    "render_ansi",
    "render_rgb",
    "render_svg",
    "score_table",
    "show_human",
    "table_view",
]
