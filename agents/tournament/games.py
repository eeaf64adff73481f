"""Running a tournament: the games of the schedule, played by :class:`agents.runner.GameRunner`
in one or more processes or Ray actors (:func:`agents.jobs.run_jobs`), then summarised."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from .. import make_agent
from ..base import check_game
from ..jobs import Backend, run_jobs
from ..runner import GameRunner, GameSetup
from ..seeds import agent_seed, game_seed
from .gamesfile import GamesFile
from .records import GameJob, GameRecord, record_game
from .results import TournamentResult, summarise
from .schedule import entry_labels, schedule

if TYPE_CHECKING:
    from ..base import Agent

AgentFactory = Callable[[str, int], "Agent"]


def _default_factory(spec: str, seed: int) -> Agent:
    return make_agent(spec, seed=seed)


class _Table:
    """One process's game runner and agents (one per entry and copy), kept between games."""

    def __init__(
        self, specs: Sequence[str], setup: GameSetup, factory: AgentFactory | None
    ) -> None:
        self.specs = list(specs)
        self.factory = factory or _default_factory
        self.runner = GameRunner(setup)
        self.agents: dict[tuple[int, int], Agent] = {}

    def agent(self, entry: int, copy: int) -> Agent:
        key = (entry, copy)
        if key not in self.agents:
            self.agents[key] = self.factory(self.specs[entry], 0)
        return self.agents[key]

    def play(self, job: GameJob) -> GameRecord:
        copies: dict[int, int] = {}
        seat_agents = []
        for entry in job.lineup:
            copies[entry] = copies.get(entry, -1) + 1
            seat_agents.append(self.agent(entry, copies[entry]))
        names = [self.specs[e] for e in job.lineup]
        try:
            outcome = self.runner.play(seat_agents, job.seed, job.agent_seeds, names=names)
        except Exception as exc:
            lineup = ", ".join(f"seat {s}: {name}" for s, name in enumerate(names))
            raise RuntimeError(
                f"game {job.index} (seed {job.seed}; {lineup}) failed: {type(exc).__name__}: {exc}"
            ) from exc
        return record_game(job, outcome)


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
    mode: str = "base",
    scenario: str | None = None,
    progress: bool = False,
    agent_factory: AgentFactory | None = None,
    out: str | os.PathLike[str] | None = None,
    resume: bool = False,
    force: bool = False,
    backend: Backend | None = None,
) -> TournamentResult:
    """Play a tournament (schedule, seeds and statistics in :mod:`agents.tournament`).

    Args:
        agent_specs: agent specs for :func:`agents.make_agent` (repeats allowed).
        players: seats per game (2-4).
        games: with 2 players, games per pair of entries; with 3-4, games in total.
        seed: master seed (>= 0).
        workers: processes (``1``: play in this process), or Ray actors.
        mode, scenario: the game variant (``scenario`` for Legends; ``None`` draws per game).
        progress: show a tqdm progress bar (on stderr).
        agent_factory: ``(spec, seed) -> Agent``; default :func:`agents.make_agent`. With
            several workers it must be a picklable module-level function.
        out: a directory: every finished game is appended to its ``games.csv`` as it
            arrives (:mod:`~agents.tournament.gamesfile`); checked before any game (a
            directory holding a tournament is refused unless ``resume`` or ``force``).
        resume: continue the tournament in ``out`` (same arguments): its finished games are
            read back and only the others are played.
        force: replace the tournament files in ``out``.
        backend: where the workers play (:class:`agents.jobs.Backend`; default: processes
            on this machine). The games and files do not depend on it.

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
    if seed < 0:
        raise ValueError(f"seed: expected a non-negative integer, got {seed!r}")
    if workers < 1:
        raise ValueError(f"workers: expected at least 1, got {workers!r}")
    setup = GameSetup(num_players=players, mode=mode, scenario=scenario)
    config = setup.game_config()  # validate early
    factory = agent_factory or _default_factory
    for spec in dict.fromkeys(specs):
        # a bad spec, or an agent trained for another game: ValueError before any game
        check_game(factory(spec, 0), config)
    labels = tuple(entry_labels(specs))
    jobs = make_jobs(len(specs), players, games, seed)
    backend = backend or Backend()
    # up before any file is written: a backend that cannot start leaves ``out`` untouched
    with backend.session(workers):
        log = None
        if out is not None:
            arguments = {
                "agents": list(specs),
                "players": players,
                "games": games,
                "seed": seed,
                "mode": mode,
                "scenario": scenario,
            }
            log = GamesFile.open(out, arguments, labels, players, resume=resume, force=force)
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
            if log is not None:
                log.append(record)
            bar.update(1)

        try:
            played = run_jobs(
                todo,
                _Table,
                (specs, setup, agent_factory),
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
        specs, labels, players, games, seed, mode, scenario, records, wall, min(workers, len(jobs))
    )
