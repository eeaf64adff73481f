"""Regression of the value network on labelled afterstates (stage 3 of :mod:`.train`).

The loss is the mean squared error of the scaled label plus the same error after removing
each decision's mean (the agent only compares candidates of one decision, so what matters
most is the ordering inside a decision, not the position's overall level). Minibatches are
whole decisions. After every epoch the held-out games are scored:

* ``mse`` / ``baseline_mse``: error of the network vs a constant (the label variance), and
  ``corr`` the correlation of predictions and labels;
* ``rel_mse`` / ``rel_baseline``: the same with each decision's mean removed;
* ``regret``: mean label points lost by playing the network's argmax instead of the
  best-labelled candidate; ``prior_regret`` the same for the heuristic's choice (row 0).

Checkpoints (``fit_state.pt``: weights, optimiser, epoch, curve, and the weights of the epoch
with the least held-out MSE, the start included) make the epochs resumable; the network
returned is that best epoch's.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.atomic import atomic_path
from moonriver_env.moonriver.agents.trained import ValueNet
from training.value.dataset import Samples, group_rows


def _plain(value: Any) -> Any:
    """``value`` with NumPy scalars made Python numbers (what ``weights_only`` loading reads)."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _group_ids(count: np.ndarray) -> np.ndarray:
    return np.repeat(np.arange(len(count)), count)


def _centered(v: torch.Tensor, groups: torch.Tensor, n: int, count: torch.Tensor) -> torch.Tensor:
    mean = torch.zeros(n, dtype=v.dtype).index_add_(0, groups, v) / count
    return v - mean[groups]


def predict(net: ValueNet, s: Samples, batch: int = 4096) -> np.ndarray:
    """Network outputs for every row of ``s``."""
    out = []
    with torch.inference_mode():
        for i in range(0, len(s.x), batch):
            out.append(net(torch.from_numpy(s.x[i : i + batch].astype(np.float32))).numpy())
    return np.concatenate(out) if out else np.zeros(0, dtype=np.float32)


def held_out_metrics(
    net: ValueNet, s: Samples, scale: float, prior_weight: float = 0.0
) -> dict[str, float]:
    """The held-out scores of the module docstring (labels in points); the agent's choice
    is scored with the heuristic's value added at ``prior_weight`` (as it plays)."""
    pred = predict(net, s) * scale
    choice = pred + prior_weight * s.prior
    y = s.y.astype(np.float64)
    groups = _group_ids(s.count)
    mean_y = np.bincount(groups, y) / s.count
    mean_p = np.bincount(groups, pred) / s.count
    ry, rp = y - mean_y[groups], pred - mean_p[groups]
    regret = prior_regret = 0.0
    for g in range(s.decisions):
        a, c = s.start[g], s.count[g]
        ys = y[a : a + c]
        best = ys.max()
        regret += best - ys[int(np.argmax(choice[a : a + c]))]
        prior_regret += best - ys[0]
    d = max(s.decisions, 1)
    return {
        "mse": float(np.mean((pred - y) ** 2)),
        "baseline_mse": float(np.var(y)),
        "corr": float(np.corrcoef(pred, y)[0, 1]) if len(y) > 1 else 0.0,
        "rel_mse": float(np.mean((rp - ry) ** 2)),
        "rel_baseline": float(np.mean(ry**2)),
        "regret": regret / d,
        "prior_regret": prior_regret / d,
    }


def init_skip(net: ValueNet, train: Samples, scale: float) -> None:
    """Start the linear evaluation path at the least-squares fit of the scaled labels."""
    e = train.x[:, -net.extra :].astype(np.float64)
    a = np.c_[e, np.ones(len(e))]
    w = np.linalg.lstsq(a, train.y / scale, rcond=None)[0]
    with torch.no_grad():
        net.skip.weight.copy_(torch.from_numpy(w[:-1]).float()[None, :])
        net.skip.bias.fill_(float(w[-1]))


def fit(
    cfg: dict[str, dict[str, Any]],
    train: Samples,
    held: Samples,
    net: ValueNet,
    state_path: Path,
) -> list[dict[str, Any]]:
    """Train ``net`` in place for ``train.epochs`` epochs (resuming from ``state_path``);
    returns the learning curve (one row per epoch)."""
    tc = cfg["train"]
    scale = tc["target_scale"]
    torch.manual_seed(cfg["run"]["seed"])
    opt = torch.optim.AdamW(
        net.parameters(), lr=tc["learning_rate"], weight_decay=tc["weight_decay"]
    )
    epochs = tc["epochs"]
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(
        opt, T_max=epochs, eta_min=0.05 * tc["learning_rate"]
    )
    curve: list[dict[str, Any]] = []
    start_epoch = 0
    best: dict[str, Any] = {}
    if state_path.exists():
        blob = torch.load(state_path, map_location="cpu", weights_only=True)  # tensors, numbers
        net.load_state_dict(blob["net"])
        opt.load_state_dict(blob["opt"])
        sched.load_state_dict(blob["sched"])
        curve = blob["curve"]
        start_epoch = blob["epoch"]
        best = blob["best"]
        print(f"[fit] resumed after epoch {start_epoch}", flush=True)
    if not curve:
        init_skip(net, train, scale)
        m = held_out_metrics(net, held, scale)
        curve.append({"epoch": 0, "train_loss": None, **m})
        best = {"mse": m["mse"], "epoch": 0, "net": copy.deepcopy(net.state_dict())}
    rng = np.random.default_rng([cfg["run"]["seed"], start_epoch])
    mean_rows = float(train.count.mean()) if train.decisions else 1.0
    per_batch = max(1, int(tc["batch_size"] / mean_rows))
    deadline = time.time() + tc["max_minutes"] * 60 if tc["max_minutes"] > 0 else float("inf")
    for epoch in range(start_epoch + 1, epochs + 1):
        if time.time() > deadline:
            print(f"[fit] time budget spent before epoch {epoch}", flush=True)
            break
        net.train()
        order = rng.permutation(train.decisions)
        losses = []
        t0 = time.time()
        for b in range(0, len(order), per_batch):
            dec = order[b : b + per_batch]
            count = train.count[dec]
            rows = group_rows(train.start[dec], count)
            x = torch.from_numpy(train.x[rows].astype(np.float32))
            y = torch.from_numpy(train.y[rows] / scale)
            groups = torch.from_numpy(_group_ids(count))
            cnt = torch.from_numpy(count.astype(np.float32))
            p = net(x)
            loss = torch.mean((p - y) ** 2) + torch.mean(
                (_centered(p, groups, len(dec), cnt) - _centered(y, groups, len(dec), cnt)) ** 2
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(float(loss.detach()))
        sched.step()
        net.eval()
        m = held_out_metrics(net, held, scale)
        row = {"epoch": epoch, "train_loss": float(np.mean(losses)), **m}
        curve.append(row)
        print(f"[fit] {json.dumps(row)} ({time.time() - t0:.0f} s)", flush=True)
        if m["mse"] < best["mse"]:
            best = {"mse": m["mse"], "epoch": epoch, "net": copy.deepcopy(net.state_dict())}
        with atomic_path(state_path) as tmp:
            torch.save(
                {
                    "net": net.state_dict(),
                    "opt": opt.state_dict(),
                    "sched": sched.state_dict(),
                    "curve": _plain(curve),
                    "epoch": epoch,
                    "best": _plain(best),
                },
                tmp,
            )
    net.load_state_dict(best["net"])
    print(f"[fit] keeping epoch {best['epoch']} (least held-out MSE)", flush=True)
    for row in curve:
        row["kept"] = int(row["epoch"] == best["epoch"])
    return curve


PRIOR_WEIGHTS = (0.0, 0.1, 0.25, 0.5, 1.0, 2.0)


def tune_prior_weight(
    net: ValueNet, held: Samples, scale: float
) -> tuple[float, dict[float, float]]:
    """The weight of the heuristic's value (:data:`PRIOR_WEIGHTS`) with the least held-out
    regret, and the regret of each."""
    regrets = {w: held_out_metrics(net, held, scale, w)["regret"] for w in PRIOR_WEIGHTS}
    return min(regrets, key=lambda w: (regrets[w], w)), regrets
