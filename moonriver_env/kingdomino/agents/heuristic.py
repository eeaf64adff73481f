"""Kingdomino's ``heuristic``: one ply on a position value that adds to the points a
penalty for squares that can no longer be filled and a bonus for room around crowned
territories."""

from __future__ import annotations

from typing import Any

import numpy as np

from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase
from moonriver_env.kingdomino.rules.components import Domino
from moonriver_env.kingdomino.rules.kingdom import Kingdom, placement_ids
from moonriver_env.kingdomino.rules.scoring import kingdom_points
from moonriver_env.kingdomino.rules.state import DOMINOES

from .common import KingdominoAgent, flags, pick_line


def position_value(kingdom: Kingdom, config: KingdominoConfig) -> float:
    """Points (with the game's bonuses), minus 2 per empty square of the still possible
    frame that no domino can reach any more (no empty neighbour: it costs Harmony and
    space), plus 0.5 per crown whose territory still has an empty neighbour in the frame."""
    harmony, middle = flags(config)
    board = kingdom.board
    grid = board.grid
    allowed = board.allowed(kingdom.rmin, kingdom.rmax, kingdom.cmin, kingdom.cmax)
    if middle and not kingdom.occupied & ~board.centred:
        allowed &= board.centred  # ruling KR3: keep the castle in the middle
    empty = allowed & ~kingdom.occupied
    dead = empty & ~grid.neighbours(empty)
    value = float(kingdom_points(kingdom, harmony, middle)) - 2.0 * dead.bit_count()
    c1, c2, c3 = kingdom.crowns
    for mask in kingdom.land:
        crowned = mask & c1
        while crowned:
            region = grid.flood(crowned & -crowned, mask)
            if grid.neighbours(region) & empty:
                value += 0.5 * (
                    (region & c1).bit_count()
                    + (region & c2).bit_count()
                    + (region & c3).bit_count()
                )
            crowned &= ~region
    return value


def heuristic_placements(state: KingdominoState) -> list[tuple[float, int]]:
    """``(value, action)`` of every legal placement or discard, best first."""
    cfg = state.config
    kingdom = state.kingdoms[state.seat]
    domino = DOMINOES[state.cur_line[state.turn_pos]]
    cells = state.layout.cells
    discard = state.layout.discard
    out = []
    for a in state.legal_action_list():
        k = kingdom if a == discard else kingdom.place(domino, a % cells, a // cells)
        out.append((position_value(k, cfg), a))
    out.sort(key=lambda x: -x[0])
    return out


def domino_value(kingdom: Kingdom, domino: Domino, config: KingdominoConfig) -> float:
    """The best :func:`position_value` reachable by placing (or, if allowed, discarding)."""
    cells = kingdom.board.cells
    ids = placement_ids(kingdom, domino)
    values = [position_value(kingdom.place(domino, a % cells, a // cells), config) for a in ids]
    if not ids or not config.has("must_place"):
        values.append(position_value(kingdom, config))
    return max(values)


def heuristic_picks(state: KingdominoState) -> list[tuple[float, int]]:
    """``(value, action)`` of every legal pick, best first."""
    line = pick_line(state)
    base = state.layout.pick_base
    kingdom = state.kingdoms[state.seat]
    out = [
        (domino_value(kingdom, DOMINOES[line[a - base]], state.config), a)
        for a in state.legal_action_list()
    ]
    out.sort(key=lambda x: -x[0])
    return out


class HeuristicKingdominoAgent(KingdominoAgent):
    """One ply on :func:`position_value`: the placement with the best value, the pick whose
    domino reaches the best value. Ties: uniformly at random."""

    name = "heuristic"

    def choose(self, state: KingdominoState) -> int:
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        ranked = (
            heuristic_placements(state) if state.phase == Phase.PLACE else heuristic_picks(state)
        )
        top = ranked[0][0]
        return self._pick_uniform([a for v, a in ranked if v == top])

    def choose_batch(self, vg: Any, rows: np.ndarray) -> np.ndarray:
        """:meth:`choose` for the acting seat of each game ``rows`` of the batched game ``vg``
        (a :class:`~moonriver_env.kingdomino.vector.game.KingdominoVectorGame`): the values
        computed in the core (``vg.best_moves(i, "heuristic")``, no :class:`KingdominoState`
        built), the same decisions as ``choose(vg.get_state(i))`` in the same order
        (``tests/vector/test_gym_generic.py``); a batched game without the core decides on
        states."""
        return self._choose_best(vg, rows, "heuristic")
