"""Saved-state fixtures of the serialization tests (not a test module): the configurations
played, seeded random games, and positions found in them (``saved_position("3p-cows")``: a
3-player game with a cornfield, cows, partners and held plots), with small edits for the
malformed-save tables."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable
from typing import Any

from moonriver_env.rules import (
    GameConfig,
    GameState,
    Landscape,
    Phase,
    default_components,
    new_game,
)

CORN = int(Landscape.CORNFIELD)

CONFIGS: dict[str, GameConfig] = {
    "2p-base": GameConfig(num_players=2),
    "2p-legends-random-scenario-random-boards": GameConfig(
        num_players=2, mode="legends", scenario="random", boards="random"
    ),
    "3p-base": GameConfig(num_players=3),
    "3p-legends-outlaws-explicit-boards": GameConfig(
        num_players=3, mode="legends", scenario="outlaws", boards=("big_jo", "mary", "wesley")
    ),
    "3p-legends-random-scenario": GameConfig(num_players=3, mode="legends", scenario="random"),
    "4p-base": GameConfig(num_players=4),
    "4p-legends-default-scenario-random-boards": GameConfig(
        num_players=4, mode="legends", boards="random"
    ),
    "4p-base-auto-resolve": GameConfig(num_players=4, auto_resolve=True),
}


def step_randomly(state: GameState, chooser: random.Random) -> int:
    legal = state.legal_action_list()
    action = legal[chooser.randrange(len(legal))]
    state.apply(action)
    return action


def states_of_game(config: GameConfig, seed: int) -> list[GameState]:
    """Every state of one seeded random game (clones), the initial and terminal included."""
    state = new_game(config, seed=seed)
    chooser = random.Random(seed)
    out = [state.clone()]
    while not state.is_terminal:
        step_randomly(state, chooser)
        out.append(state.clone())
    return out


def find_position(
    config: GameConfig, pred: Callable[[GameState], bool], seed: int = 0
) -> GameState:
    for game in range(seed, seed + 200):
        state = new_game(config, seed=game)
        chooser = random.Random(game)
        while True:
            if pred(state):
                return state
            if state.is_terminal:
                break
            step_randomly(state, chooser)
    raise AssertionError("no such position")  # pragma: no cover


def has_corn_and_cow(state: GameState) -> bool:
    """Some seat has a cornfield plot and a cow elsewhere; some partner somewhere; some seat
    holds 2 different plots; round >= 3."""
    if state.round < 3 or state.phase not in (Phase.EXPAND, Phase.SELECT):
        return False
    if not any(state.partner_bb) or not any(len(set(h)) >= 2 for h in state.held):
        return False
    return any(state.land_bb[s][CORN] and state.cow_bb[s] for s in range(state.config.num_players))


@functools.cache
def saved_position(name: str) -> GameState:
    if name == "2p-cows":
        return find_position(CONFIGS["2p-base"], has_corn_and_cow)
    if name == "3p-cows":
        return find_position(CONFIGS["3p-base"], has_corn_and_cow)
    if name == "3p-legends-outlaws":
        return find_position(CONFIGS["3p-legends-outlaws-explicit-boards"], lambda s: s.round == 2)
    if name == "3p-legends-random-boards":
        config = GameConfig(num_players=3, mode="legends", scenario="random", boards="random")
        return find_position(config, lambda s: s.round == 2)
    if name == "4p-recruit":
        return find_position(CONFIGS["4p-base"], lambda s: s.phase is Phase.RECRUIT)
    if name == "4p-over":
        return find_position(CONFIGS["4p-base"], lambda s: s.is_terminal)
    raise KeyError(name)


def saved_doc(name: str) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(saved_position(name).to_json())
    return result


def corn_seat(doc: dict[str, Any]) -> tuple[int, int, int]:
    """(seat, a cornfield cell, a cell with a cow) of the first seat having both."""
    comps = default_components()
    for s, seat in enumerate(doc["seats"]):
        corn = [
            c
            for c, k in enumerate(seat["kinds"])
            if 0 <= k < 25 and comps.plots[k].landscape == CORN
        ]
        cows = [c for c, n in enumerate(seat["cows"]) if n]
        if corn and cows:
            return s, corn[0], cows[0]
    raise AssertionError("no seat with a cornfield and a cow")  # pragma: no cover


def empty_cell(seat: dict[str, Any]) -> int:
    return int(seat["kinds"].index(-1))


def occupied_plain_cell(seat: dict[str, Any]) -> int:
    return next(
        c
        for c, k in enumerate(seat["kinds"])
        if 0 <= k < 25 and not seat["cows"][c] and seat["partners"][c] < 0
    )


def replace_text(old: str, new: str) -> Callable[[str], str]:
    def edit(text: str) -> str:
        assert old in text
        return text.replace(old, new, 1)

    return edit
