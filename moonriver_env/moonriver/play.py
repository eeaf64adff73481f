"""Moon River in the terminal (the ``play`` hook of its entry,
:mod:`moonriver_env.family.play`): the ANSI board and its legend, the move words
(:mod:`.move_text`: typed moves, why one is not legal, the compact list), the help and the
score table."""

from __future__ import annotations

from collections.abc import Sequence

from moonriver_env.family.play import PlayScreen
from moonriver_env.moonriver.move_text import format_legal_moves, parse_move
from moonriver_env.moonriver.render import ANSI_LEGEND, render_ansi, score_table
from moonriver_env.moonriver.rules import GameState

__all__ = ["HELP", "SCREEN", "MoonRiverScreen"]

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


class MoonRiverScreen(PlayScreen):
    """Moon River's terminal screen."""

    help = HELP
    legend = ANSI_LEGEND

    def board(self, state: GameState, color: bool, seat_names: Sequence[str]) -> str:
        return render_ansi(state, color=color, seat_names=seat_names, legend=False)

    def legal_moves(self, state: GameState) -> str:
        return format_legal_moves(state)

    def parse_move(self, state: GameState, text: str) -> tuple[int | None, str | None]:
        return parse_move(state, text)

    def score_table(self, state: GameState, seat_names: Sequence[str]) -> str:
        return score_table(state, seat_names)

    def round(self, state: GameState) -> int:
        return state.round

    def load_state(self, text: str) -> GameState:
        return GameState.from_json(text)

    def setting(self, state: GameState) -> str:
        return f", scenario {state.scenario}" if state.scenario else ""


SCREEN = MoonRiverScreen()
"""Moon River's terminal screen."""
