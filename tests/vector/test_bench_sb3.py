"""``python -m moonriver_env.bench_sb3`` runs, at a tiny size, and prints both routes and their
ratio for a game (the benchmark itself is measured by hand, not in tests)."""

from __future__ import annotations

import pytest

pytest.importorskip("sb3_contrib")


def test_both_routes_and_the_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    from moonriver_env.bench_sb3 import main

    main(
        [
            "--games", "kingdomino_2p_base", "--runs", "1", "--steps", "64",
            "--n-steps", "64", "--num-envs", "4", "--batch-size", "32", "--threads", "0",
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert "single env (gymnasium.make)" in out
    assert "SB3VecEnv,   4 games" in out
    assert "ratio" in out
    ceiling = [
        line for line in out.splitlines() if "ceiling with an env that costs nothing" in line
    ]
    assert len(ceiling) == 1
    # the bound is a positive ratio, and above the measured one (the env cost something)
    bound = float(ceiling[0].split("nothing")[1].split("x")[0])
    ratio = float([line for line in out.splitlines() if " ratio " in line][0].split()[-1][:-1])
    assert 0 < bound < float("inf") and bound >= 0.5 * ratio  # timing noise: a margin


def test_the_free_env_hands_back_its_first_rows() -> None:
    import numpy as np

    from moonriver_env.bench_sb3 import FreeVecEnv
    from moonriver_env.vector.sb3 import make_sb3_vec_env

    real = make_sb3_vec_env("2p_base", num_envs=3, seed=5)
    first = real.reset()
    masks = real.action_masks()
    free = FreeVecEnv(make_sb3_vec_env("2p_base", num_envs=3, seed=5))
    assert np.array_equal(free.reset(), first)
    free.step_async(np.flatnonzero(masks[0])[:1].repeat(3))
    obs, rewards, dones, infos = free.step_wait()
    assert np.array_equal(obs, first) and not dones.any() and not rewards.any()
    assert np.array_equal(np.stack(free.env_method("action_masks")), masks)
    with pytest.raises(AttributeError, match="no method"):
        free.env_method("render")
