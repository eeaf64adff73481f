"""Game replays in the browser: ``python -m agents.replay GAME -o replay.html``.

One self-contained HTML file (inline JavaScript, CSS and SVG: it opens from disk, with no
network and no server) shows a whole game: every position drawn as SVG from the same view
model as the pictures (:mod:`moonriver_env.moonriver.render.svg`), a slider and the arrow keys to step,
each move in words, the score by category over the game as a small chart, and the final
scores.

``GAME`` is a saved game of the play CLI (``save FILE`` or the autosave; it holds its moves),
a move list (:mod:`agents.move_list`), or a tournament folder run with ``--save-games K``
together with ``--game N``::

    python -m agents.tournament --agents mc,heuristic --games 20 --save-games 20 --out runs/t
    python -m agents.replay runs/t --game 17 -o game17.html

Modules: ``sources.py`` reads the game (:func:`load_game`), the game's ``replay`` hook (a
:class:`~moonriver_env.family.replay.ReplayGame` in its folder, e.g.
:mod:`moonriver_env.kingdomino.replay`) turns its moves into frames, ``page.py`` writes the
HTML.
Bad input (a corrupt or truncated file, a game index out of range, a tournament folder that
kept no games) raises :class:`ReplayError` and writes nothing.
"""

from __future__ import annotations

import os
from pathlib import Path

from moonriver_env.family.replay import Replay, ReplayGame

from ..atomic import write_text
from ..move_list import MoveList, MoveListError
from .page import render_page
from .sources import ReplayError, load_game, saved_games

__all__ = [
    "Replay",
    "ReplayError",
    "ReplayGame",
    "build_replay",
    "load_game",
    "replay_html",
    "saved_games",
    "write_replay",
]


def build_replay(moves: MoveList, title: str | None = None) -> Replay:
    """The frames of a game (:class:`ReplayError` if its moves do not replay)."""
    try:
        entry = moves.spec.entry
    except MoveListError as exc:
        raise ReplayError(str(exc)) from None
    game = entry.hook("replay")
    if game is None:
        raise ReplayError(f"game: {entry.title} has no replay")
    if title is None:
        title = f"{entry.title}: " + " vs ".join(moves.seats)
    try:
        return game.replay(moves, title)
    except MoveListError as exc:
        raise ReplayError(str(exc)) from None


def replay_html(moves: MoveList, title: str | None = None) -> str:
    """The replay page of a game, as HTML text."""
    return render_page(build_replay(moves, title))


def write_replay(
    source: str | os.PathLike[str],
    out: str | os.PathLike[str],
    game: int | None = None,
    title: str | None = None,
) -> Path:
    """Read a game (:func:`load_game`) and write its replay page to ``out``, atomically: on
    any error (:class:`ReplayError`: also an ``out`` that is a directory or cannot be
    written) nothing is written."""
    if Path(out).is_dir():
        raise ReplayError(f"-o: {os.fspath(out)!r} is a directory, not a file to write")
    moves = load_game(source, game)
    try:
        html = replay_html(moves, title)
    except ReplayError as exc:  # name the file whose moves do not replay
        where = os.fspath(source) + ("" if game is None else f" game {game}")
        raise ReplayError(f"{where!r}: {exc}") from None
    try:
        return write_text(out, html)
    except OSError as exc:
        reason = exc.strerror or exc
        raise ReplayError(f"-o: cannot write {os.fspath(out)!r} ({reason})") from None
