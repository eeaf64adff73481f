"""What the native core is told at start, read from the package's one home of each fact.

The core (``moonriver_env/_core``) types no table of its own: the component data
(:mod:`moonriver_env.moonriver.rules.components`, ``rules/data/components.json``), the action layout
(:mod:`moonriver_env.moonriver.rules.actions`), the ranch channels and feature slices
(:mod:`moonriver_env.moonriver.encoding`) are packed here into one int64 vector in the order the core
lists (``_native.spec_keys()``), and the core checks every entry. A game state crosses the
boundary as one record whose fields the core lists too (``_native.state_fields()``);
:func:`record_to_state` and :func:`state_to_record` convert it to and from
:class:`~moonriver_env.moonriver.rules.GameState`.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from moonriver_env.family.batch import fields_dtype
from moonriver_env.family.rng import put_generator, record_generator
from moonriver_env.moonriver.encoding import BOARD_NAMES, RANCH_CHANNEL_NAMES, ObservationEncoder
from moonriver_env.moonriver.rules import LEGENDS_BOARDS, SCENARIOS, GameConfig, GameState, Phase
from moonriver_env.moonriver.rules.actions import SEGMENTS
from moonriver_env.moonriver.rules.core import build_kind_table


def build_spec(native: ModuleType, config: GameConfig) -> np.ndarray:
    """The spec vector of ``config`` for ``native.Config``."""
    _check_names(native)
    comps = config.components
    kt = build_kind_table(config)
    layout = config.layout
    encoder = ObservationEncoder(config)
    if config.mode == "base":
        scenario = -2
    elif config.scenario in (None, "random"):
        scenario = -1
    else:
        scenario = SCENARIOS.index(config.scenario)
    if config.boards is None:
        boards_mode, boards = 0, list[int]()
    elif config.boards == "random":
        boards_mode, boards = 1, []
    else:
        boards_mode, boards = 2, [BOARD_NAMES.index(b) for b in config.boards]
    seg_start, seg_stride = [], []
    for name in native.SEGMENTS:
        seg = layout.by_name.get(name)
        seg_start.append(-1 if seg is None else seg.start)
        strides = [] if seg is None else list(seg.strides)
        seg_stride.extend(strides + [0] * (3 - len(strides)))
    values: dict[str, Any] = {
        "num_players": config.num_players,
        "rows": config.rows,
        "legends": int(config.mode == "legends"),
        "auto_resolve": int(config.auto_resolve),
        "scenario": scenario,
        "boards_mode": boards_mode,
        "boards": boards,
        "num_plot_kinds": kt.num_plot_kinds,
        "num_contents": len(kt.land),
        "land": kt.land,
        "gold": kt.gold,
        "beaver": kt.beaver,
        "corn": kt.corn,
        "cowsym": kt.cows,
        "skull": [int(x) for x in kt.skull],
        "circle": [int(x) for x in kt.circle],
        "back": kt.back,
        "num_plots": comps.num_plots,
        "plot_list": comps.plot_list(),
        "num_partners": comps.num_partners,
        "partner_list": comps.partner_list(),
        "board_bridges": [sum(1 << c for c in comps.boards[b].bridges) for b in BOARD_NAMES],
        "board_slots": [comps.boards[b].slots for b in BOARD_NAMES],
        "cows": comps.cows,
        "saloon_size": comps.saloon_size,
        "column_size": comps.column_size,
        "num_tiles": len(comps.bonus_tiles),
        "held_positions": layout.held,
        "num_pairs": len(layout.pairs),
        "pair_i": [i for i, _ in layout.pairs],
        "pair_j": [j for _, j in layout.pairs],
        "num_actions": layout.num_actions,
        "seg_start": seg_start,
        "seg_stride": seg_stride,
        "channels": [RANCH_CHANNEL_NAMES.index(name) for name in native.CHANNELS],
        "num_features": encoder.num_features,
        "features": [encoder.feature_slices[name].start for name in native.FEATURES],
    }
    parts: list[int] = []
    for name, size in native.spec_keys():
        value = values[name]
        entries = [int(x) for x in value] if isinstance(value, (list, tuple)) else [int(value)]
        if len(entries) > size:
            raise ValueError(
                f"the native core holds at most {size} entries of {name}, this config has "
                f"{len(entries)} (use the Python engine)"
            )
        parts.extend(entries + [0] * (size - len(entries)))
    return np.array(parts, dtype=np.int64)


def _check_names(native: ModuleType) -> None:
    """The core's enums must name the package's phases and segments in the same order."""
    if tuple(native.PHASES) != tuple(p.name for p in Phase):
        raise ImportError(
            "the native core's phases differ from moonriver_env.moonriver.rules.Phase"
        )
    if tuple(native.SEGMENTS) != tuple(name for name, _ in SEGMENTS):
        raise ImportError("the native core's action segments differ from rules.actions.SEGMENTS")


def record_dtype(native: ModuleType) -> np.dtype:
    """The NumPy dtype of one game record (``native.RECORD_SIZE`` bytes)."""
    return fields_dtype(native.state_fields(), native.RECORD_SIZE)


def record_to_state(config: GameConfig, rec: np.void) -> GameState:
    """The :class:`GameState` a record holds (the game's generator included)."""
    rng = record_generator(rec)
    n = config.num_players
    comps = config.components
    cells = config.rows * 5
    col = comps.column_size
    st = GameState._empty(config, rng)
    scenario = int(rec["scenario"])
    st.scenario = None if scenario < 0 else SCENARIOS[scenario]
    st.pile = rec["pile"][: rec["pile_len"]].tolist()
    st.removed = rec["removed"][: rec["removed_len"]].tolist()
    st.discarded = rec["discarded"][: rec["discarded_len"]].tolist()
    st.stack = rec["stack"][: rec["stack_len"]].tolist()
    st.saloon = rec["saloon"][: comps.saloon_size].tolist()
    st.cur_col = rec["cur_col"][:col].tolist()
    st.cur_claim = rec["cur_claim"][:col].tolist()
    st.next_col = rec["next_col"][:col].tolist()
    st.next_claim = rec["next_claim"][:col].tolist()
    st.supply = int(rec["supply"])
    st.round = int(rec["round"])
    st.final_round = bool(rec["final_round"])
    st.phase = Phase(int(rec["phase"]))
    st.seat = int(rec["seat"])
    st.setup_order = rec["setup_order"][: rec["setup_len"]].tolist()
    st.setup_idx = int(rec["setup_idx"])
    st.turn_pos = int(rec["turn_pos"])
    st.final_turn = bool(rec["final_turn"])
    st.dominoes = int(rec["dominoes"])
    st._set_boards(tuple(BOARD_NAMES[b] for b in rec["boards"][:n].tolist()))
    held = rec["held"].reshape(-1, _max_held(rec))
    st.held = [held[s][: rec["held_len"][s]].tolist() for s in range(n)]
    for name in ("kinds", "cows", "partners"):
        grid = rec[name].reshape(-1, len(rec[name]) // len(rec["held_len"]))
        setattr(st, name, [grid[s][:cells].tolist() for s in range(n)])
    st.bonus_done = [bool(x) for x in rec["bonus_done"][:n]]
    st.tiles = [bool(x) for x in rec["tiles"][: len(comps.bonus_tiles)]]
    st.piece = rec["piece"][: rec["piece_len"]].tolist()
    st.skulls = rec["skulls"][: rec["skulls_len"]].tolist()
    st.circles = rec["circles"][: rec["circles_len"]].tolist()
    st.reached_far = bool(rec["reached_far"])
    st.effect_cell = int(rec["effect_cell"])
    st.cowboy_moves = int(rec["cowboy_moves"])
    st.rebuild_masks()
    return st


def _max_held(rec: Any) -> int:
    return len(rec["held"]) // len(rec["held_len"])


def state_to_record(dtype: np.dtype, state: GameState) -> bytes:
    """The record of ``state`` (the core checks it again before it plays on from it)."""
    rec = np.zeros((), dtype=dtype)
    put_generator(rec, state.rng)

    def put(name: str, values: list[int], length: str | None = None) -> None:
        field = rec[name]
        if len(values) > field.shape[0]:
            raise ValueError(
                f"set_state: {name} has {len(values)} entries, the core holds {field.shape[0]}"
            )
        field[: len(values)] = values
        if length is not None:
            rec[length] = len(values)

    put("pile", state.pile, "pile_len")
    put("removed", state.removed, "removed_len")
    put("discarded", state.discarded, "discarded_len")
    put("stack", state.stack, "stack_len")
    for name in ("saloon", "cur_col", "cur_claim", "next_col", "next_claim"):
        put(name, getattr(state, name))
    rec["scenario"] = -1 if state.scenario is None else SCENARIOS.index(state.scenario)
    put("boards", [BOARD_NAMES.index(b) for b in state.boards])
    for name in ("supply", "round", "seat", "setup_idx", "turn_pos", "dominoes"):
        rec[name] = int(getattr(state, name))
    rec["final_round"] = int(state.final_round)
    rec["final_turn"] = int(state.final_turn)
    rec["phase"] = int(state.phase)
    put("setup_order", state.setup_order, "setup_len")
    width = _max_held(rec)
    cells_max = rec["kinds"].shape[0] // rec["held_len"].shape[0]
    held = np.zeros((rec["held_len"].shape[0], width), dtype=np.int8)
    for s, plots in enumerate(state.held):
        if len(plots) > width:
            raise ValueError(f"set_state: seat {s} holds {len(plots)} plots")
        held[s, : len(plots)] = plots
        rec["held_len"][s] = len(plots)
    rec["held"] = held.ravel()
    for name, fill in (("kinds", -1), ("cows", 0), ("partners", -1)):
        grid = np.full((rec["held_len"].shape[0], cells_max), fill, dtype=np.int8)
        for s, row in enumerate(getattr(state, name)):
            grid[s, : len(row)] = row
        rec[name] = grid.ravel()
    put("bonus_done", [int(x) for x in state.bonus_done])
    put("tiles", [int(x) for x in state.tiles])
    put("piece", state.piece, "piece_len")
    put("skulls", state.skulls, "skulls_len")
    put("circles", state.circles, "circles_len")
    rec["reached_far"] = int(state.reached_far)
    rec["effect_cell"] = state.effect_cell
    rec["cowboy_moves"] = state.cowboy_moves
    return rec.tobytes()


__all__ = [
    "LEGENDS_BOARDS",
    "build_spec",
    "record_dtype",
    "record_to_state",
    "state_to_record",
]
