"""Save and load a whole game state as JSON (:meth:`GameState.to_json` / ``from_json``).

A saved game holds the table of RULES.md sections 2-7 and also what section 8 keeps hidden
(the order of the pile and of the partner stack).

A saved state holds everything needed to continue the game exactly: the config, the random
generator's state (so later chance events, e.g. the next column drawn, are the same), and every
field of :class:`~.state.GameState`. The bitboards (``land_bb``, ``occ``, ``cow_bb``,
``partner_bb``), the ranch stamps (``ranch_stamp``, cache keys for encoders) and each
seat's ``slots`` and ``bridges`` are not saved; they are recomputed
from the per-cell lists and the board names on load. Loading validates every entry strictly
and then runs :func:`.invariants.check_invariants`; every problem raises
:class:`StateFormatError` (a ``ValueError``) whose message starts with the JSON path of the
offending entry, e.g. ``seats[2].cows[14]: expected an int in 0..32, got -1``,
``phase: unknown phase 'FOO'``, ``config.num_players: expected 2, 3 or 4, got 5`` or
``<root>: invalid JSON: ...``.

Notation below: ``n`` players, ``C`` cells per ranch (25, or 50 with 2 players), ``K`` plot
kinds (25), ``T`` bonus tiles (2), ``S`` saloon spaces (5), ``L`` column size (4). A *plot
kind* is an index ``0..K-1`` into the component data's ``plots`` list; a *cell content* is a
plot kind or, with 2 players, a bonus tile pseudo-kind ``K + 2 * tile + side``, or ``-1`` for
an empty cell. A *partner token* is a ``PartnerKind`` ``0..4`` (desperado, cattle_thief,
gold_digger, trapper, farmer); a *partner code* on a ranch is ``2 * token + (1 if Cowboy side
up)``, so ``0..9``, or ``-1`` for none. A *seat* is ``0..n-1`` and ``-1`` means none. Every key
is required and unknown keys are errors (also inside ``config`` and each seat); integers must
be JSON integers and flags JSON ``true``/``false``. Schema version 1::

    {
      "format": "moonriver-state",      # always this string
      "version": 1,                     # SCHEMA_VERSION; other versions are rejected
      "config": {                       # the GameConfig, as configured
        "num_players": 2 | 3 | 4,
        "mode": "base" | "legends",
        "scenario": null | "random" | "timber_rafting" | "gold_rush" | "outlaws"
                    | "moon_river_city",
        "boards": null | "random" | ["mary", "wesley", ...],   # one distinct name per seat
        "auto_resolve": false,
        "components": null              # null: the shipped default_components(); else the
                                        # full component data in the layout of
                                        # moonriver_env/moonriver/rules/data/components.json
      },
      "rng": {"bit_generator": "PCG64",  # numpy bit generator class name
              "state": {...}},          # its .state dict (128-bit ints as JSON integers)
      "scenario": null | "gold_rush",   # the scenario in play (legends: one of the four,
                                        # drawn if configured "random"/null); base: null
      "pile": [kind, ...],              # draw pile, bottom first (the next plot drawn is last)
      "stack": [token, ...],            # face-down partner stack, next token drawn last
      "saloon": [token | -1] * S,       # saloon spaces, -1 = empty
      "cur_col": [kind | -1] * L,       # current column by position (sorted by the backs);
                                        # -1 = collected or removed (ruling R12)
      "cur_claim": [seat | -1] * L,     # ranchero on each position of the current column
      "next_col": [kind | -1] * L,      # next column (all -1 in setup and the final round)
      "next_claim": [seat | -1] * L,
      "removed": [kind, ...],           # plots out of the game (ruling R12, 3 players)
      "discarded": [kind, ...],         # plots discarded (forced, final turn, short pile R6)
      "supply": int,                    # cows in the general supply, 0..components cows
      "round": int,                     # 0 during setup, then 1, 2, ... (< the plot count)
      "final_round": bool,              # the final round is being played (no Select)
      "phase": "SETUP_CLAIM" | "EXPAND" | ... | "GAME_OVER",   # a Phase name
      "seat": seat | -1,                # acting seat; -1 once the game is over
      "setup_order": [seat, ...],       # rancheros' claiming order at setup (n entries, or
                                        # 4 with 2 players: each seat twice)
      "setup_idx": int,                 # claims made at setup, 0..len(setup_order)
      "turn_pos": int,                  # position in cur_col of the ranchero acting, -1..L-1
      "final_turn": bool,               # the acting seat plays its final turn
      "dominoes": int,                  # dominoes placed this turn, 0..C
      "seats": [                        # one object per seat, n entries
        {"board": "camp" | "mary" | ...,   # board side (base: "camp"; legends: distinct)
         "held": [kind, ...],            # reserve plus a collected plot, sorted ascending,
                                         # at most (largest reserve of the mode + 1) entries
         "kinds": [content | -1] * C,    # ranch: cell content per cell (row * 5 + column)
         "cows": [int] * C,              # cows per cell, 0..components cows (and the total)
         "partners": [code | -1] * C,    # partner code per cell
         "bonus_done": bool},            # the seat has taken its bonus tile (2 players)
        ...
      ],
      "tiles": [bool] * T,              # bonus tile still available (always false unless 2
                                        # players)
      "piece": [cell, ...],             # cells of the piece whose symbols resolve (0-2)
      "skulls": [cell, ...],            # cells of its skulls still to resolve
      "circles": [0 | 1, ...],          # indices into piece of circles still to resolve
      "reached_far": bool,              # the piece reached the far row (2-player bonus)
      "effect_cell": cell | -1,         # cell of the partner whose effect is being applied
      "cowboy_moves": int               # moves the Cowboy has left, 0..3
    }

Every integer has both bounds (declared with the field in :data:`.core.STATE_FIELDS`), and
the text is read only up to :data:`MAX_TEXT` characters and a nesting depth the decoder can
follow, so no input makes loading fail with anything but :class:`StateFormatError`.

The output is deterministic: the same state always gives the same text (keys in the order
above, compact separators).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, TypeVar

import numpy as np

from moonriver_env.family.rng import pcg64_problem
from moonriver_env.family.validation import ROOT, JsonTextError, int_text, read_json_text
from moonriver_env.moonriver.rules.components import (
    LEGENDS_BOARDS,
    ComponentDataError,
    Components,
    PartnerKind,
    default_components,
    parse_components,
)
from moonriver_env.moonriver.rules.config import SCENARIOS, GameConfig
from moonriver_env.moonriver.rules.core import STATE_FIELDS, Phase, StateCore, StateField
from moonriver_env.moonriver.rules.invariants import (
    STATE_CHECK,
    StateFormatError,
    check_consistency,
    check_value,
    piece_limits,
)

__all__ = [
    "FORMAT_TAG",
    "SCHEMA_VERSION",
    "StateFormatError",
    "components_to_raw",
    "state_from_json",
    "state_to_json",
]

SCHEMA_VERSION = 1
FORMAT_TAG = "moonriver-state"
# The longest text read as a saved state (a state with its full component data is about
# 20 kB): a guard against reading a huge file into memory before any check.
MAX_TEXT = 1 << 22

_COMPONENTS_VERSION = 1
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_CONFIG_KEYS = ("num_players", "mode", "scenario", "boards", "auto_resolve", "components")
_RNG_KEYS = ("bit_generator", "state")
# The saved fields of the state (:data:`.core.STATE_FIELDS`): the seat objects ("seats")
# stand where the first per-seat field is declared.
_SEAT_FIELDS = tuple(f for f in STATE_FIELDS if f.per_seat)
_FIRST_SEAT_FIELD = STATE_FIELDS.index(_SEAT_FIELDS[0])
_TOP_BEFORE = tuple(f for f in STATE_FIELDS[:_FIRST_SEAT_FIELD] if f.check is not None)
_TOP_AFTER = tuple(
    f for f in STATE_FIELDS[_FIRST_SEAT_FIELD:] if f.check is not None and not f.per_seat
)
_SEAT_KEYS = tuple(f.key for f in _SEAT_FIELDS)
_STATE_KEYS = (
    "format",
    "version",
    "config",
    "rng",
    *(f.key for f in _TOP_BEFORE),
    "seats",
    *(f.key for f in _TOP_AFTER),
)
S = TypeVar("S", bound=StateCore)
_ck = STATE_CHECK
_fail = _ck.fail
_describe = _ck.describe


# ------------------------------------------------------------------------------ saving


def components_to_raw(components: Components) -> dict[str, Any]:
    """The component data as a JSON-ready dict in the layout of ``data/components.json``
    (without the optional ``source``/``doc``); :func:`.components.parse_components` reads it
    back to an equal :class:`Components`."""
    return {
        "version": _COMPONENTS_VERSION,
        "plots": [
            {
                "kind": p.number,
                "count": p.count,
                "landscape": p.landscape.name.lower(),
                "gold": p.gold,
                "beaver": p.beaver,
                "corn": p.corn,
                "cows": p.cows,
                "skull": p.skull,
                "circle": p.circle,
                "back": p.back,
            }
            for p in components.plots
        ],
        "partners": {
            kind.name.lower(): count
            for kind, count in zip(PartnerKind, components.partner_counts, strict=True)
        },
        "boards": {
            name: {"bridges": list(board.bridges), "slots": board.slots}
            for name, board in components.boards.items()
        },
        "bonus_tiles": [
            {"name": tile.name, "sides": [side.name.lower() for side in tile.sides]}
            for tile in components.bonus_tiles
        ],
        "cows": components.cows,
        "saloon_size": components.saloon_size,
        "column_size": components.column_size,
    }


def _jsonable(value: object) -> Any:
    """numpy scalars/arrays (in bit generator states) to plain JSON values."""
    if isinstance(value, Mapping):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    return value


def config_to_raw(config: GameConfig) -> dict[str, Any]:
    """The JSON object of ``config`` as saved games store it (read back by :func:`config_from_raw`)."""
    comps = config.components
    default = default_components()
    boards = config.boards
    return {
        "num_players": config.num_players,
        "mode": config.mode,
        "scenario": config.scenario,
        "boards": list(boards) if isinstance(boards, tuple) else boards,
        "auto_resolve": config.auto_resolve,
        "components": None if comps is default or comps == default else components_to_raw(comps),
    }


def _encode(value: Any) -> Any:
    if isinstance(value, list):
        return list(value)
    if isinstance(value, Phase):
        return value.name
    return value


def state_to_json(state: StateCore) -> str:
    """The whole state as JSON text (layout in the module docstring)."""
    bg = state.rng.bit_generator
    doc: dict[str, Any] = {
        "format": FORMAT_TAG,
        "version": SCHEMA_VERSION,
        "config": config_to_raw(state.config),
        "rng": {"bit_generator": type(bg).__name__, "state": _jsonable(bg.state)},
    }
    for f in _TOP_BEFORE:
        doc[f.key] = _encode(getattr(state, f.name))
    seat_values = [getattr(state, f.name) for f in _SEAT_FIELDS]
    doc["seats"] = [
        {f.key: _encode(values[s]) for f, values in zip(_SEAT_FIELDS, seat_values, strict=True)}
        for s in range(state.config.num_players)
    ]
    for f in _TOP_AFTER:
        doc[f.key] = _encode(getattr(state, f.name))
    return json.dumps(doc, separators=(",", ":"), allow_nan=False)


# ------------------------------------------------------------------------------ loading

# Configs with the default components, shared by loads (a GameConfig owns per-config caches).
_CONFIGS: dict[str, GameConfig] = {}


def config_from_raw(value: object) -> GameConfig:
    """The :class:`GameConfig` of a saved game's ``config`` object, checked field by field."""
    raw = _ck.mapping(value, "config", _CONFIG_KEYS)
    comps_raw = raw["components"]
    components: Components
    if comps_raw is None:
        components = default_components()
    else:
        try:
            components = parse_components(comps_raw, strict=False)
        except ComponentDataError as exc:
            msg = str(exc)
            sep = "" if msg.startswith(ROOT) else "."
            if msg.startswith(ROOT):
                msg = msg[len(ROOT) :]
            raise StateFormatError(f"config.components{sep}{msg}") from None
    boards = raw["boards"]
    key: str | None = None
    if comps_raw is None:
        # JSON text as the key: 0 and false, 2 and 2.0 stay distinct.
        key = json.dumps([raw[name] for name in _CONFIG_KEYS])
        cached = _CONFIGS.get(key)
        if cached is not None:
            return cached
    try:
        config = GameConfig(
            num_players=raw["num_players"],
            mode=raw["mode"],
            scenario=raw["scenario"],
            boards=tuple(boards) if isinstance(boards, list) else boards,
            auto_resolve=raw["auto_resolve"],
            components=components,
        )
    except (ValueError, TypeError) as exc:
        raise StateFormatError(f"config.{exc}") from None
    if key is not None:
        if len(_CONFIGS) > 256:
            _CONFIGS.clear()
        _CONFIGS[key] = config
    return config


def _load_rng(value: object) -> np.random.Generator:
    raw = _ck.mapping(value, "rng", _RNG_KEYS)
    name = raw["bit_generator"]
    if name not in _BIT_GENERATORS:
        _fail("rng.bit_generator", f"expected one of {_BIT_GENERATORS}, got {_describe(name)}")
    state = raw["state"]
    if not isinstance(state, Mapping):
        _fail("rng.state", f"expected an object, got {_describe(state)}")
    bg = getattr(np.random, name)(0)
    try:
        bg.state = dict(state)
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        _fail("rng.state", f"not a valid {name} state: {exc}")
    if _jsonable(bg.state) != state:
        _fail("rng.state", f"not a valid {name} state (it does not read back unchanged)")
    if name == "PCG64" and (problem := pcg64_problem(dict(state))) is not None:
        _fail("rng.state", f"not a valid PCG64 state: {problem}")  # the core's words (family.rng)
    return np.random.Generator(bg)


def state_from_json(text: str | bytes, cls: type[S]) -> S:
    """Load a state saved by :func:`state_to_json` as a ``cls`` (:class:`.state.GameState`).

    Raises:
        StateFormatError: the text is not JSON, not a saved state of this schema version, or
            an entry is invalid or inconsistent; the message starts with the entry's path.
    """
    try:
        doc = read_json_text(text, MAX_TEXT)
    except JsonTextError as exc:
        _fail(ROOT, str(exc))
    if not isinstance(doc, dict):
        _fail(ROOT, f"expected a JSON object, got {_describe(doc)}")
    if "format" in doc and doc["format"] != FORMAT_TAG:
        _fail("format", f"expected {FORMAT_TAG!r}, got {_describe(doc['format'])}")
    if "version" in doc:
        version = _ck.integer(doc["version"], "version")
        if version != SCHEMA_VERSION:
            _fail(
                "version",
                f"unsupported version {int_text(version)} (this engine reads version {SCHEMA_VERSION})",
            )
    _ck.mapping(doc, "", _STATE_KEYS)

    config = config_from_raw(doc["config"])
    state = cls._empty(config, _load_rng(doc["rng"]))
    limits = dict(state._st.limits)
    for f in _TOP_BEFORE:
        _load_field(state, f, doc[f.key], limits)
    _load_seats(state, doc["seats"], limits)
    for f in _TOP_AFTER:
        _load_field(state, f, doc[f.key], limits)
        if f.name == "piece":
            limits.update(piece_limits(state.piece))
    state.rebuild_masks()
    check_consistency(state)
    return state


def _load_field(state: StateCore, f: StateField, raw: object, limits: dict[str, int]) -> None:
    if f.name == "phase":
        value: Any = _load_phase(raw)
    elif f.name == "scenario":
        value = _load_scenario(raw, state.config)
    else:
        value = check_value(f, raw, f.key, limits, state)
    setattr(state, f.name, value)


def _load_seats(state: StateCore, raw: object, limits: dict[str, int]) -> None:
    """The seat objects: each per-seat field, seat by seat (boards set with their slots)."""
    config = state.config
    boards: list[str] = []
    values: dict[str, list[Any]] = {f.name: [] for f in _SEAT_FIELDS}
    for s, seat_raw in enumerate(_ck.sequence(raw, "seats", size=config.num_players)):
        path = f"seats[{s}]"
        entry = _ck.mapping(seat_raw, path, _SEAT_KEYS)
        for f in _SEAT_FIELDS:
            where = f"{path}.{f.key}"
            if f.name == "boards":
                boards.append(_load_board(entry[f.key], where, config, s, boards))
            else:
                values[f.name].append(check_value(f, entry[f.key], where, limits, state))
    for f in _SEAT_FIELDS:
        if f.name != "boards":
            setattr(state, f.name, values[f.name])
    state._set_boards(tuple(boards))


def _load_phase(raw: object) -> Phase:
    if not isinstance(raw, str):
        _fail("phase", f"expected a phase name, got {_describe(raw)}")
    if raw not in Phase.__members__:
        _fail("phase", f"unknown phase {raw!r} (known: {', '.join(Phase.__members__)})")
    return Phase[raw]


def _load_scenario(scenario: object, config: GameConfig) -> str | None:
    if config.mode == "base":
        if scenario is not None:
            _fail(
                "scenario",
                f"the base game has no scenario, expected null, got {_describe(scenario)}",
            )
        return None
    if not isinstance(scenario, str) or scenario not in SCENARIOS:
        _fail("scenario", f"expected one of {SCENARIOS}, got {_describe(scenario)}")
    if config.scenario not in (None, "random") and scenario != config.scenario:
        _fail("scenario", f"expected {config.scenario!r} (config.scenario), got {scenario!r}")
    return scenario


def _load_board(value: object, path: str, config: GameConfig, seat: int, before: list[str]) -> str:
    if config.mode == "base":
        if value != "camp":
            _fail(path, f"the base game uses the 'camp' side, got {_describe(value)}")
        return "camp"
    if not isinstance(value, str) or value not in LEGENDS_BOARDS:
        _fail(path, f"expected one of {LEGENDS_BOARDS}, got {_describe(value)}")
    if value in before:
        _fail(path, f"board {value!r} is used twice (also seats[{before.index(value)}])")
    configured = config.boards
    expected = LEGENDS_BOARDS[seat] if configured is None else None
    if isinstance(configured, tuple):
        expected = configured[seat]
    if expected is not None and value != expected:
        _fail(path, f"expected {expected!r} (config.boards), got {value!r}")
    return value
