"""The hyper-parameters of the MaskablePPO policy's network, listed once: :data:`NETWORK`.

:class:`~agents.networks.policy.MoonRiverPolicy` takes them as keyword arguments (with the
defaults below; a saved model, such as the shipped ``ppo_2p_base``, stores them as its
constructor arguments). The MaskablePPO pipeline that set them from its ``[policy]`` section
is retired (docs/training-ppo-experiments.md); what reads them now loads saved models. This
module needs no torch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["NETWORK", "HyperParameter"]


@dataclass(frozen=True)
class HyperParameter:
    """One hyper-parameter of the network."""

    name: str
    """The keyword of :class:`~agents.networks.policy.MoonRiverPolicy` (and of a saved model's
    constructor arguments)."""
    kind: Literal["int", "ints", "bool"]
    """An integer, a list of positive integers (layer sizes) or a flag."""
    default: int | bool | tuple[int, ...]
    minimum: int = 0
    """``int``: the smallest value; ``ints``: the shortest list."""
    key: str | None = None
    """Its key in the ``[policy]`` section when that differs from :attr:`name`."""
    trunk: bool = False
    """Also an argument of the trunk (``SpatialExtractor``), not only of the heads."""

    @property
    def config_key(self) -> str:
        """Its key in the ``[policy]`` section."""
        return self.key or self.name

    def convert(self, value: Any) -> int | bool | list[int]:
        """``value`` as the network stores it (lists of ints, ints, bools)."""
        if self.kind == "ints":
            return list(value)
        if self.kind == "int":
            return int(value)
        return bool(value)


NETWORK: tuple[HyperParameter, ...] = (
    HyperParameter("cnn_channels", "ints", (64, 64), minimum=1, trunk=True),
    HyperParameter("broadcast", "int", 32, trunk=True),
    HyperParameter("feature_mlp", "ints", (128,), trunk=True),
    HyperParameter("global_dim", "int", 256, minimum=1, key="features_dim", trunk=True),
    HyperParameter("pi", "ints", (128,)),
    HyperParameter("vf", "ints", (128,)),
    HyperParameter("query_hidden", "int", 64, minimum=1),
    HyperParameter("territory", "bool", False, trunk=True),
    HyperParameter("claim_query", "bool", False, trunk=True),
)
"""The network's hyper-parameters in the order a saved model lists them: ``cnn_channels`` (the
3x3 convolutions), ``broadcast`` (feature embedding broadcast over the grid), ``feature_mlp``,
``global_dim`` (the global vector; ``features_dim`` in ``[policy]``), ``pi`` / ``vf`` (MLPs on
the global vector), ``query_hidden`` (the placement query MLP), ``territory`` (territory
planes), ``claim_query`` (claim logits from the claimable plot's kind)."""
