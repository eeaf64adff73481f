"""Games for the replay tests: small tournaments of both games that keep their move lists, a 4-player
move list, and a saved game of the play CLI (shared by the tests of this folder)."""

from __future__ import annotations

from pathlib import Path

from play_sessions import scripted_session

from agents.move_list import MoveList
from agents.play import PlaySession
from agents.runner import GameRunner, GameSetup
from agents.tournament import run_tournament
from agents.tournament.games import MoveRecorder


def small_tournament(out: Path, games: int = 3, save_games: int = 2) -> Path:
    """heuristic vs greedy, ``games`` games, the first ``save_games`` kept."""
    result = run_tournament(
        ["heuristic", "greedy"], players=2, games=games, seed=5, out=out, save_games=save_games
    )
    result.save(out, plot=False)
    return out


def small_kingdomino_tournament(out: Path, games: int = 3, save_games: int = 2) -> Path:
    """The same for Kingdomino (2 players, Harmony): heuristic vs greedy."""
    result = run_tournament(
        ["heuristic", "greedy"],
        players=2,
        games=games,
        seed=5,
        game="kingdomino",
        mode="harmony",
        out=out,
        save_games=save_games,
    )
    result.save(out, plot=False)
    return out


def four_player_moves(seed: int = 11) -> MoveList:
    """A whole 4-player game (random agents) as a move list, played by the runner."""
    from agents import make_agent

    setup = GameSetup(num_players=4)
    recorder = MoveRecorder()
    agents = [make_agent("random", seed=s) for s in range(4)]
    outcome = GameRunner(setup).play(agents, seed, [1, 2, 3, 4], hook=recorder)
    return MoveList(
        players=4,
        mode="base",
        scenario=None,
        seed=seed,
        seats=("random A", "random B", "random C", "random D"),
        actions=tuple(recorder.actions),
        final_scores=tuple(s.total for s in outcome.state.scores()),
        source="test",
    )


def saved_game_file(directory: Path, decisions: int = 40) -> tuple[Path, PlaySession]:
    """A game of the play CLI left after ``decisions`` human decisions (the autosave)."""
    asked = 0

    def answer(session: PlaySession) -> str:
        nonlocal asked
        asked += 1
        return "quit" if asked > decisions else str(session.state.legal_action_list()[0])

    session = scripted_session(
        answer, players=2, opponents=["greedy"], human_seats=[0], seed=7, save_dir=directory
    )
    result = session.run()
    assert result.saved is not None
    return result.saved, session
