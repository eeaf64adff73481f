"""The az training pipeline (training/az/) at a tiny scale: a run end to end, resume after a
crash, the run lock, config errors, and that learning lowers the loss."""

from __future__ import annotations

import csv
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from agents.az import AzAgent, load_checkpoint  # noqa: E402
from agents.runner import GameRunner, GameSetup  # noqa: E402
from training.az import run as run_module  # noqa: E402
from training.az.cli import main as az_main  # noqa: E402
from training.az.config import load_az_config  # noqa: E402
from training.az.learner import LossWeights, losses, train_steps  # noqa: E402
from training.az.replay import (  # noqa: E402
    ReplayBuffer,
    list_shards,
    read_shard,
    shard_path,
    write_shard,
)
from training.az.run import Run, start_run  # noqa: E402
from training.az.selfplay import Positions, Worker  # noqa: E402
from training.common.config import ConfigError, dumps  # noqa: E402
from training.common.outputs import OutputError, RunLock  # noqa: E402

TINY = Path(__file__).resolve().parents[2] / "training" / "configs" / "az_tiny.toml"
QUIET = lambda _: None  # noqa: E731


@pytest.fixture(scope="module")
def tiny_run(tmp_path_factory: pytest.TempPathFactory) -> Path:
    rd = tmp_path_factory.mktemp("az_run") / "run"
    start_run(TINY, [], rd, resume=False, command="test", log=QUIET)
    return rd


def test_a_tiny_run_writes_everything(tiny_run: Path) -> None:
    for name in ("config.toml", "model.pt", "checkpoints/latest.pt", "progress.csv", "eval.csv",
                 "learning_curve.png"):  # fmt: skip
        assert (tiny_run / name).is_file(), name
    assert list((tiny_run / "tb").iterdir())
    rows = list(csv.DictReader((tiny_run / "progress.csv").open()))
    assert [int(r["iteration"]) for r in rows] == [0, 1, 2]
    assert all(int(r["new_positions"]) > 100 for r in rows)
    evals = list(csv.DictReader((tiny_run / "eval.csv").open()))
    assert len(evals) == 3 and all(
        float(r["ci_low"]) <= float(r["win_rate"]) <= float(r["ci_high"]) for r in evals
    )
    net, meta = load_checkpoint(tiny_run / "model.pt")
    prov = meta["provenance"]
    assert prov["iteration"] == 2 and prov["positions"] == sum(
        int(r["new_positions"]) for r in rows
    )
    root = TINY.parents[2]
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True
    ).stdout
    assert [s["git_commit"] for s in prov["starts"]] == [head.strip()]  # the code it ran
    assert meta["search"]["gumbel_scale"] == 0.0  # the model plays without noise
    agent = AzAgent(seed=0, path=tiny_run / "model.pt")
    game = GameRunner(GameSetup(num_players=2)).play([agent, agent], 1, [0, 1])
    assert game.state.is_terminal


def test_resume_after_a_crash_loses_at_most_the_iteration(
    tiny_run: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rd = tmp_path / "run"
    shutil.copytree(tiny_run, rd)

    def crash(self: Run, iteration: int, new: int, epochs: float | None = None) -> None:
        raise KeyboardInterrupt  # killed after the shards of iteration 3 were written

    monkeypatch.setattr(Run, "learn", crash)
    with pytest.raises(KeyboardInterrupt):
        start_run(None, ["run.iterations=3"], rd, resume=True, command="test", log=QUIET)
    assert any(it == 3 for it, _, _ in list_shards(rd))
    _, meta = load_checkpoint(rd / "checkpoints" / "latest.pt")
    assert meta["progress"]["iteration"] == 2  # the checkpoint is the last finished one
    monkeypatch.undo()
    lines: list[str] = []
    run = start_run(None, ["run.iterations=3"], rd, resume=True, command="test", log=lines.append)
    assert run.iteration == 3
    assert "after iteration 2" in lines[0] and "1 unfinished shards dropped" in lines[0]
    rows = list(csv.DictReader((rd / "progress.csv").open()))
    assert [int(r["iteration"]) for r in rows] == [0, 1, 2, 3]


def test_a_locked_or_used_run_dir_is_refused(tiny_run: Path) -> None:
    with RunLock(tiny_run), pytest.raises(OutputError, match="in use by another run"):
        start_run(None, [], tiny_run, resume=True, command="test", log=QUIET)
    with pytest.raises(OutputError, match="pass --resume"):
        start_run(TINY, [], tiny_run, resume=False, command="test", log=QUIET)
    with pytest.raises(ConfigError, match=r"^net\.channels: cannot change on --resume"):
        start_run(None, ["net.channels=9"], tiny_run, resume=True, command="test", log=QUIET)


@pytest.mark.parametrize(
    ("override", "key"),
    [("net.chanels=4", "net.chanels"), ("search.sims=0", "search.sims"),
     ("train.learning_rate=-1", "train.learning_rate"), ("search.fast_sims=99", "search.fast_sims"),
     ("eval.opponents=[\"nobody\"]", "eval.opponents"), ("env.num_players=5", "env.num_players"),
     ("colour.red=1", "colour")],
)  # fmt: skip
def test_bad_config_names_the_key(override: str, key: str) -> None:
    with pytest.raises(ConfigError, match=rf"^{key}"):
        load_az_config(TINY, [override])


def test_cli_reports_a_bad_config(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = az_main(["--config", str(TINY), "--run-dir", str(tmp_path / "r"), "--set", "search.k=0"])
    assert rc == 2 and "search.k" in capsys.readouterr().err
    assert not (tmp_path / "r" / "config.toml").exists()


def test_learning_lowers_the_loss(tmp_path: Path) -> None:
    import torch

    from agents.az import AzNet, NetShape

    cfg = load_az_config(TINY)
    shape = NetShape(num_players=2, mode="base", **cfg["net"])
    positions = Worker(shape.to_dict()).run(
        {"kind": "teacher", "seeds": [1, 2], "teacher": "greedy", "explore": 0.0}
    )
    write_shard(tmp_path, 0, 0, positions)
    assert shard_path(tmp_path, 0, 0).is_file()
    buf = ReplayBuffer.load(tmp_path, 10_000)
    assert buf.teacher.size == len(positions) and buf.size == 0  # iteration 0: the teacher's
    torch.manual_seed(0)
    net = AzNet(shape)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3)
    fixed = buf.sample(np.random.default_rng(0), 256)
    before = losses(net, fixed, LossWeights())[1]
    train_steps(net, opt, buf, 60, 64, np.random.default_rng(1), LossWeights())
    after = losses(net, fixed, LossWeights())[1]
    assert after["policy"] < 0.8 * before["policy"]
    assert after["outcome"] < before["outcome"]


def tiny_shape() -> dict[str, object]:  # noqa: N802
    """The tiny config's network for 2 players (a plain dict, as workers get it)."""
    from agents.az import NetShape

    return NetShape(num_players=2, mode="base", **load_az_config(TINY)["net"]).to_dict()


def test_teacher_positions_replay_the_teachers_game(tmp_path: Path) -> None:
    """What the warm start learns from is what the agent sees at play: replaying a teacher
    game from its seed, each recorded position is the acting seat's observation of the state
    (a fresh encoder's), its target the teacher's move (one-hot over the legal actions, which
    are the state's), and its value targets the final outcome and margin of every seat from
    the observer on."""
    from agents.az.search import final_value
    from moonriver_env.moonriver.encoding import ObservationEncoder
    from moonriver_env.rules import GameConfig, new_game

    shape = tiny_shape()
    pos = Worker(shape).run({"kind": "teacher", "seeds": [7], "teacher": "greedy", "explore": 0.0})
    config = GameConfig(num_players=2, mode="base")
    state = new_game(config, seed=7)
    seats, i = [], 0
    while not state.is_terminal:
        legal = state.legal_action_list()
        if len(legal) == 1:
            state.apply(legal[0])
            continue
        seat = state.current_seat
        assert seat is not None
        view = ObservationEncoder(config).encode_flat(state, seat).astype(np.float16)
        assert np.array_equal(pos.obs[i], view), i
        lo, hi = pos.legal_ptr[i], pos.legal_ptr[i + 1]
        assert list(pos.legal[lo:hi]) == legal
        target = pos.target[lo:hi]
        assert target.sum() == 1.0 and set(target) <= {0.0, 1.0}
        seats.append(seat)
        state.apply(int(pos.legal[lo + int(np.argmax(target))]))
        i += 1
    assert i == len(pos)
    for k, seat in enumerate(seats):
        for j in range(2):
            o, m = final_value(state, (seat + j) % 2)
            assert pos.outcome[k, j] == np.float32(o) and pos.margin[k, j] == np.float32(m)


def test_teacher_positions_are_never_pushed_out(tmp_path: Path) -> None:
    """The warm start's positions stay beside the self-play window: however much self-play
    comes after, a batch draws ``teacher_fraction`` of it from them (in memory and after a
    reload from the shards), and the warm start itself (empty window) draws only them."""
    shape = tiny_shape()
    worker = Worker(shape)
    teacher = worker.run({"kind": "teacher", "seeds": [1], "teacher": "greedy", "explore": 0.0})
    other = worker.run({"kind": "teacher", "seeds": [2], "teacher": "random", "explore": 0.0})
    other.has_policy[:] = False  # marks the stand-in self-play positions
    buf = ReplayBuffer(window=len(other), teacher_fraction=0.25)
    buf.add(teacher, teacher=True)
    assert buf.sample(np.random.default_rng(0), 64).has_policy.all()  # the warm start
    write_shard(tmp_path, 0, 0, teacher)
    for it in range(1, 6):
        buf.add(other)
        write_shard(tmp_path, it, 0, other)
    for b in (buf, ReplayBuffer.load(tmp_path, len(other), teacher_fraction=0.25)):
        assert b.teacher.size == len(teacher) and b.size == len(other)
        batch = b.sample(np.random.default_rng(1), 200)
        assert int(batch.has_policy.sum()) == 50


def joined(shards: list[Positions]) -> Positions:
    """A run's teacher shards as one :class:`Positions` (2 players)."""
    return Positions.concatenate(shards, shards[0].obs.shape[1], 2)


def test_a_warm_start_reuses_another_runs_teacher_games(tiny_run: Path, tmp_path: Path) -> None:
    """``warmstart.reuse`` copies the teacher games of a run with the same game, teacher,
    explore and seed (the same games) instead of playing them, and plays the games it lacks:
    a top-up gives the shards of a run that played them all. Another seed is refused naming
    the key."""
    cfg = load_az_config(TINY, [f"warmstart.reuse={tiny_run}"])
    run = Run(cfg, tmp_path / "a", "test", None, QUIET)
    pos = joined(run.teacher_games(cfg["warmstart"]["games"]))
    theirs = [p for it, _, p in list_shards(tiny_run) if it == 0]
    ours = [p for it, _, p in list_shards(tmp_path / "a")]
    assert len(ours) == len(theirs) and pos.games == cfg["warmstart"]["games"]
    assert run.buffer.teacher.size == len(pos) and run.buffer.size == 0
    for a, b in zip(ours, theirs, strict=True):
        assert a.read_bytes() == b.read_bytes()

    more = cfg["warmstart"]["games"] + 2
    topped = Run(cfg, tmp_path / "t", "test", None, QUIET)
    pos = joined(topped.teacher_games(more))
    fresh = Run(load_az_config(TINY, [f"warmstart.games={more}"]), tmp_path / "f", "test", None,
                QUIET)  # fmt: skip
    played = joined(fresh.teacher_games(more))
    assert pos.games == played.games == more and topped.buffer.teacher.size == len(played)
    assert np.array_equal(pos.obs, played.obs) and np.array_equal(pos.target, played.target)
    assert np.array_equal(pos.outcome, played.outcome)
    assert [p.name for _, _, p in list_shards(tmp_path / "t")] == [
        p.name for _, _, p in list_shards(tmp_path / "f")
    ]
    # a shard that does not fit is not copied (no game beyond those asked): here both games
    # in one shard, one game asked, so it is played, and it is the source's first game
    both = tmp_path / "both"
    both.mkdir()
    (both / "config.toml").write_bytes((tiny_run / "config.toml").read_bytes())
    first = [read_shard(p) for p in theirs]
    write_shard(both, 0, 0, Positions.concatenate(first, run.net.obs_size, 2))
    one_cfg = load_az_config(TINY, [f"warmstart.reuse={both}"])
    one = joined(Run(one_cfg, tmp_path / "o", "test", None, QUIET).teacher_games(1))
    assert one.games == 1 and np.array_equal(one.obs, first[0].obs)

    # a gap (a job of a killed run never written): nothing after it is used, in a source
    # or in the run's own shards (deleted), and the games are still the first two
    gap = tmp_path / "gap"
    gap.mkdir()
    (gap / "config.toml").write_bytes((tiny_run / "config.toml").read_bytes())
    write_shard(gap, 0, 0, first[0])
    write_shard(gap, 0, 2, first[1])
    lines: list[str] = []
    gap_run = Run(load_az_config(TINY, [f"warmstart.reuse={gap}"]), tmp_path / "g", "test", None,
                  lines.append)  # fmt: skip
    two = joined(gap_run.teacher_games(2))
    assert lines[0] == f"warm start: 1 teacher games copied from {gap}"
    assert np.array_equal(two.obs, np.concatenate([f.obs for f in first]))
    own = tmp_path / "own"
    write_shard(own, 0, 0, first[0])
    write_shard(own, 0, 2, first[0])  # not game 1: must not be used
    lines.clear()
    mine = joined(Run(load_az_config(TINY), own, "test", None, lines.append).teacher_games(2))
    assert lines[0] == "warm start: 1 teacher games already played, kept"
    assert np.array_equal(mine.obs, two.obs)
    assert [part for _, part, _ in list_shards(own)] == [0, 1]

    other = load_az_config(TINY, [f"warmstart.reuse={tiny_run}", "run.seed=5"])
    with pytest.raises(ConfigError, match=r"warmstart.reuse: .* run.seed"):
        Run(other, tmp_path / "b", "test", None, QUIET).teacher_games(2)


def test_a_run_killed_while_playing_its_teacher_games_keeps_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each teacher job's shard is written when the job ends: a run killed in the middle
    resumes with those games and plays only the rest, and its teacher positions are those of
    a run never killed; resumed with other teacher settings, it plays them all again."""
    sets = ["warmstart.games=4", "run.iterations=0", "run.max_minutes=0.001"]
    whole = start_run(TINY, sets, tmp_path / "whole", resume=False, command="t", log=QUIET)
    real = run_module.run_worker_job
    calls: list[int] = []

    def killed_at_the_third(worker: Worker, job: dict[str, object]) -> object:
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(worker, job)

    rd = tmp_path / "run"
    monkeypatch.setattr(run_module, "run_worker_job", killed_at_the_third)
    with pytest.raises(KeyboardInterrupt):
        start_run(TINY, sets, rd, resume=False, command="t", log=QUIET)
    monkeypatch.undo()
    assert [part for it, part, _ in list_shards(rd)] == [0, 1]
    assert not (rd / "checkpoints" / "latest.pt").exists()
    shutil.copytree(rd, tmp_path / "other")
    shutil.copytree(rd, tmp_path / "none")
    lines: list[str] = []
    run = start_run(None, [], rd, resume=True, command="t", log=lines.append)
    assert "warm start: 2 teacher games already played, kept" in lines
    assert "warm start: 2 teacher games to play" in lines
    assert run.games == whole.games == 4 and run.positions == whole.positions
    for (_, _, a), (_, _, b) in zip(list_shards(rd), list_shards(tmp_path / "whole"), strict=True):
        assert a.name == b.name and np.array_equal(read_shard(a).obs, read_shard(b).obs)

    # the same killed run resumed with another teacher: its games are played again
    lines.clear()
    other = tmp_path / "other"
    start_run(None, ["warmstart.explore=0.5"], other, resume=True, command="t", log=lines.append)
    assert "warm start: 4 teacher games to play" in lines
    assert not [line for line in lines if "already played" in line]
    # ... or with no warm start at all: its teacher games do not stay behind
    none = tmp_path / "none"
    start_run(None, ["warmstart.games=0"], none, resume=True, command="t", log=QUIET)
    assert not [part for it, part, _ in list_shards(none) if it == 0]


@pytest.mark.parametrize("target", ["move", "values"])
def test_the_native_teacher_plays_the_python_teachers_games(
    target: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The heuristic teacher in the core gives the positions of the Python engine's
    (observations, legal actions, targets, value targets), a share ``keep`` of them; with
    ``target="values"`` each target is the softmax of the heuristic's one-ply values at the
    temperature, its best action the move the heuristic played."""
    from moonriver_env.moonriver.agents.heuristic import HeuristicAgent
    from moonriver_env.moonriver.rules import GameConfig
    from training.az import selfplay

    if not selfplay.NATIVE:
        pytest.fail("the native core is not built (tests/vector/test_build.py says why)")
    config = GameConfig(num_players=2, mode="base")
    native = selfplay.play_teacher(config, [3, 4], "heuristic", 0.1, target, 2.0, 0.5)
    monkeypatch.setattr(selfplay, "NATIVE", False)
    python = selfplay.play_teacher(config, [3, 4], "heuristic", 0.1, target, 2.0, 0.5)
    all_kept = selfplay.play_teacher(config, [3, 4], "heuristic", 0.1, target, 2.0, 1.0)
    assert native.games == python.games == 2 and 0.3 < len(native) / len(all_kept) < 0.7
    for key, value in native.arrays().items():
        assert np.array_equal(value, python.arrays()[key]), key
    if target == "move":
        assert set(native.target) == {0.0, 1.0}
        return
    # the first decision again: the target is the softmax of the heuristic's values
    from moonriver_env.rules import new_game

    state = new_game(config, seed=3)
    while len(state.legal_action_list()) == 1:
        state.apply(state.legal_action_list()[0])
    agent = HeuristicAgent(seed=selfplay.derive_seed(3, 3, state.current_seat))
    values = agent.action_values(state)
    v = np.array([values[a] for a in state.legal_action_list()]) / 2.0
    want = np.exp(v - v.max()) / np.exp(v - v.max()).sum()
    lo, hi = all_kept.legal_ptr[0], all_kept.legal_ptr[1]
    assert np.allclose(all_kept.target[lo:hi], want, atol=1e-6)
    assert 0.0 < all_kept.target[lo:hi].min() < all_kept.target[lo:hi].max() < 1.0


def test_value_targets_need_a_teacher_with_values() -> None:
    with pytest.raises(ConfigError, match=r"^warmstart.target: .*'heuristic', 'mc'.*'greedy'"):
        load_az_config(TINY, ['warmstart.target="values"', 'warmstart.teacher="greedy"'])
    cfg = load_az_config(TINY, ['warmstart.target="values"', 'warmstart.teacher="mc:sims=8"'])
    assert cfg["warmstart"]["teacher"] == "mc:sims=8"
    for bad in ("warmstart.temperature=0", "warmstart.keep=0", 'warmstart.target="best"'):
        with pytest.raises(ConfigError, match=rf"^{bad.split('=')[0]}"):
            load_az_config(TINY, [bad])


def test_an_mc_teacher_targets_its_candidates_values() -> None:
    """With ``target="values"`` and flat Monte Carlo as teacher, each target is the softmax of
    mc's mean values of its root candidates at the temperature (nothing on the other legal
    actions), or its move where it searched nothing; replayed decision by decision."""
    from agents.registry import make_agent
    from moonriver_env.rules import GameConfig, new_game
    from training.az import selfplay

    config = GameConfig(num_players=2, mode="base")
    spec = "mc:sims=8,time=none,k=3"
    pos = selfplay.play_teacher(config, [5], spec, 0.0, "values", 2.0, 1.0)
    state = new_game(config, seed=5)
    agents = [make_agent(spec, seed=selfplay.derive_seed(5, 3, k)) for k in range(2)]
    i = soft = 0
    while not state.is_terminal:
        legal = state.legal_action_list()
        agent = agents[state.current_seat]
        action = agent.choose(state)
        if len(legal) > 1:
            got = pos.target[pos.legal_ptr[i] : pos.legal_ptr[i + 1]]
            means = agent.last_values
            if means:
                v = np.array([means.get(a, -np.inf) for a in legal]) / 2.0
                want = np.exp(v - v.max()) / np.exp(v - v.max()).sum()
                soft += 1
                assert np.count_nonzero(got) <= 3 and got[legal.index(action)] == got.max()
            else:
                want = (np.array(legal) == action).astype(np.float32)
            assert np.allclose(got, want, atol=1e-6), i
            i += 1
        state.apply(action)
    assert i == len(pos) and soft > len(pos) // 2


def test_a_run_starts_from_the_model_init_names(tiny_run: Path, tmp_path: Path) -> None:
    """``warmstart.init``: a new run's network is that model's (its provenance named in the
    run's), also when the run was killed before its first checkpoint; a model of another
    shape, or no model, is refused naming the key."""
    init = f'warmstart.init="{tiny_run}"'
    net, meta = load_checkpoint(tiny_run / "model.pt")
    cfg = load_az_config(TINY, [init])
    run = Run(cfg, tmp_path / "a", "test", log=QUIET)
    run.initialize()
    for a, b in zip(run.net.state_dict().values(), net.state_dict().values(), strict=True):
        assert torch.equal(a, b)
    assert run.init["path"] == str(tiny_run)
    assert run.init["games"] == meta["provenance"]["games"]
    fresh = Run(load_az_config(TINY), tmp_path / "b", "test", log=QUIET)
    fresh.initialize()
    pairs = zip(fresh.net.state_dict().values(), net.state_dict().values(), strict=True)
    assert not all(torch.equal(a, b) for a, b in pairs)  # empty: the seeded random weights
    # killed before its first checkpoint: --resume starts it again, from the model
    rd = tmp_path / "c"
    rd.mkdir()
    (rd / "config.toml").write_text(dumps(load_az_config(TINY, [init, "run.iterations=1"])))
    done = start_run(None, [], rd, resume=True, command="test", log=QUIET)
    assert load_checkpoint(rd / "model.pt")[1]["provenance"]["init"] == run.init
    assert done.iteration == 1
    bad = Run(load_az_config(TINY, [init, "net.channels=9"]), tmp_path / "d", "t", log=QUIET)
    with pytest.raises(ConfigError, match=r"^warmstart.init: .* shape"):
        bad.initialize()
    gone = Run(load_az_config(TINY, ['warmstart.init="/nowhere"']), tmp_path / "e", "t")
    with pytest.raises(ConfigError, match=r"^warmstart.init: path: no az model"):
        gone.initialize()


def _kill_in_block(monkeypatch: pytest.MonkeyPatch, block: int, over: list[str], rd: Path) -> None:
    """Start a run in ``rd`` that is killed (``KeyboardInterrupt``) when its ``block``-th
    batch of gradient steps begins."""
    real = run_module.train_steps
    calls = []

    def killed(*args: object, **kw: object) -> dict[str, float]:
        calls.append(1)
        if len(calls) == block:
            raise KeyboardInterrupt
        return real(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(run_module, "train_steps", killed)
    with pytest.raises(KeyboardInterrupt):
        start_run(TINY, over, rd, resume=False, command="t", log=QUIET)
    monkeypatch.undo()


def test_a_run_killed_while_learning_the_warm_start_resumes_there(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The warm start saves every ``save_every`` steps; killed after the first block, the run
    resumes from it with the teacher's games kept, and ends with the weights of a run never
    killed (each block draws from its own seed)."""
    import torch

    over = ["warmstart.games=2", "warmstart.epochs=4", "warmstart.save_every=3",
            "run.iterations=1", "run.max_minutes=0", "eval.every=0"]  # fmt: skip
    whole = start_run(TINY, over, tmp_path / "whole", resume=False, command="t", log=QUIET)
    steps = whole.warm_steps
    assert steps > 3 and whole.iteration == 1
    rd = tmp_path / "killed"
    _kill_in_block(monkeypatch, 2, over, rd)  # killed in the second block
    _, meta = load_checkpoint(rd / "checkpoints" / "latest.pt")
    assert meta["progress"]["iteration"] == -1 and meta["progress"]["warm_steps"] == 3
    lines: list[str] = []
    run = start_run(None, [], rd, resume=True, command="t", log=lines.append)
    assert "the warm start's step 3" in lines[0] and "0 unfinished shards dropped" in lines[0]
    assert run.iteration == 1 and run.warm_steps == steps and run.games == whole.games
    ours, _ = load_checkpoint(rd / "checkpoints" / "iter_00000.pt")  # after the warm start
    theirs, _ = load_checkpoint(tmp_path / "whole" / "checkpoints" / "iter_00000.pt")
    for a, b in zip(ours.state_dict().values(), theirs.state_dict().values(), strict=True):
        assert torch.equal(a, b)


def test_the_budget_ends_a_long_warm_start(tmp_path: Path) -> None:
    """``run.max_minutes`` spent, the warm start stops between blocks and counts as done."""
    over = ["warmstart.games=2", "warmstart.epochs=50", "warmstart.save_every=2",
            "run.iterations=0", "run.max_minutes=0.00001", "eval.every=0"]  # fmt: skip
    lines: list[str] = []
    run = start_run(TINY, over, tmp_path / "r", resume=False, command="t", log=lines.append)
    assert run.iteration == 0 and run.warm_steps == 2  # one block of 2, then the budget
    assert any("run.max_minutes spent after 2 steps" in line for line in lines)
    rows = list(csv.DictReader((tmp_path / "r" / "progress.csv").open()))
    assert [r["iteration"] for r in rows] == ["0"] and rows[0]["train_steps"] == "2"


def test_a_resumed_warm_start_may_be_cut_short(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Resumed with fewer ``warmstart.epochs`` than the steps already taken, the warm start
    ends at once with the weights of its last checkpoint."""
    over = ["warmstart.games=2", "warmstart.epochs=50", "warmstart.save_every=2",
            "run.iterations=1", "run.max_minutes=0", "eval.every=0"]  # fmt: skip
    rd = tmp_path / "r"
    _kill_in_block(monkeypatch, 3, over, rd)
    saved, meta = load_checkpoint(rd / "checkpoints" / "latest.pt")
    assert meta["progress"]["warm_steps"] == 4
    run = start_run(None, ["warmstart.epochs=0.01", "run.iterations=0", "run.max_minutes=1e-9"],
                    rd, resume=True, command="t", log=QUIET)  # fmt: skip
    assert run.iteration == 0 and run.warm_steps == 4
    rows = list(csv.DictReader((rd / "progress.csv").open()))
    assert [r["iteration"] for r in rows] == ["0"] and float(rows[0]["loss"]) == 0.0
    final, _ = load_checkpoint(rd / "model.pt")
    for a, b in zip(final.state_dict().values(), saved.state_dict().values(), strict=True):
        assert bool((a == b).all())


def test_export_copies_a_runs_model_or_a_kept_iteration(tiny_run: Path, tmp_path: Path) -> None:
    """``--export RUN_DIR`` ships the latest model, ``--export .../iter_<N>.pt`` that
    iteration's, each with the run's records; an existing model is kept without ``--force``
    and a damaged file is refused before anything is written."""
    import json

    from agents.az import CheckpointError
    from training.az.cli import export

    latest = export(tiny_run, tmp_path / "latest")
    assert latest.read_bytes() == (tiny_run / "model.pt").read_bytes()
    kept = tiny_run / "checkpoints" / "iter_00001.pt"
    assert az_main(["--export", str(kept), "--out", str(tmp_path / "one")]) == 0
    prov = json.loads((tmp_path / "one" / "provenance.json").read_text())
    assert prov["iteration"] == 1 and prov["run_dir"] == str(tiny_run)
    assert prov["model"] == str(kept)
    rows = list(csv.DictReader((tmp_path / "one" / "progress.csv").open()))
    assert [r["iteration"] for r in rows] == ["0", "1"]  # the run's records up to the model
    evals = list(csv.DictReader((tmp_path / "one" / "eval.csv").open()))
    assert len(evals) == 2 and (tmp_path / "one" / "learning_curve.png").is_file()
    assert len(list(csv.DictReader((tmp_path / "latest" / "progress.csv").open()))) == 3
    with pytest.raises(OutputError, match="--force"):
        export(kept, tmp_path / "latest")
    assert latest.read_bytes() == (tiny_run / "model.pt").read_bytes()
    (tmp_path / "latest" / "stale.txt").write_text("from before")
    export(kept, tmp_path / "latest", force=True)  # the whole folder replaced
    assert latest.read_bytes() == kept.read_bytes()
    assert not (tmp_path / "latest" / "stale.txt").exists()
    assert len(list(csv.DictReader((tmp_path / "latest" / "progress.csv").open()))) == 2
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no build left
    broken = tmp_path / "broken.pt"
    broken.write_bytes(kept.read_bytes()[:100])
    with pytest.raises(CheckpointError):
        export(broken, tmp_path / "nothing")
    assert not (tmp_path / "nothing").exists()
