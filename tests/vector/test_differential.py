"""VectorGame equals the env decision for decision (issue 21, "Exactness is the contract").

Every config of :data:`moonriver_env.moonriver.vector.check.CONFIGS` (2-4 players, base and Legends,
every scenario, random and fixed boards, auto-resolve, every reward mode and a dense reward)
under every policy (uniform, and biased toward partners and bonus tiles, or toward stopping),
compared at every decision: legal ids, mask, seat, observation, rewards, the end, the score
breakdowns, the JSON state (generator included), and set_state round trips. The long run is
``python -m moonriver_env.moonriver.vector.check --games N``.
"""

from __future__ import annotations

import pytest

from moonriver_env.moonriver.vector.check import CONFIGS, POLICIES, Mismatch, compare
from moonriver_env.vector import NATIVE


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("name", list(CONFIGS))
def test_native_equals_env(name: str, policy: str) -> None:
    assert NATIVE, "the native core is not built"
    report = compare(name, CONFIGS[name], num_games=3, seed=11, policy=policy, backend="native")
    assert report.games >= 3
    assert report.states_compared > 0


@pytest.mark.parametrize("name", ["2p-legends", "4p-base"])
def test_python_backend_equals_env(name: str) -> None:
    """The fallback engine keeps the same contract (it is what runs without a compiler)."""
    report = compare(name, CONFIGS[name], num_games=1, seed=5, backend="python")
    assert report.games >= 1


def test_a_different_game_is_caught() -> None:
    """The comparison can fail: a VectorGame seeded one off from the envs differs at once."""
    from moonriver_env.moonriver.vector import check

    original = check.VectorGame

    def shifted(*args: object, seed: int, **kwargs: object) -> object:
        return original(*args, seed=seed + 1, **kwargs)  # type: ignore[arg-type]

    check.VectorGame = shifted  # type: ignore[assignment,misc]
    try:
        with pytest.raises(Mismatch, match="differ"):
            compare("3p-base", CONFIGS["3p-base"], num_games=2, seed=3)
    finally:
        check.VectorGame = original  # type: ignore[misc]
