"""Moon River as an OpenSpiel game: ``import moonriver_env.openspiel`` registers
``"python_moonriver"`` with pyspiel (the ``openspiel`` extra)::

    import pyspiel
    import moonriver_env.openspiel  # noqa: F401  (registers the game)

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

import numpy as np
import pyspiel

from .aec import win_rewards
from .encoding import ObservationEncoder
from .games import DEFAULT_MODE, DEFAULT_NUM_PLAYERS
from .rules import MODES, SCENARIOS, GameConfig, GameState
from .rules.chance import ChanceState, chance_view, new_chance_game, outcome_text
from .rules.components import LEGENDS_BOARDS, PartnerKind
from .rules.core import StateCore

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

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Python Moon River",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=4,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification=_DEFAULTS,
)

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
        info = pyspiel.GameInfo(
            num_distinct_actions=self.config.num_actions,
            max_chance_outcomes=_max_chance_outcomes(self.config),
            num_players=self.config.num_players,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_decisions(self.config),
        )
        super().__init__(_GAME_TYPE, info, params or {})

    def new_initial_state(self) -> MoonRiverState:
        """The game before its first draw (a chance node)."""
        return MoonRiverState(self)

    def max_chance_nodes_in_history(self) -> int:
        return max_chance_nodes(self.config)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> MoonRiverObserver:
        """Perfect information: every observation type is the full table from a seat."""
        return MoonRiverObserver(_encoder_for(self.config), params)


class MoonRiverState(pyspiel.State):
    """A pyspiel state around a :class:`~.rules.chance.ChanceState` (``.engine``)."""

    def __init__(self, game: MoonRiverGame, engine: ChanceState | None = None) -> None:
        super().__init__(game)
        # The only Python attribute: pyspiel clones it with deepcopy (ChanceState.clone)
        # and serializes it with pickle (ChanceState's JSON, a replay of its history).
        self.engine = _initial_state(game.config) if engine is None else engine

    def current_player(self) -> int:
        s = self.engine
        if s.pending:
            return int(pyspiel.PlayerId.CHANCE)
        if s.is_terminal:
            return int(pyspiel.PlayerId.TERMINAL)
        return s.seat

    def _legal_actions(self, player: int) -> list[int]:
        return list(self.engine.legal_action_list()) if player == self.engine.seat else []

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return self.engine.chance_outcomes()

    def _apply_action(self, action: int) -> None:
        if self.engine.pending:
            self.engine.apply_chance(action)
        else:
            self.engine.apply(action)

    def _action_to_string(self, player: int, action: int) -> str:
        s = self.engine
        if player == pyspiel.PlayerId.CHANCE:
            return outcome_text(s.draw_kind(), action) if s.pending else f"outcome {action}"
        return s.action_to_string(action)

    def is_terminal(self) -> bool:
        return self.engine.is_terminal

    def returns(self) -> list[float]:
        s = self.engine
        if not s.is_terminal:
            return [0.0] * s.config.num_players
        return win_rewards(s.scores())

    def __str__(self) -> str:
        return state_text(self.engine)


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


class MoonRiverObserver:
    """OpenSpiel's PyObserver: ``tensor`` is the flat encoding (planes then features) from a
    seat, ``dict`` names the two views; the string is the table text."""

    def __init__(self, encoder: ObservationEncoder, params: dict[str, Any] | None) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.encoder = encoder
        planes = encoder.plane_high.shape
        size = int(np.prod(planes)) + encoder.feature_high.size
        self.tensor = np.zeros(size, np.float32)
        cut = int(np.prod(planes))
        self.dict = {"planes": self.tensor[:cut].reshape(planes), "features": self.tensor[cut:]}

    def set_from(self, state: MoonRiverState, player: int) -> None:
        self.tensor[:] = self.encoder.encode_flat(state.engine, player)

    def string_from(self, state: MoonRiverState, player: int) -> str:
        return state_text(state.engine)


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
