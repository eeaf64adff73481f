"""The in-process self-play path (``run.vec_env = "selfplay"``, training/ppo/selfplay_vec.py): masks,
per-seat credit assignment, determinism, a short run with snapshot seats and its resume, and the
throughput bench."""

from __future__ import annotations

import io
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from training.common.run import RunClock  # noqa: E402
from training.ppo import sb3_bench as tbench  # noqa: E402
from training.ppo.config import ConfigError, load_config  # noqa: E402
from training.ppo.model import build_model, make_vec_env  # noqa: E402
from training.ppo.selfplay_vec import LEARNER, seat_advantages  # noqa: E402
from training.ppo.train import train  # noqa: E402

DEFAULT = Path(__file__).resolve().parents[2] / "training" / "ppo" / "configs" / "default.toml"

SELFPLAY = [
    "run.vec_env=selfplay",
    "run.n_envs=4",
    "run.progress_bar=false",
    "ppo.n_steps=64",
    "ppo.batch_size=128",
    "ppo.n_epochs=1",
    "pretrain.teacher=",
    "eval.every=0",
    "eval.final_games=0",
    "opponents.learner=1.0",
    "opponents.random=0.0",
    "opponents.greedy=0.0",
    "opponents.heuristic=0.0",
    "opponents.snapshot=0.0",
]


def _model(overrides: list[str]) -> Any:
    cfg = load_config(DEFAULT, [*SELFPLAY, *overrides])
    torch.set_num_threads(cfg["run"]["torch_threads"])  # as train() does (2 threads stall)
    run_dir = Path(tempfile.mkdtemp(prefix="selfplay-test-"))
    venv = make_vec_env(cfg, run_dir)
    model = build_model(cfg, venv, run_dir, RunClock())
    return model, venv


def _collect(model: Any, callback: Any = None) -> None:
    from stable_baselines3.common.callbacks import BaseCallback

    class Keep(BaseCallback):
        def __init__(self) -> None:
            super().__init__()
            self.finished: list[dict[str, Any]] = []

        def _on_step(self) -> bool:
            self.finished.extend(self.locals["infos"])
            return True

    keep = callback or Keep()
    model._setup_learn(model.n_steps * model.n_envs, keep)
    keep.init_callback(model)
    model.collect_rollouts(model.env, keep, model.rollout_buffer, model.n_steps)
    return keep


def test_masks_are_the_acting_learner_seats_legal_actions() -> None:
    model, venv = _model(["opponents.greedy=1.0", "opponents.learner=0.0"])
    venv.reset()
    obs = np.zeros((venv.num_envs, venv.observation_space.shape[0]), dtype=np.float32)
    masks = np.zeros((venv.num_envs, venv.num_actions), dtype=bool)
    for _ in range(30):  # every game waits for its learner seat, whose legal set is the mask
        seats = model._learner_inputs(venv, obs, masks)
        rewards, dones = np.zeros(1), np.zeros(1, dtype=bool)
        for g, game in enumerate(venv.games):
            state = game.aec.state
            assert seats[g] == state.current_seat == game.learner_seat
            assert game.kinds[seats[g]] == LEARNER
            assert np.array_equal(masks[g], state.legal_action_mask().astype(bool))
            assert np.array_equal(obs[g], game.aec.encoder.encode_flat(state, seats[g]))
            legal = np.flatnonzero(masks[g])
            venv.apply(g, int(legal[len(legal) // 2]), rewards, dones)
        venv.advance(rewards, dones)
        masks[:] = False


@pytest.mark.parametrize("dense", [0.0, 0.02])
def test_each_seats_rewards_sum_to_its_game_result(dense: float) -> None:
    """Both seats of a game are learner seats: following each seat's chain of samples from the
    game's first decision to its end adds up to that seat's outcome (+ dense x final score)."""
    model, _ = _model([f"env.dense_reward={dense}", "run.n_envs=2", "ppo.n_steps=256"])
    keep = _collect(model)
    roll = model.last_rollout
    seats, nxt, dones, rewards = roll["seats"], roll["next_index"], roll["dones"], roll["rewards"]
    n_games = seats.shape[1]
    checked = 0
    for info in keep.finished:
        g = info["game"]
        if any(f["game"] == g for f in keep.finished[: keep.finished.index(info)]):
            continue  # only the first game of each slot starts with the rollout
        assert info["seat_kinds"] == [LEARNER, LEARNER]
        expected = info["win_rewards"]  # the engine's ranking (tie-breaks included)
        assert sum(expected) == 0
        for seat in (0, 1):
            idx = next(t * n_games + g for t in range(seats.shape[0]) if seats[t, g] == seat)
            total = 0.0
            while True:
                total += rewards[idx]
                if dones[idx]:
                    break
                idx = int(nxt[idx])
                assert idx >= 0
            want = expected[seat] + dense * info["totals"][seat]
            assert total == pytest.approx(want, abs=1e-6)
        checked += 1
    assert checked == n_games  # every slot finished its first game within the rollout


def test_seat_advantages_follow_each_seats_chain() -> None:
    """Two interleaved seats equal GAE computed on each seat's chain alone."""
    gamma, lam = 0.9, 0.8
    # samples 0..5 alternate seats A (0, 2, 4) and B (1, 3, 5); A's game ends at 4, B continues
    rewards = np.array([0.1, 0.2, 0.3, -0.1, 1.0, 0.5])
    values = np.array([0.5, 0.4, 0.6, 0.1, 0.7, 0.2])
    dones = np.array([False, False, False, False, True, False])
    nxt = np.array([2, 3, 4, 5, -1, -1])
    boot = np.array([0, 0, 0, 0, 0, 0.9])
    adv, ret = seat_advantages(rewards, values, dones, nxt, boot, gamma, lam)

    def chain(r: list[float], v: list[float], last: float) -> list[float]:
        out, a = [], 0.0
        for i in range(len(r) - 1, -1, -1):
            nv = v[i + 1] if i + 1 < len(r) else last
            a = r[i] + gamma * nv - v[i] + gamma * lam * a
            out.append(a)
        return out[::-1]

    a_chain = chain([0.1, 0.3, 1.0], [0.5, 0.6, 0.7], 0.0)
    b_chain = chain([0.2, -0.1, 0.5], [0.4, 0.1, 0.2], 0.9)
    assert adv[[0, 2, 4]] == pytest.approx(a_chain, abs=1e-6)
    assert adv[[1, 3, 5]] == pytest.approx(b_chain, abs=1e-6)
    assert ret == pytest.approx(adv + values, abs=1e-6)


def test_rollouts_are_determined_by_the_seed() -> None:
    bufs = []
    for _ in range(2):
        model, _ = _model(["run.seed=5", "opponents.random=0.5"])
        _collect(model)
        b = model.rollout_buffer
        bufs.append(
            (b.observations.copy(), b.actions.copy(), b.rewards.copy(), b.advantages.copy())
        )
    for x, y in zip(*bufs, strict=True):
        assert np.array_equal(x, y)
    model, _ = _model(["run.seed=6", "opponents.random=0.5"])
    _collect(model)
    assert not np.array_equal(model.rollout_buffer.actions, bufs[0][1])


def test_learner_seats_need_the_selfplay_vec_env() -> None:
    with pytest.raises(ConfigError, match=r"^opponents\.learner"):
        load_config(DEFAULT, ["opponents.learner=0.5"])
    cfg = load_config(DEFAULT, [*SELFPLAY])  # learner seats only: no baseline needed
    assert cfg["opponents"]["learner"] == 1.0


def test_short_selfplay_run_with_snapshot_seats_and_resume(tmp_path: Path) -> None:
    from sb3_contrib import MaskablePPO

    run_dir = tmp_path / "run"
    common = [
        *SELFPLAY,
        "opponents.learner=0.5",
        "opponents.snapshot=0.5",
        "opponents.random=0.2",
        "opponents.snapshot_every=256",
        "checkpoint.every=256",
    ]
    summary = train(load_config(DEFAULT, [*common, "run.total_timesteps=512"]), run_dir)
    assert summary["num_timesteps"] == 512
    assert list((run_dir / "snapshots").glob("snapshot_*.pt"))
    resumed = train(
        load_config(run_dir / "config.toml", ["run.total_timesteps=1024"]), run_dir, resume=True
    )
    assert resumed["num_timesteps"] == 1024
    assert resumed["steps_this_session"] == 512
    model = MaskablePPO.load(str(run_dir / "final_model.zip"), device="cpu")  # the `ppo` agent's
    assert model.num_timesteps == 1024


def test_snapshot_seats_move_in_one_batch(tmp_path: Path) -> None:
    from training.common.opponents import SnapshotPool

    cfg = load_config(
        DEFAULT,
        [*SELFPLAY, "opponents.learner=0.0", "opponents.snapshot=1.0", "opponents.random=0.0001"],
    )
    venv = make_vec_env(cfg, tmp_path)
    model = build_model(cfg, venv, tmp_path, RunClock())
    SnapshotPool(tmp_path / "snapshots").add(model.policy, 0)
    venv.reset()
    assert sum(k == "snapshot" for g in venv.games for k in g.kinds) >= 3
    calls = []
    original = venv._snapshot_moves

    def counting(group: list[int], *args: Any) -> None:
        calls.append(len(group))
        original(group, *args)

    venv._snapshot_moves = counting  # type: ignore[method-assign]
    _collect(model)
    assert max(calls) > 1  # several games' snapshot seats in one forward pass


def test_bench_reports_steps_per_second_and_the_parts() -> None:
    out = io.StringIO()
    cfg = tbench.bench_config(
        None, [*SELFPLAY, "opponents.random=0.5", "ppo.n_steps=16", "ppo.batch_size=64"]
    )
    report = tbench.bench(cfg, rollouts=1, repeats=1, out=out)
    assert report["median_steps_per_s"] > 0
    parts = {row["part"] for row in report["breakdown"]}
    assert {"update", "policy inference", "env step", "encoding", "opponent moves"} <= parts
    assert sum(row["share"] for row in report["breakdown"]) == pytest.approx(1.0, abs=0.01)
    assert "learner steps/s" in out.getvalue()


def test_selfplay_config_keeps_the_default_network_and_rollout() -> None:
    fast = load_config(DEFAULT.with_name("selfplay.toml"))
    default = load_config(DEFAULT)
    assert fast["run"]["vec_env"] == "selfplay"
    assert fast["policy"] == default["policy"]
    assert fast["ppo"]["n_steps"] * fast["run"]["n_envs"] == 1024
    # the fast path changes only the rollout shape and the epochs (the update is over half its
    # time; 2 epochs learned as well in the 30k-step check, docs/training-ppo.md "Throughput")
    assert fast["ppo"]["n_epochs"] == 2
    assert {k: v for k, v in fast["ppo"].items() if k not in ("n_steps", "n_epochs")} == {
        k: v for k, v in default["ppo"].items() if k not in ("n_steps", "n_epochs")
    }
