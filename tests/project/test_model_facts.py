"""Docs that cannot drift: every fact the documentation states about a shipped model (its
labels, data, held-out numbers, run budget and measured results) is read here from the model's
own ``provenance.json`` and ``config.toml`` and compared with the sentence or table row.

The measured results live on the site's pages (``docs/results.md``; the training pipelines'
details in ``docs/training-ppo.md``, the retired MaskablePPO pipeline's record
``docs/training-ppo-experiments.md`` and ``docs/trained-agent.md``); the README repeats the
ladder in brief. A number that its provenance does not hold fails this test; so does a model
whose provenance changed while a page kept the old figure.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest

from agents.shipped import CHECKPOINTS

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = (DOCS / "results.md").read_text(encoding="utf-8")
"""The results page (it holds what the README's measured sections held)."""
TRAINING_README = "\n".join(
    (DOCS / page).read_text(encoding="utf-8")
    for page in ("training-ppo.md", "training-ppo-experiments.md", "trained-agent.md")
)
"""The training pages (what training/README.md held)."""
SHORT_README = (ROOT / "README.md").read_text(encoding="utf-8")


def provenance(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((CHECKPOINTS / name / "provenance.json").read_text())
    return data


def config(name: str) -> dict[str, Any]:
    return tomllib.loads((CHECKPOINTS / name / "config.toml").read_text())


def number(x: float, digits: int) -> str:
    """``x`` as the READMEs print it: ``digits`` decimals, thousands with commas."""
    return f"{x:,.{digits}f}"


def interval(result: dict[str, Any]) -> str:
    """``"0.275 [0.234, 0.321]"`` from an evaluation result."""
    low = result["ci_low"] if "ci_low" in result else result["wilson95"][0]
    high = result["ci_high"] if "ci_high" in result else result["wilson95"][1]
    return f"{result['win_rate']:.3f} [{low:.3f}, {high:.3f}]"


def row(text: str, first_cell: str) -> list[str]:
    """The cells of the markdown table row whose first cell starts with ``first_cell``."""
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and cells[0].startswith(first_cell):
            return cells
    raise AssertionError(f"no table row starting {first_cell!r}")


@pytest.mark.parametrize("name", ["trained_2p_base", "trained_4p_base"])
def test_the_trained_models_table_row_is_its_provenance(name: str) -> None:
    prov, cfg = provenance(name), config(name)
    env = cfg.get("env", cfg.get("game"))
    labels = cfg["collect"]["labels"]
    cells = row(TRAINING_README, f"`{name}`")
    assert cells[0] == f"`{name}` ({labels} labels)"
    assert name.endswith(f"{env['num_players']}p_{env['mode']}")
    games = f"{prov['games_collected']:,} ({prov['collect_game_minutes']})"
    assert cells[1] == games
    held = prov["held_out"]
    assert cells[2] == (
        f"{prov['train']['afterstates']:,} / {held['decisions']:,} rows ({held['games']:,} games)"
    )
    assert cells[3] == f"{number(held['mse'], 1)} vs {number(held['baseline_mse'], 1)}"
    assert cells[4] == f"{held['corr']:.3f}"
    assert cells[6] == str(held["epoch"])


def test_the_trained_2p_result_against_the_heuristic_is_its_provenance() -> None:
    (ev,) = [
        e
        for e in provenance("trained_2p_base")["evaluations"]
        if e["opponents"] == ["heuristic"] and e["players"] == 2
    ]
    wins = int(ev["wins"])
    result = f"{wins} - {ev['games'] - wins}"
    cells = row(README, "`trained` vs heuristic")
    assert cells[1:4] == [str(ev["games"]), result, f"**{interval(ev)}**"]
    cells = row(TRAINING_README, "**trained vs heuristic (2p)**")
    assert cells[1:4] == [str(ev["games"]), result, f"**{interval(ev)}**"]
    assert f"{ev['mean_score']:.1f} vs" in cells[4]
    cells = row(SHORT_README, "`trained` vs heuristic")  # the README's ladder in brief
    assert cells[1:3] == [str(ev["games"]), interval(ev)]


def test_the_ppo_models_results_are_its_provenance() -> None:
    prov = provenance("ppo_2p_base")
    by_opponent = {r["opponent"]: r for r in prov["evaluation"]["results"]}
    games = prov["evaluation"]["games"]
    cells = row(README, "**final, minute 60 (shipped)**")
    for cell, opponent in zip(cells[1:4], ("random", "greedy", "heuristic"), strict=True):
        assert cell == f"**{interval(by_opponent[opponent])}**", opponent
    greedy = by_opponent["greedy"]
    assert cells[4] == f"{greedy['mean_score']:.1f} - {greedy['opponent_score']:.1f}"
    cells = row(TRAINING_README, "`final_model.zip`")
    for cell, opponent in zip(cells[1:4], ("random", "greedy", "heuristic"), strict=True):
        assert cell == interval(by_opponent[opponent]), opponent
    cells = row(README, "`ppo` (MaskablePPO) vs heuristic")
    assert cells[1] == str(games) and cells[3] == interval(by_opponent["heuristic"])
    cells = row(SHORT_README, "`ppo` (MaskablePPO")  # the README's ladder in brief
    assert cells[1] == str(games) and cells[2] == interval(by_opponent["heuristic"])


def test_the_ppo_runs_budget_and_speed_are_its_provenance() -> None:
    summary = provenance("ppo_2p_base")["run_summary"]
    pre = summary["pretrain"]
    facts = {
        "PPO steps": f"{summary['num_timesteps']:,}",
        "steps/s": f"{summary['steps_per_second']:.0f} steps/s",
        "decisions": f"{pre['samples']:,} decisions",
        "accuracy": f"accuracy {pre['holdout_accuracy']:.3f}",
        "collection": f"{pre['collect_seconds'] / 60:.1f} min",
        "cloning": f"{pre['clone_seconds'] / 60:.1f} min",
        "epochs": f"{pre['epoch']} epochs",
    }
    flat_readme = " ".join(README.split())
    flat_training = " ".join(TRAINING_README.split())
    for what, text in facts.items():
        assert text in flat_training, what
    for what in ("PPO steps", "steps/s", "decisions", "accuracy", "epochs"):
        assert facts[what] in flat_readme, what
    assert f"{pre['collect_seconds'] / 60:.1f} minutes" in flat_readme
    assert f"{pre['clone_seconds'] / 60:.1f} minutes" in flat_readme
    assert config("ppo_2p_base")["run"]["time_limit_minutes"] == 60.0
    assert "60 minutes of wall time" in flat_readme


def test_no_doc_says_the_shipped_2p_value_model_uses_rollout_labels() -> None:
    labels = config("trained_2p_base")["collect"]["labels"]
    trained = (ROOT / "moonriver_env" / "moonriver" / "agents" / "trained.py").read_text()
    for text in (README, TRAINING_README, SHORT_README, trained):
        claims = re.findall(r"(\w+)(?:\"``)?[:,]? the 2-player model", text)
        assert all(word == labels for word in claims), claims


def test_the_kingdomino_ppo_rows_are_its_provenance() -> None:
    """Every figure the pages give for the shipped Kingdomino ``ppo`` (its ladder against three
    greedy, heuristics and random, the run's steps) is the one its provenance holds."""
    name = "ppo_kingdomino_4p_harmony+middle_kingdom+must_place"
    prov = provenance(name)
    ppo_page = (DOCS / "ppo.md").read_text(encoding="utf-8")
    by = {rec["opponents"]: rec for rec in prov["ladder"]}
    assert set(by) == {"three greedy", "three heuristic", "three random"}
    for label, key in (("three greedy", "three greedy"), ("three heuristics", "three heuristic"),
                       ("three random", "three random")):  # fmt: skip
        rec = by[key]
        assert rec["games"] == 400 and rec["seed"] == prov["seeds"]["evaluation"]
        cells = row(ppo_page, label)
        assert interval(rec) in cells[1]
        low, high = min(rec["opponent_scores"]), max(rec["opponent_scores"])
        assert cells[2] == f"{rec['mean_score']:.1f} against {low:.1f}-{high:.1f}"
        on_results = [line for line in README.splitlines()
                      if line.startswith("| `ppo`") and f"| {label} |" in line]  # fmt: skip
        assert len(on_results) == 1 and interval(rec) in on_results[0]
    steps = prov["run_summary"]["steps"]
    assert f"{steps / 1e6:.1f} M steps in {prov['run_summary']['updates']:,} updates" in ppo_page
    assert interval(by["three greedy"]) in SHORT_README
    assert prov["evaluation"]["agents"][0]["win_rate"] == pytest.approx(
        by["three greedy"]["win_rate"], abs=5e-4
    )
