"""The Kingdomino rules engine: pure Python + NumPy, no RL imports (RULES.md section 13).

Kingdomino (Bruno Cathala, 2016) is the game Moon River derives from; this package plays the
German rulebook with 2, 3 and 4 players and every variant (combinable), with the rulings
KR1..KR7 of RULES.md section 13. It shares the grid and territory flood fill
(:mod:`moonriver_env.family.geometry`) and the draft of a column
(:mod:`moonriver_env.family.draft`) with the Moon River engine.

Quick start::

    from moonriver_env.kingdomino import KingdominoConfig, new_game, Kingdom, score_kingdom
    state = new_game(KingdominoConfig(num_players=4, variants=("must_place", "harmony")), seed=7)
    while not state.is_terminal:
        state.apply(int(state.legal_actions()[0]))
    print(state.scores(), state.winners())
    score_kingdom(Kingdom.from_text("CC W1 W0"), variants=("middle_kingdom",)).total  # 12

Modules: :mod:`.components` (the domino table), :mod:`.config`, :mod:`.board` (bitboards,
directions, cell names), :mod:`.kingdom` (a kingdom, its text form, legal placements),
:mod:`.scoring`, :mod:`.actions` (the flat action numbering), :mod:`.state` (the game),
:mod:`.invariants` (consistency checks, loading saved states).
"""

from moonriver_env.kingdomino.rules.actions import ActionLayout, Discard, Pick, Place, action_layout
from moonriver_env.kingdomino.rules.board import DIRECTIONS, Board, board_for
from moonriver_env.kingdomino.rules.components import (
    ComponentDataError,
    Domino,
    Landscape,
    dominoes,
    load_dominoes,
)
from moonriver_env.kingdomino.rules.config import VARIANTS, KingdominoConfig, parse_variants
from moonriver_env.kingdomino.rules.invariants import check_state
from moonriver_env.kingdomino.rules.kingdom import Kingdom, placement_ids
from moonriver_env.kingdomino.rules.scoring import (
    KingdomScore,
    Territory,
    is_centred,
    kingdom_points,
    score_kingdom,
)
from moonriver_env.kingdomino.rules.state import (
    IllegalActionError,
    KingdominoState,
    Phase,
    StateFormatError,
    new_game,
)

__all__ = [
    "DIRECTIONS",
    "VARIANTS",
    "ActionLayout",
    "Board",
    "ComponentDataError",
    "Discard",
    "Domino",
    "IllegalActionError",
    "Kingdom",
    "KingdomScore",
    "KingdominoConfig",
    "KingdominoState",
    "Landscape",
    "Phase",
    "Pick",
    "Place",
    "StateFormatError",
    "Territory",
    "action_layout",
    "board_for",
    "check_state",
    "dominoes",
    "is_centred",
    "kingdom_points",
    "load_dominoes",
    "new_game",
    "parse_variants",
    "placement_ids",
    "score_kingdom",
]
