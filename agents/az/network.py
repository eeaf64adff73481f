"""The network of the ``az`` agent: a masked policy over the flat action space and a value per
seat, read from the environment's flat observation (:mod:`moonriver_env.moonriver.encoding`).

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

from dataclasses import asdict, dataclass

import numpy as np
import torch
from torch import nn

from agents.networks.spatial import SpatialHeads, held_onehot, mlp
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameConfig
from moonriver_env.moonriver.rules.actions import ActionLayout

VALUE_OUTPUTS = 2  # outcome, margin
# The margin output and target are in units of this many points (a typical 2-player lead).
MARGIN_SCALE = 50.0


@dataclass(frozen=True)
class NetShape:
    """The hyper-parameters that fix a network's weights (stored in every checkpoint; their
    defaults live in one place, ``[net]`` of ``training/configs/az_default.toml``)."""

    num_players: int
    """The game's players (with ``mode``, its observation and action layout)."""
    mode: str
    channels: int
    """Width of the convolutional map ``S``."""
    blocks: int
    """Residual blocks after the stem (two 3x3 convolutions each)."""
    broadcast: int
    """Width of the feature embedding broadcast over the grid."""
    global_dim: int
    """Width of the global vector ``g``."""
    query_hidden: int
    """Hidden width of the placement query MLP."""
    value_hidden: int
    """Hidden width of the value MLP."""
    game: str = "moonriver"
    """The game's name (models of other games are refused)."""

    def to_dict(self) -> dict[str, int | str]:
        """The fields as a plain dict (what a checkpoint stores)."""
        return asdict(self)


class _Residual(nn.Module):
    """Two 3x3 convolutions with a skip connection."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.conv2(torch.relu(self.conv1(x))))


class AzNet(SpatialHeads):
    """Policy and value network of the ``az`` agent (module docstring).

    ``forward(obs)`` returns ``(logits, value)``: unmasked logits ``(B, num_actions)`` and the
    value ``(B, n, 2)``; :meth:`value` computes the value alone (the search's afterstates).
    """

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
        self.feature_mlp = mlp([nf, shape.global_dim])
        self.global_net = mlp([2 * ch + shape.global_dim, shape.global_dim])
        # policy head (agents.networks.spatial, as the MaskablePPO policy's)
        self.register_buffer(
            "positions", torch.arange(self.max_held, dtype=torch.float32), persistent=False
        )
        self.segments = list(layout.segments)
        self.build_heads(layout, ch, shape.global_dim, self.num_kinds, shape.query_hidden, False)
        # value head
        self.value_head = mlp(
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
        """``(B, max_held, kinds)``: the kind of each held position of the observer."""
        return held_onehot(features, self.held_start, self.num_kinds, self.positions)

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        s, g, features = self.trunk(obs)
        pieces = self.spatial_logits(s, g, self.held_onehot(features))
        logits = torch.cat([pieces[name] for name in self.segments], dim=1)
        return logits, self._value(g)
