"""Territory planes computed inside the network from the observation's planes.

A territory (RULES.md section 5, scoring) is a set of orthogonally connected plots of one
landscape; what a placement is worth depends on the size, cows and open frontier of the
territories it joins, and an empty region of odd size can never be filled with dominoes
(the heuristic teacher's evaluation, :mod:`moonriver_env.moonriver.agents.evaluation`, is
built on these). A stack of 3x3 convolutions only sees a few cells around each cell, so it cannot measure a territory
that winds across the 5-column ranch; :class:`TerritoryPlanes` computes these connected-
component quantities exactly, per ranch and cell, from the landscape / empty / cow channels
(:data:`moonriver_env.moonriver.encoding.RANCH_CHANNEL_NAMES`), with no change to the observation:

====================  =====================================================================
``size``              plots in the cell's territory / 10 (0 on empty cells)
``cows``              cows in the cell's territory / 10
``score``             size x cows / 100 (what the territory scores now)
``frontier``          empty cells orthogonally next to the territory / 10
``odd_empty``         1 on an empty cell whose empty region has an odd number of cells
====================  =====================================================================

Components are found by label propagation (each cell starts with its own number; every
step takes the largest number among the orthogonal neighbours of the same landscape) until
nothing changes, at most ``rows x 5`` steps.
"""

from __future__ import annotations

import torch
from torch import nn

from moonriver_env.moonriver.encoding import RANCH_CHANNEL_NAMES, RANCH_CHANNELS

TERRITORY_CHANNELS = ("size", "cows", "score", "frontier", "odd_empty")
_LAND = [i for i, name in enumerate(RANCH_CHANNEL_NAMES) if name.startswith("land_")]
_EMPTY = RANCH_CHANNEL_NAMES.index("empty")
_COWS = RANCH_CHANNEL_NAMES.index("cows")


class TerritoryPlanes(nn.Module):
    """``(B, ranches * 29, rows, 5)`` planes -> ``(B, ranches * 5, rows, 5)`` territory planes
    (ranch ``k``'s channels at ``k * 5 + i``, ``i`` from :data:`TERRITORY_CHANNELS`)."""

    def __init__(self, ranches: int, rows: int, cols: int = 5) -> None:
        super().__init__()
        self.ranches, self.rows, self.cols = ranches, rows, cols
        self.cells = cells = rows * cols
        # neighbours[d * cells + c]: the cell next to c in direction d, or ``cells`` (a padding
        # column that is never part of a region) off the grid
        neighbours = torch.full((4, cells), cells, dtype=torch.long)
        for c in range(cells):
            r, q = divmod(c, cols)
            for d, (dr, dq) in enumerate(((1, 0), (0, 1), (-1, 0), (0, -1))):
                if 0 <= r + dr < rows and 0 <= q + dq < cols:
                    neighbours[d, c] = (r + dr) * cols + q + dq
        self.register_buffer("neighbours", neighbours.reshape(-1))
        self.register_buffer("land_numbers", torch.arange(len(_LAND), dtype=torch.float32))
        self.register_buffer("numbers", torch.arange(1, cells + 1, dtype=torch.float32))

    def components(self, kind: torch.Tensor) -> torch.Tensor:
        """``(N, cells)`` component numbers (the largest cell number + 1 in the component;
        0 where ``kind`` is negative) of the regions of equal ``kind`` (``(N, cells)``, long:
        a landscape, or one kind for empty cells)."""
        n, cells = kind.shape
        pad = torch.full((n, 1), -1, dtype=kind.dtype, device=kind.device)
        nk = torch.cat([kind, pad], dim=1).index_select(1, self.neighbours).view(n, 4, cells)  # type: ignore[arg-type]
        joined = ((nk == kind[:, None, :]) & (kind[:, None, :] >= 0)).float()
        label = self.numbers.expand(n, -1) * (kind >= 0).float()  # type: ignore[operator]
        zero = torch.zeros(n, 1, dtype=label.dtype, device=label.device)
        for _ in range(cells):
            near = torch.cat([label, zero], dim=1).index_select(1, self.neighbours)  # type: ignore[arg-type]
            near = near.view(n, 4, cells)
            new = torch.maximum(label, (near * joined).amax(dim=1))
            if torch.equal(new, label):
                break
            label = new
        return label

    def forward(self, planes: torch.Tensor) -> torch.Tensor:
        b = planes.shape[0]
        n = b * self.ranches
        x = planes.reshape(n, RANCH_CHANNELS, self.cells)
        land = x[:, _LAND]  # one-hot in an observation; thresholded so any input is safe
        is_plot = (land.sum(dim=1) > 0.5).to(x.dtype)
        is_empty = (x[:, _EMPTY] > 0.5).to(x.dtype) * (1 - is_plot)
        # region kind: the landscape, len(_LAND) for empty cells, -1 for neither
        kind = torch.einsum("nlc,l->nc", land, self.land_numbers) + len(_LAND) * is_empty
        kind = torch.where(is_plot + is_empty > 0.5, kind.round().long(), -1)
        ids = self.components(kind).long()  # 1..cells, 0: neither plot nor empty
        per_id = torch.zeros(n, self.cells + 1, dtype=x.dtype, device=x.device)
        size = per_id.scatter_add(1, ids, torch.ones_like(is_plot)).gather(1, ids)
        t_size = size * is_plot
        t_cows = per_id.scatter_add(1, ids, x[:, _COWS] * is_plot).gather(1, ids) * is_plot
        # frontier: the empty cells with a neighbour in the territory, counted once each
        pad = torch.zeros(n, 1, dtype=ids.dtype, device=ids.device)
        near = torch.cat([ids * is_plot.long(), pad], dim=1).index_select(1, self.neighbours)  # type: ignore[arg-type]
        touched = torch.zeros(n, self.cells, self.cells + 1, dtype=x.dtype, device=x.device)
        touched.scatter_(2, near.view(n, 4, self.cells).transpose(1, 2), 1.0)
        touched[:, :, 0] = 0.0  # no territory
        by_id = (touched * is_empty[:, :, None]).sum(dim=1)
        frontier = by_id.gather(1, ids) * is_plot
        odd = torch.remainder(size, 2.0) * is_empty
        out = torch.stack(
            [t_size / 10, t_cows / 10, t_size * t_cows / 100, frontier / 10, odd], dim=1
        )
        return out.reshape(b, self.ranches * len(TERRITORY_CHANNELS), self.rows, self.cols)
