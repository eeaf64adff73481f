"""The Moon River rules engine: pure Python + NumPy, no RL imports.

It plays the rules of RULES.md, sections 1-8, with its rulings R1-R25 (section 11).

Quick start::

    from moonriver_env.moonriver.rules import GameConfig, new_game
    state = new_game(GameConfig(num_players=4, mode="legends", scenario="gold_rush"), seed=7)
    while not state.is_terminal:
        state.apply(int(state.legal_actions()[0]))
    print(state.scores(), state.winners())

Modules: :mod:`.components` (data file, sections 1, 9), :mod:`.config` (what game to play),
:mod:`.actions` (flat action numbering and text), :mod:`.geometry` (bitboards),
:mod:`.core` (the state's fields, declared once; phases and phase groups), :mod:`.table`
(setup, columns, saloon), :mod:`.placement`, :mod:`.partners` (effects, protection R16),
:mod:`.state` (the state machine, sections 2-7), :mod:`.scoring` (section 5, 7; the rank key),
:mod:`.serialization` (JSON save/load), :mod:`.invariants` (consistency checks),
:mod:`.validation` (checked reading of loaded data).
"""

from moonriver_env.moonriver.rules.actions import (
    Action,
    ActionLayout,
    BonusPlace,
    BonusRemove,
    Claim,
    CowboyMove,
    CowboyStop,
    DesperadoSkip,
    DesperadoSwap,
    Discard,
    Place,
    Recruit,
    SkullCow,
    Stop,
    ThiefSkip,
    ThiefSteal,
)
from moonriver_env.moonriver.rules.components import (
    LEGENDS_BOARDS,
    ComponentDataError,
    Components,
    Landscape,
    PartnerKind,
    default_components,
    load_components,
)
from moonriver_env.moonriver.rules.config import MODES, SCENARIOS, GameConfig
from moonriver_env.moonriver.rules.core import (
    CLAIM_PHASES,
    PLACE_PHASES,
    RESOLVE_PHASES,
    SYMBOL_PHASES,
)
from moonriver_env.moonriver.rules.partners import protected_cells, unprotected_cows
from moonriver_env.moonriver.rules.scoring import ScoreBreakdown, score_ranch
from moonriver_env.moonriver.rules.serialization import SCHEMA_VERSION, StateFormatError
from moonriver_env.moonriver.rules.state import GameState, IllegalActionError, Phase, new_game

__all__ = [
    "CLAIM_PHASES",
    "LEGENDS_BOARDS",
    "MODES",
    "PLACE_PHASES",
    "RESOLVE_PHASES",
    "SCENARIOS",
    "SCHEMA_VERSION",
    "SYMBOL_PHASES",
    "Action",
    "ActionLayout",
    "BonusPlace",
    "BonusRemove",
    "Claim",
    "ComponentDataError",
    "Components",
    "CowboyMove",
    "CowboyStop",
    "DesperadoSkip",
    "DesperadoSwap",
    "Discard",
    "GameConfig",
    "GameState",
    "IllegalActionError",
    "Landscape",
    "PartnerKind",
    "Phase",
    "Place",
    "Recruit",
    "ScoreBreakdown",
    "SkullCow",
    "StateFormatError",
    "Stop",
    "ThiefSkip",
    "ThiefSteal",
    "default_components",
    "load_components",
    "new_game",
    "protected_cells",
    "score_ranch",
    "unprotected_cows",
]
