"""What a replay page shows, game by game: the frames of a game as plain data (the
``replay`` hook of a :class:`~moonriver_env.games.GameEntry` is a :class:`ReplayGame`).

A :class:`Replay` is what the page (:mod:`agents.replay.page`) needs and nothing
game-specific: per position the SVG pieces to show (deduplicated: a piece that does not change
between positions is stored once), the move that led there in words, and each seat's score by
category; and the final result. A game plugs in with a :class:`ReplayGame` in its folder
(``replay.py``: :mod:`moonriver_env.moonriver.replay`, :mod:`moonriver_env.kingdomino.replay`)
that turns its move list (:class:`agents.move_list.MoveList`: players, mode, seed, seats,
actions, source and ``states()``) into a
:class:`Replay`; the replay command finds it through the game's entry.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol


@dataclass(frozen=True)
class Frame:
    """One position of the game."""

    pieces: tuple[int, ...]
    """Indexes into :attr:`Replay.pieces`, one per place on the page (a ranch each, then the
    shared table)."""
    move: str
    """The move that led here, in words (empty for the first position)."""
    actor: int | None
    """The seat that made that move."""
    scores: tuple[tuple[int, ...], ...]
    """Per seat the score by category (:attr:`Replay.categories`), then the total."""


@dataclass(frozen=True)
class FinalScore:
    """One seat's result at the end of the replayed moves."""

    seat: int
    label: str
    total: int
    categories: tuple[int, ...]
    winner: bool


@dataclass(frozen=True)
class Replay:
    """A whole game ready for the page."""

    title: str
    subtitle: str
    seats: tuple[str, ...]
    seat_colours: tuple[str, ...]
    categories: tuple[str, ...]
    defs: str
    """Markup shared by every piece (SVG symbols), placed once on the page."""
    legend: str
    """What the pictures' symbols mean (markup)."""
    pieces: tuple[str, ...]
    frames: tuple[Frame, ...]
    final: tuple[FinalScore, ...]
    finished: bool


class ReplayGame(Protocol):
    """Turns a game's move list into a :class:`Replay` (one per game, its ``replay`` hook).
    Raises the move list's error (:class:`agents.move_list.MoveListError`) for moves that do
    not replay."""

    name: str

    def replay(self, moves: Any, title: str) -> Replay: ...


Scores = tuple[tuple[int, ...], ...]
"""Per seat the score by category, then the total (:attr:`Frame.scores`)."""


@dataclass(frozen=True)
class Walk:
    """A game walked position by position (:func:`walk_frames`)."""

    pieces: tuple[str, ...]
    frames: tuple[Frame, ...]
    last: Any
    """The last position (the engine's state)."""


def walk_frames(moves: Any, draw: Callable[[Any], tuple[list[str], Scores]]) -> Walk:
    """Every position of ``moves`` as a :class:`Frame` (the one walk both games' replays
    share): ``draw(state)`` gives the position's pieces (markup, a ranch or kingdom per seat
    and then the shared table) and scores; equal pieces are stored once. Raises :class:`~agents.move_list.MoveListError` for
    moves that do not replay."""
    index: dict[str, int] = {}
    pieces: list[str] = []

    def piece(markup: str) -> int:
        k = index.get(markup)
        if k is None:
            k = index[markup] = len(pieces)
            pieces.append(markup)
        return k

    labels = moves.seats
    frames: list[Frame] = []
    move, actor = "", None
    state = None
    for state, action in moves.states():
        markups, scores = draw(state)
        shown = tuple(piece(m) for m in markups)
        frames.append(Frame(pieces=shown, move=move, actor=actor, scores=scores))
        if action is not None:
            actor = state.current_seat
            assert actor is not None
            move = f"{labels[actor]}: {state.action_to_string(action)}"
    assert state is not None
    return Walk(tuple(pieces), tuple(frames), state)


def assemble_replay(
    moves: Any,
    title: str,
    setup: str,
    walk: Walk,
    seat_colours: Sequence[str],
    **markup: Any,
) -> Replay:
    """The :class:`Replay` of a :class:`Walk`: the final scores are the last frame's (the
    last position says who won), the subtitle the game's ``setup``, seed, length and source;
    ``seat_colours``: a colour per seat; ``markup``: the :class:`Replay` fields
    ``categories``, ``defs`` and ``legend``."""
    last, frames = walk.last, walk.frames
    winners = set(last.winners()) if last.is_terminal else set()
    final = tuple(
        FinalScore(seat=s, label=label, total=row[-1], categories=row[:-1], winner=s in winners)
        for s, (label, row) in enumerate(zip(moves.seats, frames[-1].scores, strict=True))
    )
    subtitle = f"{setup}; seed {moves.seed}; {len(moves.actions)} moves"
    if moves.source:
        subtitle += f"; {moves.source}"
    return Replay(
        title=title,
        subtitle=subtitle,
        seats=moves.seats,
        seat_colours=tuple(seat_colours),
        pieces=walk.pieces,
        frames=frames,
        final=final,
        finished=last.is_terminal,
        **markup,
    )
