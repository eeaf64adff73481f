"""The network in the core (nnue.c, ``_native.Net``) is the torch network
(agents/az/network.py): the same value, to float rounding, on real observations of every
game; the flat weights are in the core's order and of its size; a model
file round-trips."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from az_models import HIDDEN1, HIDDEN2, SPECS, encoder, random_net, torch_values

from agents.az import (
    AzNet,
    CheckpointError,
    NetShape,
    load_checkpoint,
    native_search,
    save_checkpoint,
)
from agents.az.checkpoint import DIGEST, weights_digest
from agents.az.network import sparse_batch
from agents.az.search import SearchSettings
from moonriver_env.family.native import native
from moonriver_env.kingdomino.vector.game import KingdominoVectorGame
from moonriver_env.kingdomino.vector.search import NativeKingdominoState
from moonriver_env.moonriver.vector.search import NativeState
from moonriver_env.vector import VectorGame


def vector_game(key: str, games: int) -> object:
    spec = SPECS[key]
    if spec.game == "kingdomino":
        return KingdominoVectorGame(
            num_games=games, num_players=spec.num_players,
            variants=("must_place", "harmony", "middle_kingdom"), seed=11,
        )  # fmt: skip
    return VectorGame(num_games=games, num_players=spec.num_players, mode=spec.mode, seed=11)


def positions(key: str, games: int = 6, steps: int = 60, every: int = 5) -> list[tuple]:
    """(observation of the acting seat, legal actions, state) of decisions met in random play."""
    vg = vector_game(key, games)
    rng = np.random.default_rng(3)
    out = []
    rows = np.arange(games)
    for step in range(steps):
        if step % every == 0:
            for i in range(games):
                if vg.terminated[i] or vg.num_legal[i] == 0:
                    continue
                seat = int(vg.current_seat[i])
                legal = [int(a) for a in vg.legal_ids[i, : vg.num_legal[i]]]
                out.append((vg.observation_of(i, seat).copy(), legal, vg.get_state(i)))
        pick = (rng.random(games) * np.maximum(vg.num_legal, 1)).astype(np.int64)
        vg.step(vg.legal_ids[rows, pick].astype(np.int64))
    return out


@pytest.mark.parametrize("key", SPECS)
def test_core_net_equals_torch_net(key: str) -> None:
    """``Net.evaluate`` and AzNet's forward agree to 1e-5 on observations of real games, all
    parameters random (biases included)."""
    net = random_net(SPECS[key], seed=5)
    core = net.native()
    data = positions(key)
    assert len(data) >= 40
    obs = np.stack([o for o, _, _ in data])
    values = torch_values(net, obs)
    assert np.abs(values).max() < 0.999  # not saturated: the comparison means something
    assert np.ptp(values) > 0.1  # nor the same for every position
    for o, v in zip(obs, values, strict=True):
        assert core.evaluate(o) == pytest.approx(float(v), abs=1e-5)


@pytest.mark.parametrize("key", SPECS)
def test_the_search_encodes_what_python_encodes(key: str) -> None:
    """The search's root (the game's encoder in C, then the network) gives the value of the
    torch network on the Python engine's observation of the same state."""
    net = random_net(SPECS[key], seed=6)
    core = net.native()
    data = positions(key, games=3, steps=45, every=9)
    wrap = NativeKingdominoState if SPECS[key].game == "kingdomino" else NativeState
    values = torch_values(net, np.stack([o for o, _, _ in data]))
    for (_, legal, state), v in zip(data, values, strict=True):
        res = native_search(core, wrap.from_state(state)._core, SearchSettings(k=0), 0)
        assert list(res.legal) == legal
        assert res.value == pytest.approx(float(v), abs=1e-5)


@pytest.mark.parametrize("key", SPECS)
def test_the_afterstate_prior_is_the_softmax_of_afterstate_values(key: str) -> None:
    """The prior is softmax(value of each legal move's afterstate for the
    acting seat / tau): the torch network on the Python engine's afterstates (where no move
    turns up hidden pieces, so the determinization does not matter), one evaluation per move
    plus the root's; the value is still the root's."""
    spec = SPECS[key]
    net = random_net(spec, seed=6)
    core = net.native()
    wrap = NativeKingdominoState if spec.game == "kingdomino" else NativeState
    enc = encoder(spec)
    settings = SearchSettings(k=0, tau=0.05)
    checked = 0
    for obs, legal, state in positions(key, games=3, steps=45, every=9):
        if len(legal) < 2:
            continue
        res = native_search(core, wrap.from_state(state)._core, settings, 0)
        assert res.evals == 1 + len(legal)  # no move ends the game this early
        seat = state.current_seat
        root = torch_values(net, obs[None])[0]
        assert res.value == pytest.approx(float(root), abs=1e-5)
        afters = []
        for a in legal:
            after = state.clone()
            after.apply(a)
            afters.append(after)
        if any(len(x.pile) != len(state.pile) for x in afters):
            continue  # a move turns up pieces of the search's determinization
        dense = np.stack([enc(x, seat) for x in afters])
        v = torch_values(net, dense) / settings.tau
        p = np.exp(v - v.max())
        assert np.allclose(res.prior, p / p.sum(), atol=1e-4), (legal, res.prior, p / p.sum())
        assert np.ptp(res.prior) > 1e-3  # the values differ: the comparison means something
        checked += 1
    assert checked >= 5


@pytest.mark.parametrize("key", SPECS)
def test_flat_weights_have_the_cores_order_and_size(key: str) -> None:
    """``flat_weights`` is W1, b1, W2 (hidden1 x hidden2), b2, wv, bv, and the core's Net
    takes exactly that many floats (one fewer or one more is refused; so is a network with the
    removed policy head's weights after them)."""
    shape = NetShape.for_game(SPECS[key], HIDDEN1, HIDDEN2)
    net = random_net(SPECS[key], seed=1)
    flat = net.flat_weights()
    i, h1, h2, a = shape.inputs, shape.hidden1, shape.hidden2, shape.actions
    size = i * h1 + h1 + h1 * h2 + h2 + h2 + 1  # learn.h's lr_net_size
    assert flat.dtype == np.float32 and flat.shape == (size,)
    parts = [net.w1, net.b1, net.l2.weight.t(), net.l2.bias, net.value.weight[0],
             net.value.bias]  # fmt: skip
    start = 0
    for p in parts:
        block = p.detach().numpy().reshape(-1)
        assert np.array_equal(flat[start : start + block.size], block)
        start += block.size
    assert start == size
    assert native.Net(i, h1, h2, a, flat).sizes == (i, h1, h2, a)
    head = np.zeros(a * h2 + a, np.float32)
    for bad in (flat[:-1], np.concatenate([flat, [0.0]]).astype(np.float32),
                np.concatenate([flat, head])):  # fmt: skip
        with pytest.raises(ValueError, match="weights"):
            native.Net(i, h1, h2, a, bad)


@pytest.mark.parametrize("key", SPECS)
def test_the_input_scale_is_folded_into_the_cores_weights(key: str, tmp_path: Path) -> None:
    """``set_input_scale`` (1 / each input's standard deviation over observations, capped;
    1 for inputs never seen) keeps the torch network's function; ``flat_weights`` folds the
    scale into W1, so the core's Net equals torch afterwards; the scale is saved in a model
    file."""
    net = random_net(SPECS[key], seed=9)
    data = positions(key, games=3, steps=30, every=3)
    obs = np.stack([o for o, _, _ in data])
    before = torch_values(net, obs)
    rows, cols = np.nonzero(obs)
    net.set_input_scale(cols, obs[rows, cols], obs.shape[0])
    scale = net.input_scale.numpy()
    std = obs.std(axis=0)
    seen = std > 0
    assert np.allclose(scale[seen], 1.0 / np.maximum(std[seen], 1.0 / 50.0), rtol=1e-4)
    assert np.all(scale[~seen] == 1.0) and scale.max() > 2.0
    after = torch_values(net, obs)
    assert np.allclose(after, before, atol=1e-5)
    flat = net.flat_weights()
    w1 = (net.w1 * net.input_scale[:, None]).detach().numpy().reshape(-1)
    assert np.array_equal(flat[: w1.size], w1)
    assert not np.allclose(flat[: w1.size], net.w1.detach().numpy().reshape(-1))
    core = net.native()
    with torch.no_grad():
        net.w1.mul_(1.5)  # training after the scale was set: the core must see w1 x scale
    core = net.native()
    values = torch_values(net, obs)
    assert np.abs(values - after).max() > 1e-3
    for o, v in zip(obs, values, strict=True):
        assert core.evaluate(o) == pytest.approx(float(v), abs=1e-5)
    save_checkpoint(tmp_path / "m.pt", net, {}, {})
    again, _ = load_checkpoint(tmp_path / "m.pt")
    assert torch.equal(again.input_scale, net.input_scale)
    assert np.array_equal(again.flat_weights(), net.flat_weights())


@pytest.mark.parametrize("key", list(SPECS))
@pytest.mark.parametrize("growth", ["features", "wider", "both"])
def test_a_network_grows_features_and_width(key: str, growth: str) -> None:
    """``grown``: the network with the features appended and/or wider layers computes what it
    computed before, whatever the features' values (their rows start at zero; no weight leaves
    a new unit); the new units learn (they get gradients through the next step); any other
    growth is refused."""
    spec = SPECS[key]
    net = random_net(spec)
    wide = growth != "features"
    features = growth != "wider"
    shape = NetShape.for_game(spec, HIDDEN1 * (1 + wide), HIDDEN2 + 3 * wide, features=features)
    grown = net.grown(shape)
    assert grown.shape == shape
    found = positions(key, games=3, steps=30)
    obs = np.stack([o for o, _, _ in found])
    extra = np.random.default_rng(0).uniform(0.5, 3.0, (len(obs), shape.inputs - obs.shape[1]))
    v0 = torch_values(net, obs)
    v1 = torch_values(grown, np.hstack([obs, extra]).astype(np.float32))
    np.testing.assert_allclose(v1, v0, rtol=1e-6, atol=1e-6)
    if wide:  # the new first-layer units are alive: not all their activations are zero
        assert torch.count_nonzero(grown.w1[:, HIDDEN1:]) > 0
        assert torch.count_nonzero(grown.l2.weight[:HIDDEN2, HIDDEN1:]) == 0
    plain = NetShape.for_game(spec, HIDDEN1, HIDDEN2)
    refused = [
        net.shape,  # nothing grows
        NetShape.for_game(spec, HIDDEN1 - 1, HIDDEN2),  # narrower
        NetShape.for_game(spec, HIDDEN1, HIDDEN2 - 1, features=True),
        replace(plain, inputs=plain.inputs + 5),  # more inputs without the features
        replace(shape, num_players=5),  # another game
    ]
    for wrong in refused:
        with pytest.raises(ValueError, match="grows only into the same game"):
            net.grown(wrong)
    if features:
        with pytest.raises(ValueError, match="grows only into the same game"):
            grown.grown(replace(shape, features=False, inputs=net.shape.inputs))


@pytest.mark.parametrize("key", SPECS)
def test_a_file_with_the_removed_policy_head_loads_without_it(
    key: str, models: dict[str, Path], tmp_path: Path
) -> None:
    """A model file written while the network had its policy head (``wp.weight``, ``bp``, as
    the shipped models' files are; its checksum over every weight) loads as the same network
    without the head: the same weights in torch and in the core. A file saved from it has no
    head. The head's weights are checked for nothing (no search reads them); every other weight
    still is."""
    net, _ = load_checkpoint(models[key])
    blob = torch.load(models[key], weights_only=True)
    a, h2 = net.shape.actions, net.shape.hidden2
    blob["state_dict"]["wp.weight"] = torch.randn(a, h2)
    blob["state_dict"]["bp"] = torch.full((a,), float("nan"))
    blob["provenance"][DIGEST] = weights_digest(blob["state_dict"])
    torch.save(blob, tmp_path / "with_head.pt")
    old, meta = load_checkpoint(tmp_path / "with_head.pt")
    assert set(old.state_dict()) == set(net.state_dict()) and "wp.weight" not in old.state_dict()
    assert np.array_equal(old.flat_weights(), net.flat_weights())
    assert old.native().sizes == net.native().sizes and meta["search"] == blob["search"]
    save_checkpoint(tmp_path / "again.pt", old, meta["search"], {})
    assert "wp.weight" not in torch.load(tmp_path / "again.pt", weights_only=True)["state_dict"]
    blob["state_dict"]["b1"][0] = float("nan")  # a weight the network has: still checked
    blob["provenance"][DIGEST] = weights_digest(blob["state_dict"])
    torch.save(blob, tmp_path / "bad.pt")
    with pytest.raises(CheckpointError, match="weight 'b1'"):
        load_checkpoint(tmp_path / "bad.pt")


def test_a_model_file_round_trips(models: dict[str, Path]) -> None:
    """load_checkpoint gives back the saved network (same outputs in torch and in the core)
    and its settings; a reshaped file is refused naming the shape."""
    net, meta = load_checkpoint(models["mr2"])
    again, _ = load_checkpoint(models["mr2"])
    for a, b in zip(net.state_dict().values(), again.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert np.array_equal(net.flat_weights(), again.flat_weights())
    assert meta["search"]["k"] == 3 and meta["provenance"]["command"] == "tests/az fixture"
    assert meta["shape"]["hidden1"] == HIDDEN1 and meta["version"] == 2
    assert isinstance(net, AzNet) and not net.training


def test_a_reshaped_or_foreign_file_is_refused(models: dict[str, Path], tmp_path: Path) -> None:
    blob = torch.load(models["mr2"], weights_only=True)
    blob["shape"] = {**blob["shape"], "hidden1": HIDDEN1 + 1}
    torch.save(blob, tmp_path / "reshaped.pt")
    with pytest.raises(CheckpointError, match="another network shape"):
        load_checkpoint(tmp_path / "reshaped.pt")
    blob["version"] = 1
    torch.save(blob, tmp_path / "old.pt")
    with pytest.raises(CheckpointError, match="version 1; this code reads version 2"):
        load_checkpoint(tmp_path / "old.pt")
    del blob["shape"]["game"]
    blob["version"] = 2
    torch.save(blob, tmp_path / "noshape.pt")
    with pytest.raises(CheckpointError, match="no valid network shape"):
        load_checkpoint(tmp_path / "noshape.pt")


@pytest.mark.parametrize("key", ["mr2", "kd4"])
def test_the_first_layers_gradient_is_the_dense_one(key: str) -> None:
    """Training's first layer (a CSR product whose backward reads the transpose built by a
    radix sort, not torch's own) gives the gradients of the same network written densely."""
    net = random_net(SPECS[key], seed=3)
    n = net.shape.inputs
    rng = np.random.default_rng(4)
    with torch.no_grad():  # a scale other than 1 on some inputs, as after set_input_scale
        net.input_scale.copy_(torch.as_tensor(rng.uniform(0.5, 3.0, n), dtype=torch.float32))
    counts = rng.integers(1, 40, size=9)
    idx = np.concatenate([rng.choice(n, c, replace=False) for c in counts])
    val = rng.uniform(0.1, 2.0, idx.size).astype(np.float32)
    batch = sparse_batch(idx, val, counts)
    target = torch.as_tensor(rng.uniform(-1, 1, 9), dtype=torch.float32)
    ((net.value_of(batch) - target) ** 2).sum().backward()
    got = {k: p.grad.clone() for k, p in net.named_parameters() if p.grad is not None}
    net.zero_grad()
    x = torch.zeros(9, n)
    x[torch.as_tensor(np.repeat(np.arange(9), counts)), torch.as_tensor(idx)] = torch.as_tensor(val)
    h1 = torch.relu(x @ (net.w1 * net.input_scale[:, None]) + net.b1)
    value = torch.tanh(net.value(torch.relu(net.l2(h1)))).squeeze(-1)
    ((value - target) ** 2).sum().backward()
    assert set(got) == {"w1", "b1", "l2.weight", "l2.bias", "value.weight", "value.bias"}
    for k, p in net.named_parameters():
        if k in got:
            assert p.grad is not None and float(p.grad.abs().max()) > 0, k
            torch.testing.assert_close(got[k], p.grad, rtol=1e-4, atol=1e-6, msg=k)
