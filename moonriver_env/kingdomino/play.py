"""Kingdomino in the terminal (the ``play`` hook of its entry,
:mod:`moonriver_env.family.play`): the kingdoms and lines as text (no colours: ``--no-color``
changes nothing), moves typed in their text form (``place d5 E``, ``discard``, ``pick 2``) or
by action id, the help and the score table."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

from moonriver_env.family.play import PlayScreen
from moonriver_env.kingdomino.render import render_text
from moonriver_env.kingdomino.rules.state import KingdominoState

__all__ = ["HELP", "SCREEN", "KingdominoScreen"]

HELP = """\
Commands:
  <move>     a move in text form as listed, e.g. 'place d5 E', 'discard', 'pick 2'
  <number>   a move by its action id
  moves      list your legal moves again
  board      show the board again
  save FILE  save the game (resume it with --load FILE)
  help       this help
  quit       leave the game (it is saved to a new file first)"""


class KingdominoScreen(PlayScreen):
    """Kingdomino's terminal screen (no legend, no colours)."""

    help = HELP

    def board(self, state: KingdominoState, color: bool, seat_names: Sequence[str]) -> str:
        return render_text(state)

    def legal_moves(self, state: KingdominoState) -> str:
        """The legal moves in text form, comma-separated."""
        return "  " + ", ".join(state.action_to_string(a) for a in state.legal_action_list())

    def parse_move(self, state: KingdominoState, text: str) -> tuple[int | None, str | None]:
        """``(action, None)`` for a legal move's text form (case and spacing do not matter)
        or action id, else ``(None, why)``."""
        legal = state.legal_action_list()
        words = " ".join(text.split()).lower()
        if words.isdigit() and int(words) in legal:
            return int(words), None
        for action in legal:
            if state.action_to_string(action).lower() == words:
                return action, None
        example = state.action_to_string(legal[0])
        return None, (
            f"not a legal move: {text!r} ({len(legal)} legal, e.g. {example!r}; 'moves' lists them)"
        )

    def score_table(self, state: KingdominoState, seat_names: Sequence[str]) -> str:
        """Each seat's points, territory and bonus points and largest territory."""
        lines = []
        for s, (sc, points) in enumerate(zip(state.scores(), state.points(), strict=True)):
            lines.append(
                f"  {seat_names[s]}: {points} points (territories {sc.territory_points}, "
                f"harmony {sc.harmony}, middle kingdom {sc.middle_kingdom}; "
                f"largest territory {sc.largest_territory}, crowns {sc.crowns})"
            )
        return "\n".join(lines)

    def round(self, state: KingdominoState) -> Hashable:
        """Changes when a line is drawn (the dominoes nobody has seen), or a Dynasty's game."""
        return (state.game, len(state.unseen()))

    def load_state(self, text: str) -> KingdominoState:
        return KingdominoState.from_json(text)


SCREEN = KingdominoScreen()
"""Kingdomino's terminal screen."""
