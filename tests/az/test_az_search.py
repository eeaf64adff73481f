"""The Gumbel root search (agents/az/search.py): its arithmetic, its budget, that it follows
the Q-values over the prior, and that it never reads the hidden draw order."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

import agents.az.search as search_mod  # noqa: E402
from agents.az import AzAgent, SearchSettings, gumbel_search  # noqa: E402
from agents.az.search import completed_q, sigma  # noqa: E402
from moonriver_env.rules import GameConfig, GameState, new_game  # noqa: E402


def busy_state(seed: int = 0, min_legal: int = 6) -> GameState:
    """A 2-player position with at least ``min_legal`` legal actions."""
    state = new_game(GameConfig(num_players=2), seed=seed)
    rng = np.random.default_rng(seed)
    while len(state.legal_action_list()) < min_legal:
        legal = state.legal_action_list()
        state.apply(legal[rng.integers(len(legal))])
    return state


def test_completed_q_mixes_the_value_for_unvisited_actions() -> None:
    q_sum = np.array([2.0, 0.0, 0.0])
    visits = np.array([2, 0, 0])
    prior = np.array([0.5, 0.25, 0.25])
    q = completed_q(q_sum, visits, prior, root_value=-1.0)
    # visited: the mean 1.0; unvisited: (v + N * q_visited) / (1 + N) = (-1 + 2) / 3
    assert q == pytest.approx([1.0, 1 / 3, 1 / 3])
    s = sigma(q, visits, SearchSettings(c_visit=50.0, c_scale=0.1))
    assert s == pytest.approx([(50 + 2) * 0.1, 0.0, 0.0])


def test_search_follows_the_q_values_over_the_prior(
    model_2p: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a value that prefers one action, the search plays it whatever the prior says."""
    state = busy_state()
    legal = state.legal_action_list()
    agent = AzAgent(seed=0, path=model_2p, sims=64, k=len(legal))
    evaluator, settings = agent.load_for(state.config)
    probs = agents_prior = gumbel_search(
        evaluator, [state], SearchSettings(sims=0), [np.random.default_rng(0)]
    )[0].prior
    best = int(legal[int(np.argmin(agents_prior))])  # the prior's least liked action

    def fake(
        roots: Sequence[GameState], seats: Sequence[int], visits: Sequence[tuple[int, int, int]],
        *args: object,
    ) -> np.ndarray:  # fmt: skip
        return np.array([1.0 if a == best else 0.0 for _, a, _ in visits])

    monkeypatch.setattr(search_mod, "expand_afterstates", fake)
    res = gumbel_search(evaluator, [state], settings, [np.random.default_rng(1)])[0]
    assert res.action == best
    assert probs.argmax() != list(res.legal).index(best)
    assert res.improved[list(res.legal).index(best)] == res.improved.max()
    assert res.improved.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(("sims", "k"), [(2, 8), (4, 4), (16, 8), (16, 3), (7, 5)])
def test_budget_and_halving(model_2p: Path, sims: int, k: int) -> None:
    state = busy_state(seed=2, min_legal=8)
    agent = AzAgent(seed=0, path=model_2p, sims=sims, k=k)
    res = agent.search(state)
    m = min(k, res.legal.size, sims)
    assert res.searched
    assert (res.visits > 0).sum() == m  # exactly the considered candidates were visited
    assert sims <= res.visits.sum() <= sims + m  # the budget, plus at most one visit each
    assert res.action in res.legal
    top = res.visits.max()
    assert res.visits[list(res.legal).index(res.action)] == top  # the survivor of the halving


def test_search_never_reads_the_draw_order(model_2p: Path) -> None:
    """Two states that differ only in the hidden order of the pile and the stack give the
    same search (same seed): the determinizations start from a canonical order."""
    state = busy_state(seed=3)
    other = state.clone()
    rng = np.random.default_rng(99)
    rng.shuffle(other.pile)
    rng.shuffle(other.stack)
    assert list(other.pile) != list(state.pile) or list(other.stack) != list(state.stack)
    a = AzAgent(seed=5, path=model_2p, sims=16).search(state)
    b = AzAgent(seed=5, path=model_2p, sims=16).search(other)
    assert a.action == b.action
    assert np.array_equal(a.visits, b.visits) and np.allclose(a.q, b.q)


def test_batched_search_matches_one_by_one(model_2p: Path) -> None:
    states = [busy_state(seed=s) for s in range(3)]
    agent = AzAgent(seed=0, path=model_2p)
    evaluator, _ = agent.load_for(states[0].config)
    settings = SearchSettings(sims=8, k=4, gumbel_scale=1.0)
    batch = gumbel_search(evaluator, states, settings, [np.random.default_rng(i) for i in range(3)])
    for i, s in enumerate(states):
        one = gumbel_search(evaluator, [s], settings, [np.random.default_rng(i)])[0]
        assert one.action == batch[i].action
        assert np.allclose(one.improved, batch[i].improved, atol=1e-5)


def test_sigma_in_utility_units_keeps_small_differences_small() -> None:
    q = np.array([0.50, 0.51, 0.49])
    visits = np.array([1, 1, 1])
    on = sigma(q, visits, SearchSettings(rescale=True))
    off = sigma(q, visits, SearchSettings(rescale=False))
    assert on.max() - on.min() == pytest.approx((50 + 1) * 0.1)  # a 0.02 gap blown up to 5.1
    assert off.max() - off.min() == pytest.approx((50 + 1) * 0.1 * 0.02)


def test_bad_settings_name_the_field() -> None:
    with pytest.raises(ValueError, match="^sims:"):
        SearchSettings(sims=-1)
    with pytest.raises(ValueError, match="^c_scale:"):
        SearchSettings(c_scale=-0.1)


@pytest.mark.parametrize("players", [2, 4])
def test_native_and_python_expansions_agree(players: int, model_2p: Path, model_4p: Path) -> None:
    """The afterstates expanded in the native core (determinization, move, observation) give
    the search the same numbers as the Python engine, for the same random draws."""
    path = model_2p if players == 2 else model_4p
    config = GameConfig(num_players=players)
    states = []
    for seed in range(4):
        state = new_game(config, seed=seed)
        rng = np.random.default_rng(seed)
        for _ in range(20 + 7 * seed):
            state.apply(int(rng.choice(state.legal_action_list())))
        states.append(state)
    agent = AzAgent(seed=0, path=path)
    evaluator, _ = agent.load_for(config)
    settings = SearchSettings(sims=8, k=4, gumbel_scale=1.0)
    results = [
        gumbel_search(
            evaluator, states, settings, [np.random.default_rng(i) for i in range(4)], native=native
        )  # fmt: skip
        for native in (False, True)
    ]
    for py, nat in zip(*results, strict=True):
        assert py.action == nat.action
        assert np.allclose(py.q, nat.q, atol=1e-5) and np.allclose(py.improved, nat.improved)
