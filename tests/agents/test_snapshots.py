"""Policy files (:mod:`agents.networks.snapshots`): tensors and plain data only, read with
``weights_only=True``; the same policy back; anything else refused by name."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from agents.base import PolicyAgent  # noqa: E402
from agents.networks.features import MoonRiverExtractor  # noqa: E402
from agents.networks.policy import MoonRiverPolicy  # noqa: E402
from agents.networks.snapshots import (  # noqa: E402
    SNAPSHOT_FORMAT,
    load_policy,
    policy_data,
    save_policy,
)
from moonriver_env.single_agent import SingleAgentEnv  # noqa: E402


def _policies() -> list:
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    env = SingleAgentEnv(num_players=2)
    spaces = (env.observation_space, env.action_space, lambda _: 1e-3)
    return [
        MoonRiverPolicy(*spaces, cnn_channels=(8, 8), global_dim=32, pi=(16,), vf=(16,)),
        MaskableActorCriticPolicy(
            *spaces,
            features_extractor_class=MoonRiverExtractor,
            features_extractor_kwargs={"num_players": 2, "mode": "base"},
            net_arch={"pi": [16], "vf": [16]},
        ),
    ]


@pytest.mark.parametrize("index", [0, 1], ids=["MoonRiverPolicy", "MaskableActorCriticPolicy"])
def test_a_snapshot_gives_the_same_policy_back(tmp_path: Path, index: int) -> None:
    policy = _policies()[index]
    path = tmp_path / "snapshot_1.pt"
    save_policy(policy, path)
    saved = torch.load(path, weights_only=True)  # plain data: the safe unpickler reads it
    assert saved["format"] == SNAPSHOT_FORMAT
    loaded = load_policy(path)
    assert type(loaded) is type(policy)
    for key, value in policy.state_dict().items():
        assert torch.equal(value, loaded.state_dict()[key]), key
    env = SingleAgentEnv(num_players=2)
    obs, info = env.reset(seed=3)
    a = PolicyAgent(policy, seed=1)
    b = PolicyAgent(loaded, seed=1)
    o = {"observation": obs, "action_mask": info["action_mask"]}
    assert a.act(o, env) == b.act(o, env)


def test_a_pickled_object_is_refused(tmp_path: Path) -> None:
    class Payload:
        def __reduce__(self):  # would run code on an unpickler that trusts the file
            return (print, ("ran",))

    path = tmp_path / "evil.pt"
    torch.save({"format": SNAPSHOT_FORMAT, "payload": Payload()}, path)
    with pytest.raises(ValueError, match="^path: .* is not a policy snapshot"):
        load_policy(path)
    with pytest.raises(ValueError, match="^path: .* is not a policy snapshot"):
        PolicyAgent.from_path(path)


def test_the_older_format_and_unknown_classes_are_refused(tmp_path: Path) -> None:
    policy = _policies()[0]
    old = tmp_path / "old.pt"
    torch.save({"state_dict": policy.state_dict(), "data": {"num_players": 2}}, old)
    with pytest.raises(ValueError, match="older pickled format"):
        load_policy(old)
    data = policy_data(policy)
    data["policy_class"] = "os.system"
    bad = tmp_path / "bad.pt"
    torch.save(data, bad)
    with pytest.raises(ValueError, match="^policy_class: unknown class 'os.system'"):
        load_policy(bad)
    data = policy_data(policy)
    data["arguments"]["activation_fn"] = "Exec"
    torch.save(data, bad)
    with pytest.raises(ValueError, match="^activation_fn: unknown class 'Exec'"):
        load_policy(bad)
