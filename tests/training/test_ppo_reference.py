"""The reference PPO (training/ppo/ppo.py): its parts against hand-made cases, the core's sparse
products against NumPy, and a short run that checkpoints, resumes and saves a model that loads
without running code."""

from __future__ import annotations

import dataclasses
import json
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from fresh_python import as_from_a_terminal

import moonriver_env._native as native
from agents.networks import sparse_policy as sp
from agents.networks.sparse_policy import SparsePolicy, SparseRows
from moonriver_env.games import parse_game
from training.ppo import ppo
from training.ppo.ppo import Args, Rollout

ROOT = Path(__file__).resolve().parents[2]


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


def test_a_short_run_checkpoints_resumes_and_saves_a_safe_model(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    run = tmp_path / "run"
    argv = ["--game", "moonriver_2p_base", "--run-dir", str(run), "--total-steps", "256",
            "--num-games", "16", "--num-steps", "8", "--eval-opponent", "random",
            "--eval-games", "2", "--save-every", "1", "--embed", "8", "--hidden", "8",
            "--threads", "1"]
    assert ppo.main(argv) == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] == 256 and summary["updates"] == 2
    assert json.loads((run / "args.json").read_text())["head"] == "afterstate"  # auto, resolved
    assert len(summary["evals"]) == 1 and 0.0 <= summary["evals"][0]["win_rate"] <= 1.0
    assert "over 2 games\n" in capsys.readouterr().out  # no points counted here: none shown
    assert (run / "tb").is_dir() and any((run / "tb").iterdir())
    with pytest.raises(SystemExit):  # the folder holds a run: a new one is refused
        ppo.main(argv)
    ck = torch.load(run / "checkpoints" / "latest.pt", weights_only=False)
    assert ck["step"] == 256
    more = [a if a != "256" else "384" for a in argv]  # a larger budget: a flag --resume takes
    assert ppo.main([*more, "--resume"]) == 0
    assert json.loads((run / "summary.json").read_text())["steps"] == 384
    policy, game = sp.load_model(run / "model.pt")
    assert parse_game(game) == parse_game("moonriver_2p_base")
    assert isinstance(policy, SparsePolicy)
    monkeypatch.setattr(sp, "native", None)  # an afterstate model where no core is built
    with pytest.raises(ValueError, match="plays through the native core"):
        sp.load_model(run / "model.pt")
    monkeypatch.undo()
    torch.save({"format": "something else"}, tmp_path / "other.pt")
    with pytest.raises(ValueError, match="not a model"):
        sp.load_model(tmp_path / "other.pt")


def test_a_run_from_before_the_afterstate_head_resumes_with_its_action_head(
    tmp_path: Path,
) -> None:
    run = tmp_path / "old"
    argv = ["--game", "moonriver_2p_base", "--run-dir", str(run), "--total-steps", "128",
            "--num-games", "16", "--num-steps", "8", "--eval-opponent", "random",
            "--eval-games", "2", "--embed", "8", "--hidden", "8", "--threads", "1"]
    assert ppo.main([*argv, "--head", "action"]) == 0
    saved = json.loads((run / "args.json").read_text())
    del saved["head"], saved["features"], saved["afterstate_value"]  # as such a run wrote it
    del saved["dual_clip"], saved["target_kl"]  # nor these: its update resumes as it was
    (run / "args.json").write_text(json.dumps(saved))
    more = [a if a != "128" else "256" for a in argv]
    assert ppo.main([*more, "--resume"]) == 0
    assert sp.load_model(run / "model.pt")[0].head == "action"
    resumed = json.loads((run / "args.json").read_text())
    assert resumed["head"] == "action"
    assert resumed["dual_clip"] == 0.0 and resumed["target_kl"] == 0.0


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


@pytest.mark.parametrize(("head", "features"), [("action", False), ("afterstate", True)])
def test_a_saved_model_plays_as_the_ppo_agent_of_its_game(tmp_path: Path, head: str,
                                                          features: bool) -> None:
    from agents.registry import make_agent
    from moonriver_env.kingdomino import new_game as kd_new_game
    from moonriver_env.moonriver.rules import GameConfig, new_game
    from moonriver_env.vector import vector_game

    for game, start in (("moonriver_2p_base", lambda: new_game(GameConfig(num_players=2), 3)),
                        ("kingdomino_2p_base", None)):
        vg = vector_game(game, num_games=1, seed=0, observe="sparse")
        policy = SparsePolicy(vg.observation_size, vg.action_table, 8, 8, head, features)
        path = tmp_path / f"{game}.pt"
        torch.save(sp.model_record(policy, game, 8, 8), path)
        name = parse_game(game).game
        agent = make_agent(f"ppo:{path}", seed=0, game=name)
        state = start() if start else kd_new_game(vg.config, 3)
        moves = 0
        assert agent.policy.head == head and agent.policy.features == features
        while not state.is_terminal and moves < 30:  # the agent's move is legal and greedy
            a = agent.choose(state)
            assert state.is_legal(a)
            if head == "afterstate" and len(state.legal_action_list()) > 1:  # the batched form's
                vg.set_state(0, state)
                assert a == int(sp.greedy_actions(agent.policy, vg, np.zeros(1, np.int64))[0])
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


@pytest.mark.parametrize("features", [False, True])
def test_the_afterstate_head_learns_on_the_moves_it_scored(features: bool) -> None:
    """The afterstate head: each decision's logits come from its legal moves' afterstates, in
    the order of its legal list; a minibatch rebuilds the very logits the rollout sampled from
    (ratio 1 before the first step), and an update changes them."""
    from moonriver_env.vector import vector_game

    for game in ("moonriver_2p_base", "kingdomino_4p_base"):
        args = Args(num_games=6, num_steps=20, embed=8, hidden=8, num_minibatches=2)
        vg = vector_game(game, num_games=6, seed=5, observe="sparse")
        policy = SparsePolicy(vg.observation_size, vg.action_table, 8, 8, "afterstate", features)
        ro = Rollout(args, vg.num_players)
        ppo.collect(policy, vg, ro, np.random.default_rng(0),
                    ppo.Opponents("random", 0.5, vg, seed=0))  # fmt: skip
        for t in range(args.num_steps):
            assert len(ro.aft_nnz[t]) == int(ro.num_legal[t].sum())  # one row per legal move
        adv, ret = ppo.advantages(ro, args, vg.num_players)
        batches = ppo.minibatches(ro, adv, ret, args, np.random.default_rng(1))
        before = []
        with torch.no_grad():
            for b in batches:
                assert b.after is not None and b.after.rows == len(b.rows)
                logits = policy.afterstate_logits(b.after)
                logp = sp.segment_log_softmax(logits, b.rows, b.x.rows)[b.chosen]
                torch.testing.assert_close(logp, b.old_logp, atol=1e-5, rtol=1e-5)
                before.append(logits)
        stats = ppo.update(policy, torch.optim.Adam(policy.parameters(), lr=1e-2), batches,
                           args, np.random.default_rng(2))  # fmt: skip
        assert np.isfinite(list(stats.values())).all() and stats["after_v"] > 0
        with torch.no_grad():
            after = policy.afterstate_logits(batches[0].after)
        assert not torch.allclose(after, before[0])


def test_the_bench_prints_steps_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    from training.ppo import bench

    assert bench.main(["--runs", "2", "--updates", "1", "--num-games", "16", "--num-steps",
                       "4", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    assert "run 2: ppo" in out
    line = [x for x in out.splitlines() if x.startswith("ppo: ")][0]
    assert float(line.split()[1].replace(",", "")) > 0 and "the core alone" in line


# -- core rollouts: the games in the native core, az's network ----------------------------------
CORE = ["--rollouts", "core", "--num-games", "4", "--eval-opponent", "random", "--eval-games",
        "2", "--embed", "8", "--hidden", "8", "--num-minibatches", "2"]  # fmt: skip


@pytest.mark.parametrize("threads", ["1", "2"])
def test_core_rollouts_run_resume_and_save_an_az_model(
    tmp_path: Path, threads: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A run whose games are played in the core (with 2 threads the next games beside the
    update) checkpoints, resumes with a larger budget, and saves an az model file that the
    ``az`` agent plays without search (``sims=0``), legally."""
    from agents.registry import make_agent
    from moonriver_env.moonriver.rules import GameConfig, new_game

    run = tmp_path / "core"
    argv = [*CORE, "--game", "moonriver_2p_base", "--run-dir", str(run), "--total-steps", "1",
            "--threads", threads, "--save-every", "1"]  # fmt: skip
    assert ppo.main(argv) == 0
    summary = json.loads((run / "summary.json").read_text())
    assert summary["updates"] == 1 and summary["steps"] > 4 * 50  # whole games' decisions
    ev = summary["evals"][-1]  # the progress line gives the evaluation's points too
    shown = f"games, {ev['mean_score']:.1f} points against {ev['opponent_score']:.1f}\n"
    assert np.isfinite(ev["mean_score"]) and shown in capsys.readouterr().out
    first = summary["steps"]
    more = list(argv)
    more[more.index("--total-steps") + 1] = str(first + 1)  # a larger budget, nothing else
    assert ppo.main([*more, "--resume"]) == 0
    again = json.loads((run / "summary.json").read_text())
    assert again["updates"] == 2 and again["steps"] > first
    agent = make_agent(f"az:path={run / 'model.pt'},sims=0", seed=0, game="moonriver")
    as_ppo = make_agent(f"ppo:{run / 'model.pt'}", seed=0, game="moonriver")  # the same player
    state = new_game(GameConfig(num_players=2), 3)
    for _ in range(20):
        a = agent.choose(state)
        assert state.is_legal(a) and as_ppo.choose(state) == a
        state.apply(a)


def test_core_updates_start_from_the_policy_that_played() -> None:
    """The games' recorded policy (the prior the core drew each move from) is the network's
    softmax over the recorded afterstates, so the update's old log-probability is the
    behaviour's (where no hidden piece is turned up: the afterstates are kept on another
    deal); one update moves the scores and reports finite losses."""
    args = Args(game="kingdomino_4p_base", rollouts="core", num_games=3, embed=8, hidden=8,
                num_minibatches=2, threads=1, features=False)  # fmt: skip
    torch.manual_seed(0)
    learner = ppo.CoreLearner(args)
    with torch.no_grad():
        learner.net.az.value.weight.mul_(30.0)  # scores far apart: a policy with a shape
    pos = learner.games(0, 1)
    _, logp_all, chosen, rows, _ = learner.net.afterstates(pos)
    assert rows.size > 20 and np.all(pos.chosen[rows] >= 0)
    behaviour = pos.pi[pos.legal_ptr[rows] + pos.chosen[rows]]
    close = np.abs(logp_all[chosen].detach().numpy() - np.log(behaviour)) < 1e-3
    assert close.mean() > 0.8
    assert np.std(behaviour) > 0.05  # not uniform: the check above can tell moves apart
    before = [p.detach().clone() for p in learner.net.parameters()]
    opt = torch.optim.Adam(learner.net.parameters(), lr=1e-2)
    stats = ppo.update_core(learner.net, opt, pos, args, np.random.default_rng(0))
    assert np.isfinite(list(stats.values())).all() and stats["v"] > 0 and stats["ent"] > 0
    params = learner.net.parameters()
    assert any(not torch.equal(a, b) for a, b in zip(before, params, strict=True))
    assert stats["tau"] != args.tau  # the policy's temperature is learned
    fixed = ppo.CoreLearner(replace(args, learn_tau=False))
    opt = torch.optim.Adam(fixed.net.parameters(), lr=1e-2)
    tau = ppo.update_core(fixed.net, opt, pos, args, np.random.default_rng(0))["tau"]
    assert tau == pytest.approx(0.1, rel=1e-6)


def test_core_minibatches_are_not_bounded_by_num_steps() -> None:
    """The core rollouts split positions, not steps: more minibatches than ``--num-steps`` is a
    valid core run, and still a named error for the python rollouts (a minibatch is whole
    steps there)."""
    args = Args(game="moonriver_2p_base", rollouts="core", num_minibatches=48, minutes=1.0)
    ppo.check_args(args)
    with pytest.raises(ValueError, match="--num-minibatches: at most --num-steps"):
        ppo.check_args(replace(args, rollouts="python"))


def test_core_tau_keeps_its_floor_and_a_non_finite_step_is_refused() -> None:
    """The learned tau never goes below the floor (a step that would push it lower is clamped);
    a policy saved before tau was learned (the network alone) loads with tau as it starts; a
    step whose loss is not finite raises before the weights change."""
    args = Args(game="moonriver_2p_base", rollouts="core", num_games=2, embed=8, hidden=8,
                num_minibatches=1, threads=1)  # fmt: skip
    learner = ppo.CoreLearner(args)
    with torch.no_grad():
        learner.net.log_beta.fill_(10.0)  # tau 4.5e-5
    learner.net.keep_tau()
    assert learner.net.tau == pytest.approx(ppo.TAU_FLOOR, rel=1e-5)
    other = ppo.CoreLearner(args)
    other.net.load_state_dict(learner.net.az.state_dict())  # the network alone
    assert other.net.tau == pytest.approx(args.tau, rel=1e-6)
    pos = learner.games(0, 1)
    with torch.no_grad():
        learner.net.az.b1.fill_(float("nan"))
    before = [p.detach().clone() for p in learner.net.parameters()]
    opt = torch.optim.Adam(ppo.learned(learner.net), lr=1e-2)
    with pytest.raises(FloatingPointError, match="not finite"):
        ppo.update_core(learner.net, opt, pos, args, np.random.default_rng(0))
    for a, b in zip(before, learner.net.parameters(), strict=True):
        assert torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(), b.nan_to_num())


def test_the_dual_clip_caps_a_bad_move_made_far_more_likely() -> None:
    """A sample whose ratio swung far: with a negative advantage its loss is capped at
    dual x |advantage| and gives no gradient (without the dual clip it grows with the ratio); with
    a positive one the usual clip holds it; a log-ratio of 1,000 stays finite."""
    logratio = torch.tensor([1000.0, 5.0, 5.0, 0.05], requires_grad=True)
    adv = torch.tensor([-1.0, -2.0, 2.0, -1.0])
    loss, ratio = ppo.clipped_objective(logratio, adv, 0.2, dual=3.0)
    assert torch.isfinite(loss).all() and torch.isfinite(ratio).all()
    assert loss[0].item() == pytest.approx(3.0) and loss[1].item() == pytest.approx(6.0)
    assert loss[2].item() == pytest.approx(-2.0 * 1.2)  # the usual clip
    assert loss[3].item() == pytest.approx(np.exp(0.05))  # inside the clip: untouched
    loss.sum().backward()
    assert logratio.grad is not None
    assert logratio.grad[:3].abs().max().item() == 0.0 and logratio.grad[3].item() > 0
    plain, _ = ppo.clipped_objective(logratio.detach(), adv, 0.2)
    assert plain[1].item() == pytest.approx(2.0 * np.exp(5.0))  # grows with the ratio


def test_core_update_stops_where_the_policy_moved_too_far() -> None:
    """With --target-kl tiny, the update takes its first steps (the ratio is 1 there), then
    stops at the first minibatch whose KL from the policy that played passes it; without a
    target every minibatch is stepped."""
    args = Args(game="kingdomino_4p_base", rollouts="core", num_games=3, embed=8, hidden=8,
                num_minibatches=4, update_epochs=2, threads=1, features=False)  # fmt: skip
    torch.manual_seed(0)
    learner = ppo.CoreLearner(args)
    pos = learner.games(0, 1)
    state = {k: v.clone() for k, v in learner.net.state_dict().items()}
    steps = []
    for target in (0.0, 1e-9):
        learner.net.load_state_dict(state)
        opt = torch.optim.Adam(ppo.learned(learner.net), lr=1e-1)
        count = [0]
        step = opt.step

        def counted(*a: object, step: object = step, count: list[int] = count) -> object:
            count[0] += 1
            return step(*a)  # type: ignore[operator]

        opt.step = counted  # type: ignore[method-assign,assignment]
        stats = ppo.update_core(learner.net, opt, pos, replace(args, target_kl=target),
                                np.random.default_rng(0))  # fmt: skip
        steps.append(count[0])
        assert stats["kl_stops"] == (1.0 if target else 0.0)
    assert steps[0] == 8 and 1 <= steps[1] < 8


# -- the run's safety: bad flags, resume, the lock, Ctrl-C and kill -----------------------------
TINY = ["--game", "moonriver_2p_base", "--num-games", "16", "--num-steps", "8",
        "--eval-opponent", "random", "--eval-games", "2", "--embed", "8", "--hidden", "8",
        "--threads", "1"]  # fmt: skip
PER_UPDATE = 16 * 8


def _digest(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}  # fmt: skip


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--num-games", "0"], "--num-games: expected a positive integer"),
        (["--learning-rate", "nan"], "--learning-rate: expected a finite number"),
        (["--gamma", "1.5"], "--gamma: expected a finite number in [0.0, 1.0]"),
        (["--dual-clip", "0.5"], "--dual-clip: expected 0 (off) or a number over 1"),
        (["--opponent-share", "0.5"], "--opponent-share: needs --opponent"),
        (["--opponent", "nosuch", "--opponent-share", "0.5"], "--opponent: "),
        (["--eval-opponent", "grredy"], "--eval-opponent: "),
        (["--num-minibatches", "9"], "--num-minibatches: at most --num-steps (8)"),
        (["--total-steps", "0"], "--total-steps, --minutes: give one of them"),
        (["--anneal-lr", "maybe"], "--anneal-lr: expected true or false, got 'maybe'"),
        (["--players", "7"], "num_players"),
        (["--num-steps", "many"], "--num-steps: invalid int value"),
        (["--head", "sideways"], "--head: expected auto, action or afterstate"),
        (["--afterstate-value", "-1"], "--afterstate-value: expected a finite number"),
        (["--rollouts", "gpu"], "--rollouts: expected python or core, got 'gpu'"),
        (["--rollouts", "core", "--opponent", "greedy", "--opponent-share", "0.5"],
         "--opponent: core rollouts are self-play only"),
        (["--rollouts", "core", "--dense-reward", "0.1"], "--reward, --dense-reward"),
        (["--value-scale", "true"], "--value-scale: core rollouts only"),
        (["--rollouts", "core", "--value-share", "0"], "--value-share: expected a finite number"),
        (["--rollouts", "core", "--pg-share", "1.5"], "--pg-share: expected a finite number"),
    ],
)
def test_a_bad_flag_is_a_named_error_with_exit_status_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], flags: list[str], named: str
) -> None:
    run = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_info:
        ppo.main([*TINY, "--run-dir", str(run), "--total-steps", "128", *flags])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert named in err and "Traceback" not in err, err
    assert not run.exists()


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("ppo") / "run"
    assert ppo.main([*TINY, "--run-dir", str(run), "--total-steps", str(2 * PER_UPDATE)]) == 0
    return run


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--embed", "16"], "--embed: cannot change on --resume (the run's is 8)"),
        (["--learning-rate", "0.1"], "--learning-rate: cannot change on --resume"),
        (["--game", "kingdomino_2p_base"], "--game: the run plays"),
        (["--total-steps", "-1"], "--total-steps: expected 0 or more"),
    ],
)
def test_resume_refuses_to_change_the_run_and_writes_nothing(
    finished_run: Path, capsys: pytest.CaptureFixture[str], flags: list[str], named: str
) -> None:
    before = _digest(finished_run)
    with pytest.raises(SystemExit) as exit_info:
        ppo.main(["--run-dir", str(finished_run), "--resume", *flags])
    assert exit_info.value.code == 2
    assert named in capsys.readouterr().err
    assert _digest(finished_run) == before


@pytest.mark.parametrize(("retired", "value", "refused"),
                         [("pg_coef", 0.1, True), ("explore", 30, True), ("pg_coef", 1.0, False),
                          ("teacher_epochs", 2.0, False), ("no_such_setting", 1, True)])  # fmt: skip
def test_resume_refuses_a_run_saved_with_a_setting_this_version_lacks(
    tmp_path: Path, retired: str, value: object, refused: bool
) -> None:
    """A run saved by a version with a setting this one lacks resumes only where that setting
    held the value at which the run trains as this version does; otherwise the refusal names
    it (it is not silently dropped)."""
    run = run_with_args(tmp_path)
    saved = json.loads((run / "args.json").read_text())
    (run / "args.json").write_text(json.dumps({**saved, retired: value}))
    flag = "--" + retired.replace("_", "-")
    if refused:
        with pytest.raises(ValueError, match=f"--resume: the run was saved with {flag} "):
            ppo.resumed_args(run, {}, None)
    else:
        assert ppo.resumed_args(run, {}, None) == Args(**saved)


def run_with_args(tmp_path: Path) -> Path:
    """A folder as a run leaves it, for :func:`ppo.resumed_args`: its settings and a
    checkpoint file."""
    run = tmp_path / "saved"
    (run / "checkpoints").mkdir(parents=True)
    (run / "checkpoints" / "latest.pt").write_bytes(b"")
    args = Args(game="moonriver_2p_base", rollouts="core", minutes=1.0)
    (run / "args.json").write_text(json.dumps(dataclasses.asdict(args)))
    return run


def test_an_unknown_rollouts_is_named_before_the_minibatch_bound() -> None:
    with pytest.raises(ValueError, match="--rollouts: expected python or core, got 'gpu'"):
        ppo.check_args(Args(rollouts="gpu", num_minibatches=48, minutes=1.0))


def test_resume_without_a_run_is_a_named_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_info:
        ppo.main(["--run-dir", str(tmp_path / "none"), "--resume"])
    assert exit_info.value.code == 2
    assert "--resume: no checkpoint at" in capsys.readouterr().err
    assert not (tmp_path / "none").exists()


def test_a_locked_run_dir_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    from training.common.outputs import RunLock

    run = tmp_path / "run"
    with RunLock(run):
        code = ppo.main([*TINY, "--run-dir", str(run), "--total-steps", "128"])
        assert sorted(p.name for p in run.iterdir()) == [".lock"]
    assert code == 2 and f"pid {os.getpid()}" in capsys.readouterr().err
    assert not run.exists()  # the holder wrote nothing either: its lock and folder went


def _checkpoint_step(path: Path) -> int:
    try:
        return int(torch.load(path, map_location="cpu", weights_only=False)["step"])
    except (OSError, RuntimeError, EOFError, KeyError):
        return -1


def _start(argv: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "training.ppo.ppo", *argv], cwd=ROOT, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=as_from_a_terminal,
    )  # fmt: skip


def _wait_for_checkpoint(proc: subprocess.Popen[str], latest: Path, step: int) -> int:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        found = _checkpoint_step(latest) if latest.exists() else -1
        if found >= step:
            return found
        time.sleep(0.2)
    proc.kill()
    raise AssertionError(f"no checkpoint at step {step} within 300 s")


def test_ctrl_c_and_kill_keep_the_last_checkpoint_and_resume_continues(tmp_path: Path) -> None:
    """A run on a minute budget is killed (SIGKILL) after its checkpoints began: the last one
    is whole. Resumed, it is stopped with Ctrl-C (SIGINT): exit status 130, a message naming
    --resume, the checkpoint whole, no temporary file, and its TensorBoard events on disk. Resumed again with a step budget, it
    continues from that checkpoint (step count, update count, the learning-rate schedule)."""
    run = tmp_path / "run"
    latest = run / "checkpoints" / "latest.pt"
    first = _start([*TINY, "--run-dir", str(run), "--minutes", "30", "--save-every", "1"])
    _wait_for_checkpoint(first, latest, 2 * PER_UPDATE)
    first.send_signal(signal.SIGKILL)
    first.wait(60)
    killed_at = _checkpoint_step(latest)
    assert killed_at >= 2 * PER_UPDATE  # whole: it loads
    second = _start(["--run-dir", str(run), "--resume", "--save-every", "1"])
    _wait_for_checkpoint(second, latest, killed_at + PER_UPDATE)
    second.send_signal(signal.SIGINT)
    _, err = second.communicate(timeout=120)
    assert second.returncode == 130, err
    assert "--resume" in err and "Traceback" not in err
    stopped_at = _checkpoint_step(latest)
    assert stopped_at > killed_at
    assert [p.name for p in latest.parent.iterdir()] == ["latest.pt"]  # no temporary file
    # the interrupted start's TensorBoard events reached the disk (the writer closed on Ctrl-C)
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    events = sorted((run / "tb").glob("events.*"), key=lambda p: p.stat().st_mtime)
    acc = EventAccumulator(str(events[-1]))
    acc.Reload()
    assert [e.step for e in acc.Scalars("perf/steps_per_second")][-1] > killed_at
    ck = torch.load(latest, map_location="cpu", weights_only=False)
    budget = stopped_at + 2 * PER_UPDATE
    assert ppo.main(["--run-dir", str(run), "--resume", "--total-steps", str(budget),
                     "--minutes", "0"]) == 0  # fmt: skip
    summary = json.loads((run / "summary.json").read_text())
    assert summary["steps"] == budget and summary["updates"] == ck["update"] + 2
    end = torch.load(latest, map_location="cpu", weights_only=False)
    assert end["step"] == budget and end["args"]["total_steps"] == budget
    # the optimiser continued: Adam's step count went on from the checkpoint's (2 updates of
    # 4 minibatches x 2 epochs)
    before = [float(s["step"]) for s in ck["optim"]["state"].values()]
    after = [float(s["step"]) for s in end["optim"]["state"].values()]
    assert after == [b + 2 * 4 * 2 for b in before] and before[0] > 0
    assert json.loads((run / "args.json").read_text())["total_steps"] == budget


def test_ppo_path_tells_an_az_file_from_other_models(tmp_path: Path) -> None:
    """``ppo:PATH`` on an az model file (a core-rollouts run's ``model.pt``) plays its raw
    policy; an az file of another version gets az's own error, not a MaskablePPO reader's; a
    file that is no model of the reference PPO is left to the game's own reader (``None``)."""
    from agents.az import AzAgent
    from agents.az.checkpoint import CheckpointError
    from agents.ppo_agent import reference_ppo_agent
    from agents.shipped import CHECKPOINTS

    shipped = CHECKPOINTS / "az_2p_base" / "model.pt"
    agent = reference_ppo_agent(shipped, seed=0)
    assert isinstance(agent, AzAgent) and agent.raw
    blob = torch.load(shipped, map_location="cpu", weights_only=True)
    torch.save({**blob, "version": -1}, tmp_path / "old.pt")
    with pytest.raises(CheckpointError, match="version"):
        reference_ppo_agent(tmp_path / "old.pt")
    torch.save({"format": "something else"}, tmp_path / "other.pt")
    assert reference_ppo_agent(tmp_path / "other.pt") is None
    assert reference_ppo_agent(tmp_path / "missing.pt") is None


def test_value_scale_keeps_the_logits_and_scales_their_gradient_into_the_values() -> None:
    """``--value-scale``: the same policy (logits value x beta), but the objective's gradient
    reaches each afterstate value once, not beta times; tau's gradient is unchanged."""
    args = Args(game="moonriver_2p_base", rollouts="core", num_games=2, embed=8, hidden=8,
                num_minibatches=1, threads=1)  # fmt: skip
    torch.manual_seed(0)
    learner = ppo.CoreLearner(args)
    pos = learner.games(0, 1)
    grads = []
    for scaled in (False, True):
        learner.net.value_scale = scaled
        learner.net.zero_grad(set_to_none=True)
        _, logp_all, chosen, _, _ = learner.net.afterstates(pos)
        logp_all[chosen].sum().backward()
        grads.append((logp_all.detach().clone(), learner.net.az.value.bias.grad.clone(),
                      learner.net.log_beta.grad.clone()))  # fmt: skip
    (lp0, gv0, gb0), (lp1, gv1, gb1) = grads
    assert torch.allclose(lp0, lp1) and torch.allclose(gb0, gb1)
    beta = 1.0 / learner.net.tau
    assert float(gv0.abs().sum()) > 1e-4 and torch.allclose(gv1 * beta, gv0, rtol=1e-4, atol=1e-6)
