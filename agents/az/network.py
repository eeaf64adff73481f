"""The network of the ``az`` agent: a masked policy over the flat action space and a value per
seat, read from the environment's flat observation (:mod:`moonriver_env.encoding`).

Layout (``B`` positions, ``n`` seats, the ranch grid ``rows x 5`` = ``cells``)::

    planes (B, n*29, rows, 5) ++ embed(features) broadcast over the grid
      -> 3x3 conv stem -> ``blocks`` residual blocks  -> S  (B, channels, cells)
    g = MLP(mean-pool S ++ max-pool S ++ MLP(features))   (B, global_dim)

    policy logits, in the flat id order of the config's ActionLayout:
      place <pair> <cell> <dir>   query(kinds of the two held plots, direction, g) . S[cell]
      skull / cowboy_move / thief_steal / bonus_place   1x1 convolutions of S, per cell
      every other segment (claims, stop, discards, recruits, ...)   a linear map of g
    value (B, n, 2): for each seat, from the observer on (own first, then the next seats):
      [:, :, 0] outcome in [-1, 1] (tanh; +1 a win, -1 a loss, a shared win in between)
      [:, :, 1] final score margin over the best other seat, in ``margin_scale`` points

The spatial factorisation is the one of the MaskablePPO policy's spatial head: what is learnt
about a cell carries over to every cell and every pair of held plots. The network is plain
``torch.nn`` (no RL library) so that a saved model plays with torch alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from moonriver_env.encoding import ObservationEncoder
from moonriver_env.rules import GameConfig
from moonriver_env.rules.actions import ActionLayout, Segment

# Cell-indexed segments read off S by a 1x1 convolution: the axes its output channels stand
# for (the remaining axis is ``cell``).
CELL_HEADS: dict[str, tuple[str, ...]] = {
    "skull": (),
    "cowboy_move": ("direction",),
    "thief_steal": ("target",),
    "bonus_place": ("tile", "tile_side"),
}
SPATIAL_SEGMENTS = ("place", *CELL_HEADS)
VALUE_OUTPUTS = 2  # outcome, margin
# The margin output and target are in units of this many points (a typical 2-player lead).
MARGIN_SCALE = 50.0


@dataclass(frozen=True)
class NetShape:
    """The hyper-parameters that fix a network's weights (stored in every checkpoint).

    Attributes:
        num_players, mode: the game (its observation and action layout).
        game: the game's name (``"moonriver"``; models of other games are refused).
        channels: width of the convolutional map ``S``.
        blocks: residual blocks after the stem (two 3x3 convolutions each).
        broadcast: width of the feature embedding broadcast over the grid.
        global_dim: width of the global vector ``g``.
        query_hidden: hidden width of the placement query MLP.
        value_hidden: hidden width of the value MLP.
    """

    num_players: int = 2
    mode: str = "base"
    channels: int = 48
    blocks: int = 2
    broadcast: int = 16
    global_dim: int = 128
    query_hidden: int = 64
    value_hidden: int = 128
    game: str = "moonriver"

    def to_dict(self) -> dict[str, int | str]:
        """The fields as a plain dict (what a checkpoint stores)."""
        return asdict(self)


def _mlp(sizes: Sequence[int], last_act: bool = True) -> nn.Sequential:
    layers: list[nn.Module] = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if last_act or i < len(sizes) - 2:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class _Residual(nn.Module):
    """Two 3x3 convolutions with a skip connection."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


def _in_id_order(t: torch.Tensor, axes: Sequence[str], segment: Segment) -> torch.Tensor:
    """Flatten ``t`` (batch, then one dimension per name of ``axes``) in the id order of
    ``segment`` (its axes, row-major)."""
    order = list(axes)
    return t.permute(0, *(1 + order.index(axis) for axis in segment.axes)).reshape(t.shape[0], -1)


class AzNet(nn.Module):
    """Policy and value network of the ``az`` agent (module docstring).

    ``forward(obs)`` returns ``(logits, value)``: unmasked logits ``(B, num_actions)`` and the
    value ``(B, n, 2)``; :meth:`value` computes the value alone (the search's afterstates).
    """

    pair_first: torch.Tensor
    pair_second: torch.Tensor
    directions: torch.Tensor
    positions: torch.Tensor

    def __init__(self, shape: NetShape) -> None:
        super().__init__()
        if shape.game != "moonriver":
            raise ValueError(
                f"game: the az network reads Moon River observations, not {shape.game!r}"
            )
        self.shape = shape
        config = GameConfig(num_players=shape.num_players, mode=shape.mode)
        enc = ObservationEncoder(config)
        layout: ActionLayout = config.layout
        self.n = enc.n
        self.obs_size = enc.flat_size
        self.plane_size = int(np.prod(enc.plane_shape))
        self.plane_shape = tuple(int(x) for x in enc.plane_shape)
        self.cells = enc.rows * 5
        self.num_kinds = enc.num_kinds
        self.max_held = layout.held
        self.held_start = enc.feature_slices["held"].start  # own seat's kinds first
        self.num_actions = layout.num_actions
        ch = shape.channels
        nf = enc.num_features
        self.embed = nn.Sequential(nn.Linear(nf, shape.broadcast), nn.ReLU())
        self.stem = nn.Sequential(
            nn.Conv2d(self.plane_shape[0] + shape.broadcast, ch, 3, padding=1), nn.ReLU()
        )
        self.blocks = nn.Sequential(*(_Residual(ch) for _ in range(shape.blocks)))
        self.feature_mlp = _mlp([nf, shape.global_dim])
        self.global_net = _mlp([2 * ch + shape.global_dim, shape.global_dim])
        # policy head
        pairs = torch.tensor(layout.pairs, dtype=torch.long)
        self.register_buffer("pair_first", pairs[:, 0].clone(), persistent=False)
        self.register_buffer("pair_second", pairs[:, 1].clone(), persistent=False)
        self.register_buffer("directions", torch.eye(4), persistent=False)
        self.register_buffer(
            "positions", torch.arange(self.max_held, dtype=torch.float32), persistent=False
        )
        self.query = _mlp([2 * self.num_kinds + 4, shape.query_hidden, ch], last_act=False)
        self.query_context = nn.Linear(shape.global_dim, ch)
        self.place_bias = nn.Conv1d(ch, 4, 1)
        self.segments = list(layout.segments)
        self.by_name = layout.by_name
        self.cell_heads = nn.ModuleDict()
        self.cell_shapes: dict[str, tuple[int, ...]] = {}
        for name, axes in CELL_HEADS.items():
            seg = layout.by_name.get(name)
            if seg is None:
                continue
            sizes = tuple(seg.shape[seg.axes.index(axis)] for axis in axes)
            self.cell_shapes[name] = sizes
            self.cell_heads[name] = nn.Conv1d(ch, int(np.prod(sizes, dtype=np.int64)), 1)
        self.flat_names = [name for name in self.segments if name not in SPATIAL_SEGMENTS]
        self.flat_sizes = [layout.segments[name][1] for name in self.flat_names]
        self.flat_head = nn.Linear(shape.global_dim, sum(self.flat_sizes))
        # value head
        self.value_head = _mlp(
            [shape.global_dim, shape.value_hidden, self.n * VALUE_OUTPUTS], last_act=False
        )
        last_query = self.query[-1]
        assert isinstance(last_query, nn.Linear)
        for layer in (last_query, self.query_context, self.flat_head, self.place_bias):
            nn.init.normal_(layer.weight, std=0.01)
            assert layer.bias is not None
            nn.init.zeros_(layer.bias)

    def trunk(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """``(S, g, features)`` of a batch of flat observations."""
        b = obs.shape[0]
        planes = obs[:, : self.plane_size].reshape(b, *self.plane_shape)
        features = obs[:, self.plane_size :]
        e = self.embed(features)[:, :, None, None].expand(-1, -1, *self.plane_shape[1:])
        x = self.blocks(self.stem(torch.cat([planes, e], dim=1)))
        s = x.reshape(b, x.shape[1], self.cells)
        pooled = torch.cat([s.mean(dim=2), s.amax(dim=2)], dim=1)
        g = self.global_net(torch.cat([pooled, self.feature_mlp(features)], dim=1))
        return s, g, features

    def _value(self, g: torch.Tensor) -> torch.Tensor:
        v = self.value_head(g).reshape(g.shape[0], self.n, VALUE_OUTPUTS)
        return torch.stack([torch.tanh(v[..., 0]), v[..., 1]], dim=-1)

    def value(self, obs: torch.Tensor) -> torch.Tensor:
        """The value ``(B, n, 2)`` alone."""
        return self._value(self.trunk(obs)[1])

    def held_onehot(self, features: torch.Tensor) -> torch.Tensor:
        """``(B, max_held, kinds)``: the kind of each held position (held plots are numbered
        in kind order, so the positions follow from the counts)."""
        counts = features[:, self.held_start : self.held_start + self.num_kinds].round()
        upper = counts.cumsum(dim=1)
        lower = upper - counts
        p = self.positions.view(1, -1, 1)
        return ((lower.unsqueeze(1) <= p) & (p < upper.unsqueeze(1))).float()

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        s, g, features = self.trunk(obs)
        b = obs.shape[0]
        held = self.held_onehot(features)
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
        place = torch.einsum("bpdc,bcx->bpxd", q, s) / float(np.sqrt(s.shape[1]))
        place = place + self.place_bias(s).transpose(1, 2)[:, None]
        pieces = {
            "place": _in_id_order(place, ("pair", "cell", "direction"), self.by_name["place"])
        }
        for name, head in self.cell_heads.items():
            out = head(s).reshape(b, *self.cell_shapes[name], self.cells)
            pieces[name] = _in_id_order(out, (*CELL_HEADS[name], "cell"), self.by_name[name])
        flat = self.flat_head(g)
        for name, part in zip(
            self.flat_names, torch.split(flat, self.flat_sizes, dim=1), strict=True
        ):
            pieces[name] = part
        logits = torch.cat([pieces[name] for name in self.segments], dim=1)
        return logits, self._value(g)
