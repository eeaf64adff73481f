"""Bad input and faults in the training commands (issue 12): named config errors, one set of
defaults, visible budget rounding, atomic outputs, resume after a cut-short checkpoint or an
interrupted warm start, the run-directory lock, resume refusing game/network changes, and
evaluate/export never overwriting committed files or existing outputs without --force.

Every run here is tiny (64-step rollouts, 2 teacher games, 1-game evaluations).
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")

from agents.shipped import CHECKPOINTS
from moonriver_env.family.validation import Checker  # noqa: E402
from training.common import outputs  # noqa: E402
from training.common.outputs import OutputError, RunLock, atomic_path  # noqa: E402
from training.ppo.config import (  # noqa: E402
    SCHEMA,
    ConfigError,
    check_resume,
    defaults,
    describe_diff,
    load_config,
    validate,
)

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = ROOT / "training" / "ppo" / "configs" / "default.toml"
SHIPPED = CHECKPOINTS / "ppo_2p_base"

# A run of one 64-step rollout per 64 steps, no subprocesses.
TINY = [
    "--set", "run.n_envs=1", "--set", "run.vec_env=dummy", "--set", "run.progress_bar=false",
    "--set", "ppo.n_steps=64", "--set", "ppo.batch_size=64",
    "--set", "opponents.snapshot=0.0", "--set", "checkpoint.every=64",
    "--set", "eval.every=0", "--set", "eval.final_games=0", "--set", "pretrain.teacher=",
]  # fmt: skip
WARM = [
    "--set", "pretrain.teacher=greedy", "--set", "pretrain.games=2", "--set", "pretrain.workers=1",
    "--set", "pretrain.epochs=2", "--set", "pretrain.batch_size=64",
]  # fmt: skip


def _main(args: list[str]) -> tuple[int, str]:
    """``training.ppo.train.main(args)`` and what it printed (stdout and stderr)."""
    from training.ppo.train import main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), contextlib.redirect_stderr(buf):
        code = main(args)
    return code, buf.getvalue()


def _digest(directory: Path) -> dict[str, str]:
    """Every file under ``directory`` with a hash of its bytes."""
    return {
        str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


# -- config ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("override", "key"),
    [
        ("ppo.learning_rate=nan", "ppo.learning_rate"),
        ("ppo.gamma=nan", "ppo.gamma"),
        ("ppo.clip_range=inf", "ppo.clip_range"),
        ("ppo.max_grad_norm=inf", "ppo.max_grad_norm"),
        ("ppo.ent_coef=inf", "ppo.ent_coef"),
        ("env.illegal_penalty=nan", "env.illegal_penalty"),
        ("env.dense_reward=inf", "env.dense_reward"),
        ("run.time_limit_minutes=inf", "run.time_limit_minutes"),
        ("opponents.greedy=inf", "opponents.greedy"),
        ("pretrain.max_minutes=nan", "pretrain.max_minutes"),
        ("pretrain.collect_minutes=inf", "pretrain.collect_minutes"),
        ("pretrain.collect_minutes=0.01", "pretrain.collect_minutes"),  # starts no game
    ],
)
def test_non_finite_and_useless_numbers_name_the_key(override: str, key: str) -> None:
    with pytest.raises(ConfigError) as e:
        load_config(DEFAULT, [override])
    assert str(e.value).startswith(f"{key}: expected"), str(e.value)


@pytest.mark.parametrize("seed, error", [("abc", TypeError), (-1, ValueError)])
def test_selfplay_env_bad_seed_names_seed_and_moves_nothing(seed: Any, error: type) -> None:
    from training.ppo.selfplay import make_selfplay_env

    cfg = load_config(DEFAULT)
    env = make_selfplay_env(cfg["env"], cfg["opponents"], None, seed=0)
    before = env.sampler.rng.bit_generator.state
    with pytest.raises(error, match=r"^seed: expected None or a non-negative integer"):
        env.reset(seed=seed)
    assert env.sampler.rng.bit_generator.state == before


def test_collect_minutes_zero_means_no_limit() -> None:
    assert load_config(DEFAULT, ["pretrain.collect_minutes=0"])["pretrain"]["collect_minutes"] == 0


def test_checker_finite_is_opt_in() -> None:
    ck = Checker(ValueError)
    assert np.isnan(ck.number(float("nan"), "x"))  # the other formats keep their behaviour
    with pytest.raises(ValueError, match=r"^x: expected a finite number, got number nan"):
        ck.number(float("nan"), "x", finite=True)


def test_default_toml_is_the_one_home_of_the_defaults(tmp_path: Path) -> None:
    base = defaults()
    assert {s: set(v) for s, v in base.items()} == {s: set(v) for s, v in SCHEMA.items()}
    validate(base)
    partial = tmp_path / "partial.toml"
    partial.write_text("[ppo]\nn_epochs = 2\n")
    cfg = load_config(partial)
    assert cfg == load_config(DEFAULT, ["ppo.n_epochs=2"])  # the rest is default.toml's
    assert cfg["pretrain"]["teacher"] == "heuristic" and cfg["ppo"]["learning_rate"] == 3e-5
    text = describe_diff(cfg)
    assert text.splitlines() == ["config: default.toml with", "  ppo.n_epochs = 2  (was 4)"]
    assert describe_diff(load_config(DEFAULT)) == "config: default.toml unchanged"


@pytest.mark.parametrize("override", ["env.num_players=3", "policy.cnn_channels=[16]"])
def test_check_resume_refuses_game_and_network_keys(override: str) -> None:
    saved = load_config(DEFAULT)
    with pytest.raises(ConfigError, match=rf"^{override.split('=')[0]}: cannot change on --resume"):
        check_resume(saved, load_config(DEFAULT, [override]))
    check_resume(saved, load_config(DEFAULT, ["ppo.learning_rate=1e-4"]))  # allowed


# -- atomic writes, the lock -------------------------------------------------------------------
def test_atomic_write_keeps_the_old_file_on_a_crash(tmp_path: Path) -> None:
    target = tmp_path / "model.zip"
    target.write_bytes(b"old")
    with pytest.raises(KeyboardInterrupt), atomic_path(target) as tmp:
        assert tmp.parent == tmp_path and tmp.suffix == ".zip"
        tmp.write_bytes(b"half")
        raise KeyboardInterrupt
    assert target.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["model.zip"]  # no temporary file left
    outputs.write_text(target, "new")
    assert target.read_text() == "new" and os.listdir(tmp_path) == ["model.zip"]


def test_run_lock_refuses_a_second_holder_and_takes_over_a_stale_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    held = rf"in use by another run \(pid {os.getpid()} on "
    with RunLock(tmp_path), pytest.raises(OutputError, match=held):
        RunLock(tmp_path).acquire()
    # released: a new holder gets it silently
    with RunLock(tmp_path):
        pass
    assert "stale" not in capsys.readouterr().out
    # a killed run leaves its record but no flock
    (tmp_path / ".lock").write_text(json.dumps({"pid": 999999, "host": "h", "start": "t"}))
    with RunLock(tmp_path):
        pass
    assert "taking over the stale lock of a run that is gone (pid 999999 on h" in (
        capsys.readouterr().out
    )


def test_a_locked_run_dir_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    with RunLock(run_dir):
        code, text = _main(["--run-dir", str(run_dir), "--total-timesteps", "64", *TINY])
    assert code == 2 and f"pid {os.getpid()}" in text
    assert sorted(os.listdir(run_dir)) == [".lock"]


# -- a tiny run: rounding, outputs, progress -------------------------------------------------------
@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, list[str]]:
    """A warm-started run of ``--total-timesteps 10`` with a ladder evaluation and a final one;
    returns its directory, its output and every file replaced into place."""
    run_dir = tmp_path_factory.mktemp("tiny") / "run"
    replaced: list[str] = []
    real = os.replace

    def record(src: Any, dst: Any) -> None:
        replaced.append(str(Path(dst).relative_to(run_dir)))
        real(src, dst)

    extra = [
        "--set", "eval.every=64", "--set", "eval.games=1", "--set", "eval.final_games=1",
        "--set", 'eval.final_opponents=["random"]', "--set", 'eval.opponents=["random"]',
        "--set", 'eval.best_opponent="random"', "--set", "pretrain.save_data=true",
    ]  # fmt: skip
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(outputs.os, "replace", record)
        code, text = _main(
            ["--run-dir", str(run_dir), "--total-timesteps", "10", *TINY, *WARM, *extra]
        )
    assert code == 0, text
    return run_dir, text, replaced


def test_the_budget_is_rounded_up_visibly(tiny_run: tuple[Path, str, list[str]]) -> None:
    run_dir, text, _ = tiny_run
    assert "run.total_timesteps: 10 rounded up to 64 (PPO trains whole rollouts" in text
    assert json.loads((run_dir / "summary.json").read_text())["num_timesteps"] == 64


def test_the_run_prints_its_config_and_progress(tiny_run: tuple[Path, str, list[str]]) -> None:
    _, text, _ = tiny_run
    assert "config: default.toml with" in text and "  pretrain.games = 2  (was 100000)" in text
    # the warm start (also notebook 03's) and the evaluation; piped, a bar is plain lines that
    # end with the work done and, for the time-capped warm start, its budget
    took = r"\d+(\.\d+)? (s|min|h)"  # a duration as the bars write it (45 s, 1.5 min)
    assert re.search(
        rf"^teacher games \(greedy\): 2/2 games, {took} of a {took} budget \(done\)$", text, re.M
    )
    assert re.search(
        rf"^cloning: (\d+)/\1 batches, {took} of a {took} budget \(done\)$", text, re.M
    )
    assert re.search(r"^evaluation games: (\d+)/\1 games, \d+ s \(done\)$", text, re.M)
    assert "\r" not in text and "\x1b[A" not in text


def test_every_output_is_written_atomically(tiny_run: tuple[Path, str, list[str]]) -> None:
    run_dir, _, replaced = tiny_run
    written = {p for p in _digest(run_dir) if not p.startswith(("tb/", ".lock"))}
    assert written <= set(replaced), written - set(replaced)
    for name in (
        "config.toml", "final_model.zip", "best_model.zip", "best_model.json", "eval.csv",
        "final_eval.json", "summary.json", "learning_curve.png", "pretrained.zip",
        "pretrain_data.npz", "checkpoints/model_0_steps.zip", "checkpoints/model_64_steps.json",
    ):  # fmt: skip
        assert name in replaced, name
    assert any(p.startswith("pretrain/games/") for p in replaced)  # the shards
    assert not (run_dir / "pretrain").exists()  # dropped once step 0 is saved


# -- resume --------------------------------------------------------------------------------------
def test_resume_refuses_game_and_network_changes_before_writing(
    tiny_run: tuple[Path, str, list[str]],
) -> None:
    run_dir, _, _ = tiny_run
    before = _digest(run_dir)
    for override in ("env.num_players=3", "policy.cnn_channels=[16]"):
        code, text = _main(["--run-dir", str(run_dir), "--resume", "--set", override])
        assert code == 2 and "cannot change on --resume" in text, text
        assert _digest(run_dir) == before


def test_resume_falls_back_to_the_newest_readable_checkpoint(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    assert _main(["--run-dir", str(run_dir), "--total-timesteps", "128", *TINY])[0] == 0
    latest = run_dir / "checkpoints" / "model_128_steps.zip"
    latest.write_bytes(latest.read_bytes()[:1000])  # cut short
    code, text = _main(
        ["--run-dir", str(run_dir), "--resume", "--total-timesteps", "192",
         "--set", "ppo.learning_rate=1e-4"]
    )  # fmt: skip
    assert code == 0, text
    assert "checkpoint model_128_steps.zip is unreadable" in text
    assert "resuming from" in text and "model_64_steps.zip at 64 steps" in text
    assert json.loads((run_dir / "summary.json").read_text())["num_timesteps"] == 192
    assert "ppo.learning_rate = 0.0001  (was 3e-05)" in text  # a change that may be made...
    assert load_config(run_dir / "config.toml")["ppo"]["learning_rate"] == 1e-4  # ...recorded


def test_an_interrupted_warm_start_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from training.ppo import pretrain

    run_dir = tmp_path / "run"
    args = ["--run-dir", str(run_dir), "--total-timesteps", "64", *TINY, *WARM]
    real_clone = pretrain.behaviour_clone

    def interrupted_after_one_epoch(*a: Any, **kw: Any) -> Any:
        def on_epoch(epoch: int, metrics: Any) -> None:
            kw_on_epoch(epoch, metrics)
            raise KeyboardInterrupt  # Ctrl-C after the first epoch was kept

        kw_on_epoch = kw["on_epoch"]
        return real_clone(*a, **{**kw, "on_epoch": on_epoch})

    monkeypatch.setattr(pretrain, "behaviour_clone", interrupted_after_one_epoch)
    code, text = _main(args)
    assert code == 130 and f"--run-dir {run_dir} --resume" in text
    assert not list((run_dir / "checkpoints").glob("*.zip"))
    assert list((run_dir / "pretrain" / "games").glob("games_*.npz"))
    assert json.loads((run_dir / "pretrain" / "cloning.json").read_text())["epoch"] == 1

    # the resumed run plays no teacher game again and clones from epoch 1
    monkeypatch.setattr(pretrain, "behaviour_clone", real_clone)

    def no_game(*a: Any, **kw: Any) -> Any:
        raise AssertionError("a kept teacher game was played again")

    monkeypatch.setattr(pretrain._TeacherTable, "play", no_game)
    code, text = _main(["--run-dir", str(run_dir), "--resume"])
    assert code == 0, text
    assert "2 teacher games kept from the interrupted run" in text
    assert "continuing the cloning after epoch 1" in text and "pretrain epoch 2/2" in text
    assert "pretrain epoch 1/2" not in text
    assert (run_dir / "pretrained.zip").exists() and not (run_dir / "pretrain").exists()
    assert json.loads((run_dir / "summary.json").read_text())["num_timesteps"] == 64


def test_kept_teacher_games_are_the_same_games(tmp_path: Path) -> None:
    from training.ppo.pretrain import collect

    env_cfg = load_config(DEFAULT)["env"]
    first = collect("greedy", 1, 0, env_cfg, 0.9, shards=tmp_path)  # interrupted after game 0
    assert set(first["game"].tolist()) == {0}
    more = collect("greedy", 2, 0, env_cfg, 0.9, shards=tmp_path)
    whole = collect("greedy", 2, 0, env_cfg, 0.9)
    for k in whole:
        np.testing.assert_array_equal(more[k], whole[k])


# -- evaluate and export never overwrite -----------------------------------------------------------
def test_evaluating_a_shipped_checkpoint_writes_elsewhere(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from training.common.ladder import main

    model = SHIPPED / "model.zip"
    if not model.exists():
        pytest.fail("the shipped checkpoint is missing")
    before = _digest(SHIPPED)
    monkeypatch.chdir(tmp_path)
    base = ["--model", str(model), "--opponents", "random", "--games", "1"]
    assert main(base) == 0
    [out] = list((tmp_path / "runs").iterdir())
    assert out.name.startswith("eval-ppo_2p_base-") and (out / "evaluation.json").exists()
    captured = capsys.readouterr()
    assert f"writing the evaluation to runs/{out.name}" in captured.out
    assert "evaluation games: 1/1 games" in captured.err and "(done)" in captured.err
    # into the shipped folder: refused, even with --force, before any game
    assert main([*base, "--out", str(SHIPPED), "--force"]) == 2
    assert "is a committed file" in capsys.readouterr().err
    assert _digest(SHIPPED) == before
    # an existing output: refused without --force, replaced with it
    assert main([*base, "--out", str(out)]) == 2
    assert "pass --force" in capsys.readouterr().err
    assert main([*base, "--out", str(out), "--force"]) == 0


def test_export_refuses_an_existing_name_and_force_replaces_the_folder(
    tiny_run: tuple[Path, str, list[str]], tmp_path: Path
) -> None:
    from training.common.export import main

    run_dir, _, _ = tiny_run
    args = ["--run-dir", str(run_dir), "--name", "m", "--command", "c", "--dest", str(tmp_path)]
    assert main([*args, "--model", "final"]) == 0
    dest = tmp_path / "m"
    (dest / "evaluation.png").write_bytes(b"stale")
    before = _digest(dest)
    assert main([*args, "--model", "best", "--force"]) == 2  # not the export's: kept (issue 50)
    assert _digest(dest) == before
    prov = json.loads((dest / "provenance.json").read_text())  # as an older export wrote it:
    prov["exported_files"].append("evaluation.png")  # listed among its files
    (dest / "provenance.json").write_text(json.dumps(prov))
    before = _digest(dest)
    assert main([*args, "--model", "best"]) == 2
    assert _digest(dest) == before
    assert main([*args, "--model", "best", "--force"]) == 0
    assert not (dest / "evaluation.png").exists()  # the whole folder was replaced
    assert (dest / "model.zip").read_bytes() == (run_dir / "best_model.zip").read_bytes()
    assert json.loads((dest / "provenance.json").read_text())["model"].startswith("best")
    assert sorted(os.listdir(tmp_path)) == ["m"]  # no build or old folder left behind
