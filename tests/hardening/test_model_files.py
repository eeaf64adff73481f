"""Finding A of issue 32: loading a model through a documented agent spec or loader runs no
code from the file. A ``MaskablePPO`` zip is read without unpickling whatever its name; a file
that must be unpickled (an RLlib checkpoint) needs the ``trust`` opt-in; a weights file that
holds code is refused with the project's named error."""

from __future__ import annotations

import base64
import io
import json
import pickle
import zipfile
from pathlib import Path

import pytest

pytest.importorskip("sb3_contrib")

import torch  # noqa: E402

from agents.networks.snapshots import (  # noqa: E402
    TRUST_ENV,
    ModelFileError,
    UntrustedFileError,
    load_policy,
)
from agents.registry import make_agent  # noqa: E402


class _Evil:
    """Unpickled, it creates the file ``path`` (what a hostile model file could do)."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self) -> tuple[object, tuple[str, str]]:
        return (open, (self.path, "w"))


def _serialized(obj: object) -> dict[str, str]:
    """A ``data`` entry as SB3 writes an object it pickles."""
    return {":type:": str(type(obj)), ":serialized:": base64.b64encode(pickle.dumps(obj)).decode()}


def _evil_zip(path: Path, marker: Path) -> Path:
    """An SB3-shaped zip whose every pickled entry creates ``marker`` when unpickled."""
    weights = io.BytesIO()
    torch.save({}, weights)
    data = {
        "policy_class": _serialized(_Evil(marker)),
        "policy_kwargs": _serialized(_Evil(marker)),
        "observation_space": _serialized(_Evil(marker)),
        "action_space": _serialized(_Evil(marker)),
    }
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps(data))
        archive.writestr("policy.pth", weights.getvalue())
        archive.writestr("pytorch_variables.pth", weights.getvalue())
    return path


LOADS = {
    "ppo:FILE.zip": lambda f: make_agent(f"ppo:{f}"),
    "ppo:FILE (model.zip beside)": lambda f: make_agent(f"ppo:{f.with_suffix('')}"),
    "ppo:FILE.pth": lambda f: make_agent(f"ppo:{f.rename(f.with_suffix('.pth'))}"),
    "ppo:FILE.PT": lambda f: make_agent(f"ppo:{f.rename(f.with_suffix('.PT'))}"),
    "ppo:FILE.bin": lambda f: make_agent(f"ppo:{f.rename(f.with_suffix('.bin'))}"),
    "kingdomino ppo:FILE": lambda f: make_agent(f"ppo:{f}", game="kingdomino"),
    "load_policy": lambda f: load_policy(f),
}


@pytest.mark.parametrize("load", LOADS.values(), ids=list(LOADS))
def test_a_hostile_model_zip_runs_no_code(tmp_path: Path, load) -> None:
    marker = tmp_path / "marker"
    evil = _evil_zip(tmp_path / "model.zip", marker)
    with pytest.raises(ModelFileError, match="policy_class"):
        load(evil)
    assert not marker.exists()


@pytest.mark.parametrize("head", ["spatial", "mlp"])
def test_a_model_zip_is_read_without_its_pickles(tmp_path: Path, head: str) -> None:
    # a real model.save() zip of either policy head (the shipped ppo_2p_base's MoonRiverPolicy or the MLP head): the
    # policy comes back the same, the pickled entries the loader does not need (here a
    # hostile _last_obs) are never unpickled
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.networks.features import MoonRiverExtractor
    from agents.networks.policy import MoonRiverPolicy
    from moonriver_env.single_agent import SingleAgentEnv

    env = SingleAgentEnv(num_players=2)
    cls: type = MoonRiverPolicy
    kwargs: dict = {"cnn_channels": [4], "global_dim": 16, "pi": [8], "vf": [8]}
    if head == "mlp":
        cls = MaskableActorCriticPolicy
        kwargs = {
            "features_extractor_class": MoonRiverExtractor,
            "features_extractor_kwargs": {"num_players": 2, "mode": "base"},
            "net_arch": {"pi": [8], "vf": [8]},
            "activation_fn": torch.nn.Tanh,
        }
    model = MaskablePPO(cls, env, n_steps=8, policy_kwargs=kwargs, device="cpu")
    path = tmp_path / "saved.zip"
    model.save(path)
    marker = tmp_path / "marker"
    with zipfile.ZipFile(path) as archive:
        members = {name: archive.read(name) for name in archive.namelist()}
    data = json.loads(members["data"])
    data["_last_obs"] = _serialized(_Evil(marker))
    members["data"] = json.dumps(data).encode()
    renamed = tmp_path / "weights.bin"
    with zipfile.ZipFile(renamed, "w") as archive:
        for name, raw in members.items():
            archive.writestr(name, raw)
    policy = load_policy(renamed)
    assert not marker.exists()
    assert type(policy) is cls and policy.action_space == model.action_space
    for key, value in model.policy.state_dict().items():
        assert torch.equal(policy.state_dict()[key], value), key


def test_an_unknown_policy_class_is_refused_by_name(tmp_path: Path) -> None:
    weights = io.BytesIO()
    torch.save({}, weights)
    path = tmp_path / "model.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("data", json.dumps({"policy_class": _serialized(zipfile.ZipFile)}))
        archive.writestr("policy.pth", weights.getvalue())
    with pytest.raises(ModelFileError, match=r"policy_class.*MoonRiverPolicy"):
        load_policy(path)


def test_a_weights_file_with_code_is_refused_by_name(tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    evil = tmp_path / "model.pt"
    torch.save({"meta": _Evil(marker)}, evil)
    with pytest.raises(ModelFileError, match="without running code"):
        make_agent(f"trained:{evil}")
    with pytest.raises(ModelFileError, match="without running code"):
        make_agent(f"ppo:{evil}")
    assert not marker.exists()


def test_an_rllib_checkpoint_needs_the_trust_opt_in(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(TRUST_ENV, raising=False)
    marker = tmp_path / "marker"
    run = tmp_path / "run"
    checkpoint = run / "checkpoints" / "iter_000001"
    module = checkpoint / "learner_group" / "learner" / "rl_module" / "learner"
    module.mkdir(parents=True)
    (run / "config.toml").write_text('[env]\nnum_players = 2\nmode = "base"\n')
    (checkpoint / "moonriver.json").write_text('{"iteration": 1}')
    (module / "class_and_ctor_args.pkl").write_bytes(pickle.dumps(_Evil(marker)))
    with pytest.raises(UntrustedFileError, match=rf"trust=1.*{TRUST_ENV}=1"):
        make_agent(f"rllib:{run}")
    with pytest.raises(ValueError, match="trust: expected true or false"):
        make_agent(f"rllib:{run},trust=maybe")
    assert not marker.exists()
