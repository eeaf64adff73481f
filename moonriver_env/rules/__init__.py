"""The Moon River rules engine: pure Python + NumPy, no RL imports.

It plays the rules of RULES.md, sections 1-8, with its rulings R1-R25 (section 11).

Quick start::

    from moonriver_env.rules import GameConfig, new_game
    state = new_game(GameConfig(num_players=4, mode="legends", scenario="gold_rush"), seed=7)
    while not state.is_terminal:
        state.apply(int(state.legal_actions()[0]))
    print(state.scores(), state.winners())

Modules: :mod:`.components` (data file, sections 1, 9), :mod:`.config` (what game to play),
:mod:`.actions` (flat action numbering and text), :mod:`.geometry` (bitboards),
:mod:`.state` (the state machine, sections 2-7), :mod:`.scoring` (section 5, 7),
:mod:`.serialization` (JSON save/load).
"""

from .actions import (
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
from .components import (
    LEGENDS_BOARDS,
    ComponentDataError,
    Components,
    Landscape,
    PartnerKind,
    default_components,
    load_components,
)
from .config import MODES, SCENARIOS, GameConfig
from .scoring import ScoreBreakdown, score_ranch
from .serialization import SCHEMA_VERSION, StateFormatError
from .state import GameState, IllegalActionError, Phase, new_game

__all__ = [
    "LEGENDS_BOARDS",
    "MODES",
    "SCENARIOS",
    "SCHEMA_VERSION",
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
    "score_ranch",
]
