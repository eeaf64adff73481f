"""Consistency of a Kingdomino state, and loading a saved one (RULES.md section 13).

:func:`check_state` is what every state must satisfy: every domino of the game accounted for
exactly once (pile, box, discards, the lines, the kingdoms), each player's kings on the lines,
each kingdom made of its castle and the halves of its placed dominoes, inside its frame. The
random-play tests call it after every action; :func:`state_from_data` runs it on a loaded
state, so a saved state that breaks a rule is refused.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from moonriver_env.family.rng import pcg64_problem
from moonriver_env.kingdomino.rules.actions import action_layout
from moonriver_env.kingdomino.rules.components import NUM_DOMINOES, dominoes
from moonriver_env.kingdomino.rules.config import KingdominoConfig
from moonriver_env.kingdomino.rules.core import (
    FIELDS,
    NO_KING,
    SCHEMA_VERSION,
    Phase,
    StateFormatError,
)
from moonriver_env.kingdomino.rules.kingdom import Kingdom

DOMINOES = dominoes()

__all__ = ["check_state", "state_from_data"]


def _fail(path: str, detail: str) -> StateFormatError:
    return StateFormatError(f"{path}: {detail}")


def check_state(state: Any) -> None:
    """Raise :class:`StateFormatError` naming the first broken invariant."""
    cfg = state.config
    n = cfg.num_players
    size = cfg.line_size
    # Every domino exactly once.
    where: list[int] = [
        *state.pile,
        *state.box,
        *state.discarded,
        *(d for d in state.cur_line if d >= 0),
        *(d for d in state.next_line if d >= 0),
        *(d for p in state.placed for d in p),
    ]
    count = Counter(where)
    dup = sorted(d for d, k in count.items() if k > 1)
    if dup or sorted(count) != list(range(NUM_DOMINOES)):
        missing = sorted(set(range(NUM_DOMINOES)) - set(count))
        raise _fail("dominoes", f"each of the 48 exactly once; repeated {dup}, missing {missing}")
    if len(state.box) != NUM_DOMINOES - cfg.dominoes_in_play:
        raise _fail("box", f"expected {NUM_DOMINOES - cfg.dominoes_in_play} set-aside dominoes")
    if len(state.cur_line) != size or len(state.cur_kings) != size:
        raise _fail("cur_line", f"expected a line of {size}")
    if state.next_line and (len(state.next_line) != size or len(state.next_kings) != size):
        raise _fail("next_line", f"expected a line of {size} or none")
    if any(d < 0 for d in state.next_line):
        raise _fail("next_line", "a domino of the next line is missing")
    # Kings.
    kings = Counter(k for k in (*state.cur_kings, *state.next_kings) if k != NO_KING)
    if any(not 0 <= s < n for s in kings):
        raise _fail("cur_kings", f"a king of no seat 0..{n - 1}")
    per = cfg.kings_per_player
    if any(k > per for k in kings.values()):
        raise _fail("cur_kings", f"a seat has more than {per} king(s) on the lines")
    if (
        state.phase in (Phase.PLACE, Phase.PICK)
        and state.next_line
        and any(kings[s] != per for s in range(n))
    ):
        raise _fail("cur_kings", f"each seat must have {per} king(s) on the lines")
    for pos, k in enumerate(state.cur_kings):
        if k != NO_KING and state.cur_line[pos] < 0 and state.phase != Phase.PICK:
            raise _fail(f"cur_kings[{pos}]", "a king on a domino already placed")
    if state.phase == Phase.SETUP_PICK and (
        sum(kings.values()) != state.setup_idx or state.next_line
    ):
        raise _fail("setup_idx", "set-up picks and kings on the first line disagree")
    if state.phase in (Phase.PLACE, Phase.PICK):
        pos = state.turn_pos
        if not 0 <= pos < size or state.cur_kings[pos] != state.seat:
            raise _fail("turn_pos", "the acting seat's king is not at turn_pos")
        if state.phase == Phase.PLACE and state.cur_line[pos] < 0:
            raise _fail("turn_pos", "no domino to place at turn_pos")
        if any(k != NO_KING for k in state.cur_kings[:pos]):
            raise _fail("turn_pos", "a king above the acting one has not played")
    # Kingdoms.
    if len(state.kingdoms) != n or len(state.placed) != n:
        raise _fail("kingdoms", f"expected {n} kingdoms")
    for s, (kingdom, placed) in enumerate(zip(state.kingdoms, state.placed, strict=True)):
        _check_kingdom(kingdom, placed, cfg, f"kingdoms[{s}]")


def _check_kingdom(kingdom: Kingdom, placed: list[int], cfg: KingdominoConfig, path: str) -> None:
    board = kingdom.board
    if board.size != cfg.size:
        raise _fail(path, f"expected a {cfg.size} x {cfg.size} frame")
    union = 0
    for m in kingdom.land:
        if union & m:
            raise _fail(path, "a square with two landscapes")
        union |= m
    if union & board.castle_bit or union | board.castle_bit != kingdom.occupied:
        raise _fail(path, "the squares and the castle do not make up the kingdom")
    c1, c2, c3 = kingdom.crowns
    if c1 & ~union or c2 & ~c1 or c3 & ~c2:
        raise _fail(path, "crowns outside the squares")
    if kingdom.num_squares != 1 + 2 * len(placed):
        raise _fail(path, f"{kingdom.num_squares} squares for {len(placed)} dominoes placed")
    halves: Counter[tuple[int, int]] = Counter()
    for d in placed:
        dom = DOMINOES[d]
        halves[(int(dom.land1), dom.crowns1)] += 1
        halves[(int(dom.land2), dom.crowns2)] += 1
    squares = Counter((land, k) for _, land, k in kingdom.squares())
    if halves != squares:
        raise _fail(path, "the squares are not the halves of the dominoes placed")
    rows = [board.row_of[c] for c in range(board.cells) if kingdom.occupied >> c & 1]
    cols = [board.col_of[c] for c in range(board.cells) if kingdom.occupied >> c & 1]
    if (min(rows), max(rows), min(cols), max(cols)) != (
        kingdom.rmin,
        kingdom.rmax,
        kingdom.cmin,
        kingdom.cmax,
    ):
        raise _fail(path, "bounds disagree with the squares")
    if max(rows) - min(rows) >= board.size or max(cols) - min(cols) >= board.size:
        raise _fail(path, f"larger than the {board.size} x {board.size} frame")


def _ints(data: dict[str, Any], key: str, lo: int, hi: int) -> list[int]:
    value = data.get(key)
    if not isinstance(value, list):
        raise _fail(key, "expected a list of integers")
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            raise _fail(f"{key}[{i}]", f"expected an integer {lo}..{hi}, got {v!r}")
    return list(value)


def _int(data: dict[str, Any], key: str, lo: int, hi: int) -> int:
    v = data.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _fail(key, f"expected an integer {lo}..{hi}, got {v!r}")
    return v


def state_from_data(data: Any, cls: type) -> Any:
    """Build a state of class ``cls`` (:class:`~.state.KingdominoState`) from parsed JSON
    and check it; :class:`StateFormatError` on any fault."""
    if not isinstance(data, dict):
        raise _fail("<root>", "expected an object")
    schema = data.get("schema")
    if (
        isinstance(schema, bool)  # 1.0 and true equal 1 in Python; neither is the version
        or not isinstance(schema, int)
        or schema != SCHEMA_VERSION
        or data.get("game_name") != "kingdomino"
    ):
        raise _fail("schema", f"expected a Kingdomino state of schema {SCHEMA_VERSION}")
    missing = [k for k in FIELDS if k not in data]
    if missing:
        raise _fail(missing[0], "missing")
    raw_cfg = data.get("config")
    if not isinstance(raw_cfg, dict):
        raise _fail("config", "expected an object")
    try:
        cfg = KingdominoConfig(raw_cfg.get("num_players"), tuple(raw_cfg.get("variants") or ()))  # type: ignore[arg-type]
    except (TypeError, ValueError) as exc:
        raise _fail("config", str(exc)) from None
    n = cfg.num_players
    last = NUM_DOMINOES - 1
    state: Any = object.__new__(cls)
    state.config = cfg
    state.layout = action_layout(cfg)
    state._legal = None
    problem = pcg64_problem(data.get("rng"))  # the words the native core holds (family.rng)
    if problem is not None:
        raise _fail("rng", f"not a generator state: {problem}")
    try:
        rng = np.random.default_rng()
        rng.bit_generator.state = data["rng"]
    except (TypeError, ValueError, KeyError, OverflowError) as exc:
        raise _fail("rng", f"not a generator state: {exc}") from None
    state.rng = rng
    state.game = _int(data, "game", 0, cfg.num_games - 1)
    state.pile = _ints(data, "pile", 0, last)
    state.box = _ints(data, "box", 0, last)
    state.discarded = _ints(data, "discarded", 0, last)
    state.cur_line = _ints(data, "cur_line", -1, last)
    state.cur_kings = _ints(data, "cur_kings", -1, n - 1)
    state.next_line = _ints(data, "next_line", -1, last)
    state.next_kings = _ints(data, "next_kings", -1, n - 1)
    state.setup_order = _ints(data, "setup_order", 0, n - 1)
    if len(state.setup_order) != cfg.line_size:
        raise _fail("setup_order", f"expected {cfg.line_size} seats")
    state.setup_idx = _int(data, "setup_idx", 0, cfg.line_size)
    state.turn_pos = _int(data, "turn_pos", -1, cfg.line_size - 1)
    state.seat = _int(data, "seat", -1, n - 1)
    phase = data.get("phase")
    if not isinstance(phase, str) or phase not in Phase.__members__:
        raise _fail("phase", f"expected one of {', '.join(Phase.__members__)}, got {phase!r}")
    state.phase = Phase[phase]
    if state.phase == Phase.SETUP_PICK and state.seat != state.setup_order[state.setup_idx]:
        raise _fail("seat", "not the seat of the next set-up pick")
    if (state.phase == Phase.GAME_OVER) != (state.seat == -1):
        raise _fail("seat", "-1 exactly when the game is over")
    placed = data.get("placed")
    if not isinstance(placed, list) or len(placed) != n:
        raise _fail("placed", f"expected {n} lists")
    state.placed = [_ints({"p": p}, "p", 0, last) for p in placed]
    kingdoms = data.get("kingdoms")
    if not isinstance(kingdoms, list) or len(kingdoms) != n:
        raise _fail("kingdoms", f"expected {n} kingdom texts")
    state.kingdoms = []
    for s, text in enumerate(kingdoms):
        try:
            state.kingdoms.append(Kingdom.from_text(text, cfg.size))
        except (TypeError, ValueError) as exc:
            raise _fail(f"kingdoms[{s}]", str(exc)) from None
    results = data.get("results")
    if not isinstance(results, list) or len(results) != state.game:
        raise _fail("results", f"expected {state.game} finished games")
    state.results = [_ints({"r": r}, "r", 0, 10**6) for r in results]
    if any(len(r) != 2 * n for r in state.results):
        raise _fail("results", f"expected {2 * n} numbers per game")
    check_state(state)
    if state.phase != Phase.GAME_OVER and not state.legal_action_list():
        raise _fail("phase", "no legal action in a game that is not over")
    return state
