"""Policy files: the one home of saving and loading a learned policy (the self-play snapshots
``snapshot_<step>.pt``, ``--model`` files of the evaluation, ``ppo:PATH`` agents).

A snapshot holds tensors and plain data only, and is read with ``torch.load(...,
weights_only=True)``: the state dict, the name of the policy class, and the constructor's
arguments with every object written as plain data (spaces by shape, bounds and size; classes
by name, looked up in the fixed tables :data:`POLICY_CLASSES` and :data:`CLASSES`). A file
from elsewhere can therefore give wrong numbers but cannot run code. Files in the older format
(pickled spaces and classes) are refused with ``ValueError``.

A ``MaskablePPO`` ``.zip`` is read by stable-baselines3 (``MaskablePPO.load``), which
unpickles the objects stored in the zip with cloudpickle: loading a ``.zip`` trusts its author
as much as running their code. Load only ``.zip`` files you made or got from this repository.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

SNAPSHOT_FORMAT = "moonriver-policy/2"
"""The ``format`` entry of a snapshot file (plain data; version 1 pickled objects)."""

POLICY_CLASSES: dict[str, tuple[str, str]] = {
    "MoonRiverPolicy": ("agents.networks.policy", "MoonRiverPolicy"),
    "MaskableActorCriticPolicy": (
        "sb3_contrib.common.maskable.policies",
        "MaskableActorCriticPolicy",
    ),
}
"""The policy classes a snapshot may name (name -> module, attribute)."""

CLASSES: dict[str, tuple[str, str]] = {
    **{name: ("torch.nn", name) for name in ("ReLU", "Tanh", "ELU", "GELU", "LeakyReLU", "SiLU")},
    **{name: ("torch.optim", name) for name in ("Adam", "AdamW", "SGD", "RMSprop")},
    "FlattenExtractor": ("stable_baselines3.common.torch_layers", "FlattenExtractor"),
    "MoonRiverExtractor": ("agents.networks.features", "MoonRiverExtractor"),
}
"""The other classes a policy's constructor arguments may name (activation, optimizer,
features extractor)."""

_CLASS_ARGS = ("activation_fn", "optimizer_class", "features_extractor_class")
_SPACE_ARGS = ("observation_space", "action_space")


def _lookup(table: dict[str, tuple[str, str]], name: Any, what: str) -> Any:
    if not isinstance(name, str) or name not in table:
        raise ValueError(f"{what}: unknown class {name!r}; expected one of {sorted(table)}")
    module, attribute = table[name]
    return getattr(importlib.import_module(module), attribute)


def _space_data(space: Any) -> dict[str, Any]:
    import torch
    from gymnasium import spaces

    if isinstance(space, spaces.Discrete):
        return {"space": "Discrete", "n": int(space.n)}
    if isinstance(space, spaces.Box):
        return {
            "space": "Box",
            "low": torch.as_tensor(space.low),
            "high": torch.as_tensor(space.high),
            "dtype": str(space.dtype),
        }
    raise ValueError(f"space: cannot save a {type(space).__name__} as plain data")


def _space(data: Any, what: str) -> Any:
    import numpy as np
    from gymnasium import spaces

    kind = data.get("space") if isinstance(data, dict) else None
    if kind == "Discrete":
        return spaces.Discrete(int(data["n"]))
    if kind == "Box":
        dtype = np.dtype(str(data["dtype"]))
        return spaces.Box(low=data["low"].numpy(), high=data["high"].numpy(), dtype=dtype)  # type: ignore[arg-type]
    raise ValueError(f"{what}: expected a saved Discrete or Box space, got {data!r}")


def policy_data(policy: Any) -> dict[str, Any]:
    """``policy`` (an SB3 policy of a class in :data:`POLICY_CLASSES`) as tensors and plain
    data (what :func:`save_policy` writes)."""
    name = type(policy).__name__
    if name not in POLICY_CLASSES:
        raise ValueError(f"policy: cannot save a {name}; expected one of {sorted(POLICY_CLASSES)}")
    arguments: dict[str, Any] = {}
    for key, value in policy._get_constructor_parameters().items():
        if key == "lr_schedule":
            continue  # a function; a loaded policy is for playing, not for training
        if key in _SPACE_ARGS:
            value = _space_data(value)
        elif key in _CLASS_ARGS:
            value = value.__name__
            _lookup(CLASSES, value, key)
        arguments[key] = value
    return {
        "format": SNAPSHOT_FORMAT,
        "policy_class": name,
        "arguments": arguments,
        "state_dict": policy.state_dict(),
    }


def save_policy(policy: Any, path: str | Path) -> None:
    """Write ``policy`` to ``path`` as tensors and plain data (module docstring); the caller
    makes the write atomic (``agents.atomic.atomic_path``)."""
    import torch

    torch.save(policy_data(policy), str(path))


def policy_from_data(saved: Any, source: str = "policy") -> Any:
    """The policy that :func:`policy_data` described, on the CPU in evaluation mode."""
    if not isinstance(saved, dict) or saved.get("format") != SNAPSHOT_FORMAT:
        got = saved.get("format") if isinstance(saved, dict) else type(saved).__name__
        raise ValueError(
            f"path: {source} is not a policy snapshot of format {SNAPSHOT_FORMAT!r} "
            f"(got {got!r}; snapshots of the older pickled format are not read)"
        )
    cls = _lookup(POLICY_CLASSES, saved.get("policy_class"), "policy_class")
    arguments = dict(saved["arguments"])
    for key in _SPACE_ARGS:
        arguments[key] = _space(arguments.get(key), key)
    for key in _CLASS_ARGS:
        if key in arguments:
            arguments[key] = _lookup(CLASSES, arguments[key], key)
    policy = cls(lr_schedule=lambda _progress: 0.0, **arguments)
    policy.load_state_dict(saved["state_dict"])
    policy.set_training_mode(False)
    return policy


def load_model(path: str | Path) -> Any:
    """The ``MaskablePPO`` model saved in the ``.zip`` ``path`` (``model.save``), on the CPU;
    read by SB3, which unpickles the zip's objects (module docstring: this trusts its author)."""
    from sb3_contrib import MaskablePPO

    return MaskablePPO.load(str(path), device="cpu")


def load_policy(path: str | Path) -> Any:
    """The policy in ``path``: a snapshot written by :func:`save_policy` (read with
    ``weights_only=True``), or the policy of a ``MaskablePPO`` ``.zip`` (read by SB3; see the
    module docstring for what that trusts); on the CPU in evaluation mode."""
    p = Path(path)
    if p.suffix == ".zip":
        policy = load_model(p).policy
        policy.set_training_mode(False)
        return policy
    import torch

    try:
        saved = torch.load(str(p), map_location="cpu", weights_only=True)
    except Exception as exc:  # torch's unpickler refuses code; any damage raises too
        raise ValueError(
            f"path: {str(p)!r} is not a policy snapshot ({type(exc).__name__}: {exc})"
        ) from None
    return policy_from_data(saved, repr(str(p)))
