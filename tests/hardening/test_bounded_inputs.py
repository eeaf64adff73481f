"""Finding B of issue 32: a state or saved game is checked against the sizes the game can have
before anything is built (a file's own component data included), and the Python and native
loaders accept and refuse the same generator states."""

from __future__ import annotations

import json
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from moonriver_env.kingdomino import KingdominoConfig
from moonriver_env.kingdomino import new_game as new_kingdomino
from moonriver_env.kingdomino.rules.core import StateFormatError as KingdominoStateError
from moonriver_env.kingdomino.rules.state import KingdominoState
from moonriver_env.moonriver.rules import GameConfig, GameState, new_game
from moonriver_env.moonriver.rules.components import default_components
from moonriver_env.moonriver.rules.invariants import StateFormatError
from moonriver_env.moonriver.rules.serialization import components_to_raw


def _state_with(path: list[Any], value: int) -> dict[str, Any]:
    """A 2-player state whose own component data has ``value`` at ``path``."""
    doc = json.loads(new_game(GameConfig(num_players=2), seed=1).to_json())
    raw = components_to_raw(default_components())
    target = raw
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    doc["config"]["components"] = raw
    return doc


@contextmanager
def _within(seconds: float) -> Iterator[None]:
    """``TimeoutError`` if the block runs longer than ``seconds`` (a loader that builds what
    the file asks for fails here instead of hanging the test run)."""

    def stop(_signum: int, _frame: object) -> None:
        raise TimeoutError(f"took longer than {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.parametrize(
    ("path", "value", "named"),
    [
        (["boards", "camp", "slots"], 10**19, r"boards\.camp\.slots: must be within 1\.\.7"),
        (["boards", "camp", "slots"], 300, r"boards\.camp\.slots: must be within 1\.\.7"),
        (["plots", 0, "count"], 10**19, r"plots\[0\]\.count: must be within 1\.\.128"),
        (["plots", 0, "count"], 100, r"plots: at most 128 plots in all"),
        (["partners", "farmer"], 10**12, r"partners\.farmer: must be within 0\.\.32"),
        (["column_size"], 10**6, r"column_size: must be within 2\.\.8"),
    ],
    ids=[
        "slots 10**19",
        "slots 300",
        "count 10**19",
        "plots 189 in all",
        "partners 10**12",
        "column",
    ],
)
def test_oversized_component_data_in_a_state_is_refused_at_once(
    path: list[Any], value: int, named: str
) -> None:
    from agents.saved_game import SavedGame

    text = json.dumps(_state_with(path, value))
    saved = json.dumps(
        {"format": "moonriver-play", "version": 1, "agents": {}, "humans": [0, 1]}
        | {"decisions": 0, "state": json.loads(text)}
    )
    start = time.perf_counter()
    with _within(2.0):
        with pytest.raises(StateFormatError, match=rf"^config\.components\.{named}"):
            GameState.from_json(text)
        with pytest.raises(ValueError, match=named):
            SavedGame.from_json(saved)
    assert time.perf_counter() - start < 1.0


def _rng_cases() -> list[tuple[str, int]]:
    return [
        ("has_uint32", -20),
        ("has_uint32", 2),
        ("uinteger", 1 << 32),
        ("uinteger", -1),
        ("state", -1),
        ("state", 1 << 128),
        ("inc", 10**40),
        ("inc", 0),  # issue 50: PCG64's increment is odd (NumPy seeds it 2 x sequence + 1)
        ("inc", 2),
    ]


def _set_word(rng: dict[str, Any], key: str, value: int) -> None:
    if key in ("state", "inc"):
        rng["state"][key] = value
    else:
        rng[key] = value


@pytest.mark.parametrize(("key", "value"), _rng_cases())
def test_generator_words_out_of_the_cores_range_are_refused_by_name(key: str, value: int) -> None:
    doc = json.loads(new_game(GameConfig(num_players=2), seed=1).to_json())
    _set_word(doc["rng"]["state"], key, value)
    with pytest.raises(StateFormatError, match=r"^rng\.state: not a valid PCG64 state: "):
        GameState.from_json(json.dumps(doc))
    kd = json.loads(new_kingdomino(KingdominoConfig(2), seed=1).to_json())
    _set_word(kd["rng"], key, value)
    with pytest.raises(
        KingdominoStateError, match=rf"^rng: not a generator state: (state\.)?{key}: expected"
    ):
        KingdominoState.from_json(json.dumps(kd))


def test_generator_words_at_the_edges_load_in_python_and_in_the_core() -> None:
    from moonriver_env.kingdomino.vector.game import KingdominoVectorGame
    from moonriver_env.moonriver.vector.game import VectorGame

    edges = {"has_uint32": 1, "uinteger": (1 << 32) - 1, "state": (1 << 128) - 1, "inc": 1}
    doc = json.loads(new_game(GameConfig(num_players=2), seed=1).to_json())
    kd = json.loads(new_kingdomino(KingdominoConfig(2), seed=1).to_json())
    for key, value in edges.items():
        _set_word(doc["rng"]["state"], key, value)
        _set_word(kd["rng"], key, value)
    state = GameState.from_json(json.dumps(doc))
    vg = VectorGame(num_games=1, config=state.config, seed=0)
    vg.set_state(0, state)
    assert vg.get_state(0).to_json() == state.to_json()
    kstate = KingdominoState.from_json(json.dumps(kd))
    vk = KingdominoVectorGame(num_games=1, config=kstate.config, seed=0)
    vk.set_state(0, kstate)
    assert vk.get_state(0).rng.bit_generator.state == kstate.rng.bit_generator.state


@pytest.mark.parametrize("kind", ["saved game", "move list", "replay"])
def test_files_the_agents_read_are_read_up_to_a_limit(kind: str) -> None:
    """``/dev/zero`` (endless) given as a saved game (``agents.play --load``), a move list or
    a replay's file: refused once past ``MAX_FILE_BYTES`` instead of reading gigabytes
    (issue 50), with the file kind's own error naming it."""
    from pathlib import Path

    from agents.file_format import MAX_FILE_BYTES, read_text
    from agents.move_list import MoveList, MoveListError
    from agents.saved_game import SavedGame

    zero = Path("/dev/zero")
    if not zero.exists():
        pytest.skip("no /dev/zero")
    over = rf"over {MAX_FILE_BYTES:,} bytes"
    with _within(10.0):
        if kind == "saved game":
            with pytest.raises(ValueError, match=rf"^load: cannot read '/dev/zero' \({over}"):
                SavedGame.load(zero)
        elif kind == "move list":
            with pytest.raises(MoveListError, match=over):
                MoveList.load(zero)
        else:
            with pytest.raises(ValueError, match=rf"'/dev/zero': cannot read it \({over}"):
                read_text(zero, ValueError)
