"""A whole game kept as its move list: the game's setup, the environment seed and every action
taken in order, enough to play it again exactly (a game is fixed by its seed and its moves).

Written by ``agents.tournament --save-games K`` (one file per game, ``moves/game-<index>.json``
in the tournament folder) and read by the browser replay (:mod:`agents.replay`); a saved game
of the play CLI carries its moves too (:mod:`agents.saved_game`). The file is JSON::

    {"format": "moonriver-moves", "version": 1,
     "game": "moonriver",                               # which game (moonriver_env.games)
     "players": 2, "mode": "base", "scenario": null,   # the game, as configured
     "seed": 123,                                       # env.reset(seed=...)
     "seats": ["heuristic", "greedy"],                  # a label per seat
     "actions": [3, 17, ...],                           # every decision, in order
     "final_scores": [71, 64] | null,                   # the totals at the end, if finished
                                                        # (final_totals)
     "source": "tournament runs/t game 17"}             # where the game comes from

:meth:`MoveList.states` replays the moves on the engine and checks them: an illegal move, or
moves that do not end at the recorded scores, raise :class:`MoveListError`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moonriver_env.family.records import ScoreSheet
from moonriver_env.games import DEFAULT_GAME, GameSpec

from .atomic import write_text
from .file_format import check_header, header, parse_json, read_parsed

FORMAT = "moonriver-moves"
VERSION = 1


class MoveListError(ValueError):
    """A move list that cannot be read or does not replay (the message names the problem)."""


@dataclass(frozen=True)
class MoveList:
    """One game as its setup and moves (see the module docstring for the file)."""

    players: int
    mode: str
    scenario: str | None
    seed: int
    seats: tuple[str, ...]
    actions: tuple[int, ...]
    final_scores: tuple[int, ...] | None = None
    source: str = ""
    game: str = DEFAULT_GAME

    def to_json(self) -> str:
        return (
            json.dumps(
                {
                    **header(FORMAT, VERSION, self, "game"),
                    "seats": list(self.seats),
                    "actions": list(self.actions),
                    "final_scores": (
                        None if self.final_scores is None else list(self.final_scores)
                    ),
                    "source": self.source,
                }
            )
            + "\n"
        )

    @classmethod
    def from_json(cls, text: str) -> MoveList:
        """Read a move list; :class:`MoveListError` naming what is wrong."""
        return cls.from_dict(parse_json(text, "move list", MoveListError))

    @classmethod
    def from_dict(cls, raw: Any) -> MoveList:
        check_header(raw, FORMAT, VERSION, "move list", MoveListError)
        try:
            players = _int(raw["players"], "players")
            seats = raw["seats"]
            if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
                raise MoveListError("seats: expected a list of labels")
            if len(seats) != players:
                raise MoveListError(f"seats: expected {players} labels, got {len(seats)}")
            scores = raw["final_scores"]
            move_list = cls(
                players=players,
                mode=str(raw["mode"]),
                scenario=None if raw["scenario"] is None else str(raw["scenario"]),
                seed=_seed(raw["seed"]),
                seats=tuple(seats),
                actions=_ints(raw["actions"], "actions"),
                final_scores=None if scores is None else _ints(scores, "final_scores"),
                source=str(raw.get("source", "")),
                game=str(raw.get("game", "moonriver")),
            )
        except KeyError as exc:
            raise MoveListError(f"{exc.args[0]}: missing from the move list") from None
        if move_list.final_scores is not None and len(move_list.final_scores) != players:
            raise MoveListError(f"final_scores: expected {players} totals")
        return move_list

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> MoveList:
        return read_parsed(path, cls.from_json, MoveListError)

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the file atomically (write beside, then rename)."""
        return write_text(path, self.to_json())

    @property
    def spec(self) -> GameSpec:
        """The game played (:class:`moonriver_env.games.GameSpec`, its one home);
        :class:`MoveListError` for a game, player count, mode or scenario it refuses."""
        try:
            return GameSpec(
                game=self.game, num_players=self.players, mode=self.mode, scenario=self.scenario
            )
        except ValueError as exc:
            raise MoveListError(f"setup: {exc}") from None

    def initial_state(self) -> Any:
        """The game's first position: :func:`deal` of :attr:`seed` (:class:`MoveListError` for
        a seed the environment refuses)."""
        spec = self.spec
        try:
            return deal(spec, self.seed)
        except ValueError as exc:
            raise MoveListError(str(exc)) from None

    def states(self) -> Iterator[tuple[Any, int | None]]:
        """Each position in turn with the action played from it (``None`` for the last),
        states shared: clone one to keep it. Raises :class:`MoveListError` on an illegal
        move, or when the moves end at other scores than :attr:`final_scores`."""
        state = self.initial_state()
        for number, action in enumerate(self.actions, start=1):
            if state.is_terminal:
                raise MoveListError(f"move {number}: the game is already over")
            if not state.is_legal(action):
                raise MoveListError(
                    f"move {number}: action {action} is not legal in phase "
                    f"{getattr(state.phase, 'name', state.phase)}"
                )
            yield state, action
            state.apply(action)
        if self.final_scores is not None:
            totals = final_totals(state)
            if not state.is_terminal or totals != self.final_scores:
                raise MoveListError(
                    f"the moves end at scores {list(totals)}"
                    + ("" if state.is_terminal else " (game unfinished)")
                    + f", the file records {list(self.final_scores)}"
                )
        yield state, None

    def final_state(self) -> Any:
        """The position after every move (checked as :meth:`states` checks them)."""
        last = None
        for last, _ in self.states():  # noqa: B007 (the last one is the answer)
            pass
        assert last is not None
        return last


def final_totals(state: Any) -> tuple[int, ...]:
    """Each seat's result as :attr:`MoveList.final_scores` records it: the ``total`` of the
    game's score sheet (its ``records`` hook; Kingdomino: its points, a Dynasty's earlier games
    included)."""
    sheet = GameSpec.from_config(state.config).entry.hook("records")
    if not isinstance(sheet, ScoreSheet):
        raise MoveListError("game: the game declares no score columns (records hook)")
    return tuple(seat.scores["total"] for seat in sheet.read(state)[1])


def deal(spec: GameSpec, seed: int, env: Any = None) -> Any:
    """The first position of the game ``spec``'s environment deals on ``reset(seed=seed)``:
    the one mapping from a seed to a game, so a game is rebuilt from the seed it records
    (the runner's games, the tournaments' of both games, the play CLIs', a move list's).
    ``env``: an environment of ``spec`` to reuse (a worker's, kept between games)."""
    if env is None:
        env = spec.make_env()
    env.reset(seed=seed)
    assert env.state is not None
    return env.state


def _int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise MoveListError(f"{name}: expected an integer, got {value!r}")
    return value


def _seed(value: Any) -> int:
    seed = _int(value, "seed")
    if seed < 0:
        raise MoveListError(f"seed: expected a non-negative integer, got {seed}")
    return seed


def _ints(values: Any, name: str) -> tuple[int, ...]:
    if not isinstance(values, list):
        raise MoveListError(f"{name}: expected a list of integers")
    return tuple(_int(v, f"{name}[{i}]") for i, v in enumerate(values))
