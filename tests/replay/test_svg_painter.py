"""The SVG painter (issue 24): drawn from the same view model as the pictures, well-formed,
deterministic, one face drawn per filled cell and reserve plot, symbols defined once."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from moonriver_env.moonriver.render import table_view
from moonriver_env.moonriver.render.svg import SvgDefs, ranch_svg, render_svg, table_svg
from moonriver_env.rules import GameConfig, GameState, new_game

SVG = "{http://www.w3.org/2000/svg}"


def _played(players: int, moves: int, seed: int = 3, mode: str = "base") -> GameState:
    state = new_game(GameConfig(num_players=players, mode=mode), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if state.is_terminal:
            break
        state.apply(int(rng.choice(state.legal_action_list())))
    return state


@pytest.mark.parametrize(
    ("players", "mode"), [(2, "base"), (3, "base"), (4, "base"), (4, "legends")]
)
def test_render_svg_is_well_formed_and_deterministic(players: int, mode: str) -> None:
    state = _played(players, 150, mode=mode)
    names = [f"agent <{s}> & co" for s in range(players)]  # escaped, not markup
    text = render_svg(state, seat_names=names)
    assert text == render_svg(state.clone(), seat_names=names)
    root = ET.fromstring(text)
    assert root.tag == f"{SVG}svg"
    ranches = [e for e in root.iter(f"{SVG}svg") if e.get("class") == "ranch"]
    assert len(ranches) == players
    labels = [e.get("aria-label") for e in ranches]
    assert labels == names
    defined = {e.get("id") for e in root.iter(f"{SVG}symbol")}
    used = {u[1:] for u in re.findall(r'href="(#\w+)"', text)}
    assert used <= defined


def test_one_face_per_filled_cell_and_reserve_plot() -> None:
    state = _played(2, 120)
    view = table_view(state)
    defs = SvgDefs()
    for seat, ranch in enumerate(view.ranches):
        markup = ranch_svg(view, seat, defs)
        faces = re.findall(r'href="#(f\d+)"', markup)
        filled = sum(cell.face is not None for cell in ranch.cells)
        assert filled > 0
        assert len(faces) == filled + len(ranch.held)
        cows = sum(cell.cows > 0 for cell in ranch.cells)
        assert len(re.findall(r'href="#c\d+"', markup)) == cows + sum(
            f.cows > 0 for f in ranch.held
        )
        # the same face is one symbol
        assert len({defs.face(cell.face) for cell in ranch.cells if cell.face}) == len(
            {cell.face for cell in ranch.cells if cell.face}
        )
    table = table_svg(view, defs)
    column_faces = sum(f is not None for f in (*view.now.plots, *view.next.plots))
    bonus = sum(2 for tile in view.bonus_tiles if tile.free)
    assert len(re.findall(r'href="#f\d+"', table)) == column_faces + bonus


def test_a_move_changes_the_acting_ranch() -> None:
    state = _played(2, 40)
    seat = state.current_seat
    assert seat is not None
    defs = SvgDefs()
    before = [ranch_svg(table_view(state), s, defs) for s in range(2)]
    while state.current_seat == seat and not state.is_terminal:
        state.apply(state.legal_action_list()[-1])
    after = [ranch_svg(table_view(state), s, defs) for s in range(2)]
    assert before[seat] != after[seat]
