"""The replay page in a real browser (issue 24): headless Chromium (Debian's ``chromium`` and
``chromium-driver``, driven by Selenium) opens generated replays from disk and checks that the
page loads with no console error, that stepping (slider, arrow keys) changes the board, that
the final scores shown equal the engine's, and that a screenshot is not blank.

Chromium is installed by ``.ci/run`` (``make browser``). Without it the tests skip with the
reason, except in CI (``CI=true``), where a missing browser is a failure.
"""

from __future__ import annotations

import io
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from replay_games import four_player_moves, small_tournament

from agents.move_list import MoveList
from agents.replay import load_game, write_replay

CHROMIUM = ("chromium", "chromium-browser")
DRIVER = "chromedriver"


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI: {reason}; .ci/run installs it (make browser)")
    pytest.skip(f"{reason} (install it with: make browser)")


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("selenium is not installed (the docs extra)")
    binary = next((b for b in map(shutil.which, CHROMIUM) if b), None)
    driver_path = shutil.which(DRIVER)
    if binary is None or driver_path is None:
        _missing("headless Chromium is not installed (Debian: chromium, chromium-driver)")
    options = webdriver.ChromeOptions()
    options.binary_location = binary
    for arg in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,1000"):
        options.add_argument(arg)
    options.add_argument("--disable-dev-shm-usage")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, MoveList]]:
    root = tmp_path_factory.mktemp("pages")
    folder = small_tournament(root / "t", games=1, save_games=1)
    two = root / "two.html"
    write_replay(folder, two, game=0)
    four_moves = four_player_moves()
    (root / "four.json").write_text(four_moves.to_json(), encoding="utf-8")
    four = root / "four.html"
    write_replay(root / "four.json", four)
    return {"2p": (two, load_game(folder, 0)), "4p": (four, four_moves)}


def _open(driver: Any, page: Path, fragment: str = "") -> list[dict[str, Any]]:
    """Load ``page`` from disk (a fresh load, ``fragment`` appended to its URL), wait until its
    data is unpacked; the console entries."""
    from selenium.webdriver.support.ui import WebDriverWait

    driver.get("about:blank")  # the same page again would only change its fragment
    driver.get_log("browser")  # drop what an earlier page left
    driver.get(page.resolve().as_uri() + fragment)
    WebDriverWait(driver, 20).until(
        lambda d: d.execute_script("return document.body.dataset.ready") == "1"
    )
    return list(driver.get_log("browser"))


def _frame(driver: Any) -> int:
    return int(driver.execute_script("return document.body.dataset.frame"))


def _board(driver: Any) -> str:
    return str(driver.execute_script("return document.getElementById('board').innerHTML"))


@pytest.mark.parametrize("which", ["2p", "4p"])
def test_page_loads_without_console_errors(browser: Any, pages: dict, which: str) -> None:
    page, moves = pages[which]
    logs = _open(browser, page)
    errors = [e for e in logs if e.get("level") in ("SEVERE", "ERROR")]
    assert errors == [], errors
    assert _frame(browser) == 0
    ranches = browser.find_elements("css selector", "#board svg.ranch")
    assert len(ranches) == moves.players
    assert all(r.size["width"] > 100 and r.size["height"] > 100 for r in ranches)


def test_stepping_changes_the_board(browser: Any, pages: dict) -> None:
    from selenium.webdriver.common.keys import Keys

    page, moves = pages["2p"]
    _open(browser, page)
    body = browser.find_element("tag name", "body")
    start = _board(browser)
    seen = {start}
    for i in range(1, 6):
        body.send_keys(Keys.ARROW_RIGHT)
        assert _frame(browser) == i
        seen.add(_board(browser))
    assert len(seen) == 6  # every move changed what is shown
    state = moves.initial_state()
    for action in moves.actions[:4]:
        state.apply(action)
    move = browser.find_element("id", "move").text
    last = moves.actions[4]
    assert move.endswith(state.action_to_string(last)), move
    body.send_keys(Keys.ARROW_LEFT)
    assert _frame(browser) == 4
    body.send_keys(Keys.HOME)
    assert _frame(browser) == 0 and _board(browser) == start
    # the slider
    slider = browser.find_element("id", "step")
    browser.execute_script(
        "arguments[0].value = 30; arguments[0].dispatchEvent(new Event('input'))", slider
    )
    assert _frame(browser) == 30 and _board(browser) not in seen
    body.send_keys(Keys.END)
    assert _frame(browser) == len(moves.actions)


@pytest.mark.parametrize("which", ["2p", "4p"])
def test_final_scores_shown_are_the_engines(browser: Any, pages: dict, which: str) -> None:
    from selenium.webdriver.common.keys import Keys

    page, moves = pages[which]
    _open(browser, page)
    final = moves.final_state()
    engine = [s.total for s in final.scores()]
    rows = browser.find_elements("css selector", "#final-scores tbody tr")
    shown = [int(r.find_element("css selector", "td.total").text) for r in rows]
    assert shown == engine
    winners = [int(r.get_attribute("data-seat")) for r in rows if "winner" in r.text]
    assert winners == sorted(final.winners())
    browser.find_element("tag name", "body").send_keys(Keys.END)
    now = browser.find_elements("css selector", "#now-scores tbody tr")
    assert [int(r.find_elements("css selector", "td")[-1].text) for r in now] == engine


def test_screenshot_is_not_blank(browser: Any, pages: dict) -> None:
    from PIL import Image

    page, _ = pages["2p"]
    _open(browser, page)
    png = browser.get_screenshot_as_png()
    shots = os.environ.get("REPLAY_SHOTS")
    if shots:  # keep it to look at
        Path(shots).mkdir(parents=True, exist_ok=True)
        Path(shots, "replay-2p.png").write_bytes(png)
    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))
    assert image.shape[0] > 500 and image.shape[1] > 800
    colours = len(np.unique(image.reshape(-1, 3), axis=0))
    assert colours > 50, colours
    # the board area is drawn: many pixels differ from the page background
    ranch = browser.find_element("css selector", "#board svg.ranch")
    x, y = int(ranch.location["x"]), int(ranch.location["y"])
    w, h = int(ranch.size["width"]), int(ranch.size["height"])
    crop = image[y : y + h, x : x + w]
    background = np.array([0xF4, 0xF2, 0xEC])
    assert (np.abs(crop.astype(int) - background).sum(axis=2) > 30).mean() > 0.5


@pytest.mark.parametrize(
    ("fragment", "frame", "hash_after"),
    [
        ("#move=5", 5, "#move=5"),
        ("#move=0", 0, "#move=0"),
        ("#move=99999999999", "last", "#move=last"),  # clamped to the game
        ("#move=-3", 0, "#move=0"),
        ("#move=abc", 0, "#move=abc"),  # junk: ignored, left as it is
        ("#move=", 0, "#move="),
        ("#moves=5", 0, "#moves=5"),
    ],
)
def test_the_url_opens_the_page_at_a_move(
    browser: Any, pages: dict, fragment: str, frame: int | str, hash_after: str
) -> None:
    page, moves = pages["2p"]
    last = len(moves.actions)
    logs = _open(browser, page, fragment)
    assert [e for e in logs if e.get("level") in ("SEVERE", "ERROR")] == []
    assert _frame(browser) == (last if frame == "last" else frame)
    expected = hash_after.replace("last", str(last))
    assert browser.execute_script("return window.location.hash") == expected


def test_stepping_writes_the_move_into_the_url(browser: Any, pages: dict) -> None:
    from selenium.webdriver.common.keys import Keys

    page, moves = pages["2p"]
    _open(browser, page, "#move=7")
    before = _board(browser)
    body = browser.find_element("tag name", "body")
    body.send_keys(Keys.ARROW_RIGHT)
    assert browser.execute_script("return window.location.hash") == "#move=8"
    body.send_keys(Keys.HOME)
    assert browser.execute_script("return window.location.hash") == "#move=0"
    # editing the fragment jumps there, and a reload opens where the URL says
    browser.execute_script("window.location.hash = '#move=7'")
    _wait_until(browser, lambda d: _frame(d) == 7)
    assert _board(browser) == before
    browser.refresh()
    _wait_until(browser, lambda d: d.execute_script("return document.body.dataset.ready") == "1")
    assert _frame(browser) == 7 and len(moves.actions) > 8


def _wait_until(driver: Any, condition: Any) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, 20).until(condition)
