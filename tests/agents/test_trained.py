"""The ``trained`` agent (moonriver_env/moonriver/agents/trained.py) and its training pipeline
(training/value/)."""

from __future__ import annotations

import json
import time
import tomllib
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("torch")

from agents import make_agent  # noqa: E402
from moonriver_env.moonriver.agents.heuristic import HeuristicAgent  # noqa: E402
from moonriver_env.moonriver.agents.trained import CHECKPOINTS, TrainedAgent, find_models  # noqa: E402
from moonriver_env.moonriver.rules import GameConfig, new_game  # noqa: E402
from training.common.config import ConfigError  # noqa: E402
from training.value.config import load_value_config  # noqa: E402

SHIPPED = ("2p_base", "4p_base")
CONFIGS = Path(__file__).resolve().parents[2] / "training" / "value" / "configs"


def play(agent: TrainedAgent, config: GameConfig, seed: int) -> tuple[int, list[float]]:
    """A whole game of ``agent`` in seat 0 against heuristics; checks every move is legal and
    that each forward pass scored the configured number of candidates."""
    state = new_game(config, seed=seed)
    others = [HeuristicAgent(seed=seed + s) for s in range(config.num_players)]
    agent.reset(seed)
    decisions, seconds = 0, []
    while not state.is_terminal:
        if state.seat == 0:
            legal = state.legal_action_list()
            t0 = time.perf_counter()
            a = agent.choose(state)
            seconds.append(time.perf_counter() - t0)
            assert a in legal
            if len(legal) > 1 and agent.last_batch:
                assert agent.k is not None
                assert agent.last_batch == min(agent.k, len(legal))
            decisions += 1
        else:
            a = others[state.seat].choose(state)
        state.apply(a)
    return decisions, seconds


def test_shipped_models_cover_2p_and_4p_base() -> None:
    assert set(SHIPPED) <= set(find_models())
    agent = make_agent("trained", seed=0)
    assert isinstance(agent, TrainedAgent)
    assert set(SHIPPED) <= set(agent.games)


@pytest.mark.parametrize("game", SHIPPED)
def test_shipped_search_budget_is_the_configs(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import moonriver_env.moonriver.agents.trained as trained_module

    cfg = tomllib.loads((CHECKPOINTS / f"trained_{game}" / "config.toml").read_text())
    search = cfg["search"]
    n = int(game[0])
    agent = TrainedAgent(seed=1)
    agent.native = False  # the rollouts are counted in Python (the core's are the same)
    rollouts: list[int] = []  # decisions played by each rollout
    real_rollout = trained_module.rollout

    def counting_rollout(*args: object, **kw: object) -> int:
        rollouts.append(real_rollout(*args, **kw))  # type: ignore[arg-type]
        return rollouts[-1]

    monkeypatch.setattr(trained_module, "rollout", counting_rollout)
    batches: list[int] = []
    real_choose = agent.choose

    def recording_choose(state: object) -> int:
        a = real_choose(state)  # type: ignore[arg-type]
        batches.append(agent.last_batch)
        return a

    monkeypatch.setattr(agent, "choose", recording_choose)
    decisions, seconds = play(agent, GameConfig(num_players=n, mode="base"), seed=5)
    assert agent.k == search["k"]
    assert decisions > 20
    searched = [b for b in batches if b]
    assert searched and max(searched) == search["k"]
    # Every searched decision rolls out each candidate once per round, at most `depth` deep.
    assert len(rollouts) == search["rounds"] * sum(searched)
    assert max(rollouts) <= search["depth"]
    # Loose, for the log only (no timing assertion: machines differ and are shared).
    print(f"{game}: {1000 * sum(seconds) / len(seconds):.1f} ms per decision")


@pytest.mark.parametrize(
    ("players", "mode", "named"),
    [(3, "base", "3-player base"), (2, "legends", "2-player legends")],
)
def test_refuses_other_games_before_moving(players: int, mode: str, named: str) -> None:
    agent = make_agent("trained", seed=0)
    state = new_game(GameConfig(num_players=players, mode=mode), seed=0)
    before = state.to_json()
    with pytest.raises(ValueError) as err:
        agent.choose(state)
    msg = str(err.value)
    assert named in msg
    for game in SHIPPED:
        assert game in msg
    assert state.to_json() == before


def test_env_game_is_refused_too() -> None:
    from moonriver_env import moonriver_v0

    env = moonriver_v0.env(num_players=3)
    env.reset(seed=0)
    agent = make_agent("trained", seed=0)
    obs, *_ = env.last()
    with pytest.raises(ValueError, match="3-player base"):
        agent.act(obs, env)


def test_bad_paths_and_keys_are_named() -> None:
    with pytest.raises(ValueError, match="path"):
        make_agent("trained:/no/such/model")
    with pytest.raises(ValueError, match="k: expected"):
        TrainedAgent(k=0)
    with pytest.raises(ConfigError, match=r"collect\.rounds"):
        load_value_config(None, ("collect.rounds=0",))
    with pytest.raises(ConfigError, match=r"collect\.nope"):
        load_value_config(None, ("collect.nope=1",))
    with pytest.raises(ConfigError, match=r"search\.k"):
        load_value_config(None, ("collect.k=3", "search.k=4"))


@pytest.mark.parametrize("path", sorted(CONFIGS.glob("value_*.toml")))
def test_shipped_configs_load(path: Path) -> None:
    cfg = load_value_config(path)
    assert cfg["env"]["mode"] == "base"
    assert cfg["search"]["k"] <= cfg["collect"]["k"]


def test_tiny_training_run_gives_a_model_that_plays(tmp_path: Path) -> None:
    from training.value.train import main

    run = tmp_path / "run"
    args = [
        "--config",
        str(CONFIGS / "value_2p_base.toml"),
        "--run-dir",
        str(run),
        "--set",
        "collect.labels=rollout",
        "--set",
        "collect.games=2",
        "--set",
        "collect.k=3",
        "--set",
        "collect.rounds=1",
        "--set",
        "collect.depth=2",
        "--set",
        "search.k=3",
        "--set",
        "model.hidden=[16]",
        "--set",
        "train.epochs=1",
        "--set",
        "eval.games=0",
        "--set",
        "run.workers=1",
    ]
    assert main(args) == 0
    lines = (run / "games" / "worker0.jsonl").read_text().splitlines()
    assert len(lines) == 2
    game = json.loads(lines[0])
    assert game["labels"] and all(len(lab["c"]) <= 3 for lab in game["labels"])
    curve = (run / "curve.csv").read_text().splitlines()
    assert len(curve) == 3  # header, before training, epoch 1
    prov = json.loads((run / "provenance.json").read_text())
    assert prov["train"]["afterstates"] > 0
    agent = make_agent(f"trained:{run}", seed=3)
    assert isinstance(agent, TrainedAgent) and agent.games == ["2p_base"]
    decisions, _ = play(agent, GameConfig(num_players=2, mode="base"), seed=11)
    assert decisions > 20 and agent.k == 3
    # A rerun resumes: nothing new to collect or fit, the same model comes out.
    assert main([*args, "--resume"]) == 0
    assert len((run / "games" / "worker0.jsonl").read_text().splitlines()) == 2


def test_tournament_refuses_trained_in_a_game_without_a_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Seated in a 3-player tournament, ``trained`` is refused before any game is played or
    any file written (``check_game``): the command exits with its usage error."""
    from agents.tournament.cli import main

    out = tmp_path / "t"
    with pytest.raises(SystemExit) as exit_:
        main(["--agents", "trained,heuristic,greedy", "--players", "3", "--games", "3",
              "--out", str(out)])  # fmt: skip
    assert exit_.value.code == 2
    assert "3-player base" in capsys.readouterr().err
    assert not out.exists() or not any(out.iterdir())


def test_leader_gap_on_hand_built_rows() -> None:
    """The evaluation block of a 4-player row is own, then the three others, then the relative
    value (points / EVAL_SCALE): the gap is the best other minus the others' mean, and the
    learner's ``own - (best + mean) / 2`` less half the gap is its margin against the best."""
    from moonriver_env.moonriver.agents.trained import EVAL_SCALE, leader_gap

    own, others = 50.0, [30.0, 60.0, 30.0]
    rel = own - 0.5 * (max(others) + sum(others) / 3)  # 50 - (60 + 40) / 2 = 0
    rows = np.zeros((2, 10), dtype=np.float32)
    rows[0, -5:] = np.array([own, *others, rel]) / EVAL_SCALE
    rows[1, -5:] = np.array([10.0, 20.0, 20.0, 20.0, -10.0]) / EVAL_SCALE  # a tie: no leader
    gap = leader_gap(rows, 4)
    assert gap == pytest.approx([20.0, 0.0], abs=1e-4)
    assert rel - 0.5 * gap[0] == pytest.approx(own - max(others), abs=1e-4)  # -10
    two = np.zeros((1, 6), dtype=np.float32)
    two[0, -3:] = np.array([40.0, 70.0, -30.0]) / EVAL_SCALE
    assert leader_gap(two, 2) == pytest.approx([0.0])  # one opponent: it is the leader


def test_leader_gap_reads_the_evaluations_of_a_real_position() -> None:
    from moonriver_env.moonriver.agents.evaluation import Evaluator, make_context
    from moonriver_env.moonriver.agents.trained import leader_gap, state_inputs
    from moonriver_env.moonriver.encoding import ObservationEncoder

    config = GameConfig(num_players=4, mode="base")
    state = new_game(config, seed=3)
    players = [HeuristicAgent(seed=s) for s in range(4)]
    for _ in range(60):
        state.apply(players[state.seat].choose(state))
    ev = Evaluator()
    vals = ev.values(state, make_context(state))
    seat = state.seat
    rows = state_inputs(ObservationEncoder(config), ev, [state], seat)
    others = [vals[(seat + i) % 4] for i in range(1, 4)]
    want = max(others) - sum(others) / 3
    assert want > 0  # the position has a leader among the others
    assert leader_gap(rows, 4) == pytest.approx([want], rel=1e-4)


def test_squash_keeps_points_and_prefers_the_frequent_winner() -> None:
    from moonriver_env.moonriver.agents.trained import squash

    v = np.array([-40.0, -1.0, 0.0, 1.0, 40.0])
    assert np.array_equal(squash(v, 0.0), v)
    s = squash(v, 10.0)
    assert np.all(np.diff(s) > 0) and np.all(np.abs(s) < 10.0)
    assert s[3] == pytest.approx(1.0, abs=0.01)  # small margins stay in points
    # Candidate A wins 3 of 4 futures by 2 points and loses one by 6 (mean margin 0);
    # B loses 3 by 2 and wins one by 30 (mean margin +6): margins prefer B, the squash A.
    a, b = np.array([2.0, 2.0, 2.0, -6.0]), np.array([-2.0, -2.0, -2.0, 30.0])
    assert a.mean() < b.mean()
    assert squash(a, 5.0).mean() > squash(b, 5.0).mean()


@pytest.mark.parametrize(("key", "value"), [("leader_weight", 0.5), ("win_scale", 10.0)])
def test_leaf_options_change_only_the_leaf_values(key: str, value: float) -> None:
    """Two agents with the same seed search the same futures; ``leader_weight`` lowers every
    candidate's value (the gap is never negative), ``win_scale`` bounds it."""
    config = GameConfig(num_players=4, mode="base")
    state = new_game(config, seed=8)
    players = [HeuristicAgent(seed=s) for s in range(4)]
    for _ in range(80):
        state.apply(players[state.seat].choose(state))
    while len(state.legal_action_list()) < 2:
        state.apply(players[state.seat].choose(state))
    plain, changed = TrainedAgent(seed=4), TrainedAgent(seed=4)
    _, _, meta = changed.load_for(config)
    meta["search"] = {**meta["search"], "leader_weight": 0.0, "win_scale": 0.0, key: value}
    _, _, meta0 = plain.load_for(config)
    meta0["search"] = {**meta0["search"], "leader_weight": 0.0, "win_scale": 0.0}
    plain.choose(state)
    changed.choose(state)
    assert plain.last_values.keys() == changed.last_values.keys()
    before = np.array(list(plain.last_values.values()))
    after = np.array(list(changed.last_values.values()))
    assert not np.allclose(before, after)
    if key == "leader_weight":
        assert np.all(after <= before + 1e-9)
    else:
        assert np.all(np.abs(after) < value)


def test_search_only_rewrites_the_settings_not_the_weights(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    import torch

    import training.value.train as train_module
    from moonriver_env.moonriver.agents.trained import load_model

    shutil.copytree(CHECKPOINTS / "trained_4p_base", tmp_path / "trained_4p_base")
    monkeypatch.setattr(train_module, "CHECKPOINTS", tmp_path)
    cfg_path = str(CONFIGS / "value_4p_base.toml")
    before, _ = load_model(tmp_path / "trained_4p_base" / "model.pt")
    args = ["--config", cfg_path, "--search-only", "--set", "search.leader_weight=0.25"]
    assert train_module.main(args) == 0
    after, meta = load_model(tmp_path / "trained_4p_base" / "model.pt")
    assert meta["search"]["leader_weight"] == 0.25
    for name, w in before.state_dict().items():
        assert torch.equal(w, after.state_dict()[name])
    saved = load_value_config(tmp_path / "trained_4p_base" / "config.toml")
    assert saved["search"]["leader_weight"] == 0.25
    prov = json.loads((tmp_path / "trained_4p_base" / "provenance.json").read_text())
    assert prov["search"]["leader_weight"] == 0.25
    assert prov["search_updates"][-1]["search"]["leader_weight"] == 0.25
    with pytest.raises(SystemExit, match=r"\[collect\]"):
        train_module.main([*args, "--set", "collect.depth=3"])


def _outcome_cfg(*overrides: str) -> dict:
    return load_value_config(CONFIGS / "value_4p_base.toml", ("collect.labels=outcome", *overrides))


def test_outcome_game_is_the_heuristics_game_with_every_seats_final_margin() -> None:
    """With ``explore = 0`` an outcome game is exactly four heuristic agents playing (seeded
    as the collector seeds them), and its labels are every seat's final margin."""
    from moonriver_env.moonriver.agents.evaluation import final_margin
    from training.value.collect import game_seed, play_game

    cfg = _outcome_cfg("collect.explore=0.0")
    game = play_game(cfg, 3)
    assert game["labels"] == [] and game == {**play_game(cfg, 3), "seconds": game["seconds"]}
    seed = game_seed(cfg["run"]["seed"], 3)
    assert game["seed"] == seed
    state = new_game(GameConfig(num_players=4, mode="base"), seed=seed)
    agents = [HeuristicAgent(seed=seed + 1 + s) for s in range(4)]
    for a in game["actions"]:
        assert agents[state.seat].choose(state) == a
        state.apply(a)
    assert state.is_terminal
    assert game["margins"] == [final_margin(state, s) for s in range(4)]
    assert game["scores"] == [s.total for s in state.scores()]
    assert max(game["margins"]) > 0 > min(game["margins"])  # one winner, the others behind


def test_outcome_game_explores_the_heuristics_best_actions() -> None:
    from training.value.collect import play_game

    greedy = play_game(_outcome_cfg("collect.explore=0.0"), 4)["actions"]
    explored = play_game(_outcome_cfg("collect.explore=0.5"), 4)["actions"]
    assert explored != greedy


def test_outcome_rows_are_every_seat_at_the_sampled_positions() -> None:
    """Each sampled position gives one row per seat: the agent's own leaf input for that seat
    (``state_inputs``), labelled with that seat's final margin."""
    from moonriver_env.moonriver.agents.evaluation import Evaluator
    from moonriver_env.moonriver.agents.trained import state_inputs
    from moonriver_env.moonriver.encoding import ObservationEncoder
    from training.value.collect import play_game
    from training.value.dataset import build_samples

    config = GameConfig(num_players=4, mode="base")
    game = play_game(_outcome_cfg(), 1)
    s = build_samples([game], config, 6, None, states=5)
    assert s.x.shape[0] == 20 and s.decisions == 20 and set(s.count) == {1}
    assert s.y.tolist() == game["margins"] * 5
    enc, ev = ObservationEncoder(config), Evaluator()
    state = new_game(config, seed=game["seed"])
    expected = []
    for a in game["actions"]:
        expected.append(np.concatenate([state_inputs(enc, ev, [state], t) for t in range(4)]))
        state.apply(a)
    found = [
        i for i, rows in enumerate(expected)
        if np.array_equal(rows.astype(np.float16), s.x[: 4])
    ]  # fmt: skip
    assert found, "the first sampled position is not a position of the game"
    # Five distinct positions of the game, in game order.
    at = [
        next(i for i, rows in enumerate(expected)
             if np.array_equal(rows.astype(np.float16), s.x[4 * j : 4 * j + 4]))
        for j in range(5)
    ]  # fmt: skip
    assert at == sorted(set(at))


def test_tiny_outcome_run_gives_a_4p_model_that_plays(tmp_path: Path) -> None:
    from training.value.train import main

    run = tmp_path / "run"
    args = ["--config", str(CONFIGS / "value_4p_base.toml"), "--run-dir", str(run)]
    for item in ("collect.labels=outcome", "collect.games=3", "collect.states=6",
                 "model.hidden=[8]", "train.epochs=1", "eval.games=0", "run.workers=1",
                 "search.rounds=1", "search.depth=4"):  # fmt: skip
        args += ["--set", item]
    assert main(args) == 0
    prov = json.loads((run / "provenance.json").read_text())
    held = prov["held_out"]["decisions"]
    assert prov["train"]["afterstates"] + held == 3 * 6 * 4
    agent = make_agent(f"trained:{run}", seed=3)
    assert isinstance(agent, TrainedAgent) and agent.games == ["4p_base"]
    decisions, _ = play(agent, GameConfig(num_players=4, mode="base"), seed=11)
    assert decisions > 20


@pytest.mark.parametrize(
    ("players", "search"),
    [
        (2, {}),
        (4, {}),
        (2, {"rounds": 0}),
        (4, {"leader_weight": 0.5, "win_scale": 10.0, "depth": 40}),
    ],
    ids=["2p", "4p", "2p-one-ply", "4p-leaf-options"],
)
def test_trained_simulates_natively_with_the_same_decisions(players: int, search: dict) -> None:
    """Issue 21, item 4: the core's leaves (determinization, completed afterstates, light
    rollouts, network inputs) give the Python path's values to the last bit, so the same
    decisions from the same seed, over a whole game against heuristics."""
    config = GameConfig(num_players=players, mode="base")
    native, python = TrainedAgent(seed=6), TrainedAgent(seed=6)
    python.native = False
    for agent in (native, python):
        _, _, meta = agent.load_for(config)
        meta["search"] = {**meta["search"], **search}
    others = [HeuristicAgent(seed=s) for s in range(players)]
    state = new_game(config, seed=11)
    searched = 0
    while not state.is_terminal:
        if state.seat == 0:
            a = native.choose(state)
            assert python.choose(state) == a
            assert native.last_values == python.last_values
            searched += bool(native.last_values)
        else:
            a = others[state.seat].choose(state)
        state.apply(a)
    assert searched > 15


def test_native_leaves_are_the_python_leaves() -> None:
    """``NativeState.value_leaves`` against
    :func:`moonriver_env.moonriver.agents.trained.python_leaves`: the same rows and final margins
    for one-ply, depth-limited and to-the-end rollouts, from the start, the middle and the end of a
    game (where leaves finish); an illegal candidate is refused."""
    from moonriver_env.moonriver.agents.evaluation import Weights, make_context
    from moonriver_env.moonriver.agents.trained import python_leaves
    from moonriver_env.moonriver.encoding import ObservationEncoder
    from moonriver_env.moonriver.vector.search import NativeState

    config = GameConfig(num_players=3, mode="legends", scenario="timber_rafting")
    enc = ObservationEncoder(config)
    agent = HeuristicAgent(seed=2)
    weights = Weights(grow_w=0.7, opp_w=0.8)
    ev = type(agent.evaluator)(weights)
    wvec = [getattr(weights, f) for f in Weights.names()]
    state = new_game(config, seed=4)
    ended = rows_seen = 0
    while not state.is_terminal:
        legal = state.legal_action_list()
        if len(legal) > 1:
            seat, cands = state.seat, legal[:5]
            for depth, seed in ((-1, 0), (0, 5), (3, 9)):
                got_rows, got = NativeState.from_state(state).value_leaves(
                    seat, cands, depth, seed, wvec
                )
                want_rows, want = python_leaves(
                    state.clone(), seat, cands, make_context(state), depth, seed, enc, ev
                )
                assert got == want
                live = [m is None for m in want]
                assert np.array_equal(got_rows[live], want_rows[live])
                ended += sum(m is not None for m in want)
                rows_seen += sum(live)
        state.apply(agent.choose(state))
    assert ended > 0 and rows_seen > 0
    core = NativeState.from_state(new_game(config, seed=4))
    with pytest.raises(ValueError, match="not legal"):
        core.value_leaves(0, [config.num_actions - 1], 2, 0, wvec)
