"""What the native core is told about a Kingdomino game, read from the package's one home of
each fact, and a Kingdomino game crossing the boundary.

:func:`core_config` packs one config's facts (the action layout, the bonuses, the phase
numbers, the domino table, all from :mod:`moonriver_env.kingdomino`) into the int64 vector the
core's ``KdConfig`` checks. A game crosses as one record whose fields the core lists
(``_native.KD_GAME_FIELDS``): the engine's state fields (:data:`~moonriver_env.kingdomino.
core.FIELDS`, lists as an array and a length, kingdoms as per-cell landscape and crown grids)
and its generator; :func:`state_to_record` and :func:`record_to_state` convert it to and from
:class:`~moonriver_env.kingdomino.KingdominoState`.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np

from moonriver_env.family.batch import fields_dtype
from moonriver_env.family.rng import put_generator, record_generator
from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase
from moonriver_env.kingdomino.encoding import KingdominoEncoder
from moonriver_env.kingdomino.rules.actions import action_layout
from moonriver_env.kingdomino.rules.board import board_for
from moonriver_env.kingdomino.rules.components import NUM_DOMINOES
from moonriver_env.kingdomino.rules.kingdom import NUM_LANDSCAPES, Kingdom
from moonriver_env.kingdomino.rules.scoring import HARMONY_BONUS, MIDDLE_KINGDOM_BONUS
from moonriver_env.kingdomino.rules.state import DOMINOES

__all__ = ["core_config", "kd_record_dtype", "record_to_state", "state_to_record"]

CASTLE = NUM_LANDSCAPES  # the core's code of the castle square (KD_CASTLE)
EMPTY = -1


def core_config(native: ModuleType, config: KingdominoConfig) -> Any:
    """The core's checked ``KdConfig`` of ``config``."""
    layout = action_layout(config)
    head = [
        config.num_players,
        config.size,
        config.line_size,
        config.dominoes_in_play,
        int(config.has("must_place")),
        int(config.bonus_flags[0]),
        int(config.bonus_flags[1]),
        HARMONY_BONUS,
        MIDDLE_KINGDOM_BONUS,
        layout.discard,
        layout.pick_base,
        layout.num_actions,
        KingdominoEncoder(config).size,
        int(Phase.SETUP_PICK),
        int(Phase.PLACE),
        int(Phase.PICK),
        int(Phase.GAME_OVER),
        config.num_games,
    ]
    if len(DOMINOES) != NUM_DOMINOES:
        raise ValueError(f"the domino table has {len(DOMINOES)} dominoes, the core {NUM_DOMINOES}")
    table = []
    for d in DOMINOES:
        table += [d.land1, d.crowns1, d.land2, d.crowns2, d.number, int(d.symmetric)]
    vec = np.array(head + table, dtype=np.int64)
    if len(vec) != native.KD_PARAMS_LEN:
        raise ValueError(f"core params: {len(vec)} entries, the core reads {native.KD_PARAMS_LEN}")
    return native.KdConfig(vec.tobytes())


def kd_record_dtype(native: ModuleType) -> np.dtype:
    """The NumPy dtype of one Kingdomino record (``native.KD_RECORD_SIZE`` bytes)."""
    return fields_dtype(native.KD_GAME_FIELDS, native.KD_RECORD_SIZE)


def state_to_record(dtype: np.dtype, state: KingdominoState) -> bytes:
    """The record of ``state`` (the core checks it before it plays on from it).

    Raises:
        ValueError: a field does not fit the record (too long a list, a value out of range).
    """
    rec = np.zeros((), dtype=dtype)
    put_generator(rec, state.rng)
    n = state.config.num_players
    try:
        for name in ("pile", "box", "discarded"):
            values = getattr(state, name)
            rec[name][: len(values)] = values
            rec[f"{name}_len"] = len(values)
        placed = rec["placed"].reshape(-1, NUM_DOMINOES)
        for s, dominoes in enumerate(state.placed):
            placed[s, : len(dominoes)] = dominoes
            rec["placed_len"][s] = len(dominoes)
        rec["placed"] = placed.ravel()
        for name in ("cur_line", "cur_kings", "next_line", "next_kings", "setup_order"):
            values = getattr(state, name)
            rec[name] = -1
            rec[name][: len(values)] = values
        rec["has_next"] = int(bool(state.next_line))
        for name in ("phase", "seat", "turn_pos", "setup_idx", "game"):
            rec[name] = int(getattr(state, name))
        results = rec["results"].reshape(-1, rec["placed_len"].shape[0], 2)
        for g, row in enumerate(state.results):
            results[g, :n] = np.reshape(row, (n, 2))
        rec["results"] = results.ravel()
        land = np.full((len(rec["placed_len"]), len(rec["land"]) // len(rec["placed_len"])), EMPTY)
        crowns = np.zeros_like(land)
        for s, kingdom in enumerate(state.kingdoms):
            land[s, kingdom.board.castle_bit.bit_length() - 1] = CASTLE
            for cell, landscape, k in kingdom.squares():
                land[s, cell] = landscape
                crowns[s, cell] = k
        rec["land"] = land.ravel()
        rec["crowns"] = crowns.ravel()
    except (IndexError, OverflowError, TypeError, ValueError) as exc:
        raise ValueError(f"state: does not fit the core's record: {exc}") from None
    return rec.tobytes()


def record_to_state(config: KingdominoConfig, rec: Any) -> KingdominoState:
    """The :class:`KingdominoState` a record holds (the game's generator included)."""
    n = config.num_players
    line = config.line_size
    seats = len(rec["placed_len"])
    state = object.__new__(KingdominoState)
    state.config = config
    state.layout = action_layout(config)
    state.rng = record_generator(rec)
    state._legal = None
    for name in ("pile", "box", "discarded"):
        setattr(state, name, rec[name][: rec[f"{name}_len"]].tolist())
    placed = rec["placed"].reshape(seats, -1)
    state.placed = [placed[s, : rec["placed_len"][s]].tolist() for s in range(n)]
    has_next = bool(rec["has_next"])
    for name in ("cur_line", "cur_kings", "setup_order"):
        setattr(state, name, rec[name][:line].tolist())
    for name in ("next_line", "next_kings"):
        setattr(state, name, rec[name][:line].tolist() if has_next else [])
    state.phase = Phase(int(rec["phase"]))
    for name in ("seat", "turn_pos", "setup_idx", "game"):
        setattr(state, name, int(rec[name]))
    results = rec["results"].reshape(-1, seats, 2)
    state.results = [results[g, :n].ravel().tolist() for g in range(state.game)]
    board = board_for(config.size)
    land = rec["land"].reshape(seats, -1)
    crowns = rec["crowns"].reshape(seats, -1)
    state.kingdoms = [_kingdom(board, land[s], crowns[s]) for s in range(n)]
    return state


_KINGDOMS: dict[tuple[int, bytes, bytes], Kingdom] = {}
"""The kingdoms read from records, by their squares: a kingdom never changes, so states read
from records share it, with its memo (an agent's derived values), as the engine's states do;
read again for every decision of a batched game's opponents (``get_state``)."""
_KINGDOMS_KEPT = 8192


def _kingdom(board: Any, land: np.ndarray, crowns: np.ndarray) -> Kingdom:
    key = (board.size, land[: board.cells].tobytes(), crowns[: board.cells].tobytes())
    kingdom = _KINGDOMS.get(key)
    if kingdom is None:
        if len(_KINGDOMS) >= _KINGDOMS_KEPT:
            _KINGDOMS.clear()
        kingdom = _KINGDOMS[key] = _read_kingdom(board, land, crowns)
    return kingdom


def _read_kingdom(board: Any, land: np.ndarray, crowns: np.ndarray) -> Kingdom:
    masks = [0] * NUM_LANDSCAPES
    crown_masks = [0, 0, 0]
    occupied = 0
    rows, cols = [], []
    for cell in np.flatnonzero(land[: board.cells] != EMPTY).tolist():
        bit = 1 << cell
        occupied |= bit
        rows.append(board.row_of[cell])
        cols.append(board.col_of[cell])
        if land[cell] != CASTLE:
            masks[int(land[cell])] |= bit
            for k in range(int(crowns[cell])):
                crown_masks[k] |= bit
    bounds = (min(rows), max(rows), min(cols), max(cols))
    return Kingdom(
        board, tuple(masks), (crown_masks[0], crown_masks[1], crown_masks[2]), occupied, bounds
    )
