"""What the training pipelines share: the ladder evaluation (training/common/ladder.py, ``python
-m training.evaluate``) on the shipped MaskablePPO model, which stays playable and on the
ladder; the model-folder export of a reference PPO run (``python -m training.export``); and the
outputs' safety (atomic writes, the run lock, JSON without NaN, committed files never
overwritten).

The export tests share one tiny run of ``python -m training.ppo.ppo`` (module fixture, seconds).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("sb3_contrib")
torch = pytest.importorskip("torch")

from agents.networks.snapshots import load_policy  # noqa: E402
from agents.ratings import wilson_interval  # noqa: E402
from agents.shipped import CHECKPOINTS  # noqa: E402
from moonriver_env.family.validation import Checker  # noqa: E402
from training.common import outputs  # noqa: E402
from training.common.ladder import evaluate_ladder, play_games  # noqa: E402
from training.common.outputs import OutputError, RunLock, atomic_path, write_json  # noqa: E402

SHIPPED = CHECKPOINTS / "ppo_2p_base"


def _digest(directory: Path) -> dict[str, str]:
    """Every file under ``directory`` with a hash of its bytes."""
    return {
        str(p.relative_to(directory)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(directory.rglob("*"))
        if p.is_file()
    }


# -- outputs -------------------------------------------------------------------------------------
def test_write_json_writes_a_non_finite_float_as_null(tmp_path: Path) -> None:
    """NaN and the infinities are no JSON numbers: provenance and reports hold null instead
    of a bare NaN token that JSON readers refuse (issue 50)."""
    path = write_json(tmp_path / "p.json", {"a": math.nan, "b": [1.5, -math.inf], "c": {"d": 2}})
    text = path.read_text()
    assert "NaN" not in text and "Infinity" not in text
    assert json.loads(text) == {"a": None, "b": [1.5, None], "c": {"d": 2}}


def test_checker_finite_is_opt_in() -> None:
    ck = Checker(ValueError)
    assert np.isnan(ck.number(float("nan"), "x"))  # the other formats keep their behaviour
    with pytest.raises(ValueError, match=r"^x: expected a finite number, got number nan"):
        ck.number(float("nan"), "x", finite=True)


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


def _writer(target: Path) -> tuple[subprocess.Popen[str], Path]:
    """A process that writes ``target`` through ``atomic_path`` and stops mid-write; its
    temporary file."""
    code = (
        "import sys, time\nfrom agents.atomic import atomic_path\n"
        "with atomic_path(sys.argv[1]) as tmp:\n"
        "    tmp.write_bytes(b'half')\n    print(tmp, flush=True)\n    time.sleep(120)\n"
    )
    root = Path(__file__).resolve().parents[2]
    child = subprocess.Popen([sys.executable, "-c", code, str(target)], cwd=root,
                             stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert child.stdout is not None
    return child, Path(child.stdout.readline().strip())


def test_the_next_write_removes_what_a_killed_writer_left_and_nothing_else(tmp_path: Path) -> None:
    """A writer killed mid-write (SIGKILL skips its clean-up) leaves its temporary file; the
    next write of the same target removes it. A file a live writer holds (the writer's lock,
    whatever its process id means here), another target's, and names this module does not make
    stay."""
    target = tmp_path / "model.zip"
    alive, live = _writer(target)
    try:
        killed, left = _writer(target)  # its own clean-up leaves the live writer's file
        killed.kill()
        killed.wait(30)
        keep = [tmp_path / f".other.tmp{killed.pid}.partial.zip", tmp_path / ".model.tmpx1.partial.zip",
                tmp_path / f".model.tmp{killed.pid}.zip", tmp_path / ".model.tmp9.partial.zip.bak"]  # fmt: skip
        for p in keep:
            p.write_bytes(b"user")
        assert left.exists() and live.exists() and left != live
        outputs.write_text(target, "new")
        names = sorted(os.listdir(tmp_path))
        assert names == sorted(["model.zip", live.name, *(p.name for p in keep)])
        assert target.read_text() == "new" and live.read_bytes() == b"half"
    finally:
        alive.kill()
        alive.wait(30)


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


def test_wilson_interval() -> None:
    lo, hi = wilson_interval(50, 100)
    assert lo == pytest.approx(0.4038, abs=1e-3) and hi == pytest.approx(0.5962, abs=1e-3)
    assert wilson_interval(0, 10)[0] == 0.0


def test_plot_with_perfect_and_empty_results(tmp_path: Path) -> None:
    """A 400/400 result (upper bound a rounding hair under 1.0) and a 0/400 one both plot;
    the learning curve's axis gives the run's wall-clock span."""
    from training.common.ladder import plot_learning_curve

    rows = []
    for name, wins in (("random", 400), ("heuristic", 0)):
        lo, hi = wilson_interval(wins, 400)
        rows.append({"opponent": name, "games": 400, "win_rate": wins / 400, "ci_low": lo,
                     "ci_high": min(hi, 0.9999999999999999)})  # fmt: skip
    curve = tmp_path / "eval.csv"
    curve.write_text(
        "step,wall_time,opponent,win_rate,games,ci_low,ci_high,mean_score,opponent_score\n"
        "0,1200,random,0.9,60,0.8,0.96,170,40\n25000,1300,random,1.0,60,0.94,1.0,172,41\n"
    )
    out = plot_learning_curve(curve, tmp_path / "plot.png", {"final": rows})
    assert out is not None and out.stat().st_size > 1000
    assert plot_learning_curve(tmp_path / "none.csv", tmp_path / "p2.png") is None


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


# -- the ladder evaluation and the shipped MaskablePPO model -------------------------------------
def test_evaluate_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from training.common.ladder import main

    out = tmp_path / "eval"
    # a learning curve needs an eval.csv: write a small one beside the model
    csv_path = tmp_path / "eval.csv"
    csv_path.write_text(
        "step,wall_time,opponent,win_rate,games,ci_low,ci_high,mean_score,opponent_score\n"
        "1000,10,random,0.6,10,0.3,0.8,60,50\n2000,20,random,0.9,10,0.6,0.98,90,50\n"
    )
    code = main(
        ["--model", str(SHIPPED / "model.zip"), "--opponents", "random", "--games", "6",
         "--seed", "0", "--out", str(out), "--csv", str(csv_path)]
    )  # fmt: skip
    assert code == 0
    text = capsys.readouterr().out
    assert "random" in text and "95% CI" in text
    report = json.loads((out / "evaluation.json").read_text())
    assert report["results"][0]["games"] == 6
    assert (out / "evaluation.png").stat().st_size > 1000  # the curve and the final bars
    # a game's result depends on its index and the seed only (so not on --workers)
    policy = load_policy(SHIPPED / "model.zip")
    a = play_games(policy, "random", range(4), seed=7)
    b = play_games(policy, "random", [2, 3], seed=7)
    assert a[2:] == b


@pytest.mark.slow
def test_shipped_checkpoint_plays_in_tournaments_and_beats_random() -> None:
    """The kept model loads by the bare agent spec `ppo`, plays legal moves through the
    tournament runner, and wins clearly against random (its measured 400-game result is in
    provenance.json; 20 fixed games here)."""
    from agents import make_agent
    from agents.tournament import run_tournament
    from moonriver_env.moonriver.agents import SHIPPED_PPO

    assert SHIPPED_PPO == SHIPPED / "model.zip" and SHIPPED_PPO.exists()
    assert SHIPPED_PPO.stat().st_size < 5e6  # a few MB at most
    prov = json.loads((SHIPPED / "provenance.json").read_text())
    assert prov["command"] and prov["budget"]["time_limit_minutes"] == 60
    agent = make_agent("ppo", seed=0)
    from moonriver_env import moonriver_v0

    env = moonriver_v0.env(num_players=2)  # the agent plays both seats
    env.reset(seed=9)
    for _agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        env.step(None if term or trunc else agent.act(obs, env))
    assert agent.illegal == 0  # the masked policy never needed the random fallback
    result = run_tournament(["ppo", "random"], players=2, games=2, seed=5)
    assert len(result.records) == 2
    [row] = evaluate_ladder(
        load_policy(SHIPPED_PPO), ["random"], 20, seed=77, env_kwargs={"num_players": 2}
    )
    assert row["win_rate"] >= 0.9, row


# -- keeping a reference PPO model in the repository -------------------------------------------
@pytest.fixture(scope="module")
def ppo_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A finished run of the reference PPO, as small as it goes (2 updates, 2 evaluation games)."""
    from training.ppo import ppo

    run = tmp_path_factory.mktemp("ppo") / "run"
    argv = ["--game", "moonriver_2p_base", "--run-dir", str(run), "--total-steps", "256",
            "--num-games", "16", "--num-steps", "8", "--eval-opponent", "random",
            "--eval-games", "2", "--embed", "8", "--hidden", "8", "--threads", "1"]  # fmt: skip
    assert ppo.main(argv) == 0
    return run


def test_export_keeps_the_model_its_settings_and_provenance(ppo_run: Path, tmp_path: Path) -> None:
    from agents.registry import make_agent
    from moonriver_env.games import parse_game
    from training.common.export import MANIFEST, export_checkpoint, exported_files, main

    dest = export_checkpoint(ppo_run, "m", "python -m training.ppo.ppo", dest_root=tmp_path)
    assert (dest / "model.pt").read_bytes() == (ppo_run / "model.pt").read_bytes()
    assert json.loads((dest / "args.json").read_text()) == json.loads(
        (ppo_run / "args.json").read_text()
    )
    prov = json.loads((dest / "provenance.json").read_text())
    assert prov["command"] == "python -m training.ppo.ppo"
    assert parse_game(prov["game"]) == parse_game("moonriver_2p_base")
    assert prov["budget"]["total_steps"] == 256
    assert prov["run_summary"]["steps"] == 256 and prov["run_summary"]["evals"]
    assert set(prov[MANIFEST]) == {p.name for p in dest.iterdir()} == exported_files(dest)
    cfg = tomllib.loads((dest / "config.toml").read_text())  # as every shipped folder has
    assert cfg["env"] == {"game": "moonriver", "num_players": 2, "mode": "base"}
    assert cfg["ppo"]["total_steps"] == 256 and cfg["ppo"]["game"] == prov["game"]
    agent = make_agent(f"ppo:{dest / 'model.pt'}", seed=0)  # the exported model plays
    assert agent.game.num_players == 2
    args = ["--run-dir", str(ppo_run), "--name", "x", "--command", "c", "--dest", str(tmp_path)]
    assert main([*args, "--max-mb", "0.000001"]) == 2  # too large: refused
    assert main([*args, "--model", str(tmp_path / "none.pt")]) == 2
    assert main(["--run-dir", str(tmp_path), *args[2:]]) == 2  # no run there
    assert not (tmp_path / "x").exists()
    with pytest.raises(ValueError, match=r"^name\b"):
        export_checkpoint(ppo_run, "../x", "c", dest_root=tmp_path)


def test_export_refuses_an_existing_name_and_force_replaces_the_folder(
    ppo_run: Path, tmp_path: Path
) -> None:
    from training.common.export import main

    args = ["--run-dir", str(ppo_run), "--name", "m", "--command", "c", "--dest", str(tmp_path)]
    assert main(args) == 0
    dest = tmp_path / "m"
    before = _digest(dest)
    assert main(args) == 2  # an export there: refused without --force
    assert _digest(dest) == before
    (dest / "notes.txt").write_text("mine")
    before = _digest(dest)
    assert main([*args, "--force"]) == 2  # not the export's: kept (issue 50)
    assert _digest(dest) == before
    (dest / "notes.txt").unlink()
    assert main([*args, "--force", "--command", "again"]) == 0
    assert json.loads((dest / "provenance.json").read_text())["command"] == "again"
    assert sorted(os.listdir(tmp_path)) == ["m"]  # no build or old folder left behind
