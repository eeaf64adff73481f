"""The parts of the MaskablePPO network that the shipped ``ppo_2p_base`` model is built of
(:mod:`agents.networks`): the features extractor splits the observation as the encoder lays
it out, and the territory planes are the engine's territories."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from agents.networks.features import MoonRiverExtractor  # noqa: E402
from moonriver_env.moonriver.encoding import ObservationEncoder  # noqa: E402
from moonriver_env.rules import GameConfig  # noqa: E402
from moonriver_env.single_agent import SingleAgentEnv  # noqa: E402


@pytest.mark.parametrize(
    ("players", "mode", "share"), [(2, "base", False), (3, "legends", True), (4, "base", False)]
)
def test_extractor_splits_with_the_encoder_layout(players: int, mode: str, share: bool) -> None:
    env = SingleAgentEnv(num_players=players, mode=mode)
    obs, _ = env.reset(seed=3)
    ext = MoonRiverExtractor(
        env.observation_space, num_players=players, mode=mode, share_ranch=share, features_dim=64
    )
    enc = env.aec.encoder
    planes, features = enc.split_flat(obs)
    tp, tf = ext.split(torch.as_tensor(obs)[None])
    assert tuple(tp.shape[1:]) == enc.plane_shape
    np.testing.assert_array_equal(tp[0].numpy(), planes)
    np.testing.assert_array_equal(tf[0].numpy(), features)
    out = ext(torch.as_tensor(np.stack([obs, obs])))
    assert out.shape == (2, 64)
    # plane_shape given directly is the same split
    ext2 = MoonRiverExtractor(env.observation_space, plane_shape=enc.plane_shape, features_dim=64)
    assert (
        ext2.num_features
        == ObservationEncoder(GameConfig(num_players=players, mode=mode)).num_features
    )


def test_extractor_rejects_a_wrong_layout() -> None:
    env = SingleAgentEnv(num_players=2)
    with pytest.raises(ValueError, match="plane_shape"):
        MoonRiverExtractor(env.observation_space, plane_shape=(200, 10, 5))


@pytest.mark.parametrize("players", [2, 4])
def test_territory_planes_match_the_engine(players: int) -> None:
    from agents.networks.territory import TERRITORY_CHANNELS, TerritoryPlanes
    from moonriver_env.moonriver.agents.evaluation import territory_cells
    from moonriver_env.moonriver.encoding import ObservationEncoder
    from moonriver_env.rules import GameConfig, new_game

    config = GameConfig(num_players=players, mode="base")
    enc = ObservationEncoder(config)
    planes_of = TerritoryPlanes(players, enc.rows)
    width = len(TERRITORY_CHANNELS)
    rng = np.random.default_rng(players)
    state = new_game(config, seed=players)
    checked = 0
    while not state.is_terminal:
        legal = state.legal_action_list()
        state.apply(legal[rng.integers(len(legal))])
        if state.is_terminal or rng.random() > 0.1:
            continue
        seat = state.current_seat
        planes, _ = enc.encode(state, seat)
        out = planes_of(torch.as_tensor(planes)[None]).numpy()[0]
        for r in range(players):
            owner = (seat + r) % players
            size, cows, score, frontier, odd = (out[r * width + i].ravel() for i in range(width))
            for cell in range(enc.cells):
                mask = territory_cells(state, owner, cell)
                cells = [c for c in range(enc.cells) if mask >> c & 1]
                n_cows = sum(state.cows[owner][c] for c in cells)
                open_cells = {
                    nb
                    for c in cells
                    for nb in state.grid.neighbour_list[c]
                    if state.kinds[owner][nb] < 0
                }
                assert size[cell] * 10 == pytest.approx(len(cells))
                assert cows[cell] * 10 == pytest.approx(n_cows)
                assert score[cell] * 100 == pytest.approx(len(cells) * n_cows)
                assert frontier[cell] * 10 == pytest.approx(len(open_cells))
                empty = sum(1 << c for c in range(enc.cells) if state.kinds[owner][c] < 0)
                if state.kinds[owner][cell] >= 0:
                    assert odd[cell] == 0.0
                else:  # an empty cell: the parity of its empty region
                    region = state.grid.flood(1 << cell, empty)
                    assert odd[cell] == region.bit_count() % 2
                checked += 1
    assert checked > 0
