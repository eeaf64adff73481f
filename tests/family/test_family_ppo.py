"""The reference PPO on the family's third game, which has no native core: it trains through
the batched fallback built from its environment (moonriver_env.vector.env_batch), with the
same file and no line of its own, and its win rate against random rises."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from agents.networks.sparse_policy import load_model
from moonriver_env.vector.env_batch import EnvVectorGame, batched_game
from training.ppo import ppo


def test_the_fallback_batches_the_environment() -> None:
    vg = batched_game("minidraft_2p_base", num_games=4, seed=3, observe="both")
    assert isinstance(vg, EnvVectorGame)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        dense = vg.observation
        for i in range(4):  # the sparse rows are the dense rows' non-zero entries
            nz = np.flatnonzero(dense[i])
            assert vg.obs_nnz[i] == nz.size
            np.testing.assert_array_equal(vg.obs_idx[i, : nz.size], nz)
            np.testing.assert_array_equal(vg.obs_val[i, : nz.size], dense[i, nz])
        assert (vg.action_mask.sum(1) == vg.num_legal).all()
        pick = (rng.random(4) * vg.num_legal).astype(np.int64)
        vg.step(vg.legal_ids[np.arange(4), pick].astype(np.int64))
        ended += int(vg.terminated.sum())
        assert set(np.unique(vg.rewards[vg.terminated])) <= {-1.0, 0.0, 1.0}
    assert ended > 0


def test_ppo_trains_the_third_game_through_the_fallback(tmp_path: Path) -> None:
    """The same file trains, checkpoints, saves and evaluates a game with no core and no
    line of its own; the saved model plays legal moves as the game's ``ppo:PATH`` would."""
    run = tmp_path / "run"
    argv = ["--game", "minidraft_2p_base", "--run-dir", str(run), "--total-steps", "2304",
            "--num-games", "32", "--num-steps", "36", "--eval-opponent", "random",
            "--eval-games", "20", "--threads", "1", "--embed", "16", "--hidden", "16"]
    assert ppo.main(argv) == 0
    policy, game = load_model(run / "model.pt")
    assert game == "minidraft_2p_base"
    result = ppo.evaluate(policy, game, "random", 40, 777)
    assert result["games"] == 40
    assert 0.0 <= result["ci_low"] <= result["win_rate"] <= result["ci_high"]
    vg = batched_game(game, 8, seed=1, observe="sparse")
    for _ in range(20):  # the policy's greedy moves are legal in every game
        moves = ppo.greedy_actions(policy, vg, np.arange(8))
        assert vg.action_mask[np.arange(8), moves].all()
        vg.step(moves)
    assert isinstance(torch.load(run / "model.pt", weights_only=True), dict)


def test_az_refuses_a_game_without_a_core_by_name() -> None:
    import pytest

    from training.az.config import ConfigError, game_spec

    cfg = {"env": {"game": "minidraft", "num_players": 2, "mode": "base"}}
    with pytest.raises(ConfigError, match="Mini Draft has no native core.*training.ppo.ppo"):
        game_spec(cfg)  # type: ignore[arg-type]


def test_core_rollouts_refuse_a_game_without_a_core(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--rollouts core`` plays the games in the native core: a game without one is a named
    error (exit status 2) before anything is written."""
    run = tmp_path / "run"
    with pytest.raises(SystemExit) as exit_info:
        ppo.main(["--game", "minidraft_2p_base", "--run-dir", str(run), "--total-steps", "64",
                  "--rollouts", "core", "--eval-opponent", "random"])  # fmt: skip
    assert exit_info.value.code == 2
    assert "--rollouts core: minidraft_2p_base has no native core" in capsys.readouterr().err
    assert not run.exists()
