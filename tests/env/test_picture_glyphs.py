"""Pictures readable at every player count (issue 12): cows and circle symbols look different,
glyphs grow with the square they sit on, and the env sets the zoom (``render_scale``)."""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from moonriver_env import moonriver_v0
from moonriver_env.moonriver.render.glyphs import (
    LANDSCAPE_RGB,
    RING,
    WHITE,
    Pen,
    draw_circle_mark,
    draw_cow,
    draw_skull,
    glyph_radius,
)
from moonriver_env.moonriver.render.picture import DEFAULT_SCALE, MAX_SCALE, check_scale

MEADOW = LANDSCAPE_RGB[2]


def _glyph(draw, scale: int = 1) -> np.ndarray:  # type: ignore[no-untyped-def]
    image = Image.new("RGB", (30 * scale, 30 * scale), MEADOW)
    draw(Pen(image, scale), 15, 15, glyph_radius(36))
    return np.asarray(image)


def _ink(pixels: np.ndarray) -> np.ndarray:
    return np.any(pixels != MEADOW, axis=2)


def test_cow_and_circle_are_different_shapes() -> None:
    cow, ring, skull = _glyph(draw_cow), _glyph(draw_circle_mark), _glyph(draw_skull)
    # the cow is filled (its middle is drawn), the circle is a hollow ring (the landscape
    # shows through its middle)
    assert _ink(cow)[14:17, 14:17].any()
    assert not _ink(ring)[14:17, 14:17].any() and _ink(ring).sum() > 20
    # in different colours: the ring is dark blue, the cow has none of it
    ring_rgb = np.all(ring == RING, axis=2).sum()
    assert ring_rgb > 0.3 * _ink(ring).sum() and not np.all(cow == RING, axis=2).any()
    assert not np.array_equal(_ink(cow), _ink(skull))
    # the cow's head is white (a Holstein), whatever the landscape under it
    assert np.all(cow == WHITE, axis=2)[12:19, 12:19].sum() > 10


@pytest.mark.parametrize("size", [22, 30, 36])
def test_glyphs_grow_with_their_square(size: int) -> None:
    """At scale 1 a cow on a ranch cell (36 px) is at least 10 pixels wide; on the smallest
    square (a reserve plot, 22 px) at least 6."""
    image = Image.new("RGB", (40, 40), MEADOW)
    draw_cow(Pen(image, 1), 20, 20, glyph_radius(size))
    cols = np.flatnonzero(_ink(np.asarray(image)).any(axis=0))
    assert cols.max() - cols.min() + 1 >= size * 0.28


def test_env_render_scale_zooms_the_picture() -> None:
    base = moonriver_v0.raw_env(num_players=4, mode="legends", render_mode="rgb_array")
    big = moonriver_v0.raw_env(
        num_players=4, mode="legends", render_mode="rgb_array", render_scale=2
    )
    base.reset(seed=0)
    big.reset(seed=0)
    small_frame, big_frame = base.render(), big.render()
    assert big_frame.shape == (2 * small_frame.shape[0], 2 * small_frame.shape[1], 3)
    assert base.render_scale == DEFAULT_SCALE
    # wrapped env() passes it through too
    wrapped = moonriver_v0.env(render_mode="rgb_array", render_scale=3)
    wrapped.reset(seed=1)
    assert wrapped.render().shape[0] % 3 == 0


@pytest.mark.parametrize("bad", [0, -1, MAX_SCALE + 1, 1.5, "2", True])
def test_render_scale_validated_at_construction(bad: object) -> None:
    with pytest.raises(ValueError, match=rf"^render_scale: expected an integer in 1..{MAX_SCALE}"):
        moonriver_v0.raw_env(render_mode="rgb_array", render_scale=bad)
    with pytest.raises(ValueError, match="^scale: "):
        check_scale(bad)
    assert check_scale(None) == DEFAULT_SCALE
