"""The web app in a real browser: headless Chromium, driven by Selenium, plays whole games of
each game by clicks on the board against ``random`` (a button only for a pass), and checks,
for each game, the final scores against the engine (the moves replayed from the deal), that a
click off the legal places and an illegal move sent to the server are refused, undo, save and
resume in another browser, and two browsers playing at once."""

from __future__ import annotations

import io
import json
import os
import random
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agents.move_list import deal, final_totals
from agents.saved_game import SavedGame
from moonriver_env.games import GameSpec

WAIT = 60


def _wait(driver: Any, condition: Any, timeout: float = WAIT) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.05).until(condition)


def _turn(driver: Any) -> str:
    return str(driver.execute_script("return document.body.dataset.turn"))


def _decisions(driver: Any) -> int:
    return int(driver.execute_script("return document.body.dataset.decisions || 0"))


def _open(driver: Any, url: str) -> None:
    driver.get(url + "/")
    _wait(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "1")


def _errors(driver: Any) -> list[Any]:
    return [e for e in driver.get_log("browser") if e.get("level") in ("SEVERE", "ERROR")]


def _start(driver: Any, game: str, seats: list[str], seed: int, mode: str = "") -> None:
    """Fill the setup form and start; returns once a human is to play (or the game ended)."""
    from selenium.webdriver.support.ui import Select

    if driver.find_element("id", "setup").get_attribute("hidden") is not None:
        driver.find_element("id", "new").click()
    Select(driver.find_element("id", "game-select")).select_by_value(game)
    Select(driver.find_element("id", "players-select")).select_by_value(str(len(seats)))
    _wait(driver, lambda d: len(d.find_elements("css selector", ".seat-spec")) == len(seats))
    # the default agents are filled in asynchronously: wait, then overwrite
    _wait(
        driver,
        lambda d: all(
            e.get_attribute("value") for e in d.find_elements("css selector", ".seat-spec")
        ),
    )
    for box in driver.find_elements("css selector", "#modes input"):
        if (box.get_attribute("value") in mode.split("+")) != box.is_selected():
            box.click()
    for spec, field in zip(seats, driver.find_elements("css selector", ".seat-spec"), strict=True):
        field.clear()
        field.send_keys(spec)
    seed_field = driver.find_element("id", "seed")
    seed_field.clear()
    seed_field.send_keys(str(seed))
    Select(driver.find_element("id", "delay")).select_by_value("0")
    driver.find_element("id", "start").click()
    _wait(driver, lambda d: _turn(d) in ("human", "over"))


PASSES = {"stop", "cowboy stop", "desperado skip", "thief skip", "discard"}
"""The moves with nothing to click on the board (passes): picked from the buttons."""


def _click_once(driver: Any, rng: random.Random, pressed: list[str] | None = None) -> bool:
    """One click once a human is to play: on a highlighted place of the board when there is
    one, else on a move's button (``pressed`` collects their words); ``False`` once the game
    is over."""
    _wait(driver, lambda d: _turn(d) in ("human", "over"))
    if _turn(driver) == "over":
        return False
    targets = driver.find_elements("css selector", "#board .target:not(.chosen)")
    if targets:
        driver.execute_script(
            "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))",
            rng.choice(targets),
        )
        return True
    button = rng.choice(driver.find_elements("css selector", "#options button.word"))
    if pressed is not None:
        pressed.append(str(button.get_attribute("data-words")))
    button.click()
    return True


def _play_out(driver: Any, rng: random.Random, limit: int = 3000) -> list[str]:
    """Play the game out by clicks on the board; the buttons pressed (passes only)."""
    pressed: list[str] = []
    for _ in range(limit):
        if not _click_once(driver, rng, pressed):
            assert set(pressed) <= PASSES, pressed
            return pressed
    raise AssertionError("the game did not end")


def _moves_of(driver: Any, seat: int) -> list[str]:
    """The words of the moves ``seat`` played, from the page's list."""
    return [
        str(li.get_attribute("data-words"))
        for li in driver.find_elements("css selector", f"#log li[data-seat='{seat}']")
    ]


def _saved_name(driver: Any) -> str:
    text = driver.find_element("id", "winner").text
    assert "(saved as " in text, text
    return text.rsplit("(saved as ", 1)[1].rstrip(")")


def _check_final_scores(driver: Any, save_dir: Path) -> SavedGame:
    """The totals shown are the engine's: the saved moves replayed from the deal."""
    saved = SavedGame.load(save_dir / _saved_name(driver))
    spec = GameSpec(game=saved.game, num_players=saved.players, mode=saved.mode)
    state = deal(spec, saved.seed)
    assert saved.actions is not None
    for action in saved.actions:
        state.apply(action)
    assert state.is_terminal
    rows = driver.find_elements("css selector", "#scores tbody tr")
    shown = [int(r.find_element("css selector", "td.total").text) for r in rows]
    assert shown == list(final_totals(state))
    winners = [
        int(r.get_attribute("data-seat")) for r in rows if "winner" in r.get_attribute("class")
    ]
    assert winners == sorted(state.winners())
    assert driver.find_element("id", "replay-link").is_displayed()
    return saved


KINDS = {"moonriver": {"claim", "place", "recruit"}, "kingdomino": {"pick", "place"}}
"""Moves of each game that a whole game surely holds, each made by clicks on the board."""


def test_two_browsers_play_both_games_by_clicks_at_once(server: Any, browsers: Any) -> None:
    """Moon River in one browser and Kingdomino in another, against random, clicked in turn
    on the board (a button only for a pass): each game to its end, the final scores the
    engine's, neither game touching the other."""
    a, b = browsers(), browsers()
    _open(a, server.url)
    _open(b, server.url)
    assert a.get_cookie("moonriver_session")["value"] != b.get_cookie("moonriver_session")["value"]
    _start(a, "moonriver", ["human", "random"], seed=5)
    _start(b, "kingdomino", ["random", "human"], seed=6)
    rng = random.Random(0)
    live = {"moonriver": a, "kingdomino": b}
    pressed: list[str] = []
    for _ in range(6000):
        if not live:
            break
        for key in list(live):
            if not _click_once(live[key], rng, pressed):
                del live[key]
    assert not live, "a game did not end"
    assert set(pressed) <= PASSES, pressed
    for driver, game, human in ((a, "moonriver", 0), (b, "kingdomino", 1)):
        assert _errors(driver) == []
        saved = _check_final_scores(driver, server.save_dir)
        assert saved.game == game and saved.agents == {1 - human: "random"}
        played = _moves_of(driver, human)
        assert KINDS[game] <= {m.split()[0] for m in played}, played
    # the replay page of a finished game
    a.get(server.url + "/replay")
    _wait(a, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    assert a.find_elements("css selector", "#final-scores tbody tr")


def _board_and_log(driver: Any) -> tuple[str, int]:
    return (
        driver.find_element("id", "board").get_attribute("innerHTML"),
        len(driver.find_elements("css selector", "#log li")),
    )


@pytest.mark.parametrize("game", ["moonriver", "kingdomino"])
def test_illegal_clicks_are_refused(server: Any, browsers: Any, game: str) -> None:
    driver = browsers()
    _open(driver, server.url)
    _start(driver, game, ["human", "random"], seed=2)
    before = _decisions(driver)
    board = driver.find_element("id", "board").get_attribute("innerHTML")
    # a click on the board off the highlighted places
    table = driver.find_element("css selector", "#board .slot.table svg")
    driver.execute_script(
        "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", table
    )
    message = driver.find_element("id", "message")
    assert "error" in message.get_attribute("class") and "Not a legal move" in message.text
    assert _decisions(driver) == before
    # a move the engine refuses, sent as the page sends moves
    answer = driver.execute_async_script(
        "var done = arguments[arguments.length - 1];"
        "fetch('/api/move', {method: 'POST', headers: {'Content-Type': 'application/json'},"
        " body: JSON.stringify({action: 987654})})"
        ".then(function (r) { return r.json().then(function (j) { done([r.status, j]); }); });"
    )
    assert answer[0] == 400 and answer[1]["error"] == "illegal_move"
    driver.refresh()
    _wait(driver, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    _wait(driver, lambda d: _turn(d) == "human")
    assert _decisions(driver) == before
    assert driver.find_element("id", "board").get_attribute("innerHTML") == board


@pytest.mark.parametrize("game", ["moonriver", "kingdomino"])
def test_undo_takes_back_the_last_move(server: Any, browsers: Any, game: str) -> None:
    driver = browsers()
    _open(driver, server.url)
    _start(driver, game, ["human", "random"], seed=3)
    rng = random.Random(3)
    seen: dict[int, tuple[str, int]] = {}
    for _ in range(600):
        _wait(driver, lambda d: _turn(d) in ("human", "over"))
        decisions = _decisions(driver)
        if decisions not in seen and not driver.find_element("id", "cancel").is_displayed():
            seen[decisions] = _board_and_log(driver)
        if driver.find_element("id", "undo").is_enabled() and len(seen) > 1:
            break
        assert _click_once(driver, rng)
    else:
        raise AssertionError("undo never became possible")
    now = _decisions(driver)
    earlier = max(d for d in seen if d < now)
    driver.find_element("id", "undo").click()
    _wait(driver, lambda d: _decisions(d) == earlier and _turn(d) == "human")
    assert _board_and_log(driver) == seen[earlier]
    assert "taken back" in driver.find_element("id", "message").text
    assert _errors(driver) == []


@pytest.mark.parametrize("game", ["moonriver", "kingdomino"])
def test_save_and_resume_in_another_browser(server: Any, browsers: Any, game: str) -> None:
    first = browsers()
    _open(first, server.url)
    _start(first, game, ["human", "random"], seed=11)
    rng = random.Random(11)
    for _ in range(12):
        assert _click_once(first, rng)
    _wait(first, lambda d: _turn(d) == "human")
    if first.find_element("id", "cancel").is_displayed():
        first.find_element("id", "cancel").click()  # a move half clicked is not saved
    board = first.find_element("id", "board").get_attribute("innerHTML")
    decisions = _decisions(first)
    name = f"half {game}"
    first.find_element("id", "save-name").send_keys(name)
    first.find_element("id", "save").click()
    _wait(first, lambda d: f"Saved as {name}.json" in d.find_element("id", "message").text)
    raw = json.loads((server.save_dir / f"{name}.json").read_text())
    assert raw["format"] == "moonriver-play" and raw["decisions"] == decisions
    # a save name that would leave the save folder is refused
    field = first.find_element("id", "save-name")
    field.clear()
    field.send_keys("../escape")
    first.find_element("id", "save").click()
    _wait(first, lambda d: "bad_name" in d.find_element("id", "message").text)
    assert not (server.save_dir.parent / "escape.json").exists()

    second = browsers()
    _open(second, server.url)
    from selenium.webdriver.support.ui import Select

    Select(second.find_element("id", "delay")).select_by_value("0")
    _wait(second, lambda d: f"{name}.json" in d.find_element("id", "saves").text)
    Select(second.find_element("id", "saves")).select_by_value(f"{name}.json")
    second.find_element("id", "load").click()
    _wait(second, lambda d: _turn(d) == "human" and _decisions(d) == decisions)
    assert second.find_element("id", "board").get_attribute("innerHTML") == board
    _play_out(second, rng)
    _check_final_scores(second, server.save_dir)
    # the first browser's game went on untouched
    first.refresh()
    _wait(first, lambda d: _turn(d) == "human")
    assert _decisions(first) == decisions


def test_screenshot_shows_the_board(server: Any, browsers: Any) -> None:
    from PIL import Image

    driver = browsers()
    _open(driver, server.url)
    _start(driver, "moonriver", ["human", "az"], seed=1)
    png = driver.get_screenshot_as_png()
    shots = os.environ.get("SERVE_SHOTS")
    if shots:
        Path(shots).mkdir(parents=True, exist_ok=True)
        Path(shots, "play-moonriver.png").write_bytes(png)
    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert len(np.unique(image.reshape(-1, 3), axis=0)) > 50
    assert driver.find_elements("css selector", "#board svg.ranch")
    assert driver.find_elements("css selector", "#board .target") or driver.find_elements(
        "css selector", "#options button.word"
    )
    # the computer's move is listed with its think time, and az's candidates
    if not driver.find_elements("css selector", "#log .think"):
        _click_once(driver, random.Random(1))
    _wait(driver, lambda d: d.find_elements("css selector", "#log .think"))
    assert driver.find_elements("css selector", "#candidate-list li")
    assert _errors(driver) == []


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
