"""A Kingdomino replay page in headless Chromium (same harness as the Moon River pages):
no console error, a kingdom per seat drawn, the final scores shown are the engine's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from test_kingdomino_replay import kingdomino_moves
from test_replay_browser import _open, browser  # noqa: F401 (the browser fixture)

from agents.replay import write_replay


def test_kingdomino_page_in_the_browser(browser: Any, tmp_path: Path) -> None:  # noqa: F811
    moves, totals = kingdomino_moves()
    page = write_replay(moves.save(tmp_path / "game.json"), tmp_path / "k.html")
    logs = _open(browser, page)
    assert [e for e in logs if e.get("level") in ("SEVERE", "ERROR")] == []
    board = browser.find_elements("css selector", "#board svg")
    assert len(board) >= moves.players + 1  # a kingdom per seat, then the lines
    rows = browser.find_elements("css selector", "#final-scores tbody tr")
    shown = [int(r.find_element("css selector", "td.total").text) for r in rows]
    assert shown == totals
