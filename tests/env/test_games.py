"""The one home of "which game is played" (:mod:`moonriver_env.games`): defaults, the text
spelling, parsing from text, config sections, command lines and action counts."""

from __future__ import annotations

import argparse
from types import SimpleNamespace

import pytest

from moonriver_env.family.contract import DEFAULT_NUM_PLAYERS
from moonriver_env.games import (
    DEFAULT_GAME,
    GAMES,
    GameEntry,
    GameSpec,
    add_game_arguments,
    games_with_actions,
    parse_game,
    register_game,
    spec_from_args,
)
from moonriver_env.rules import GameConfig


def test_the_defaults_are_the_project_defaults() -> None:
    spec = GameSpec()
    assert spec.game == DEFAULT_GAME == "moonriver"
    assert spec.num_players == DEFAULT_NUM_PLAYERS == GameConfig().num_players == 2
    assert spec.config() == GameConfig()


@pytest.mark.parametrize(
    "text",
    ["2p_base", "3p_base", "4p_legends", "3p_legends@gold_rush", "2p_legends@outlaws"],
)
def test_text_round_trips(text: str) -> None:
    spec = parse_game(text)
    assert spec.text == str(spec) == text
    assert parse_game(spec.text) == spec


def test_text_of_a_spec_and_the_older_dash_spelling() -> None:
    assert GameSpec(num_players=4, mode="legends", scenario="random").text == "4p_legends"
    assert parse_game("3p-legends") == GameSpec(num_players=3, mode="legends")


BAD_TEXT = {
    "2p": "game",
    "5p_base": "num_players",
    "2p_solo": "mode",
    "chess_2p_base": "game",
    "2p_base@outlaws": "scenario",
    "2p_legends@moon": "scenario",
}


@pytest.mark.parametrize("text", BAD_TEXT)
def test_bad_text_names_the_field(text: str) -> None:
    with pytest.raises(ValueError, match=f"^{BAD_TEXT[text]}"):
        parse_game(text)


def test_from_section_reads_the_game_keys_and_ignores_the_rest() -> None:
    section = {"num_players": 4, "mode": "legends", "reward": "score", "auto_resolve": True}
    spec = GameSpec.from_section(section)
    assert spec == GameSpec(num_players=4, mode="legends", auto_resolve=True)
    assert spec.config() == GameConfig(num_players=4, mode="legends", auto_resolve=True)
    assert GameSpec.from_section({}) == GameSpec()
    assert GameSpec.from_section(spec.to_section()) == spec
    with pytest.raises(ValueError, match="^auto_resolve"):
        GameSpec.from_section({"auto_resolve": "yes"})


def test_from_config_and_back() -> None:
    config = GameConfig(num_players=3, mode="legends", scenario="outlaws")
    spec = GameSpec.from_config(config)
    assert spec.text == "3p_legends@outlaws"
    assert spec.config() == config
    with pytest.raises(ValueError, match="^config"):
        GameSpec.from_config(object())


def test_from_action_count() -> None:
    for spec in (GameSpec(), GameSpec(num_players=4), GameSpec(num_players=3, mode="legends")):
        n = spec.config().num_actions
        assert spec in games_with_actions(n)
        exact = games_with_actions(n, spec.observation_size)
        assert exact == [spec]
        assert GameSpec.from_num_actions(n, spec.observation_size) == spec
    with pytest.raises(ValueError, match="^num_actions: no game has 7 actions"):
        GameSpec.from_num_actions(7)


def test_command_line_arguments() -> None:
    parser = argparse.ArgumentParser()
    add_game_arguments(parser)
    assert spec_from_args(parser.parse_args([])) == GameSpec()
    args = parser.parse_args(["--players", "4", "--mode", "legends", "--scenario", "outlaws"])
    assert spec_from_args(args).text == "4p_legends@outlaws"
    assert spec_from_args(parser.parse_args(["--game", "3p_base"])).num_players == 3
    with pytest.raises(ValueError, match="^num_players"):
        spec_from_args(parser.parse_args(["--players", "7"]))


def test_env_kwargs_build_the_environment() -> None:
    pytest.importorskip("pettingzoo")
    spec = GameSpec(num_players=3)
    env = spec.make_env(obs_type="flat")
    assert env.config == spec.config()


def test_a_second_game_registers_and_is_spelled_with_its_name(monkeypatch) -> None:
    monkeypatch.setattr("moonriver_env.games.GAMES", dict(GAMES))  # restored after the test
    from moonriver_env import games

    entry = GameEntry(
        name="toy",
        title="Toy",
        config_class=SimpleNamespace,
        player_counts=(2,),
        modes=("base",),
        make_config=lambda spec, **kw: SimpleNamespace(num_players=spec.num_players, num_actions=5),
        observation_size=lambda config: 3,
        env_entry_point="builtins:dict",
        gymnasium_id="Toy-v0",
    )
    register_game(entry)
    assert "toy" in games.GAMES and "toy" not in GAMES
    spec = parse_game("toy_2p_base")
    assert spec == GameSpec(game="toy") and spec.text == "toy_2p_base"
    assert games_with_actions(5, game="toy") == [spec]
    with pytest.raises(ValueError, match="^num_players"):
        GameSpec(game="toy", num_players=3)
    with pytest.raises(ValueError, match="^scenario: Toy has no such setting"):
        GameSpec(game="toy", scenario="outlaws")
    with pytest.raises(ValueError, match="^game: 'toy' is already registered"):
        register_game(GameEntry(**{**entry.__dict__, "title": "Other"}))


def test_a_sections_random_scenario_is_ignored_in_the_base_game() -> None:
    assert GameSpec.from_section({"mode": "base", "scenario": "random"}) == GameSpec()
    legends = GameSpec.from_section({"mode": "legends", "scenario": "random"})
    assert legends.scenario == "random" and legends.text == "2p_legends"
    with pytest.raises(ValueError, match="^scenario"):
        GameSpec.from_section({"mode": "base", "scenario": "outlaws"})
