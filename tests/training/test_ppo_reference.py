"""The reference PPO (training/ppo/ppo.py): its parts against hand-made cases, the core's sparse
products against NumPy, and a short run that checkpoints, resumes and saves a model that loads
without running code."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

import moonriver_env._native as native
from agents.networks import sparse_policy as sp
from agents.networks.sparse_policy import SparsePolicy, SparseRows
from moonriver_env.games import parse_game
from training.ppo import ppo
from training.ppo.ppo import Args, Rollout


def random_csr(rng: np.random.Generator, rows: int, d: int) -> tuple[SparseRows, np.ndarray]:
    nnz = rng.integers(0, 12, rows)
    crow = np.concatenate(([0], np.cumsum(nnz))).astype(np.int64)
    idx = rng.integers(0, d, int(crow[-1])).astype(np.int64)
    val = rng.standard_normal(int(crow[-1])).astype(np.float32)
    dense = np.zeros((rows, d), np.float32)
    np.add.at(dense, (np.repeat(np.arange(rows), nnz), idx), val)
    return SparseRows(crow, idx, val), dense


@pytest.mark.parametrize(("core", "rows"), [(True, 40), (True, 1500), (False, 40)])
def test_sparse_linear_matches_dense_both_ways(core: bool, rows: int,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    if not core:  # the fallback without a built core: torch's sparse product
        monkeypatch.setattr(sp, "native", None)
    threads = torch.get_num_threads()
    torch.set_num_threads(2)  # 1,500 rows: shared out between two threads
    rng = np.random.default_rng(0)
    x, dense = random_csr(rng, rows, 70)
    assert len(sp._chunks(x)) == (2 if rows >= 512 else 1)
    w = torch.randn(70, 9, requires_grad=True)
    out = sp._SparseLinear.apply(w, x)
    torch.set_num_threads(threads)
    ref_w = w.detach().clone().requires_grad_(True)
    ref = torch.from_numpy(dense) @ ref_w
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-5)
    g = torch.randn(rows, 9)
    (out * g).sum().backward()
    (ref * g).sum().backward()
    torch.testing.assert_close(w.grad, ref_w.grad, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    "bad",
    [
        {"idx": -1},  # an index below 0
        {"idx": 70},  # an index past the columns
        {"crow_last": 10**9},  # a row bound past the entries
        {"crow_dec": True},  # a row ending before it starts
    ],
)
def test_sparse_products_refuse_out_of_range_input(bad: dict[str, object]) -> None:
    rng = np.random.default_rng(1)
    x, _ = random_csr(rng, 8, 70)
    crow, idx, val = x.crow.copy(), x.idx.copy(), x.val.copy()
    if "idx" in bad:
        idx[len(idx) // 2] = int(bad["idx"])  # type: ignore[call-overload]
    if "crow_last" in bad:
        crow[-1] = int(bad["crow_last"])  # type: ignore[call-overload]
    if "crow_dec" in bad:
        crow[3], crow[4] = crow[4] + 1, crow[3]
    w = np.zeros((70, 4), np.float32)
    out = np.zeros((8, 4), np.float32)
    with pytest.raises(ValueError, match="out of range"):
        native.sparse_matmul(crow, idx, val, w, out, 70, 4)
    grad = np.zeros((70, 4), np.float32)
    with pytest.raises(ValueError, match="out of range"):
        native.sparse_matmul_t(crow, idx, val, out, grad, 70, 4)


def test_sparse_products_refuse_wrong_shapes_and_types() -> None:
    rng = np.random.default_rng(2)
    x, _ = random_csr(rng, 5, 30)
    w = np.zeros((30, 4), np.float32)
    with pytest.raises(ValueError, match="w: expected"):
        native.sparse_matmul(x.crow, x.idx, x.val, w, np.zeros((5, 4), np.float32), 31, 4)
    with pytest.raises(ValueError, match="out: expected"):
        native.sparse_matmul(x.crow, x.idx, x.val, w, np.zeros((5, 3), np.float32), 30, 4)
    with pytest.raises(ValueError, match="val: expected"):
        native.sparse_matmul(x.crow, x.idx, x.val.astype(np.float64), w,
                             np.zeros((5, 4), np.float32), 30, 4)
    with pytest.raises(TypeError, match="C-contiguous"):
        native.sparse_matmul(x.crow, x.idx, x.val, w[:, :2], np.zeros((5, 2), np.float32), 30, 2)


def test_ragged_softmax_and_sampling() -> None:
    logits = torch.tensor([0.0, 1.0, 2.0, 5.0, -1.0, 3.0])
    rows = torch.tensor([0, 0, 0, 1, 2, 2])
    logp = sp.segment_log_softmax(logits, rows, 3)
    for r, part in ((0, [0.0, 1.0, 2.0]), (1, [5.0]), (2, [-1.0, 3.0])):
        ref = torch.log_softmax(torch.tensor(part), 0)
        torch.testing.assert_close(logp[rows == r], ref)
    num_legal = np.array([3, 1, 2])
    rng = np.random.default_rng(0)
    picks = np.array([sp.sample_ragged(logp, rows.numpy(), num_legal, rng) for _ in range(4000)])
    assert ((picks >= 0) & (picks < num_legal)).all()
    freq0 = np.bincount(picks[:, 0], minlength=3) / len(picks)
    np.testing.assert_allclose(freq0, torch.softmax(torch.tensor([0.0, 1.0, 2.0]), 0), atol=0.03)
    greedy = sp.sample_ragged(logp, rows.numpy(), num_legal, rng, greedy=True)
    assert greedy.tolist() == [2, 0, 1]


def one_game_rollout(seats: list[int], done_at: int, final: list[float]) -> Rollout:
    """One game's rollout (N = 1): the acting seats, the step its game ends after, and the
    final rewards; values all 0.5."""
    args = Args(num_games=1, num_steps=len(seats))
    ro = Rollout(args, 2)
    ro.seat[:, 0] = seats
    ro.value[:] = 0.5
    ro.done[done_at, 0] = True
    ro.reward[done_at, 0] = final
    return ro


def test_advantages_follow_each_seat_to_the_end_of_its_game() -> None:
    # seats act 0, 0, 1, 0, 1; the game ends after step 3 (seat 0 wins) and step 4 starts a new
    # game; gamma 1, lambda 1: a decision's return is its seat's final reward
    ro = one_game_rollout([0, 0, 1, 0, 1], done_at=3, final=[1.0, -1.0])
    args = Args(gamma=1.0, gae_lambda=1.0)
    adv, ret = ppo.advantages(ro, args, 2)
    np.testing.assert_allclose(ret[:4, 0], [1.0, 1.0, -1.0, 1.0])
    # the new game's decision has no later decision or end in the rollout: advantage 0
    assert adv[4, 0] == pytest.approx(0.0)
    # lambda 0: each decision sees only its seat's next value or the end
    adv0, _ = ppo.advantages(ro, Args(gamma=1.0, gae_lambda=0.0), 2)
    np.testing.assert_allclose(adv0[:4, 0], [0.0, 0.0, -1.5, 0.5])


def test_advantages_credit_dense_rewards_to_the_seat_that_received_them() -> None:
    ro = one_game_rollout([0, 1, 0, 1], done_at=3, final=[0.0, 0.0])
    ro.reward[0, 0] = [0.25, 0.0]  # after seat 0's first decision, seat 0 scores
    ro.reward[1, 0] = [0.0, 0.5]  # after seat 1's first decision, seat 1 scores
    _, ret = ppo.advantages(ro, Args(gamma=1.0, gae_lambda=1.0), 2)
    np.testing.assert_allclose(ret[:, 0], [0.25, 0.5, 0.0, 0.0])


def test_a_short_run_checkpoints_resumes_and_saves_a_safe_model(tmp_path: Path) -> None:
    run = tmp_path / "run"
    argv = ["--game", "moonriver_2p_base", "--run-dir", str(run), "--total-steps", "256",
            "--num-games", "16", "--num-steps", "8", "--eval-opponent", "random",
            "--eval-games", "2", "--save-every", "1", "--embed", "8", "--hidden", "8",
            "--threads", "1"]
    assert ppo.main(argv) == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] == 256 and summary["updates"] == 2
    assert len(summary["evals"]) == 1 and 0.0 <= summary["evals"][0]["win_rate"] <= 1.0
    assert (run / "tb").is_dir() and any((run / "tb").iterdir())
    with pytest.raises(SystemExit):  # the folder holds a run: a new one is refused
        ppo.main(argv)
    ck = torch.load(run / "checkpoints" / "latest.pt", weights_only=False)
    assert ck["step"] == 256
    more = [a if a != "256" else "384" for a in argv]
    args_json = json.loads((run / "args.json").read_text())
    args_json["total_steps"] = 384
    (run / "args.json").write_text(json.dumps(args_json))
    assert ppo.main([*more, "--resume"]) == 0
    assert json.loads((run / "summary.json").read_text())["steps"] == 384
    policy, game = sp.load_model(run / "model.pt")
    assert parse_game(game) == parse_game("moonriver_2p_base")
    assert isinstance(policy, SparsePolicy)
    torch.save({"format": "something else"}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not a model"):
        sp.load_model(tmp_path / "other.pt")


def test_kingdomino_trains_through_the_same_file(tmp_path: Path) -> None:
    argv = ["--game", "kingdomino_2p_base", "--run-dir", str(tmp_path / "kd"), "--total-steps",
            "128", "--num-games", "16", "--num-steps", "8", "--eval-opponent", "random",
            "--eval-games", "2", "--embed", "8", "--hidden", "8", "--threads", "1"]
    assert ppo.main(argv) == 0
    assert json.loads((tmp_path / "kd" / "summary.json").read_text())["steps"] == 128


def test_opponents_play_their_seats_and_leave_no_samples() -> None:
    from moonriver_env.vector import vector_game

    args = Args(num_games=8, num_steps=24, embed=8, hidden=8)
    vg = vector_game("moonriver_2p_base", num_games=8, seed=5, observe="sparse")
    policy = SparsePolicy(vg.observation_size, vg.action_table, 8, 8)
    opponents = ppo.Opponents("random", 0.5, vg, seed=0)
    ro = Rollout(args, 2)
    ppo.collect(policy, vg, ro, np.random.default_rng(0), opponents)
    theirs = ~ro.mine
    slots = np.arange(8)
    assert theirs.any() and ro.mine.any()
    assert not theirs[:, slots >= 4].any(), "self-play slots are the policy's"
    assert (ro.seat[theirs] != (np.nonzero(theirs)[1] % 2)).all(), "the agent plays only others"
    assert (ro.nnz[theirs] == 0).all() and (ro.num_legal[theirs] == 0).all()
    assert sum(len(x) for x in ro.legal) == int(ro.num_legal.sum())
    adv, _ = ppo.advantages(ro, args, 2)
    assert (adv[theirs] == 0).all()
    batches = ppo.minibatches(ro, adv, adv + ro.value, args, np.random.default_rng(1))
    assert sum(b.x.rows for b in batches) == int(ro.mine.sum())
    ppo.update(policy, torch.optim.Adam(policy.parameters()), batches, args,
               np.random.default_rng(2))


def test_a_saved_model_plays_as_the_ppo_agent_of_its_game(tmp_path: Path) -> None:
    from agents.registry import make_agent
    from moonriver_env.kingdomino import new_game as kd_new_game
    from moonriver_env.moonriver.rules import GameConfig, new_game
    from moonriver_env.vector import vector_game

    for game, start in (("moonriver_2p_base", lambda: new_game(GameConfig(num_players=2), 3)),
                        ("kingdomino_2p_base", None)):
        vg = vector_game(game, num_games=1, seed=0, observe="sparse")
        policy = SparsePolicy(vg.observation_size, vg.action_table, 8, 8)
        path = tmp_path / f"{game}.pt"
        torch.save(sp.model_record(policy, game, 8, 8), path)
        name = parse_game(game).game
        agent = make_agent(f"ppo:{path}", seed=0, game=name)
        state = start() if start else kd_new_game(vg.config, 3)
        moves = 0
        while not state.is_terminal and moves < 30:  # the agent's move is legal and greedy
            a = agent.choose(state)
            assert state.is_legal(a)
            state.apply(a)
            moves += 1
        other = "kingdomino_2p_base" if name == "moonriver" else "moonriver_2p_base"
        with pytest.raises(ValueError, match="plays"):  # a model of another game is refused
            agent.check_game(vector_game(other, num_games=1, seed=0).config)
    bad = tmp_path / "bad.pt"
    state_dict = dict(policy.state_dict())
    state_dict["b1"] = torch.full_like(state_dict["b1"], float("nan"))
    torch.save({**sp.model_record(policy, "kingdomino_2p_base", 8, 8), "state_dict": state_dict}, bad)
    with pytest.raises(ValueError, match="not all finite"):
        sp.load_model(bad)


def test_the_bench_prints_steps_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    from training.ppo import bench

    assert bench.main(["--runs", "2", "--updates", "1", "--num-games", "16", "--num-steps",
                       "4", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "run 2: ppo" in out
    line = [x for x in out.splitlines() if x.startswith("ppo: ")][0]
    assert float(line.split()[1].replace(",", "")) > 0 and "the core alone" in line
