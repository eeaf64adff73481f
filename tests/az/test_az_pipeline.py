"""The az pipeline (training/az/) at a tiny scale on both games: a run end to end (checkpoints,
progress, evaluation with intervals, TensorBoard, a playable model), resume after a kill
losing at most the iteration in progress, the run lock, atomic checkpoints, named errors for
bad configs and foreign checkpoints, and --export."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from az_models import (
    KD_STUDY,
    SPECS,
    dense,
    native_state,
    random_net,
    teacher_positions,
    torch_values,
)

from agents.az import AzAgent, AzNet, CheckpointError, load_checkpoint
from agents.az.checkpoint import save_checkpoint, weights_digest
from training.az.cli import export
from training.az.cli import main as az_main
from training.az.config import load_az_config
from training.az.learner import LOSS_PARTS, LossWeights, losses, train_steps
from training.az.replay import ReplayBuffer, list_shards, read_shard, shard_path
from training.az.run import Run, start_run
from training.common.config import ConfigError
from training.common.outputs import OutputError, RunLock

ROOT = Path(__file__).resolve().parents[2]
TINY = ROOT / "training" / "configs" / "az_tiny.toml"
SMALL = ["net.hidden1=8", "net.hidden2=4"]
KD = [*SMALL, 'env.game="kingdomino"', "env.num_players=4", f'env.mode="{KD_STUDY}"',
      'eval.opponents=["greedy"]', "warmstart.games=8", "selfplay.games=4"]  # fmt: skip


def quiet(_: str) -> None:
    """No log line."""


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def weights(path: Path) -> list[torch.Tensor]:
    return list(load_checkpoint(path)[0].state_dict().values())


@pytest.fixture(scope="module")
def mr_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rd = tmp_path_factory.mktemp("az_mr") / "run"
    start_run(TINY, SMALL, rd, resume=False, command="test", log=quiet)
    return rd


@pytest.fixture(scope="module")
def kd_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rd = tmp_path_factory.mktemp("az_kd") / "run"
    start_run(TINY, KD, rd, resume=False, command="test", log=quiet)
    return rd


def check_run(rd: Path, key: str, opponent: str) -> None:
    """A finished tiny run: its files, its rows, its model."""
    for name in ("config.toml", "model.pt", "checkpoints/latest.pt", "checkpoints/iter_00000.pt",
                 "progress.csv", "eval.csv", "learning_curve.png"):  # fmt: skip
        assert (rd / name).is_file(), name
    assert not [p for p in rd.rglob(".*tmp*")]  # no temporary file left behind
    progress = rows(rd / "progress.csv")
    assert [int(r["iteration"]) for r in progress] == [0, 1, 2]
    assert all(int(r["new_positions"]) > 50 for r in progress)
    # [train] overlap: an iteration learns the one before's positions while it plays, so the
    # first self-play iteration learns nothing and the last one's wait for the run's end
    assert [int(r["train_steps"]) > 0 for r in progress] == [True, False, True]
    assert float(progress[0]["loss"]) > 0 and float(progress[2]["loss"]) > 0
    assert progress[1]["loss"] == ""  # nothing learned: no loss recorded
    # the warm start keeps afterstates (warmstart.afterstates), self-play none (k = 0)
    assert float(progress[0]["afterstate"]) > 0 and "policy" not in progress[0]
    assert all(float(r["afterstate"] or 0) == 0.0 for r in progress[1:])
    cfg = load_az_config(rd / "config.toml")
    assert int(progress[-1]["games"]) == cfg["warmstart"]["games"] + 2 * cfg["selfplay"]["games"]
    assert all(float(r["evals_per_second"]) > 0 for r in progress[1:])  # self-play searched
    evals = rows(rd / "eval.csv")
    assert [int(r["step"]) for r in evals] == [int(progress[0]["games"]), int(progress[2]["games"])]
    for r in evals:
        assert r["opponent"] == opponent and int(r["games"]) == 2
        assert 0.0 <= float(r["ci_low"]) <= float(r["win_rate"]) <= float(r["ci_high"]) <= 1.0
        assert float(r["ci_high"]) - float(r["ci_low"]) > 0.3  # 2 games: a wide interval
    net, meta = load_checkpoint(rd / "model.pt")
    # the input scale: set from the warm start's positions before the first step, kept after
    teacher = read_shard(shard_path(rd, 0, 0))
    fresh = AzNet(net.shape)
    fresh.set_input_scale(teacher.obs_idx.astype(np.int64), teacher.obs_val, len(teacher))
    assert torch.equal(net.input_scale, fresh.input_scale) and net.input_scale.max() > 1.5
    prov = meta["provenance"]
    assert prov["iteration"] == 2
    # model.pt learned the last iteration's positions; the checkpoint keeps them pending
    _, latest = load_checkpoint(rd / "checkpoints" / "latest.pt")
    assert latest["progress"]["pending"] == int(progress[2]["new_positions"])
    steps = -(-int(progress[2]["new_positions"]) * 2 // 64)  # sample_reuse 2, batch 64
    assert prov["train_steps"] == latest["provenance"]["train_steps"] + steps
    assert prov["positions"] == sum(int(r["new_positions"]) for r in progress)
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    assert [s["git_commit"] for s in prov["starts"]] == [head.stdout.strip()]
    assert meta["search"] == cfg["search"]  # the model plays with the config's [search]
    assert net.shape.hidden1 == 8 and net.shape.spec.text == SPECS[key].text
    agent = AzAgent(seed=0, path=rd / "model.pt")
    state = native_state(SPECS[key], 1).to_state()
    while not state.is_terminal:
        state.apply(agent.choose(state))


def test_a_tiny_moon_river_run(mr_run: Path) -> None:
    check_run(mr_run, "mr2", "random")


def test_a_tiny_kingdomino_run(kd_run: Path) -> None:
    check_run(kd_run, "kd4", "greedy")


def test_tensorboard_scalars_are_written(mr_run: Path) -> None:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(mr_run / "tb"))
    acc.Reload()
    tags = set(acc.Tags()["scalars"])
    assert {
        "train/loss",
        "train/afterstate",
        "train/value",
        "selfplay/games",
        "eval/win_rate_random",
    } <= tags
    # the first self-play iteration learns nothing while it plays ([train] overlap): no loss
    assert len(acc.Scalars("train/loss")) == 2 and len(acc.Scalars("eval/win_rate_random")) == 2


def test_resume_continues_where_the_run_stopped(mr_run: Path, tmp_path: Path) -> None:
    """A run of 1 iteration resumed for 2 ends with the weights of the run that did 2 at once
    (the replay window reloaded from its shards, the optimizer from its checkpoint)."""
    rd = tmp_path / "run"
    start_run(TINY, [*SMALL, "run.iterations=1"], rd, resume=False, command="test", log=quiet)
    assert [r["iteration"] for r in rows(rd / "progress.csv")] == ["0", "1"]
    lines: list[str] = []
    run = start_run(None, ["run.iterations=2"], rd, resume=True, command="test", log=lines.append)
    assert run.iteration == 2 and "after iteration 1" in lines[0]
    assert [r["iteration"] for r in rows(rd / "progress.csv")] == ["0", "1", "2"]
    for a, b in zip(weights(rd / "model.pt"), weights(mr_run / "model.pt"), strict=True):
        assert torch.equal(a, b)
    # the warm start's, the first session's last model (eval.final), iteration 2's (every 2)
    assert [int(r["step"]) for r in rows(rd / "eval.csv")] == [16, 24, 32]


def test_a_resumed_run_learns_at_the_rate_it_is_given(tmp_path: Path) -> None:
    """``--set train.learning_rate=X`` on resume sets the rate the optimizer steps with (and the
    decay likewise), not at the rate saved in its checkpoint (the moments carry over: the test
    above)."""
    rd = tmp_path / "run"
    start_run(TINY, [*SMALL, "run.iterations=1"], rd, resume=False, command="test", log=quiet)
    saved = torch.load(rd / "checkpoints" / "latest.pt", weights_only=True)["optimizer"]
    assert [g["lr"] for g in saved["param_groups"]] == [1e-3]
    changes = ["train.learning_rate=0.0002", "train.weight_decay=0.003", "run.iterations=2"]
    run = start_run(None, changes, rd, resume=True, command="test", log=quiet)
    assert run.iteration == 2
    groups = run.optimizer.param_groups
    assert [(g["lr"], g["weight_decay"]) for g in groups] == [(0.0002, 0.003)]


@pytest.mark.parametrize("overlap", [False, True])
def test_the_final_share_of_a_run_learns_at_the_final_rate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, overlap: bool
) -> None:
    """``train.final_learning_rate`` is the rate of the positions of the iterations that end
    in the budget's last ``train.final_share`` (here the last two of four; with a share
    smaller than one iteration, the last), with or without overlap the same; the rest learn at
    ``train.learning_rate``; the checkpoint and TensorBoard show it."""
    import training.az.run as az_run

    seen: list[float] = []

    def spy(net: Any, optimizer: torch.optim.Optimizer, *args: Any, **kw: Any) -> Any:
        seen.append(optimizer.param_groups[0]["lr"])
        return train_steps(net, optimizer, *args, **kw)

    monkeypatch.setattr(az_run, "train_steps", spy)
    changes = [*SMALL, f"train.overlap={str(overlap).lower()}", "warmstart.games=0",
               "train.final_learning_rate=0.0002"]  # fmt: skip
    for share, iterations, want in (("0.2", 3, [1e-3, 1e-3, 2e-4]), ("0.5", 4, [1e-3, 1e-3, 2e-4, 2e-4])):  # fmt: skip
        seen.clear()
        rd = tmp_path / share
        more = [f"train.final_share={share}", f"run.iterations={iterations}"]
        start_run(TINY, [*changes, *more], rd, resume=False, command="t", log=quiet)
        assert seen == pytest.approx(want)
    saved = torch.load(rd / "checkpoints" / "latest.pt", weights_only=True)["optimizer"]
    assert [g["lr"] for g in saved["param_groups"]] == pytest.approx([2e-4])
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    acc = EventAccumulator(str(rd / "tb"))
    acc.Reload()
    assert [s.value for s in acc.Scalars("train/learning_rate")][-1] == pytest.approx(2e-4)


def test_without_overlap_each_iteration_learns_its_own_games(tmp_path: Path) -> None:
    rd = tmp_path / "run"
    start_run(TINY, [*SMALL, "train.overlap=false"], rd, resume=False, command="test", log=quiet)
    progress = rows(rd / "progress.csv")
    assert all(int(r["train_steps"]) > 0 and float(r["loss"]) > 0 for r in progress)
    _, latest = load_checkpoint(rd / "checkpoints" / "latest.pt")
    _, model = load_checkpoint(rd / "model.pt")
    assert latest["progress"]["pending"] == 0
    assert model["provenance"]["train_steps"] == latest["provenance"]["train_steps"]


def test_a_run_killed_before_its_flush_flushes_on_resume(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Killed after the last iteration's checkpoint but before model.pt learned its positions:
    the resumed run (its budget spent) learns them into model.pt, as the unbroken run did."""
    rd = tmp_path / "run"

    def killed(self: Run) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(Run, "flush", killed)
    with pytest.raises(KeyboardInterrupt):
        start_run(TINY, SMALL, rd, resume=False, command="test", log=quiet)
    monkeypatch.undo()
    _, before = load_checkpoint(rd / "model.pt")
    _, latest = load_checkpoint(rd / "checkpoints" / "latest.pt")
    assert before["provenance"]["train_steps"] == latest["provenance"]["train_steps"]
    lines: list[str] = []
    start_run(None, [], rd, resume=True, command="test", log=lines.append)
    _, after = load_checkpoint(rd / "model.pt")
    assert after["provenance"]["train_steps"] > latest["provenance"]["train_steps"]
    assert any("learned the last iteration's positions" in x for x in lines)


def test_overlapped_runs_both_and_passes_on_errors() -> None:
    import threading

    from training.az.learner import Stopped, overlapped, stop_check

    seen: list[str] = []
    out = overlapped(lambda: "played", lambda stop: seen.append("learned") or 7)
    assert out[:2] == ("played", 7) and seen == ["learned"] and min(out[2:]) >= 0
    assert overlapped(lambda: 1, None)[:2] == (1, None)

    def bad_learn(stop: threading.Event) -> None:
        raise ValueError("learner broke")

    with pytest.raises(ValueError, match="learner broke"):
        overlapped(lambda: seen.append("played"), bad_learn)
    assert seen[-1] == "played"  # the play finished first
    steps: list[int] = []

    def long_learn(stop: threading.Event) -> None:
        check = stop_check(stop, steps.append)
        while True:  # a learner that only a stop ends
            check(1)
            stop.wait(0.001)

    def bad_play() -> None:
        while not steps:
            pass
        raise RuntimeError("play broke")

    with pytest.raises(RuntimeError, match="play broke"):
        overlapped(bad_play, long_learn)  # returns: the learner stopped at its next step
    with pytest.raises(Stopped):
        stopped = threading.Event()
        stopped.set()
        stop_check(stopped)(1)


def test_a_run_killed_mid_iteration_loses_only_that_iteration(
    mr_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rd = tmp_path / "run"
    shutil.copytree(mr_run, rd)

    def killed(self: Run, iteration: int, new: int, **_: Any) -> None:
        raise KeyboardInterrupt  # beside the play of iteration 3 (raised once its shards are written)

    monkeypatch.setattr(Run, "learn", killed)
    with pytest.raises(KeyboardInterrupt):
        start_run(None, ["run.iterations=3"], rd, resume=True, command="test", log=quiet)
    assert any(it == 3 for it, _, _ in list_shards(rd))
    _, meta = load_checkpoint(rd / "checkpoints" / "latest.pt")
    assert meta["progress"]["iteration"] == 2  # the last finished iteration
    assert not (rd / ".lock").exists() or not _locked(rd)  # the lock went with the process
    monkeypatch.undo()
    lines: list[str] = []
    run = start_run(None, ["run.iterations=3"], rd, resume=True, command="test", log=lines.append)
    assert run.iteration == 3
    assert "after iteration 2" in lines[0] and "1 unfinished shards dropped" in lines[0]
    assert [int(r["iteration"]) for r in rows(rd / "progress.csv")] == [0, 1, 2, 3]


def _locked(rd: Path) -> bool:
    try:
        with RunLock(rd):
            return False
    except OutputError:
        return True


def test_a_locked_or_used_run_dir_is_refused(mr_run: Path) -> None:
    with RunLock(mr_run), pytest.raises(OutputError, match="in use by another run"):
        start_run(None, [], mr_run, resume=True, command="test", log=quiet)
    with pytest.raises(OutputError, match="pass --resume"):
        start_run(TINY, SMALL, mr_run, resume=False, command="test", log=quiet)
    with pytest.raises(ConfigError, match=r"^net\.hidden1: cannot change on --resume"):
        start_run(None, ["net.hidden1=9"], mr_run, resume=True, command="test", log=quiet)
    with pytest.raises(ConfigError, match=r"^env\.num_players: cannot change on --resume"):
        start_run(None, ["env.num_players=4"], mr_run, resume=True, command="test", log=quiet)


def test_checkpoints_are_atomic(
    mr_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A save that dies while writing leaves the previous checkpoint whole and no partial
    file behind."""
    import agents.az.checkpoint as checkpoint

    path = tmp_path / "latest.pt"
    shutil.copyfile(mr_run / "checkpoints" / "latest.pt", path)
    before = path.read_bytes()
    net, meta = load_checkpoint(path)

    def dies(blob: Any, f: Any) -> None:
        Path(f).write_bytes(b"PK\x03\x04 half a file")
        raise OSError("disk full")

    monkeypatch.setattr(checkpoint.torch, "save", dies)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(path, net, meta["search"], meta["provenance"])
    assert path.read_bytes() == before and load_checkpoint(path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["latest.pt"]


@pytest.mark.parametrize(
    ("override", "key"),
    [("net.hiden1=4", "net.hiden1"), ("search.k=33", "search.k"), ("search.tau=0", "search.tau"),
     ("train.learning_rate=-1", "train.learning_rate"), ('eval.opponents=["nobody"]', "eval.opponents"),
     ("env.num_players=5", "env.num_players"), ('env.game="chess"', "env.game"),
     ('env.mode="nonsense"', "env"), ("selfplay.lam=2", "selfplay.lam"), ("colour.red=1", "colour"),
     ("run.iterations=0", "run.iterations"), ('run.device="tpu"', "run.device"),
     ("selfplay.afterstates=1.5", "selfplay.afterstates"),
     ("warmstart.afterstates=-1", "warmstart.afterstates"), ("selfplay.keep=0", "selfplay.keep"),
     ("train.final_share=1.5", "train.final_share"), ("train.final_share=0", "train.final_share"),
     ("train.final_learning_rate=-0.1", "train.final_learning_rate"),
     ("train.overlap=2", "train.overlap"),
     # keys removed from the pipeline, at any value but the one they now always take
     ('search.policy="head"', "search.policy"), ('search.policy="tree"', "search.policy"),
     ("search.symmetries=8", "search.symmetries"), ("search.move_symmetries=2", "search.move_symmetries"),
     ("train.symmetries=8", "train.symmetries"), ("train.policy_weight=0.5", "train.policy_weight"),
     ("selfplay.search_share=0.5", "selfplay.search_share"),
     # issue 50: a tau whose pi can be NaN; sizes that took gigabytes before any check
     ("search.tau=0.001", "search.tau"), ("train.batch_size=1000000000000", "train.batch_size"),
     ("selfplay.games=1000000000", "selfplay.games"), ("warmstart.games=10000000", "warmstart.games"),
     ("replay.window=10000000000", "replay.window"), ("eval.games=1000000000", "eval.games")],
)  # fmt: skip
def test_bad_config_names_the_key(override: str, key: str) -> None:
    more = ["run.max_minutes=0"] if "iterations" in key else []
    with pytest.raises(ConfigError, match=rf"^{re.escape(key)}"):
        load_az_config(TINY, [*SMALL, override, *more])


REMOVED = {"search.policy": ('"afterstate"', '"head"'), "search.symmetries": ("1", "8"),
           "search.move_symmetries": ("1", "2"), "train.symmetries": ("1", "8"),
           "train.policy_weight": ("0.0", "0.5"), "selfplay.search_share": ("1.0", "0.25")}  # fmt: skip
"""The keys removed from the pipeline: the value each now always takes, and another."""


@pytest.mark.parametrize("dotted", REMOVED)
def test_a_removed_key_reads_past_at_its_value_and_is_refused_at_another(
    dotted: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A key the pipeline no longer has, in a config file (a run's config.toml written before,
    the shipped models' among them) or in ``--set``: at the value it now always takes, read
    past (the config is the one without it); at another, a ConfigError naming the key and
    saying it was removed, before anything is written (the CLI: exit 2)."""
    section, key = dotted.split(".")
    kept, other = REMOVED[dotted]
    plain = load_az_config(None, SMALL)
    for value, refused in ((kept, False), (other, True)):
        path = tmp_path / f"{key}_{refused}.toml"
        path.write_text(f"[{section}]\n{key} = {value}\n")
        for source in ((path, SMALL), (None, [*SMALL, f"{dotted}={value}"])):
            if not refused:
                assert load_az_config(*source) == plain
                continue
            with pytest.raises(ConfigError, match=rf"^{re.escape(dotted)}: removed from the az"):
                load_az_config(*source)
    rc = az_main(["--config", str(TINY), "--run-dir", str(tmp_path / "r"), "--set",
                  f"{dotted}={other}"])  # fmt: skip
    assert rc == 2 and f"{dotted}: removed" in capsys.readouterr().err
    assert not (tmp_path / "r" / "config.toml").exists()


def test_the_shipped_models_configs_read() -> None:
    """Every shipped az model's config.toml (written with keys since removed, at the value
    each now always takes) reads as a config of its game."""
    folders = sorted((ROOT / "agents" / "checkpoints").glob("az_*/config.toml"))
    assert len(folders) >= 4
    for path in folders:
        cfg = load_az_config(path)
        assert "policy" not in cfg["search"] and "symmetries" not in cfg["train"], path


def test_cli_reports_a_bad_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = az_main(["--config", str(TINY), "--run-dir", str(tmp_path / "r"), "--set", "search.k=-1"])
    assert rc == 2 and "search.k" in capsys.readouterr().err
    assert not (tmp_path / "r" / "config.toml").exists()


def test_foreign_checkpoints_are_refused(
    mr_run: Path, models: dict[str, Path], tmp_path: Path
) -> None:
    """warmstart.init naming a foreign file, a model of another game or a narrower [net] is a
    ConfigError naming the key; a run whose latest.pt is not an az model refuses to resume,
    naming the file (the CLI: exit 2)."""
    foreign = tmp_path / "foreign.pt"
    torch.save({"state_dict": {}}, foreign)
    for init, message in ((foreign, "not an az model"), (models["kd4"], "shape"), (models["mr2"], "shape"),
                          (tmp_path / "none.pt", "no az model file")):  # fmt: skip
        cfg = load_az_config(TINY, [*SMALL, f'warmstart.init="{init}"', "net.hidden1=7"])
        with pytest.raises(ConfigError, match=rf"^warmstart\.init: .*{message}"):
            Run(cfg, tmp_path / "r", "test", log=quiet).initialize()
    rd = tmp_path / "run"
    shutil.copytree(mr_run, rd)
    shutil.copyfile(foreign, rd / "checkpoints" / "latest.pt")
    with pytest.raises(CheckpointError, match=r"latest\.pt.*not an az model"):
        start_run(None, ["run.iterations=3"], rd, resume=True, command="test", log=quiet)
    assert az_main(["--run-dir", str(rd), "--resume", "--set", "run.iterations=3"]) == 2


def test_a_run_starts_from_the_model_init_names(models: dict[str, Path], tmp_path: Path) -> None:
    run = Run(
        load_az_config(TINY, [*SMALL, f'warmstart.init="{models["mr2"]}"']),
        tmp_path / "a",
        "t",
        log=quiet,
    )
    run.initialize()
    for a, b in zip(
        run.net.state_dict().values(),
        load_checkpoint(models["mr2"])[0].state_dict().values(),
        strict=True,
    ):
        assert torch.equal(a, b)
    assert run.init["path"] == str(models["mr2"]) and run.init["command"] == "tests/az fixture"
    assert "init" not in run.init  # the fixture started from random weights


def test_a_run_with_the_features_starts_from_a_model_without_them(
    models: dict[str, Path], tmp_path: Path
) -> None:
    """``warmstart.init`` of a model without the territory features into a run with them: the
    model's weights, the features' rows zero, recorded in the init; its own inputs keep their
    scale at the first step, the features get theirs. Another shape is still refused."""
    init = f'warmstart.init="{models["mr2"]}"'
    cfg = load_az_config(TINY, [*SMALL, init, "net.features=true", "warmstart.games=0",
                                "run.iterations=1"])  # fmt: skip
    run = Run(cfg, tmp_path / "a", "t", log=quiet)
    run.initialize()
    old = load_checkpoint(models["mr2"])[0]
    n = old.shape.inputs
    assert run.init["features_added"] == n and run.shape.inputs > n
    w1 = run.net.w1.detach()
    assert torch.equal(w1[:n], old.w1.detach()) and not w1[n:].any()
    run = start_run(TINY, [*SMALL, init, "net.features=true", "warmstart.games=0",
                           "run.iterations=1"], tmp_path / "b", resume=False, command="t",
                    log=quiet)  # fmt: skip
    scale = run.net.input_scale
    assert torch.equal(scale[:n], old.input_scale) and not torch.all(scale[n:] == 1.0)
    with pytest.raises(ConfigError, match="is a network of shape"):
        Run(load_az_config(TINY, [*SMALL, init, "net.hidden1=7"]), tmp_path / "c", "t",
            log=quiet).initialize()  # fmt: skip


def test_a_wider_run_starts_from_a_narrower_model(models: dict[str, Path], tmp_path: Path) -> None:
    """``warmstart.init`` of a model into a run with wider layers: the model's weights in the
    old units, nothing out of the new ones (the run starts as the model), recorded in the
    init; the input scale kept (its inputs are the model's)."""
    init = f'warmstart.init="{models["mr2"]}"'
    wider = [init, "net.hidden1=16", "net.hidden2=6", "warmstart.games=0", "run.iterations=1"]
    run = start_run(TINY, wider, tmp_path / "a", resume=False, command="t", log=quiet)
    old = load_checkpoint(models["mr2"])[0]
    assert run.init["widened_from"] == [8, 4] and "features_added" not in run.init
    assert torch.equal(run.net.input_scale, old.input_scale)
    _, meta = load_checkpoint(tmp_path / "a" / "model.pt")
    assert meta["provenance"]["init"]["widened_from"] == [8, 4]


def test_a_chain_of_inits_keeps_every_link(models: dict[str, Path], tmp_path: Path) -> None:
    """A run started from a model that was itself started from another records both: the
    games behind a continued model add up from its provenance alone."""
    net, meta = load_checkpoint(models["mr2"])
    first = {"path": "first.pt", "games": 100, "command": "the first run"}
    middle = save_checkpoint(
        tmp_path / "middle.pt", net, meta["search"],
        {"command": "the second run", "games": 40, "init": first},
    )  # fmt: skip
    run = Run(load_az_config(TINY, [*SMALL, f'warmstart.init="{middle}"']), tmp_path / "c", "t",
              log=quiet)  # fmt: skip
    run.initialize()
    assert run.init["games"] == 40 and run.init["init"] == first


def test_export_copies_a_runs_model_or_a_kept_iteration(mr_run: Path, tmp_path: Path) -> None:
    """--export RUN_DIR ships the latest model, --export .../iter_<N>.pt that iteration's, each
    with the run's records up to it; an existing model is kept without --force; a damaged file
    is refused before anything is written."""
    latest = export(mr_run, tmp_path / "latest")
    assert latest.read_bytes() == (mr_run / "model.pt").read_bytes()
    prov = json.loads((tmp_path / "latest" / "provenance.json").read_text())
    assert prov["iteration"] == 2 and prov["run_dir"] == str(mr_run)
    assert len(rows(tmp_path / "latest" / "progress.csv")) == 3
    assert len(rows(tmp_path / "latest" / "eval.csv")) == 2
    assert (tmp_path / "latest" / "learning_curve.png").is_file()
    assert (tmp_path / "latest" / "config.toml").read_bytes() == (
        mr_run / "config.toml"
    ).read_bytes()
    kept = mr_run / "checkpoints" / "iter_00000.pt"
    assert az_main(["--export", str(kept), "--out", str(tmp_path / "zero")]) == 0
    assert [r["iteration"] for r in rows(tmp_path / "zero" / "progress.csv")] == ["0"]
    # the evaluations up to its games (eval.csv's step; once compared with its positions)
    assert len(rows(tmp_path / "zero" / "eval.csv")) == 1
    with pytest.raises(OutputError, match="--force"):
        export(kept, tmp_path / "latest")
    (tmp_path / "latest" / "stale.txt").write_text("from before")
    with pytest.raises(OutputError, match="'stale.txt'"):  # not the export's: never replaced
        export(kept, tmp_path / "latest", force=True)
    assert (tmp_path / "latest" / "stale.txt").read_text() == "from before"
    assert latest.read_bytes() == (mr_run / "model.pt").read_bytes()
    prov["exported_files"].append("stale.txt")  # as if the export before had written it
    (tmp_path / "latest" / "provenance.json").write_text(json.dumps(prov))
    export(kept, tmp_path / "latest", force=True)  # the whole folder replaced
    assert latest.read_bytes() == kept.read_bytes()
    assert not (tmp_path / "latest" / "stale.txt").exists()
    broken = tmp_path / "broken.pt"
    broken.write_bytes(kept.read_bytes()[:100])
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        export(broken, tmp_path / "nothing")
    assert not (tmp_path / "nothing").exists()
    # the exported folder is a model az plays
    agent = AzAgent(seed=0, path=tmp_path / "latest")
    agent.check_game(SPECS["mr2"].config())


def test_export_can_change_play_settings_with_a_reason(
    mr_run: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """--export --play KEY=VALUE --why TEXT changes the exported model's play settings (the
    agent plays them) and records the change and its reason in its provenance; the weights
    and the run's config stay as trained. A bad key or value, a value out of range or a
    missing reason is refused before anything is written."""
    out = tmp_path / "tuned"
    args = ["--export", str(mr_run), "--out", str(out), "--play", "rollout_temp=0.5",
            "--play", "search.k=3", "--why", "sampled rollouts won more"]  # fmt: skip
    assert az_main(args) == 0
    net, meta = load_checkpoint(out / "model.pt")
    trained_net, trained = load_checkpoint(mr_run / "model.pt")
    assert meta["search"] == {**trained["search"], "rollout_temp": 0.5, "k": 3}
    pairs = zip(net.state_dict().values(), trained_net.state_dict().values(), strict=True)
    assert all(torch.equal(a, b) for a, b in pairs)
    note = meta["provenance"]["play_settings"]
    assert f"search.rollout_temp {trained['search']['rollout_temp']} -> 0.5" in note
    assert "search.k" in note and "sampled rollouts won more" in note
    assert json.loads((out / "provenance.json").read_text())["play_settings"] == note
    assert (out / "config.toml").read_bytes() == (mr_run / "config.toml").read_bytes()
    agent = AzAgent(seed=0, path=out)
    agent.load_for(SPECS["mr2"].config())
    assert agent.settings is not None and (agent.settings.k, agent.settings.rollout_temp) == (
        3,
        0.5,
    )
    for bad, message in ((["--play", "speed=2", "--why", "x"], "KEY one of"),
                         (["--play", "k=two", "--why", "x"], "k: expected an integer"),
                         (["--play", "k=999", "--why", "x"], "k: expected an integer in"),
                         (["--play", "k=3"], "--why"),
                         (["--play", "symmetries=1", "--why", "x"], "KEY one of"),  # removed
                         (["--play", "policy=head", "--why", "x"], "KEY one of")):  # fmt: skip
        rc = az_main(["--export", str(mr_run), "--out", str(tmp_path / "bad"), *bad])
        assert rc == 2 and message in capsys.readouterr().err
        assert not (tmp_path / "bad").exists()


def test_a_shipped_folder_re_exports_keeping_its_origin(mr_run: Path, tmp_path: Path) -> None:
    """A model folder exported before can be exported again (new play settings for a shipped
    model): the run and model it came from stay named, and the files added to it; its recorded
    evaluations stay when the play is the same and go when the play settings change (they
    measured the old ones)."""
    shipped = tmp_path / "shipped"
    export(mr_run, shipped)
    prov = json.loads((shipped / "provenance.json").read_text())
    prov["evaluations"] = [{"agent": "az", "opponent": "heuristic", "win_rate": 0.5}]
    (shipped / "provenance.json").write_text(json.dumps(prov))
    (shipped / "curve.csv").write_text("hours,win_rate\n0.5,0.1\n")  # added by hand
    same = json.loads((export(shipped, tmp_path / "same").parent / "provenance.json").read_text())
    assert (same["run_dir"], same["model"]) == (str(mr_run), str(mr_run / "model.pt"))
    assert same["evaluations"] == prov["evaluations"]
    export(shipped, shipped, force=True, play={"rollout_temp": 0.5}, why="sampled")  # in place
    tuned = json.loads((shipped / "provenance.json").read_text())
    assert (tuned["run_dir"], tuned["model"]) == (str(mr_run), str(mr_run / "model.pt"))
    assert "evaluations" not in tuned and "sampled" in tuned["play_settings"]
    assert load_checkpoint(shipped)[1]["search"]["rollout_temp"] == 0.5
    assert (shipped / "curve.csv").read_text() == "hours,win_rate\n0.5,0.1\n"
    k = load_checkpoint(shipped)[1]["search"]["k"]
    # a key passed again at its value is no change: only the moved ones are noted
    export(shipped, shipped, force=True, play={"k": 2, "rollout_temp": 0.5}, why="cheaper")
    note = json.loads((shipped / "provenance.json").read_text())["play_settings"]
    assert (
        note
        == tuned["play_settings"]
        + f"; then play settings changed at export: search.k {k} -> 2 (cheaper)"
    )
    with pytest.raises(ValueError, match="nothing changes"):  # and a change of nothing is refused
        export(shipped, tmp_path / "none", play={"k": 2}, why="again")
    assert not (tmp_path / "none").exists()


@pytest.mark.parametrize("key", ["mr2", "kd4"])
def test_learning_lowers_the_loss(key: str) -> None:
    """Teacher positions learned for 120 steps (the input scale set from them first, as a run
    does): the afterstate loss (the value's ranking of the moves against the teacher's) and
    the value loss both fall well below their start."""
    buf = ReplayBuffer(10_000)
    positions = teacher_positions(key)
    buf.add(positions, teacher=True)
    torch.manual_seed(0)
    net = random_net(SPECS[key], seed=0, hidden1=32, hidden2=16)
    net.set_input_scale(positions.obs_idx.astype(np.int64), positions.obs_val, len(positions))
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3)
    fixed = buf.sample(np.random.default_rng(0), 256)
    w = LossWeights()
    before = losses(net, fixed, w)[1]
    train_steps(net, opt, buf, 120, 64, np.random.default_rng(1), w)
    after = losses(net, fixed, w)[1]
    assert after["afterstate"] < 0.85 * before["afterstate"]
    assert after["value"] < 0.5 * before["value"]


def test_the_loss_parts_are_what_they_say() -> None:
    """The loss parts against a direct computation: the value's squared error to the mixed
    target over every row; the afterstate loss the cross-entropy of pi with softmax(value of
    each move's afterstate / tau) over the rows with afterstates (pi is NaN on rows seen by
    another seat than the actor's: none there); the total their weighted sum."""
    pos = teacher_positions("kd4", games=2)
    has_pi = ~np.isnan(pos.pi[pos.legal_ptr[:-1]])
    aft_rows = np.flatnonzero(np.diff(pos.aft_ptr))
    assert 0 < has_pi.sum() < len(pos) and aft_rows.size > 0 and np.all(has_pi[aft_rows])
    net = random_net(SPECS["kd4"], seed=2)
    w = LossWeights(value_weight=0.7, outcome_mix=0.25, afterstate_weight=2.0, tau=0.2)
    loss, parts = losses(net, pos, w)
    size = SPECS["kd4"].observation_size
    obs = np.stack([dense(pos.obs_idx, pos.obs_val, pos.obs_ptr, i, size) for i in range(len(pos))])
    values = torch_values(net, obs)
    target = 0.25 * pos.z + 0.75 * pos.target
    value = float(np.mean((values - target) ** 2))
    after = []
    for i in aft_rows:
        a0, a1 = pos.aft_ptr[i], pos.aft_ptr[i + 1]
        rows_ = np.stack([dense(pos.aft_idx, pos.aft_val, pos.aft_obs_ptr, j, size)
                          for j in range(a0, a1)])  # fmt: skip
        v = torch_values(net, rows_) / 0.2
        pi = pos.pi[pos.legal_ptr[i] : pos.legal_ptr[i + 1]]
        after.append(-np.sum(pi * (v - np.logaddexp.reduce(v))))
    assert parts["value"] == pytest.approx(value, rel=1e-4)
    assert parts["afterstate"] == pytest.approx(float(np.mean(after)), rel=1e-4)
    total = 0.7 * parts["value"] + 2.0 * parts["afterstate"]
    assert float(loss.detach()) == pytest.approx(total, rel=1e-4)
    assert set(parts) == set(LOSS_PARTS)
    _, value_only = losses(net, pos, LossWeights(afterstate_weight=0.0))
    assert value_only["afterstate"] == 0.0 and value_only["loss"] == value_only["value"]
    assert value_only["value"] == pytest.approx(
        float(np.mean((values - pos.target) ** 2)), rel=1e-4
    )


def test_an_old_model_without_the_input_scale_loads(
    models: dict[str, Path], mr_run: Path, tmp_path: Path
) -> None:
    """A model saved before the network had its input scale (same file version) loads with
    the scale of 1 it was trained with (it was refused as "another network shape"), plays
    the same numbers, and a run resumes from such a checkpoint."""
    blob = torch.load(models["mr2"], weights_only=True)
    del blob["state_dict"]["input_scale"]
    del blob["provenance"]["weights_sha256"]  # written since: an old file has none
    torch.save(blob, tmp_path / "old.pt")
    old, _ = load_checkpoint(tmp_path / "old.pt")
    new, _ = load_checkpoint(models["mr2"])
    assert torch.equal(old.input_scale, torch.ones(old.shape.inputs))
    assert np.array_equal(old.flat_weights(), new.flat_weights())
    rd = tmp_path / "run"
    shutil.copytree(mr_run, rd)
    blob = torch.load(rd / "checkpoints" / "latest.pt", weights_only=True)
    del blob["state_dict"]["input_scale"]
    del blob["provenance"]["weights_sha256"]
    torch.save(blob, rd / "checkpoints" / "latest.pt")
    run = Run(load_az_config(rd / "config.toml"), rd, "test", log=quiet)
    assert run.restore() and run.iteration == 2
    assert torch.equal(run.net.input_scale, torch.ones(run.shape.inputs))


def test_a_run_begun_with_the_policy_head_resumes(mr_run: Path, tmp_path: Path) -> None:
    """A run made while the network had its policy head (its checkpoint's weights and optimizer
    state with the head's two parameters last, its config.toml with the removed keys at their
    values, its progress.csv with the head's loss columns) resumes: the head is read past, the
    optimizer keeps every other moment, and the new rows keep the file's columns."""
    rd = tmp_path / "run"
    shutil.copytree(mr_run, rd)
    latest = rd / "checkpoints" / "latest.pt"
    blob = torch.load(latest, weights_only=True)
    net = load_checkpoint(latest)[0]
    a, h2 = net.shape.actions, net.shape.hidden2
    blob["state_dict"] = {
        **blob["state_dict"],
        "wp.weight": torch.randn(a, h2),
        "bp": torch.zeros(a),
    }
    blob["provenance"]["weights_sha256"] = weights_digest(blob["state_dict"])
    opt = blob["optimizer"]
    ids = opt["param_groups"][0]["params"]
    step = opt["state"][ids[0]]["step"]
    for i, shape in ((len(ids), (a, h2)), (len(ids) + 1, (a,))):
        opt["state"][i] = {"step": step.clone(), "exp_avg": torch.ones(shape),
                           "exp_avg_sq": torch.ones(shape)}  # fmt: skip
    opt["param_groups"][0]["params"] = [*ids, len(ids), len(ids) + 1]
    torch.save(blob, latest)
    moments = {k: v["exp_avg"].clone() for k, v in opt["state"].items() if k in ids}
    config = (rd / "config.toml").read_text()
    (rd / "config.toml").write_text(
        config.replace("[train]\n", "[train]\npolicy_weight = 0.0\nsymmetries = 1\n").replace(
            "[search]\n", '[search]\npolicy = "afterstate"\nsymmetries = 1\nmove_symmetries = 1\n'
        )
    )
    progress = (rd / "progress.csv").read_text().splitlines()
    old = [progress[0].replace(",loss,", ",loss,policy,policy_kl,")]
    old += [",".join(r.split(",")[:7] + ["", ""] + r.split(",")[7:]) for r in progress[1:]]
    (rd / "progress.csv").write_text("\n".join(old) + "\n")
    run = Run(load_az_config(rd / "config.toml"), rd, "test", log=quiet)
    assert run.restore() and run.iteration == 2
    state = run.optimizer.state_dict()["state"]
    assert len(state) == len(ids) and all(torch.equal(state[k]["exp_avg"], moments[k]) for k in ids)
    start_run(None, ["run.iterations=3"], rd, resume=True, command="test", log=quiet)
    after = rows(rd / "progress.csv")
    assert [int(r["iteration"]) for r in after] == [0, 1, 2, 3]
    assert after[-1]["policy"] == "" and float(after[-1]["value"]) > 0
    assert (rd / "progress.csv").read_text().splitlines()[0] == old[0]


def test_workers_sets_the_selfplay_threads(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--workers N`` is ``--set selfplay.threads=N`` (it once named a key the schema does
    not have, so every run given --workers failed)."""
    import training.az.cli as cli

    seen: list[list[str]] = []

    def fake(config: Any, overrides: list[str], *args: Any, **kw: Any) -> Any:
        seen.append(list(overrides))
        return Run(load_az_config(config, overrides), tmp_path / "r", "t", log=quiet)

    monkeypatch.setattr(cli, "start_run", fake)
    assert az_main(["--config", str(TINY), "--run-dir", str(tmp_path / "r"), "--workers", "3"]) == 0
    assert load_az_config(TINY, seen[0])["selfplay"]["threads"] == 3
    out = capsys.readouterr().out
    assert out.startswith("az run finished:\n") and "resume with" in out
    assert "{" not in out  # a plain summary, no JSON line


def test_bench_prints_the_games_an_hour(capsys: pytest.CaptureFixture[str]) -> None:
    """`python -m training.az.bench` plays and learns, then prints `self-play: N games/hour`
    with N the games it played over the seconds it took (and where the time went)."""
    from training.az import bench

    args = ["--seconds", "1", "--set", "net.hidden1=8", "--set", "net.hidden2=4"]
    assert bench.main(args) == 0
    out = capsys.readouterr().out
    (line,) = [x for x in out.splitlines() if x.startswith("self-play:")]
    rate = int(line.split()[1].replace(",", ""))
    games = int(out.split(" games, ")[0].split()[-1].replace(",", ""))
    assert games >= 1 and rate > 0
    assert "play" in out and "learning" in out and "network evaluations/s" in out
    with pytest.raises(SystemExit):
        bench.main(["--seconds", "0"])
