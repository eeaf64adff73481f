"""Per-seat reward crediting (``moonriver_env/seat_rewards.py``): what a seat's reward between
its decisions is, for every learner that reads the PettingZoo env's rewards."""

from __future__ import annotations

import math

import numpy as np
import pytest

from moonriver_env.moonriver.env import raw_env
from moonriver_env.seat_rewards import SeatRewards
from moonriver_env.single_agent import SingleAgentEnv

AGENTS = ("player_0", "player_1", "player_2")


def test_a_credited_seat_sums_its_steps_until_taken() -> None:
    credit = SeatRewards(3)
    credit.reset([1])
    credit.bank({"player_0": 5.0, "player_1": 0.25, "player_2": 1.0}, AGENTS)
    credit.bank({"player_1": 0.5}, AGENTS)  # a missing name counts 0.0
    assert credit.totals == [0.0, 0.75, 0.0]  # seats 0 and 2 are not credited
    credit.credit(2)
    credit.bank({"player_0": 1.0, "player_1": -1.0, "player_2": 2.0}, AGENTS)
    assert credit.take(1) == -0.25
    assert credit.take(1) == 0.0  # the next total starts from 0.0
    assert credit.take(2) == 2.0
    assert credit.game_totals == [0.0, -0.25, 2.0]  # the game's sums are not taken
    credit.stop()
    credit.bank({"player_1": 9.0, "player_2": 9.0}, AGENTS)
    assert credit.totals == [0.0, 0.0, 0.0] and not credit.is_credited(1)
    credit.reset()
    assert credit.game_totals == [0.0, 0.0, 0.0]


def test_the_running_total_is_one_left_to_right_sum() -> None:
    steps = [1e16, 1.0, 1.0, -1e16]  # 1e16 + 1.0 rounds back to 1e16
    credit = SeatRewards(1)
    credit.reset([0])
    for r in steps:
        credit.bank({"player_0": r}, AGENTS[:1])
    assert credit.take(0) == 0.0  # ((1e16 + 1) + 1) - 1e16, in the order of the steps
    assert math.fsum(steps) == 2.0  # another order or an exact sum would differ


def test_an_unknown_seat_is_refused() -> None:
    credit = SeatRewards(2)
    with pytest.raises(ValueError, match="seat"):
        credit.credit(2)
    assert not credit.is_credited(0)


@pytest.mark.parametrize("num_players", [2, 4])
def test_single_agent_rewards_are_the_learners_rewards_between_its_decisions(
    num_players: int,
) -> None:
    """Each reward of the single-agent env is what the learner's seat received on the
    PettingZoo env from its decision to its next one (its own move's, then the opponents')."""
    env = SingleAgentEnv(num_players=num_players, dense_reward=0.3, opponents="random")
    aec: raw_env = env.aec
    steps: list[tuple[bool, float]] = []  # (the learner moved, the learner's reward)
    plain_step = aec.step

    def step(action: int) -> None:
        mover = aec.agent_selection
        plain_step(action)
        steps.append((mover == env.learner, float(aec.rewards.get(env.learner, 0.0))))

    aec.step = step  # type: ignore[method-assign]
    _, info = env.reset(seed=4)
    rng = np.random.default_rng(4)
    returned: list[float] = []
    done = False
    while not done:
        _, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        returned.append(r)
    expected: list[float] = []
    for own, r in steps:
        if own:
            expected.append(r)
            expected.append(0.0)  # the opponents' replies, summed apart
        elif expected:
            expected[-1] += r
    pairs = [expected[i] + expected[i + 1] for i in range(0, len(expected), 2)]
    assert returned == pairs
    assert any(r != 0.0 for r in returned[:-1])  # dense rewards arrive during the game
