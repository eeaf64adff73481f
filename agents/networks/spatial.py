"""The spatial policy head shared by the MaskablePPO policy (:mod:`agents.networks.policy`) and
the ``az`` network (:mod:`agents.az.network`): logits in the flat action order read off a
convolutional map ``S`` (channels x cells) and a context vector ``g``. Torch alone (no RL
library), so that an ``az`` model plays with torch only.

* placements ``place i+j <cell> <dir>``: a query vector from the plot kinds held in positions
  ``i`` and ``j``, the direction and ``g``, dotted with ``S[cell]`` (plus a per-cell,
  per-direction bias);
* skull / Cowboy move / thief steal / bonus tile: 1x1 convolutions of ``S``;
* every other segment (claims, stop, discards, recruits, ...): a linear map of ``g``.

What is learnt about a cell carries over to every cell and every pair of held plots.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from moonriver_env.moonriver.rules.actions import ActionLayout, Segment

# Cell-indexed segments read off ``S`` by a 1x1 convolution: the segment's axes its output
# channels stand for (the other axis is ``cell``); sizes come from the layout.
CELL_HEADS: dict[str, tuple[str, ...]] = {
    "skull": (),
    "cowboy_move": ("direction",),
    "thief_steal": ("target",),
    "bonus_place": ("tile", "tile_side"),
}
SPATIAL_SEGMENTS = ("place", *CELL_HEADS)


def mlp(
    sizes: Sequence[int], act: type[nn.Module] = nn.ReLU, last_act: bool = True
) -> nn.Sequential:
    """Linear layers of ``sizes`` with ``act`` between them (and after the last one when
    ``last_act``)."""
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if last_act or i < len(sizes) - 2:
            layers.append(act())
    return nn.Sequential(*layers)


def in_id_order(t: torch.Tensor, axes: Sequence[str], segment: Segment) -> torch.Tensor:
    """Flatten ``t`` (batch, then one dimension per name of ``axes``) in the id order of
    ``segment`` (its axes, row-major)."""
    order = list(axes)
    return t.permute(0, *(1 + order.index(axis) for axis in segment.axes)).reshape(t.shape[0], -1)


def held_onehot(
    features: torch.Tensor, held_start: int, num_kinds: int, positions: torch.Tensor
) -> torch.Tensor:
    """``(B, max_held, kinds)``: the kind of each held position of the observing seat, decoded
    from its ``held`` counts (``features[:, held_start:held_start + num_kinds]``; held plots are
    numbered in kind order, so the positions follow from the counts); ``positions`` is
    ``arange(max_held)`` as floats."""
    counts = features[:, held_start : held_start + num_kinds].round()
    upper = counts.cumsum(dim=1)  # (B, K): positions < upper[k] hold kinds <= k
    lower = upper - counts
    p = positions.view(1, -1, 1)
    return ((lower.unsqueeze(1) <= p) & (p < upper.unsqueeze(1))).float()


class SpatialHeads(nn.Module):
    """The spatial head's layers (module docstring), built by :meth:`build_heads` and applied
    by :meth:`spatial_logits`; a base of the networks that use it, so that their parameters
    keep their names (``query``, ``query_context``, ``place_bias``, ``cell_heads``,
    ``flat_head``)."""

    pair_first: torch.Tensor
    pair_second: torch.Tensor
    directions: torch.Tensor

    def build_heads(
        self, layout: ActionLayout, channels: int, context_dim: int, num_kinds: int,
        query_hidden: int, persistent: bool = True,
    ) -> None:  # fmt: skip
        """The layers for ``layout``: ``S`` has ``channels`` channels, ``g`` ``context_dim``
        values; ``persistent``: the index buffers are saved with the weights."""
        self.by_name = layout.by_name
        self.head_channels = channels
        pairs = torch.tensor(layout.pairs, dtype=torch.long)
        self.register_buffer("pair_first", pairs[:, 0].clone(), persistent=persistent)
        self.register_buffer("pair_second", pairs[:, 1].clone(), persistent=persistent)
        self.register_buffer("directions", torch.eye(4), persistent=persistent)
        self.query = mlp([2 * num_kinds + 4, query_hidden, channels], last_act=False)
        self.query_context = nn.Linear(context_dim, channels)
        self.place_bias = nn.Conv1d(channels, 4, 1)  # per cell and direction, shared by pairs
        self.cell_heads = nn.ModuleDict()
        self.cell_shapes: dict[str, tuple[int, ...]] = {}
        for name, axes in CELL_HEADS.items():
            seg = layout.by_name.get(name)
            if seg is None:
                continue
            shape = tuple(seg.shape[seg.axes.index(axis)] for axis in axes)
            self.cell_shapes[name] = shape
            self.cell_heads[name] = nn.Conv1d(channels, int(np.prod(shape, dtype=np.int64)), 1)
        self.flat_names = [name for name in layout.segments if name not in SPATIAL_SEGMENTS]
        self.flat_sizes = [layout.segments[name][1] for name in self.flat_names]
        self.flat_head = nn.Linear(context_dim, sum(self.flat_sizes))

    def spatial_logits(
        self, s: torch.Tensor, g: torch.Tensor, held: torch.Tensor
    ) -> dict[str, torch.Tensor]:
        """The logits of every segment by name (each in its id order) from the map ``s``
        ``(B, channels, cells)``, the context ``g`` and the held kinds ``(B, max_held,
        kinds)``."""
        b, _, cells = s.shape
        # placements: (B, P, 4, ch) queries . (B, ch, cells) -> (B, P, cells, 4)
        kinds = torch.cat([held[:, self.pair_first], held[:, self.pair_second]], dim=2)
        npairs = kinds.shape[1]
        q_in = torch.cat(
            [
                kinds[:, :, None, :].expand(-1, -1, 4, -1),
                self.directions[None, None].expand(b, npairs, -1, -1),
            ],
            dim=3,
        )
        q = self.query(q_in) + self.query_context(g)[:, None, None, :]
        place = torch.einsum("bpdc,bcx->bpxd", q, s) / float(np.sqrt(self.head_channels))
        place = place + self.place_bias(s).transpose(1, 2)[:, None]  # (B,1,cells,4)
        pieces = {"place": in_id_order(place, ("pair", "cell", "direction"), self.by_name["place"])}
        for name, head in self.cell_heads.items():
            out = head(s).reshape(b, *self.cell_shapes[name], cells)
            pieces[name] = in_id_order(out, (*CELL_HEADS[name], "cell"), self.by_name[name])
        flat = self.flat_head(g)
        for name, part in zip(
            self.flat_names, torch.split(flat, self.flat_sizes, dim=1), strict=True
        ):
            pieces[name] = part
        return pieces
