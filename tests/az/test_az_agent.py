"""The ``az`` agent (agents/az/agent.py) in both games: whole games through the tournament
runner, the same moves for the same seed, ``sims=0`` the raw policy without search, and every
refusal before the first move (another game, a damaged file, bad parameters)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest
from az_models import KD_STUDY, SPECS, native_state

from agents import make_agent
from agents.az import AzAgent, CheckpointError, policy_probabilities
from agents.tournament.games import run_tournament
from moonriver_env.moonriver.rules import GameConfig


@pytest.mark.parametrize(
    ("key", "game", "mode"),
    [("mr2", "moonriver", "base"), ("mr4", "moonriver", "base"), ("kd4", "kingdomino", KD_STUDY)],
)
def test_plays_whole_games(key: str, game: str, mode: str, models: dict[str, Path]) -> None:
    """az (with its search) and az:sims=0 play whole games against random in each game."""
    n = SPECS[key].num_players
    for spec in (f"az:path={models[key]}", f"az:path={models[key]},sims=0"):
        result = run_tournament(
            [spec] + ["random"] * (n - 1), players=n, games=2 if n == 2 else 1, game=game, mode=mode
        )
        me = result.summaries[0]
        assert me.games == (2 if n == 2 else 1)
        assert 0.0 <= me.win_rate <= 1.0


def play(agent: AzAgent, key: str, seed: int, moves: int) -> list[int]:
    """The agent's moves for every seat of a game of ``key`` (at most ``moves``)."""
    state = native_state(SPECS[key], seed).to_state()
    out = []
    while not state.is_terminal and len(out) < moves:
        a = agent.choose(state)
        assert a in state.legal_action_list()
        out.append(a)
        state.apply(a)
    return out


@pytest.mark.parametrize("key", SPECS)
def test_same_seed_same_moves(key: str, models: dict[str, Path]) -> None:
    a = play(AzAgent(seed=7, path=models[key]), key, 3, 30)
    assert a == play(AzAgent(seed=7, path=models[key]), key, 3, 30)
    sampled = [play(AzAgent(seed=s, path=models[key], sample=1), key, 3, 30) for s in (1, 2)]
    assert sampled[0] != sampled[1]  # sample=1 draws from pi with the agent's seed


@pytest.mark.parametrize("key", SPECS)
def test_sims0_is_the_raw_policy(key: str, models: dict[str, Path]) -> None:
    """``az:sims=0``: no search, the prior's argmax (pi = prior), for one network evaluation
    a decision for the root and one more per legal move (its afterstate); the search (the
    model's settings) spends more."""
    path = models[key]
    raw = AzAgent(seed=0, path=path, sims=0)
    searched = AzAgent(seed=0, path=path)
    state = native_state(SPECS[key], 5).to_state()
    multi = 0
    while not state.is_terminal and multi < 12:
        legal = state.legal_action_list()
        a = raw.choose(state)
        assert raw.last is not None
        if len(legal) > 1:
            multi += 1
            assert raw.last.evals == 1 + len(legal)
            assert raw.last.pi == raw.last.prior
            probs = policy_probabilities(raw, state)
            assert probs[a] == max(probs.values())
            searched.choose(state)
            assert searched.last is not None and searched.last.evals > raw.last.evals
        state.apply(a)
    assert multi == 12 and raw.settings is not None and raw.settings.k == 0


def test_sims_sets_the_candidates(models: dict[str, Path]) -> None:
    """``az:sims=N`` (N > 0) searches N candidates (``k``), as ``eval.sims`` documents (it
    was ignored: the model's k played); ``k`` given beside it wins; out of range names
    ``sims``."""
    config = SPECS["mr2"].config()
    for params, k in (({"sims": 2}, 2), ({"sims": 5, "k": 1}, 1), ({}, 3), ({"sims": 0}, 0)):
        agent = AzAgent(seed=0, path=models["mr2"], **params)
        agent.check_game(config)
        assert agent.settings is not None and agent.settings.k == k, params
    agent = make_agent(f"az:path={models['mr2']},sims=4")
    agent.check_game(config)
    assert agent.settings.k == 4
    with pytest.raises(ValueError, match=r"^sims: expected an integer in 0\.\.32, got 33"):
        AzAgent(seed=0, path=models["mr2"], sims=33)
    agent = make_agent(f"az:path={models['mr2']},rollout_temp=0")
    agent.check_game(config)
    assert agent.settings.rollout_temp == 0.0 and agent.settings.k == 3  # the rest: the model's


def test_a_model_of_another_game_is_refused_before_any_move(
    models: dict[str, Path], tmp_path: Path
) -> None:
    """Seated in another game (another player count, or the other game), the agent refuses
    before the first move, naming both games; nothing is written."""
    cases = [
        (models["mr2"], 4, "moonriver", "base", r"the game is 4p_base but .* trained for 2p_base"),
        (
            models["kd4"],
            2,
            "moonriver",
            "base",
            rf"the game is 2p_base but .* trained for kingdomino_4p_{re.escape(KD_STUDY)}",
        ),
        (
            models["mr4"],
            4,
            "kingdomino",
            KD_STUDY,
            rf"the game is kingdomino_4p_{re.escape(KD_STUDY)} but .* trained for 4p_base",
        ),
    ]
    for i, (path, n, game, mode, message) in enumerate(cases):
        specs = [f"az:path={path}"] + ["random"] * (n - 1)
        with pytest.raises(ValueError, match=message):
            run_tournament(specs, players=n, games=1, game=game, mode=mode, out=tmp_path / f"t{i}")
        assert not (tmp_path / f"t{i}").exists()
    # with no model for the table shipped (neither its own nor the game's), a named error
    import agents.az.checkpoint as checkpoint

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(checkpoint, "CHECKPOINTS", tmp_path / "none")
        with pytest.raises(CheckpointError, match="no shipped az model for 3p_base"):
            AzAgent(seed=0).check_game(GameConfig(num_players=3))
    AzAgent(seed=0).check_game(GameConfig(num_players=3))  # as shipped: the game's model


def test_damaged_foreign_and_missing_files_are_refused(
    models: dict[str, Path], tmp_path: Path
) -> None:
    import torch

    data = models["mr2"].read_bytes()
    cut = tmp_path / "cut.pt"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        make_agent(f"az:path={cut}")
    foreign = tmp_path / "foreign.pt"
    torch.save({"state_dict": {}, "meta": {}}, foreign)
    with pytest.raises(CheckpointError, match="not an az model"):
        make_agent(f"az:path={foreign}")
    with pytest.raises(CheckpointError, match="no az model file"):
        make_agent(f"az:path={tmp_path / 'missing.pt'}")
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "model.pt").write_bytes(data)  # a folder holding model.pt is a model
    assert play(AzAgent(seed=0, path=folder), "mr2", 1, 3)


@pytest.mark.parametrize(
    ("spec", "key"),
    [("az:k=-1", "k"), ("az:sims=x", "sims"), ("az:sims=-1", "sims"), ("az:r=1.5", "r"), ("az:k=33", "k"),
     ("az:sims=40", "sims"),
     ("az:depth=-2", "depth"), ("az:sample=maybe", "sample"), ("az:rollout_temp=hot", "rollout_temp"),
     ("az:rollout_temp=-1", "rollout_temp"), ("az:opponent_temp=cold", "opponent_temp"),
     ("az:opponent_temp=101", "opponent_temp"), ("az:opponent_temp=-2", "opponent_temp")],
)  # fmt: skip
def test_bad_parameters_name_the_key(spec: str, key: str, models: dict[str, Path]) -> None:
    for game, model in (("moonriver", "mr2"), ("kingdomino", "kd4")):
        with pytest.raises(ValueError, match=rf"^{key}:"):
            make_agent(f"{spec},path={models[model]}", game=game)
    with pytest.raises(ValueError, match="colour"):
        make_agent("az:colour=red")
    for removed in ("symmetries", "move_symmetries"):  # settings the search no longer has
        with pytest.raises(ValueError, match=rf"^{removed}: not a parameter of agent 'az'"):
            make_agent(f"az:{removed}=1")


def test_opponent_temp_in_the_spec_reaches_the_settings(models: dict[str, Path]) -> None:
    """``az:opponent_temp=T`` overrides the model's setting (and only that one); without it the
    model's own (the default, -1: the other seats move as the deciding one)."""
    for game, model in (("moonriver", "mr2"), ("kingdomino", "kd4")):
        own = make_agent(f"az:path={models[model]}", game=game)
        tuned = make_agent(f"az:opponent_temp=1.5,path={models[model]}", game=game)
        config = SPECS[model].config()
        own.load_for(config)
        tuned.load_for(config)
        assert own.settings is not None and tuned.settings is not None
        assert own.settings.opponent_temp == -1.0 and tuned.settings.opponent_temp == 1.5
        assert replace(tuned.settings, opponent_temp=-1.0) == own.settings


def test_play_uses_no_hand_written_evaluation(
    models: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Python heuristic, its evaluation, the rollouts and Kingdomino's greedy agent are
    never called while az plays (its search is the network's alone)."""
    import moonriver_env.kingdomino.agents.greedy as greedy
    import moonriver_env.moonriver.agents.evaluation as evaluation
    import moonriver_env.moonriver.agents.heuristic as heuristic
    import moonriver_env.moonriver.agents.rollout as rollout

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("az called a hand-written evaluation or rollout")

    monkeypatch.setattr(heuristic.HeuristicAgent, "choose", forbidden)
    monkeypatch.setattr(heuristic.HeuristicAgent, "action_values", forbidden)
    monkeypatch.setattr(evaluation.Evaluator, "values", forbidden)
    monkeypatch.setattr(rollout, "rollout", forbidden)
    for name in dir(greedy):
        obj = getattr(greedy, name)
        if isinstance(obj, type) and hasattr(obj, "choose"):
            monkeypatch.setattr(obj, "choose", forbidden)
    for key in ("mr2", "kd4"):
        agent = AzAgent(seed=0, path=models[key])
        moves = play(agent, key, 2, 10_000)
        state = native_state(SPECS[key], 2).to_state()
        for a in moves:
            state.apply(a)
        assert state.is_terminal and agent.last is not None  # a whole game
