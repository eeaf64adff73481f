"""Hand-made positions for the rules tests (not a test module itself).

A position starts from ``new_game(config, seed=...)`` (so the pile, the partner stack, the
saloon and the boards are the engine's own) and then overwrites what a test needs: one or
more seats' ranches, the held plots, the phase, the acting seat and the round bookkeeping.
Every other seat's ranch and held plots are cleared unless given, the cow supply is the
component count minus the cows standing on the ranches, and ``rebuild_masks()`` is called
last, so the bitboards and the legal-action cache agree with the per-cell lists.

Ranch grid text
---------------
One line per grid row, one whitespace-separated token per cell, 5 tokens a line (columns
``a`` to ``e``). The **river row is the last line**, so the text reads like the table seen
from the player's seat: the first line is the far row. A text with fewer lines than the
grid has rows gives the lowest rows; the rows above them are empty (handy for the 5 x 10
grid of 2 players). Blank lines and indentation are ignored.

Tokens::

    .          empty cell
    23         a plot of kind 23 (the kind numbers of RULES.md section 9: 23 = plain farm)
    A0 A1 B0 B1  a 2-player bonus tile, tile A or B, side 0 or 1 up (RULES.md section 9: A is
               meadow / forest, B is desert / canyon)
    14c2       suffix c<N>: N cows stand on the plot
    13pGs      suffix p<K><side>: a partner token; K is the specialist of the token:
               D Desperado, C Cattle Thief, G Gold Digger, T Trapper, F Farmer;
               side s = specialist side up, c = Cowboy side up (13pDc: a Desperado token
               turned to its Cowboy side)
    24c1pFs    both suffixes, cows first

Example (5 x 5, the river row last)::

    . . . . .
    . . . . .
    . . . . .
    23 . . . .
    1 1 6c1 6 6

puts a plain farm on a2, desert on a1 and b1, canyon on c1, d1, e1 with one cow on c1.

Held plots are given as kind numbers too (``held=[23, 19]`` = a farm and a forest); the
helper converts them to the engine's 0-based kind indices and sorts them, as ``state.held``
keeps them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from moonriver_env.rules import GameConfig, GameState, PartnerKind, Phase, new_game

COLS = 5
COLUMN_LETTERS = "abcde"

PARTNER_LETTERS: dict[str, PartnerKind] = {
    "D": PartnerKind.DESPERADO,
    "C": PartnerKind.CATTLE_THIEF,
    "G": PartnerKind.GOLD_DIGGER,
    "T": PartnerKind.TRAPPER,
    "F": PartnerKind.FARMER,
}
PARTNER_NAMES: dict[str, PartnerKind] = {
    "desperado": PartnerKind.DESPERADO,
    "thief": PartnerKind.CATTLE_THIEF,
    "cattle_thief": PartnerKind.CATTLE_THIEF,
    "gold_digger": PartnerKind.GOLD_DIGGER,
    "trapper": PartnerKind.TRAPPER,
    "farmer": PartnerKind.FARMER,
}

_TOKEN = re.compile(
    r"^(?P<content>\d+|[AB][01])(?:c(?P<cows>\d+))?(?:p(?P<kind>[DCGTF])(?P<side>[sc]))?$"
)


def cell(name: str) -> int:
    """Cell index of a name like ``c3`` (column letter, row number from 1 at the river)."""
    return (int(name[1:]) - 1) * COLS + COLUMN_LETTERS.index(name[0])


def cell_name(index: int) -> str:
    return f"{COLUMN_LETTERS[index % COLS]}{index // COLS + 1}"


def parse_ranch(
    text: str, rows: int, num_plot_kinds: int
) -> tuple[list[int], list[int], list[int]]:
    """Per-cell ``kinds``, ``cows``, ``partners`` lists of a grid text (module docstring)."""
    lines = [line.split() for line in text.strip().splitlines() if line.strip()]
    if len(lines) > rows:
        raise ValueError(f"ranch text has {len(lines)} rows, the grid has {rows}")
    cells = rows * COLS
    kinds = [-1] * cells
    cows = [0] * cells
    partners = [-1] * cells
    for i, tokens in enumerate(lines):
        row = len(lines) - 1 - i  # the last line is row 0 (the river)
        if len(tokens) != COLS:
            raise ValueError(f"ranch row {row + 1} has {len(tokens)} tokens, expected {COLS}")
        for col, tok in enumerate(tokens):
            c = row * COLS + col
            if tok == ".":
                continue
            m = _TOKEN.match(tok)
            if m is None:
                raise ValueError(f"bad ranch token {tok!r} at {cell_name(c)}")
            content = m["content"]
            if content[0] in "AB":
                kinds[c] = num_plot_kinds + 2 * "AB".index(content[0]) + int(content[1])
            else:
                number = int(content)
                if not 1 <= number <= num_plot_kinds:
                    raise ValueError(f"unknown plot kind {number} at {cell_name(c)}")
                kinds[c] = number - 1
            if m["cows"] is not None:
                cows[c] = int(m["cows"])
            if m["kind"] is not None:
                partners[c] = 2 * int(PARTNER_LETTERS[m["kind"]]) + (m["side"] == "c")
    return kinds, cows, partners


def render_ranch(state: GameState, seat: int) -> str:
    """The grid text of a seat's ranch (river row last), for assertion messages."""
    nk = state.kind_table.num_plot_kinds
    letters = {int(v): k for k, v in PARTNER_LETTERS.items()}
    rows = state.grid.rows
    out = []
    for row in reversed(range(rows)):
        toks = []
        for col in range(COLS):
            c = row * COLS + col
            k = state.kinds[seat][c]
            if k < 0:
                toks.append(".")
                continue
            tok = str(k + 1) if k < nk else "AB"[(k - nk) // 2] + str((k - nk) % 2)
            if state.cows[seat][c]:
                tok += f"c{state.cows[seat][c]}"
            p = state.partners[seat][c]
            if p >= 0:
                tok += f"p{letters[p // 2]}{'c' if p % 2 else 's'}"
            toks.append(tok)
        out.append(" ".join(f"{t:>7}" for t in toks))
    return "\n".join(out)


def kinds_of(numbers: Iterable[int]) -> list[int]:
    """0-based kind indices, sorted (as ``state.held`` keeps them), of kind numbers (RULES.md 9)."""
    return sorted(n - 1 for n in numbers)


def _partner(token: int | str) -> int:
    if isinstance(token, str):
        return -1 if token in ("", "-", ".") else int(PARTNER_NAMES[token])
    return int(token)


def position(
    config: GameConfig | None = None,
    *,
    ranch: str = "",
    seat: int = 0,
    held: Sequence[int] = (),
    phase: Phase | str = Phase.EXPAND,
    ranches: Mapping[int, str] | None = None,
    helds: Mapping[int, Sequence[int]] | None = None,
    dominoes: int = 0,
    claims: Sequence[int] | None = None,
    turn_pos: int = 0,
    column: Sequence[int] | None = None,
    next_column: Sequence[int] | None = None,
    next_claims: Sequence[int] | None = None,
    final_round: bool = False,
    final_turn: bool | None = None,
    saloon: Sequence[int | str] | None = None,
    stack: Sequence[int | str] | None = None,
    supply: int | None = None,
    pile: Sequence[int] | None = None,
    seed: int = 0,
) -> GameState:
    """Build a hand-made position (see the module docstring for the grid text).

    Args:
        config: the game (default: 4 players, base game: the rule cases are written for it).
        ranch: grid text of ``seat``'s ranch.
        seat: the acting seat.
        held: plots ``seat`` holds, as kind numbers (RULES.md section 9).
        phase: the phase to decide (a :class:`Phase` or its name).
        ranches / helds: other seats' ranches and held plots (default: empty).
        dominoes: dominoes already placed this turn.
        claims: the ranchero on each position of the current column (default: ``seat`` at
            position 0 and the other seats after it; 2 players ``[seat, other, other, seat]``).
        turn_pos: position of the acting ranchero in the current column.
        column: kind numbers of the current column, ``0`` for a collected/removed position
            (default: the engine's drawn column with collected and unclaimed positions cleared).
        next_column / next_claims: kind numbers (``0`` = none) and rancheros of the next column
            (default: drawn from the pile; earlier rancheros of the round are on it already).
        final_round / final_turn: the end-game flags (``final_turn`` defaults to the rule:
            final round and no later ranchero of ``seat`` in the column).
        saloon / stack: partner tokens (``PartnerKind`` ints or names, ``"-"`` for an empty space).
        supply: cows in the supply (default: component cows minus cows on the ranches).
        pile: kind numbers of the draw pile, next drawn last (default: the engine's).
    """
    config = config or GameConfig(num_players=4)
    state = new_game(config, seed=seed)
    n = config.num_players
    comps = config.components
    nk = len(comps.plots)
    rows = config.rows
    size = comps.column_size
    back = state.kind_table.back

    texts = dict(ranches or {})
    texts[seat] = ranch
    for s in range(n):
        kinds, cows, partners = parse_ranch(texts.get(s, ""), rows, nk)
        state.kinds[s] = kinds
        state.cows[s] = cows
        state.partners[s] = partners
    held_by = dict(helds or {})
    held_by[seat] = held
    for s in range(n):
        state.held[s] = kinds_of(held_by.get(s, ()))

    if claims is None:
        if n == 2:
            claims = [seat, 1 - seat, 1 - seat, seat]
        else:
            claims = [(seat + i) % n for i in range(n)] + [-1] * (size - n)
    state.cur_claim = list(claims)
    if column is None:
        cur = list(state.cur_col)
        for p in range(size):
            if p <= turn_pos or state.cur_claim[p] < 0:
                cur[p] = -1
    else:
        cur = [k - 1 if k > 0 else -1 for k in column]
    state.cur_col = cur
    if pile is not None:
        state.pile = [k - 1 for k in pile]
    if final_round:
        state.next_col = [-1] * size
        state.next_claim = [-1] * size
    else:
        if next_column is None:
            drawn = [state.pile.pop() for _ in range(size)]
            state.next_col = sorted(drawn, key=back.__getitem__)
        else:
            state.next_col = [k - 1 if k > 0 else -1 for k in next_column]
        if next_claims is None:
            state.next_claim = [state.cur_claim[p] if p < turn_pos else -1 for p in range(size)]
        else:
            state.next_claim = list(next_claims)
    state.turn_pos = turn_pos
    state.round = 1
    state.final_round = final_round
    if final_turn is None:
        final_turn = final_round and seat not in state.cur_claim[turn_pos + 1 :]
    state.final_turn = final_turn
    state.phase = Phase[phase] if isinstance(phase, str) else phase
    state.seat = seat
    state.dominoes = dominoes
    state.piece = []
    state.skulls = []
    state.circles = []
    state.reached_far = False
    state.effect_cell = -1
    state.cowboy_moves = 0
    if saloon is not None:
        state.saloon = [_partner(t) for t in saloon]
    if stack is not None:
        state.stack = [_partner(t) for t in stack]
    on_ranches = sum(sum(c) for c in state.cows)
    state.supply = comps.cows - on_ranches if supply is None else supply
    state.rebuild_masks()
    return state


def act(state: GameState, *texts: str) -> None:
    """Apply actions given in their text form, in order."""
    for text in texts:
        state.apply(state.string_to_action(text))


def legal_texts(state: GameState) -> list[str]:
    """The legal actions in their text form, in id order."""
    return [state.action_to_string(a) for a in state.legal_action_list()]


def legal_of(state: GameState, prefix: str) -> list[str]:
    """The legal actions whose text starts with ``prefix`` (e.g. ``"place"``)."""
    return [t for t in legal_texts(state) if t.startswith(prefix)]
