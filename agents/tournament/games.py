"""Running a tournament: the games of the schedule, played by :class:`agents.runner.GameRunner`
in one or more processes or Ray actors (:func:`agents.jobs.run_jobs`), then summarised."""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from moonriver_env.games import DEFAULT_GAME, GameSpec

from ..base import check_game
from ..jobs import Backend, run_jobs
from ..move_list import MoveList
from ..registry import make_agent
from ..runner import GameRunner, GameSetup
from ..seeds import agent_seed, game_seed
from .gamesfile import MOVES_DIR, GamesFile
from .records import GameJob, GameRecord, record_game, score_sheet
from .results import TournamentResult, summarise
from .schedule import entry_labels, schedule

if TYPE_CHECKING:
    from ..base import Agent

AgentFactory = Callable[[str, int], "Agent"]


class _Table:
    """One process's game runner and agents (one per entry and copy), kept between games."""

    def __init__(
        self,
        specs: Sequence[str],
        setup: GameSetup,
        factory: AgentFactory | None,
        save_games: int = 0,
        game: str = DEFAULT_GAME,
    ) -> None:
        self.specs = list(specs)
        self.save_games = save_games
        self.factory = factory
        self.game = game
        self.sheet = score_sheet(setup.game_spec(game))
        self.runner = GameRunner(setup, game)
        self.agents: dict[tuple[int, int], Agent] = {}

    def agent(self, entry: int, copy: int) -> Agent:
        key = (entry, copy)
        if key not in self.agents:
            self.agents[key] = build_agent(self.factory, self.specs[entry], self.game)
        return self.agents[key]

    def play(self, job: GameJob) -> GameRecord:
        copies: dict[int, int] = {}
        seat_agents = []
        for entry in job.lineup:
            copies[entry] = copies.get(entry, -1) + 1
            seat_agents.append(self.agent(entry, copies[entry]))
        names = [self.specs[e] for e in job.lineup]
        moves = MoveRecorder() if job.index < self.save_games else None
        try:
            outcome = self.runner.play(
                seat_agents, job.seed, job.agent_seeds, names=names, hook=moves
            )
        except Exception as exc:
            lineup = ", ".join(f"seat {s}: {name}" for s, name in enumerate(names))
            raise RuntimeError(
                f"game {job.index} (seed {job.seed}; {lineup}) failed: {type(exc).__name__}: {exc}"
            ) from exc
        return record_game(job, outcome, self.sheet, None if moves is None else moves.actions)


MAX_GAMES = 1_000_000
"""The most games a tournament schedules (each game's lineup and job are made before the
first is played: 10**12 took gigabytes before any game)."""


def build_agent(factory: AgentFactory | None, spec: str, game: str) -> Agent:
    """The agent of ``spec`` for ``game``, from ``factory`` (``(spec, seed) -> Agent``) or
    the registry (:func:`agents.registry.make_agent`)."""
    if factory is not None:
        return factory(spec, 0)
    return make_agent(spec, seed=0, game=game)


class MoveRecorder:
    """A :class:`agents.runner.DecisionHook` that keeps every action played (the move list)."""

    def __init__(self) -> None:
        self.actions: list[int] = []

    def before_step(self, env: Any, seat: int, action: int) -> int:
        self.actions.append(action)
        return action

    def after_step(self, env: Any) -> None:
        pass


def _play_job(table: _Table, job: GameJob) -> GameRecord:
    return table.play(job)


def make_jobs(n_entries: int, players: int, games: int, seed: int) -> list[GameJob]:
    """The games of the schedule with their seeds (:mod:`agents.runner`), in game order."""
    return [
        GameJob(
            index=i,
            seed=game_seed(seed, i),
            lineup=lineup,
            agent_seeds=tuple(agent_seed(seed, i, s) for s in range(players)),
        )
        for i, lineup in enumerate(schedule(n_entries, players, games))
    ]


def run_tournament(
    agent_specs: Sequence[str],
    players: int = 2,
    games: int = 100,
    seed: int = 0,
    workers: int = 1,
    *,
    game: str = DEFAULT_GAME,
    mode: str = "base",
    scenario: str | None = None,
    progress: bool = False,
    agent_factory: AgentFactory | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    force: bool = False,
    backend: Backend | None = None,
    save_games: int = 0,
) -> TournamentResult:
    """Play a tournament (schedule, seeds and statistics in :mod:`agents.tournament`).

    Args:
        agent_specs: agent specs for :func:`agents.make_agent` (repeats allowed).
        players: seats per game (2-4).
        games: with 2 players, games per pair of entries; with 3-4, games in total.
        seed: master seed (>= 0).
        game: the registered game played (:mod:`moonriver_env.games`); its score columns
            are its ``records`` hook.
        workers: processes (``1``: play in this process), or Ray actors.
        mode, scenario: the game's mode (``scenario`` for Legends; ``None`` draws per game).
        progress: show a tqdm progress bar (on stderr).
        agent_factory: ``(spec, seed) -> Agent``; default :func:`agents.make_agent` (of
            ``game``). With
            several workers it must be a picklable module-level function.
        out: a directory: every finished game is appended to its ``games.csv`` as it
            arrives (:mod:`~agents.tournament.gamesfile`); checked before any game (a
            directory holding a tournament is refused unless ``resume`` or ``force``).
        resume: continue the tournament in ``out`` (same arguments): its finished games are
            read back and only the others are played.
        force: replace the tournament files in ``out``.
        backend: where the workers play (:class:`agents.jobs.Backend`; default: processes
            on this machine). The games and files do not depend on it.
        save_games: keep the move lists of the first ``save_games`` games (by game index) in
            ``out``'s ``moves/`` folder (:mod:`agents.move_list`), for the browser replay
            (``python -m agents.replay OUT --game N``); needs ``out``.

    Returns:
        The :class:`TournamentResult`, games in game order (save it into ``out`` to finish
        the directory: ``result.save(out)``).

    Raises:
        ValueError: a bad argument, an agent that cannot play the game (before any game), an
            ``out`` that cannot be used, or a backend that cannot start
            (:class:`agents.workers.BackendError`); nothing is written then.
        KeyboardInterrupt: passed on; the games finished so far are in ``out``.
    """
    specs = tuple(agent_specs)
    if not specs:
        raise ValueError("agents: expected at least one agent spec")
    if players not in (2, 3, 4):
        raise ValueError(f"players: expected 2, 3 or 4, got {players!r}")
    if games < 1:
        raise ValueError(f"games: expected at least 1, got {games!r}")
    total = games * (max(1, math.comb(len(specs), 2)) if players == 2 else 1)
    if total > MAX_GAMES:  # the schedule and its jobs are built before the first game
        raise ValueError(
            f"games: {games:,} makes {total:,} games; a tournament plays at most {MAX_GAMES:,}"
        )
    if seed < 0:
        raise ValueError(f"seed: expected a non-negative integer, got {seed!r}")
    if workers < 1:
        raise ValueError(f"workers: expected at least 1, got {workers!r}")
    if save_games < 0:
        raise ValueError(f"save_games: expected a non-negative count, got {save_games!r}")
    if save_games and out is None:
        raise ValueError("save_games: needs an output directory (out) for the move lists")
    mode = GameSpec(game=game, num_players=players, mode=mode, scenario=scenario).mode
    setup = GameSetup(num_players=players, mode=mode, scenario=scenario)
    config = setup.game_config(game)  # validate early
    sheet = score_sheet(setup.game_spec(game))
    for spec in dict.fromkeys(specs):
        # a bad spec, or an agent trained for another game: ValueError before any game
        check_game(build_agent(agent_factory, spec, game), config)
    labels = tuple(entry_labels(specs))
    jobs = make_jobs(len(specs), players, games, seed)
    backend = backend or Backend()
    # up before any file is written: a backend that cannot start leaves ``out`` untouched
    with backend.session(workers):
        log = None
        if out is not None:
            arguments = {
                **({} if game == DEFAULT_GAME else {"game": game}),
                "agents": list(specs),
                "players": players,
                "games": games,
                "seed": seed,
                "mode": mode,
                "scenario": scenario,
            }
            log = GamesFile.open(
                out,
                arguments,
                labels,
                players,
                sheet,
                resume=resume,
                force=force,
                lineups=[job.lineup for job in jobs],
            )
        done = dict(log.done) if log is not None else {}
        todo = [job for job in jobs if job.index not in done]
        start = time.perf_counter()
        from tqdm import tqdm

        bar = tqdm(
            total=len(jobs),
            initial=len(done),
            desc="games",
            unit="game",
            disable=not progress,
            leave=False,
        )

        def finished(record: GameRecord) -> None:
            if record.moves is not None and out is not None:
                save_move_list(out, record, labels, setup.game_spec(game))
            if log is not None:
                log.append(record)
            bar.update(1)

        try:
            played = run_jobs(
                todo,
                _Table,
                (specs, setup, agent_factory, save_games, game),
                _play_job,
                workers=workers,
                on_result=finished,
                backend=backend,
            )
        finally:
            bar.close()
            if log is not None:
                log.close()
        records = sorted([*done.values(), *played], key=lambda r: r.index)
        wall = time.perf_counter() - start
    return summarise(
        game,
        sheet.categories,
        specs,
        labels,
        players,
        games,
        seed,
        mode,
        scenario,
        records,
        wall,
        min(workers, len(jobs)),
    )


def move_list_path(out: str | os.PathLike[str], index: int) -> str:
    """Where a tournament in ``out`` keeps the move list of game ``index``."""
    return os.path.join(out, MOVES_DIR, f"game-{index}.json")


def save_move_list(
    out: str | os.PathLike[str], record: GameRecord, labels: Sequence[str], spec: GameSpec
) -> None:
    """Write the move list of a finished game kept with ``save_games`` (atomically)."""
    assert record.moves is not None
    seats = sorted(record.seats, key=lambda s: s.seat)
    MoveList(
        players=spec.num_players,
        mode=spec.mode,
        scenario=spec.scenario,
        seed=record.seed,
        seats=tuple(labels[s.entry] for s in seats),
        actions=record.moves,
        final_scores=tuple(s.total for s in seats),
        source=f"tournament {os.fspath(out)} game {record.index}",
        game=spec.game,
    ).save(move_list_path(out, record.index))
