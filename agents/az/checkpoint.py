"""Saved ``az`` models: one file per model (``torch.save`` of plain data, read back with
``torch.load(weights_only=True)``), its game, network shape, play settings and provenance.

A file holds::

    {"format": "moonriver-az", "version": 2,
     "shape": NetShape fields (the game: num_players, mode; the layer sizes),
     "state_dict": the weights,
     "search": default play settings (SearchSettings fields),
     "provenance": {"command", "config", "iteration", "positions", "games", "seconds", ...}}

Reading checks, before any move is played: the file exists and is complete (a truncated or
foreign file is refused), the weights fit the stored shape (another network shape is refused),
and :func:`check_game` refuses a game other than the model's, naming both games. Every refusal
is a :class:`CheckpointError` (a ``ValueError``) naming the path.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import torch

from agents.atomic import atomic_path
from agents.shipped import CHECKPOINTS
from moonriver_env.games import GameSpec

from .network import AzNet, NetShape

FORMAT = "moonriver-az"
VERSION = 2
MODEL_FILE = "model.pt"


class CheckpointError(ValueError):
    """A file that is not a usable ``az`` model (missing, truncated, foreign, another shape or
    another game); the message names the path and what is wrong."""


def shipped_path(game: str) -> Path:
    """Where the shipped model of a game (its :attr:`GameSpec.text`, ``"2p_base"``) lives:
    ``agents/checkpoints/az_<game>/model.pt``."""
    return CHECKPOINTS / f"az_{game}" / MODEL_FILE


def save_checkpoint(
    path: str | os.PathLike[str],
    net: AzNet,
    search: Mapping[str, Any],
    provenance: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``net`` (and ``extra`` entries, e.g. the optimizer state) to ``path`` atomically:
    a reader sees the old file or the new one, never a part."""
    blob: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "shape": net.shape.to_dict(),
        "state_dict": net.state_dict(),
        "search": dict(search),
        "provenance": dict(provenance),
    }
    if extra:
        blob.update(extra)
    with atomic_path(path) as tmp:
        torch.save(blob, tmp)
    return Path(path)


def read_blob(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The raw contents of a model file (``CheckpointError`` if it is not one)."""
    p = Path(path)
    if p.is_dir():
        p = p / MODEL_FILE
    if not p.is_file():
        raise CheckpointError(f"path: no az model file at {str(p)!r}")
    try:
        blob = torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # truncated zip, pickle refused, ...: whatever the bytes raise
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise CheckpointError(
            f"path: {str(p)!r} is not a readable az model (truncated or corrupt: "
            f"{type(exc).__name__}: {first})"
        ) from None
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        raise CheckpointError(f"path: {str(p)!r} is not an az model (no {FORMAT!r} format tag)")
    if blob.get("version") != VERSION:
        raise CheckpointError(
            f"path: {str(p)!r} is az model version {blob.get('version')!r}; this code reads "
            f"version {VERSION}"
        )
    return blob


def net_shape(blob: Mapping[str, Any], path: str | os.PathLike[str] = "?") -> NetShape:
    """The :class:`NetShape` a model file declares."""
    raw = blob.get("shape")
    names = {f.name for f in fields(NetShape)}
    optional = {"features"}  # written only since it exists: absent means False
    if not isinstance(raw, Mapping) or not names - optional <= set(raw) <= names:
        raise CheckpointError(f"path: {str(path)!r} declares no valid network shape: {raw!r}")
    try:
        return NetShape(**raw)
    except TypeError as exc:
        raise CheckpointError(f"path: {str(path)!r}: bad network shape ({exc})") from None


def state_dict_of(blob: Mapping[str, Any]) -> Any:
    """A file's weights; one written before the network had its input scale (the same
    version, saved before the scale was added) gets the scale of 1 it was trained with."""
    weights = blob["state_dict"]
    if isinstance(weights, Mapping) and "input_scale" not in weights:
        w1 = weights.get("w1")
        if isinstance(w1, torch.Tensor) and w1.dim() == 2:
            weights = {**weights, "input_scale": torch.ones(w1.shape[0], dtype=w1.dtype)}
    return weights


def load_checkpoint(path: str | os.PathLike[str]) -> tuple[AzNet, dict[str, Any]]:
    """The network (in eval mode) and the file's contents minus the weights.

    Raises:
        CheckpointError: not a complete az model file, or weights that do not fit the
            declared network shape (another network shape).
    """
    blob = read_blob(path)
    shape = net_shape(blob, path)
    try:
        net = AzNet(shape)
    except ValueError as exc:
        raise CheckpointError(f"path: {str(path)!r}: unknown game in the shape ({exc})") from None
    try:
        net.load_state_dict(state_dict_of(blob), strict=True)
    except (RuntimeError, KeyError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CheckpointError(
            f"path: {str(path)!r}: the weights do not fit the declared network shape "
            f"{shape} (another network shape: {first})"
        ) from None
    net.eval()
    meta = {k: v for k, v in blob.items() if k != "state_dict"}
    return net, meta


def game_text(config: Any) -> str:
    """The one spelling of the game ``config`` is for (:attr:`GameSpec.text`: ``"2p_base"``,
    ``"kingdomino_2p_base"``); a config of a game this install does not register is spelt
    the same way from its class name."""
    try:
        return GameSpec.from_config(config).text
    except ValueError:
        name = type(config).__name__.removesuffix("Config").lower()
        return f"{name}_{config.num_players}p_{config.mode}"


def model_game(shape: NetShape) -> str:
    """The spelling of a model's game (``"2p_base"``)."""
    return shape.spec.text


def check_game(shape: NetShape, config: Any, path: str | os.PathLike[str]) -> None:
    """``CheckpointError`` naming both games if the model was made for another game than
    ``config`` (another game, player count or mode)."""
    asked = game_text(config)
    if asked != model_game(shape):
        raise CheckpointError(
            f"game: the game is {asked} but the az model {str(path)!r} was trained for "
            f"{model_game(shape)}"
        )
