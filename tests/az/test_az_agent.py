"""The ``az`` agent: plays legal games, refuses what it cannot play before any move, uses
no hand-written evaluation at play time."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from az_models import write_model  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.az import AzAgent, CheckpointError, load_checkpoint, policy_probabilities  # noqa: E402
from agents.runner import GameRunner, GameSetup  # noqa: E402
from agents.shipped import CHECKPOINTS
from agents.tournament.games import run_tournament  # noqa: E402
from moonriver_env.rules import GameConfig, new_game  # noqa: E402


def test_plays_a_whole_game_legally(model_2p: Path) -> None:
    agent = make_agent(f"az:path={model_2p},sims=4", seed=1)
    runner = GameRunner(GameSetup(num_players=2))
    outcome = runner.play([agent, make_agent("random", seed=2)], 5, [1, 2], ["az", "random"])
    assert outcome.state.is_terminal
    assert outcome.decisions[0] > 50


def test_same_seed_same_game(model_2p: Path) -> None:
    def moves(seed: int) -> list[int]:
        agent = AzAgent(seed=seed, path=model_2p, sims=6, k=4)
        state = new_game(GameConfig(num_players=2), seed=3)
        out = []
        while not state.is_terminal and len(out) < 40:
            a = agent.choose(state)
            out.append(a)
            state.apply(a)
        return out

    assert moves(7) == moves(7)


def test_raw_policy_is_the_argmax(model_2p: Path) -> None:
    agent = AzAgent(seed=0, path=model_2p, sims=0)
    state = new_game(GameConfig(num_players=2), seed=4)
    for _ in range(30):
        probs = policy_probabilities(agent, state)
        a = agent.choose(state)
        assert probs[a] == max(probs.values())
        state.apply(a)


def test_sampled_raw_policy_varies(model_2p: Path) -> None:
    agent = AzAgent(seed=0, path=model_2p, sims=0, sample="true")
    state = new_game(GameConfig(num_players=2), seed=4)
    legal = state.legal_action_list()
    assert len(legal) > 1
    picks = {agent.choose(state) for _ in range(40)}
    assert len(picks) > 1 and picks <= set(legal)


def test_another_game_is_refused_before_any_move(model_2p: Path, tmp_path: Path) -> None:
    spec = f"az:path={model_2p}"
    with pytest.raises(ValueError, match=r"the game is 4p_base but .* trained for 2p_base"):
        run_tournament([spec, "random", "random", "random"], players=4, games=1, out=tmp_path / "t")
    assert not (tmp_path / "t").exists()  # refused before anything was written or played


def test_a_model_of_another_game_is_refused(model_2p: Path) -> None:
    """Another game with the same player count and mode (a Kingdomino config) is refused,
    naming both games."""

    class KingdominoConfig:
        num_players = 2
        mode = "base"

    agent = AzAgent(path=model_2p)
    with pytest.raises(
        CheckpointError, match=r"the game is kingdomino_2p_base but .* trained for 2p_base"
    ):
        agent.check_game(KingdominoConfig())  # type: ignore[arg-type]
    with pytest.raises(CheckpointError, match="no shipped az model for kingdomino_2p_base"):
        AzAgent().check_game(KingdominoConfig())  # type: ignore[arg-type]


def test_no_shipped_model_for_a_game_is_refused() -> None:
    agent = AzAgent(seed=0)
    with pytest.raises(CheckpointError, match="no shipped az model for 3p_base"):
        agent.check_game(GameConfig(num_players=3))


def test_truncated_foreign_and_reshaped_files_are_refused(model_2p: Path, tmp_path: Path) -> None:
    import torch

    data = model_2p.read_bytes()
    cut = tmp_path / "cut.pt"
    cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        AzAgent(path=cut)
    foreign = tmp_path / "foreign.pt"
    torch.save({"state_dict": {}, "meta": {}}, foreign)
    with pytest.raises(CheckpointError, match="not an az model"):
        AzAgent(path=foreign)
    blob = torch.load(model_2p, weights_only=True)
    blob["shape"] = {**blob["shape"], "channels": 12}
    reshaped = tmp_path / "reshaped.pt"
    torch.save(blob, reshaped)
    agent = AzAgent(path=reshaped)
    with pytest.raises(CheckpointError, match="another network shape"):
        agent.check_game(GameConfig(num_players=2))
    with pytest.raises(CheckpointError, match="no az model file"):
        AzAgent(path=tmp_path / "missing.pt")


@pytest.mark.parametrize(
    ("spec", "key"),
    [("az:sims=-1", "sims"), ("az:k=0", "k"), ("az:colour=red", "colour"), ("az:sample=maybe", "sample"),
     ("az:threads=0", "threads"), ("az:sims=x", "sims")],
)  # fmt: skip
def test_bad_parameters_name_the_key(spec: str, key: str, model_2p: Path) -> None:
    with pytest.raises(ValueError, match=rf"^{key}:"):
        make_agent(f"{spec},path={model_2p}" if "colour" not in spec else spec)


def test_play_uses_no_hand_written_evaluation(
    model_2p: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The heuristic, its evaluation and the rollouts are never called while az plays."""
    import moonriver_env.moonriver.agents.evaluation
    import moonriver_env.moonriver.agents.heuristic
    import moonriver_env.moonriver.agents.rollout

    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("az called a hand-written evaluation or rollout")

    monkeypatch.setattr(
        moonriver_env.moonriver.agents.heuristic.HeuristicAgent, "choose", forbidden
    )
    monkeypatch.setattr(
        moonriver_env.moonriver.agents.heuristic.HeuristicAgent, "action_values", forbidden
    )
    monkeypatch.setattr(moonriver_env.moonriver.agents.evaluation.Evaluator, "values", forbidden)
    monkeypatch.setattr(moonriver_env.moonriver.agents.rollout, "rollout", forbidden)
    agent = AzAgent(seed=0, path=model_2p, sims=8)
    runner = GameRunner(GameSetup(num_players=2))
    outcome = runner.play([agent, agent], 11, [0, 1])
    assert outcome.state.is_terminal


def test_four_players(model_4p: Path) -> None:
    agent = AzAgent(seed=0, path=model_4p, sims=4)
    runner = GameRunner(GameSetup(num_players=4))
    rnd = [make_agent("random", seed=s) for s in range(3)]
    assert runner.play([agent, *rnd], 2, [0, 1, 2, 3]).state.is_terminal


def test_round_trip_keeps_the_outputs(tmp_path: Path) -> None:
    import torch

    path = write_model(tmp_path / "m.pt", seed=3)
    net, meta = load_checkpoint(path)
    net2, _ = load_checkpoint(path)
    x = torch.rand(3, net.obs_size)
    with torch.no_grad():
        a, b = net(x), net2(x)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert meta["search"]["sims"] == 4 and meta["provenance"]["command"]
    assert np.all(np.abs(a[1][..., 0].numpy()) <= 1.0)


SHIPPED = sorted(CHECKPOINTS.glob("az_*"))


@pytest.mark.parametrize("folder", SHIPPED, ids=lambda p: p.name)
def test_shipped_models_load_play_and_have_provenance(folder: Path) -> None:
    import json

    net, meta = load_checkpoint(folder / "model.pt")
    n, mode = net.shape.num_players, net.shape.mode
    assert folder.name == f"az_{n}p_{mode}"
    prov = json.loads((folder / "provenance.json").read_text())
    assert prov["command"].startswith("python -m training.az") and prov["positions"] > 0
    assert (folder / "model.pt").stat().st_size < 20_000_000
    agent = make_agent("az:sims=2", seed=0)  # the default: the shipped model of the game
    runner = GameRunner(GameSetup(num_players=n))
    others = [make_agent("random", seed=s) for s in range(n - 1)]
    assert runner.play([agent, *others], 3, list(range(n))).state.is_terminal
