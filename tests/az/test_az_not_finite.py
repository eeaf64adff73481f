"""Training never writes a non-finite weight (issue 50): the afterstate loss is a log-sum-exp
within each position, finite at any ``tau`` (one shift for the whole batch made it NaN at
``search.tau = 0.001``); a step whose loss or gradient is not finite stops the run with a
named error before anything is saved, so the last checkpoint stays and ``--resume`` goes on
from it; and a network that is not finite is never saved."""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from az_models import SPECS, random_net, teacher_positions

from agents.az import CheckpointError, load_checkpoint
from training.az import learner
from training.az.cli import main as az_main
from training.az.config import load_az_config
from training.az.learner import LossWeights, NotFinite, losses
from training.az.run import Run, start_run

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "training" / "configs" / "az_tiny.toml"
SMALL = ["net.hidden1=8", "net.hidden2=4", "eval.every=0", "eval.final=false"]


@pytest.mark.parametrize("key", ["mr2", "kd4"])
@pytest.mark.parametrize("tau", [1e-3, 1e-5])
def test_the_afterstate_loss_is_finite_at_a_small_tau(key: str, tau: float) -> None:
    """A network of the default size, whose values spread over more than 0.1 within a batch:
    with one shift for the batch, every move of a position below the batch's best underflowed
    (log 0: NaN); within each position the loss and its gradient stay finite."""
    torch.manual_seed(0)
    net = random_net(SPECS[key], 0, 128, 64).train()
    positions = teacher_positions(key)
    weights = LossWeights(afterstate_weight=1.0, tau=tau)
    loss, parts = losses(net, positions, weights)
    assert math.isfinite(parts["afterstate"]) and parts["afterstate"] > 0
    loss.backward()
    assert all(bool(torch.isfinite(p.grad).all()) for p in net.parameters() if p.grad is not None)


@pytest.fixture(scope="module")
def one_iteration(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rd = tmp_path_factory.mktemp("az_nan") / "run"
    start_run(TINY, [*SMALL, "run.iterations=1"], rd, resume=False, command="t", log=print)
    return rd


@pytest.fixture
def run_dir(one_iteration: Path, tmp_path: Path) -> Path:
    rd = tmp_path / "run"
    shutil.copytree(one_iteration, rd)
    return rd


def saved(rd: Path) -> dict[str, bytes]:
    """The run's model files: every checkpoint and model.pt."""
    return {str(p.relative_to(rd)): p.read_bytes() for p in sorted(rd.rglob("*.pt"))}


def test_a_nan_loss_stops_the_run_before_anything_is_saved(
    run_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The next iteration's loss turns NaN: exit status 2 naming it, every model file as it
    was (the last checkpoint valid), and --resume then goes on from that checkpoint."""
    before = saved(run_dir)
    real = learner.losses

    def nan_loss(*args: Any) -> tuple[torch.Tensor, dict[str, float]]:
        loss, parts = real(*args)
        return loss * math.nan, {**parts, "loss": math.nan}

    monkeypatch.setattr(learner, "losses", nan_loss)
    args = ["--run-dir", str(run_dir), "--resume", "--set", "run.iterations=2"]
    assert az_main(args) == 2
    err = capsys.readouterr().err
    assert "train: the loss is not finite" in err and "--resume" in err
    assert saved(run_dir) == before
    monkeypatch.setattr(learner, "losses", real)
    assert az_main(args) == 0
    net, meta = load_checkpoint(run_dir / "checkpoints" / "latest.pt")
    assert meta["provenance"]["iteration"] == 2
    assert all(bool(torch.isfinite(t).all()) for t in net.state_dict().values())


def test_a_non_finite_gradient_stops_the_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """A finite loss whose gradient is not: NotFinite before the optimizer moves a weight."""
    net = random_net(SPECS["mr2"], 0).train()
    positions = teacher_positions("mr2", 2)
    real = learner.losses

    def inf_grad(*args: Any) -> tuple[torch.Tensor, dict[str, float]]:
        loss, parts = real(*args)
        return loss + (net.b1 * math.inf).sum() * 0.0, parts  # d/d b1: inf x 0, NaN

    monkeypatch.setattr(learner, "losses", inf_grad)
    before = [p.detach().clone() for p in net.parameters()]
    optimizer = torch.optim.AdamW(net.parameters(), lr=0.1)
    buffer = learner.ReplayBuffer(10_000)
    buffer.add(positions, teacher=True)
    with pytest.raises(NotFinite, match="the gradient is not finite"):
        learner.train_steps(net, optimizer, buffer, 3, 32, np.random.default_rng(0), LossWeights())
    assert all(torch.equal(a, b) for a, b in zip(before, net.parameters(), strict=True))


def test_a_network_that_is_not_finite_is_never_saved(run_dir: Path) -> None:
    """The run's save refuses weights that are not finite before its first file: latest.pt,
    the kept iteration and model.pt stay as they were."""
    before = saved(run_dir)
    run = Run(load_az_config(TINY, [*SMALL, "run.iterations=1"]), run_dir, "t", log=print)
    assert run.restore()
    with torch.no_grad():
        run.net.l2.weight[0, 0] = math.inf
    with pytest.raises(CheckpointError, match="refused to write .*latest.pt"):
        run.save()
    with pytest.raises(CheckpointError, match="refused to write .*model.pt"):
        run.save(model_only=True)
    assert saved(run_dir) == before


def test_the_smallest_tau_trains(tmp_path: Path) -> None:
    """The issue's repro at the range's new edge: the tiny run with the default network and
    search.tau at its minimum learns with finite losses (0.001 made the warm start's loss NaN
    and is now refused by the config)."""
    from agents.az.search import MIN_TAU
    from training.common.config import ConfigError

    with pytest.raises(ConfigError, match=r"^search\.tau: expected a number >= 0\.003"):
        load_az_config(TINY, ["search.tau=0.001"])
    rd = tmp_path / "run"
    overrides = [f"search.tau={MIN_TAU}", "run.iterations=1", "eval.every=0", "eval.final=false"]
    start_run(TINY, overrides, rd, resume=False, command="t", log=print)
    rows = (rd / "progress.csv").read_text().splitlines()
    header = rows[0].split(",")
    losses_ = [r.split(",")[header.index("loss")] for r in rows[1:]]
    assert losses_ and all(math.isfinite(float(v)) for v in losses_ if v), losses_
    net, _ = load_checkpoint(rd / "model.pt")
    assert all(bool(torch.isfinite(t).all()) for t in net.state_dict().values())
