"""Consistency checks of a whole :class:`~.state.GameState` (RULES.md sections 1-7).

:func:`check_invariants` verifies what must hold between the fields of any reachable state:
that every component is accounted for exactly once, that the ranches obey the placement rules
the engine relies on (R5: no cow on a cornfield), that the bitboards agree with the per-cell
lists, and that the phase, the acting seat and the pending symbols fit together. The loader
(:func:`.serialization.state_from_json`) runs it on every loaded state; the random-play tests
run it after every action.

It first checks each field against its declaration (:data:`.core.STATE_FIELDS`: type, size,
bounds; :func:`check_fields`, the same checks the loader applies to the JSON, entry by entry),
then their consistency (:func:`check_consistency`, which assumes well-typed fields). Every failure is a :class:`StateFormatError` whose message starts with the
path of the offending entry, in the JSON layout of :mod:`.serialization`, e.g.
``seats[1].cows[7]: a cow stands on a cornfield (ruling R5)`` or
``plots[3]: 5 copies in play, expected 4 (components)``.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Mapping
from typing import Any, NoReturn

from moonriver_env.family.geometry import bit_indices
from moonriver_env.family.validation import Checker, Custom, Wording
from moonriver_env.moonriver.rules.components import Components, Landscape, PartnerKind
from moonriver_env.moonriver.rules.core import (
    STATE_FIELDS,
    SYMBOL_PHASES,
    Phase,
    StateCore,
    StateField,
)

__all__ = ["STATE_CHECK", "StateFormatError", "check_fields", "check_invariants", "check_value"]

CORN = int(Landscape.CORNFIELD)


class StateFormatError(ValueError):
    """An invalid or inconsistent saved state; the message starts with the entry's JSON path."""


STATE_CHECK = Checker(
    StateFormatError,
    Wording(
        integer="an int",
        typed=False,
        range_in_expected=True,
        missing="missing key",
        list_allowed=False,
    ),
)
"""The checks of saved states: messages like ``seats[2].cows[14]: expected an int in 0..32, got -1``."""
_fail = STATE_CHECK.fail

_SETUP_CLAIM = Phase.SETUP_CLAIM
_EXPAND = Phase.EXPAND
_MUST_EXPAND = Phase.MUST_EXPAND
_FINAL_EXPAND = Phase.FINAL_EXPAND
_DISCARD = Phase.DISCARD
_SKULL = Phase.SKULL
_RECRUIT = Phase.RECRUIT
_COWBOY = Phase.COWBOY
_DESPERADO = Phase.DESPERADO
_THIEF = Phase.THIEF
_BONUS = Phase.BONUS
_SELECT = Phase.SELECT
_GAME_OVER = Phase.GAME_OVER

# ------------------------------------------------------------------------------ fields


def piece_limits(piece: list[int]) -> dict[str, int]:
    """The bounds that the pending piece sets for ``skulls`` and ``circles``."""
    return {"piece": len(piece), "last_piece": max(len(piece) - 1, 0)}


def _sorted_held(held: list[int], path: str, state: StateCore) -> None:
    if held != sorted(held):
        _fail(path, f"expected plot kinds in ascending order, got {held}")


def _distinct_piece(piece: list[int], path: str, state: StateCore) -> None:
    if len(set(piece)) != len(piece):
        _fail(path, f"expected distinct cells, got {piece}")


def _skulls_of_piece(skulls: list[int], path: str, state: StateCore) -> None:
    for i, c in enumerate(skulls):
        if c not in state.piece or c in skulls[:i]:
            _fail(f"{path}[{i}]", f"expected a distinct cell of piece {state.piece}, got {c}")


def _distinct_circles(circles: list[int], path: str, state: StateCore) -> None:
    if len(set(circles)) != len(circles):
        _fail(path, f"expected distinct indices into piece, got {circles}")


# A field's own rule beyond its declared type and bounds (``state``: the fields before it).
_FIELD_RULES: dict[str, Callable[[Any, str, StateCore], None]] = {
    "held": _sorted_held,
    "piece": _distinct_piece,
    "skulls": _skulls_of_piece,
    "circles": _distinct_circles,
}


def check_value(
    f: StateField, value: object, path: str, limits: Mapping[str, int], state: StateCore
) -> Any:
    """``value`` of field ``f`` (one seat's entry for a per-seat field) checked against the
    field's declaration (:data:`.core.STATE_FIELDS`); returns it as a fresh list or scalar."""
    assert f.check is not None
    out = f.check.check(STATE_CHECK, value, path, limits)
    rule = _FIELD_RULES.get(f.name)
    if rule is not None:
        rule(out, path, state)
    return out


_CHECKED = tuple(f for f in STATE_FIELDS if f.check is not None and not isinstance(f.check, Custom))


def check_fields(state: StateCore) -> None:
    """Every saved field has its declared type, size and bounds (the loader checks the same
    on the JSON; this catches an engine change that breaks the declaration)."""
    n = state.config.num_players
    limits = {**state._st.limits, **piece_limits(state.piece)}
    for f in _CHECKED:
        value = getattr(state, f.name)
        if f.per_seat:
            STATE_CHECK.sequence(value, "seats", size=n)
            for s in range(n):
                check_value(f, value[s], f"seats[{s}].{f.key}", limits, state)
        else:
            check_value(f, value, f.key, limits, state)


# ------------------------------------------------------------------------------ consistency

# Expected sorted multisets per component set: id -> (components, plots, partner tokens).
_EXPECTED: dict[int, tuple[Components, list[int], list[int]]] = {}


def _expected(comps: Components) -> tuple[list[int], list[int]]:
    entry = _EXPECTED.get(id(comps))
    if entry is None or entry[0] is not comps:
        if len(_EXPECTED) > 64:
            _EXPECTED.clear()
        entry = _EXPECTED[id(comps)] = (comps, sorted(comps.plot_list()), comps.partner_list())
    return entry[1], entry[2]


def check_invariants(state: StateCore) -> None:
    """Raise :class:`StateFormatError` naming the first inconsistency of ``state``.

    Checks, in order: every field against its declaration (:func:`check_fields`); then the
    consistency of the fields (:func:`check_consistency`).
    """
    check_fields(state)
    check_consistency(state)


def check_consistency(state: StateCore) -> None:
    """Raise :class:`StateFormatError` naming the first inconsistency between the fields of
    a well-typed ``state`` (as :func:`check_fields` leaves it).

    Checks, in order: the phase, acting seat and columns fit together; the pending piece
    symbols fit the phase; per seat, the bitboards match ``kinds``/``cows``/``partners``, no
    cow on a cornfield or an empty cell, partners only on circle plots, at most one cow per
    plot once the game is over, the reserve fits the board; the bonus tiles (each placed at
    most once, never also available, at most one per seat, 2 players only); conservation of
    plots (by kind), cows and partner tokens (by kind); finally, a running game has a legal
    action and a finished one has none and no held plots.
    """
    _check_turn(state, state.phase, state.seat)
    placed: list[int] = []  # plot kinds and bonus tile pseudo-kinds on ranches and in hand
    partner_tokens: list[int] = []
    ranch_cows = 0
    for s in range(state.config.num_players):
        ranch_cows += _check_ranch(state, s, placed, partner_tokens)
        _check_reserve(state, s)
        placed.extend(state.held[s])
    # Bonus tiles: pseudo-kinds num_kinds + 2 * tile + side, 2 players only.
    num_kinds = state._st.kt.num_plot_kinds
    placed.sort()
    split = bisect_left(placed, num_kinds)
    if split < len(placed):
        _check_bonus(state, num_kinds)
    elif state.config.num_players != 2 and (any(state.tiles) or any(state.bonus_done)):
        _fail("tiles", "bonus tiles exist only with 2 players")
    _check_conservation(state, placed[:split], ranch_cows, partner_tokens)
    _check_legal_actions(state)


def _check_ranch(state: StateCore, s: int, placed: list[int], partner_tokens: list[int]) -> int:
    """Seat ``s``'s ranch: bitboards, cows (R5, overpopulation), partners on circles. Adds
    its placed contents and partner tokens to the lists; returns its cows."""
    kt = state._st.kt
    land, circle = kt.land, kt.circle
    kinds, cows, partners = state.kinds[s], state.cows[s], state.partners[s]
    path = f"seats[{s}]"
    # The bitboards drive the loops (set cells only); list.count proves the rest empty.
    occ = state.occ[s]
    occ_cells = bit_indices(occ)
    cow_bb = state.cow_bb[s]
    cow_cells = bit_indices(cow_bb)
    partner_cells = bit_indices(state.partner_bb[s])
    cells = len(kinds)
    land_bb = [0] * 6
    for c in occ_cells:
        k = kinds[c]
        if k < 0:
            _fail_masks(state, s)
        land_bb[land[k]] |= 1 << c
    if land_bb != state.land_bb[s] or kinds.count(-1) != cells - len(occ_cells):
        _fail_masks(state, s)
    if any(not cows[c] for c in cow_cells) or cows.count(0) != cells - len(cow_cells):
        _fail_masks(state, s)
    for c in partner_cells:
        if partners[c] < 0:
            _fail_masks(state, s)
        if occ >> c & 1 and not circle[kinds[c]]:
            _fail(f"{path}.partners[{c}]", "a partner stands on a plot without a circle")
        partner_tokens.append(partners[c] >> 1)
    if partners.count(-1) != cells - len(partner_cells):
        _fail_masks(state, s)
    if cow_bb & ~occ:
        c = bit_indices(cow_bb & ~occ)[0]
        _fail(f"{path}.cows[{c}]", f"{cows[c]} cow(s) on an empty cell")
    if cow_bb & land_bb[CORN]:
        c = bit_indices(cow_bb & land_bb[CORN])[0]
        _fail(f"{path}.cows[{c}]", "a cow stands on a cornfield (ruling R5)")
    if state.partner_bb[s] & ~occ:
        c = bit_indices(state.partner_bb[s] & ~occ)[0]
        _fail(f"{path}.partners[{c}]", "a partner stands on an empty cell")
    if cow_cells and min(cows) < 0:
        c = cows.index(min(cows))
        _fail(f"{path}.cows[{c}]", f"negative cow count {cows[c]}")
    if state.phase == _GAME_OVER and cow_cells and max(cows) > 1:
        c = cows.index(max(cows))
        _fail(f"{path}.cows[{c}]", f"{cows[c]} cows on one plot after overpopulation")
    placed.extend(kinds[c] for c in occ_cells)
    return sum(cows)


def _check_reserve(state: StateCore, s: int) -> None:
    """The reserve fits the board; the acting seat may hold one plot more while it plays."""
    held, slots = state.held[s], state.slots[s]
    small = state.phase in (_SETUP_CLAIM, _SELECT, _GAME_OVER) or s != state.seat
    limit = slots if small else slots + 1
    if len(held) > limit:
        _fail(
            f"seats[{s}].held",
            f"holds {len(held)} plots; at most {limit} fit (board "
            f"{state.boards[s]!r}, {slots} slots{'' if limit == slots else ' + 1 collected'})",
        )


def _check_conservation(
    state: StateCore, placed_plots: list[int], ranch_cows: int, partner_tokens: list[int]
) -> None:
    """Every plot, cow and partner token of the components is somewhere, exactly once."""
    comps = state.config.components
    expected_plots, expected_tokens = _expected(comps)
    plots = placed_plots
    plots.extend(state.pile)
    plots.extend(k for k in state.cur_col if k >= 0)
    plots.extend(k for k in state.next_col if k >= 0)
    plots.extend(state.removed)
    plots.extend(state.discarded)
    plots.sort()
    if plots != expected_plots:
        _fail_plots(plots, expected_plots)
    if ranch_cows + state.supply != comps.cows:
        _fail(
            "supply",
            f"{ranch_cows} cow(s) on ranches + {state.supply} in the supply = "
            f"{ranch_cows + state.supply}, expected {comps.cows} (components.cows)",
        )
    partner_tokens.extend(t for t in state.saloon if t >= 0)
    partner_tokens.extend(state.stack)
    partner_tokens.sort()
    if partner_tokens != expected_tokens:
        _fail_tokens(partner_tokens, expected_tokens)


def _check_legal_actions(state: StateCore) -> None:
    """A running game offers an action; a finished one none, and nobody holds plots."""
    try:
        legal = state.legal_action_list()
    except (IndexError, KeyError, ValueError, TypeError) as exc:  # safety net
        _fail("phase", f"cannot list the legal actions of phase {state.phase.name}: {exc!r}")
    if state.phase == _GAME_OVER:
        if legal:
            _fail("phase", f"GAME_OVER but {len(legal)} legal action(s)")
        for s in range(state.config.num_players):
            if state.held[s]:
                _fail(f"seats[{s}].held", "the game is over but the seat still holds plots")
    elif not legal:
        _fail("phase", f"{state.phase.name}: the game is not over but no action is legal")


def _check_turn(state: StateCore, phase: Phase, seat: int) -> None:
    """The phase, acting seat, setup progress, columns and pending piece fit together."""
    _check_setup_order(state)
    if phase == _GAME_OVER:
        _check_game_over(state)
        return
    n = state.config.num_players
    if not 0 <= seat < n:
        _fail("seat", f"phase {phase.name} needs an acting seat 0..{n - 1}, got {seat}")
    if phase == _SETUP_CLAIM:
        _check_setup(state)
        return
    _check_current_column(state)
    _check_next_column(state)
    _check_turn_phase(state)
    if phase in SYMBOL_PHASES:
        _check_piece(state)
        if phase not in (_SKULL, _RECRUIT):
            _check_effect(state)


def _check_setup_order(state: StateCore) -> None:
    cfg = state.config
    n = cfg.num_players
    order = state.setup_order
    if sorted(order) != [s for s in range(n) for _ in range(cfg.rancheros_per_seat)]:
        _fail(
            "setup_order",
            f"expected each seat 0..{n - 1} {cfg.rancheros_per_seat} time(s), got {order}",
        )


def _check_game_over(state: StateCore) -> None:
    if state.seat != -1:
        _fail("seat", f"the game is over, so no seat acts (-1), got {state.seat}")
    if state.piece or state.skulls or state.circles:
        _fail("piece", "the game is over but a piece is still being resolved")


def _check_setup(state: StateCore) -> None:
    """Setup (RULES.md section 2): claims follow ``setup_order`` on the first column."""
    order, seat = state.setup_order, state.seat
    cur_col, cur_claim = state.cur_col, state.cur_claim
    if state.round != 0:
        _fail("round", f"setup happens in round 0, got {state.round}")
    idx = state.setup_idx
    if idx >= len(order):
        _fail(
            "setup_idx",
            f"setup is complete ({idx} of {len(order)}) but the phase is SETUP_CLAIM",
        )
    if seat != order[idx]:
        _fail("seat", f"setup_order[{idx}] = {order[idx]} claims now, got seat {seat}")
    if sorted(c for c in cur_claim if c >= 0) != sorted(order[:idx]):
        _fail("cur_claim", f"the claims do not match setup_order[:{idx}]")
    for p, c in enumerate(cur_claim):
        if c >= 0 and cur_col[p] < 0:
            _fail(f"cur_claim[{p}]", "a claim on an empty column position")
    if any(c >= 0 for c in state.next_claim):
        _fail("next_claim", "no claims on the next column during setup")


def _check_current_column(state: StateCore) -> None:
    """A round: the ranchero at ``turn_pos`` acts; positions before it are collected."""
    name, seat = state.phase.name, state.seat
    if state.round < 1:
        _fail("round", f"phase {name} happens from round 1 on, got {state.round}")
    order = state.setup_order
    if state.setup_idx != len(order):
        _fail("setup_idx", f"setup is over, expected {len(order)}, got {state.setup_idx}")
    cur_col, cur_claim = state.cur_col, state.cur_claim
    pos = state.turn_pos
    if not 0 <= pos < len(cur_claim):
        _fail("turn_pos", f"expected a column position 0..{len(cur_claim) - 1}, got {pos}")
    if cur_claim[pos] != seat:
        _fail("seat", f"the ranchero at cur_claim[{pos}] is seat {cur_claim[pos]}, got seat {seat}")
    for p in range(len(cur_col)):
        if p <= pos:
            if cur_col[p] >= 0:
                _fail(f"cur_col[{p}]", f"position {p} <= turn_pos {pos} must be collected (-1)")
        elif (cur_claim[p] >= 0) != (cur_col[p] >= 0):
            _fail(
                f"cur_col[{p}]",
                "a claimed position must hold a plot and an unclaimed one none (ruling R12)",
            )


def _check_next_column(state: StateCore) -> None:
    """Selections on the next column are the rancheros who have played (none in the final
    round, ruling R6)."""
    next_col, next_claim = state.next_col, state.next_claim
    pos = state.turn_pos
    if state.final_round:
        if state.pile:
            _fail("pile", "the final round is played with an empty pile")
        if any(k >= 0 for k in next_col) or any(c >= 0 for c in next_claim):
            _fail("next_col", "there is no next column in the final round")
        if state.phase == _SELECT:
            _fail("phase", "no Select action in the final round")
        return
    if state.final_turn:
        _fail("final_turn", "a final turn outside the final round")
    before = sorted(c for c in state.cur_claim[:pos] if c >= 0)
    if sorted(c for c in next_claim if c >= 0) != before:
        _fail(
            "next_claim",
            f"expected selections by the rancheros of cur_claim[:{pos}] = {before}",
        )
    for p, c in enumerate(next_claim):
        if c >= 0 and next_col[p] < 0:
            _fail(f"next_claim[{p}]", "a claim on an empty column position")


def _check_turn_phase(state: StateCore) -> None:
    """The phase fits the turn: reserve overflow, dominoes (ruling R3), the bonus tile."""
    phase, seat = state.phase, state.seat
    name = phase.name
    held = len(state.held[seat])
    if phase == _FINAL_EXPAND and not state.final_turn:
        _fail("phase", "FINAL_EXPAND outside the player's final turn")
    if phase in (_MUST_EXPAND, _DISCARD) and held <= state.slots[seat]:
        _fail("phase", f"{name} needs a reserve overflow, seat {seat} holds {held} plot(s)")
    if phase == _EXPAND and state.dominoes >= 2:
        _fail("dominoes", "EXPAND after 2 dominoes this turn (ruling R3)")
    if state.dominoes > 2 and not state.final_turn:
        _fail("dominoes", f"at most 2 dominoes per turn (ruling R3), got {state.dominoes}")
    if phase == _BONUS and not state.bonus_done[seat]:
        _fail(f"seats[{seat}].bonus_done", "a seat taking a bonus tile is marked as done")


def _check_piece(state: StateCore) -> None:
    """The pending piece's symbols: skulls before circles and effects (RULES.md section 4)."""
    phase, seat = state.phase, state.seat
    name = phase.name
    kinds = state.kinds[seat]
    kt = state._st.kt
    piece = state.piece
    if not piece:
        _fail("piece", f"phase {name} resolves a piece, but none is pending")
    for i, c in enumerate(piece):
        if kinds[c] < 0:
            _fail(f"piece[{i}]", f"cell {c} of seat {seat}'s ranch is empty")
    for i, c in enumerate(state.skulls):
        if c not in piece or not kt.skull[kinds[c]]:
            _fail(f"skulls[{i}]", f"cell {c} is not a skull plot of the piece")
    for i, k in enumerate(state.circles):
        if k >= len(piece) or not kt.circle[kinds[piece[k]]]:
            _fail(f"circles[{i}]", f"{k} is not a circle plot of the piece")
    if phase == _SKULL:
        if not state.skulls:
            _fail("skulls", "phase SKULL with no pending skull")
        return
    if state.skulls:
        _fail("skulls", f"skulls resolve before circles and effects (phase {name})")
    if phase == _RECRUIT and not state.circles:
        _fail("circles", "phase RECRUIT with no pending circle")


# The partner whose effect a phase applies: (description, its code fits).
_EFFECT_PARTNER: dict[Phase, tuple[str, Callable[[int], bool]]] = {
    _COWBOY: ("a Cowboy", lambda code: code >= 0 and code & 1 == 1),
    _DESPERADO: (
        "a Desperado, specialist side up",
        lambda code: code == 2 * PartnerKind.DESPERADO,
    ),
    _THIEF: (
        "a Cattle Thief, specialist side up",
        lambda code: code == 2 * PartnerKind.CATTLE_THIEF,
    ),
}


def _check_effect(state: StateCore) -> None:
    """A partner's effect: the recruited token stands on ``effect_cell``, the right side up."""
    phase, seat = state.phase, state.seat
    name = phase.name
    cell = state.effect_cell
    if cell not in state.piece:
        _fail("effect_cell", f"phase {name} needs the cell of the recruited partner, got {cell}")
    code = state.partners[seat][cell]
    expected, fits = _EFFECT_PARTNER[phase]
    if not fits(code):
        _fail(
            f"seats[{seat}].partners[{cell}]",
            f"phase {name} needs {expected} here, got code {code}",
        )
    if phase == _COWBOY and not 1 <= state.cowboy_moves <= 3:
        _fail("cowboy_moves", f"a Cowboy has 1..3 moves left, got {state.cowboy_moves}")


def _fail_masks(state: StateCore, s: int) -> NoReturn:
    """Name the first cell where a bitboard disagrees with the per-cell lists."""
    kt = state._st.kt
    for name, cells, mask in (
        ("kinds", [k >= 0 for k in state.kinds[s]], state.occ[s]),
        ("cows", [k != 0 for k in state.cows[s]], state.cow_bb[s]),
        ("partners", [p >= 0 for p in state.partners[s]], state.partner_bb[s]),
    ):
        for c, full in enumerate(cells):
            if full != bool(mask >> c & 1):
                _fail(f"seats[{s}].{name}[{c}]", f"the bitboard disagrees with the cell ({name})")
    for c, k in enumerate(state.kinds[s]):
        for land, mask in enumerate(state.land_bb[s]):
            if bool(mask >> c & 1) != (k >= 0 and kt.land[k] == land):
                _fail(
                    f"seats[{s}].kinds[{c}]",
                    f"the landscape bitboard {land} disagrees with the cell",
                )
    _fail(f"seats[{s}]", "the bitboards disagree with the cells")


def _check_bonus(state: StateCore, num_kinds: int) -> None:
    if state.config.num_players != 2:
        _fail("tiles", "bonus tiles exist only with 2 players")
    owner: dict[int, int] = {}
    for s, kinds in enumerate(state.kinds):
        mine = 0
        for c, k in enumerate(kinds):
            if k >= num_kinds:
                path = f"seats[{s}].kinds[{c}]"
                tile = (k - num_kinds) // 2
                if tile in owner:
                    _fail(path, f"bonus tile {tile} is placed twice (also on seat {owner[tile]})")
                owner[tile] = s
                if state.tiles[tile]:
                    _fail(
                        path,
                        f"bonus tile {tile} is placed but also still available (tiles[{tile}])",
                    )
                mine += 1
                if mine > 1:
                    _fail(path, "a seat takes at most one bonus tile (ruling R19)")
                if not state.bonus_done[s]:
                    _fail(f"seats[{s}].bonus_done", "the seat placed a bonus tile")


def _fail_plots(got: list[int], expected: list[int]) -> NoReturn:
    size = max([*got, *expected], default=0) + 1
    have = [0] * size
    want = [0] * size
    for k in got:
        have[k] += 1
    for k in expected:
        want[k] += 1
    for k in range(size):
        if have[k] != want[k]:
            _fail(
                f"plots[{k}]",
                f"{have[k]} copies in play (pile, columns, reserves, ranches, removed, "
                f"discarded), expected {want[k]} (components)",
            )
    raise AssertionError("unreachable")  # pragma: no cover


def _fail_tokens(got: list[int], expected: list[int]) -> NoReturn:
    for kind in PartnerKind:
        have, want = got.count(kind), expected.count(kind)
        if have != want:
            _fail(
                f"partners.{kind.name.lower()}",
                f"{have} tokens (saloon, stack, ranches), expected {want} (components)",
            )
    raise AssertionError("unreachable")  # pragma: no cover
