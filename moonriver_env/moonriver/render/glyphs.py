"""Pillow drawing for the picture painter: a pen in logical pixels and the small symbols.

:class:`Pen` draws in pixels at scale 1, multiplied by its ``scale``; the functions below draw
what a plot face shows (RULES.md section 1: landscape, cow symbols, gold, beavers, corn,
skulls, circles; section 6: bonus tile sides) and the partner tokens (section 3).
Pillow is imported only when a pen is made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from moonriver_env.moonriver.render.view import PARTNER_LETTERS, Face

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

BLACK: RGB = (0, 0, 0)
WHITE: RGB = (255, 255, 255)
INK: RGB = (35, 35, 35)
STAR: RGB = (255, 200, 0)
_GOLD: RGB = (255, 204, 0)
_GOLD_EDGE: RGB = (130, 90, 0)
_BEAVER: RGB = (120, 75, 40)
_CORN: RGB = (250, 150, 0)
_HORN: RGB = (225, 215, 190)
_MUZZLE: RGB = (240, 170, 170)
RING: RGB = (20, 40, 120)  # circle symbols: dark blue, apart from every landscape

# Font sizes, in pixels at scale 1.
FONT = 11
SMALL = 9


class Pen:
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
        self,
        x: float,
        y: float,
        r: float,
        fill: RGB | None,
        outline: RGB | None = BLACK,
        width: int = 1,
    ) -> None:
        self.draw.ellipse(
            self._box((x - r, y - r, x + r, y + r)),
            fill=fill,
            outline=outline,
            width=width * self.s,
        )

    def polygon(self, points: Sequence[tuple[float, float]], fill: RGB, outline: RGB) -> None:
        pts = [(x * self.s, y * self.s) for x, y in points]
        self.draw.polygon(pts, fill=fill, outline=outline)

    def line(self, points: Sequence[tuple[float, float]], fill: RGB, width: int = 1) -> None:
        pts = [(x * self.s, y * self.s) for x, y in points]
        self.draw.line(pts, fill=fill, width=width * self.s)

    def text_size(self, text: str, size: int = FONT) -> tuple[float, float]:
        box = self.draw.textbbox((0, 0), text, font=self.font(size))
        return (box[2] - box[0]) / self.s, (box[3] - box[1]) / self.s

    def fit(self, text: str, size: int, width: float) -> str:
        """``text``, cut short with ``...`` if wider than ``width``."""
        if self.text_size(text, size)[0] <= width:
            return text
        while text and self.text_size(text + "...", size)[0] > width:
            text = text[:-1]
        return text + "..."

    def text(self, x: float, y: float, text: str, fill: RGB = INK, size: int = FONT) -> float:
        """Draw ``text`` with the top of its capitals at ``y`` (so texts of one size share a
        baseline) and its ink starting at ``x``; return its width."""
        font = self.font(size)
        box = self.draw.textbbox((0, 0), text, font=font)
        cap_top = self.draw.textbbox((0, 0), "H", font=font)[1]
        self.draw.text((x * self.s - box[0], y * self.s - cap_top), text, font=font, fill=fill)
        return (box[2] - box[0]) / self.s

    def center_text(self, x: float, y: float, text: str, fill: RGB = INK, size: int = FONT) -> None:
        """Draw ``text`` with its ink box centred on (x, y)."""
        font = self.font(size)
        box = self.draw.textbbox((0, 0), text, font=font)
        w, h = box[2] - box[0], box[3] - box[1]
        pos = (x * self.s - box[0] - w / 2, y * self.s - box[1] - h / 2)
        self.draw.text(pos, text, font=font, fill=fill)


def darker(color: RGB, f: float = 0.6) -> RGB:
    return (int(color[0] * f), int(color[1] * f), int(color[2] * f))


# --- small symbols -------------------------------------------------------------------------


def glyph_radius(size: float) -> float:
    """The radius of the small symbols on a square of ``size`` pixels (a ranch cell, a
    column plot, a reserve plot): proportional, so they read at every size."""
    return max(2.5, size * 0.14)


def draw_cow(pen: Pen, x: float, y: float, r: float) -> None:
    """A cow centred at (x, y): a white head with a black patch, two horns and a muzzle,
    filled, so it never looks like the hollow ring of a circle symbol."""
    horn = r * 0.55
    for side in (-1, 1):
        tip = (x + side * (r + horn * 0.5), y - r * 0.95)
        pen.polygon(
            [(x + side * r * 0.35, y - r * 0.55), tip, (x + side * r * 0.85, y - r * 0.2)],
            fill=_HORN,
            outline=BLACK,
        )
    pen.rounded((x - r * 0.8, y - r * 0.65, x + r * 0.8, y + r * 0.85), r * 0.45, WHITE, BLACK)
    pen.disc(x - r * 0.3, y - r * 0.15, r * 0.32, BLACK, None)  # a patch
    pen.rounded((x - r * 0.55, y + r * 0.35, x + r * 0.55, y + r * 0.85), r * 0.25, _MUZZLE)


def draw_cows(pen: Pen, x: float, y: float, n: int, r: float) -> None:
    """``n`` cows from the top-left corner (x, y): one or two heads, or one head and the
    count."""
    half = 1.3 * r  # half the width of a head with its horns
    step = 2 * half + 1
    cy = y + r
    if n <= 2:
        for i in range(n):
            draw_cow(pen, x + half + i * step, cy, r)
        return
    draw_cow(pen, x + half, cy, r)
    label = f"x{n}"
    w, h = pen.text_size(label, SMALL)
    lx = x + 2 * half + 1
    pen.rounded((lx, cy - h / 2 - 2, lx + w + 4, cy + h / 2 + 2), 2, WHITE, BLACK)
    pen.text(lx + 2, cy - h / 2, label, BLACK, SMALL)


def draw_skull(pen: Pen, x: float, y: float, r: float) -> None:
    pen.disc(x, y - r * 0.15, r, WHITE)
    pen.rect((x - r * 0.55, y + r * 0.4, x + r * 0.55, y + r * 1.0), fill=WHITE, outline=BLACK)
    e = max(r * 0.28, 0.8)
    pen.disc(x - r * 0.38, y - r * 0.15, e, BLACK, None)
    pen.disc(x + r * 0.38, y - r * 0.15, e, BLACK, None)


def draw_circle_mark(pen: Pen, x: float, y: float, r: float) -> None:
    """A circle symbol: a thick dark ring, hollow (the landscape shows through), unlike the
    filled white head of a cow."""
    width = max(2, round(r * 0.4))
    pen.disc(x, y, r + 1, None, WHITE, width=width + 2)  # a halo: visible on dark forest too
    pen.disc(x, y, r, None, RING, width=width)


def star_points(x: float, y: float, r: float) -> list[tuple[float, float]]:
    pts = []
    for i in range(10):
        rad = r if i % 2 == 0 else r * 0.45
        ang = -np.pi / 2 + i * np.pi / 5
        pts.append((x + rad * float(np.cos(ang)), y + rad * float(np.sin(ang))))
    return pts


def draw_resource(pen: Pen, x: float, y: float, face: Face, r: float) -> None:
    """The resource symbols of a face, at the bottom-left corner (x, y = bottom-left)."""
    cy = y - r - 1
    cx = x + r + 1
    if face.gold:
        pen.disc(cx, cy, r, _GOLD, _GOLD_EDGE)
        pen.center_text(cx, cy, "$", _GOLD_EDGE, SMALL)
    elif face.beaver:
        pen.disc(cx, cy, r, _BEAVER, BLACK)
        pen.center_text(cx, cy, "B", WHITE, SMALL)
    elif face.corn:
        label = str(face.corn)
        w, h = pen.text_size(label, SMALL)
        pen.rounded((x + 1, cy - r, x + w + 6, cy + r), 2, fill=_CORN, outline=BLACK)
        pen.center_text(x + 3.5 + w / 2, cy, label, BLACK, SMALL)


def draw_partner(pen: Pen, x: float, y: float, r: float, code: int) -> None:
    kind, cowboy = divmod(code, 2)
    if cowboy:
        pen.disc(x, y, r, (222, 190, 140), BLACK)
        # A cowboy hat: brim and crown.
        pen.rounded((x - r * 0.8, y + r * 0.05, x + r * 0.8, y + r * 0.35), r * 0.15, fill=INK)
        pen.polygon(
            [
                (x - r * 0.45, y + r * 0.1),
                (x - r * 0.35, y - r * 0.55),
                (x, y - r * 0.4),
                (x + r * 0.35, y - r * 0.55),
                (x + r * 0.45, y + r * 0.1),
            ],
            fill=INK,
            outline=INK,
        )
        return
    pen.disc(x, y, r, _PARTNER_RGB[kind], BLACK)
    pen.center_text(x, y, PARTNER_LETTERS[kind].upper(), _PARTNER_TEXT[kind], SMALL)


def draw_face(
    pen: Pen,
    x: float,
    y: float,
    size: float,
    face: Face,
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
    pen.rect((x, y, x + size, y + size), fill=color, outline=darker(color))
    r = glyph_radius(size)
    n_cows = face.cows if cows is None else cows
    if n_cows:
        draw_cows(pen, x + 2, y + 2, n_cows, r)
    if face.bonus:
        pen.rect((x + 1, y + 1, x + size - 1, y + size - 1), outline=STAR, width=2)
        pen.polygon(star_points(x + size - r - 3, y + r + 3, r + 2), fill=STAR, outline=BLACK)
    elif face.skull:
        draw_skull(pen, x + size - r - 2, y + r + 2, r)
    elif face.circle and partner < 0:
        draw_circle_mark(pen, x + size - r - 2, y + r + 2, r)
    draw_resource(pen, x + 1, y + size - 1, face, r + 1)
    if partner >= 0:
        pr = size * 0.26
        draw_partner(pen, x + size - pr - 2, y + size - pr - 2, pr, partner)
    if back:
        label = str(face.back)
        w, h = pen.text_size(label, SMALL)
        pen.rect(
            (x + size - w - 5, y + size - h - 5, x + size - 1, y + size - 1),
            fill=INK,
            outline=INK,
        )
        pen.text(x + size - w - 3, y + size - h - 3, label, WHITE, SMALL)
