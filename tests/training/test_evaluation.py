"""The one evaluator of the training pipelines (training/common/evaluation.py): the row of an
opponent (shared wins, the Wilson interval), both drivers' seat rotation, and that az, the
reference PPO, RLlib and the value pipeline evaluate through it and nowhere else."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from agents.ratings import wilson_interval
from moonriver_env.games import GAMES
from training.common import evaluation
from training.common.evaluation import evaluate_agent, evaluate_batched, summarize

ROOT = Path(__file__).resolve().parents[2]


def test_a_row_counts_shared_wins_and_gives_the_wilson_interval() -> None:
    row = summarize("greedy", [1.0, 0.5, 0.0, 1.0, 1 / 3], [10, 20, 30, 40, 50], [5, 5, 5, 5, 5])
    wins = 1.0 + 0.5 + 1.0 + 1 / 3
    assert row["games"] == 5 and row["wins"] == pytest.approx(wins)
    assert row["win_rate"] == pytest.approx(wins / 5)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(wilson_interval(wins, 5))
    assert row["mean_score"] == 30 and row["opponent_score"] == 5
    empty = summarize("random", [])
    assert empty["games"] == 0 and np.isnan(empty["win_rate"]) and np.isnan(empty["mean_score"])


@pytest.mark.parametrize("game", ["moonriver_3p_base", "kingdomino_2p_base"])
def test_the_batched_driver_rotates_the_seat_and_plays_every_game_to_its_end(game: str) -> None:
    seen: list[tuple[int, int]] = []

    def first_legal(vg, rows):  # type: ignore[no-untyped-def]
        seen.extend((int(g), int(vg.current_seat[g])) for g in rows)
        return vg.legal_ids[rows, 0]

    row = evaluate_batched(first_legal, game, "random", 7, seed=3)
    players = int(game[game.index("_") + 1])
    assert row["games"] == 7 and 0.0 <= row["win_rate"] <= 1.0
    assert {g for g, _ in seen} == set(range(7))
    assert all(seat == g % players for g, seat in seen)  # game g seats the policy at g % n
    again = evaluate_batched(first_legal, game, "random", 7, seed=3)
    assert again["wins"] == row["wins"]  # the games depend on the seed only


def test_both_drivers_tell_a_strong_player_from_a_weak_one() -> None:
    """Kingdomino's greedy agent against random, through the tournament runner and through a
    batched policy that plays greedy's moves: both well above one half; random against greedy
    well below."""
    from moonriver_env.opponents import make_opponent

    [strong] = evaluate_agent("greedy", "kingdomino_2p_base", ["random"], 12, seed=0)
    [weak] = evaluate_agent("random", "kingdomino_2p_base", ["greedy"], 12, seed=0)
    assert strong["win_rate"] >= 0.75 and weak["win_rate"] <= 0.25
    assert strong["ms_per_decision"] > 0 and strong["mean_score"] > strong["opponent_score"]
    greedy = make_opponent("greedy", 0, game="kingdomino")

    def greedy_moves(vg, rows):  # type: ignore[no-untyped-def]
        return np.array([greedy.choose(vg.get_state(int(g))) for g in rows], np.int64)

    batched = evaluate_batched(greedy_moves, "kingdomino_2p_base", "random", 12, seed=0)
    assert batched["win_rate"] >= 0.75 and np.isnan(batched["mean_score"])


def test_a_live_policy_is_evaluated_through_a_factory() -> None:
    """What RLlib does with its learner: an agent built by the caller, the opponents by the
    registry for the evaluated game."""
    from agents.registry import make_agent

    built: list[str] = []

    def learner(spec: str, seed: int):  # type: ignore[no-untyped-def]
        built.append(spec)
        return make_agent("greedy", seed=seed, game="kingdomino")

    [row] = evaluate_agent("learner", "kingdomino_2p_base", ["random"], 4, 0, agent_factory=learner)
    assert built and set(built) == {"learner"} and row["games"] == 4


def test_the_evaluator_names_no_game_and_is_the_only_one() -> None:
    source = (ROOT / "training" / "common" / "evaluation.py").read_text()
    code = re.sub(r'""".*?"""', "", source, flags=re.S)  # the docstrings may give examples
    for name in GAMES:  # (the package's name, moonriver_env, is no game)
        assert not re.search(rf"\b{name}\b", code, re.I), name
    # every pipeline's evaluation goes through it; the Wilson interval of a result is computed
    # there (closing.py only draws the bands of stored rows)
    for path, uses in (
        ("training/az/evaluate.py", "evaluate_agent"),
        ("training/value/train.py", "evaluate_agent"),
        ("training/rllib/train.py", "evaluate_agent"),
        ("training/ppo/ppo.py", "evaluate_batched"),
    ):
        text = (ROOT / path).read_text()
        assert "from training.common.evaluation import" in text and uses in text, path
    computing = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "training").rglob("*.py")
        if "wilson_interval(" in p.read_text()
    )
    assert computing == ["training/common/closing.py", "training/common/evaluation.py"]
    assert evaluation.CSV_FIELDS[:3] == ("step", "wall_time", "opponent")


def test_a_policy_object_plays_through_the_tournament_runner() -> None:
    """The path of RLlib's evaluation (a policy object wrapped as a ``PolicyAgent``), with the
    shipped MaskablePPO policy: it beats random."""
    pytest.importorskip("sb3_contrib")
    from agents.base import PolicyAgent
    from agents.networks.snapshots import load_policy
    from agents.shipped import CHECKPOINTS

    policy = load_policy(CHECKPOINTS / "ppo_2p_base" / "model.zip")

    def learner(_spec: str, seed: int) -> PolicyAgent:
        return PolicyAgent(policy, seed=seed, deterministic=True, name="learner", repair=False)

    [row] = evaluate_agent("learner", "moonriver_2p_base", ["random"], 2, 0, agent_factory=learner)
    assert row["games"] == 2 and row["win_rate"] == 1.0
