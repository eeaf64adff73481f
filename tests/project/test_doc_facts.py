"""Figures of the site's pages that come from a record, read here from the record.

``test_model_facts.py`` holds the `trained` and `ppo` rows; this file holds the `az` ladder rows
of the home page and the results page (from ``agents/checkpoints/az_2p_base/provenance.json``),
the commit the results page names for the shipped `az` model (the commit that last changed its
weights), the value models' collection budgets quoted in prose, the ladder's order sentence,
and the longer run that notebook 08 shows (its ``run.json`` beside its ``curve.csv``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from agents.shipped import CHECKPOINTS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def page(name: str) -> str:
    return (DOCS / name).read_text(encoding="utf-8")


def flat(text: str) -> str:
    return " ".join(text.split())


def provenance(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CHECKPOINTS / name / "provenance.json").read_text())
    return data


def row(text: str, first_cell: str) -> list[str]:
    """The cells of the first markdown table row whose first cell starts with ``first_cell``."""
    lines = [line for line in text.splitlines() if line.startswith(f"| {first_cell}")]
    assert lines, f"no table row starting {first_cell!r}"
    return [cell.strip() for cell in lines[0].strip().strip("|").split("|")]


def az_result(opponent: str) -> dict[str, Any]:
    (ev,) = [
        e
        for e in provenance("az_2p_base")["evaluations"]
        if e["agent"] == "az" and e["opponent"] == opponent
    ]
    return ev


def interval(ev: dict[str, Any]) -> str:
    return f"{ev['win_rate']:.3f} [{ev['ci_low']:.3f}, {ev['ci_high']:.3f}]"


@pytest.mark.parametrize("opponent", ["heuristic", "trained"])
def test_the_az_ladder_rows_are_its_provenance(opponent: str) -> None:
    ev = az_result(opponent)
    label = "heuristic" if opponent == "heuristic" else "`trained`"
    cells = row(page("index.md"), f"`az` vs {label}")
    assert cells[1:3] == [str(ev["games"]), interval(ev)]
    cells = row(page("results.md"), f"`az` {'(search' if opponent == 'heuristic' else 'vs'}")
    assert cells[1] == str(ev["games"]) and cells[3] == interval(ev)
    command = ev["command"]  # the command that made the figure is listed above the table
    assert command in page("results.md")


def test_the_ladder_sentence_places_az_by_its_records() -> None:
    """The order sentences of the home page, the results page and the README place `az`
    against the heuristic as its records do (above it when the interval is above 0.5, below
    when it is below)."""
    ev = az_result("heuristic")
    if ev["ci_low"] > 0.5:
        order = "heuristic < `az`"
    else:
        assert ev["ci_high"] < 0.5, "the records do not order az and the heuristic"
        order = "`az` < heuristic"
    for text in (page("index.md"), page("results.md"), (ROOT / "README.md").read_text()):
        assert order in flat(text)


def test_the_results_page_names_the_commit_of_the_shipped_az_model() -> None:
    git = shutil.which("git")
    if git is None or not (ROOT / ".git").exists():
        pytest.skip("no git checkout")
    out = subprocess.run(
        [
            git,
            "log",
            "-1",
            "--format=%h",
            "--abbrev=7",
            "--",
            "agents/checkpoints/az_2p_base/model.pt",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    if not out:
        pytest.skip("the history of the model is not in this checkout (a shallow clone)")
    cells = row(page("results.md"), "`az`: the shipped 2-player model")
    assert cells[2] == f"`{out}`"


def test_the_collection_budgets_in_prose_are_the_provenance() -> None:
    two, four = provenance("trained_2p_base"), provenance("trained_4p_base")
    text = flat(page("training.md"))
    assert (
        f"{four['collect_game_minutes']} and {two['collect_game_minutes']} game-minutes of "
        "collection" in text
    )
    assert f"({four['games_collected']:,} for 4 players, {two['games_collected']:,} for 2)" in text
    text = flat(page("trained-agent.md"))
    assert (
        f"so {four['games_collected']:,} games ({four['train']['afterstates'] + four['held_out']['decisions']:,}"
        f" rows) cost {four['collect_game_minutes']} game-minutes" in text
    )


def test_notebook_08_longer_run_is_recorded() -> None:
    """The longer run notebook 08 draws: its curve and the command, date, machine that made it."""
    run = ROOT / "notebooks" / "data" / "08_scale10"
    meta = json.loads((run / "run.json").read_text())
    assert {"command", "date", "machine", "seconds"} <= set(meta)
    assert "MOONRIVER_NB_SCALE=10" in meta["command"]
    lines = (run / "curve.csv").read_text().splitlines()
    assert lines[0].startswith("iteration,decisions,seconds,win_rate,ci_low,ci_high")
    assert len(lines) > 3
