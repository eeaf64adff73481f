"""Golden playthroughs: one seeded game per player count, written out decision by decision
(``tests/kingdomino/golden/*.txt``) and replayed on every run. Regenerate on purpose only:
``KINGDOMINO_REGEN_GOLDEN=1 python -m pytest tests/kingdomino/test_kingdomino_golden.py``."""

from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from moonriver_env.kingdomino import KingdominoConfig, new_game

GOLDEN = Path(__file__).with_name("golden")
GAMES = {
    "2p": (KingdominoConfig(2), 2),
    "3p": (KingdominoConfig(3, ("must_place",)), 3),
    "4p": (KingdominoConfig(4, ("must_place", "harmony", "middle_kingdom")), 4),
}


def playthrough(config: KingdominoConfig, seed: int) -> str:
    state = new_game(config, seed)
    rng = random.Random(seed)
    lines = [f"# {config.describe()}, seed {seed}; chooser random.Random({seed})"]
    while not state.is_terminal:
        legal = state.legal_action_list()
        a = rng.choice(legal)
        extra = ""
        if state.phase.name == "PLACE":
            extra = f" ({state.current_domino().text()}, {len(legal)} legal)"
        lines.append(f"{state.phase.name} p{state.seat}: {state.action_to_string(a)}{extra}")
        state.apply(a)
    for seat, kingdom in enumerate(state.kingdoms):
        lines.append(f"kingdom p{seat}:")
        lines.extend("  " + row for row in kingdom.to_text().splitlines())
    lines.append(f"points {state.points()} winners {state.winners()}")
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("name", sorted(GAMES))
def test_golden_playthrough(name: str) -> None:
    config, seed = GAMES[name]
    path = GOLDEN / f"{name}.txt"
    text = playthrough(config, seed)
    if os.environ.get("KINGDOMINO_REGEN_GOLDEN"):
        path.write_text(text)
    assert path.read_text() == text, f"{name}: the game changed; see {path}"
