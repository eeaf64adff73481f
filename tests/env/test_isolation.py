"""The rules engine stays free of RL dependencies.

In a fresh interpreter, importing ``moonriver_env.moonriver.rules`` (and the command-line tools built
only on it) and playing a short game must not import gymnasium, pettingzoo, torch or
stable_baselines3. The check runs twice: with the environment as installed, and with
importable stub packages of those names first on ``sys.path``, so that an optional import
(``try: import torch``) is caught even where the real packages are not installed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fresh_python import run_python

FORBIDDEN = ("gymnasium", "pettingzoo", "torch", "stable_baselines3")

CODE = """
import json, sys
import {module}
from moonriver_env.rules import GameConfig, new_game

state = new_game(GameConfig(num_players=3, mode="legends", scenario="random"), seed=1)
steps = 0
while not state.is_terminal:
    state.apply(int(state.legal_actions()[steps % len(state.legal_actions())]))
    steps += 1
state.scores(); state.winners(); state.clone(); state.legal_action_mask(); state.to_json()
forbidden = {forbidden!r}
print(json.dumps({{
    "steps": steps,
    "loaded": sorted(m for m in sys.modules if m.split(".")[0] in forbidden),
}}))
"""


@pytest.mark.parametrize("stubs", [False, True], ids=["installed", "stubbed"])
@pytest.mark.parametrize(
    "module",
    [
        "moonriver_env.moonriver.rules",
        "moonriver_env",
        "moonriver_env.play_random",
        "moonriver_env.bench",
    ],
)
def test_engine_imports_no_rl_libraries(module: str, stubs: bool, tmp_path: Path) -> None:
    paths: list[str] = []
    if stubs:
        for name in FORBIDDEN:
            (tmp_path / name).mkdir()
            (tmp_path / name / "__init__.py").write_text("STUB = True\n")
        paths.append(str(tmp_path))
    out = run_python(CODE.format(module=module, forbidden=FORBIDDEN), timeout=120, paths=paths)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["steps"] > 0
    assert result["loaded"] == [], f"importing {module} pulled in {result['loaded']}"
