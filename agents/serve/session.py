"""One browser's game: a :class:`~agents.play.PlaySession` driven move by move.

The terminal command asks for a human's move and lets the agents play in one loop; the web
app answers requests instead: :meth:`WebGame.play_human` plays the move a browser clicked,
:meth:`WebGame.step_agent` one agent decision (timed, with the candidates an ``az`` search
weighed), :meth:`WebGame.undo` takes back the humans' last move while nothing was revealed
since, and :meth:`WebGame.view` says what the page shows. Every game is reached through the
registry: its pictures and score categories from its ``replay`` hook, its move words from its
``play`` hook, the places to click from its ``board`` hook
(:class:`~moonriver_env.family.board.BoardView`); nothing here names a game.

Only what every seat may see leaves the server: the pictures (the public table), the scores,
the moves played in words and the acting human's legal moves. The engine's state, whose
draw pile is hidden information, never does.
"""

from __future__ import annotations

import os
import re
import secrets
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from moonriver_env.games import GameSpec, game_entry

from ..base import check_game
from ..move_list import deal
from ..play import PlaySession
from ..registry import make_agent
from ..saved_game import free_path

__all__ = [
    "HUMAN",
    "GameError",
    "WebGame",
    "default_agent",
    "save_path",
]

HUMAN = "human"
"""The seat spec of a human player."""
LAST_RESORT = "random"
"""The agent seated by default where none of the game's ``strongest`` plays the table (every
game offers it)."""
TOP_CANDIDATES = 5
"""How many of the moves a search weighed the page shows."""
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_. -]{0,79}")


class GameError(ValueError):
    """A request the game refuses; ``code`` names the error, ``status`` is its HTTP status.
    The game is unchanged."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


@dataclass(frozen=True)
class DefaultAgent:
    """The agent seated by default at a table: ``spec``, and ``note`` saying why when it is
    not the game's strongest (empty otherwise)."""

    spec: str
    note: str = ""

    def as_json(self) -> dict[str, str]:
        return {"agent": self.spec, "note": self.note}


_DEFAULTS: dict[str, DefaultAgent] = {}
_DEFAULTS_LOCK = threading.Lock()


def default_agent(spec: GameSpec) -> DefaultAgent:
    """The agent seated by default at the table ``spec``: the first of the game's ``strongest``
    hook (strongest first) that plays it (a model agent plays only the tables it has a model
    for), else :data:`LAST_RESORT`; with a note naming the stronger agents passed over and
    why. ``ValueError`` for a table the game refuses."""
    key = spec.text
    with _DEFAULTS_LOCK:
        known = _DEFAULTS.get(key)
    if known is not None:
        return known
    config = spec.config()  # a table the game refuses: its ValueError
    choices = [*(spec.entry.hook("strongest") or ()), LAST_RESORT]
    passed: list[str] = []
    known = DefaultAgent(LAST_RESORT)
    for choice in choices:
        try:
            check_game(make_agent(choice, seed=0, game=spec.game), config)
        except (ValueError, RuntimeError, ImportError) as exc:
            passed.append(f"{choice}: {_reason(exc)}")
            continue
        note = ""
        if passed:
            note = (
                f"{'; '.join(passed)}. The seats default to {choice}, the strongest agent "
                "that plays this table."
            )
        known = DefaultAgent(choice, note)
        break
    with _DEFAULTS_LOCK:
        _DEFAULTS[key] = known
    return known


def _reason(exc: BaseException) -> str:
    """An agent's refusal in short: ``no shipped az model for 3p_base`` of ``game: no shipped
    az model for 3p_base (looked for ...); give one ...``."""
    text = str(exc).split(" (", 1)[0].split("; ", 1)[0]
    field, sep, rest = text.partition(": ")
    return rest if sep and " " not in field else text


def save_path(folder: str | os.PathLike[str], name: Any) -> Path:
    """The file ``name`` in the save folder (``.json`` added when missing); a
    :class:`GameError` ``bad_name`` for anything else: a path separator, ``..``, an absolute
    path, a leading dot, other characters, or a name whose file would lie outside."""
    if not isinstance(name, str) or not _NAME.fullmatch(name) or ".." in name:
        raise GameError(
            "bad_name",
            "name: expected a file name of letters, digits, spaces and . _ - (no folders, "
            f"at most 80 characters), got {name!r}",
        )
    if not name.lower().endswith(".json"):
        name += ".json"
    root = Path(folder).resolve()
    path = (root / name).resolve()
    if path.parent != root:
        raise GameError("bad_name", f"name: {name!r} lies outside the save folder")
    return path


@dataclass
class _Undo:
    """The position before a human's move (what :meth:`WebGame.undo` goes back to)."""

    state: Any
    actions: list[int] | None
    decisions: int
    log: int
    round: Any


@dataclass
class Move:
    """A move played, as the page lists it."""

    seat: int
    words: str
    think_ms: float | None = None
    candidates: list[dict[str, Any]] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"seat": self.seat, "words": self.words}
        if self.think_ms is not None:
            out["think_ms"] = round(self.think_ms, 1)
        if self.candidates:
            out["candidates"] = self.candidates
        return out


class _OnePosition:
    """The one position a replay hook draws (the move list it reads, reduced to the
    fields the replays use)."""

    def __init__(self, game: WebGame) -> None:
        self.players = game.players
        self.mode = game.mode
        self.scenario = game.scenario
        self.seed = game.seed
        self.seats = tuple(game.names)
        self.actions = tuple(game.actions or ())
        self.source = ""
        self.game = game.game.game
        self._state = game.state

    def states(self) -> Any:
        yield self._state, None


class WebGame(PlaySession):
    """One browser's game (the module docstring). Build it as a :class:`PlaySession`
    (``human_seats``, ``opponents``, ...) or :meth:`resume` a saved one; ``candidates``:
    list the moves an agent's search weighed (agents that keep their last search as
    ``last``, such as ``az``)."""

    def __init__(self, *args: Any, candidates: bool = True, **kwargs: Any) -> None:
        kwargs.setdefault("keep_finished", True)
        super().__init__(*args, **kwargs)
        self.candidates = candidates
        self.lock = threading.Lock()
        self.log: list[Move] = []
        self._undo: list[_Undo] = []
        self.autosave_path = free_path(
            self.save_dir, stem=f"{self.game.game}-web-{secrets.token_hex(3)}"
        )
        self.saved_to: Path | None = None
        self.save_error: str | None = None
        self.names = [
            f"{self.specs[s]} (seat {s})" if s in self.agents else f"you (seat {s})"
            if len(self.humans) == 1 else f"human (seat {s})"
            for s in range(self.players)
        ]  # fmt: skip
        if self.actions and self.decisions:  # resumed: the moves so far, in words
            self._relog()

    @classmethod
    def new(
        cls,
        game: str,
        seats: Sequence[str],
        mode: str = "base",
        scenario: str | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> WebGame:
        """A new game: ``seats`` holds ``"human"``, an agent spec, or ``""`` (the table's
        :func:`default_agent`) per seat (a :class:`GameError` ``bad_setup`` naming what is
        wrong)."""
        try:
            game_entry(game)
        except ValueError as exc:
            raise GameError("unknown_game", str(exc)) from None
        specs = [str(s).strip() for s in seats]
        humans = [s for s, spec in enumerate(specs) if spec.lower() == HUMAN]
        try:
            if "" in specs:
                table = GameSpec(game=game, num_players=len(specs), mode=mode, scenario=scenario)
                fallback = default_agent(table).spec
                specs = [spec or fallback for spec in specs]
            opponents = [spec for spec in specs if spec.lower() != HUMAN]
            return cls(
                players=len(specs),
                opponents=opponents,
                human_seats=humans,
                seed=seed,
                mode=mode,
                scenario=scenario,
                game=game,
                **kwargs,
            )
        except (ValueError, RuntimeError, ImportError) as exc:
            raise GameError("bad_setup", str(exc)) from None

    @classmethod
    def resume(cls, path: str | os.PathLike[str], **kwargs: Any) -> WebGame:
        """The game of a saved file (``ValueError`` naming what is wrong with it)."""
        game = super().resume(path, **kwargs)
        assert isinstance(game, WebGame)
        return game

    # --------------------------------------------------------------------------- moves

    def _relog(self) -> None:
        assert self.actions is not None
        state = deal(self.game, self.seed)
        for action in self.actions:
            seat = state.current_seat
            self.log.append(Move(seat, self.screen.move_words(state, action)))
            state.apply(action)

    def _require_live(self) -> Any:
        state = self.state
        if state.is_terminal:
            raise GameError("game_over", "the game is over", 409)
        return state

    def play_human(self, action: Any) -> Move:
        """Play a human's move (an action id). :class:`GameError`: ``bad_move`` (not an
        int), ``not_your_turn`` (an agent is to play), ``illegal_move``, ``game_over``."""
        if isinstance(action, bool) or not isinstance(action, int):
            raise GameError("bad_move", f"action: expected an action id, got {action!r}")
        state = self._require_live()
        seat = state.current_seat
        if seat in self.agents:
            raise GameError("not_your_turn", f"seat {seat} is an agent's: let it play", 409)
        if not state.is_legal(action):
            raise GameError(
                "illegal_move",
                f"action {action} is not a legal move now ({len(state.legal_action_list())} legal)",
            )
        self._undo.append(
            _Undo(
                state.clone(),
                None if self.actions is None else list(self.actions),
                self.decisions,
                len(self.log),
                self.screen.round(state),
            )
        )
        move = Move(seat, self.screen.move_words(state, action))
        self._apply(action, move)
        return move

    def step_agent(self) -> Move:
        """Let the agent to play make its decision, timed. :class:`GameError`:
        ``not_agents_turn`` (a human is to play), ``game_over``."""
        state = self._require_live()
        seat = state.current_seat
        agent = self.agents.get(seat)
        if agent is None:
            raise GameError("not_agents_turn", f"seat {seat} is a human's: play a move", 409)
        before = getattr(agent, "last", None)
        start = time.perf_counter()
        action = int(agent.choose(state))
        think = (time.perf_counter() - start) * 1000
        if not state.is_legal(action):
            raise RuntimeError(f"agent {self.specs[seat]!r} chose illegal action {action}")
        move = Move(seat, self.screen.move_words(state, action), think)
        searched = getattr(agent, "last", None)
        if self.candidates and searched is not None and searched is not before:
            move.candidates = self._weighed(state, searched)
        self._apply(action, move)
        return move

    def _weighed(self, state: Any, searched: Any) -> list[dict[str, Any]]:
        """The best candidates of a search (``legal``, ``pi``, ``q``): words, share, value."""
        try:
            rows = list(zip(searched.legal, searched.pi, searched.q, strict=True))
        except (AttributeError, TypeError, ValueError):
            return []
        rows.sort(key=lambda r: (-r[1], -r[2]))
        return [
            {"words": self.screen.move_words(state, int(a)), "share": round(float(p), 4),
             "value": round(float(q), 4)}
            for a, p, q in rows[:TOP_CANDIDATES]
        ]  # fmt: skip

    def _apply(self, action: int, move: Move) -> None:
        self.state.apply(action)
        self.decisions += 1
        if self.actions is not None:
            self.actions.append(action)
        self.log.append(move)
        if self.state.is_terminal:
            self._undo.clear()
            try:
                self.autosave()
            except OSError as exc:  # the move stands; the page says the file is missing
                self.save_error = f"could not save the finished game: {exc.strerror or exc}"

    def can_undo(self) -> bool:
        """A human's last move can be taken back: nothing was revealed since (the game's
        round, as its play hook tells it, is the same) and the game is not over."""
        if not self._undo or self.state.is_terminal:
            return False
        if self.state.current_seat in self.agents:
            return False
        return bool(self.screen.round(self.state) == self._undo[-1].round)

    def undo(self) -> None:
        """Go back to before the humans' last move (:class:`GameError` ``cannot_undo``)."""
        if not self.can_undo():
            raise GameError(
                "cannot_undo",
                "nothing to undo: no move of yours since something was revealed",
                409,
            )
        back = self._undo.pop()
        self._state = back.state
        self.actions = back.actions
        self.decisions = back.decisions
        del self.log[back.log :]

    # --------------------------------------------------------------------------- files

    def autosave(self) -> Path:
        """Write the game to its autosave file (write then rename: a crash leaves the old
        file or the new one, never a torn one)."""
        self.saved_to = self.saved_game().save(self.autosave_path)
        return self.saved_to

    def save_as(self, path: Path, replace: bool = False) -> Path:
        """Save the game to ``path`` (checked by :func:`save_path`); a :class:`GameError`
        ``file_exists`` unless ``replace``."""
        if path.exists() and not replace:
            raise GameError("file_exists", f"{path.name} exists: save with replace", 409)
        try:
            return self.saved_game().save(path)
        except OSError as exc:
            raise GameError(
                "cannot_save", f"cannot write {path.name}: {exc.strerror}", 500
            ) from None

    # --------------------------------------------------------------------------- view

    def view(self) -> dict[str, Any]:
        """What the page shows (the module docstring: public information only)."""
        state = self.state
        replay = self.game.entry.hook("replay")
        drawn = None if replay is None else replay.replay(_OnePosition(self), "")
        seat = None if state.is_terminal else state.current_seat
        human_turn = seat is not None and seat not in self.agents
        out: dict[str, Any] = {
            "game": self.game.game,
            "title": f"{self.game.entry.title}: " + " vs ".join(self.names),
            "setup": f"{self.players} players, {self.mode}{self.screen.setting(state)}; "
            f"seed {self.seed}",
            "seats": self.names,
            "humans": list(self.humans),
            "to_play": seat,
            "human_turn": human_turn,
            "finished": bool(state.is_terminal),
            "decisions": self.decisions,
            "can_undo": self.can_undo(),
            "log": [m.as_json() for m in self.log],
            "replay": self.actions is not None,
            "saved_to": None if self.saved_to is None else self.saved_to.name,
            "save_error": self.save_error,
        }
        if drawn is not None:
            frame = drawn.frames[-1]
            out["pieces"] = [drawn.pieces[k] for k in frame.pieces]
            out["defs"] = drawn.defs
            out["legend"] = drawn.legend
            out["colours"] = list(drawn.seat_colours)
            out["categories"] = list(drawn.categories)
            out["scores"] = [list(row) for row in frame.scores]
        if state.is_terminal:
            out["winners"] = sorted(int(w) for w in state.winners())
        if human_turn:
            out["moves"] = self._moves(state)
        return out

    def _moves(self, state: Any) -> list[dict[str, Any]]:
        """The human's legal moves: id, words, and the click paths of the game's ``board``
        hook (none for a game without one: its moves are picked from the buttons)."""
        legal = [int(a) for a in state.legal_action_list()]
        words = [self.screen.move_words(state, a).split() for a in legal]
        board = self.game.entry.hook("board")
        paths = (
            [[] for _ in legal]
            if board is None
            else board.paths(state, list(zip(legal, words, strict=True)))
        )
        return [
            {"id": a, "words": w, "paths": [[t.as_json() for t in path] for path in p]}
            for a, w, p in zip(legal, words, paths, strict=True)
        ]
