"""Kingdomino's greedy players: ``greedy`` (the placement and the pick with the largest
immediate gain: the paper's "full greedy"), ``greedy:draft=random`` (greedy placement, random
pick: the paper's "greedy placement, random draft") and ``greedy:study=true`` (the CIG 2018
study's placement filters first)."""

from __future__ import annotations

from typing import Any

import numpy as np

from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase
from moonriver_env.kingdomino.rules.components import Domino
from moonriver_env.kingdomino.rules.kingdom import Kingdom, placement_ids
from moonriver_env.kingdomino.rules.scoring import placement_gains
from moonriver_env.kingdomino.rules.state import DOMINOES

from .common import KingdominoAgent, flags, pick_line


def best_gain(kingdom: Kingdom, domino: Domino, config: KingdominoConfig) -> int:
    """The largest immediate gain of placing ``domino`` (0 if it cannot be placed, or when
    discarding is allowed and every placement loses points). Kept in the kingdom's memo: a
    kingdom never changes, and the playouts of a search meet the same kingdoms again."""
    key = ("best_gain", domino.number, config.bonus_flags, config.has("must_place"))
    best = kingdom.memo.get(key)
    if best is None:
        best = max(_gains(kingdom, domino, config)[1], default=0)
        if not config.has("must_place"):
            best = max(best, 0)
        kingdom.memo[key] = best
    return best


def _gains(
    kingdom: Kingdom, domino: Domino, config: KingdominoConfig
) -> tuple[list[int], list[int]]:
    """The placement ids of ``domino`` and their gains (memoised on the kingdom)."""
    key = ("gains", domino.number, config.bonus_flags)
    hit = kingdom.memo.get(key)
    if hit is None:
        shared = (
            kingdom.board.side,
            kingdom.land,
            kingdom.crowns,
            domino.number,
            config.bonus_flags,
        )
        hit = _GAINS.get(shared)
        if hit is None:
            if len(_GAINS) >= GAINS_CACHE_SIZE:
                _GAINS.clear()
            ids = placement_ids(kingdom, domino)
            hit = _GAINS[shared] = (ids, placement_gains(kingdom, domino, ids, *config.bonus_flags))
        kingdom.memo[key] = hit
    return hit


GAINS_CACHE_SIZE = 200_000
"""Entries of :data:`_GAINS` before it is emptied (a few hundred bytes each)."""
_GAINS: dict[tuple[object, ...], tuple[list[int], list[int]]] = {}
"""The placements and gains of a domino by the kingdom's content (the board's side and the squares
fix its frame and everything else): the playouts of a search build equal kingdoms again and again,
as new objects, so the per-object memo alone misses them."""


def greedy_placements(state: KingdominoState) -> list[int]:
    """The legal placements (or the discard) with the largest immediate gain."""
    legal = state.legal_action_list()
    kingdom = state.kingdoms[state.seat]
    domino = DOMINOES[state.cur_line[state.turn_pos]]
    ids, gains = _gains(kingdom, domino, state.config)
    options = list(zip(ids, gains, strict=True))
    if legal[-1] == state.layout.discard:
        options.append((legal[-1], 0))  # the discard
    top = max(g for _, g in options)
    return [a for a, g in options if g == top]


def dead_squares(kingdom: Kingdom, middle: bool) -> int:
    """Empty squares of the still possible frame (the centred one when the Middle Kingdom
    is still held) with no empty neighbour there: no domino can ever fill them."""
    board = kingdom.board
    allowed = board.allowed(kingdom.rmin, kingdom.rmax, kingdom.cmin, kingdom.cmax)
    if middle and not kingdom.occupied & ~board.centred:
        allowed &= board.centred
    empty = allowed & ~kingdom.occupied
    return empty & ~board.grid.neighbours(empty)


def study_placements(state: KingdominoState) -> list[int]:
    """The placements the CIG 2018 study's greedy players choose among (their published
    code, ``GreedyAlgorithm``): drop those that lose the Middle Kingdom, then those that
    leave a square no domino can fill (each step only if something remains), then keep the
    largest immediate gain."""
    legal = state.legal_action_list()
    harmony, middle = flags(state.config)
    kingdom = state.kingdoms[state.seat]
    domino = DOMINOES[state.cur_line[state.turn_pos]]
    discard = state.layout.discard
    ids = [a for a in legal if a != discard]
    if not ids:
        return legal
    cells = state.layout.cells
    after = {a: kingdom.place(domino, a % cells, a // cells) for a in ids}
    if middle and not kingdom.occupied & ~kingdom.board.centred:
        kept = [a for a in ids if not after[a].occupied & ~kingdom.board.centred]
        ids = kept or ids
    kept = [a for a in ids if not dead_squares(after[a], middle)]
    ids = kept or ids
    gains = placement_gains(kingdom, domino, ids, harmony, middle)
    top = max(gains)
    return [a for a, g in zip(ids, gains, strict=True) if g == top]


def greedy_picks(state: KingdominoState) -> list[int]:
    """The legal picks whose domino has the largest :func:`best_gain` in the seat's kingdom."""
    legal = state.legal_action_list()
    line = pick_line(state)
    base = state.layout.pick_base
    kingdom = state.kingdoms[state.seat]
    best: list[int] = []
    best_g = -(10**9)
    for a in legal:
        g = best_gain(kingdom, DOMINOES[line[a - base]], state.config)
        if g > best_g:
            best_g, best = g, [a]
        elif g == best_g:
            best.append(a)
    return best


class GreedyKingdominoAgent(KingdominoAgent):
    """The paper's greedy players: the placement with the largest immediate gain (points
    with the game's bonuses; discarding counts 0), then the pick whose domino has the
    largest best gain in the kingdom as it now stands (``draft="greedy"``, "full greedy"),
    or a uniformly random pick (``draft="random"``). Ties: uniformly at random.
    ``study="true"``: the placement filters of the study's own greedy players first
    (:func:`study_placements`)."""

    name = "greedy"

    def __init__(
        self, seed: int | None = None, draft: str = "greedy", study: str = "false"
    ) -> None:
        super().__init__(seed)
        if draft not in ("greedy", "random"):
            raise ValueError(f"draft: expected 'greedy' or 'random', got {draft!r}")
        if study not in ("true", "false"):
            raise ValueError(f"study: expected 'true' or 'false', got {study!r}")
        self.draft = draft
        self.study = study == "true"

    def choose(self, state: KingdominoState) -> int:
        legal = state.legal_action_list()
        if len(legal) == 1:
            return legal[0]
        if state.phase == Phase.PLACE:
            if self.study:
                return self._pick_uniform(study_placements(state))
            return self._pick_uniform(greedy_placements(state))
        if self.draft == "random":
            return self._pick_uniform(legal)
        return self._pick_uniform(greedy_picks(state))


    def choose_batch(self, vg: Any, rows: np.ndarray) -> np.ndarray:
        """:meth:`choose` for the acting seat of each game ``rows`` of the batched game ``vg``
        (a :class:`~moonriver_env.kingdomino.vector.game.KingdominoVectorGame`; what the
        Gymnasium vector env, the reference PPO and the evaluation ask of an opponent): the
        gains computed in the core (``vg.best_moves(i, "greedy")``, no
        :class:`KingdominoState` built), the same decisions as ``choose(vg.get_state(i))`` in
        the same order (``tests/vector/test_gym_generic.py``). The study's filters and the
        random draft, and a batched game without the core, decide on states."""
        plain = not self.study and self.draft == "greedy"
        return self._choose_best(vg, rows, "greedy" if plain else None)


def core_teacher() -> tuple[str, None]:
    """The warm start's teacher in the core (``az_selfplay`` with ``teacher``): the greedy
    agent (the ``az_teacher`` hook of Kingdomino's entry; it takes no weights)."""
    return "greedy", None
