"""Moon River as an OpenSpiel game: ``import moonriver_env.moonriver.openspiel`` registers
``"python_moonriver"`` with pyspiel (the ``openspiel`` extra)::

    import pyspiel
    import moonriver_env.moonriver.openspiel  # noqa: F401  (registers the game)

    game = pyspiel.load_game("python_moonriver", {"players": 3, "mode": "legends"})
    state = game.new_initial_state()

Parameters: ``players`` (2-4, default 2) and ``mode`` (``"base"`` | ``"legends"``, default
``"base"``; Legends draws its scenario, the boards go by seat as in the PettingZoo env).

Every draw is an explicit chance node (:mod:`.rules.chance`): the set-up draws, each plot of
a column, each partner token of a saloon refill, with exact probabilities. The undrawn pieces
are an unordered pool, so the game is one of perfect information with chance; the
observation and information-state tensors are both the project's encoding
(:meth:`.encoding.ObservationEncoder.encode_flat`) from the player's seat. ``current_player``
follows the engine: one player may take several decisions in a row. Returns come at the end
only: the env's ``"win"`` rewards (:func:`.aec.win_rewards`, in ``[-1, 1]``, summing to 0).
Player actions are the engine's flat action ids; chance outcomes are the pieces drawn, as
small ints (:mod:`.rules.chance`: at most 25, the plot kinds).
"""

from __future__ import annotations

from typing import Any

import pyspiel

from moonriver_env.games import DEFAULT_MODE, DEFAULT_NUM_PLAYERS
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.env import win_rewards
from moonriver_env.moonriver.rules import MODES, SCENARIOS, GameConfig, GameState
from moonriver_env.moonriver.rules.chance import (
    ChanceState,
    chance_view,
    new_chance_game,
    outcome_text,
)
from moonriver_env.moonriver.rules.components import LEGENDS_BOARDS, PartnerKind
from moonriver_env.moonriver.rules.core import StateCore
from moonriver_env.openspiel_base import EngineObserver, EngineSpielState, game_info, game_type

__all__ = [
    "GAME_NAME",
    "MoonRiverGame",
    "MoonRiverState",
    "config_for",
    "max_chance_nodes",
    "max_decisions",
    "openspiel_state",
]

GAME_NAME = "python_moonriver"
_DEFAULTS: dict[str, Any] = {"players": DEFAULT_NUM_PLAYERS, "mode": DEFAULT_MODE}

_GAME_TYPE = game_type(GAME_NAME, "Python Moon River", _DEFAULTS)

# One config (and so one set of engine tables) and one encoder per parameter set.
_CONFIGS: dict[tuple[int, str], GameConfig] = {}
_ENCODERS: dict[tuple[int, str], ObservationEncoder] = {}


def config_for(players: int, mode: str) -> GameConfig:
    """The engine config of the game with these parameters (shared, never copied)."""
    key = (players, mode)
    config = _CONFIGS.get(key)
    if config is None:
        if mode not in MODES:
            raise ValueError(f"mode: expected one of {MODES}, got {mode!r}")
        config = _CONFIGS[key] = GameConfig(num_players=players, mode=mode)
    return config


def _encoder_for(config: GameConfig) -> ObservationEncoder:
    key = (config.num_players, config.mode)
    enc = _ENCODERS.get(key)
    if enc is None:
        enc = _ENCODERS[key] = ObservationEncoder(config)
    return enc


_INITIAL: dict[int, ChanceState] = {}


def _initial_state(config: GameConfig) -> ChanceState:
    """A fresh game (a clone of one kept per config: pyspiel makes an initial state for
    every clone it takes)."""
    state = _INITIAL.get(id(config))
    if state is None or state.config is not config:
        state = _INITIAL[id(config)] = new_chance_game(config)
    return state.clone()


def max_decisions(config: GameConfig) -> int:
    """An upper bound on the decisions of one game, from the rules and the component counts.

    With ``R`` rancheros (``n``, or 4 with 2 players) and ``C`` columns (every plot is drawn
    in columns of 4: 96 / 4 = 24; one column per round, the last round without Select), a
    game has ``C * R`` turns and:

    - ``R`` set-up claims and ``(C - 1) * R`` Selects (one per turn, none in the final round);
    - at most one Stop per turn: ``C * R``;
    - placements and forced discards each use two of the ``C * R`` collected plots:
      ``C * R // 2`` together (bonus tiles are placed by the Bonus decision below);
    - one Skull decision per skull plot at most (it resolves once): 8 in the box;
    - one Recruit per partner token at most (tokens never return): 20, each followed by at
      most 3 effect decisions (Cowboy: 3 moves, or fewer and Stop; Desperado, Thief: 1);
    - 2 players: one Bonus decision per tile at most (each takes or removes one): 2.

    4 players: 4 + 92 + 96 + 48 + 8 + 80 = 328; 3 players: 268; 2 players: 330. Random play
    uses about 140-220; the bound is not reached (a Stop in every turn excludes placing
    every plot), it only must never be exceeded.
    """
    comps = config.components
    rancheros = config.num_players * config.rancheros_per_seat
    columns = comps.num_plots // comps.column_size
    turns = columns * rancheros
    skulls = sum(p.count for p in comps.plots if p.skull)
    bonus = len(comps.bonus_tiles) if config.num_players == 2 else 0
    return rancheros + (columns - 1) * rancheros + turns + turns // 2 + skulls + 4 * comps.num_partners + bonus  # fmt: skip


def max_chance_nodes(config: GameConfig) -> int:
    """The most chance nodes one game can have (exact: games reach it when all 20 partner
    tokens come out): the drawn scenario, the boards if drawn, the set-up order (one draw
    with 2 players, else one per seat), every plot of every column, every partner token."""
    comps = config.components
    n = config.num_players
    legends = config.mode == "legends"
    scenario = int(legends and config.scenario in (None, "random"))
    boards = n if legends and config.boards == "random" else 0
    seats = 1 if n == 2 else n
    plots = comps.num_plots // comps.column_size * comps.column_size
    return scenario + boards + seats + plots + comps.num_partners


def _max_chance_outcomes(config: GameConfig) -> int:
    comps = config.components
    return max(len(comps.plots), len(PartnerKind), len(SCENARIOS), len(LEGENDS_BOARDS), 4)


class MoonRiverGame(pyspiel.Game):
    """The pyspiel game; ``pyspiel.load_game("python_moonriver", {...})`` makes one."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        p = {**_DEFAULTS, **(params or {})}
        self.config = config_for(int(p["players"]), str(p["mode"]))
        info = game_info(self.config, _max_chance_outcomes(self.config), max_decisions(self.config))
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self) -> MoonRiverState:
        """The game before its first draw (a chance node)."""
        return MoonRiverState(self)

    def max_chance_nodes_in_history(self) -> int:
        return max_chance_nodes(self.config)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> EngineObserver:
        """Perfect information: every observation type is the full table from a seat."""
        return EngineObserver(_encoder_for(self.config), params)


class MoonRiverState(EngineSpielState):
    """A pyspiel state around a :class:`~.rules.chance.ChanceState` (``.engine``; pyspiel
    clones it with deepcopy, ChanceState.clone, and serializes it with pickle, ChanceState's
    JSON, a replay of its history)."""

    def __init__(self, game: MoonRiverGame, engine: ChanceState | None = None) -> None:
        super().__init__(game, _initial_state(game.config) if engine is None else engine)

    def _chance_text(self, outcome: int) -> str:
        s = self.engine
        return outcome_text(s.draw_kind(), outcome) if s.pending else f"outcome {outcome}"

    def _final_returns(self, engine: ChanceState) -> list[float]:
        return win_rewards(engine.scores())

    def _text(self, engine: ChanceState) -> str:
        return state_text(engine)


# The fields of the text form: every field of the state but the derived ones (bitboards,
# boards' slots and bridges, ranch stamps, caches) and the unused generator.
_TEXT_FIELDS = tuple(
    name
    for name in StateCore.__slots__
    if name
    not in (
        "_st",
        "config",
        "rng",
        "slots",
        "bridges",
        "land_bb",
        "occ",
        "cow_bb",
        "partner_bb",
        "ranch_stamp",
        "_legal",
    )  # fmt: skip
)


def state_text(state: ChanceState) -> str:
    """The whole state as text, one ``field=value`` line per field (the pending draws
    first); cheap enough for every step. ``render.render_ansi`` draws the table for people."""
    pending = " ".join(f"{k.name}[{t}]" for k, t in state.pending)
    lines = [f"pending={pending}"]
    for name in _TEXT_FIELDS:
        value = getattr(state, name)
        lines.append(f"{name}={value.name if name == 'phase' else value}")
    return "\n".join(lines)


def openspiel_state(game: MoonRiverGame, state: GameState) -> MoonRiverState:
    """An OpenSpiel state of ``game`` at ``state`` (a decision node of a seeded or chance
    game): the same table, the undrawn pieces as chance (:func:`.rules.chance.chance_view`).
    Its OpenSpiel history starts here."""
    if (state.config.num_players, state.config.mode) != (
        game.config.num_players,
        game.config.mode,
    ):
        raise ValueError("state: not a game with this game's players and mode")
    return MoonRiverState(game, chance_view(state))


pyspiel.register_game(_GAME_TYPE, MoonRiverGame)
