"""Labelled afterstates as arrays (stage 2 of :mod:`training.value.train`).

Each collected game (:mod:`.collect`) is replayed from its seed; at every labelled decision the
recorded determinization is redrawn and the candidates' network inputs are built with the agent's
own :func:`moonriver_env.moonriver.agents.trained.candidate_inputs`, so training and play see the
same encoding. A game's arrays are cached in ``data/game<index>.npz`` (inputs as float16: the planes
are small counts, the features fractions), so a resumed run encodes only new games.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from moonriver_env.moonriver.agents.common import determinize
from moonriver_env.moonriver.agents.evaluation import Evaluator, make_context
from moonriver_env.moonriver.agents.trained import candidate_inputs, input_size, state_inputs
from moonriver_env.moonriver.encoding import ObservationEncoder
from moonriver_env.moonriver.rules import GameConfig, new_game
from training.value.collect import decision_rng


@dataclass
class Samples:
    """Afterstates grouped by decision: rows ``start[g]:start[g] + count[g]`` are the
    candidates of decision ``g`` in the heuristic's order (row ``start[g]`` is its choice)."""

    x: np.ndarray  # (rows, input) float16
    y: np.ndarray  # (rows,) label, points
    prior: np.ndarray  # (rows,) the heuristic's one-ply value, points
    start: np.ndarray  # (decisions,) first row of each decision
    count: np.ndarray  # (decisions,) candidates of each decision
    game: np.ndarray  # (decisions,) game index of each decision

    @property
    def decisions(self) -> int:
        return len(self.start)

    def select(self, decisions: np.ndarray) -> Samples:
        """The samples of the given decisions (in that order)."""
        rows = group_rows(self.start[decisions], self.count[decisions])
        count = self.count[decisions]
        start = np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64)
        return Samples(
            self.x[rows], self.y[rows], self.prior[rows], start, count, self.game[decisions]
        )


def group_rows(start: np.ndarray, count: np.ndarray) -> np.ndarray:
    """The row indices of the groups ``start[i]:start[i] + count[i]``, concatenated."""
    total = int(count.sum())
    offsets = np.repeat(start - np.concatenate([[0], np.cumsum(count)[:-1]]), count)
    return offsets + np.arange(total)


def encode_game(game: dict[str, Any], config: GameConfig, k: int) -> dict[str, np.ndarray]:
    """The inputs and labels of one game's labelled decisions (the first ``k`` candidates)."""
    enc = ObservationEncoder(config)
    ev = Evaluator()
    state = new_game(config, seed=game["seed"])
    labels = {lab["i"]: lab for lab in game["labels"]}
    xs: list[np.ndarray] = []
    ys: list[float] = []
    priors: list[float] = []
    counts: list[int] = []
    for i, a in enumerate(game["actions"]):
        lab = labels.get(i)
        if lab is not None:
            cands = lab["c"][:k]
            det = determinize(state, decision_rng(game["seed"], i))
            ctx = make_context(state)
            xs.append(candidate_inputs(enc, ev, det, state.seat, cands, ctx))
            ys += lab["v"][:k]
            priors += lab["p"][:k]
            counts.append(len(cands))
        state.apply(a)
    return {
        "x": (np.concatenate(xs) if xs else np.zeros((0, input_size(enc)))).astype(np.float16),
        "y": np.asarray(ys, dtype=np.float32),
        "prior": np.asarray(priors, dtype=np.float32),
        "count": np.asarray(counts, dtype=np.int64),
    }


def encode_outcome_game(
    game: dict[str, Any], config: GameConfig, states: int
) -> dict[str, np.ndarray]:
    """The inputs and labels of an outcome game (``collect.labels = "outcome"``): ``states``
    positions drawn without replacement from the game's decisions (``default_rng([seed, 1])``), each
    seen by every seat (:func:`~moonriver_env.moonriver.agents.trained.state_inputs`, the input the
    agent gives its leaves) and labelled with that seat's final margin. Every row is its own
    group."""
    enc = ObservationEncoder(config)
    ev = Evaluator()
    n = config.num_players
    actions = game["actions"]
    rng = np.random.default_rng([game["seed"], 1])
    picked = set(rng.choice(len(actions), size=min(states, len(actions)), replace=False).tolist())
    state = new_game(config, seed=game["seed"])
    xs: list[np.ndarray] = []
    for i, a in enumerate(actions):
        if i in picked:
            xs += [state_inputs(enc, ev, [state], seat) for seat in range(n)]
        state.apply(a)
    rows = len(xs)
    return {
        "x": (np.concatenate(xs) if xs else np.zeros((0, input_size(enc)))).astype(np.float16),
        "y": np.tile(np.asarray(game["margins"], dtype=np.float32), rows // n),
        "prior": np.zeros(rows, dtype=np.float32),
        "count": np.ones(rows, dtype=np.int64),
    }


def build_samples(
    games: list[dict[str, Any]],
    config: GameConfig,
    k: int,
    cache: Path | None = None,
    states: int | None = None,
) -> Samples:
    """Every labelled afterstate of ``games`` (cached per game under ``cache``); with
    ``states``, outcome games (:func:`encode_outcome_game`)."""
    parts: list[dict[str, np.ndarray]] = []
    game_ids: list[np.ndarray] = []
    tag = f"k{k}" if states is None else f"s{states}"
    for n, g in enumerate(games):
        path = None if cache is None else cache / f"game{g['index']}_{tag}.npz"
        if path is not None and path.exists():
            with np.load(path) as z:
                part = {key: z[key] for key in z.files}
        else:
            if states is None:
                part = encode_game(g, config, k)
            else:
                part = encode_outcome_game(g, config, states)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_suffix(".tmp.npz")
                np.savez(tmp, x=part["x"], y=part["y"], prior=part["prior"], count=part["count"])
                tmp.replace(path)
        parts.append(part)
        game_ids.append(np.full(len(part["count"]), g["index"], dtype=np.int64))
        if (n + 1) % 200 == 0 or (states is None and (n + 1) % 20 == 0):
            print(f"[dataset] {n + 1}/{len(games)} games encoded", flush=True)
    count = np.concatenate([p["count"] for p in parts])
    return Samples(
        x=np.concatenate([p["x"] for p in parts]),
        y=np.concatenate([p["y"] for p in parts]),
        prior=np.concatenate([p["prior"] for p in parts]),
        start=np.concatenate([[0], np.cumsum(count)[:-1]]).astype(np.int64),
        count=count,
        game=np.concatenate(game_ids),
    )
