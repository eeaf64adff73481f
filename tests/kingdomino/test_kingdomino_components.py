"""The domino table and the config (RULES.md section 13, K1, K2 and K8)."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from moonriver_env.kingdomino import (
    VARIANTS,
    ComponentDataError,
    KingdominoConfig,
    dominoes,
    load_dominoes,
    parse_variants,
)
from moonriver_env.kingdomino.rules.components import DATA_FILE, PUBLISHED_SUMMARY, half_text


def test_the_table_has_48_numbered_dominoes_matching_the_rulebook_summary() -> None:
    table = dominoes()
    assert [d.number for d in table] == list(range(1, 49))
    halves = Counter(
        half_text(land, k)
        for d in table
        for land, k in ((d.land1, d.crowns1), (d.land2, d.crowns2))
    )
    assert dict(halves) == PUBLISHED_SUMMARY
    assert sum(PUBLISHED_SUMMARY.values()) == 96
    assert sum(int(t[1]) * c for t, c in PUBLISHED_SUMMARY.items()) == 39  # crowns
    # spot checks against the component file
    assert table[0].text() == "1:W0-W0"
    assert table[47].text() == "48:W0-M3"
    assert table[22].text() == "23:W1-M0"


def test_the_data_file_keeps_its_provenance() -> None:
    raw = json.loads(DATA_FILE.read_text())
    text = " ".join(raw["provenance"])
    for source in ("mratin/kdom", "BryanHuet/solver-kingdomino", "GiM6114/Kingdomino_RL"):
        assert source in text


def _write(tmp_path: Path, mutate) -> Path:
    raw = json.loads(DATA_FILE.read_text())
    mutate(raw)
    path = tmp_path / "dominoes.json"
    path.write_text(json.dumps(raw))
    return path


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r["dominoes"].pop(), "must list 48"),
        (lambda r: r["dominoes"][3].update(number=9), "expected number 4"),
        (lambda r: r["dominoes"][0].update(halves=["X0", "W0"]), "dominoes[0].halves"),
        (lambda r: r["dominoes"][0].update(halves=["W4", "W0"]), "dominoes[0].halves"),
        (lambda r: r["dominoes"][0].update(halves=["F0", "W0"]), "summary"),
    ],
)
def test_a_corrupted_table_is_refused(tmp_path: Path, mutate, message: str) -> None:
    with pytest.raises(ComponentDataError, match=message.replace("[", r"\[").replace("]", r"\]")):
        load_dominoes(_write(tmp_path, mutate))


@pytest.mark.parametrize(
    ("n", "variants", "dominoes_in_play", "line", "kings", "size", "lines", "actions"),
    [
        (2, (), 24, 4, 2, 5, 6, 329),
        (3, (), 36, 3, 1, 5, 12, 328),
        (4, (), 48, 4, 1, 5, 12, 329),
        (2, ("mighty_duel",), 48, 4, 2, 7, 12, 681),
    ],
)
def test_player_counts_set_the_numbers(
    n: int, variants, dominoes_in_play, line, kings, size, lines, actions
) -> None:
    """Seed lines 61-63 (dominoes), 67 (line of 3 or 4), 57 (two kings with 2 players),
    87 (12 rounds, 6 with 2 players), 146 (Mighty Duel: 48 dominoes, 7 x 7)."""
    cfg = KingdominoConfig(n, variants)
    assert (cfg.dominoes_in_play, cfg.line_size, cfg.kings_per_player, cfg.size) == (
        dominoes_in_play,
        line,
        kings,
        size,
    )
    assert cfg.num_lines == lines
    assert cfg.num_actions == actions


def test_variants_are_combinable_and_canonical() -> None:
    a = KingdominoConfig(4, ("harmony", "must_place"))
    b = KingdominoConfig(4, "must_place,harmony")
    assert a == b and a.variants == ("must_place", "harmony")
    assert KingdominoConfig(2, VARIANTS).num_games == 3
    assert parse_variants(None) == ()


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"num_players": 5}, ValueError, "num_players"),
        ({"num_players": True}, ValueError, "num_players"),
        ({"num_players": 3, "variants": ("mighty_duel",)}, ValueError, "2-player variant"),
        ({"num_players": 4, "variants": ("harmonie",)}, ValueError, "unknown variant 'harmonie'"),
        ({"num_players": 4, "variants": ("harmony", "harmony")}, ValueError, "given twice"),
        ({"num_players": 4, "variants": 3}, TypeError, "variants"),
    ],
)
def test_bad_configs_are_named_errors(kwargs, error, message: str) -> None:
    with pytest.raises(error, match=message):
        KingdominoConfig(**kwargs)
