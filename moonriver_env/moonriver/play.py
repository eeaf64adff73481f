"""Moon River in the terminal (the ``play`` hook of its entry,
:mod:`moonriver_env.family.play`): the ANSI board and its legend, the move words
(:mod:`.move_text`: typed moves, why one is not legal, the compact list), the help and the
score table."""

from __future__ import annotations

from collections.abc import Sequence

from moonriver_env.family.play import PlayScreen
from moonriver_env.moonriver.move_text import format_legal_moves, move_words, parse_move
from moonriver_env.moonriver.render import ANSI_LEGEND, render_ansi, score_table
from moonriver_env.moonriver.rules import GameState

__all__ = ["HELP", "SCREEN", "MoonRiverScreen"]

HELP = """\
Commands:
  <move>     a move in words as listed by 'moves' (the words below; any case)
  <number>   a move by its action id
  moves      list your legal moves again
  board      show the board again
  legend     what the letters of the board mean
  save FILE  save the game (resume it with --load FILE)
  help       this help
  quit       leave the game (it is saved to a new file first)
Move words:
  claim N               put your ranchero on plot N of the column being claimed, N as the
                        column line numbers it (1 = the lowest back number; setup: 'column now',
                        a round: 'column next')
  place I+J CELL DIR    join held plots I and J into a domino: plot I on CELL, plot J on the
                        neighbour of CELL in direction DIR ('place 0+2 b1 N'; 'place 2+0 b2 S'
                        is the same domino)
  stop                  stop expanding this turn
  discard I+J           discard held plots I and J (nothing fits)
  skull CELL            the skull removes a cow from CELL
  recruit sN SIDE on CELL
                        recruit the partner on saloon space N (as the saloon line numbers it,
                        s1..s5; 'saloon N' also works), SIDE 'specialist' or 'cowboy' up, onto
                        the circle of the plot just placed on CELL ('recruit s4 cowboy on b1')
  move CELL DIR         the Cowboy moves a cow from CELL to its neighbour in direction DIR
  cowboy stop           end the Cowboy's moves
  swap I +K J           the Desperado swaps your held plot I with plot J of the reserve of the
                        player K seats after you
  desperado skip        do not use the Desperado's swap
  steal +K CELL         the Cattle Thief steals a cow from CELL of the player K seats after you
  thief skip            do not use the Cattle Thief's steal
  bonus TS CELL         (2 players) put bonus tile T (A or B) side S (0 or 1) up on CELL
                        ('bonus A0 c10')
  bonus T remove        (2 players) remove bonus tile T, which fits nowhere
Lists group moves: 'place 0+2: b1 N/E, c1 S' means 'place 0+2 b1 N', 'place 0+2 b1 E' or
'place 0+2 c1 S'; 'claim 1/2' means 'claim 1' or 'claim 2'.
Cells are a1..e5 (a1..e10 with 2 players): columns a-e, rows from 1 at the river. Directions
N E S W (N points away from the river). Held plots I, J count from 0 in the reserve order shown
('hold'); '+K' targets the player K seats after you."""


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

    def move_words(self, state: GameState, action: int) -> str:
        return move_words(state, action)

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
