"""The Kingdomino replay page: written for a whole 4-player game, its final scores the
engine's, every position drawn."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from agents.move_list import MoveList
from agents.replay import build_replay, write_replay
from moonriver_env.games import GameSpec


def kingdomino_moves(seed: int = 5) -> tuple[MoveList, list[int]]:
    """A whole 4-player Kingdomino game (uniform random legal moves) and its final totals."""
    env = GameSpec(game="kingdomino", num_players=4).make_env()
    env.reset(seed=seed)
    state = env.state
    assert state is not None
    rng = np.random.default_rng(seed)
    actions: list[int] = []
    while not state.is_terminal:
        legal = state.legal_action_list()
        action = int(legal[rng.integers(len(legal))])
        actions.append(action)
        state.apply(action)
    totals = [s.total for s in state.scores()]
    moves = MoveList(
        players=4,
        mode="base",
        scenario=None,
        seed=seed,
        seats=("a", "b", "c", "d"),
        actions=tuple(actions),
        final_scores=tuple(totals),
        source="test",
        game="kingdomino",
    )
    return moves, totals


def test_kingdomino_replay_page_final_scores_are_the_engines(tmp_path: Path) -> None:
    moves, totals = kingdomino_moves()
    replay = build_replay(moves)
    assert replay.finished
    assert len(replay.frames) == len(moves.actions) + 1
    assert [f.total for f in replay.final] == totals
    assert all(sum(f.categories) == f.total for f in replay.final)
    assert replay.frames[1].move.startswith(moves.seats[replay.frames[1].actor or 0])
    # the kingdoms change over the game: the first and last positions differ
    assert replay.frames[0].pieces != replay.frames[-1].pieces
    out = write_replay(moves.save(tmp_path / "game.json"), tmp_path / "k.html")
    html = Path(out).read_text()
    shown = [int(t) for t in re.findall(r'data-total="(-?\d+)"', html)]
    assert shown == totals
    assert 'id="final-scores"' in html
