"""Play Moon River in the terminal against agents, or watch agents play.

Usage::

    python -m agents.play --players 2 --opponents greedy [--human 0] [--seed 1]
                          [--mode base|legends] [--scenario S] [--watch] [--delay S]
                          [--no-color] [--load FILE] [--save-dir DIR]

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
- Before each of your decisions the board is shown (``render_ansi``) with your legal moves in
  their text form, grouped by kind. Type a move (``place 0+2 b1 N``; case does not matter; a
  pair in either order: ``place 2+0 b1 N`` puts plot 2 on b1), its action id, or a command:
  ``help``, ``moves``, ``board``, ``legend``, ``save FILE``, ``quit``. A mistyped move is
  explained; an illegal one says why (the phase's kind of move, or the connection rule it
  breaks) and shows the number of legal moves with examples; you are asked again
  (:mod:`agents.move_text`).
- Leaving an unfinished game (``quit``, Ctrl-C, Ctrl-D or a pipe running dry) saves it to a
  new file in ``--save-dir`` (default: the current directory), named in the message; so does
  the end of a game (``python -m agents.replay FILE`` replays a saved game in the browser);
  ``--load FILE`` resumes it (the file fixes the players, mode, seed and seats;
  :mod:`agents.saved_game`). ``save FILE`` asks before replacing an existing file.

A new game is the one ``env.reset(seed=SEED)`` deals (:func:`agents.move_list.deal`) and the agent in seat ``s`` is reset with
``agents.seeds.agent_seed(SEED, 0, s)``, so a scripted input replays the same game. Colours
are on when stdout is a terminal (and ``NO_COLOR`` is unset) unless ``--no-color``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from moonriver_env.games import GameSpec
from moonriver_env.moonriver.render import ANSI_LEGEND, render_ansi, score_table
from moonriver_env.moonriver.rules import GameConfig, GameState

from . import make_agent
from .base import check_game
from .kingdomino_cli import wants_kingdomino
from .kingdomino_play import play_main
from .move_list import deal
from .move_text import format_legal_moves, parse_move
from .saved_game import SavedGame, free_path
from .seeds import agent_seed
from .tournament import split_specs

if TYPE_CHECKING:
    from . import Agent

__all__ = [
    "HELP",
    "PlayResult",
    "PlaySession",
    "SavedGame",
    "format_legal_moves",
    "main",
    "parse_move",
    "play",
    "score_table",
]

HELP = """\
Commands:
  <move>     a move in text form as listed, e.g. 'claim 2', 'place 0+2 b1 N', 'stop'
             (the lists group moves: 'place 0+2: b1 N/E, c1 S' means 'place 0+2 b1 N',
             'place 0+2 b1 E' or 'place 0+2 c1 S'; 'claim 0/1' means 'claim 0' or 'claim 1')
  <number>   a move by its action id
  moves      list your legal moves again
  board      show the board again
  legend     what the letters of the board mean
  save FILE  save the game (resume it with --load FILE)
  help       this help
  quit       leave the game (it is saved to a new file first)
Cells are a1..e5 (a1..e10 with 2 players): columns a-e, rows from 1 at the river. Directions
N E S W (N points away from the river). Held positions count from 0 in the reserve order shown;
'+k' targets the player k seats after you. A pair may be typed either way round: 'place 2+0 b1 N'
puts plot 2 on b1 and plot 0 north of it."""

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
    state: GameState
    winners: list[int]
    decisions: int
    saved: Path | None = None


def _default_factory(spec: str, seed: int) -> Agent:
    return make_agent(spec, seed=seed)


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
        save_dir: str | os.PathLike[str] = ".",
        saved: SavedGame | None = None,
        keep_finished: bool = False,
    ) -> None:
        if players not in (2, 3, 4):
            raise ValueError(f"players: expected 2, 3 or 4, got {players!r}")
        humans = sorted(set(human_seats))
        for h in humans:
            if not 0 <= h < players:
                raise ValueError(f"human: seat {h} is not a seat of a {players}-player game")
        agent_seats = [s for s in range(players) if s not in humans]
        specs = seat_specs(opponents, agent_seats)
        if delay < 0:
            raise ValueError(f"delay: expected seconds >= 0, got {delay!r}")
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "little")
        config = GameConfig(num_players=players, mode=mode, scenario=scenario)
        factory = agent_factory or _default_factory
        self.agents: dict[int, Agent] = {}
        self.specs: dict[int, str] = {}
        for seat, spec in zip(agent_seats, specs, strict=True):
            agent = factory(spec, agent_seed(seed, 0, seat))
            check_game(agent, config)  # before any move: ValueError naming both games
            self.agents[seat] = agent
            self.specs[seat] = spec
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
        self.mode = mode
        self.scenario = scenario
        self.players = players
        self.decisions = 0
        if saved is None:
            game = GameSpec(num_players=players, mode=mode, scenario=scenario)
            self._state: GameState = deal(game, seed)
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
            **kwargs,
        )

    @property
    def state(self) -> GameState:
        return self._state

    def _out(self, text: str = "") -> None:
        self.output_fn(text)

    def board(self) -> str:
        return render_ansi(self.state, color=self.color, seat_names=self.names, legend=False)

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
        )

    def _autosave(self) -> Path | None:
        """Save the game to a new file and say where (never overwrites): how to resume an
        unfinished game, how to replay a finished one."""
        try:
            path = self.saved_game().save(free_path(self.save_dir))
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
        st = self.state
        scen = f", scenario {st.scenario}" if st.scenario else ""
        who = (
            "agents only (watching)"
            if self.watch
            else "you play seat " + ", ".join(str(h) for h in self.humans)
        )
        seating = "; ".join(f"seat {s}: {self.specs[s]}" for s in sorted(self.agents))
        resumed = f", resumed after {self.decisions} decisions" if self.decisions else ""
        self._out(
            f"Moon River: {self.players} players, {self.mode}{scen}, seed {self.seed}{resumed}; "
            f"{who}." + (f" Agents: {seating}." if seating else "")
        )
        self._out("\n".join(ANSI_LEGEND))
        if not self.watch:
            self._out("Type a move as listed, its number, or 'help'.")
        else:
            self._show_board(first=True)
        try:
            return self._loop()
        except KeyboardInterrupt:
            return self._leave("interrupted", "\nInterrupted: leaving the game (unfinished).")

    def _loop(self) -> PlayResult:
        last_round = self.state.round
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
            if self.watch and not self.redraw and state.round != last_round:
                self._show_board()
            last_round = state.round
            if seat in self.agents and self.delay > 0:
                time.sleep(self.delay)
        state = self.state
        self._out("")
        self._out(self.board())
        self._out("")
        self._out(f"Game over after {self.decisions} decisions. Final scores:")
        self._out(score_table(state, self.names))
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
        self._out(format_legal_moves(state))
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
                self._out(HELP)
            elif low in ("moves", "legal", "list"):
                self._out(self._moves_header(state, seat))
                self._out(format_legal_moves(state))
            elif low == "board":
                self._out(self.board())
            elif low == "legend":
                self._out("\n".join(ANSI_LEGEND))
            elif low == "save" or low.startswith("save "):
                self._save_command(cmd[4:].strip())
            else:
                action, error = parse_move(state, cmd)
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
        if path.exists():
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
            self._out(f"save: cannot write {str(path)!r}: {exc.strerror or exc}")
            return
        self._out(f"Game saved to {path}; resume it with: python -m agents.play --load {path}")

    def _moves_header(self, state: GameState, seat: int) -> str:
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
_GAME_ARGS = ("players", "opponents", "human", "seed", "mode", "scenario", "watch")


def main(argv: Sequence[str] | None = None) -> int:
    if wants_kingdomino(argv):  # --game kingdomino: play Kingdomino
        return play_main(argv)
    parser = argparse.ArgumentParser(
        prog="python -m agents.play",
        description="Play Moon River in the terminal against agents, or watch agents play.",
    )
    parser.add_argument("--players", type=int, default=None, choices=(2, 3, 4))
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
    parser.add_argument("--mode", default=None, choices=("base", "legends"))
    parser.add_argument("--scenario", default=None, help="Legends scenario (default: drawn)")
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
        default=".",
        help="where the game is saved when it ends or is left (default: here)",
    )
    args = parser.parse_args(argv)
    if args.delay is not None and args.delay < 0:
        parser.error(f"--delay: expected seconds >= 0, got {args.delay}")
    color = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    io: dict[str, Any] = {
        "color": color,
        "input_fn": _stdin_input,
        "output_fn": lambda text: print(text, flush=True),
        "redraw": sys.stdout.isatty(),
        "save_dir": args.save_dir,
        "keep_finished": True,
    }
    try:
        if args.load is not None:
            given = [a for a in _GAME_ARGS if getattr(args, a) not in (None, False)]
            if given:
                parser.error(
                    "--load: the saved game fixes the players, mode, seed and seats; drop "
                    + ", ".join(f"--{a}" for a in given)
                )
            session = PlaySession.resume(args.load, delay=args.delay or 0.0, **io)
        else:
            session = PlaySession(**_new_game_args(parser, args), **io)
    except ValueError as exc:
        parser.error(str(exc))
    session.run()
    return 0


def _new_game_args(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[str, Any]:
    """The :class:`PlaySession` arguments of a new game from the command line."""
    mode = args.mode or "base"
    if args.scenario is not None and mode != "legends":
        parser.error("--scenario needs --mode legends")
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
        "players": args.players or 2,
        "opponents": split_specs(args.opponents or "greedy"),
        "human_seats": humans,
        "seed": 1 if args.seed is None else args.seed,
        "mode": mode,
        "scenario": args.scenario,
        "delay": delay,
    }


if __name__ == "__main__":
    raise SystemExit(main())
