"""Ray RLlib (the ``ray`` extra): the multi-agent env and masking module of
``moonriver_env/rllib_env.py`` and ``rllib_module.py`` (imported as ``moonriver_env.rllib``),
the trainer ``training.rllib.train`` and the ``rllib:RUN_DIR`` agent.

The env passes RLlib's own ``check_multiagent_environments`` silently (its unmasked random
action is answered by the illegal-action rule, no warning); its masks are the engine's legal
actions and its games are fixed by the seed; the module never samples an illegal action and
its value ignores the mask; config errors name the key; the smoke config trains on one local
Ray (started once for the module), its checkpoint plays a tournament game as ``rllib:DIR``,
and ``--resume`` continues from it.
"""

from __future__ import annotations

import csv
import json
import logging
import warnings
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")
torch = pytest.importorskip("torch")

from fresh_python import run_python  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.models.torch.torch_distributions import TorchCategorical  # noqa: E402
from ray.rllib.utils.pre_checks.env import check_multiagent_environments  # noqa: E402
from ray.rllib.utils.torch_utils import FLOAT_MIN  # noqa: E402

from agents import make_agent  # noqa: E402
from agents.ray_backend import start_local  # noqa: E402
from agents.rllib_agent import RLlibAgent, list_checkpoints  # noqa: E402
from moonriver_env.rllib import (  # noqa: E402
    LEARNER,
    GameMultiAgentEnv,
    MoonRiverMultiAgentEnv,
    module_for_agent,
    rl_module_spec,
)
from moonriver_env.rules import GameConfig  # noqa: E402
from training.common.config import ConfigError  # noqa: E402
from training.rllib import train as rllib_train  # noqa: E402
from training.rllib.config import RLLIB_SMOKE, load_rllib_config  # noqa: E402

GAMES = [
    {"num_players": 2, "mode": "base"},
    {"num_players": 3, "mode": "legends", "scenario": "random"},
    {"num_players": 4, "mode": "base", "auto_resolve": True},
]
MIXED = {"opponents": {"learner": 1.0, "snapshot": 1.0, "random": 1.0}, "snapshot_slots": 2}


def play(env: MoonRiverMultiAgentEnv, seed: int, rng: np.random.Generator) -> list:
    """A whole game of uniformly random legal actions; the trace of what the env returned."""
    obs, _ = env.reset(seed=seed)
    trace = []
    while True:
        assert len(obs) == 1, "turn-based: one observation, the acting agent's"
        ((agent, o),) = obs.items()
        state = env.state
        seat = int(agent.split("@")[0].removeprefix("player_"))
        assert seat == state.current_seat
        legal = np.flatnonzero(o["action_mask"])
        assert legal.tolist() == state.legal_action_list()
        assert o["action_mask"].dtype == np.float32 and o["observations"].dtype == np.float32
        assert env.observation_spaces[agent].contains(o)
        action = int(rng.choice(legal))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        trace.append((agent, action, o["observations"].sum(), sorted(rewards.items())))
        if terms["__all__"]:
            assert set(obs) == set(rewards) == set(env.agents)
            assert not any(truncs.values())
            return trace


@pytest.mark.parametrize("game", GAMES, ids=lambda g: f"{g['num_players']}p_{g['mode']}")
def test_env_masks_are_the_legal_actions_and_seeds_fix_the_game(game: dict) -> None:
    env = MoonRiverMultiAgentEnv({**game, **MIXED})
    first = play(env, 7, np.random.default_rng(0))
    again = play(MoonRiverMultiAgentEnv({**game, **MIXED}), 7, np.random.default_rng(0))
    assert first == again
    assert play(env, 8, np.random.default_rng(0)) != first


def record(env: MoonRiverMultiAgentEnv, seed: int, games: int) -> list:
    """``games`` whole games of uniformly random legal actions (the first from ``seed``, then
    seedless resets) and an illegal action at the start of one more: everything the env
    returned, arrays as bytes."""

    def arrays(obs: dict) -> list:
        return [
            (a, o["observations"].tobytes(), o["action_mask"].tobytes()) for a, o in obs.items()
        ]

    rng = np.random.default_rng(seed)
    out: list = []
    for g in range(games + 1):
        obs, _ = env.reset(seed=seed if g == 0 else None)
        out.append((env.agents, arrays(obs)))
        while True:
            ((agent, o),) = obs.items()
            legal = np.flatnonzero(o["action_mask"])
            if g == games:  # the last game: an illegal action ends it
                action = int(np.flatnonzero(o["action_mask"] == 0)[0])
            else:
                action = int(rng.choice(legal))
            obs, rewards, terms, truncs, infos = env.step({agent: action})
            out.append((arrays(obs), rewards, terms, truncs, infos))
            if terms["__all__"]:
                out.append((env.state.to_json(), env.render() if env.aec.render_mode else None))
                break
    return out


@pytest.mark.parametrize(
    "game",
    [
        {"num_players": 2, "reward": "score_diff", "dense_reward": 0.1, "render_mode": "ansi"},
        {"num_players": 3, "mode": "legends", "scenario": "random"},
        {"num_players": 4, "mode": "legends", "boards": "random", "reward": "score"},
    ],
    ids=["2p", "3p_legends", "4p_legends"],
)
def test_native_and_python_backends_play_the_same_games(game: dict) -> None:
    """Issue 21, item 3: on the core (a one-game VectorGame) the env returns what it returns on
    the Python engine, decision for decision over whole games: observations, masks, rewards,
    terminations, infos, the lineups and the embedded opponents' moves, the final states and
    their pictures."""
    cfg = {**game, "opponents": {"learner": 1.0, "snapshot": 1.0, "random": 1.0, "heuristic": 1.0}}
    cfg["snapshot_slots"] = 2
    native = MoonRiverMultiAgentEnv({**cfg, "backend": "native"})
    python = MoonRiverMultiAgentEnv({**cfg, "backend": "python"})
    assert native.backend == "native" and python.backend == "python"
    assert native._games is not None and python._games is None
    assert record(native, 3, 2) == record(python, 3, 2)
    with pytest.raises(ValueError, match="backend"):
        MoonRiverMultiAgentEnv({"backend": "c"})


def test_kingdomino_through_the_same_env_on_both_backends() -> None:
    """The env is every registered game's (``env_config["game"]``): Kingdomino plays on its own
    core and on the Python engine the same games, with its own agents embedded."""
    cfg = {
        "game": "kingdomino",
        "num_players": 3,
        "opponents": {"learner": 1.0, "snapshot": 1.0, "random": 1.0, "greedy": 1.0},
        "snapshot_slots": 2,
        "render_mode": "ansi",
    }
    native = GameMultiAgentEnv({**cfg, "backend": "native"})
    python = GameMultiAgentEnv({**cfg, "backend": "python"})
    assert native._games is not None and python._games is None
    assert native.game_entry.title == "Kingdomino"
    assert native.action_spaces["player_0"].n == python.aec.config.num_actions
    assert record(native, 3, 2) == record(python, 3, 2)
    assert MoonRiverMultiAgentEnv is GameMultiAgentEnv  # the first name, kept
    with pytest.raises(ValueError, match="^game: expected one of"):
        GameMultiAgentEnv({"game": "chess"})


def test_env_passes_rllib_check_without_warnings(caplog: pytest.LogCaptureFixture) -> None:
    env = MoonRiverMultiAgentEnv({"num_players": 3, **MIXED})
    with caplog.at_level(logging.WARNING), warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(5):  # the check's random action is illegal in most positions
            check_multiagent_environments(env)
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]


def test_illegal_action_ends_the_game_with_the_penalty() -> None:
    env = MoonRiverMultiAgentEnv({"num_players": 2, "illegal_penalty": -3.0})
    obs, _ = env.reset(seed=0)
    ((agent, o),) = obs.items()
    illegal = int(np.flatnonzero(o["action_mask"] == 0)[0])
    before = env.state.to_json()
    obs, rewards, terms, _, infos = env.step({agent: illegal})
    assert rewards[agent] == -3.0 and terms["__all__"]
    assert infos[agent]["illegal_action"] is True
    assert env.state.to_json() == before
    with pytest.raises(RuntimeError, match="reset"):
        env.step({agent: 0})


def test_roles_name_the_modules_and_embedded_seats_are_hidden() -> None:
    env = MoonRiverMultiAgentEnv({"num_players": 4, **MIXED})
    seen = set()
    for seed in range(20):
        env.reset(seed=seed)
        assert any("@" not in a for a in env.agents), "the learner plays a seat of every game"
        seen.update(module_for_agent(a) for a in env.agents)
        assert len(env.agents) <= 4
    assert seen == {LEARNER, "snapshot_0", "snapshot_1"}
    with pytest.raises(ValueError, match="snapshot_slots"):
        MoonRiverMultiAgentEnv({"opponents": {"snapshot": 1.0}})
    with pytest.raises(ValueError, match="reward"):
        MoonRiverMultiAgentEnv({"reward": "points"})


def test_module_never_samples_an_illegal_action_and_value_ignores_the_mask() -> None:
    env = MoonRiverMultiAgentEnv({"num_players": 2})
    module = rl_module_spec(env, (32,)).rl_module_specs[LEARNER].build()
    obs, masks = [], []
    for seed in range(16):
        o, _ = env.reset(seed=seed)
        ((_, x),) = o.items()
        obs.append(x["observations"])
        masks.append(x["action_mask"])
    batch = {
        Columns.OBS: {
            "observations": torch.as_tensor(np.stack(obs)),
            "action_mask": torch.as_tensor(np.stack(masks)),
        }
    }
    legal = torch.as_tensor(np.stack(masks)) > 0
    with torch.no_grad():
        for forward in (module.forward_exploration, module.forward_inference, module.forward_train):
            logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS]
            assert torch.all(logits[~legal] == FLOAT_MIN)
            actions = TorchCategorical.from_logits(logits).sample(sample_shape=(200,))
            assert legal.gather(1, actions.T).all()
        values = module.compute_values(dict(batch))
        flipped = {
            Columns.OBS: {
                **batch[Columns.OBS],
                "action_mask": 1 - batch[Columns.OBS]["action_mask"],
            }
        }
        assert torch.equal(values, module.compute_values(flipped))


@pytest.mark.parametrize(
    "override",
    [
        "ppo.minibatch_size=100000",
        "run.num_env_runners=-1",
        "opponents.snapshot_slots=0",
        "eval.opponents=['nobody']",
        "env.scenario=gold_rush",
        "model.hidden=[]",
        "opponents.sefl=1.0",
    ],
)
def test_config_errors_name_the_key(override: str) -> None:
    key = override.partition("=")[0]
    with pytest.raises(ConfigError, match=f"^{key}"):
        load_rllib_config(RLLIB_SMOKE, [override])


def test_importing_moonriver_env_imports_no_ray() -> None:
    code = (
        "import sys, moonriver_env, moonriver_env.moonriver.env, moonriver_env.single_agent, agents; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'ray'))"
    )
    assert run_python(code, timeout=120).stdout.strip().splitlines()[-1] == "[]"


# -- training on one local Ray -----------------------------------------------------------------
@pytest.fixture(scope="module")
def local_ray():
    start_local(2, log_to_driver=False)
    yield
    ray.shutdown()


@pytest.fixture(scope="module")
def smoke_run(local_ray, tmp_path_factory: pytest.TempPathFactory) -> Path:
    run_dir = tmp_path_factory.mktemp("rllib") / "smoke"
    args = ["--config", str(RLLIB_SMOKE), "--run-dir", str(run_dir)]
    assert rllib_train.main([*args, "--set", "run.max_iterations=1"]) == 0
    return run_dir


def _metrics(run_dir: Path) -> list[dict[str, str]]:
    with (run_dir / "metrics.csv").open() as f:
        return list(csv.DictReader(f))


@pytest.fixture(autouse=True)
def _trust_the_run(monkeypatch: pytest.MonkeyPatch) -> None:
    """RLlib unpickles its checkpoints: these tests read the run they made themselves
    (``agents.networks.snapshots.check_trust``)."""
    monkeypatch.setenv("MOONRIVER_TRUST_FILES", "1")


def test_smoke_run_writes_its_files_and_plays_as_an_agent(smoke_run: Path) -> None:
    rows = _metrics(smoke_run)
    assert [r["iteration"] for r in rows] == ["1"]
    assert int(rows[0]["env_steps"]) >= 400
    assert [p.name for p in list_checkpoints(smoke_run)] == ["iter_000001"]
    prov = json.loads((smoke_run / "provenance.json").read_text())
    assert prov["versions"]["ray"] == ray.__version__
    from agents.tournament.cli import main as tournament

    out = smoke_run.parent / "tournament"
    spec = f"rllib:{smoke_run}"
    assert (
        tournament(["--agents", f"{spec},random", "--games", "2", "--out", str(out), "--no-plot"])
        == 0
    )
    with (out / "games.csv").open() as f:
        games = list(csv.DictReader(f))
    assert {g["agent"] for g in games} == {spec, "random"}
    agent = make_agent(f"{spec},sample=true", seed=1)
    assert isinstance(agent, RLlibAgent) and agent.module_policy.sample
    with pytest.raises(ValueError, match=r"3p_base.*2p_base"):
        agent.check_game(GameConfig(num_players=3))


def test_agent_spec_takes_a_run_dir_relative_to_the_working_directory(
    smoke_run: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the README's form, rllib:runs/NAME (RLlib itself refuses a relative checkpoint path)
    monkeypatch.chdir(smoke_run.parent)
    agent = make_agent(f"rllib:{smoke_run.name}", seed=0)
    assert isinstance(agent, RLlibAgent)
    agent.check_game(GameConfig(num_players=2))


def test_second_run_in_the_same_dir_is_refused(smoke_run: Path, capsys) -> None:
    assert rllib_train.main(["--run-dir", str(smoke_run)]) == 2
    assert "--resume" in capsys.readouterr().err


def test_resume_continues_from_the_checkpoint(smoke_run: Path) -> None:
    before = _metrics(smoke_run)
    args = ["--run-dir", str(smoke_run), "--resume", "--set", "run.max_iterations=2"]
    assert rllib_train.main(args) == 0
    rows = _metrics(smoke_run)
    assert [r["iteration"] for r in rows] == ["1", "2"]
    assert rows[:1] == before
    assert int(rows[1]["env_steps"]) > int(rows[0]["env_steps"])
    assert float(rows[1]["wall_time"]) > float(rows[0]["wall_time"])
    assert [p.name for p in list_checkpoints(smoke_run)] == ["iter_000002"]  # keep = 1
    assert (smoke_run / "eval.csv").exists()  # eval.every = 2
    with pytest.raises(ConfigError, match="^model.hidden"):
        rllib_train._run_config(
            rllib_train.parse_args(
                ["--run-dir", str(smoke_run), "--resume", "--set", "model.hidden=[8]"]
            ),
            smoke_run,
        )


def test_bench_measures_both_trainers(local_ray, capsys) -> None:
    small = ["--config", str(RLLIB_SMOKE), "--bench", "1"]
    assert rllib_train.main(small) == 0
    rllib = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert rllib["env_steps_per_s_sampled"] > 0 and rllib["learner_steps_per_s"] > 0
    assert rllib_train.main([*small, "--sb3"]) == 0
    sb3 = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert sb3["hidden"] == rllib["hidden"] == [64] and sb3["learner_steps_per_s"] > 0


def test_algo_config_maps_the_run_keys() -> None:
    cfg = load_rllib_config(
        RLLIB_SMOKE,
        [
            "run.num_learners=2",
            "run.torch_threads=3",
            "run.num_env_runners=5",
            "opponents.snapshot_slots=2",
        ],
    )
    config = rllib_train.algo_config(cfg)
    assert config.num_learners == 2 and config.num_cpus_per_learner == 3
    assert config.train_batch_size_per_learner == 200  # 400 split between the learners
    assert config.num_env_runners == 5
    assert set(config.policies) == {LEARNER, "snapshot_0", "snapshot_1"}
    assert config.env_config["opponents"]["snapshot"] == cfg["opponents"]["snapshot"]
    # the env is the generic one, told the game by its registered name
    assert config.env is GameMultiAgentEnv and config.env_config["game"] == "moonriver"
