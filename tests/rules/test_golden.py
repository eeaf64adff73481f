"""Golden playthroughs (the OpenSpiel idea): one seeded game per mode written out step by step
(acting agent, phase, number of legal actions, a digest of the observation, the action played)
with the final scores, compared line by line on every run. Any change of rules, action
numbering, observation or reward shows up here as the first differing step.

The files are regenerated only on purpose, after a deliberate change of behaviour:
``MOONRIVER_REGEN_GOLDEN=1 pytest tests/rules/test_golden.py`` (then review the diff and say why in
the commit). The current files were written by the code of commit 572201b (before the env
speed-ups) and are matched by the code after them, observation for observation.
"""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

import numpy as np
import pytest

from moonriver_env import moonriver_v0
from moonriver_env.moonriver.env import PHASE_NAMES, SCORE_COLUMNS

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"
SEED = 2026
MODES = [(n, m) for m in ("base", "legends") for n in (2, 3, 4)]


def playthrough(num_players: int, mode: str, seed: int = SEED) -> str:
    """The text of one seeded random game through ``raw_env``."""
    env = moonriver_v0.raw_env(num_players=num_players, mode=mode)
    env.reset(seed=seed)
    rng = random.Random(seed)
    lines = [
        f"# raw_env(num_players={num_players}, mode={mode!r}); reset(seed={seed}); actions "
        f"drawn by random.Random({seed}) over the mask; obs = sha1 of the observation[:12]"
    ]
    step = 0
    while True:
        agent = env.agent_selection
        obs, _reward, termination, _truncation, info = env.last()
        if termination:
            break
        legal = np.flatnonzero(obs["action_mask"])
        action = int(legal[rng.randrange(len(legal))])
        digest = hashlib.sha1(obs["observation"].tobytes()).hexdigest()[:12]
        text = env.state.action_to_string(action)
        lines.append(
            f"{step:4d} {agent} {PHASE_NAMES[info['phase']]:<13} legal={len(legal):<5d}obs={digest} {text}"
        )
        env.step(action)
        step += 1
    final = env.infos[env.agent_selection]
    for i, row in enumerate(final["scores"]):
        s = dict(zip(SCORE_COLUMNS, row.tolist(), strict=True))
        lines.append(
            f"player_{i}: territories {s['territories']} resources {s['resources']} partners "
            f"{s['partners']} scenario {s['scenario']} total {s['total']} largest "
            f"{s['largest_territory']} cows {s['cows']} reward {env.rewards[f'player_{i}']:+.3f}"
        )
    lines.append(
        f"winners: {', '.join(env.possible_agents[w] for w in np.flatnonzero(final['winners']))}"
    )
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(("num_players", "mode"), MODES, ids=[f"{n}p-{m}" for n, m in MODES])
def test_golden_playthrough(num_players: int, mode: str) -> None:
    path = GOLDEN_DIR / f"{num_players}p_{mode}.txt"
    got = playthrough(num_players, mode)
    if os.environ.get("MOONRIVER_REGEN_GOLDEN") == "1":
        path.write_text(got, encoding="utf-8")
        pytest.skip(f"regenerated {path.name}")
    want = path.read_text(encoding="utf-8")
    for i, (a, b) in enumerate(zip(want.splitlines(), got.splitlines(), strict=False)):
        assert a == b, f"{path.name} line {i + 1} differs:\n  golden: {a}\n  now:    {b}"
    assert len(got.splitlines()) == len(want.splitlines()), f"{path.name}: game length differs"
