"""Docs that cannot drift (as ``tests/project/test_model_facts.py`` for the other models):
every row of the az table in docs/az.md is read from the shipped model's ``provenance.json``."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest

from agents.shipped import CHECKPOINTS

ROOT = Path(__file__).resolve().parents[2]
FOLDER = CHECKPOINTS / "az_2p_base"
README = (ROOT / "docs" / "az.md").read_text(encoding="utf-8")
NAMES = {"heuristic": "heuristic", "greedy": "greedy", "az:sims=0": "`az:sims=0`",
         "mc:sims=64,time=none": "mc:sims=64", "trained": "`trained`"}  # fmt: skip


def evaluations() -> list[dict[str, object]]:
    """The 2-player model's evaluations of docs/az.md's "Strength" table: those of the model the
    shipped one was trained further from, kept in its provenance's ``init`` record."""
    data = json.loads((FOLDER / "provenance.json").read_text())
    return list(data["init"]["evaluations"])


def test_the_strength_table_has_its_records() -> None:
    assert len(evaluations()) == 4


@pytest.mark.parametrize("ev", evaluations(), ids=lambda e: f"{e['agent']}-{e['opponent']}")
def test_readme_rows_match_the_provenance(ev: dict[str, object]) -> None:
    assert f"{ev['command']}" in README
    rows = [line for line in README.splitlines() if line.startswith("| `az")]
    agent = "`az`" if ev["agent"] == "az" else f"`{ev['agent']}`"
    opponent = NAMES[str(ev["opponent"])]
    pattern = rf"\| {re.escape(agent)}( \(.*?\))? vs {re.escape(opponent)} \| (\d+) \| ([\d.]+) \[([\d.]+), ([\d.]+)\]"
    hits = [m for r in rows if (m := re.match(pattern, r))]
    assert len(hits) == 1, f"expected one README row for {agent} vs {opponent}"
    m = hits[0]
    assert int(m.group(2)) == ev["games"]
    # the README prints 3 decimals of the exact value; provenance keeps 4 (rounding may differ
    # in the last printed digit)
    for got, want in zip(m.groups()[2:], ("win_rate", "ci_low", "ci_high"), strict=True):
        assert abs(float(got) - float(ev[want])) <= 0.0011, (want, got, ev[want])


def test_the_from_zero_curve_is_its_record() -> None:
    """Each row of docs/az.md's from-zero table is a row of the shipped curve.csv."""
    path = CHECKPOINTS / "az_2p_zero" / "curve.csv"
    with path.open() as f:
        records = list(csv.DictReader(f))
    assert records, "no curve records"
    for r in records:
        games = f"{int(r['games_played']):,}"
        rate = f"{float(r['win_rate']):.3f} [{float(r['ci_low']):.3f}, {float(r['ci_high']):.3f}]"
        line = f"| {float(r['hours']):.2f} | {games} | {rate} |"
        assert line in README, f"docs/az.md lacks the curve row {line!r}"


def recorded_bars() -> dict[str, dict[str, object]]:
    """Each bar row's record, from the provenance of the shipped model that holds it."""
    found: dict[str, dict[str, object]] = {}
    for path in sorted(CHECKPOINTS.glob("az_*/provenance.json")):
        for bar in json.loads(path.read_text()).get("bars", []):
            assert bar["row"] not in found, f"{bar['row']} is recorded twice ({path.parent.name})"
            found[bar["row"]] = {**bar, "model": path.parent.name}
    return found


def test_the_bars_table_is_the_provenance() -> None:
    """docs/az.md's table of the bars is read from the provenances: every row of
    training/configs/az_bars.toml is there once, with its model's recorded win rate, interval,
    games, bar, time a decision and verdict (met: the lower bound at the bar, the time within the
    file's limit for the game, and an mc row's mc given the time asked), and the count of met
    rows is theirs."""
    from training.az.bars import read_bars, time_limit_ms

    settings, rows = read_bars()
    bars = recorded_bars()
    assert sorted(bars) == sorted(rows), "a bar row without a record, or a record of no row"
    met = 0
    for name, row in rows.items():
        bar = bars[name]
        lines = [line for line in README.splitlines() if line.startswith(f"| `{name}` |")]
        assert len(lines) == 1, f"docs/az.md: expected one bars row for {name}"
        cells = [c.strip() for c in lines[0].strip("|").split("|")]
        assert f"`{bar['model']}`" in cells[2], (name, cells[2], bar["model"])
        # the record is of the row as it stands: its az (and search), its opponents
        assert bar["agents"][0] == row["agents"][0], (name, bar["agents"], row["agents"])
        for got, want in zip(bar["agents"][1:], row["agents"][1:], strict=True):
            assert got == want or ("time" in row and got.startswith(f"{want},sims=")), (name, got)
        m = re.fullmatch(r"([\d.]+) \[([\d.]+), ([\d.]+)\]", cells[5])
        assert m, (name, cells[5])
        # the docs print 3 decimals of a record kept to 3 or 4 (rounded either way)
        for got, key in zip(m.groups(), ("win_rate", "ci_low", "ci_high"), strict=True):
            assert abs(float(got) - float(bar[key])) <= 0.0006, (name, key, got, bar[key])
        assert int(cells[4]) == bar["games"] == int(row.get("games", settings["games"]))
        assert bar["bar"] == row["bar"] and cells[6].startswith(f"{float(row['bar']):.2f}: ")
        limit = time_limit_ms(settings, row["table"])
        verdict = float(bar["ci_low"]) >= row["bar"] and float(bar["az_cpu_ms"]) <= limit
        if "time" in row:  # an mc row: mc's time held at the multiple asked, or not met
            verdict = verdict and bar["mc_time_held"] is True
        assert bar["met"] is verdict, (name, bar["met"], verdict)
        assert cells[6].endswith("**met**") == verdict, (name, cells[6], verdict)
        assert cells[7] == f"{float(bar['az_cpu_ms']):.2f} ms", (name, cells[7], bar["az_cpu_ms"])
        met += verdict
    sentence = "Met (the interval's lower bound at or above the bar, within the time limit):"
    assert f"{sentence} {met} of {len(rows)}" in " ".join(README.split())


@pytest.mark.parametrize(
    "folder", sorted(p.name for p in CHECKPOINTS.glob("az_*") if (p / "model.pt").is_file())
)
def test_every_shipped_model_plays_argmax_rollouts(folder: str) -> None:
    """docs/az.md: every shipped model plays argmax rollouts, set at export (sampled rollouts
    at temperature 1 lost); a model exported with its run's sampled rollouts fails here."""
    from agents.az.checkpoint import TABLE_SEARCH, read_blob

    meta = read_blob(CHECKPOINTS / folder / "model.pt")
    assert float(meta["search"]["rollout_temp"]) == 0.0
    for table, changed in (meta.get(TABLE_SEARCH) or {}).items():
        assert float(changed.get("rollout_temp", 0.0)) == 0.0, table
