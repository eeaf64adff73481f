"""The network of the ``az`` agent, small enough to run inside the native core's search
(``moonriver_env/_core/learn.h``, NNUE-style): it reads a seat's flat observation (the game's
encoder; about 240 of 3,300 entries are non-zero), so its first layer is a sum of the rows of
the non-zero entries (a CSR sparse matrix product here, a row loop in C)::

    h1 = relu(b1 + sum_i x_i W1[i])          (inputs -> hidden1)
    h2 = relu(W2 h1 + b2)                    (hidden1 -> hidden2)
    value    = tanh(wv . h2 + bv)            the seat's outcome, -1 (a loss) .. +1 (a sole win)

A move's prior is the value of its afterstate (:mod:`.search`): the network has no policy
head. (Model files written before it was removed carry one, ``wp.weight`` and ``bp``, which
:func:`agents.az.checkpoint.state_dict_of` leaves out.)

:meth:`AzNet.flat_weights` writes the weights in the core's order (W1, b1, W2 as hidden1 x
hidden2, b2, wv, bv); :meth:`AzNet.native` builds the core's ``Net`` from them, which
the search and self-play evaluate (the same numbers to float rounding:
``tests/az/test_az_network.py``). One network for any game of the family: the shape
names the game, its observation size and its action count (which the core checks a game
against).
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import torch
from torch import nn

from moonriver_env.family.native import native
from moonriver_env.games import GameSpec

from .tables import input_layout


@dataclass(frozen=True)
class NetShape:
    """What fixes a network's weights (stored in every checkpoint; the hidden sizes' defaults
    live in ``[net]`` of ``training/configs/az_default.toml``)."""

    game: str
    """The game's name (models of other games are refused)."""
    num_players: int
    mode: str
    """The game's mode (:class:`~moonriver_env.games.GameSpec`; Kingdomino: its variants)."""
    inputs: int
    """The game's flat observation size."""
    actions: int
    """The game's action count (the network has no layer of that width: a game check)."""
    hidden1: int
    hidden2: int
    features: bool = False
    """Whether the inputs end with the core's territory features (``moonriver_env/_core/
    azgames.c``: per seat and landscape, what the scoring counts), after the observation."""
    tables: bool = False
    """Whether the network reads every table of its game (:mod:`.tables`: its inputs are the
    game's :class:`~agents.az.tables.InputLayout`; ``num_players`` and ``mode`` then name the
    table its training run started from, ``actions`` that table's action count)."""

    def to_dict(self) -> dict[str, int | str]:
        """The fields as a plain dict (what a checkpoint stores)."""
        return asdict(self)

    @property
    def spec(self) -> GameSpec:
        """The game this shape is for."""
        return GameSpec(game=self.game, num_players=self.num_players, mode=self.mode)

    @classmethod
    def for_game(
        cls,
        spec: GameSpec,
        hidden1: int,
        hidden2: int,
        features: bool = False,
        tables: bool = False,
    ) -> NetShape:
        """The shape of a network for ``spec``'s game (``features``: with the core's
        territory features after the observation; ``tables``: for every table of the game)."""
        if tables:
            layout = input_layout(spec.game)
            if features and not layout.territory:
                raise RuntimeError("the territory features are computed in the native core")
            return cls(
                game=spec.game, num_players=spec.num_players, mode=spec.mode,
                inputs=layout.width(features), actions=spec.num_actions, hidden1=hidden1,
                hidden2=hidden2, features=features, tables=True,
            )  # fmt: skip
        extra = 0
        if features:
            if native is None:
                raise RuntimeError("the territory features are computed in the native core")
            extra = int(native.AZ_FEATURES)
        return cls(
            game=spec.game,
            num_players=spec.num_players,
            mode=spec.mode,
            inputs=spec.observation_size + extra,
            actions=spec.num_actions,
            hidden1=hidden1,
            hidden2=hidden2,
            features=features,
        )


@dataclass
class SparseBatch:
    """``B`` positions for the network: the observations' non-zero entries (``idx`` and
    ``val`` flat, position ``b``'s from ``crow[b]`` to ``crow[b + 1]``: a CSR matrix)."""

    idx: torch.Tensor
    val: torch.Tensor
    crow: torch.Tensor


class AzNet(nn.Module):
    """The network (module docstring) for one :class:`NetShape`."""

    def __init__(self, shape: NetShape) -> None:
        super().__init__()
        if min(shape.inputs, shape.actions, shape.hidden1, shape.hidden2) < 1:
            raise ValueError(f"shape: every size must be at least 1, got {shape}")
        self.shape = shape
        self.w1 = nn.Parameter(torch.randn(shape.inputs, shape.hidden1) / 8.0)
        # each input's scale (set_input_scale): the first layer is w1 x scale, so a feature of
        # small values (points / 200) learns as fast as a one-hot one (folded into W1 for the core)
        self.input_scale: torch.Tensor
        self.register_buffer("input_scale", torch.ones(shape.inputs))
        self.b1 = nn.Parameter(torch.zeros(shape.hidden1))
        self.l2 = nn.Linear(shape.hidden1, shape.hidden2)
        self.value = nn.Linear(shape.hidden2, 1)
        with torch.no_grad():
            self.value.weight.mul_(0.1)

    def hidden(self, batch: SparseBatch) -> torch.Tensor:
        """``h2`` of every position, (B, hidden2)."""
        rows = batch.crow.shape[0] - 1
        n = self.shape.inputs
        val = batch.val * self.input_scale[batch.idx]  # each input's scale, on its entries
        x = _csr(batch.crow, batch.idx, val, (rows, n))
        w = self.w1
        if torch.is_grad_enabled() and w.requires_grad and batch.idx.device.type == "cpu":
            h1 = _FirstLayer.apply(w, x, _transposed(batch, val, n))
        else:
            h1 = x @ w
        return torch.relu(self.l2(torch.relu(h1 + self.b1)))

    def set_input_scale(
        self,
        idx: np.ndarray,
        val: np.ndarray,
        rows: int,
        cap: float = 50.0,
        first: int = 0,
        keep: np.ndarray | None = None,
    ) -> None:
        """Scale each input from ``first`` on by 1 / its standard deviation over ``rows``
        observations (their non-zero entries ``idx``, ``val``), at most ``cap``; inputs never
        seen keep 1, inputs before ``first`` (and the inputs ``keep``) their scale. The
        network's function is kept: w1 is divided by the new scale."""
        n = self.shape.inputs
        mean = np.bincount(idx, weights=val, minlength=n) / max(rows, 1)
        sq = np.bincount(idx, weights=np.square(val, dtype=np.float64), minlength=n) / max(rows, 1)
        std = np.sqrt(np.maximum(sq - mean**2, 0.0))
        scale = np.where(std > 0, 1.0 / np.maximum(std, 1.0 / cap), 1.0)
        scale[:first] = self.input_scale[:first].cpu().numpy()
        if keep is not None:
            scale[keep] = self.input_scale[torch.as_tensor(keep)].cpu().numpy()
        with torch.no_grad():
            new = torch.as_tensor(scale, dtype=torch.float32, device=self.w1.device)
            self.w1.mul_((self.input_scale / new)[:, None])
            self.input_scale.copy_(new)

    def grown(self, shape: NetShape, seed: int = 0) -> AzNet:
        """This network grown to ``shape``, computing what this one does until training moves
        it: the core's territory features appended to its inputs (their first-layer rows zero)
        and/or wider layers (the new first-layer units' weights drawn as a new network's, from
        ``seed``, with zero weights out of them; the new second-layer units likewise, zero into
        the value). ``ValueError`` unless ``shape`` is this shape grown so: the
        same game, the features added or kept, neither layer narrower, something changed."""
        s = self.shape
        same = replace(s, inputs=shape.inputs, hidden1=shape.hidden1, hidden2=shape.hidden2,
                       features=shape.features)  # fmt: skip
        features = shape.features and not s.features
        inputs = shape.inputs > s.inputs if features else shape.inputs == s.inputs
        if (
            shape != same
            or shape == s
            or (s.features and not shape.features)
            or not inputs
            or shape.hidden1 < s.hidden1
            or shape.hidden2 < s.hidden2
        ):
            raise ValueError(
                f"a network of shape {s} grows only into the same game's shape with the "
                f"territory features added or wider layers, not {shape}"
            )
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            grown = AzNet(shape)
        n, h1, h2 = s.inputs, s.hidden1, s.hidden2
        with torch.no_grad():
            grown.w1[:n, :h1] = self.w1
            grown.w1[n:] = 0.0  # the features' rows: every unit, old and new
            grown.input_scale[:n] = self.input_scale
            grown.b1[:h1] = self.b1
            grown.b1[h1:] = 0.0
            grown.l2.weight[:h2, :h1] = self.l2.weight
            grown.l2.weight[:h2, h1:] = 0.0  # nothing from the new first-layer units
            grown.l2.bias[:h2] = self.l2.bias
            grown.l2.bias[h2:] = 0.0
            grown.value.weight[:, :h2] = self.value.weight
            grown.value.weight[:, h2:] = 0.0  # nothing from the new second-layer units
            grown.value.bias.copy_(self.value.bias)
        return grown

    def value_of(self, batch: SparseBatch) -> torch.Tensor:
        """The value (B,) of each position for its seat: what the search reads."""
        return torch.tanh(self.value(self.hidden(batch))).squeeze(-1)

    def forward(self, batch: SparseBatch) -> torch.Tensor:
        """The value (B,): :meth:`value_of`."""
        return self.value_of(batch)

    def table_rows(self, spec: GameSpec | None) -> tuple[np.ndarray, np.ndarray] | None:
        """For a network of every table (``shape.tables``), ``spec``'s rows of the first layer
        in the table's input order and the rows of its table inputs
        (:class:`~agents.az.tables.InputLayout`); ``None`` for a one-table network.
        ``ValueError`` for a table the network does not read (or none named)."""
        if not self.shape.tables:
            return None
        if spec is None:
            raise ValueError("table: a network of every table needs the table it plays")
        layout = input_layout(self.shape.game)
        if not layout.fits(self.shape.inputs, self.shape.features):
            raise ValueError(
                f"table: the network has {self.shape.inputs} inputs; this install lays out "
                f"{layout.width(self.shape.features)} for {self.shape.game} (another version)"
            )
        return layout.rows(spec, self.shape.features)

    def flat_weights(self, spec: GameSpec | None = None) -> np.ndarray:
        """The weights as one float32 vector in the core's order (module docstring); for a
        network of every table, those of ``spec``'s table: its rows of the first layer, its
        table inputs (always 1 there) added to the first bias."""
        w1: torch.Tensor = self.w1 * self.input_scale[:, None]
        b1: torch.Tensor = self.b1
        rows = self.table_rows(spec)
        if rows is not None:
            remap, tokens = (torch.tensor(r, device=w1.device) for r in rows)  # copies
            w1, b1 = w1[remap], b1 + w1[tokens].sum(0)
        parts = [
            w1,
            b1,
            self.l2.weight.t(),
            self.l2.bias,
            self.value.weight[0],
            self.value.bias,
        ]
        with torch.no_grad():
            flat = torch.cat([p.detach().float().cpu().contiguous().reshape(-1) for p in parts])
        return flat.numpy().astype(np.float32, copy=False)

    def native(self, spec: GameSpec | None = None) -> Any:
        """The core's ``Net`` with these weights (a copy: later training does not change it);
        for a network of every table, ``spec``'s table's (:meth:`flat_weights`)."""
        if native is None:
            raise RuntimeError("the az network runs in the native core; it is not built")
        s = self.shape
        inputs, actions = s.inputs, s.actions
        rows = self.table_rows(spec)
        if rows is not None and spec is not None:
            inputs, actions = int(rows[0].size), spec.num_actions
        return native.Net(inputs, s.hidden1, s.hidden2, actions, self.flat_weights(spec))


def _csr(crow: torch.Tensor, idx: torch.Tensor, val: torch.Tensor, size: tuple[int, int]) -> Any:
    with warnings.catch_warnings():  # "Sparse CSR tensor support is in beta state"
        warnings.simplefilter("ignore", UserWarning)
        return torch.sparse_csr_tensor(crow, idx, val, size, check_invariants=False)


def _transposed(batch: SparseBatch, val: torch.Tensor, inputs: int) -> Any:
    """The batch's observations (with the values ``val``) transposed: inputs x positions,
    CSR, ordered by a stable sort of the input indices (numpy's radix sort for 16-bit keys)."""
    idx = batch.idx.numpy()
    counts = np.diff(batch.crow.numpy())
    key = idx.astype(np.uint16) if inputs <= 1 << 16 else idx
    order = np.argsort(key, kind="stable")
    rows = np.repeat(np.arange(counts.size, dtype=np.int64), counts)[order]
    crow = np.zeros(inputs + 1, dtype=np.int64)
    np.cumsum(np.bincount(idx, minlength=inputs), out=crow[1:])
    val_t = torch.from_numpy(val.detach().numpy()[order])
    return _csr(torch.from_numpy(crow), torch.from_numpy(rows), val_t, (inputs, counts.size))


class _FirstLayer(torch.autograd.Function):
    """``x @ w`` for a CSR ``x``, whose backward reads ``x``'s transpose built in numpy
    (:func:`_transposed`): torch's own transposes ``x`` by a general sort, which was two
    thirds of a training step's backward (9.8 of 18.6 ms; docs/az.md)."""

    @staticmethod
    def forward(ctx: Any, w: torch.Tensor, x: Any, xt: Any) -> torch.Tensor:
        ctx.xt = xt
        return x @ w

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None, None]:
        return ctx.xt @ grad, None, None


def sparse_batch(
    obs_idx: np.ndarray,
    obs_val: np.ndarray,
    obs_counts: np.ndarray,
    device: torch.device | str = "cpu",
) -> SparseBatch:
    """A :class:`SparseBatch` from flat arrays: position ``b`` has ``obs_counts[b]`` non-zero
    entries, in order."""
    crow = np.concatenate([[0], np.cumsum(obs_counts)]).astype(np.int64)
    return SparseBatch(
        idx=torch.as_tensor(np.asarray(obs_idx, dtype=np.int64), device=device),
        val=torch.as_tensor(np.asarray(obs_val, dtype=np.float32), device=device),
        crow=torch.as_tensor(crow, device=device),
    )


def spread(net: AzNet, shape: NetShape) -> AzNet:
    """A one-table network as a network of every table of its game (``shape``): its rows of
    the first layer where its table's inputs are, every other input's row zero (the table
    inputs' too), the other weights as they are, so at its own table it computes what it did.
    ``ValueError`` unless ``shape`` is the same game's and layers, reading every table, with
    the territory features if the network has them."""
    old = net.shape
    layout = input_layout(shape.game)
    if (
        old.tables
        or not shape.tables
        or old.game != shape.game
        or (old.hidden1, old.hidden2) != (shape.hidden1, shape.hidden2)
        or (old.features and not shape.features)
        or layout.width(shape.features) != shape.inputs
    ):
        raise ValueError(
            f"a network of shape {old} spreads only into the same game's network of every "
            f"table with the same layers (and its territory features, if it has them), not "
            f"{shape}"
        )
    remap = torch.as_tensor(layout.remap(old.spec, old.features))
    out = AzNet(shape)
    with torch.no_grad():
        out.w1.zero_()
        out.w1[remap] = net.w1
        out.input_scale.fill_(1.0)
        out.input_scale[remap] = net.input_scale
        out.b1.copy_(net.b1)
        out.l2.load_state_dict(net.l2.state_dict())
        out.value.load_state_dict(net.value.state_dict())
    return out
