"""Where a replayed game comes from: a saved game of the play CLI, a move list, or a game of a
tournament run with ``--save-games K``; each is read into a :class:`~agents.move_list.MoveList`.
Anything that cannot be read raises :class:`ReplayError` naming the file and the problem."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

from ..file_format import read_text
from ..move_list import FORMAT as MOVES_FORMAT
from ..move_list import MoveList, MoveListError
from ..saved_game import FORMAT as SAVED_FORMAT
from ..saved_game import SavedGame
from ..tournament.gamesfile import CONFIG_FILE, MOVES_DIR

_GAME_FILE = re.compile(r"game-(\d+)\.json")


class ReplayError(ValueError):
    """A game that cannot be replayed (the message names the file and the problem)."""


def saved_games(folder: str | os.PathLike[str]) -> dict[int, Path]:
    """The move lists a tournament folder keeps, by game index (empty if none)."""
    moves = Path(folder) / MOVES_DIR
    if not moves.is_dir():
        return {}
    found = {}
    for path in moves.iterdir():
        match = _GAME_FILE.fullmatch(path.name)
        if match:
            found[int(match.group(1))] = path
    return dict(sorted(found.items()))


def _ranges(indexes: list[int]) -> str:
    """``[0, 1, 2, 5]`` as ``"0-2, 5"``."""
    parts: list[str] = []
    start = prev = indexes[0]
    for i in [*indexes[1:], None]:
        if i is not None and i == prev + 1:
            prev = i
            continue
        parts.append(str(start) if start == prev else f"{start}-{prev}")
        if i is not None:
            start = prev = i
    return ", ".join(parts)


def tournament_game(folder: str | os.PathLike[str], game: int | None) -> MoveList:
    """The move list of game ``game`` of the tournament in ``folder``."""
    path = Path(folder)
    if not (path / CONFIG_FILE).is_file():
        raise ReplayError(f"{str(path)!r}: not a tournament folder (no {CONFIG_FILE})")
    games = saved_games(path)
    if not games:
        raise ReplayError(
            f"{str(path)!r}: the tournament kept no games (run it with --save-games K to keep "
            "the move lists of its first K games)"
        )
    kept = _ranges(list(games))
    if game is None:
        raise ReplayError(f"{str(path)!r}: give the game to replay with --game N (kept: {kept})")
    if game not in games:
        raise ReplayError(f"game {game}: out of range; {str(path)!r} keeps games {kept}")
    try:
        return MoveList.load(games[game])
    except MoveListError as exc:
        raise ReplayError(str(exc)) from None


def _from_saved_game(path: Path, text: str) -> MoveList:
    try:
        saved = SavedGame.from_json(text)
    except ValueError as exc:
        raise ReplayError(f"{str(path)!r}: {exc}") from None
    if saved.actions is None:
        raise ReplayError(
            f"{str(path)!r}: the saved game does not hold its moves (saved by an older "
            "version), so it cannot be replayed"
        )
    seats = tuple(
        f"{saved.agents[s]} (seat {s})" if s in saved.agents else f"human (seat {s})"
        for s in range(saved.players)
    )
    moves = MoveList(
        players=saved.players,
        mode=saved.mode,
        scenario=saved.scenario,
        seed=saved.seed,
        seats=seats,
        actions=saved.actions,
        source=f"saved game {path.name}",
        game=saved.game,
    )
    try:
        last = moves.final_state()
    except MoveListError as exc:
        raise ReplayError(f"{str(path)!r}: {exc}") from None
    if last.to_json() != saved.state.to_json():
        raise ReplayError(
            f"{str(path)!r}: the saved moves do not lead to the saved position (the file was "
            "changed or is corrupt)"
        )
    return moves


def load_game(source: str | os.PathLike[str], game: int | None = None) -> MoveList:
    """The move list of a saved game file, a move list file, or (with ``game``) a tournament
    folder's game ``game``.

    Raises:
        ReplayError: a missing or unreadable source, a file that is none of these (corrupt,
            truncated), a tournament folder without kept games, a game index out of range.
    """
    path = Path(source)
    if path.is_dir():
        return tournament_game(path, game)
    if game is not None:
        raise ReplayError(f"--game: {str(path)!r} is a file; --game picks a tournament's game")
    text = read_text(path, ReplayError)
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise ReplayError(f"{str(path)!r}: not a game file (not JSON: {exc})") from None
    kind = raw.get("format") if isinstance(raw, dict) else None
    if kind == SAVED_FORMAT:
        return _from_saved_game(path, text)
    if kind == MOVES_FORMAT:
        try:
            return MoveList.from_dict(raw)
        except MoveListError as exc:
            raise ReplayError(f"{str(path)!r}: {exc}") from None
    raise ReplayError(
        f"{str(path)!r}: not a game file (expected a saved game {SAVED_FORMAT!r} or a move list "
        f"{MOVES_FORMAT!r})"
    )
