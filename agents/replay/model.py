"""What a replay page shows, game by game: the frames of a game as plain data.

A :class:`Replay` is what the page (:mod:`agents.replay.page`) needs and nothing
game-specific: per position the SVG pieces to show (deduplicated: a piece that does not change
between positions is stored once), the move that led there in words, and each seat's score by
category; and the final result. A game plugs in with a :class:`ReplayGame` that turns its
move list into a :class:`Replay`; :data:`agents.replay.games.GAMES` lists them by game name. Moon River's
(:class:`MoonRiverReplay`) draws every position with the SVG painter
(:mod:`moonriver_env.moonriver.render.svg`) from the same view model as the pictures
(:func:`moonriver_env.moonriver.render.table_view`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from moonriver_env.moonriver.render.svg import SvgDefs, legend_svg, ranch_svg, seat_hex, table_svg
from moonriver_env.moonriver.render.view import table_view
from moonriver_env.moonriver.rules import GameState
from moonriver_env.moonriver.rules.scoring import ScoreBreakdown

from ..move_list import MoveList


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
    """Turns a game's move list into a :class:`Replay` (one per game: Moon River, and later
    Kingdomino). Raises :class:`agents.move_list.MoveListError` for moves that do not replay."""

    name: str

    def replay(self, moves: MoveList, title: str) -> Replay: ...


Scores = tuple[tuple[int, ...], ...]
"""Per seat the score by category, then the total (:attr:`Frame.scores`)."""


@dataclass(frozen=True)
class Walk:
    """A game walked position by position (:func:`walk_frames`)."""

    pieces: tuple[str, ...]
    frames: tuple[Frame, ...]
    last: Any
    """The last position (the engine's state)."""


def walk_frames(moves: MoveList, draw: Callable[[Any], tuple[list[str], Scores]]) -> Walk:
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


def assemble_replay(moves: MoveList, title: str, setup: str, walk: Walk, **markup: Any) -> Replay:
    """The :class:`Replay` of a :class:`Walk`: the final scores are the last frame's (the
    last position says who won), the subtitle the game's ``setup``, seed, length and source;
    ``markup``: the :class:`Replay` fields ``categories``, ``defs`` and ``legend``."""
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
        seat_colours=tuple(seat_hex(s) for s in range(moves.players)),
        pieces=walk.pieces,
        frames=frames,
        final=final,
        finished=last.is_terminal,
        **markup,
    )


CATEGORIES = ("territories", "resources", "partners", "scenario")
"""Moon River's score categories (RULES.md section 5), in the order of the score table."""


def _score_row(score: ScoreBreakdown) -> tuple[int, ...]:
    return (*(getattr(score, c) for c in CATEGORIES), score.total)


class MoonRiverReplay:
    """Moon River's replay: a ranch per seat and the shared table per position."""

    name = "moonriver"

    def replay(self, moves: MoveList, title: str) -> Replay:
        defs = SvgDefs()
        labels = moves.seats

        def draw(state: GameState) -> tuple[list[str], Scores]:
            view = table_view(state, labels)
            shown = [ranch_svg(view, s, defs) for s in range(view.num_players)]
            shown.append(table_svg(view, defs))
            return shown, tuple(_score_row(s) for s in state.scores())

        walk = walk_frames(moves, draw)
        setup = f"{moves.players} players, {moves.mode}"
        if walk.last.scenario:
            setup += f", scenario {walk.last.scenario.replace('_', ' ')}"
        return assemble_replay(
            moves,
            title,
            setup,
            walk,
            categories=CATEGORIES,
            defs=defs.markup(),
            legend=legend_svg(),
        )
