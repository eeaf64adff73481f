"""Round-robin tournaments between agents, with ratings and confidence intervals.

Usage::

    python -m agents.tournament --agents random,greedy,mcts --players 2 --games 400 \\
        --workers 2 --seed 0 [--mode base|legends] [--scenario S] [--out DIR] [--no-plot] \\
        [--backend process|ray] [--address HOST:PORT]
    python -m agents.tournament --game kingdomino --variants must_place,harmony \\
        --players 4 --agents random,greedy,heuristic,mc:sims=50 --games 40 --out runs/kd

Every game takes the same options (``--game`` names a registered game,
:mod:`moonriver_env.games`; ``--variants a,b`` is ``--mode a+b``). The score columns of
``games.csv`` are the game's (its ``records`` hook,
:class:`~moonriver_env.family.records.ScoreSheet`); everything else is the same for every game.

Schedule
--------
Agents are given as specs (``make_agent`` syntax, e.g. ``mcts:sims=200``); a spec may be
listed twice for self-play, its entries are then labelled ``spec#1``, ``spec#2``.

- 2 players: every pair of distinct entries plays ``--games`` games, seats alternating
  (the first entry of the pair is seat 0 in even games). With a single entry it plays itself.
- 3-4 players: every lineup of N entries (combinations of the list; with repetition when there
  are fewer entries than seats, leaving out lineups of a single entry) in each of its N cyclic
  seat rotations; the ``--games`` games go round-robin over these (lineup, rotation) slots, so
  seats are exactly balanced when ``--games`` is a multiple of the number of slots.

Game ``i`` uses the seed ``SeedSequence([seed, i])`` (63 bits) for ``env.reset``, and the
agent in seat ``s`` is ``reset`` with ``SeedSequence([seed, i, 1 + s])``. Games run in
``--workers`` spawned processes, or with ``--backend ray`` on as many Ray actors (a Ray started
for the command, or the cluster at ``--address``; :mod:`agents.ray_backend`); each keeps its
agents and environment between games, and the results are put back in game order, so the same
arguments give byte-identical ``games.csv``, ``summary.csv`` and ``summary.json`` for any
number of workers and either backend, as long as the agents are deterministic given their
seed (no time budgets: e.g. ``mcts:sims=200,time=none``).

Agents built on :class:`agents.base.Agent` are asked through ``choose(state)`` (what their
``act`` does with ``env.unwrapped.state``) so no observation is encoded for them; any other
object is called as ``act(observation, env)``.

Results
-------
- *games* counts the seats an agent played (a lineup with repetition seats it twice).
- *wins* credits a shared win (tie after the tie-breaks) as ``1/k`` to each of the ``k``
  winners, so wins sum to the number of games; the win rate is ``wins / games`` with a 95%
  Wilson interval (the chance level is ``1/N``).
- *score*: mean final total with a 95% Student-t interval, and the mean per category (the
  game's categories: Moon River territories, resources, partners, scenario; Kingdomino
  territories, harmony, middle_kingdom, earlier_games).
- *rank*: mean finishing rank (tie-breaks applied, tied seats share the better rank).
- OpenSkill (Plackett-Luce) ``mu``, ``sigma`` and ``ordinal = mu - 3 sigma``, games taken in
  game order.
- Bradley-Terry Elo: every game is split into pairwise comparisons between seats of different
  entries (finishing ahead = a win, a tie = half); ratings anchored at ``random = 1000`` (the
  first entry whose spec is ``random``) else at a mean of 1000, with standard errors.
- The pairwise matrix: how often the row entry finished ahead of the column entry (ties 1/2);
  with 2 players it is the head-to-head win rate.

Files in ``--out`` (default ``runs/tournament-<timestamp>``): ``games.csv`` (one row per game
and seat), ``summary.csv`` (one row per entry), ``summary.json`` (configuration, summary rows,
pairwise matrix), ``timing.json`` (wall time, decisions per second; not reproducible) and
``summary.png`` (win rate with CI, ratings, mean score by category).

Modules: :mod:`~agents.tournament.schedule` (entries, labels, lineups),
:mod:`~agents.tournament.games` (running the games through :mod:`agents.runner`),
:mod:`~agents.tournament.records` (per game and seat), :mod:`~agents.tournament.results`
(statistics, files), :mod:`~agents.tournament.report` (table, plot),
:mod:`~agents.tournament.cli` (the command line).
"""

from ..seeds import agent_seed, game_seed
from .cli import main
from .games import AgentFactory, run_tournament
from .records import AgentSummary, GameJob, GameRecord, SeatResult
from .report import plot_summary
from .results import TournamentResult
from .schedule import entry_labels, schedule, seat_slots, split_specs

__all__ = [
    "AgentFactory",
    "AgentSummary",
    "GameJob",
    "GameRecord",
    "SeatResult",
    "TournamentResult",
    "agent_seed",
    "entry_labels",
    "game_seed",
    "main",
    "plot_summary",
    "run_tournament",
    "schedule",
    "seat_slots",
    "split_specs",
]
