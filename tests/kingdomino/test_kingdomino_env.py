"""The PettingZoo environment, Kingdomino-v0 and OpenSpiel's python_kingdomino: the
conformance tests of each library for every player count and variant (a covering set,
:func:`kingdomino_cases.env_configs`), observations, rewards, bad arguments."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from env_loops import play_to_end
from kingdomino_cases import config_id, env_configs

from moonriver_env import kingdomino_v0
from moonriver_env.kingdomino import IllegalActionError, KingdominoConfig, KingdominoState, new_game
from moonriver_env.kingdomino.encoding import KingdominoEncoder

CONFIGS = env_configs()


def _env(config: KingdominoConfig, **kwargs):
    return kingdomino_v0.env(config=config, **kwargs)


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_pettingzoo_api_seed_and_render_tests(config: KingdominoConfig) -> None:
    from pettingzoo.test import api_test, render_test, seed_test

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        api_test(_env(config), num_cycles=60)
        api_test(_env(config, obs_type="flat"), num_cycles=30)
        seed_test(lambda **kw: _env(config, **kw), num_cycles=60)
        render_test(lambda **kw: _env(config, **kw))


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_openspiel_random_sim_test(config: KingdominoConfig) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import moonriver_env.kingdomino.openspiel  # noqa: F401

    game = pyspiel.load_game(
        "python_kingdomino",
        {"players": config.num_players, "variants": "+".join(config.variants)},
    )
    pyspiel.random_sim_test(game, num_sims=1, serialize=True, verbose=False)


def test_openspiel_chance_is_explicit_and_uniform() -> None:
    pyspiel = pytest.importorskip("pyspiel")
    import moonriver_env.kingdomino.openspiel  # noqa: F401

    state = pyspiel.load_game("python_kingdomino", {"players": 3}).new_initial_state()
    assert state.is_chance_node()
    outcomes = state.chance_outcomes()
    assert [o for o, _ in outcomes] == [0, 1, 2]
    for _ in range(3):
        state.apply_action(state.chance_outcomes()[0][0])
    outcomes = state.chance_outcomes()  # the first line: any of the 48 dominoes
    assert len(outcomes) == 48 and abs(sum(p for _, p in outcomes) - 1) < 1e-9
    for _ in range(3):
        state.apply_action(state.chance_outcomes()[-1][0])
    assert state.current_player() == 0
    assert state.engine.cur_line == [45, 46, 47]


def test_observation_shows_the_table_not_the_pile() -> None:
    e = kingdomino_v0.raw_env(num_players=4)
    e.reset(seed=3)
    state = e.state
    obs = e.observe("player_0")["observation"]
    assert obs.shape == (e.encoder.size,) and obs.dtype == np.float32
    assert obs.min() >= 0.0 and obs.max() <= 1.0
    twin = state.clone()
    twin.pile.reverse()  # a different hidden order, the same table
    e.state = twin
    assert np.array_equal(e.observe("player_0")["observation"], obs)
    # 10 channels per kingdom; "free": every square some 5 x 5 frame around the castle
    # still offers (the whole 9 x 9 board but the castle while nothing is placed)
    planes, _ = e.encoder.encode(state, 1)
    assert planes.shape == (40, 9, 9)
    assert planes[9].sum() == 80 and planes[:6].sum() == 0


def test_win_rewards_are_zero_sum_and_the_mask_is_the_legal_set() -> None:
    e = kingdomino_v0.env(num_players=3, variants="must_place")

    def mask_is_the_legal_set(env: object, obs: dict) -> None:
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.tolist() == e.unwrapped.state.legal_action_list()

    total = play_to_end(e, seed=1, check=mask_is_the_legal_set)
    assert abs(sum(total.values())) < 1e-9
    assert max(total.values()) == 1.0


def test_bad_arguments_and_illegal_actions() -> None:
    with pytest.raises(ValueError, match="mighty_duel"):
        kingdomino_v0.env(num_players=3, variants="mighty_duel")
    with pytest.raises(ValueError, match="reward"):
        kingdomino_v0.env(reward="points")
    with pytest.raises(ValueError, match="contradicts"):
        kingdomino_v0.env(num_players=3, config=KingdominoConfig(4))
    raw = kingdomino_v0.raw_env(num_players=2)
    raw.reset(seed=0)
    before = raw.state.to_json()
    with pytest.raises(IllegalActionError):
        raw.step(0)  # a placement during the set-up picks
    assert raw.state.to_json() == before
    with pytest.raises(ValueError, match="constructor"):
        raw.reset(options={"variants": "harmony"})


def test_gymnasium_id_and_maskable_ppo() -> None:
    gymnasium = pytest.importorskip("gymnasium")
    pytest.importorskip("sb3_contrib")
    from gymnasium.utils.env_checker import check_env
    from sb3_contrib import MaskablePPO

    env = gymnasium.make("Kingdomino-v0", num_players=2, opponents="greedy").unwrapped
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_env(env, skip_render_check=True)
    obs, info = env.reset(seed=0)
    assert obs.shape == env.observation_space.shape
    model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(64)
    action, _ = model.predict(obs, action_masks=env.action_masks())
    assert env.action_masks()[int(action)]


def test_the_card_states_the_sizes() -> None:
    doc = kingdomino_v0.__doc__ or ""
    for n, variants, size, actions in (
        (4, (), 3475, 329),
        (3, (), 2614, 328),
        (2, (), 1835, 329),
        (2, ("mighty_duel",), 3595, 681),
    ):
        e = kingdomino_v0.raw_env(num_players=n, variants=variants)
        assert e.encoder.size == size and e.config.num_actions == actions
        assert f"{size:,}" in doc and str(actions) in doc


@pytest.mark.parametrize("config", env_configs(), ids=config_id)
def test_an_encoder_kept_between_steps_writes_what_a_fresh_one_writes(
    config: KingdominoConfig,
) -> None:
    """The encoder keeps each seat's planes (updated from the kingdom a new one was placed
    on), the unseen set and feature slots: along two interleaved random games, seen by every
    seat, including clones and states it saw earlier, it writes exactly what a new encoder
    writes."""
    kept = KingdominoEncoder(config)
    games = [new_game(config, seed) for seed in (5, 6)]
    rng = random.Random(0)
    history: list[KingdominoState] = []
    seats = range(config.num_players)
    while not all(g.is_terminal for g in games):
        for g in games:
            if not g.is_terminal:
                g.apply(rng.choice(g.legal_action_list()))
                history.append(g.clone())
        for state in (*games, rng.choice(history)):
            for seat in seats:
                fresh = KingdominoEncoder(config).encode_flat(state, seat)
                assert np.array_equal(kept.encode_flat(state, seat), fresh)
