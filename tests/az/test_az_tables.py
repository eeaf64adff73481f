"""One az network for every table of a game (agents/az/tables.py): the layout covers every
table the games accept, each table's inputs land on distinct rows, tables share the rows that
mean the same, the core's network of a table is the torch network on the table's inputs, a
one-table model spread into every table's computes what it did at its table, and the agent and
the training run play tables with it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch
from az_models import FAST, HIDDEN1, HIDDEN2, random_net

from agents.az import AzAgent, CheckpointError, NetShape, load_checkpoint, save_checkpoint
from agents.az.network import AzNet, sparse_batch, spread
from agents.az.tables import input_layout, table_tokens, to_layout
from moonriver_env.games import GAMES, GameSpec, parse_game
from moonriver_env.moonriver.rules.config import SCENARIOS
from training.az.config import settings_dict
from training.az.selfplay import PlaySettings, native_template, play_games

GAME_NAMES = ("moonriver", "kingdomino")


def every_table(game: str) -> list[GameSpec]:
    """Each player count in each mode the game accepts, and Kingdomino's variants combined
    (every pair, and the study's three)."""
    entry = GAMES[game]
    modes = list(entry.modes)
    if game == "kingdomino":
        parts = [m for m in entry.modes[1:]]
        modes += [f"{a}+{b}" for i, a in enumerate(parts) for b in parts[i + 1 :]]
        modes.append("harmony+middle_kingdom+must_place")
    out = []
    for n in entry.player_counts:
        for mode in modes:
            try:
                spec = GameSpec(game=game, num_players=n, mode=mode)
                spec.config()
            except ValueError:
                continue
            out.append(spec)
    if game == "moonriver":
        out += [
            parse_game(f"{n}p_legends@{scenario}")
            for n in entry.player_counts
            for scenario in SCENARIOS
        ]
    return out


def tables_net(spec: GameSpec, seed: int, features: bool = False) -> AzNet:
    """A random network of every table of ``spec``'s game (every parameter drawn)."""
    return random_net(spec, seed, features=features, tables=True)


@pytest.mark.parametrize("game", GAME_NAMES)
def test_the_layout_covers_every_table_with_distinct_rows(game: str) -> None:
    layout = input_layout(game)
    tables = every_table(game)
    assert len(tables) >= (15 if game == "moonriver" else 30)
    for spec in tables:
        for features in (False, True):
            rows = layout.remap(spec, features)
            assert rows.size == spec.observation_size + (layout.territory if features else 0)
            assert np.unique(rows).size == rows.size  # no two inputs on one row
            tokens = layout.token_rows(spec, features)
            assert tokens.size == len(table_tokens(spec))
            assert rows.max() < tokens.min() and tokens.max() < layout.width(features)


def test_tables_share_the_rows_that_mean_the_same() -> None:
    """Moon River's 3 and 4 players share their 5 x 5 ranch rows and equal-sized features;
    the 2-player ranches (10 x 5) have their own; the base game and Legends share all."""
    layout = input_layout("moonriver")
    two, three, four = (layout.remap(parse_game(f"{n}p_base"), False) for n in (2, 3, 4))
    planes3 = 3 * 29 * 25
    assert np.array_equal(three[:planes3], four[:planes3])  # seats 0..2 of the 5 x 5 ranches
    assert not set(two[: 2 * 29 * 50].tolist()) & set(four.tolist())
    assert set(two.tolist()) & set(four.tolist())  # the equal-sized features
    assert np.array_equal(layout.remap(parse_game("3p_legends"), True), layout.remap(
        parse_game("3p_base"), True))  # fmt: skip
    assert not np.array_equal(
        layout.token_rows(parse_game("3p_legends"), True),
        layout.token_rows(parse_game("3p_base"), True),
    )


def test_to_layout_matches_a_dense_construction() -> None:
    rng = np.random.default_rng(0)
    counts = np.array([3, 0, 5, 1])
    ptr = np.concatenate([[0], np.cumsum(counts)])
    idx = rng.integers(0, 10, ptr[-1]).astype(np.int16)
    val = rng.random(ptr[-1]).astype(np.float32)
    remap = rng.permutation(40)[:10]
    tokens = np.array([41, 43])
    new_ptr, new_idx, new_val = to_layout(ptr, idx, val, remap, tokens)
    assert new_idx.dtype == np.int16 and np.array_equal(np.diff(new_ptr), counts + 2)
    for r in range(counts.size):
        dense = np.zeros(44)
        np.add.at(dense, remap[idx[ptr[r] : ptr[r + 1]]], val[ptr[r] : ptr[r + 1]])
        dense[tokens] += 1.0
        got = np.zeros(44)
        np.add.at(got, new_idx[new_ptr[r] : new_ptr[r + 1]], new_val[new_ptr[r] : new_ptr[r + 1]])
        assert np.allclose(got, dense)


@pytest.mark.parametrize(
    "table", ["2p_base", "3p_legends", "4p_legends@gold_rush", "kingdomino_2p_mighty_duel",
              "kingdomino_3p_base", "kingdomino_4p_harmony+middle_kingdom+must_place"],
)  # fmt: skip
def test_the_core_net_of_a_table_is_the_torch_net_on_its_inputs(table: str) -> None:
    """The table's core network (its rows of the first layer gathered, its table inputs in
    the bias) gives, on observations of the table's self-play, the value of the torch network
    of every table on those observations laid out (the table's inputs added)."""
    spec = parse_game(table)
    features = spec.game == "moonriver"
    net = tables_net(spec, seed=3, features=features)
    core = net.native(spec)
    remap, tokens = net.table_rows(spec)  # type: ignore[misc]
    settings = PlaySettings(FAST.as_tuple(), 4, 0.8, keep=0.3)
    pos = play_games(native_template(spec), core, 2, 7, settings, features=features)
    assert len(pos) > 20
    ptr, idx, val = to_layout(pos.obs_ptr, pos.obs_idx, pos.obs_val, remap, tokens)
    with torch.no_grad():
        laid = net.value_of(sparse_batch(idx, val, np.diff(ptr))).numpy()
    assert np.abs(laid).max() < 0.999 and np.ptp(laid) > 0.05  # the comparison means something
    for r, v in enumerate(laid):
        dense = np.zeros(remap.size, np.float32)
        dense[pos.obs_idx[pos.obs_ptr[r] : pos.obs_ptr[r + 1]]] = pos.obs_val[
            pos.obs_ptr[r] : pos.obs_ptr[r + 1]
        ]
        assert core.evaluate(dense) == pytest.approx(float(v), abs=1e-5)


def test_a_spread_model_computes_what_it_did_at_its_table(tmp_path: Path) -> None:
    spec = parse_game("4p_base")
    one = random_net(spec, seed=4)
    shape = NetShape.for_game(spec, HIDDEN1, HIDDEN2, tables=True)
    every = spread(one, shape)
    assert np.array_equal(every.flat_weights(spec), one.flat_weights())
    other = parse_game("3p_base")
    assert not np.array_equal(every.flat_weights(other)[:100], np.zeros(100))  # shared rows
    with pytest.raises(ValueError, match="spreads only"):
        spread(one, NetShape.for_game(spec, HIDDEN1 + 1, HIDDEN2, tables=True))
    with pytest.raises(ValueError, match="spreads only"):
        spread(every, shape)


def test_the_agent_plays_any_table_with_a_model_of_every_table(tmp_path: Path) -> None:
    """A model of every table plays tables it never saw in training, the same move for the
    same seed; another game's table is refused before any move, naming both games."""
    spec = parse_game("3p_base")
    path = save_checkpoint(
        tmp_path / "every.pt", tables_net(spec, seed=2, features=True), settings_dict(FAST),
        {"command": "tests"},
    )  # fmt: skip
    for table in ("2p_legends@outlaws", "3p_base", "4p_legends"):
        t = parse_game(table)
        moves = []
        for _ in range(2):
            agent = AzAgent(seed=5, path=path)
            agent.check_game(t.config())
            state = t.entry.hook("new_game")(t.config(), seed=9)
            moves.append(agent.choose(state))
        assert moves[0] == moves[1] and moves[0] in state.legal_actions()
    with pytest.raises(CheckpointError, match="moonriver \\(every table\\)"):
        AzAgent(seed=0, path=path).check_game(parse_game("kingdomino_2p_base").config())


def test_a_tiny_run_of_every_table(tmp_path: Path) -> None:
    """A run with ``env.tables``: the warm start and each self-play iteration split evenly
    over the tables, every shard in the network's inputs with the table's inputs set, a model
    of every table that plays them; a one-table model as ``warmstart.init`` starts it as that
    model at its own table; a table of another game is refused naming the key."""
    from training.az.replay import list_shards, read_shard
    from training.az.run import start_run
    from training.common.config import ConfigError

    tiny = Path(__file__).resolve().parents[2] / "training" / "configs" / "az_tiny.toml"
    init = save_checkpoint(
        tmp_path / "one.pt", random_net(parse_game("4p_base"), seed=1), settings_dict(FAST),
        {"command": "tests"},
    )  # fmt: skip
    sets = ["net.hidden1=8", "net.hidden2=4", "env.num_players=3", "warmstart.games=6",
            "selfplay.games=6", 'env.tables=["2p_base", "3p_legends", "4p_base"]',
            f'warmstart.init="{init}"', "run.iterations=1", "eval.every=0", "eval.final=false"]  # fmt: skip
    rd = tmp_path / "run"
    start_run(tiny, sets, rd, resume=False, command="test", log=lambda _: None)
    layout = input_layout("moonriver")
    width = layout.width(False)
    tokens = {t: set(layout.token_rows(parse_game(t), False).tolist())
              for t in ("2p_base", "3p_legends", "4p_base")}  # fmt: skip
    seen: list[str] = []
    for it, _, path in list_shards(rd):
        shard = read_shard(path)
        assert shard.games == 2 and int(shard.obs_idx.max()) < width
        rows = shard.obs_idx[shard.obs_ptr[0] : shard.obs_ptr[1]].tolist()
        table = next(t for t, rows_t in tokens.items() if rows_t <= set(rows))
        assert all(
            tokens[table] <= set(shard.obs_idx[a:b].tolist())
            for a, b in zip(shard.obs_ptr[:-1], shard.obs_ptr[1:], strict=True)
        )
        seen.append(f"{it}:{table}")
    assert seen == [f"{it}:{t}" for it in (0, 1) for t in ("2p_base", "3p_legends", "4p_base")]
    from agents.az import load_checkpoint

    net, meta = load_checkpoint(rd / "model.pt")
    assert net.shape.tables and net.shape.inputs == width
    assert meta["provenance"]["init"]["spread_from"] == "4p_base"
    agent = AzAgent(seed=0, path=rd / "model.pt")
    t = parse_game("2p_legends")
    state = t.entry.hook("new_game")(t.config(), seed=2)
    assert agent.choose(state) in state.legal_actions()
    with pytest.raises(ConfigError, match="env.tables"):
        start_run(tiny, [*sets, 'env.tables=["kingdomino_2p_base"]'], tmp_path / "r2",
                  resume=False, command="test", log=lambda _: None)  # fmt: skip


@pytest.mark.parametrize("game", GAME_NAMES)
def test_az_plays_every_table_with_the_shipped_models(game: str) -> None:
    """No table of either game is without a shipped model: ``az`` sits at every one (its own
    model where one ships, else the game's) and chooses a legal move."""
    from agents.az.checkpoint import shipped_model

    for spec in every_table(game):
        path = shipped_model(spec)
        assert path is not None, spec.text
        agent = AzAgent(seed=0, sims=0)
        agent.check_game(spec.config())
        state = spec.entry.hook("new_game")(spec.config(), seed=1)
        assert agent.choose(state) in state.legal_actions()


def test_a_model_of_every_table_plays_each_table_with_its_own_settings(tmp_path: Path) -> None:
    """``--export --play TABLE:KEY=VALUE`` changes a play setting at one table only: the agent
    plays that table (and its scenarios) with it and every other table with the model's own,
    the change and its reason are in the provenance, a second change at the table keeps the
    first; a table the model does not play, a table spelt otherwise, a bad value and a change
    of nothing are refused before anything is written, and a file whose per-table settings
    are damaged is refused on reading."""
    from training.az.cli import export, play_changes

    spec = parse_game("4p_base")
    every = spread(random_net(spec, seed=4), NetShape.for_game(spec, HIDDEN1, HIDDEN2, tables=True))
    src = tmp_path / "run"
    src.mkdir()
    save_checkpoint(
        src / "model.pt", every, settings_dict(FAST), {"command": "t", "iteration": 1, "games": 2}
    )
    play, tables = play_changes(["2p_legends:r=3", "2p_legends:depth=5", "3p_base:k=4"])
    assert (play, tables) == ({}, {"2p_legends": {"r": 3, "depth": 5}, "3p_base": {"k": 4}})
    out = tmp_path / "tuned"
    export(src, out, play=play, why="cheaper at two tables", table_play=tables)

    def settings(table: str, path: Path = out) -> tuple[int, int, int]:
        agent = AzAgent(seed=0, path=path)
        agent.load_for(parse_game(table).config())
        assert agent.settings is not None
        return agent.settings.k, agent.settings.r, agent.settings.depth

    own = (FAST.k, FAST.r, FAST.depth)
    assert settings("4p_base") == own and settings("3p_legends") == own
    assert settings("2p_legends") == (FAST.k, 3, 5) == settings("2p_legends@gold_rush")
    assert settings("3p_base") == (4, FAST.r, FAST.depth)
    note = load_checkpoint(out)[1]["provenance"]["play_settings"]
    assert f"search.r {FAST.r} -> 3 at 2p_legends" in note and "cheaper at two tables" in note
    assert "at 4p_base" not in note
    prov = json.loads((out / "provenance.json").read_text())
    prov["seeds"] = {"evaluation": 7}
    prov["bars"] = [{"row": "legends", "table": "2p_legends@rotation", "win_rate": 0.5},
                    {"row": "three", "table": "3p_base", "win_rate": 0.5}]  # fmt: skip
    (out / "provenance.json").write_text(json.dumps(prov))
    export(out, out, force=True, why="deeper", table_play={"2p_legends": {"depth": 6}})
    prov = json.loads((out / "provenance.json").read_text())  # the bars of the changed table go
    assert prov["seeds"] == {"evaluation": 7} and [b["row"] for b in prov["bars"]] == ["three"]
    assert settings("2p_legends") == (FAST.k, 3, 6) and settings("3p_base") == (
        4,
        FAST.r,
        FAST.depth,
    )
    # a scenario's own change goes over its mode's (which it keeps), and a bar that rotates
    # through the scenarios goes with it
    prov["bars"] = [{"row": "legends", "table": "2p_legends@rotation", "win_rate": 0.5}]
    (out / "provenance.json").write_text(json.dumps(prov))
    export(out, out, force=True, why="one", table_play={"2p_legends@gold_rush": {"k": 2}})
    assert settings("2p_legends@gold_rush") == (2, 3, 6)
    assert settings("2p_legends@outlaws") == (FAST.k, 3, 6)
    assert "bars" not in json.loads((out / "provenance.json").read_text())
    before = (out / "model.pt").read_bytes()
    for bad, message in (({"kingdomino_2p_base": {"r": 3}}, "kingdomino"),
                         ({"2p-legends": {"r": 3}}, "spelt as the games are"),
                         ({"3p_base": {"r": 5000}}, "r: expected an integer in"),
                         ({"3p_base": {"k": 4}}, "nothing changes")):  # fmt: skip
        with pytest.raises(ValueError, match=message):
            export(out, out, force=True, why="x", table_play=bad)
        assert (out / "model.pt").read_bytes() == before
    with pytest.raises(ValueError, match=r"\[TABLE:\]KEY=VALUE"):
        play_changes([":r=3"])
    blob = torch.load(out / "model.pt", weights_only=True)
    for damaged in ({"3p_base": {"r": -1}}, {"8p_base": {"r": 3}}, ["3p_base"], {"3p_base": {}},
                    {"2p_legends@no_such_scenario": {"r": 3}}):  # fmt: skip
        blob["search_tables"] = damaged
        torch.save(blob, tmp_path / "damaged.pt")
        with pytest.raises(CheckpointError, match="search_tables|game"):
            load_checkpoint(tmp_path / "damaged.pt")
