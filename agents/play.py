"""Play Moon River in the terminal against agents, or watch agents play.

Usage::

    python -m agents.play --players 2 --opponents greedy [--human 0] [--seed 1]
                          [--mode base|legends] [--scenario S] [--watch] [--delay S]
                          [--no-color]

- ``--opponents``: agent specs (comma-separated) for the seats no human plays, in seat order;
  a single spec fills every such seat.
- ``--human``: the human seat(s), comma-separated (default ``0``); ``--watch`` (or
  ``--human none``) lets agents play every seat, printing each decision and the board at each
  turn, with ``--delay`` seconds between decisions.
- Before each of your decisions the board is shown (``render_ansi``) with your legal moves in
  their text form, grouped by kind. Type a move (``place 0+2 b1 N``; case does not matter), its
  action id, or a command: ``help``, ``moves``, ``board``, ``quit``. A mistyped move or an
  illegal one is explained and you are asked again. End of input (Ctrl-D, or a pipe running
  dry) leaves the game with a message.

The game is ``env.reset(seed=SEED)`` and the agent in seat ``s`` is reset with
``agents.runner.agent_seed(SEED, 0, s)``, so a scripted input replays the same game.
Colours are on when stdout is a terminal (and ``NO_COLOR`` is unset) unless ``--no-color``.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from moonriver_env.render import render_ansi, score_table
from moonriver_env.rules import GameState

from .runner import agent_seed
from .tournament import split_specs

if TYPE_CHECKING:
    from . import Agent

__all__ = [
    "HELP",
    "PlayResult",
    "PlaySession",
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
  help       this help
  quit       leave the game
Cells are a1..e5 (a1..e10 with 2 players): columns a-e, rows from 1 at the river. Directions
N E S W (N points away from the river). Held positions count from 0 in the reserve order shown;
'+k' targets the player k seats after you."""


# ----------------------------------------------------------------------------- helpers


def format_legal_moves(state: GameState, width: int = 100) -> str:
    """The legal moves of ``state`` in text form, grouped compactly by kind.

    Moves are grouped by their first two words (``place 0+2``); within a group, the words in
    between are listed with the alternatives of the last word joined by ``/``
    (``place 0+2: b1 N/E, c1 N``); a group with nothing in between joins the alternatives
    directly (``claim 0/1/2``). A group of one move is printed in full.
    """
    groups: dict[str, dict[str, list[str]]] = {}
    singles: dict[str, str] = {}
    for a in state.legal_action_list():
        text = state.action_to_string(a)
        words = text.split()
        key = " ".join(words[:2]) if len(words) >= 3 else words[0]
        middle = " ".join(words[2:-1]) if len(words) >= 3 else ""
        last = words[-1] if len(words) >= 2 else ""
        groups.setdefault(key, {}).setdefault(middle, []).append(last)
        singles[key] = text
    lines: list[str] = []
    for key, subs in groups.items():
        count = sum(len(v) for v in subs.values())
        if count == 1:
            lines.append(singles[key])
            continue
        if list(subs) == [""]:  # no words in between: 'claim 0/1/2', 'steal +1 c3/c7'
            lines.extend(_wrap(f"{key} ", ["/".join(subs[""])], width))
            continue
        items = [(f"{m} " if m else "") + "/".join(v) for m, v in subs.items()]
        lines.extend(_wrap(f"{key}: ", items, width))
    return "\n".join("  " + line for line in lines)


def _wrap(head: str, items: Sequence[str], width: int) -> list[str]:
    out: list[str] = []
    line = head
    indent = " " * len(head)
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if line.strip() and len(line) + len(piece) + 1 > width and line != head:
            out.append(line.rstrip())
            line = indent
        line += piece + " "
    out.append(line.rstrip())
    return out


def _kinds(state: GameState) -> str:
    heads = dict.fromkeys(state.action_to_string(a).split()[0] for a in state.legal_action_list())
    return ", ".join(heads)


def parse_move(state: GameState, text: str) -> tuple[int | None, str | None]:
    """Read a move typed by a person: ``(action, None)`` if legal, else ``(None, message)``.

    Accepts the text form (any case) or an action id. The message says whether the text could
    not be read (a mistyped move) or names a move that is not legal now (and the phase).
    """
    s = text.strip()
    n = state.config.num_actions
    phase = state.phase.name
    if s.lstrip("-").isdigit():
        a = int(s)
        if not 0 <= a < n:
            return None, f"no action has id {a}: ids are 0..{n - 1}. Type 'moves' for the list."
        shown = f"{a} ({state.action_to_string(a)})"
    else:
        try:
            a = state.string_to_action(s)
        except ValueError as exc:
            return None, (
                f"mistyped move: {exc}. Type a move as listed (e.g. "
                f"'{state.action_to_string(state.legal_action_list()[0])}'), 'moves' or 'help'."
            )
        shown = f"'{state.action_to_string(a)}'"
    if not state.is_legal(a):
        return None, (
            f"illegal move: {shown} is not legal in phase {phase} "
            f"(legal now: {_kinds(state)}). Type 'moves' to list them."
        )
    return a, None


# ----------------------------------------------------------------------------- session


@dataclass
class PlayResult:
    """How a session ended: ``finished`` (game over), or left by ``quit`` / end of input."""

    finished: bool
    reason: str  # "game over", "quit", "end of input"
    state: GameState
    winners: list[int]
    decisions: int


def _default_factory(spec: str, seed: int) -> Agent:
    from . import make_agent

    return make_agent(spec, seed=seed)


class PlaySession:
    """One game in the terminal. Build it, then :meth:`run`. ``state`` is the live engine state
    (handy for scripted input: ``input_fn`` may look at it)."""

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
    ) -> None:
        from moonriver_env import moonriver_v0

        humans = sorted(set(human_seats))
        for h in humans:
            if not 0 <= h < players:
                raise ValueError(f"human: seat {h} is not a seat of a {players}-player game")
        agent_seats = [s for s in range(players) if s not in humans]
        specs = list(opponents)
        if agent_seats:
            if not specs:
                raise ValueError("opponents: expected an agent spec for the seats of agents")
            if len(specs) == 1:
                specs = specs * len(agent_seats)
            if len(specs) != len(agent_seats):
                raise ValueError(
                    f"opponents: expected 1 or {len(agent_seats)} agent specs, got {len(specs)}"
                )
        if seed is None:
            seed = int.from_bytes(os.urandom(4), "little")
        self.seed = seed
        self.humans = humans
        self.watch = not humans
        self.delay = delay
        self.color = color
        self.input_fn = input_fn
        self.output_fn = output_fn
        factory = agent_factory or _default_factory
        self.agents: dict[int, Agent] = {}
        self.specs: dict[int, str] = {}
        for seat, spec in zip(agent_seats, specs, strict=True):
            self.agents[seat] = factory(spec, agent_seed(seed, 0, seat))
            self.specs[seat] = spec
        self.env = moonriver_v0.env(num_players=players, mode=mode, scenario=scenario)
        self.names = []
        for s in range(players):
            if s in self.agents:
                self.names.append(f"{self.specs[s]} (seat {s})")
            elif len(humans) == 1:
                self.names.append(f"you (seat {s})")
            else:
                self.names.append(f"human (seat {s})")
        self.mode = mode
        self.players = players

    @property
    def state(self) -> GameState:
        raw: Any = self.env.unwrapped
        st: GameState = raw.state
        return st

    def _out(self, text: str = "") -> None:
        self.output_fn(text)

    def board(self) -> str:
        return render_ansi(self.state, color=self.color, seat_names=self.names)

    def run(self) -> PlayResult:
        env = self.env
        env.reset(seed=self.seed)
        for seat, ag in self.agents.items():
            ag.reset(agent_seed(self.seed, 0, seat))
        raw: Any = env.unwrapped
        st = self.state
        scen = f", scenario {st.scenario}" if st.scenario else ""
        who = (
            "agents only (watching)"
            if self.watch
            else "you play seat " + ", ".join(str(h) for h in self.humans)
        )
        self._out(
            f"Moon River: {self.players} players, {self.mode}{scen}, seed {self.seed}; {who}."
        )
        if not self.watch:
            self._out("Type a move as listed, its number, or 'help'.")
        decisions = 0
        last_seat: int | None = None
        while not self.state.is_terminal:
            name = env.agent_selection
            seat = raw.agent_name_mapping[name]
            if seat in self.agents:
                if self.watch and seat != last_seat:
                    self._out("")
                    self._out(self.board())
                state = self.state
                action = int(self.agents[seat].act(env.observe(name), env))
                if not state.is_legal(action):
                    raise RuntimeError(
                        f"agent {self.specs[seat]!r} chose illegal action {action} "
                        f"in phase {state.phase.name}"
                    )
                text = state.action_to_string(action)
                env.step(action)
                self._out(f"{self.names[seat]}: {text}")
                if self.delay > 0:
                    time.sleep(self.delay)
            else:
                action_or_end = self._ask(seat)
                if isinstance(action_or_end, str):
                    return PlayResult(False, action_or_end, self.state, [], decisions)
                text = self.state.action_to_string(action_or_end)
                env.step(action_or_end)
                self._out(f"{self.names[seat]}: {text}")
            decisions += 1
            last_seat = seat
        state = self.state
        self._out("")
        self._out(self.board())
        self._out("")
        self._out(f"Game over after {decisions} decisions. Final scores:")
        self._out(score_table(state, self.names))
        winners = state.winners()
        label = "Winner" if len(winners) == 1 else "Shared win"
        self._out(f"{label}: " + ", ".join(self.names[w] for w in winners))
        return PlayResult(True, "game over", state, winners, decisions)

    def _ask(self, seat: int) -> int | str:
        """Ask the human in ``seat`` until a legal move; ``"quit"`` / ``"end of input"`` to
        leave."""
        state = self.state
        self._out("")
        self._out(self.board())
        self._out("")
        self._out(self._moves_header(state, seat))
        self._out(format_legal_moves(state))
        while True:
            try:
                line = self.input_fn(f"{self.names[seat]} > ")
            except (EOFError, KeyboardInterrupt):
                self._out("")
                self._out("End of input: leaving the game (unfinished).")
                return "end of input"
            cmd = line.strip()
            low = cmd.lower()
            if not cmd:
                continue
            if low in ("quit", "exit", "q"):
                self._out("You left the game (unfinished).")
                return "quit"
            if low in ("help", "h", "?"):
                self._out(HELP)
                continue
            if low in ("moves", "legal", "list"):
                self._out(self._moves_header(state, seat))
                self._out(format_legal_moves(state))
                continue
            if low == "board":
                self._out(self.board())
                continue
            action, error = parse_move(state, cmd)
            if error is not None:
                self._out(error)
                continue
            assert action is not None
            return action

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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m agents.play",
        description="Play Moon River in the terminal against agents, or watch agents play.",
    )
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument(
        "--opponents",
        default="greedy",
        help="agent spec(s) for the other seats, comma-separated (one spec fills them all)",
    )
    parser.add_argument(
        "--human", default=None, help="human seat(s), comma-separated (default 0), or 'none'"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--mode", default="base", choices=("base", "legends"))
    parser.add_argument("--scenario", default=None, help="Legends scenario (default: drawn)")
    parser.add_argument("--watch", action="store_true", help="agents play every seat")
    parser.add_argument(
        "--delay", type=float, default=0.0, help="seconds to wait after each agent decision"
    )
    parser.add_argument("--no-color", action="store_true", help="plain text board")
    args = parser.parse_args(argv)
    if args.scenario is not None and args.mode != "legends":
        parser.error("--scenario needs --mode legends")
    if args.watch and args.human not in (None, "none", ""):
        parser.error("--watch plays agents in every seat: drop --human")
    humans: list[int] = []
    if not args.watch and args.human not in ("none", ""):
        try:
            humans = [int(x) for x in (args.human or "0").split(",") if x.strip()]
        except ValueError:
            parser.error(f"--human: expected seat numbers like 0 or 0,2, got {args.human!r}")
    color = not args.no_color and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    try:
        session = PlaySession(
            players=args.players,
            opponents=split_specs(args.opponents),
            human_seats=humans,
            seed=args.seed,
            mode=args.mode,
            scenario=args.scenario,
            delay=args.delay,
            color=color,
            input_fn=_stdin_input,
            output_fn=lambda text: print(text, flush=True),
        )
    except ValueError as exc:
        parser.error(str(exc))
    session.run()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
