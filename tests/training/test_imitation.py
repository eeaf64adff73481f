"""The imitation diagnosis (training/ppo/imitation.py, training/ppo/teacher_data.py) and the tie-set
target of the warm start (training/ppo/pretrain.py)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from training.ppo.config import load_config  # noqa: E402
from training.ppo.imitation import (  # noqa: E402
    diagnose,
    format_report,
    grouped,
    legal_bin,
    sample_hits,
    split_games,
)
from training.ppo.pretrain import imitation_loss, play_teacher_games  # noqa: E402
from training.ppo.teacher_data import collect_diagnosis  # noqa: E402
from training.ppo.teacher_games import best_set  # noqa: E402


def test_sample_hits_hand_built() -> None:
    # 3 decisions over 5 actions. Scores of illegal actions must never be predicted.
    scores = np.array(
        [
            [9.0, 5.0, 4.0, 3.0, 0.0],  # action 0 illegal: prediction 1 (teacher's 2, tied)
            [0.0, 1.0, 2.0, 3.0, 4.0],  # prediction 4 = teacher's
            [5.0, 5.0, 1.0, 0.0, 0.0],  # equal scores: the lower id (0); teacher's 3
        ]
    )
    mask = np.array([[0, 1, 1, 1, 0], [1, 1, 1, 1, 1], [1, 1, 1, 1, 0]], dtype=bool)
    action = np.array([2, 4, 3])
    best = np.array([[0, 1, 1, 0, 0], [0, 0, 0, 0, 1], [0, 0, 0, 1, 0]], dtype=bool)
    values = np.array(
        [
            [-np.inf, 2.0, 2.0, 1.0, -np.inf],
            [0.0, 0.0, 0.0, 0.0, 1.0],
            [1.0, 0.5, 0.0, 3.0, -np.inf],
        ]
    )
    hits = sample_hits(scores, mask, action, best, values)
    assert hits["top1"].tolist() == [0.0, 1.0, 0.0]
    assert hits["tie_top1"].tolist() == [1.0, 1.0, 0.0]  # prediction 1 is in the tie set
    assert hits["top3"].tolist() == [1.0, 1.0, 0.0]  # row 2: top 3 are 0, 1, 2
    assert hits["top5"].tolist() == [1.0, 1.0, 1.0]
    assert hits["regret"].tolist() == [0.0, 0.0, 2.0]  # best 3.0, predicted 0 worth 1.0


def test_grouped_accuracy_per_segment() -> None:
    hits = {"top1": np.array([1.0, 0.0, 1.0, 1.0]), "tie_top1": np.array([1.0, 1.0, 1.0, 1.0])}
    groups = np.array(["place", "place", "claim", "place"])
    out = grouped(hits, groups, order=["claim", "place"])
    assert list(out) == ["claim", "place"]
    assert out["place"] == {"n": 3, "top1": pytest.approx(2 / 3), "tie_top1": 1.0}
    assert out["claim"] == {"n": 1, "top1": 1.0, "tie_top1": 1.0}


def test_legal_bins_and_best_set() -> None:
    assert legal_bin(np.array([1, 2, 3, 5, 6, 200])).tolist() == ["1", "2", "3-5", "3-5", "6-10", "101-10000"]  # fmt: skip
    assert best_set({4: 1.0, 7: 1.0 - 1e-12, 9: 0.5}) == [4, 7]


def test_tie_set_loss_is_the_probability_of_the_set() -> None:
    log_probs = torch.log(torch.tensor([[0.5, 0.3, 0.2], [0.1, 0.1, 0.8]]))
    ties = torch.tensor([[1, 1, 0], [0, 0, 1]])
    expected = -(np.log(0.8) + np.log(0.8)) / 2
    assert float(imitation_loss(log_probs, ties)) == pytest.approx(expected, rel=1e-5)
    single = torch.tensor([0, 2])
    assert float(imitation_loss(log_probs, single)) == pytest.approx(-(np.log(0.5) + np.log(0.8)) / 2, rel=1e-5)  # fmt: skip


@pytest.fixture(scope="module")
def tiny_data() -> dict[str, np.ndarray]:
    return collect_diagnosis(load_config(None)["env"], 3, 0, gamma=0.99, explore=0.05)


def test_diagnosis_data_are_the_warm_start_samples(tiny_data: dict[str, np.ndarray]) -> None:
    env = load_config(None)["env"]
    plain = play_teacher_games("heuristic", [0, 1, 2], 0, env, gamma=0.99, explore=0.05)
    for key, value in plain.items():
        assert np.array_equal(tiny_data[key], value), key
    n = len(tiny_data["action"])
    n_actions = int(tiny_data["mask"].shape[1] * 8)
    best = np.unpackbits(tiny_data["best"], axis=1, count=n_actions).astype(bool)
    mask = np.unpackbits(tiny_data["mask"], axis=1, count=n_actions).astype(bool)
    rows = np.arange(n)
    assert best[rows, tiny_data["action"]].all()  # the teacher's choice is one of its best
    assert not (best & ~mask).any()
    assert tiny_data["value_start"][-1] == len(tiny_data["value"])
    legal = tiny_data["n_legal"]
    assert (np.diff(tiny_data["value_start"]) == np.where(legal > 1, legal, 0)).all()


def test_diagnose_reports_every_group(tiny_data: dict[str, np.ndarray]) -> None:
    cfg = load_config(
        None,
        [
            "pretrain.epochs=1",
            "pretrain.target=tie_set",
            "pretrain.lr_schedule=cosine",
            "policy.cnn_channels=[4]",
            "policy.broadcast=4",
            "policy.features_dim=16",
            "policy.feature_mlp=[16]",
            "policy.pi=[16]",
            "policy.vf=[16]",
        ],
    )
    train, held = split_games(tiny_data["game"], 2, 1)
    assert set(tiny_data["game"][train]) == {0, 1} and set(tiny_data["game"][held]) == {2}
    report = diagnose(cfg, tiny_data, 2, 1)
    held_out = report["holdout"]
    assert report["holdout_samples"] == len(held)
    assert 0.0 <= held_out["top1"] <= held_out["tie_top1"] <= 1.0
    assert held_out["top1"] <= held_out["top3"] <= held_out["top5"]
    assert sum(g["n"] for g in held_out["by_segment"].values()) == len(held)
    teacher = report["baselines"]["teacher"]
    assert 0.0 < teacher["exact_cap"] <= 1.0
    assert "policy, held-out" in format_report(report)


@pytest.mark.parametrize("players", [2, 4])
def test_territory_planes_match_the_engine(players: int) -> None:
    from agents.networks.territory import TERRITORY_CHANNELS, TerritoryPlanes
    from moonriver_env.moonriver.agents.evaluation import territory_cells
    from moonriver_env.moonriver.encoding import ObservationEncoder
    from moonriver_env.rules import GameConfig, new_game

    config = GameConfig(num_players=players, mode="base")
    enc = ObservationEncoder(config)
    planes_of = TerritoryPlanes(players, enc.rows)
    width = len(TERRITORY_CHANNELS)
    rng = np.random.default_rng(players)
    state = new_game(config, seed=players)
    checked = 0
    while not state.is_terminal:
        legal = state.legal_action_list()
        state.apply(legal[rng.integers(len(legal))])
        if state.is_terminal or rng.random() > 0.1:
            continue
        seat = state.current_seat
        planes, _ = enc.encode(state, seat)
        out = planes_of(torch.as_tensor(planes)[None]).numpy()[0]
        for r in range(players):
            owner = (seat + r) % players
            size, cows, score, frontier, odd = (out[r * width + i].ravel() for i in range(width))
            for cell in range(enc.cells):
                mask = territory_cells(state, owner, cell)
                cells = [c for c in range(enc.cells) if mask >> c & 1]
                n_cows = sum(state.cows[owner][c] for c in cells)
                open_cells = {
                    nb
                    for c in cells
                    for nb in state.grid.neighbour_list[c]
                    if state.kinds[owner][nb] < 0
                }
                assert size[cell] * 10 == pytest.approx(len(cells))
                assert cows[cell] * 10 == pytest.approx(n_cows)
                assert score[cell] * 100 == pytest.approx(len(cells) * n_cows)
                assert frontier[cell] * 10 == pytest.approx(len(open_cells))
                empty = sum(1 << c for c in range(enc.cells) if state.kinds[owner][c] < 0)
                if state.kinds[owner][cell] >= 0:
                    assert odd[cell] == 0.0
                else:  # an empty cell: the parity of its empty region
                    region = state.grid.flood(1 << cell, empty)
                    assert odd[cell] == region.bit_count() % 2
                checked += 1
    assert checked > 0


def test_value_regression_can_stop_at_the_trunk() -> None:
    from training.ppo.imitation import make_policy
    from training.ppo.pretrain import policy_outputs

    cfg = load_config(None, ["policy.cnn_channels=[4]", "policy.broadcast=4", "policy.pi=[8]", "policy.vf=[8]"])  # fmt: skip
    policy = make_policy(cfg)
    n_actions = int(policy.action_space.n)
    obs = torch.rand(3, policy.observation_space.shape[0])
    mask = torch.ones(3, n_actions, dtype=torch.bool)
    for to_trunk in (True, False):
        policy.zero_grad()
        _, values = policy_outputs(policy, obs, mask, value_to_trunk=to_trunk)
        values.sum().backward()
        trunk = [p.grad for p in policy.features_extractor.parameters()]
        reached = any(g is not None and bool(g.abs().sum() > 0) for g in trunk)
        assert reached == to_trunk
        assert policy.value_net.weight.grad is not None
