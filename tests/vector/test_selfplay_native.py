"""The in-process self-play games on the native core are SelfPlayGames' games, move for move:
the same acting seats, observations, legal actions, rewards, ends and final infos, with
learner seats and baseline opponents mixed (training/ppo/selfplay_native.py)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from training.ppo.config import load_config  # noqa: E402
from training.ppo.selfplay_native import NativeSelfPlayGames  # noqa: E402
from training.ppo.selfplay_vec import SelfPlayGames  # noqa: E402

DEFAULT = Path(__file__).resolve().parents[2] / "training" / "ppo" / "configs" / "default.toml"


@pytest.mark.parametrize("players", [2, 3])
def test_native_selfplay_games_equal_the_python_ones(players: int) -> None:
    cfg = load_config(
        DEFAULT,
        [
            "run.vec_env=selfplay",
            f"env.num_players={players}",
            "opponents.learner=0.4",
            "opponents.random=0.3",
            "opponents.greedy=0.3",
            "opponents.heuristic=0.0",
            "opponents.snapshot=0.0",
        ],
    )
    n = 3
    ref = SelfPlayGames(n, cfg["env"], cfg["opponents"], None, seed=7)
    nat = NativeSelfPlayGames(n, cfg["env"], cfg["opponents"], None, seed=7)
    assert np.array_equal(ref.reset(), nat.reset())
    rng = np.random.default_rng(0)
    size = 400 * n
    r_rew, n_rew = np.zeros(size), np.zeros(size)
    r_done, n_done = np.zeros(size, bool), np.zeros(size, bool)
    finished = 0
    for t in range(400):
        ref.finished.clear()
        nat.finished.clear()
        for g in range(n):
            seat = ref.acting_seat(g)
            assert nat.acting_seat(g) == seat
            assert nat.legal_actions(g) == ref.legal_actions(g)
            assert np.array_equal(nat.observation(g), ref.observation(g))
            other = (seat + 1) % players
            assert np.array_equal(nat.observation(g, other), ref.observation(g, other))
            legal = ref.legal_actions(g)
            action = legal[int(rng.integers(len(legal)))]
            for games in (ref, nat):
                games.games[g].pending[seat] = t * n + g
            ref.apply(g, action, r_rew, r_done)
            nat.apply(g, action, n_rew, n_done)
        ref.advance(r_rew, r_done)
        nat.advance(n_rew, n_done)
        assert np.array_equal(r_rew, n_rew) and np.array_equal(r_done, n_done)
        assert ref.finished == nat.finished
        finished += len(ref.finished)
        for g in range(n):
            assert nat.games[g].kinds == ref.games[g].kinds
    assert finished >= 2
