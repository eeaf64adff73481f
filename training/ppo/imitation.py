"""How well does behaviour cloning imitate the teacher, and where does it miss?

::

    python -m training.imitation --data /work/runs/imitation/teacher_1000.npz --games 1000 \\
        --train-games 900 --holdout-games 100 --set pretrain.epochs=4 --out report.json
    python -m training.imitation --data ... --model runs/full1/pretrained.zip   # a saved model

The dataset (:mod:`training.ppo.teacher_data`: heuristic self-play with the teacher's tie sets,
values and a second determinization) is collected once into ``--data`` if that file is missing
and then reused, so that every experiment clones the same samples and is scored on the same
held-out games (the last ``--holdout-games`` games; training uses the first
``--train-games``). The policy is built from the config's ``[policy]`` and cloned with its
``[pretrain]`` keys (:func:`training.ppo.pretrain.behaviour_clone`), one ``--set`` per change.

The report (printed and written to ``--out`` as JSON), on the held-out samples:

* ``top1`` (the policy's most likely legal action is the teacher's), ``tie_top1`` (it is in
  the teacher's tie set: the heuristic draws among equally valued moves at random, so
  ``top1`` cannot reach 1), ``top3`` / ``top5``, and ``regret`` (the teacher's one-ply value
  of its best move minus that of the predicted one; 0 when tie-aware correct);
* the same by segment of the teacher's action (:data:`moonriver_env.moonriver.rules.actions.SEGMENTS`),
  by phase and by number of legal actions;
* baselines: ``uniform`` (a uniformly random legal move, in expectation), ``prior`` (the
  legal action the teacher played most often in the training games), and the teacher's own
  limits: ``exact_cap`` (the expected ``top1`` of a perfect copy of the teacher that
  breaks ties at random: the mean of 1 / tie-set size) and ``alt_agree`` (the teacher's move is
  also best on an independent re-draw of the hidden pile and stack);
* the same metrics on (up to ``holdout`` size) training samples, to tell underfitting from
  overfitting.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agents.networks.snapshots import load_policy
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameConfig, Phase
from training.common.outputs import write_json
from training.ppo.config import load_config
from training.ppo.teacher_games import unpack

METRICS = ("top1", "tie_top1", "top3", "top5", "regret")
LEGAL_BINS = ((2, 2), (3, 5), (6, 10), (11, 30), (31, 100), (101, 10_000))


# -- per-sample scores ----------------------------------------------------------------------
def dense_values(data: Mapping[str, np.ndarray], idx: np.ndarray, n_actions: int) -> np.ndarray:
    """``(len(idx), n_actions)`` teacher values (``-inf`` where none: illegal, or a
    single-action decision, whose only action gets 0)."""
    out = np.full((len(idx), n_actions), -np.inf, dtype=np.float32)
    start, acts, vals = data["value_start"], data["value_action"], data["value"]
    for row, i in enumerate(idx):
        a, b = start[i], start[i + 1]
        if a == b:
            out[row, data["action"][i]] = 0.0
        else:
            out[row, acts[a:b]] = vals[a:b]
    return out


def sample_hits(
    scores: np.ndarray,
    mask: np.ndarray,
    action: np.ndarray,
    best: np.ndarray,
    values: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """Per sample: whether the highest-scoring legal action is the teacher's (``top1``) or in
    its tie set (``tie_top1``), whether the teacher's is among the 3 / 5 highest, and the
    ``regret`` (best teacher value minus that of the prediction; needs ``values``).
    Equal scores rank by the lower action id."""
    n = len(action)
    masked = np.where(mask, scores, -np.inf)
    order = np.argsort(-masked, axis=1, kind="stable")[:, :5]
    pred = order[:, 0]
    rows = np.arange(n)
    hits = {
        "top1": (pred == action).astype(np.float64),
        "tie_top1": best[rows, pred].astype(np.float64),
        "top3": (order[:, :3] == action[:, None]).any(axis=1).astype(np.float64),
        "top5": (order == action[:, None]).any(axis=1).astype(np.float64),
    }
    if values is not None:
        top = np.where(mask, values, -np.inf).max(axis=1)
        hits["regret"] = (top - values[rows, pred]).astype(np.float64)
    return hits


def grouped(
    hits: Mapping[str, np.ndarray], groups: np.ndarray, order: Sequence[str] = ()
) -> dict[str, dict[str, float]]:
    """Mean of every metric per group label, with the group's sample count ``n``; labels in
    ``order`` first (in that order), then the others sorted."""
    out: dict[str, dict[str, float]] = {}
    present = set(groups.tolist())
    for g in [x for x in order if x in present] + sorted(present - set(order), key=str):
        sel = groups == g
        out[str(g)] = {"n": int(sel.sum()), **{k: float(v[sel].mean()) for k, v in hits.items()}}
    return out


LEGAL_LABELS = ("1", *(f"{lo}-{hi}" if lo != hi else str(lo) for lo, hi in LEGAL_BINS))


def legal_bin(n_legal: np.ndarray) -> np.ndarray:
    """The :data:`LEGAL_BINS` label (``"3-5"``) of each legal-action count."""
    labels = np.empty(len(n_legal), dtype=object)
    labels[:] = LEGAL_LABELS[0]
    for (lo, hi), label in zip(LEGAL_BINS, LEGAL_LABELS[1:], strict=True):
        labels[(n_legal >= lo) & (n_legal <= hi)] = label
    return labels


# -- the report -------------------------------------------------------------------------------
class Samples:
    """The decoded arrays of ``data`` at ``idx`` (masks, tie sets, values, groups)."""

    def __init__(self, data: Mapping[str, np.ndarray], idx: np.ndarray, config: GameConfig):
        layout = config.layout
        n_actions = layout.num_actions
        self.idx = idx
        self.action = data["action"][idx]
        self.mask = unpack(data["mask"][idx], n_actions)
        self.best = unpack(data["best"][idx], n_actions)
        self.alt = unpack(data["alt"][idx], n_actions)
        self.values = dense_values(data, idx, n_actions)
        self.n_legal = self.mask.sum(axis=1)
        segment_of = np.array([name for name, _ in layout.located])
        self.groups = {
            "segment": segment_of[self.action],
            "phase": np.array([Phase(int(p)).name.lower() for p in data["phase"][idx]]),
            "legal": legal_bin(self.n_legal),
        }
        self.orders = {
            "segment": [seg.name for seg in layout.segment_list],
            "phase": [p.name.lower() for p in Phase],
            "legal": list(LEGAL_LABELS),
        }

    def report(self, scores: np.ndarray) -> dict[str, Any]:
        """Overall and grouped metrics of the policy ``scores`` (``(N, actions)``)."""
        hits = sample_hits(scores, self.mask, self.action, self.best, self.values)
        out: dict[str, Any] = {k: float(v.mean()) for k, v in hits.items()}
        for name, labels in self.groups.items():
            out[f"by_{name}"] = grouped(hits, labels, self.orders[name])
        return out

    def baselines(self, prior: np.ndarray) -> dict[str, Any]:
        """Uniform and prior baselines and the teacher's own limits (module docstring)."""
        rows = np.arange(len(self.action))
        legal = np.maximum(self.n_legal, 1)
        ties = (self.best & self.mask).sum(axis=1)
        finite = np.where(self.mask, self.values, np.nan)
        top = np.nanmax(finite, axis=1)
        uniform_regret = np.nanmean(top[:, None] - finite, axis=1)
        uniform = {
            "top1": float(np.mean(1.0 / legal)),
            "tie_top1": float(np.mean(ties / legal)),
            "top3": float(np.mean(np.minimum(3, legal) / legal)),
            "top5": float(np.mean(np.minimum(5, legal) / legal)),
            "regret": float(np.mean(uniform_regret)),
        }
        prior_scores = np.broadcast_to(prior, self.mask.shape)
        return {
            "uniform": uniform,
            "prior": self.report(prior_scores),
            "teacher": {
                "tied": float(np.mean(ties > 1)),
                "mean_tie_set": float(np.mean(ties)),
                "exact_cap": float(np.mean(1.0 / np.maximum(ties, 1))),
                "alt_agree": float(np.mean(self.alt[rows, self.action])),
                "alt_same_set": float(np.mean((self.alt == self.best).all(axis=1))),
                "mean_legal": float(np.mean(self.n_legal)),
            },
        }


def action_prior(actions: np.ndarray, n_actions: int) -> np.ndarray:
    """Log counts (+1) of the teacher's actions: the "most common choice" baseline's scores."""
    return np.log1p(np.bincount(actions, minlength=n_actions)).astype(np.float64)


def policy_scores(policy: Any, data: Mapping[str, np.ndarray], idx: np.ndarray) -> np.ndarray:
    """The masked log-probabilities of ``policy`` on the samples ``idx``."""
    import torch

    from training.ppo.pretrain import policy_outputs

    policy.set_training_mode(False)
    n_actions = int(policy.action_space.n)
    parts = []
    with torch.no_grad():
        for i in range(0, len(idx), 512):
            j = idx[i : i + 512]
            obs = torch.as_tensor(data["obs"][j].astype(np.float32))
            mask = unpack(data["mask"][j], n_actions)
            logp, _ = policy_outputs(policy, obs, torch.as_tensor(mask))
            parts.append(logp.numpy())
    return np.concatenate(parts) if parts else np.zeros((0, n_actions))


# -- building and cloning ---------------------------------------------------------------------
def split_games(
    games: np.ndarray, train_games: int, holdout_games: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(train, held-out)`` sample indices: the first ``train_games`` games and the last
    ``holdout_games`` games (never overlapping)."""
    ids = np.unique(games)
    if holdout_games >= len(ids):
        raise ValueError(f"holdout_games: {holdout_games} of only {len(ids)} games")
    held = ids[len(ids) - holdout_games :]
    train = ids[: min(train_games, len(ids) - holdout_games)]
    return np.flatnonzero(np.isin(games, train)), np.flatnonzero(np.isin(games, held))


def make_policy(cfg: Mapping[str, Any]) -> Any:
    """A fresh policy of the config's ``[policy]`` for its ``[env]`` game (as
    :func:`training.ppo.model.build_model` makes it), seeded by ``run.seed``."""
    import gymnasium
    import torch
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from agents.networks.policy import MoonRiverPolicy
    from training.ppo.model import policy_kwargs

    torch.manual_seed(int(cfg["run"]["seed"]))
    config = GameConfig(num_players=cfg["env"]["num_players"], mode=cfg["env"]["mode"])
    size = ObservationEncoder(config).flat_size
    obs_space = gymnasium.spaces.Box(-np.inf, np.inf, (size,), np.float32)
    act_space = gymnasium.spaces.Discrete(config.layout.num_actions)  # type: ignore[var-annotated]
    cls = MoonRiverPolicy if cfg["policy"]["head"] == "spatial" else MaskableActorCriticPolicy
    lr = float(cfg["pretrain"]["learning_rate"])
    return cls(obs_space, act_space, lambda _: lr, **policy_kwargs(cfg))  # type: ignore[arg-type]


def clone(
    cfg: Mapping[str, Any],
    data: Mapping[str, np.ndarray],
    train_idx: np.ndarray,
    test_idx: np.ndarray,
    on_epoch: Callable[[int, dict[str, float]], None] | None = None,
) -> tuple[Any, dict[str, float]]:
    """A fresh policy cloned on ``train_idx`` with the config's ``[pretrain]`` keys."""
    from training.ppo.pretrain import behaviour_clone

    pre = cfg["pretrain"]
    policy = make_policy(cfg)
    metrics = behaviour_clone(
        policy,
        data,
        pre["epochs"],
        pre["batch_size"],
        pre["learning_rate"],
        vf_coef=pre["vf_coef"],
        seed=int(cfg["run"]["seed"]),
        deadline=time.time() + 60 * pre["max_minutes"] if pre["max_minutes"] > 0 else None,
        split=(train_idx, test_idx),
        on_epoch=on_epoch,
        **clone_options(pre),
    )
    return policy, metrics


def clone_options(pre: Mapping[str, Any]) -> dict[str, Any]:
    """The keyword arguments of :func:`training.ppo.pretrain.behaviour_clone` beyond the basic
    ones, from a ``[pretrain]`` section."""
    return {
        "target": pre["target"],
        "lr_schedule": pre["lr_schedule"],
        "value_to_trunk": pre["value_to_trunk"],
    }


def diagnose(
    cfg: Mapping[str, Any],
    data: Mapping[str, np.ndarray],
    train_games: int,
    holdout_games: int,
    model: str | None = None,
) -> dict[str, Any]:
    """The report of the module docstring for a model cloned per ``cfg`` (or a saved one)."""
    config = GameConfig(num_players=cfg["env"]["num_players"], mode=cfg["env"]["mode"])
    train_idx, test_idx = split_games(data["game"], train_games, holdout_games)
    held = Samples(data, test_idx, config)
    rng = np.random.default_rng(0)
    probe_idx = np.sort(rng.choice(train_idx, min(len(train_idx), len(test_idx)), replace=False))
    train_probe = Samples(data, probe_idx, config)
    prior = action_prior(data["action"][train_idx], config.layout.num_actions)
    report: dict[str, Any] = {
        "train_samples": int(len(train_idx)),
        "holdout_samples": int(len(test_idx)),
        "baselines": held.baselines(prior),
    }
    t0 = time.time()
    if model is not None:
        policy = load_policy(model)
        report["model"] = str(model)
    else:
        curve: list[dict[str, float]] = []
        policy, metrics = clone(cfg, data, train_idx, test_idx, lambda _e, m: curve.append(m))
        report["clone"] = metrics
        report["curve"] = curve
    report["seconds"] = round(time.time() - t0, 1)
    report["holdout"] = held.report(policy_scores(policy, data, test_idx))
    report["train"] = train_probe.report(policy_scores(policy, data, probe_idx))
    return report


def format_report(report: Mapping[str, Any]) -> str:
    """A plain-text table of a :func:`diagnose` report."""
    lines = [f"train samples {report['train_samples']}, held-out {report['holdout_samples']}"]
    t = report["baselines"]["teacher"]
    lines.append(
        f"teacher: tied {t['tied']:.3f} (mean tie set {t['mean_tie_set']:.2f}), exact-match "
        f"cap {t['exact_cap']:.3f}, same best on another determinization {t['alt_agree']:.3f}, "
        f"mean legal {t['mean_legal']:.1f}"
    )
    head = f"{'':28s}" + "".join(f"{m:>9s}" for m in METRICS)
    lines.append(head)

    def row(name: str, m: Mapping[str, float]) -> str:
        n = f" (n={m['n']})" if "n" in m else ""
        return f"{(name + n)[:28]:28s}" + "".join(f"{m.get(k, float('nan')):9.3f}" for k in METRICS)

    lines.append(row("uniform", report["baselines"]["uniform"]))
    lines.append(row("prior (most common)", report["baselines"]["prior"]))
    lines.append(row("policy, train probe", report["train"]))
    lines.append(row("policy, held-out", report["holdout"]))
    for group in ("segment", "phase", "legal"):
        lines.append(f"-- held-out by {group}")
        for name, m in report["holdout"][f"by_{group}"].items():
            lines.append(row(name, m))
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m training.imitation", description=__doc__.split("\n")[0]
    )
    p.add_argument("--data", required=True, help="the dataset .npz (collected first if missing)")
    p.add_argument("--games", type=int, default=1000, help="games to collect if --data is missing")
    p.add_argument("--workers", type=int, default=2, help="processes collecting the games")
    p.add_argument("--train-games", type=int, default=900)
    p.add_argument("--holdout-games", type=int, default=100)
    p.add_argument("--config", default=None, help="a training config (default.toml if none)")
    p.add_argument("--set", action="append", default=[], metavar="SECTION.KEY=VALUE")
    p.add_argument("--model", default=None, help="score this MaskablePPO zip instead of cloning")
    p.add_argument("--out", default=None, help="write the report as JSON here")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    import torch

    from training.ppo.teacher_data import load_or_collect

    args = build_parser().parse_args(argv)
    cfg = load_config(args.config, args.set)
    torch.set_num_threads(max(1, int(cfg["run"]["torch_threads"])))
    data = load_or_collect(
        Path(args.data), args.games, int(cfg["run"]["seed"]), cfg["env"],
        cfg["ppo"]["gamma"], cfg["pretrain"]["explore"], args.workers,
    )  # fmt: skip
    report = diagnose(cfg, data, args.train_games, args.holdout_games, args.model)
    report["settings"] = list(args.set)
    print(format_report(report), flush=True)
    if args.out:
        write_json(args.out, report)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
