"""Helpers of the az tests (imported by name): the games they cover, small random networks
(every layer, biases included, drawn so that a slice read in the wrong order changes the
outputs), model files written with ``save_checkpoint``, and positions reached by random play.
Nothing here reads a shipped model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import torch

from agents.az import AzNet, NetShape, SearchSettings, save_checkpoint
from agents.az.network import sparse_batch
from moonriver_env.games import GameSpec
from training.az.config import settings_dict
from training.az.selfplay import PlaySettings, Positions, native_template, play_games

KD_STUDY = "harmony+middle_kingdom+must_place"
SPECS = {
    "mr2": GameSpec(game="moonriver", num_players=2, mode="base"),
    "mr4": GameSpec(game="moonriver", num_players=4, mode="base"),
    "kd4": GameSpec(game="kingdomino", num_players=4, mode=KD_STUDY),
}
"""The games every contract is checked on: Moon River 2 and 4 players, Kingdomino 4 players
with the study's rules."""
HIDDEN1, HIDDEN2 = 8, 4
FAST = SearchSettings(k=3, r=2, depth=1, max_depth=12, rollout_temp=1.0, tau=0.1)
"""A cheap search (milliseconds a decision on these networks)."""


def random_net(
    spec: GameSpec,
    seed: int = 0,
    hidden1: int = HIDDEN1,
    hidden2: int = HIDDEN2,
    features: bool = False,
    tables: bool = False,
) -> AzNet:
    """A network of ``spec``'s game with every parameter random (the default init leaves the
    biases at zero, which would hide a bias read from the wrong slice). The hidden biases
    lean positive and the second layer's weights are small, so that few units are dead (a
    dead second layer makes the value a constant) and the value is rarely saturated."""
    torch.manual_seed(seed)
    net = AzNet(NetShape.for_game(spec, hidden1, hidden2, features, tables))
    with torch.no_grad():
        for name, p in net.named_parameters():
            if name != "w1":  # the default: a first layer of moderate sums
                p.normal_(0.0, 0.4)
        net.b1.abs_()
        net.l2.weight.mul_(0.3)
        net.l2.bias.abs_().add_(0.3)
    return net.eval()


def write_model(path: Path, spec: GameSpec, seed: int = 0, settings: SearchSettings = FAST) -> Path:
    """A model file of a random network of ``spec``'s game."""
    net = random_net(spec, seed)
    return save_checkpoint(path, net, settings_dict(settings), {"command": "tests/az fixture"})


def torch_values(net: AzNet, obs: np.ndarray) -> np.ndarray:
    """The torch network's values of a batch of dense observations."""
    rows, cols = np.nonzero(obs)
    counts = np.bincount(rows, minlength=obs.shape[0])
    with torch.no_grad():
        return net(sparse_batch(cols, obs[rows, cols], counts)).numpy()


def native_state(spec: GameSpec, seed: int) -> Any:
    """A new game of ``spec`` in the core (its ``native_state`` wrapper)."""
    return spec.entry.hook("native_state")(spec.config(), seed)


def midgame(spec: GameSpec, seed: int, moves: int, min_legal: int = 2) -> Any:
    """A native game after ``moves`` random moves, then on to a decision with at least
    ``min_legal`` legal actions (None if the game ended first)."""
    ns = native_state(spec, seed)
    rng = np.random.default_rng(seed)
    played = 0
    while not ns.is_terminal:
        legal = ns.legal_action_list()
        if played >= moves and len(legal) >= min_legal:
            return ns
        ns.apply(int(legal[rng.integers(len(legal))]))
        played += 1
    return None


def outcome_of(winners: list[int], points: list[int]) -> list[float]:
    """Each seat's outcome as the core scores it (azgames.c ``share_outcome``): half of
    2 x its share of the win - 1, half of tanh((its points - the best other seat's) / 20)."""
    n = len(points)
    out = []
    for s in range(n):
        win = 2.0 / len(winners) - 1.0 if s in winners else -1.0
        best = max(points[o] for o in range(n) if o != s)
        out.append(0.5 * win + 0.5 * float(np.tanh((points[s] - best) / 20.0)))
    return out


def final_points(state: Any) -> list[int]:
    """Each seat's points in a finished Python engine state (what the outcome's margin reads:
    Moon River's score totals, Kingdomino's ranking points)."""
    if hasattr(state, "rank_keys"):
        return [int(p) for p, _ in state.rank_keys()]
    return [int(b.total) for b in state.scores()]


def encoder(spec: GameSpec) -> Any:
    """The Python engine's flat observation of a native state's game for a seat:
    ``encoder(spec)(python_state, seat)``."""
    if spec.game == "kingdomino":
        from moonriver_env.kingdomino.encoding import KingdominoEncoder

        kd = KingdominoEncoder(spec.config())
        return kd.encode_flat
    from moonriver_env.moonriver.encoding import ObservationEncoder

    return ObservationEncoder(spec.config()).encode_flat


def dense(idx: np.ndarray, val: np.ndarray, ptr: np.ndarray, row: int, size: int) -> np.ndarray:
    """Row ``row`` of a CSR set of observations as a dense float32 vector."""
    out = np.zeros(size, np.float32)
    lo, hi = int(ptr[row]), int(ptr[row + 1])
    out[idx[lo:hi]] = val[lo:hi]
    return out


def teacher_positions(key: str, games: int = 6) -> Positions:
    """Teacher games' positions of ``SPECS[key]``'s game, every decision kept, half the
    actor's with afterstates."""
    spec = SPECS[key]
    weights = spec.entry.hook("az_teacher")()[1]
    settings = PlaySettings(SearchSettings(k=0).as_tuple(), explore=0, lam=1.0, afterstates=0.5)
    return play_games(native_template(spec), None, games, 1, settings, teacher=True,
                      weights=weights)  # fmt: skip
