"""Mini Draft's replay frames (its ``replay`` hook): each grid and the face-up tiles as SVG
squares, through the replay's generic walk (:func:`moonriver_env.family.replay.walk_frames`)."""

from __future__ import annotations

import minidraft

from agents.move_list import MoveList
from moonriver_env.family.replay import Replay, Scores, assemble_replay, walk_frames

FILL = ("#c0392b", "#27ae60", "#2980b9")


def tiles_svg(colours: list[int]) -> str:
    squares = "".join(
        f'<rect x="{20 * (i % 3)}" y="{20 * (i // 3)}" width="18" height="18" '
        f'fill="{FILL[c] if c >= 0 else "#eee"}"/>'
        for i, c in enumerate(colours)
    )
    return f'<svg viewBox="0 0 60 60">{squares}</svg>'


class MiniDraftReplay:
    name = "minidraft"

    def replay(self, moves: MoveList, title: str) -> Replay:
        def draw(state: minidraft.MiniDraftState) -> tuple[list[str], Scores]:
            shown = [tiles_svg(g) for g in state.grids] + [tiles_svg(state.face_up)]
            return shown, tuple((p, p) for p in state.points())

        walk = walk_frames(moves, draw)
        return assemble_replay(
            moves,
            title,
            "2 players",
            walk,
            ("#c0392b", "#2980b9"),
            categories=("pairs",),
            defs="",
            legend="",
        )


REPLAY = MiniDraftReplay()
