"""Play a game of the family in the terminal against agents, or watch agents play.

Usage::

    python -m agents.play [--game moonriver|kingdomino] --players 2 --opponents greedy
                          [--human 0] [--seed 1] [--mode MODE] [--scenario S] [--watch]
                          [--delay S] [--no-color] [--load FILE] [--save-dir DIR]

Every option works for every game (``--game`` names a registered game,
:mod:`moonriver_env.games`; ``--variants a,b`` is ``--mode a+b``). What is the game's own, its
board on screen, its move words, its help and its score table, comes from its ``play`` hook
(:class:`moonriver_env.family.play.PlayScreen`, e.g. :mod:`moonriver_env.moonriver.play`);
the examples below are Moon River's.

- ``--opponents``: agent specs (comma-separated) for the seats no human plays, in seat order;
  the list is repeated to fill them (one spec fills every such seat; ``greedy,heuristic,mc``
  with ``--watch --players 4`` seats greedy, heuristic, mc, greedy). More specs than agent
  seats is an error. An agent that cannot play the game (a policy trained for another player
  count or mode) is refused before the game starts.
- ``--human``: the human seat(s), comma-separated (default ``0``; several humans share the
  keyboard, hot seat). ``--watch`` (or ``--human none``) lets agents play every seat.
- ``--watch``: on a terminal the board is redrawn in place after every decision; otherwise the
  decisions are printed as they happen and the board once per round. ``--delay`` seconds
  pass after each agent decision (default 0.5 when watching, else 0). The legend of the
  board is printed once.
- Before each of your decisions the board is shown (Moon River: ``render_ansi``) with your legal moves in
  their text form, grouped by kind. Type a move (``place 0+2 b1 N``; case does not matter; a
  pair in either order: ``place 2+0 b1 N`` puts plot 2 on b1), its action id, or a command:
  ``help``, ``moves``, ``board``, ``legend``, ``save FILE``, ``quit``. A mistyped move is
  explained; an illegal one says why (the phase's kind of move, or the connection rule it
  breaks) and shows the number of legal moves with examples; you are asked again
  (Moon River: :mod:`moonriver_env.moonriver.move_text`).
- Leaving an unfinished game (``quit``, Ctrl-C, Ctrl-D or a pipe running dry) saves it to a
  new file in ``--save-dir`` (default: the current directory), named in the message; so does
  the end of a game (``python -m agents.replay FILE`` replays a saved game in the browser);
  ``--load FILE`` resumes it (the file fixes the players, mode, seed and seats;
  :mod:`agents.saved_game`). ``save FILE`` asks before replacing an existing file. The
  command exits with status 1 when a player types ``quit``, else 0.

A new game is the one ``env.reset(seed=SEED)`` deals (:func:`agents.move_list.deal`) and the agent in seat ``s`` is reset with
``agents.seeds.agent_seed(SEED, 0, s)``, so a scripted input replays the same game. Colours
are on when stdout is a terminal (and ``NO_COLOR`` is unset) unless ``--no-color``.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moonriver_env.family.play import PlayScreen
from moonriver_env.games import DEFAULT_GAME, GameSpec, add_game_arguments, spec_from_args

from .base import check_game
from .move_list import deal
from .registry import make_agent
from .saved_game import SavedGame, free_path
from .seeds import agent_seed
from .tournament import split_specs

if TYPE_CHECKING:
    from . import Agent

__all__ = ["PlayResult", "PlaySession", "SavedGame", "main", "play", "screen_of"]

DEFAULT_SAVE_DIR = "runs/games"
"""Where a played game is saved unless told (``runs/`` is ignored by git)."""

# Seconds between agent decisions when watching (the default of --delay with --watch).
WATCH_DELAY = 0.5
# ANSI: cursor home, clear the screen (redrawing in place on a terminal).
CLEAR = "\x1b[H\x1b[2J"


# ----------------------------------------------------------------------------- session


@dataclass
class PlayResult:
    """How a session ended: ``finished`` (game over), or left by ``quit``, end of input or
    Ctrl-C (``saved``: the file the game was saved to, if it was)."""

    finished: bool
    reason: str  # "game over", "quit", "end of input", "interrupted"
    state: Any
    winners: list[int]
    decisions: int
    saved: Path | None = None


def screen_of(game: str) -> PlayScreen:
    """The terminal screen of a registered game (its ``play`` hook); ``ValueError`` if it
    has none."""
    spec = GameSpec(game=game)
    screen = spec.entry.hook("play")
    if not isinstance(screen, PlayScreen):
        raise ValueError(f"game: {spec.entry.title} cannot be played in the terminal")
    return screen


def check_delay(delay: float) -> float:
    """``delay`` (seconds between agent decisions) if it is finite and at least 0; a
    ``ValueError`` naming it otherwise (``inf`` overflowed ``time.sleep``, NaN passed)."""
    if not (isinstance(delay, int | float) and math.isfinite(delay) and delay >= 0):
        raise ValueError(f"delay: expected finite seconds >= 0, got {delay!r}")
    return float(delay)


def seat_specs(opponents: Sequence[str], agent_seats: Sequence[int]) -> list[str]:
    """The agent spec of each agent seat: ``opponents`` repeated in order to fill them;
    ``ValueError`` if there are more specs than seats or none for a seat."""
    specs = list(opponents)
    if not agent_seats:
        return []
    if not specs:
        raise ValueError("opponents: expected an agent spec for the seats of agents")
    if len(specs) > len(agent_seats):
        raise ValueError(
            f"opponents: {len(specs)} agent specs for {len(agent_seats)} agent seat(s) "
            f"(seats {', '.join(map(str, agent_seats))}): give at most {len(agent_seats)}"
        )
    return [specs[i % len(specs)] for i in range(len(agent_seats))]


class PlaySession:
    """One game in the terminal. Build it (or :meth:`resume` a saved one), then :meth:`run`.
    ``state`` is the live engine state (handy for scripted input: ``input_fn`` may look at
    it)."""

    def __init__(
        self,
        players: int = 2,
        opponents: Sequence[str] = ("greedy",),
        human_seats: Sequence[int] = (0,),
        seed: int | None = 1,
        mode: str = "base",
        scenario: str | None = None,
        delay: float = 0.0,
        color: bool = False,
        input_fn: Callable[[str], str] = input,
        output_fn: Callable[[str], None] = print,
        agent_factory: Callable[[str, int], Agent] | None = None,
        redraw: bool = False,
        save_dir: str | os.PathLike[str] = DEFAULT_SAVE_DIR,
        saved: SavedGame | None = None,
        keep_finished: bool = False,
        game: str = DEFAULT_GAME,
    ) -> None:
        spec = GameSpec(game=game, num_players=players, mode=mode, scenario=scenario)
        config = spec.config()  # ValueError naming a bad field
        self.screen = screen_of(game)
        humans = sorted(set(human_seats))
        for h in humans:
            if not 0 <= h < players:
                raise ValueError(f"human: seat {h} is not a seat of a {players}-player game")
        agent_seats = [s for s in range(players) if s not in humans]
        specs = seat_specs(opponents, agent_seats)
        check_delay(delay)
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "little")
        self.agents: dict[int, Agent] = {}
        self.specs: dict[int, str] = {}
        for seat, agent_spec in zip(agent_seats, specs, strict=True):
            if agent_factory is None:
                agent = make_agent(agent_spec, seed=agent_seed(seed, 0, seat), game=game)
            else:
                agent = agent_factory(agent_spec, agent_seed(seed, 0, seat))
            check_game(agent, config)  # before any move: ValueError naming both games
            self.agents[seat] = agent
            self.specs[seat] = agent_spec
        self.seed = seed
        self.humans = humans
        self.watch = not humans
        self.delay = delay
        self.color = color
        self.redraw = redraw
        self.save_dir = Path(save_dir)
        self.keep_finished = keep_finished
        self.input_fn = input_fn
        self.output_fn = output_fn
        self.game = spec
        self.mode = spec.mode
        self.scenario = scenario
        self.players = players
        self.decisions = 0
        if saved is None:
            self._state: Any = deal(spec, seed)
            self.actions: list[int] | None = []
        else:
            self._state = saved.state
            self.decisions = saved.decisions
            self.actions = None if saved.actions is None else list(saved.actions)
        self.names = []
        for s in range(players):
            if s in self.agents:
                self.names.append(f"{self.specs[s]} (seat {s})")
            elif len(humans) == 1:
                self.names.append(f"you (seat {s})")
            else:
                self.names.append(f"human (seat {s})")

    @classmethod
    def resume(cls, path: str | os.PathLike[str], **kwargs: Any) -> PlaySession:
        """The session of a saved game (``ValueError`` naming what is wrong with the file);
        ``kwargs``: the display and input arguments of the constructor."""
        game = SavedGame.load(path)
        agent_seats = sorted(game.agents)
        return cls(
            players=game.players,
            opponents=[game.agents[s] for s in agent_seats],
            human_seats=game.humans,
            seed=game.seed,
            mode=game.mode,
            scenario=game.scenario,
            saved=game,
            game=game.game,
            **kwargs,
        )

    @property
    def state(self) -> Any:
        return self._state

    def _out(self, text: str = "") -> None:
        self.output_fn(text)

    def board(self) -> str:
        return self.screen.board(self.state, self.color, self.names)

    def saved_game(self) -> SavedGame:
        """The game as it stands, for a save file."""
        return SavedGame(
            players=self.players,
            mode=self.mode,
            scenario=self.scenario,
            seed=self.seed,
            agents=dict(self.specs),
            humans=tuple(self.humans),
            decisions=self.decisions,
            state=self.state.clone(),
            actions=None if self.actions is None else tuple(self.actions),
            game=self.game.game,
        )

    def _autosave(self) -> Path | None:
        """Save the game to a new file and say where (never overwrites): how to resume an
        unfinished game, how to replay a finished one."""
        try:
            stem = "moonriver-save" if self.game.game == DEFAULT_GAME else f"{self.game.game}-save"
            path = self.saved_game().save(free_path(self.save_dir, stem=stem))
        except OSError as exc:
            self._out(f"Could not save the game in {str(self.save_dir)!r}: {exc}")
            return None
        how = (
            f"replay it with: python -m agents.replay {path}"
            if self.state.is_terminal
            else f"resume it with: python -m agents.play --load {path}"
        )
        self._out(f"Game saved to {path}; {how}")
        return path

    def _leave(self, reason: str, message: str) -> PlayResult:
        self._out(message)
        saved = self._autosave()
        return PlayResult(False, reason, self.state, [], self.decisions, saved)

    def run(self) -> PlayResult:
        scen = self.screen.setting(self.state)
        who = (
            "agents only (watching)"
            if self.watch
            else "you play seat " + ", ".join(str(h) for h in self.humans)
        )
        seating = "; ".join(f"seat {s}: {self.specs[s]}" for s in sorted(self.agents))
        resumed = f", resumed after {self.decisions} decisions" if self.decisions else ""
        self._out(
            f"{self.game.entry.title}: {self.players} players, {self.mode}{scen}, seed "
            f"{self.seed}{resumed}; "
            f"{who}." + (f" Agents: {seating}." if seating else "")
        )
        if self.screen.legend:
            self._out("\n".join(self.screen.legend))
        if not self.watch:
            self._out("Type a move as listed, its number, or 'help'.")
        else:
            self._show_board(first=True)
        try:
            return self._loop()
        except KeyboardInterrupt:
            return self._leave("interrupted", "\nInterrupted: leaving the game (unfinished).")
        except Exception as exc:  # unexpected: the game is saved before the error is reported
            self._out(f"\nUnexpected error ({type(exc).__name__}); saving the game first.")
            with contextlib.suppress(Exception):  # the error reported is the first one
                self._autosave()
            raise

    def _loop(self) -> PlayResult:
        last_round = self.screen.round(self.state)
        while not self.state.is_terminal:
            state = self.state
            seat = state.current_seat
            assert seat is not None
            if seat in self.agents:
                action = int(self.agents[seat].choose(state))
                if not state.is_legal(action):
                    raise RuntimeError(
                        f"agent {self.specs[seat]!r} chose illegal action {action} "
                        f"in phase {state.phase.name}"
                    )
            else:
                asked = self._ask(seat)
                if isinstance(asked, PlayResult):
                    return asked
                action = asked
            text = state.action_to_string(action)
            state.apply(action)
            self.decisions += 1
            if self.actions is not None:
                self.actions.append(action)
            if self.watch and self.redraw:
                self._show_board()
            self._out(f"{self.names[seat]}: {text}")
            this_round = self.screen.round(state)
            if self.watch and not self.redraw and this_round != last_round:
                self._show_board()
            last_round = this_round
            if seat in self.agents and self.delay > 0:
                time.sleep(self.delay)
        state = self.state
        self._out("")
        self._out(self.board())
        self._out("")
        self._out(f"Game over after {self.decisions} decisions. Final scores:")
        self._out(self.screen.score_table(state, self.names))
        winners = state.winners()
        label = "Winner" if len(winners) == 1 else "Shared win"
        self._out(f"{label}: " + ", ".join(self.names[w] for w in winners))
        saved = self._autosave() if self.keep_finished else None
        return PlayResult(True, "game over", state, winners, self.decisions, saved)

    def _show_board(self, first: bool = False) -> None:
        """Watching: on a terminal the board replaces the screen (in place); otherwise it is
        printed once per round, between the decisions."""
        if self.redraw and not first:
            self._out(CLEAR + self.board())
        else:
            self._out("")
            self._out(self.board())

    def _ask(self, seat: int) -> int | PlayResult:
        """Ask the human in ``seat`` until a legal move; a :class:`PlayResult` when they leave
        (``quit``, end of input; the game is saved first)."""
        state = self.state
        self._out("")
        self._out(self.board())
        self._out("")
        self._out(self._moves_header(state, seat))
        self._out(self.screen.legal_moves(state))
        while True:
            try:
                line = self.input_fn(f"{self.names[seat]} > ")
            except EOFError:
                return self._leave("end of input", "\nEnd of input: leaving the game (unfinished).")
            cmd = line.strip()
            low = cmd.lower()
            if not cmd:
                continue
            if low in ("quit", "exit", "q"):
                return self._leave("quit", "You left the game (unfinished).")
            if low in ("help", "h", "?"):
                self._out(self.screen.help)
            elif low in ("moves", "legal", "list"):
                self._out(self._moves_header(state, seat))
                self._out(self.screen.legal_moves(state))
            elif low == "board":
                self._out(self.board())
            elif low == "legend" and self.screen.legend:
                self._out("\n".join(self.screen.legend))
            elif low == "save" or low.startswith("save "):
                self._save_command(cmd[4:].strip())
            else:
                try:
                    action, error = self.screen.parse_move(state, cmd)
                except (ValueError, OverflowError) as exc:  # a number of 5,000 digits, say
                    action, error = None, f"not a move: {str(exc)[:200]}. Type 'moves' or 'help'."
                if error is None:
                    assert action is not None
                    return action
                self._out(error)

    def _save_command(self, name: str) -> None:
        """``save FILE``: write the game, asking before replacing an existing file."""
        if not name:
            self._out("save: give a file name, e.g. 'save mygame.json'")
            return
        path = Path(name).expanduser()
        shown = repr(str(path)) if len(str(path)) <= 80 else repr(str(path)[:77] + "...")
        try:
            exists = path.exists()  # a name too long for the system raises here
        except OSError as exc:
            self._out(f"save: cannot write {shown}: {exc.strerror or exc}")
            return
        if exists:
            try:
                answer = self.input_fn(f"{path} exists: replace it? [y/N] ")
            except EOFError:
                answer = ""
            if answer.strip().lower() not in ("y", "yes"):
                self._out(f"Not saved ({path} kept).")
                return
        try:
            self.saved_game().save(path)
        except OSError as exc:
            self._out(f"save: cannot write {shown}: {exc.strerror or exc}")
            return
        self._out(f"Game saved to {path}; resume it with: python -m agents.play --load {path}")

    def _moves_header(self, state: Any, seat: int) -> str:
        n = len(state.legal_action_list())
        return f"{self.names[seat]} to play, phase {state.phase.name}: {n} legal move(s)"


def play(*args: Any, **kwargs: Any) -> PlayResult:
    """Play one game: the arguments of :class:`PlaySession`; ``human_seats=()`` watches
    agents."""
    return PlaySession(*args, **kwargs).run()


# --------------------------------------------------------------------------------- CLI


def _stdin_input(prompt: str) -> str:
    """``input`` that also works when stdin is a pipe (prompt on stdout, flushed)."""
    sys.stdout.write(prompt)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        raise EOFError
    if not sys.stdin.isatty():
        sys.stdout.write(line if line.endswith("\n") else line + "\n")  # echo piped input
    return line.rstrip("\n")


# The arguments a saved game fixes (refused together with --load).
_GAME_ARGS = (
    "game", "players", "opponents", "human", "seed", "mode", "variants", "scenario", "watch",
)  # fmt: skip


def main(
    argv: Sequence[str] | None = None,
    input_fn: Callable[[str], str] | None = None,
    output_fn: Callable[[str], None] | None = None,
) -> int:
    """``python -m agents.play ...`` (``input_fn``, ``output_fn``: the terminal by default);
    1 when a player quits the game unfinished, else 0 (the end of piped input included)."""
    parser = argparse.ArgumentParser(
        prog="python -m agents.play",
        description="Play a game in the terminal against agents, or watch agents play.",
    )
    add_game_arguments(parser)
    parser.set_defaults(game=None)  # a saved game (--load) names its own
    parser.add_argument(
        "--variants", default=None, help="the mode as comma-separated variants (--mode a+b)"
    )
    parser.add_argument(
        "--opponents",
        default=None,
        help="agent spec(s) for the agent seats in seat order, comma-separated, repeated to "
        "fill them (default greedy)",
    )
    parser.add_argument(
        "--human", default=None, help="human seat(s), comma-separated (default 0), or 'none'"
    )
    parser.add_argument("--seed", type=int, default=None, help="game seed (default 1)")
    parser.add_argument("--watch", action="store_true", help="agents play every seat")
    parser.add_argument(
        "--delay",
        type=float,
        default=None,
        help=f"seconds to wait after each agent decision (default {WATCH_DELAY} with --watch, "
        "else 0)",
    )
    parser.add_argument("--no-color", action="store_true", help="plain text board")
    parser.add_argument("--load", default=None, help="resume a game saved to this file")
    parser.add_argument(
        "--save-dir",
        default=DEFAULT_SAVE_DIR,
        help=f"where the game is saved when it ends or is left (default: {DEFAULT_SAVE_DIR}/, "
        "ignored by git)",
    )
    args = parser.parse_args(argv)
    if args.delay is not None:
        try:
            check_delay(args.delay)
        except ValueError as exc:
            parser.error(f"--{exc}")
    color = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    io: dict[str, Any] = {
        "color": color,
        "input_fn": input_fn or _stdin_input,
        "output_fn": output_fn or (lambda text: print(text, flush=True)),
        "redraw": output_fn is None and sys.stdout.isatty(),
        "save_dir": args.save_dir,
        "keep_finished": True,
    }
    try:
        if args.load is not None:
            given = [a for a in _GAME_ARGS if getattr(args, a) not in (None, False)]
            if given:
                parser.error(
                    "--load: the saved game fixes the game, players, mode, seed and seats; drop "
                    + ", ".join(f"--{a}" for a in given)
                )
            session = PlaySession.resume(args.load, delay=args.delay or 0.0, **io)
        else:
            session = PlaySession(**_new_game_args(parser, args), **io)
    except ValueError as exc:
        parser.error(str(exc))
    return 1 if session.run().reason == "quit" else 0


def _new_game_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`PlaySession` arguments of a new game from the command line."""
    if args.variants is not None:
        if args.mode is not None:
            parser.error("--mode and --variants name the same thing: give one")
        args.mode = "+".join(v.strip() for v in args.variants.split(",") if v.strip()) or "base"
    args.game = args.game or DEFAULT_GAME
    try:
        spec = spec_from_args(args)
    except ValueError as exc:
        parser.error(str(exc))
    if args.watch and args.human not in (None, "none", ""):
        parser.error("--watch plays agents in every seat: drop --human")
    humans: list[int] = []
    if not args.watch and args.human not in ("none", ""):
        try:
            humans = [int(x) for x in (args.human or "0").split(",") if x.strip()]
        except ValueError:
            parser.error(f"--human: expected seat numbers like 0 or 0,2, got {args.human!r}")
    watching = not humans
    delay = args.delay if args.delay is not None else (WATCH_DELAY if watching else 0.0)
    return {
        "game": spec.game,
        "players": spec.num_players,
        "opponents": split_specs(args.opponents or "greedy"),
        "human_seats": humans,
        "seed": 1 if args.seed is None else args.seed,
        "mode": spec.mode,
        "scenario": spec.scenario,
        "delay": delay,
    }


if __name__ == "__main__":
    raise SystemExit(main())
