"""Kingdomino in the one home of "which game is played" (moonriver_env.games)."""

from __future__ import annotations

import pytest

from moonriver_env.games import GAMES, GameSpec, parse_game
from moonriver_env.kingdomino import KingdominoConfig


def test_kingdomino_is_registered_and_moon_river_stays_the_default() -> None:
    assert list(GAMES)[0] == "moonriver" and "kingdomino" in GAMES
    assert GameSpec().game == "moonriver"


@pytest.mark.parametrize(
    ("text", "players", "variants"),
    [
        ("kingdomino_4p_base", 4, ()),
        (
            "kingdomino_4p_harmony+middle_kingdom+must_place",
            4,
            ("must_place", "harmony", "middle_kingdom"),
        ),
        ("kingdomino_2p_mighty_duel", 2, ("mighty_duel",)),
    ],
)
def test_the_text_spelling_round_trips(text: str, players: int, variants: tuple[str, ...]) -> None:
    spec = parse_game(text)
    config = spec.config()
    assert config == KingdominoConfig(players, variants)
    assert spec.text == text
    assert GameSpec.from_config(config) == spec
    assert spec.num_actions == config.num_actions


def test_variants_in_any_order_are_one_game() -> None:
    a = GameSpec(game="kingdomino", num_players=4, mode="must_place+harmony")
    b = GameSpec(game="kingdomino", num_players=4, mode="harmony+must_place")
    assert a == b and a.text == "kingdomino_4p_harmony+must_place"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"num_players": 4, "mode": "harmonie"}, "mode"),
        ({"num_players": 3, "mode": "mighty_duel"}, "mighty_duel"),
        ({"num_players": 4, "scenario": "gold_rush"}, "scenario"),
    ],
)
def test_bad_kingdomino_specs_are_named_errors(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        GameSpec(game="kingdomino", **kwargs).config()  # type: ignore[arg-type]


def test_the_spec_makes_the_environment() -> None:
    spec = parse_game("kingdomino_3p_harmony+must_place")
    env = spec.make_env(obs_type="flat")
    assert env.config == KingdominoConfig(3, ("must_place", "harmony"))
    assert spec.observation_size == env.encoder.size
    with pytest.raises(ValueError, match="mode"):
        spec.make_env(variants="harmony")


def test_commands_take_the_spelled_game(tmp_path, capsys: pytest.CaptureFixture[str]) -> None:
    from agents.tournament.cli import main as tournament

    argv = ["--game", "kingdomino_3p_dynasty", "--agents", "greedy,random", "--games", "3"]
    assert tournament([*argv, "--out", str(tmp_path / "a")]) == 0
    assert "3 players, dynasty" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        tournament([*argv, "--players", "4", "--out", str(tmp_path / "b")])
    with pytest.raises(SystemExit):
        tournament(
            ["--game", "kingdomino_9p_base", "--agents", "greedy", "--out", str(tmp_path / "c")]
        )


def test_a_game_is_found_by_its_action_count() -> None:
    from moonriver_env.games import games_with_actions

    found = games_with_actions(681)
    assert [s.text for s in found] == ["kingdomino_2p_mighty_duel"]
    assert {s.game for s in games_with_actions(329)} == {"kingdomino"}
    assert all(s.game == "moonriver" for s in games_with_actions(1748))
