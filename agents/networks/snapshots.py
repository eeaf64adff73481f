"""Policy files: the one home of saving and loading a learned policy (the self-play snapshots
``snapshot_<step>.pt``, ``--model`` files of the evaluation, ``ppo:PATH`` agents).

No file is read by running code from it. A snapshot holds tensors and plain data only, and is
read with ``torch.load(..., weights_only=True)``: the state dict, the name of the policy class,
and the constructor's arguments with every object written as plain data (spaces by shape, bounds
and size; classes by name, looked up in the fixed tables :data:`POLICY_CLASSES` and
:data:`CLASSES`). Files in the older format (pickled spaces and classes) are refused.

A ``MaskablePPO`` zip (``model.save``; recognised by its contents, whatever the file's name) is
read without unpickling (:func:`read_sb3_zip`): the spaces are rebuilt from the plain entries
SB3 writes beside each pickled object in the archive's ``data`` JSON, the policy class and its
keyword arguments are read by an unpickler that knows only the classes of the two tables
(anything else is refused with :class:`ModelFileError`), and the weights ``policy.pth`` with
``weights_only=True``. A file from elsewhere can therefore give wrong numbers but cannot run
code. Formats that can only be read by unpickling (RLlib checkpoints) need the explicit opt-in
of :func:`check_trust`.
"""

from __future__ import annotations

import base64
import importlib
import io
import json
import os
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any

TRUST_ENV = "MOONRIVER_TRUST_FILES"
"""The environment variable (``1``) that trusts every file a loader would have to unpickle."""


class ModelFileError(ValueError):
    """A model file that is not one, is damaged, or would need code from it to be read."""


class UntrustedFileError(ModelFileError):
    """A file that can only be read by unpickling it (running code its author chose), loaded
    without the opt-in (:func:`check_trust`)."""


def check_trust(what: str, trust: bool = False) -> None:
    """``UntrustedFileError`` unless ``trust`` or ``MOONRIVER_TRUST_FILES=1``: ``what`` (a file
    or folder) can only be read by unpickling it, which runs any code its author put there."""
    if trust or os.environ.get(TRUST_ENV, "").strip().lower() in ("1", "true", "yes"):
        return
    raise UntrustedFileError(
        f"trust: {what} can only be read by unpickling it, which runs whatever code its author "
        f"put in it; load only files you made or trust: opt in with the spec parameter "
        f"trust=1 (e.g. 'rllib:DIR,trust=1') or the environment variable {TRUST_ENV}=1"
    )


def read_weights(path: str | Path | io.BytesIO, what: str, kind: str = "a policy snapshot") -> Any:
    """``torch.load(path, weights_only=True)`` on the CPU; ``ModelFileError`` naming ``what``
    (not ``kind``) for anything it refuses (a pickled object that is no tensor or plain data,
    damage)."""
    import torch

    try:
        return torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # torch's unpickler refuses code; any damage raises too
        raise ModelFileError(
            f"path: {what} is not {kind} that can be read without running code "
            f"({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})"
        ) from None


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

PICKLED_ALIASES: dict[tuple[str, str], str] = {
    ("training.policy", "MoonRiverPolicy"): "MoonRiverPolicy"
}
"""Old module paths a zip may name a class by (the shipped ``ppo_2p_base`` says
``training.policy``) -> the name in :data:`POLICY_CLASSES`."""

_CLASS_ARGS = ("activation_fn", "optimizer_class", "features_extractor_class")
_SPACE_ARGS = ("observation_space", "action_space")


def _lookup(table: dict[str, tuple[str, str]], name: Any, what: str) -> Any:
    if not isinstance(name, str) or name not in table:
        raise ModelFileError(f"{what}: unknown class {name!r}; expected one of {sorted(table)}")
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
    raise ModelFileError(f"{what}: expected a saved Discrete or Box space, got {data!r}")


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
        raise ModelFileError(
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


class _KnownClasses(pickle.Unpickler):
    """An unpickler that resolves only the classes of :data:`POLICY_CLASSES` and
    :data:`CLASSES` (by their module path), and refuses every other global."""

    def find_class(self, module: str, name: str) -> Any:
        known = {**{v: k for k, v in POLICY_CLASSES.items()}, **PICKLED_ALIASES}
        if (module, name) in known:
            return _lookup(POLICY_CLASSES, known[(module, name)], "policy_class")
        for table, what in ((POLICY_CLASSES, "policy_class"), (CLASSES, "policy_kwargs")):
            if name in table:
                cls = _lookup(table, name, what)
                # by the path it names or by the class's own (pickle writes torch.nn.ReLU
                # as torch.nn.modules.activation.ReLU)
                if module in (table[name][0], cls.__module__) and name == cls.__qualname__:
                    return cls
        raise pickle.UnpicklingError(f"refused to load {module}.{name}")

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("refused a persistent id")


_DATA_LIMIT = 64 << 20
_WEIGHTS_LIMIT = 2 << 30
_SPACE_LIMIT = 10**7
_KWARG_LIMIT = 1 << 16
_NUMBER = re.compile(r"[-+]?(?:inf|nan|\d+\.?\d*(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?)")


def is_sb3_zip(path: str | Path) -> bool:
    """Whether ``path`` is a zip archive holding SB3's ``data`` and ``policy.pth`` (a
    ``model.save`` file, whatever its name; a torch ``.pt`` file is a zip of other members)."""
    try:
        if not zipfile.is_zipfile(path):
            return False
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
    except (OSError, zipfile.BadZipFile):
        return False
    return {"data", "policy.pth"} <= names


def _unpickle_known(entry: Any, key: str, what: str) -> Any:
    """A pickled ``data`` entry read by :class:`_KnownClasses`; a plain JSON value as it is."""
    if not (isinstance(entry, dict) and ":serialized:" in entry):
        return entry
    try:
        raw = base64.b64decode(str(entry[":serialized:"]), validate=True)
        return _KnownClasses(io.BytesIO(raw)).load()
    except Exception as exc:
        raise ModelFileError(
            f"{key}: {what} names a class this project does not know, or is not plain data "
            f"({type(exc).__name__}: {exc}); known policy classes: {sorted(POLICY_CLASSES)}"
        ) from None


def _bounds(text: Any, default: float) -> float:
    """The one value of a Box bound SB3 wrote in full as text (``"[0. 0. 0.]"``), else
    ``default`` (a shortened ``"[0. 0. ... 1.]"`` does not tell; a policy's forward pass does
    not read the bounds)."""
    if "..." in str(text):
        return default
    values = set(_NUMBER.findall(str(text)))
    if len(values) == 1:
        value = float(values.pop())
        if value == value:  # not nan
            return value
    return default


def _zip_space(entry: Any, key: str, what: str) -> Any:
    """The space ``entry`` describes, from the plain entries SB3 writes beside the pickle."""
    import numpy as np
    from gymnasium import spaces

    kind = str(entry.get(":type:", "")) if isinstance(entry, dict) else ""
    try:
        if kind.endswith("spaces.discrete.Discrete'>"):
            n, start = int(str(entry["n"])), int(str(entry.get("start", "0")))
            if not 0 < n <= _SPACE_LIMIT or abs(start) > _SPACE_LIMIT:
                raise ValueError(f"n = {n}, start = {start} out of bounds")
            return spaces.Discrete(n, start=start)
        if kind.endswith("spaces.box.Box'>"):
            shape = tuple(int(d) for d in entry["_shape"])
            if not shape or any(d <= 0 for d in shape) or int(np.prod(shape)) > _SPACE_LIMIT:
                raise ValueError(f"shape {shape} out of bounds")
            dtype = np.dtype(str(entry["dtype"]))
            if dtype.kind != "f":
                raise ValueError(f"dtype {dtype} is not a float type")
            low = _bounds(entry.get("low"), -np.inf)
            high = _bounds(entry.get("high"), np.inf)
            if not low <= high:
                low, high = -np.inf, np.inf
            return spaces.Box(low=low, high=high, shape=shape, dtype=dtype)  # type: ignore[arg-type]
    except (KeyError, TypeError, ValueError, OverflowError) as exc:
        raise ModelFileError(f"{key}: {what} has a damaged {key} ({exc})") from None
    raise ModelFileError(f"{key}: {what} has a {kind or 'missing'} {key}; expected Discrete or Box")


def _check_kwargs(value: Any, key: str, what: str, depth: int = 0) -> None:
    """Plain keyword arguments of sizes a network of this project can have."""
    if depth > 8:
        raise ModelFileError(f"policy_kwargs: {what} nests {key} too deeply")
    if isinstance(value, bool) or value is None or isinstance(value, (float, str, type)):
        return
    if isinstance(value, int):
        if abs(value) > _KWARG_LIMIT:
            raise ModelFileError(
                f"policy_kwargs: {what} has {key} = {value} (at most {_KWARG_LIMIT})"
            )
        return
    if isinstance(value, (list, tuple)) and len(value) <= 64:
        for item in value:
            _check_kwargs(item, key, what, depth + 1)
        return
    if isinstance(value, dict) and len(value) <= 64 and all(isinstance(k, str) for k in value):
        for k, item in value.items():
            _check_kwargs(item, f"{key}.{k}", what, depth + 1)
        return
    raise ModelFileError(f"policy_kwargs: {what} has {key} of type {type(value).__name__}")


def read_sb3_zip(path: str | Path) -> Any:
    """The policy of the ``MaskablePPO`` zip ``path`` (``model.save``), read without unpickling
    (module docstring), on the CPU in evaluation mode; ``ModelFileError`` naming the entry for a
    file this project cannot rebuild (an unknown policy class, a space it does not use, damage)."""
    what = repr(str(path))
    try:
        with zipfile.ZipFile(path) as archive:
            infos = {info.filename: info for info in archive.infolist()}
            for name, limit in (("data", _DATA_LIMIT), ("policy.pth", _WEIGHTS_LIMIT)):
                if name not in infos:
                    raise ModelFileError(f"path: {what} is not a MaskablePPO zip (no {name!r})")
                if infos[name].file_size > limit:
                    raise ModelFileError(f"path: {what}: {name!r} is larger than {limit} bytes")
            data = json.loads(archive.read("data"))
            weights = archive.read("policy.pth")
    except (OSError, zipfile.BadZipFile, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ModelFileError(f"path: {what} is not a readable MaskablePPO zip ({exc})") from None
    if not isinstance(data, dict):
        raise ModelFileError(f"path: {what}: 'data' is not a JSON object")
    cls = _unpickle_known(data.get("policy_class"), "policy_class", what)
    if not (
        isinstance(cls, type) and cls in (_lookup(POLICY_CLASSES, n, "") for n in POLICY_CLASSES)
    ):
        raise ModelFileError(
            f"policy_class: {what} names {cls!r}; known policy classes: {sorted(POLICY_CLASSES)}"
        )
    kwargs = _unpickle_known(data.get("policy_kwargs") or {}, "policy_kwargs", what)
    if not isinstance(kwargs, dict):
        raise ModelFileError(f"policy_kwargs: {what} has {type(kwargs).__name__}, not a dict")
    _check_kwargs(kwargs, "policy_kwargs", what)
    observation_space = _zip_space(data.get("observation_space"), "observation_space", what)
    action_space = _zip_space(data.get("action_space"), "action_space", what)
    state_dict = read_weights(io.BytesIO(weights), f"{what} (policy.pth)", "a weights file")
    try:
        policy = cls(
            observation_space=observation_space,
            action_space=action_space,
            lr_schedule=lambda _progress: 0.0,
            **kwargs,
        )
        policy.load_state_dict(state_dict)
    except Exception as exc:  # arguments or weights that do not fit the class
        raise ModelFileError(
            f"path: {what}: the policy cannot be rebuilt ({type(exc).__name__}: {exc})"
        ) from None
    policy.set_training_mode(False)
    return policy


class LoadedModel:
    """What the agents read of a ``MaskablePPO`` model: its ``policy``, spaces and
    ``predict``, for a policy read by :func:`load_policy` (no unpickling)."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.observation_space = policy.observation_space
        self.action_space = policy.action_space

    def predict(self, *args: Any, **kwargs: Any) -> Any:
        """The policy's ``predict`` (SB3's arguments)."""
        return self.policy.predict(*args, **kwargs)


def load_model(path: str | Path) -> LoadedModel:
    """The model in ``path`` (a ``MaskablePPO`` zip or a snapshot, told apart by contents) as
    a :class:`LoadedModel`, read by :func:`load_policy` (no code from the file runs)."""
    return LoadedModel(load_policy(path))


def load_policy(path: str | Path) -> Any:
    """The policy in ``path``: a ``MaskablePPO`` zip (:func:`read_sb3_zip`) or a snapshot
    written by :func:`save_policy` (read with ``weights_only=True``), told apart by contents,
    not by the file's name; on the CPU in evaluation mode. ``ModelFileError`` (a
    ``ValueError``) for anything else."""
    p = Path(path)
    if not p.is_file():
        raise ModelFileError(f"path: no model file {str(p)!r}")
    if is_sb3_zip(p):
        return read_sb3_zip(p)
    return policy_from_data(read_weights(p, repr(str(p))), repr(str(p)))
