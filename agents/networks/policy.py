"""A MaskablePPO policy with a spatial action head for Moon River (``policy.head = "spatial"``).

The flat action space numbers most actions by a cell of the ranch grid (placements: pair x cell
x direction; skulls, Cowboy moves, thefts, bonus tiles: by cell). A plain linear head has to learn
that mapping for every one of the ~1,700 ids separately; here the logits of the cell-indexed
segments are read off the convolutional map at that cell, so what is learnt about a cell
transfers to every cell:

* trunk: the planes (``n * 29`` channels) plus a learnt embedding of the feature vector
  broadcast over the grid (and, with ``territory=True``, the territory planes of
  :mod:`agents.networks.territory`: size, cows, score and open frontier of each cell's territory,
  odd empty regions, computed from the planes) -> 3x3 convolutions (padding 1) -> a map ``S``
  (channels x cells);
* global vector ``g``: mean- and max-pooled ``S`` + an MLP over the features;
* placements ``place i+j <cell> <dir>``: a query vector from the plot kinds held in positions
  ``i`` and ``j`` (decoded exactly from the ``held`` feature: held positions are the held plots
  sorted by kind), the direction and ``g``, dotted with ``S[cell]``;
* skull / Cowboy move / thief steal / bonus tile: 1x1 convolutions of ``S`` (one channel per
  direction, target seat or tile side);
* every other segment (claims, stop, discards, recruits, Desperado, skips) and the value: MLPs
  on ``g``.

The policy is an ordinary ``MaskableActorCriticPolicy`` subclass: ``MaskablePPO(MoonRiverPolicy,
env, policy_kwargs=dict(num_players=2, mode="base"))``; it saves and loads with the model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import torch
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
from torch import nn

from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameConfig, Phase
from moonriver_env.moonriver.rules.actions import ActionLayout

from .hyperparameters import NETWORK
from .spatial import SpatialHeads, held_onehot, mlp
from .territory import TERRITORY_CHANNELS, TerritoryPlanes


class SpatialExtractor(BaseFeaturesExtractor):
    """Trunk of :class:`MoonRiverPolicy`: returns ``cat(S.flatten(), g, held)`` where ``S`` is the
    conv map (``channels x cells``), ``g`` the global vector and ``held`` the one-hot plot kind of
    each held position of the observing seat (``max_held x kinds``)."""

    def __init__(
        self,
        observation_space: Any,
        *,
        num_players: int,
        mode: str,
        cnn_channels: Sequence[int],
        broadcast: int,
        feature_mlp: Sequence[int],
        global_dim: int,
        territory: bool,
        claim_query: bool,
    ) -> None:
        """The trunk's sizes, all given by :class:`MoonRiverPolicy` (the one home of their
        defaults)."""
        enc = ObservationEncoder(GameConfig(num_players=num_players, mode=mode))
        ch = int(cnn_channels[-1])
        cells = enc.rows * 5
        held = enc.max_held * enc.num_kinds
        # claim_query: the kind one-hot (kinds + "none") of each column position a claim takes
        claims = enc.column_size * (enc.num_kinds + 1) if claim_query else 0
        super().__init__(observation_space, ch * cells + global_dim + held + claims)
        self.claim_query = bool(claim_query)
        self.column_size = enc.column_size
        fs = enc.feature_slices
        self.setup_index = fs["phase"].start + int(Phase.SETUP_CLAIM)
        self.current_column, self.next_column = fs["current_column"], fs["next_column"]
        obs_dim = int(np.prod(observation_space.shape))
        if obs_dim != enc.plane_size + enc.num_features:
            raise ValueError(
                f"num_players: the observation has {obs_dim} values, a {num_players}-player "
                f"{mode} game {enc.plane_size + enc.num_features}"
            )
        self.plane_shape = tuple(enc.plane_shape)
        self.plane_size = int(enc.plane_size)
        self.cells = cells
        self.channels = ch
        self.global_dim = global_dim
        self.max_held = enc.max_held
        self.num_kinds = enc.num_kinds
        held_slice = enc.feature_slices["held"]
        self.held_start = held_slice.start  # own seat first: the first num_kinds values
        self.broadcast = int(broadcast)
        in_ch = self.plane_shape[0] + self.broadcast
        self.territory: TerritoryPlanes | None = None
        if territory:
            self.territory = TerritoryPlanes(num_players, enc.rows)
            in_ch += num_players * len(TERRITORY_CHANNELS)
        if self.broadcast:
            self.embed = nn.Sequential(nn.Linear(enc.num_features, self.broadcast), nn.ReLU())
        convs: list[nn.Module] = []
        for out_ch in cnn_channels:
            convs += [nn.Conv2d(in_ch, int(out_ch), 3, padding=1), nn.ReLU()]
            in_ch = int(out_ch)
        self.cnn = nn.Sequential(*convs)
        self.feature_mlp = mlp([enc.num_features, *feature_mlp]) if feature_mlp else nn.Identity()
        fdim = int(feature_mlp[-1]) if feature_mlp else enc.num_features
        self.global_net = nn.Sequential(nn.Linear(2 * ch + fdim, global_dim), nn.ReLU())
        self.register_buffer("positions", torch.arange(self.max_held, dtype=torch.float32))

    def held_onehot(self, features: torch.Tensor) -> torch.Tensor:
        """``(B, max_held, kinds)``: the kind of each held position (plots sorted by kind)."""
        return held_onehot(features, self.held_start, self.num_kinds, self.positions)  # type: ignore[arg-type]

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        b = observations.shape[0]
        planes = observations[:, : self.plane_size].reshape(b, *self.plane_shape)
        features = observations[:, self.plane_size :]
        parts = [planes]
        if self.territory is not None:
            parts.append(self.territory(planes))
        if self.broadcast:
            parts.append(
                self.embed(features)[:, :, None, None].expand(-1, -1, *self.plane_shape[1:])
            )
        x = torch.cat(parts, dim=1) if len(parts) > 1 else planes
        s = self.cnn(x).reshape(b, self.channels, self.cells)
        pooled = torch.cat([s.mean(dim=2), s.amax(dim=2)], dim=1)
        g = self.global_net(torch.cat([pooled, self.feature_mlp(features)], dim=1))
        parts = [s.reshape(b, -1), g, self.held_onehot(features).reshape(b, -1)]
        if self.claim_query:  # setup claims take from the current column, selections the next
            setup = features[:, self.setup_index : self.setup_index + 1]
            cur, nxt = features[:, self.current_column], features[:, self.next_column]
            parts.append(setup * cur + (1 - setup) * nxt)
        return torch.cat(parts, dim=1)


class SpatialLatent(nn.Module):
    """The ``mlp_extractor``: the actor gets ``cat(S, pi_mlp(g), held)``, the critic
    ``vf_mlp(g)``."""

    def __init__(self, extractor: SpatialExtractor, pi: Sequence[int], vf: Sequence[int]) -> None:
        super().__init__()
        self.s_dim = extractor.channels * extractor.cells
        self.g_dim = extractor.global_dim
        self.pi_net = mlp([self.g_dim, *pi]) if pi else nn.Identity()
        self.vf_net = mlp([self.g_dim, *vf]) if vf else nn.Identity()
        self.pi_dim = int(pi[-1]) if pi else self.g_dim
        # held kinds, then (claim_query) the claimable kinds: passed through to the head
        self.held_dim = extractor.features_dim - self.s_dim - self.g_dim
        self.latent_dim_pi = self.s_dim + self.pi_dim + self.held_dim
        self.latent_dim_vf = int(vf[-1]) if vf else self.g_dim

    def _parts(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        s = features[:, : self.s_dim]
        g = features[:, self.s_dim : self.s_dim + self.g_dim]
        return s, g, features[:, self.s_dim + self.g_dim :]

    def forward(self, features: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        s, g, held = self._parts(features)
        return torch.cat([s, self.pi_net(g), held], dim=1)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.vf_net(self._parts(features)[1])


class SpatialActionHead(SpatialHeads):
    """Logits in the flat action order from the actor latent of :class:`SpatialLatent`."""

    def __init__(
        self, layout: ActionLayout, channels: int, cells: int, pi_dim: int, num_kinds: int,
        query_hidden: int = 64, claim_query: bool = False,
    ) -> None:  # fmt: skip
        super().__init__()
        self.claim_query = bool(claim_query)
        self.column_size = layout.column
        if self.claim_query:  # a claim's logit: its plot kind . the map (best cell) + an MLP
            self.claim_q = mlp([num_kinds + 1, query_hidden, channels], last_act=False)
            self.claim_context = nn.Linear(pi_dim, channels)
            self.claim_mlp = mlp([pi_dim + num_kinds + 1, query_hidden, 1], last_act=False)
        self.layout = layout
        self.channels, self.cells, self.pi_dim = channels, cells, pi_dim
        self.max_held, self.num_kinds = layout.held, num_kinds
        self.segments = list(layout.segments.items())  # (name, (start, size)) in id order
        self.build_heads(layout, channels, pi_dim, num_kinds, query_hidden)
        self.num_actions = layout.num_actions

    def output_layers(self) -> list[nn.Module]:
        """The layers producing logits (initialised with a small gain)."""
        return [
            self.query[-1],
            self.query_context,
            self.place_bias,
            *self.cell_heads.values(),
            self.flat_head,
            *(
                [self.claim_q[-1], self.claim_context, self.claim_mlp[-1]]
                if self.claim_query
                else []
            ),
        ]

    def forward(self, latent: torch.Tensor) -> torch.Tensor:
        b = latent.shape[0]
        s_dim = self.channels * self.cells
        s = latent[:, :s_dim].reshape(b, self.channels, self.cells)
        g = latent[:, s_dim : s_dim + self.pi_dim]
        held_end = s_dim + self.pi_dim + self.max_held * self.num_kinds
        held = latent[:, s_dim + self.pi_dim : held_end].reshape(b, self.max_held, self.num_kinds)
        pieces = self.spatial_logits(s, g, held)
        if self.claim_query:
            kinds = latent[:, held_end:].reshape(b, self.column_size, self.num_kinds + 1)
            q = self.claim_q(kinds) + self.claim_context(g)[:, None, :]  # (B, positions, ch)
            fit = torch.einsum("bpc,bcx->bpx", q, s).amax(dim=2) / float(np.sqrt(self.channels))
            both = torch.cat([g[:, None, :].expand(-1, self.column_size, -1), kinds], dim=2)
            pieces["claim"] = pieces["claim"] + fit + self.claim_mlp(both).squeeze(2)
        return torch.cat([pieces[name] for name, _ in self.segments], dim=1)


class MoonRiverPolicy(MaskableActorCriticPolicy):
    """``MaskableActorCriticPolicy`` with :class:`SpatialExtractor` and
    :class:`SpatialActionHead`.

    Extra keyword arguments: ``num_players``, ``mode`` (the game) and the network's
    hyper-parameters (:data:`agents.networks.hyperparameters.NETWORK`: names, kinds, defaults).
    A model saved before ``territory`` existed loads with ``territory=False``, the network it was
    built with.
    """

    def __init__(
        self,
        observation_space: Any,
        action_space: Any,
        lr_schedule: Any,
        num_players: int = 2,
        mode: str = "base",
        **kwargs: Any,
    ) -> None:
        self.game = {"num_players": int(num_players), "mode": str(mode)}
        self.head_kwargs = {p.name: p.convert(kwargs.pop(p.name, p.default)) for p in NETWORK}
        kwargs["features_extractor_class"] = SpatialExtractor
        kwargs["features_extractor_kwargs"] = {
            **self.game,
            **{p.name: p.convert(self.head_kwargs[p.name]) for p in NETWORK if p.trunk},
        }
        kwargs.pop("net_arch", None)
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)

    def _get_constructor_parameters(self) -> dict[str, Any]:
        data = super()._get_constructor_parameters()
        for key in ("features_extractor_class", "features_extractor_kwargs", "net_arch"):
            data.pop(key, None)
        data.update(self.game)
        data.update(self.head_kwargs)
        return data

    def _build_mlp_extractor(self) -> None:
        assert isinstance(self.features_extractor, SpatialExtractor)
        self.mlp_extractor = SpatialLatent(  # type: ignore[assignment]
            self.features_extractor,
            self.head_kwargs["pi"],  # type: ignore[arg-type]
            self.head_kwargs["vf"],  # type: ignore[arg-type]
        )

    def _build(self, lr_schedule: Any) -> None:
        self._build_mlp_extractor()
        ext = self.features_extractor
        assert isinstance(ext, SpatialExtractor)
        layout = GameConfig(**self.game).layout  # type: ignore[arg-type]
        if layout.num_actions != self.action_space.n:  # type: ignore[attr-defined]
            raise ValueError(
                f"num_players: a {self.game} game has {layout.num_actions} actions, the env {self.action_space.n}"  # type: ignore[attr-defined]
            )
        self.action_net = SpatialActionHead(
            layout, ext.channels, ext.cells, self.mlp_extractor.pi_dim, ext.num_kinds,  # type: ignore[arg-type]
            self.head_kwargs["query_hidden"], self.head_kwargs["claim_query"],  # type: ignore[arg-type]
        )  # fmt: skip
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        if self.ortho_init:
            for module, gain in (
                (self.features_extractor, np.sqrt(2)),
                (self.mlp_extractor, np.sqrt(2)),
                (self.action_net, np.sqrt(2)),
                (self.value_net, 1.0),
            ):
                module.apply(lambda m, g=gain: self.init_weights(m, gain=g))  # type: ignore[misc]
            for layer in self.action_net.output_layers():
                _small_init(layer)
        self.optimizer = self.optimizer_class(  # type: ignore[call-arg]
            self.parameters(), lr=lr_schedule(1), **self.optimizer_kwargs
        )


def _small_init(layer: nn.Module, gain: float = 0.01) -> None:
    weight = getattr(layer, "weight", None)
    if weight is not None:
        nn.init.orthogonal_(weight, gain=gain)
    bias = getattr(layer, "bias", None)
    if bias is not None:
        nn.init.zeros_(bias)
