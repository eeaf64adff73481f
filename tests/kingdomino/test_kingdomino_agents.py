"""Kingdomino agents through the shared agent interface (agents/base.py)."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest

from moonriver_env import kingdomino_v0
from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase, new_game
from moonriver_env.kingdomino.agents import (
    GreedyKingdominoAgent,
    make_kingdomino_agent,
    play_game,
)
from moonriver_env.kingdomino.rules.scoring import kingdom_points, placement_gain, placement_gains
from moonriver_env.vector import NATIVE

SPECS = [
    "random",
    "greedy",
    "greedy:draft=random",
    "greedy:draft=random,study=true",
    "heuristic",
    "mc:sims=8,rollout=random",
    "mc:sims=4,rollout=greedy,value=margin",
    "mcts:sims=12,rollout=player_greedy",
]


@pytest.mark.parametrize("spec", SPECS)
@pytest.mark.parametrize(
    "config",
    [KingdominoConfig(2), KingdominoConfig(4, ("must_place", "harmony", "middle_kingdom"))],
    ids=["2p", "4p-paper"],
)
def test_every_agent_plays_legal_games(spec: str, config: KingdominoConfig) -> None:
    agents = [make_kingdomino_agent(spec)] + [
        make_kingdomino_agent("random") for _ in range(config.num_players - 1)
    ]
    state = play_game(config, agents, seed=5)
    assert state.is_terminal


def test_agents_act_through_the_environment() -> None:
    env = kingdomino_v0.env(num_players=3)
    env.reset(seed=2)
    agent = make_kingdomino_agent("greedy", seed=0)
    agent.check_game(env.unwrapped.config)
    for _name in env.agent_iter():
        obs, _r, term, trunc, _i = env.last()
        env.step(None if term or trunc else agent.act(obs, env))
    assert env.unwrapped.state.is_terminal
    with pytest.raises(ValueError, match="cannot play"):
        agent.check_game(object())


CIG_RULES = KingdominoConfig(4, ("must_place", "harmony", "middle_kingdom"))


def placement_choices(config: KingdominoConfig, games: int) -> Iterator[KingdominoState]:
    """The states of random games (seeds ``0 .. games - 1``) where a seat places with more
    than one legal choice; the games go on with random moves after each is yielded."""
    for seed in range(games):
        state = new_game(config, seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            if state.phase == Phase.PLACE and len(state.legal_action_list()) > 1:
                yield state
            state.apply(rng.choice(state.legal_action_list()))


def test_greedy_places_for_the_largest_gain_and_picks_the_best_domino() -> None:
    greedy = GreedyKingdominoAgent(seed=0)
    seen = 0
    for state in placement_choices(CIG_RULES, 6):
        kingdom = state.kingdoms[state.seat]
        before = kingdom_points(kingdom, True, True)
        cells = state.layout.cells
        d = state.current_domino()
        gains = {
            a: kingdom_points(kingdom.place(d, a % cells, a // cells), True, True) - before
            for a in state.legal_action_list()
        }
        a = greedy.choose(state)
        assert gains[a] == max(gains.values())
        seen += 1
    assert seen > 100


def test_placement_gains_equal_the_one_by_one_gain() -> None:
    for variants in (
        (),
        ("harmony", "middle_kingdom"),
        ("mighty_duel", "harmony", "middle_kingdom"),
    ):
        cfg = KingdominoConfig(2, variants)
        h, m = cfg.has("harmony"), cfg.has("middle_kingdom")
        state = new_game(cfg, 3)
        rng = random.Random(3)
        while not state.is_terminal:
            if state.phase == Phase.PLACE:
                k, d = state.kingdoms[state.seat], state.current_domino()
                ids = [a for a in state.legal_action_list() if a != state.layout.discard]
                cells = state.layout.cells
                one = [placement_gain(k, d, a % cells, a // cells, h, m) for a in ids]
                assert placement_gains(k, d, ids, h, m) == one
            state.apply(rng.choice(state.legal_action_list()))


@pytest.mark.parametrize("spec", ["mc:sims=6,rollout=random", "mcts:sims=10,rollout=random"])
def test_search_agents_never_read_the_hidden_order(spec: str) -> None:
    state = new_game(KingdominoConfig(2), 7)
    rng = random.Random(7)
    while state.phase != Phase.PLACE or len(state.legal_action_list()) < 3:
        state.apply(rng.choice(state.legal_action_list()))
    twin = state.clone()
    twin.pile.reverse()
    a = make_kingdomino_agent(spec, seed=1).choose(state)
    b = make_kingdomino_agent(spec, seed=1).choose(twin)
    assert a == b


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("", "spec"),
        ("alphazero", "unknown Kingdomino agent"),
        ("greedy:draft=smart", "draft"),
        ("greedy:study=maybe", "study"),
        ("greedy:depth=2", "not a parameter"),
        ("mc:sims=x", "sims"),
        ("mc:rollout=magic", "rollout"),
        ("mc:sims=0", "time budget"),
        ("mcts:c=-1", "c:"),
        ("mc:k=1,k=2", "twice"),
    ],
)
def test_bad_specs_are_named_errors(spec: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_kingdomino_agent(spec)


def test_agents_are_deterministic_for_a_seed() -> None:
    cfg = KingdominoConfig(3)
    runs = []
    for _ in range(2):
        agents = [
            make_kingdomino_agent(s) for s in ("greedy", "heuristic", "mc:sims=5,rollout=random")
        ]
        runs.append(play_game(cfg, agents, seed=4).to_json())
    assert runs[0] == runs[1]


def test_the_benchmarks_run_small_for_kingdomino(capsys: pytest.CaptureFixture[str]) -> None:
    from moonriver_env import bench, bench_env

    assert (
        bench.main(["--game", "kingdomino", "--games", "2", "--runs", "1", "--modes", "4p-base"])
        == 0
    )
    out = capsys.readouterr().out
    assert "Kingdomino engine benchmark" in out and "4p-base" in out
    assert (
        bench_env.main(
            [
                "--game",
                "kingdomino",
                "--variants",
                "must_place",
                "--steps",
                "200",
                "--runs",
                "1",
                "--players",
                "2",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "connect_four_v3" in out and "kingdomino_v0 2p must_place" in out


def test_the_paper_runner_is_resumable(tmp_path) -> None:
    from moonriver_env.kingdomino import paper

    paper.run_matchup("greedy_vs_3random", 3, tmp_path)
    paper.run_matchup("greedy_vs_3random", 5, tmp_path)  # plays games 3 and 4 only
    lines = (tmp_path / "greedy_vs_3random.jsonl").read_text().splitlines()
    assert len(lines) == 5
    assert paper.tally(tmp_path / "greedy_vs_3random.jsonl")["games"] == 5
    assert "greedy_vs_3random" in paper.summary(tmp_path)
    (tmp_path / "greedy_vs_3random.lock").write_text("1")
    with pytest.raises(SystemExit, match="another run"):
        paper.run_matchup("greedy_vs_3random", 6, tmp_path)


def test_the_study_filters_avoid_dead_squares_and_keep_the_centre() -> None:
    from moonriver_env.kingdomino.agents.greedy import dead_squares, study_placements

    checked = 0
    for state in placement_choices(CIG_RULES, 5):
        k, d = state.kingdoms[state.seat], state.current_domino()
        cells = state.layout.cells
        after = {
            a: k.place(d, a % cells, a // cells)
            for a in state.legal_action_list()
            if a != state.layout.discard
        }
        clean = [a for a, kk in after.items() if not dead_squares(kk, True)]
        chosen = study_placements(state)
        assert set(chosen) <= set(after)
        if clean and all(not (after[a].occupied & ~k.board.centred) for a in clean):
            assert set(chosen) <= set(clean)
        checked += 1
    assert checked > 50


def test_the_shared_registry_builds_kingdomino_agents() -> None:
    from agents.registry import make_agent
    from moonriver_env.kingdomino.agents import GreedyKingdominoAgent as Greedy

    assert isinstance(make_agent("greedy", seed=1, game="kingdomino"), Greedy)
    assert not isinstance(make_agent("greedy", seed=1), Greedy)


@pytest.mark.skipif(not NATIVE, reason="the native core is not built")
@pytest.mark.parametrize(
    "config",
    [
        KingdominoConfig(4, ("must_place", "harmony", "middle_kingdom")),
        KingdominoConfig(2, ("mighty_duel",)),
        KingdominoConfig(3, ("dynasty",)),
    ],
    ids=["4p-paper", "duel", "3p-dynasty"],
)
@pytest.mark.parametrize("rollout", ["greedy", "random", "player_greedy"])
def test_mc_in_the_native_core_decides_as_in_python(config: KingdominoConfig, rollout: str) -> None:
    """A playout budget: the native rounds give the Python rounds' decision, draw the same
    numbers from the agent's generator and count the same playouts."""
    state = new_game(config, 3)
    other = make_kingdomino_agent("greedy", seed=2)
    spec = f"mc:sims=10,rollout={rollout},value=margin"
    checked = 0
    while not state.is_terminal and checked < 8:
        if len(state.legal_action_list()) > 2:
            native = make_kingdomino_agent(spec + ",engine=native", seed=checked)
            python = make_kingdomino_agent(spec + ",engine=python", seed=checked)
            assert native.native and not python.native  # type: ignore[attr-defined]
            assert native.choose(state) == python.choose(state)
            assert native.last_sims == python.last_sims == 10  # type: ignore[attr-defined]
            assert native.rng.integers(2**62) == python.rng.integers(2**62)
            checked += 1
        state.apply(other.choose(state))
    assert checked == 8


def test_mc_falls_back_to_python_without_the_native_core(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from moonriver_env.kingdomino.agents import montecarlo

    monkeypatch.setattr(montecarlo, "NATIVE", False)
    assert not make_kingdomino_agent("mc:sims=4").native  # type: ignore[attr-defined]
    with pytest.raises(ValueError, match="engine: the native core is not available"):
        make_kingdomino_agent("mc:sims=4,engine=native")
    with pytest.raises(ValueError, match="engine: expected one of"):
        make_kingdomino_agent("mc:sims=4,engine=gpu")
    config = KingdominoConfig(2)
    state = play_game(config, [make_kingdomino_agent("mc:sims=4,rollout=random")] * 2, seed=1)
    assert state.is_terminal
