"""Random play over every mode and player count, with invariants checked after every action.

The games are spread over 2/3/4 players x base/legends; Legends games use a randomly drawn
scenario (``scenario="random"``) and each of the four scenarios explicitly, with the boards
by seat, dealt at random, or given explicitly. Every action is chosen uniformly at random
among the legal ones by a seeded ``random.Random``, so every failure is reproducible from
the test id and the seed printed in the assertion message.

How many games:
    By default 306 games in all (17 per configuration, 18 configurations; at least 300).
    Set the environment variable ``MOONRIVER_RANDOM_GAMES`` to a larger total to play more,
    e.g. ``MOONRIVER_RANDOM_GAMES=5000 pytest tests/rules/test_random_play.py -n 2``. Values below
    300 are raised to 300. ``MOONRIVER_RANDOM_SEED`` (default 0) shifts every game's seed.

Everything is checked against data computed here, independently of the engine's own helpers
(its bitboards, kind table, scoring and legal-move code):

after every action
    legal ids in range, strictly ascending, equal to ``legal_action_mask()``, drawn only from
    the action segments of the phase; the 96 plots all accounted for (pile + both columns +
    held + placed + removed + discarded == the component multiset); the 20 partner tokens all
    accounted for (ranches + saloon + stack); cows on ranches + supply == 32, never negative,
    never on a cornfield or an empty cell; partners only on circle plots; held plots sorted
    and within the reserve; ``scores()`` equal to a simple flood-fill scorer written here;
    the legal skull / cowboy / desperado / thief / claim / discard options equal to an
    independent enumeration (also recruit and bonus tile options); a placed domino obeys the
    connection rules and brings its cows; the decision after a domino / recruit is the one the
    rules call for; ranches only grow, by exactly the piece placed; columns sorted by back
    number, drawn from the pile; turns in column order, each seat with its rancheros; the
    saloon changes only by a recruit or a round-start refill; no Select while a domino could
    still be placed voluntarily, none in the final round; final-turn leftovers discarded only
    when no two of them fit; a bonus tile (2 players) handed to each seat whose domino first
    reaches the far row while one is left; setup claims in a random order (2 players A B B A).
every few actions (random, about 1 in ``CHECK_EVERY``)
    the legal domino placements equal an independent enumeration; a clone is equal and
    independent (playing on it leaves the original unchanged; the original then reaches the
    same state); an illegal action id raises ``IllegalActionError`` and changes nothing;
    at a few points per game (and at the end), the JSON round trip.
at the end
    no legal actions, ``current_seat is None``, nobody holds plots, at most one cow per plot,
    the winners by the tie-breaks of RULES.md section 5; the game ends within ``MAX_DECISIONS``.
"""

from __future__ import annotations

import math
import os
import random

import pytest
from random_play_checks import (
    check_action_effect,
    check_clone_and_apply,
    check_illegal,
    check_json_round_trip,
    check_terminal,
    check_turn_rules,
)
from random_play_invariants import check_invariants, check_placements
from random_play_model import Ctx, make_ctx

from moonriver_env.rules import LEGENDS_BOARDS, SCENARIOS, GameConfig, Phase, new_game

MAX_DECISIONS = 2_000
CHECK_EVERY = 16  # heavy checks on about 1 step in CHECK_EVERY
JSON_POINTS = 3  # JSON round trips per game (plus the terminal state)
MIN_GAMES = 300


# --------------------------------------------------------------------------- configurations


def _legends_boards(n: int, k: int) -> tuple[str, ...] | str | None:
    """Cycle the board assignment: by seat, dealt at random, explicit (reversed)."""
    return (None, "random", tuple(reversed(LEGENDS_BOARDS))[:n])[k % 3]


def _configs() -> list[tuple[str, list[GameConfig]]]:
    cells: list[tuple[str, list[GameConfig]]] = []
    for n in (2, 3, 4):
        cells.append((f"{n}p-base", [GameConfig(num_players=n, mode="base")]))
    for n in (2, 3, 4):
        for scen in ("random", *SCENARIOS):
            variants = [
                GameConfig(
                    num_players=n, mode="legends", scenario=scen, boards=_legends_boards(n, k)
                )
                for k in range(3)
            ]
            cells.append((f"{n}p-legends-{scen}", variants))
    return cells


CONFIG_CELLS = _configs()


def _total_games() -> int:
    raw = os.environ.get("MOONRIVER_RANDOM_GAMES", "")
    total = int(raw) if raw.strip() else MIN_GAMES
    return max(total, MIN_GAMES)


GAMES_PER_CELL = math.ceil(_total_games() / len(CONFIG_CELLS))
SEED_BASE = int(os.environ.get("MOONRIVER_RANDOM_SEED", "0") or 0)


# --------------------------------------------------------------------------- the game loop


def play_checked(config: GameConfig, seed: int) -> Ctx:
    """Play one game with random legal actions, checking everything; return its context."""
    state = new_game(config, seed=seed)
    ctx = make_ctx(state, seed)
    chooser = random.Random(seed * 1_000_003 + config.num_players * 10 + len(config.mode))
    json_steps = {chooser.randrange(120) for _ in range(JSON_POINTS)}
    check_invariants(ctx)
    steps = 0
    setup_seats: list[int] = []
    while not state.is_terminal:
        assert steps < MAX_DECISIONS, f"no end after {MAX_DECISIONS} decisions ({ctx.where()})"
        legal = state.legal_action_list()
        action = legal[chooser.randrange(len(legal))]
        if state.phase == Phase.SETUP_CLAIM:
            setup_seats.append(state.seat)
        heavy = chooser.randrange(CHECK_EVERY) == 0
        if heavy:
            check_placements(ctx)
            check_illegal(ctx, chooser)
        if steps in json_steps:
            check_json_round_trip(ctx, chooser)
        before = state.clone()
        if heavy:
            check_clone_and_apply(ctx, action)
        else:
            state.apply(action)
        steps += 1
        check_action_effect(ctx, action, before)
        check_turn_rules(ctx, action, before)
        check_invariants(ctx)
    # Setup claims (section 2, step 3): a random order; with 2 players A, B, B, A.
    n = config.num_players
    if n == 2:
        a, b = setup_seats[0], 1 - setup_seats[0]
        assert setup_seats == [a, b, b, a], setup_seats
    else:
        assert sorted(setup_seats) == list(range(n)), setup_seats
    check_terminal(ctx)
    check_json_round_trip(ctx, chooser)
    return ctx


# Phases every configuration's games must reach (random play covers them easily).
MUST_SEE = {"SETUP_CLAIM", "SELECT", "EXPAND", "SKULL", "RECRUIT", "COWBOY", "FINAL_EXPAND"}


@pytest.mark.parametrize("name,configs", CONFIG_CELLS, ids=[name for name, _ in CONFIG_CELLS])
def test_random_play(name: str, configs: list[GameConfig]) -> None:
    phases: set[str] = set()
    for g in range(GAMES_PER_CELL):
        seed = SEED_BASE + g
        ctx = play_checked(configs[g % len(configs)], seed)
        phases |= ctx.phases
    missing = MUST_SEE - phases
    assert not missing, f"{name}: random play never reached {sorted(missing)}"


def test_random_play_covers_rare_phases() -> None:
    """Across all configurations, random play reaches every decision type at least once."""
    phases: set[str] = set()
    for _, configs in CONFIG_CELLS:
        for g in range(2):
            phases |= play_checked(configs[g % len(configs)], SEED_BASE + 1000 + g).phases
    rare = {"DESPERADO", "THIEF", "BONUS", "MUST_EXPAND"}
    assert rare <= phases, f"never reached {sorted(rare - phases)}"


def test_json_round_trip_during_random_play() -> None:
    """The JSON round trip at several points per game and at its end, in every configuration
    (a broken serializer fails here, it is never skipped)."""
    for name, configs in CONFIG_CELLS:
        ctx = play_checked(configs[0], SEED_BASE + 2000)
        assert ctx.json_trips >= 1, f"{name}: no JSON round trip was checked"
