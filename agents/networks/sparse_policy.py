"""The network of the reference PPO (:mod:`training.ppo.ppo`) and what plays it: a policy for
every game with a batched form, read from the sparse observation and the game's action table.

* The first layer is a product of the sparse rows (``obs_idx``, ``obs_val``) with a weight
  matrix, computed in the native core both ways (``sparse_matmul``, ``sparse_matmul_t``; torch's
  sparse product where no core is built): about 250 rows summed instead of a 3,282-wide product.
* The policy scores only the legal actions: each action id is embedded from its parts in the
  game's ``action_table`` (the segment, then each component: a Moon River placement's pair,
  cell and direction), and a legal action's logit is the dot product of the state's embedding
  with the action's. Softmax, sampling and entropy run over each row's legal ids (a ragged
  list).
* A saved model (``model.pt``) holds the game, the sizes and the weights only, read with
  ``torch.load(weights_only=True)``: loading it cannot run code.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from moonriver_env.family.native import native
from moonriver_env.family.sparse import ActionTable, Afterstates
from moonriver_env.vector.env_batch import batched_game

MODEL_FORMAT = "moonriver-env ppo 1"
"""The ``format`` entry of a saved model of this network."""

HEADS = ("action", "afterstate")
"""How the policy scores a legal move: ``action``, the state's embedding against the move's
part embeddings (any game with a batched form); ``afterstate``, the move's afterstate through
the trunk (a game with a native core: ``VectorGame.afterstates``)."""

AFTERSTATE_TAU = 0.1
"""The afterstate head's logits are its scores / this (az's prior, TD-Gammon's choice): the
afterstates of one position differ in a few entries, so their scores start close together."""



def action_parts(table: ActionTable) -> tuple[np.ndarray, int]:
    """Each action id's parts as rows of ids into one embedding table: the segment, then
    (segment, axis, value) for each component; ``-1`` entries become the padding id. Returns
    ``(parts (A, 1 + K) int64, number of part ids)``."""
    offsets: list[list[int]] = []
    n_parts = len(table.segments)
    for sizes in table.sizes:
        offs = []
        for size in sizes:
            offs.append(n_parts)
            n_parts += size
        offsets.append(offs)
    parts = np.full((table.num_actions, 1 + table.components.shape[1]), n_parts, np.int64)
    parts[:, 0] = table.segment
    for a in range(table.num_actions):
        seg = int(table.segment[a])
        for k, off in enumerate(offsets[seg]):
            parts[a, 1 + k] = off + int(table.components[a, k])
    return parts, n_parts


@dataclass
class SparseRows:
    """A batch of sparse rows in CSR form: row ``r``'s entries are ``idx`` / ``val`` at
    ``crow[r]:crow[r + 1]`` (int64, int64, float32 NumPy arrays)."""

    crow: np.ndarray
    idx: np.ndarray
    val: np.ndarray

    @classmethod
    def of(cls, idx: np.ndarray, val: np.ndarray, nnz: np.ndarray) -> SparseRows:
        return cls(np.concatenate(([0], np.cumsum(nnz))).astype(np.int64), idx, val)

    @property
    def rows(self) -> int:
        return len(self.crow) - 1

    def torch(self, columns: int | None = None) -> torch.Tensor:
        """The rows as a torch sparse COO tensor (``columns`` wide, default: the largest
        index + 1)."""
        width = columns if columns is not None else int(self.idx.max(initial=-1)) + 1
        rows = np.repeat(np.arange(self.rows), np.diff(self.crow))
        return torch.sparse_coo_tensor(
            torch.from_numpy(np.stack([rows, self.idx])), torch.from_numpy(self.val),
            (self.rows, width), check_invariants=True,
        )


def _chunks(x: SparseRows) -> list[tuple[int, int, SparseRows]]:
    """``x`` cut into one run of rows per torch thread (``(first row, end row, rows)``), so
    that the core's products, which release the GIL, run on every core at once."""
    parts = max(1, min(torch.get_num_threads(), x.rows // 256))
    bounds = np.linspace(0, x.rows, parts + 1).astype(np.int64)
    out = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        lo, hi = int(x.crow[a]), int(x.crow[b])
        out.append((int(a), int(b), SparseRows(x.crow[a : b + 1] - lo, x.idx[lo:hi],
                                                x.val[lo:hi])))
    return out


_POOL: ThreadPoolExecutor | None = None


def _run(jobs: list[Callable[[], None]]) -> None:
    """Runs ``jobs`` at once on a small thread pool (one alone runs here)."""
    global _POOL
    if len(jobs) == 1:
        jobs[0]()
        return
    if _POOL is None:
        _POOL = ThreadPoolExecutor(max_workers=8, thread_name_prefix="sparse")
    for f in [_POOL.submit(job) for job in jobs]:
        f.result()


class _SparseLinear(torch.autograd.Function):
    """``x @ w`` for sparse rows ``x``, both ways in the native core (``sparse_matmul`` and,
    for the gradient of ``w``, ``sparse_matmul_t``): no transpose of ``x`` is ever built, and
    the rows are shared out among the torch threads."""

    @staticmethod
    def forward(ctx: Any, w: torch.Tensor, x: SparseRows) -> torch.Tensor:
        ctx.x = x
        ctx.d, e = w.shape
        if native is None:  # no core built: torch's CSR product (slower)
            return x.torch() @ w.detach()
        out = np.empty((x.rows, e), np.float32)
        wn = w.detach().numpy()
        d = ctx.d

        def job(a: int, b: int, part: SparseRows) -> Callable[[], None]:
            return lambda: native.sparse_matmul(part.crow, part.idx, part.val, wn, out[a:b], d, e)

        _run([job(a, b, part) for a, b, part in _chunks(x)])
        return torch.from_numpy(out)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        x: SparseRows = ctx.x
        if native is None:
            return x.torch(ctx.d).t() @ grad, None
        g = np.ascontiguousarray(grad.numpy(), dtype=np.float32)
        d, e = ctx.d, g.shape[1]
        chunks = _chunks(x)
        outs = [np.zeros((d, e), np.float32) for _ in chunks]

        def job(k: int, a: int, b: int, part: SparseRows) -> Callable[[], None]:
            return lambda: native.sparse_matmul_t(part.crow, part.idx, part.val, g[a:b],
                                                  outs[k], d, e)

        _run([job(k, a, b, part) for k, (a, b, part) in enumerate(chunks)])
        total = outs[0]
        for more in outs[1:]:
            total += more
        return torch.from_numpy(total), None


class SparsePolicy(nn.Module):
    """State embedding from the sparse observation; value head; legal actions scored by a dot
    product with their part embeddings (module docstring)."""

    def __init__(self, obs_size: int, table: ActionTable, embed: int, hidden: int,
                 head: str = "action", features: bool = False) -> None:
        super().__init__()
        if head not in HEADS:
            raise ValueError(f"head: expected one of {', '.join(HEADS)}, got {head!r}")
        if features and (head != "afterstate" or native is None):
            raise ValueError("features: the core's territory features come with the afterstate "
                             "head, from the native core")
        self.obs_size = obs_size
        self.head = head
        self.features = features  # the afterstates carry the core's territory features
        inputs = obs_size + (int(native.AZ_FEATURES) if features and native is not None else 0)
        # the sparse first layer: x @ w1 for sparse rows x (one row of w1 per observation entry;
        # with features, the rows after obs_size read the afterstates' territory features)
        self.w1 = nn.Parameter(torch.randn(inputs, embed) / math.sqrt(64.0))
        self.b1 = nn.Parameter(torch.zeros(embed))
        self.trunk = nn.Sequential(
            nn.ReLU(), nn.Linear(embed, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.value_head = nn.Linear(hidden, 1)
        if head == "afterstate":  # a legal move's logit: its afterstate through the same trunk
            self.score_head = nn.Linear(hidden, 1)
            nn.init.orthogonal_(self.score_head.weight, 1.0)
        else:
            parts, n_parts = action_parts(table)
            self.parts: torch.Tensor
            self.register_buffer("parts", torch.as_tensor(parts))
            self.part_embed = nn.EmbeddingBag(n_parts + 1, embed, mode="sum",
                                              padding_idx=n_parts)  # fmt: skip
            self.action_mlp = nn.Sequential(nn.ReLU(), nn.Linear(embed, hidden))
        nn.init.orthogonal_(self.value_head.weight, 1.0)  # (last: the action head's draws as before)

    def state(self, x: SparseRows) -> tuple[torch.Tensor, torch.Tensor]:
        """The state embedding (B, hidden) and the value (B,) of sparse rows ``x``."""
        h = self.trunk(_SparseLinear.apply(self.w1, x) + self.b1)
        return h, self.value_head(h).squeeze(-1)

    def afterstate_logits(self, after: SparseRows) -> torch.Tensor:
        """The logit of each legal move (flat) from its afterstate's sparse row (``after``, one
        row per move, as :meth:`~moonriver_env.family.sparse.Afterstates` lists them)."""
        h = self.trunk(_SparseLinear.apply(self.w1, after) + self.b1)
        return self.score_head(h).squeeze(-1) / AFTERSTATE_TAU

    def actions(self, ids: torch.Tensor | None = None) -> torch.Tensor:
        """The embeddings (n, hidden) of action ``ids`` (default: every id)."""
        parts = self.parts if ids is None else self.parts[ids]
        return self.action_mlp(self.part_embed(parts))

    def logits(self, h: torch.Tensor, rows: torch.Tensor, legal: torch.Tensor,
               actions: torch.Tensor | None = None) -> torch.Tensor:
        """The logit of each legal action (flat), ``rows[j]`` its row, ``legal[j]`` its id
        (``actions``: :meth:`actions`, when already computed)."""
        emb = self.actions() if actions is None else actions
        return (h[rows] * emb[legal]).sum(-1)


def segment_log_softmax(logits: torch.Tensor, rows: torch.Tensor, n: int) -> torch.Tensor:
    """Log-softmax within each row of a ragged list (``rows`` ascending, every row non-empty)."""
    top = torch.full((n,), -torch.inf, dtype=logits.dtype).scatter_reduce(
        0, rows, logits.detach(), "amax"
    )
    z = logits - top[rows]
    total = torch.zeros(n, dtype=logits.dtype).index_add_(0, rows, z.exp())
    return z - total.log()[rows]


def ragged_legal(legal_ids: np.ndarray, num_legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The legal ids of each row as one flat list, and each entry's row."""
    width = int(num_legal.max())
    inside = np.arange(width)[None, :] < num_legal[:, None]
    return legal_ids[:, :width][inside].astype(np.int64), np.repeat(
        np.arange(len(num_legal)), num_legal
    )


def sample_ragged(logp: torch.Tensor, rows: np.ndarray, num_legal: np.ndarray,
                  rng: np.random.Generator, greedy: bool = False) -> np.ndarray:
    """Each row's chosen position in its legal list: sampled from ``exp(logp)`` (inverse CDF
    over the flat list) or, with ``greedy``, its most likely action."""
    p = logp.detach().exp().numpy().astype(np.float64)
    starts = np.concatenate(([0], np.cumsum(num_legal)[:-1]))
    if greedy:
        best = np.full(len(num_legal), -1.0)
        np.maximum.at(best, rows, p)
        pos = np.flatnonzero(p >= best[rows] - 1e-12)
        first = np.full(len(num_legal), -1)
        first[rows[pos][::-1]] = pos[::-1]
        return first - starts
    cum = np.cumsum(p)
    before = np.concatenate(([0.0], cum))[starts]
    target = before + rng.random(len(num_legal)) * (cum[starts + num_legal - 1] - before)
    pick = np.searchsorted(cum, target, side="right")
    return np.clip(pick, starts, starts + num_legal - 1) - starts


def afterstate_rows(aft: Afterstates) -> tuple[SparseRows, np.ndarray, np.ndarray]:
    """The afterstates' rows as :class:`SparseRows`, each move's row (the index of its game in
    the list asked for) and each game's number of moves."""
    counts = aft.counts.astype(np.int64)
    x = SparseRows(aft.off, aft.idx.astype(np.int64), aft.val)
    return x, np.repeat(np.arange(counts.size), counts), counts


def afterstate_log_probs(policy: SparsePolicy,
                         aft: Afterstates) -> tuple[torch.Tensor, np.ndarray, np.ndarray]:
    """The afterstate head's log-probabilities of each game's legal moves (flat, in
    ``aft.legal``'s order), each move's row and each game's number of moves."""
    x, flat_rows, counts = afterstate_rows(aft)
    with torch.no_grad():
        logits = policy.afterstate_logits(x)
    return segment_log_softmax(logits, torch.from_numpy(flat_rows), counts.size), flat_rows, counts


def greedy_actions(policy: SparsePolicy, vg: Any, rows: np.ndarray) -> np.ndarray:
    """The policy's most likely legal action for each game ``rows`` of a vector game with the
    sparse observation (the afterstate head: of a vector game in the core, each game's hidden
    pieces redetermined from seed 0 and the game's index, so a game's move does not depend on
    the other games asked about; a move that turns up a piece is scored on that one draw)."""
    if policy.head == "afterstate":
        aft = vg.afterstates(np.asarray(rows, np.int64), seed=0, features=policy.features)
        logp, flat_rows, counts = afterstate_log_probs(policy, aft)
        pos = sample_ragged(logp, flat_rows, counts, np.random.default_rng(0), greedy=True)
        return aft.legal[np.concatenate(([0], np.cumsum(counts)[:-1])) + pos].astype(np.int64)
    nnz = vg.obs_nnz[rows].astype(np.int64)
    idx, val = sparse_rows(vg.obs_idx[rows], vg.obs_val[rows], nnz)
    num_legal = vg.num_legal[rows].astype(np.int64)
    legal, flat_rows = ragged_legal(vg.legal_ids[rows], num_legal)
    return legal[greedy_positions(policy, SparseRows.of(idx, val, nnz), legal, flat_rows,
                                  num_legal)]


def greedy_positions(policy: SparsePolicy, x: SparseRows, legal: np.ndarray,
                     flat_rows: np.ndarray, num_legal: np.ndarray) -> np.ndarray:
    """Each row's most likely legal action, as its index in the flat ``legal``."""
    with torch.no_grad():
        h, _ = policy.state(x)
        r = torch.from_numpy(flat_rows)
        logp = segment_log_softmax(policy.logits(h, r, torch.from_numpy(legal)), r, x.rows)
    pos = sample_ragged(logp, flat_rows, num_legal, np.random.default_rng(0), greedy=True)
    return np.concatenate(([0], np.cumsum(num_legal)[:-1])) + pos


def sparse_rows(idx: np.ndarray, val: np.ndarray, nnz: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The entries of padded sparse rows, concatenated (CSR order)."""
    width = int(nnz.max()) if nnz.size else 0
    inside = np.arange(width)[None, :] < nnz[:, None]
    return idx[:, :width][inside].astype(np.int64), val[:, :width][inside]


def model_record(policy: SparsePolicy, game: str, embed: int, hidden: int) -> dict[str, Any]:
    """What ``model.pt`` holds: the game (a spec text), the sizes and the weights (tensors and
    plain values only: ``torch.load(..., weights_only=True)`` reads it)."""
    return {
        "format": MODEL_FORMAT,
        "game": game,
        "embed": embed,
        "hidden": hidden,
        "head": policy.head,
        "features": policy.features,
        "state_dict": policy.state_dict(),
    }


def is_model_file(path: str | Path) -> bool:
    """Whether ``path`` is a saved model of this network (read without running code)."""
    try:
        rec = torch.load(path, map_location="cpu", weights_only=True)
    except Exception:  # noqa: BLE001 - any unreadable file is simply not one
        return False
    return isinstance(rec, dict) and rec.get("format") == MODEL_FORMAT


def load_model(path: str | Path) -> tuple[SparsePolicy, str]:
    """A saved ``model.pt`` as a policy, with its game spec text. Read with
    ``weights_only=True``: the file cannot run code. ``ValueError`` naming the file for
    anything else, or weights that do not fit the game or are not finite."""
    try:
        rec = torch.load(path, map_location="cpu", weights_only=True)
    except Exception as exc:  # noqa: BLE001 - named below
        raise ValueError(f"{path}: not a readable model file ({exc})") from None
    if not isinstance(rec, dict) or rec.get("format") != MODEL_FORMAT:
        raise ValueError(f"{path}: not a model of training.ppo.ppo")
    try:
        embed, hidden, game = int(rec["embed"]), int(rec["hidden"]), str(rec["game"])
        if not (1 <= embed <= 4096 and 1 <= hidden <= 4096):
            raise ValueError(f"sizes out of range: embed {embed}, hidden {hidden}")
        head = str(rec.get("head", "action"))  # (files from before the afterstate head)
        if head == "afterstate" and native is None:
            raise ValueError(f"{path}: a model of the afterstate head plays through the native "
                             f"core, which is not built here")  # fmt: skip
        features = rec.get("features", False) is True
        vg = batched_game(game, num_games=1, seed=0, observe=False)
        policy = SparsePolicy(vg.observation_size, vg.action_table, embed, hidden, head,
                              features)
        policy.load_state_dict(rec["state_dict"])
    except (KeyError, TypeError, ValueError, RuntimeError) as exc:
        raise ValueError(f"{path}: a damaged model file ({exc})") from None
    if not all(torch.isfinite(t).all() for t in policy.state_dict().values()):
        raise ValueError(f"{path}: the weights are not all finite")
    return policy, game
