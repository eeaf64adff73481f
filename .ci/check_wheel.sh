#!/usr/bin/env bash
# Build the wheel with `python -m build` and install it into a fresh virtual environment,
# outside the repository; then a smoke test: the component data file ships, the native core
# (moonriver_env._native) is in the wheel and VectorGame plays on it, equal to the engine; the
# shipped models (agents/checkpoints/) are in the wheel where the agents look for them.
# Usage: .ci/check_wheel.sh [PYTHON]   (default: .venv/bin/python)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY="${1:-.venv/bin/python}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
"$PY" -m pip install --quiet build
"$PY" -m build --wheel --outdir "$WORK/dist" . >"$WORK/build.log" 2>&1 || {
    tail -40 "$WORK/build.log"
    exit 1
}
WHEEL="$(ls "$WORK"/dist/*.whl)"
echo "built $(basename "$WHEEL")"
"$PY" -m venv "$WORK/venv"
"$WORK/venv/bin/pip" install --quiet "$WHEEL"
cd "$WORK"
"$WORK/venv/bin/python" - <<'PYEOF'
import importlib.resources

import numpy as np

import moonriver_env
from moonriver_env import _native
from moonriver_env.rules import GameConfig, default_components, new_game
from moonriver_env.vector import NATIVE, VectorGame

assert "site-packages" in moonriver_env.__file__, moonriver_env.__file__
assert NATIVE and "site-packages" in _native.__file__
data = importlib.resources.files("moonriver_env.moonriver.rules") / "data" / "components.json"
assert data.is_file(), "components.json missing from the wheel"
assert default_components().num_plots == 96
shipped = importlib.resources.files("agents") / "checkpoints"
for name, weights in (("ppo_2p_base", "model.zip"), ("trained_2p_base", "model.pt"),
                      ("trained_4p_base", "model.pt"), ("az_2p_base", "model.pt")):
    for file in (weights, "config.toml", "provenance.json"):
        assert (shipped / name / file).is_file(), f"{name}/{file} missing from the wheel"
vg = VectorGame(num_games=4, num_players=3, mode="legends", seed=0)
assert vg.backend == "native"
for i in range(4):
    assert vg.get_state(i).to_json() == new_game(
        GameConfig(num_players=3, mode="legends"),
        seed=int(np.random.default_rng(i).integers(2**63 - 1)),
    ).to_json()
rng = np.random.default_rng(0)
for _ in range(200):
    pick = (rng.random(4) * vg.num_legal).astype(np.int64)
    vg.step(vg.legal_ids[np.arange(4), pick].astype(np.int64))
print("wheel smoke test passed:", moonriver_env.__file__)
PYEOF
