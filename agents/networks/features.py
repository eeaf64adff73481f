"""A features extractor for the flat Moon River observation (``obs_type="flat"``).

The flat vector is ``planes`` (C-order, ``(n * 29, rows, 5)``) followed by the feature vector
(``moonriver_env.moonriver.encoding.ObservationEncoder``). :class:`MoonRiverExtractor` splits it with the
encoder's layout, runs a small CNN (3x3 convolutions, padding 1, ReLU) over the planes and an
MLP over the features, and concatenates the two into ``features_dim`` values::

    flat (B, D) --split--> planes (B, n*29, rows, 5) -> conv3x3 x L -> flatten -> Linear --+
                      \\--> features (B, F)          -> Linear+ReLU x M ----------------------+-> cat -> Linear -> features_dim

Use it with MaskablePPO::

    policy_kwargs = dict(
        features_extractor_class=MoonRiverExtractor,
        features_extractor_kwargs=dict(num_players=2, mode="base"),
    )

With ``share_ranch=True`` the CNN is applied to each ranch (29 channels) separately with shared
weights and the per-ranch outputs are concatenated in the observation's seat order (own ranch
first), which halves the first layer's parameters and gives every ranch the same spatial
filters.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
import torch
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from moonriver_env.moonriver.encoding import RANCH_CHANNELS, ObservationEncoder
from moonriver_env.moonriver.rules import GameConfig

ACTIVATIONS: dict[str, type[nn.Module]] = {"relu": nn.ReLU, "tanh": nn.Tanh, "elu": nn.ELU}


def observation_layout(
    num_players: int = 2, mode: str = "base"
) -> tuple[tuple[int, int, int], int]:
    """``(plane_shape, num_features)`` of the flat observation for a config."""
    enc = ObservationEncoder(GameConfig(num_players=num_players, mode=mode))
    return tuple(enc.plane_shape), int(enc.num_features)  # type: ignore[return-value]


class MoonRiverExtractor(BaseFeaturesExtractor):
    """CNN over the planes + MLP over the features, concatenated.

    Args:
        observation_space: the flat ``Box`` of size ``D = prod(plane_shape) + F``.
        num_players, mode: the game config whose encoder layout splits the vector (ignored
            when ``plane_shape`` is given).
        plane_shape: ``(channels, rows, 5)``; the rest of the vector is the features.
        cnn_channels: output channels of each 3x3 convolution (padding 1, stride 1).
        cnn_out: width of the linear layer after the flattened CNN output (0: no layer, the
            flattened maps are used directly).
        feature_mlp: hidden widths of the feature MLP.
        features_dim: output size (a final Linear + activation over the concatenation).
        share_ranch: apply the CNN per ranch with shared weights (see the module docstring).
        activation: ``"relu"``, ``"tanh"`` or ``"elu"``.
        plane_scale: the planes are multiplied by this (cow / resource counts are small
            integers; 1.0 keeps them as they are).
    """

    def __init__(
        self,
        observation_space: gymnasium.spaces.Box,
        num_players: int = 2,
        mode: str = "base",
        plane_shape: Sequence[int] | None = None,
        cnn_channels: Sequence[int] = (32, 64),
        cnn_out: int = 256,
        feature_mlp: Sequence[int] = (128,),
        features_dim: int = 256,
        share_ranch: bool = False,
        activation: str = "relu",
        plane_scale: float = 1.0,
    ) -> None:
        super().__init__(observation_space, features_dim)
        if plane_shape is None:
            shape, _ = observation_layout(num_players, mode)
        else:
            shape = tuple(int(x) for x in plane_shape)  # type: ignore[assignment]
        if len(shape) != 3:
            raise ValueError(f"plane_shape: expected (channels, rows, cols), got {shape!r}")
        if activation not in ACTIVATIONS:
            raise ValueError(
                f"activation: expected one of {sorted(ACTIVATIONS)}, got {activation!r}"
            )
        if not cnn_channels:
            raise ValueError("cnn_channels: expected at least one convolution")
        obs_dim = int(np.prod(observation_space.shape))
        self.plane_shape = shape
        self.plane_size = int(np.prod(shape))
        self.num_features = obs_dim - self.plane_size
        if self.num_features <= 0:
            raise ValueError(
                f"plane_shape: {shape} has {self.plane_size} values, the observation only {obs_dim}"
            )
        channels, rows, cols = shape
        self.share_ranch = bool(share_ranch)
        if self.share_ranch:
            if channels % RANCH_CHANNELS:
                raise ValueError(f"share_ranch: {channels} channels are not whole ranches")
            self.ranches = channels // RANCH_CHANNELS
            in_ch = RANCH_CHANNELS
        else:
            self.ranches = 1
            in_ch = channels
        self.plane_scale = float(plane_scale)
        act = ACTIVATIONS[activation]
        layers: list[nn.Module] = []
        for out_ch in cnn_channels:
            layers += [nn.Conv2d(in_ch, int(out_ch), kernel_size=3, padding=1), act()]
            in_ch = int(out_ch)
        layers.append(nn.Flatten())
        flat = in_ch * rows * cols * self.ranches
        self.cnn = nn.Sequential(*layers)
        if cnn_out:
            self.cnn_head: nn.Module = nn.Sequential(nn.Linear(flat, int(cnn_out)), act())
            cnn_dim = int(cnn_out)
        else:
            self.cnn_head = nn.Identity()
            cnn_dim = flat
        mlp: list[nn.Module] = []
        width = self.num_features
        for hidden in feature_mlp:
            mlp += [nn.Linear(width, int(hidden)), act()]
            width = int(hidden)
        self.mlp = nn.Sequential(*mlp) if mlp else nn.Identity()
        self.head = nn.Sequential(nn.Linear(cnn_dim + width, features_dim), act())

    def split(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """``(planes, features)`` of a batch of flat observations (views)."""
        b = observations.shape[0]
        planes = observations[:, : self.plane_size].reshape(b, *self.plane_shape)
        return planes, observations[:, self.plane_size :]

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        planes, features = self.split(observations)
        if self.plane_scale != 1.0:
            planes = planes * self.plane_scale
        if self.share_ranch:
            b = planes.shape[0]
            per = planes.reshape(b * self.ranches, RANCH_CHANNELS, *self.plane_shape[1:])
            maps = self.cnn(per).reshape(b, -1)
        else:
            maps = self.cnn(planes)
        return self.head(torch.cat([self.cnn_head(maps), self.mlp(features)], dim=1))


def extractor_kwargs(policy_cfg: dict[str, Any], env_cfg: dict[str, Any]) -> dict[str, Any]:
    """``features_extractor_kwargs`` from the ``[policy]`` and ``[env]`` config sections."""
    return {
        "num_players": int(env_cfg["num_players"]),
        "mode": str(env_cfg["mode"]),
        "cnn_channels": list(policy_cfg["cnn_channels"]),
        "cnn_out": int(policy_cfg["cnn_out"]),
        "feature_mlp": list(policy_cfg["feature_mlp"]),
        "features_dim": int(policy_cfg["features_dim"]),
        "share_ranch": bool(policy_cfg["share_ranch"]),
        "activation": str(policy_cfg["activation"]),
    }
