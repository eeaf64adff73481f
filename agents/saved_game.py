"""A game of the play CLI saved to a file and resumed (``save FILE``, ``--load FILE``, the
autosave when a game is left unfinished).

The file is JSON: the game (``"game"``, written for a game other than the default one), the seating (players, mode, scenario, seed, the agent spec of each agent
seat, the human seats), the number of decisions so far, the engine state in its game's versioned
save format (read back by the game's ``play`` hook, :mod:`moonriver_env.family.play`), so a saved game resumes exactly where
it stopped, draw pile included, and the moves played from the start (``actions``, absent from
files saved before it was kept), so the browser replay (:mod:`agents.replay`) can show them. Files are never overwritten silently: :func:`free_path` picks
a fresh name for autosaves, and the ``save`` command asks first.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from moonriver_env.family.play import PlayScreen
from moonriver_env.games import DEFAULT_GAME, game_entry

from .atomic import write_text
from .file_format import check_header, header, parse_json, read_parsed

FORMAT = "moonriver-play"
VERSION = 1


@dataclass(frozen=True)
class SavedGame:
    """What a saved game file holds (see the module docstring)."""

    players: int
    mode: str
    scenario: str | None
    seed: int
    agents: dict[int, str]  # seat -> agent spec
    humans: tuple[int, ...]
    decisions: int
    state: Any
    actions: tuple[int, ...] | None = None
    """Every action from the start (``None``: not known, a file saved without them)."""
    game: str = DEFAULT_GAME
    """The registered game played (:mod:`moonriver_env.games`)."""

    def to_json(self) -> str:
        return (
            json.dumps(
                {
                    **header(
                        FORMAT, VERSION, self, *(() if self.game == DEFAULT_GAME else ("game",))
                    ),
                    "agents": {str(s): spec for s, spec in sorted(self.agents.items())},
                    "humans": list(self.humans),
                    "decisions": self.decisions,
                    "state": json.loads(self.state.to_json()),
                    **({} if self.actions is None else {"actions": list(self.actions)}),
                },
                indent=1,
            )
            + "\n"
        )

    @classmethod
    def from_json(cls, text: str) -> SavedGame:
        """Read a saved game; ``ValueError`` naming what is wrong."""
        raw = check_header(
            parse_json(text, "saved game", ValueError), FORMAT, VERSION, "saved game", ValueError
        )
        try:
            name = raw.get("game", DEFAULT_GAME)
            screen = game_entry(name).hook("play")
            if not isinstance(screen, PlayScreen):
                raise ValueError(f"game: {name!r} cannot be played in the terminal")
            state = screen.load_state(json.dumps(raw["state"]))
            agents = {int(s): str(spec) for s, spec in dict(raw["agents"]).items()}
            actions = raw.get("actions")
            if actions is not None and (
                not isinstance(actions, list)
                or not all(isinstance(a, int) and not isinstance(a, bool) for a in actions)
            ):
                raise ValueError("actions: expected a list of action ids")
            game = cls(
                players=int(raw["players"]),
                mode=str(raw["mode"]),
                scenario=raw["scenario"],
                seed=int(raw["seed"]),
                agents=agents,
                humans=tuple(int(h) for h in raw["humans"]),
                decisions=int(raw["decisions"]),
                state=state,
                actions=None if actions is None else tuple(actions),
                game=name,
            )
        except KeyError as exc:
            raise ValueError(f"{exc.args[0]}: missing from the saved game") from None
        except (TypeError, AttributeError) as exc:
            raise ValueError(f"not a saved game ({exc})") from None
        seats = sorted([*agents, *game.humans])
        # the state's count first: a huge 'players' never builds a range
        if state.config.num_players != game.players or seats != list(range(game.players)):
            raise ValueError(
                f"seats: the saved game seats {seats} do not match its {game.players} players"
            )
        return game

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> SavedGame:
        return read_parsed(path, cls.from_json, ValueError, prefix="load: ")

    def save(self, path: str | os.PathLike[str]) -> Path:
        """Write the file (write then rename: a crash leaves the old file or the new one)."""
        return write_text(path, self.to_json())


def free_path(directory: str | os.PathLike[str], stem: str = "moonriver-save") -> Path:
    """A file name in ``directory`` that does not exist yet: ``<stem>-<time>.json``, with
    ``-2``, ``-3``, ... added if needed."""
    base = Path(directory) / f"{stem}-{time.strftime('%Y%m%d-%H%M%S')}"
    p = base.with_suffix(".json")
    k = 2
    while p.exists():
        p = Path(f"{base}-{k}.json")
        k += 1
    return p


def describe(game: SavedGame) -> dict[str, Any]:
    """The seating of a saved game, as the session's constructor takes it."""
    return {
        "players": game.players,
        "mode": game.mode,
        "scenario": game.scenario,
        "seed": game.seed,
        "human_seats": game.humans,
    }
