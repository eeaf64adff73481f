"""Kingdoms: the text form and the legal placements, pinned by perft-style counts on
hand-built kingdoms and by a slow reference generator (RULES.md section 13, K4)."""

from __future__ import annotations

import random

import pytest

from moonriver_env.kingdomino import (
    Kingdom,
    KingdominoConfig,
    Phase,
    dominoes,
    new_game,
    placement_ids,
)

D = {d.number: d for d in dominoes()}
HOLE = "W0 W0 F0 F0 L0\n.. .. G0 G0 L0\nS0 S0 CC M0 M0\nG0 G0 F0 F0 W0\nF0 F0 S0 S0 W0"

# (name, kingdom text, frame, domino number, legal placement ids): counted by hand in the
# comments (a position is the two squares; an asymmetric domino has two orientations per
# position, a symmetric one a single action, ruling KR6).
PERFT = [
    # Castle only: 4 neighbours x 3 partner squares = 12 positions touching the castle.
    ("castle-asymmetric", "CC", 5, 13, 24),
    ("castle-symmetric", "CC", 5, 1, 12),
    ("castle-duel-frame", "CC", 7, 13, 24),
    # Castle with two wheat squares to its left: 9 positions touch the castle (either
    # orientation: 18), plus 13 with the wheat half next to a wheat square (line 108).
    ("beside-wheat-asymmetric", "W0 W0 CC", 5, 13, 31),
    ("beside-wheat-forest-symmetric", "W0 W0 CC", 5, 3, 9),
    # Five columns used: nothing may go further left or right (line 114): 6 positions at
    # the castle, 6 more beside the wheat squares.
    ("frame-full-width", "W0 W0 CC F0 F0", 5, 1, 12),
    # Two isolated holes in a full frame: no placement (only the discard, line 112).
    (
        "no-room",
        "W0 W0 F0 F0 L0\nL0 .. G0 G0 L0\nS0 S0 CC M0 M0\nG0 G0 F0 .. W0\nF0 F0 S0 S0 W0",
        5,
        1,
        0,
    ),
    # A hole of two squares away from the castle, beside wheat (above), swamp (below) and
    # grassland (right): forest-lake touches neither (0); wheat-swamp fits both ways (the
    # wheat half under the wheat, or the swamp half over the swamp: 2); forest-grassland only
    # with the grassland half next to the grassland (1).
    ("hole-forest-lake", HOLE, 5, 17, 0),
    ("hole-wheat-swamp", HOLE, 5, 16, 2),
    ("hole-forest-grassland", HOLE, 5, 18, 1),
]


@pytest.mark.parametrize(
    ("name", "text", "size", "number", "count"), PERFT, ids=[p[0] for p in PERFT]
)
def test_perft_counts(name: str, text: str, size: int, number: int, count: int) -> None:
    kingdom = Kingdom.from_text(text, size)
    ids = placement_ids(kingdom, D[number])
    assert ids == sorted(set(ids))
    assert ids == reference_placements(kingdom, D[number])
    assert len(ids) == count, f"{name}: {len(ids)} placements"


def reference_placements(kingdom: Kingdom, domino) -> list[int]:
    """The placement rules written out square by square (slow, independent of the
    bitboards): both squares empty and on the board, the kingdom within its frame, one
    half next to the castle or to a square of its landscape."""
    board = kingdom.board
    side = board.side
    occupied = {c for c in range(board.cells) if kingdom.square(c) is not None}
    rows = [c // side for c in occupied]
    cols = [c % side for c in occupied]
    steps = ((1, 0), (0, 1), (-1, 0), (0, -1))
    out = []
    for d, (dr, dc) in enumerate(steps):
        if domino.symmetric and d >= 2:
            continue
        for cell in range(board.cells):
            r, c = divmod(cell, side)
            r2, c2 = r + dr, c + dc
            if not (0 <= r2 < side and 0 <= c2 < side):
                continue
            other = r2 * side + c2
            if cell in occupied or other in occupied:
                continue
            rr, cc = rows + [r, r2], cols + [c, c2]
            if max(rr) - min(rr) >= board.size or max(cc) - min(cc) >= board.size:
                continue
            ok = False
            for sq, land in ((cell, domino.land1), (other, domino.land2)):
                sr, sc = divmod(sq, side)
                for ar, ac in steps:
                    nr, nc = sr + ar, sc + ac
                    if not (0 <= nr < side and 0 <= nc < side):
                        continue
                    nb = kingdom.square(nr * side + nc)
                    if nb is not None and (nb[0] < 0 or nb[0] == land):
                        ok = True
            if ok:
                out.append(d * board.cells + cell)
    return sorted(out)


@pytest.mark.parametrize("variants", [(), ("mighty_duel",)])
def test_placements_equal_the_reference_along_random_games(variants) -> None:
    cfg = KingdominoConfig(2, variants)
    checked = 0
    for seed in range(4):
        state = new_game(cfg, seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            if state.phase == Phase.PLACE:
                kingdom = state.kingdoms[state.seat]
                domino = state.current_domino()
                assert placement_ids(kingdom, domino) == reference_placements(kingdom, domino)
                checked += 1
            state.apply(rng.choice(state.legal_action_list()))
    assert checked >= 40


def test_text_form_round_trips_and_is_anchored_on_the_castle() -> None:
    text = "W1 .. ..\nF0 CC S2\n.. .. M3"
    k = Kingdom.from_text(text)
    assert k.to_text() == text
    assert Kingdom.from_text(k.to_text()) == k
    assert Kingdom.from_text("  \n" + text + "\n\n") == k
    assert k.num_squares == 5 and not k.is_complete
    assert k.square(k.board.castle) == (-1, 0)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("W0 CC\nX1 ..", "row 2, column 1"),
        ("W0 CC\nW4 ..", "row 2, column 1"),
        ("CC W0\nW0 CC", "row 2, column 2: a second castle"),
        ("W0 W0", "no castle"),
        ("CC W0\nW0", "row 2 has 1 cells"),
        ("", "empty"),
        ("CC W0 W0 W0 W0 W0 W0 W0", "more than the 7 x 7 frame"),
    ],
)
def test_a_malformed_kingdom_text_is_a_value_error_naming_the_place(
    text: str, message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        Kingdom.from_text(text)


def test_a_kingdom_wider_than_its_frame_is_refused() -> None:
    with pytest.raises(ValueError, match="5 x 5 frame"):
        Kingdom.from_text("CC W0 W0 W0 W0 W0", size=5)
    assert Kingdom.from_text("CC W0 W0 W0 W0 W0").size == 7
