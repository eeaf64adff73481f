"""Observation encoding (issue: RL interface): the cached, incremental encoder equals a plain
from-scratch reference computed here, for every seat, across games, seats and clones; the
observing seat's ranch comes first; hidden information (draw order, stack order) is absent."""

from __future__ import annotations

import random

import numpy as np
import pytest

from moonriver_env.moonriver.encoding import (
    BOARD_NAMES,
    RANCH_CHANNEL_NAMES,
    SCORE_PARTS,
    ObservationEncoder,
)
from moonriver_env.rules import RESOLVE_PHASES, SCENARIOS, GameConfig, GameState, Phase, new_game

CH = {name: i for i, name in enumerate(RANCH_CHANNEL_NAMES)}
CONFIGS = {
    "2p-base": GameConfig(2),
    "3p-base": GameConfig(3),
    "4p-base": GameConfig(4),
    "2p-legends": GameConfig(2, mode="legends", scenario="outlaws"),
    "3p-legends": GameConfig(3, mode="legends", boards="random"),
    "4p-legends": GameConfig(4, mode="legends", scenario="gold_rush"),
}


def flood(cells: set[int], start: int, cols: int = 5) -> set[int]:
    region, todo = {start}, [start]
    while todo:
        c = todo.pop()
        r, q = divmod(c, cols)
        for d in (c - cols, c + cols, c - 1 if q else -1, c + 1 if q < cols - 1 else -1):
            if d in cells and d not in region:
                region.add(d)
                todo.append(d)
    return region


def reference(state: GameState, seat: int) -> tuple[np.ndarray, np.ndarray]:
    """Plain loops over the per-cell lists; shares no code with the encoder."""
    cfg = state.config
    n, rows = cfg.num_players, cfg.rows
    cells = rows * 5
    comps = cfg.components
    kt = state.kind_table
    nk = len(comps.plots)
    planes = np.zeros((n, len(RANCH_CHANNEL_NAMES), cells), dtype=np.float32)
    for r in range(n):
        s = (seat + r) % n
        p = planes[r]
        land_of = {c: kt.land[k] for c, k in enumerate(state.kinds[s]) if k >= 0}
        for c in range(cells):
            k = state.kinds[s][c]
            if k < 0:
                p[CH["empty"], c] = 1
            else:
                p[kt.land[k], c] = 1
                p[CH["gold"], c] = kt.gold[k]
                p[CH["beaver"], c] = kt.beaver[k]
                p[CH["corn"], c] = kt.corn[k]
                p[CH["skull"], c] = kt.skull[k]
                p[CH["circle"], c] = kt.circle[k]
                p[CH["bonus_tile"], c] = k >= nk
            p[CH["cows"], c] = state.cows[s][c]
            code = state.partners[s][c]
            if code >= 0:
                p[CH["partner_desperado_specialist"] + code, c] = 1
                same = {d for d, land in land_of.items() if land == land_of[c]}
                for d in flood(same, c):
                    p[CH["protected"], d] = 1
            if c < 5:
                p[CH["river"], c] = 1
                if c in comps.boards[state.boards[s]].bridges:
                    p[CH["bridge"], c] = 1
    actor = state.current_seat
    if actor is not None and state.piece and state.phase not in (Phase.SELECT, Phase.SETUP_CLAIM):
        rel = (actor - seat) % n
        for c in state.piece:
            planes[rel, CH["piece"], c] = 1
        if state.phase == Phase.SKULL:
            land_of = {c: kt.land[k] for c, k in enumerate(state.kinds[actor]) if k >= 0}
            cell = state.skulls[0]
            same = {d for d, land in land_of.items() if land == land_of[cell]}
            for d in flood(same, cell):
                planes[rel, CH["skull_target"], d] = 1
    enc = ObservationEncoder(cfg)  # only for the slice layout
    fs = enc.feature_slices
    f = np.zeros(enc.num_features, dtype=np.float32)

    def put(name: str, i: int, v: float = 1.0) -> None:
        assert 0 <= i < fs[name].stop - fs[name].start
        f[fs[name].start + i] = v

    put("phase", int(state.phase))
    if actor is not None:
        put("actor", (actor - seat) % n)
        put("final_turn", 0, float(state.final_turn))
    put("round", 0, min(state.round / 24, 1.0))
    put("final_round", 0, float(state.final_round))
    put("dominoes_this_turn", 0, state.dominoes / 2)
    scores = state.scores()
    for r in range(n):
        s = (seat + r) % n
        for kind in state.held[s]:
            f[fs["held"].start + r * nk + kind] += 1
        put("held_count", r, len(state.held[s]))
        put("reserve_slots", r, comps.boards[state.boards[s]].slots / 4)
        put("board", r * len(BOARD_NAMES) + BOARD_NAMES.index(state.boards[s]))
        put("bonus_tile_taken", r, float(state.bonus_done[s]))
        b = scores[s]
        for j, part in enumerate(SCORE_PARTS):
            put("scores", r * len(SCORE_PARTS) + j, getattr(b, part) / 100)
    for which, col, claim in (
        ("current", state.cur_col, state.cur_claim),
        ("next", state.next_col, state.next_claim),
    ):
        for pos, kind in enumerate(col):
            put(f"{which}_column", pos * (nk + 1) + (kind if kind >= 0 else nk))
            if claim[pos] >= 0:
                put(f"{which}_claims", pos * n + (claim[pos] - seat) % n)
    for i, tok in enumerate(state.saloon):
        if tok >= 0:
            put("saloon", i * 5 + tok)
    put("stack_size", 0, len(state.stack) / comps.num_partners)
    put("cow_supply", 0, state.supply / comps.cows)
    for kind in range(nk):
        put("unseen_plots", kind, state.pile.count(kind))
    put("pending_skulls", 0, len(state.skulls))
    for c in state.circles:
        put("pending_circles", c)
    if state.phase == Phase.COWBOY:
        put("cowboy_moves_left", 0, state.cowboy_moves / 3)
    for t, avail in enumerate(state.tiles):
        put("bonus_tiles_available", t, float(avail))
    put("scenario", 0 if state.scenario is None else 1 + SCENARIOS.index(state.scenario))
    return planes.reshape(enc.plane_shape), f


@pytest.mark.parametrize("name", list(CONFIGS))
def test_encoder_matches_reference_across_games_seats_and_clones(name: str) -> None:
    cfg = CONFIGS[name]
    enc = ObservationEncoder(cfg)  # one encoder for everything: its caches must stay right
    rng = random.Random(hash(name) % 1000)
    games = [new_game(cfg, seed=s) for s in range(3)]
    checked = 0
    while any(not g.is_terminal for g in games):
        g = rng.choice([g for g in games if not g.is_terminal])
        legal = g.legal_action_list()
        g.apply(legal[rng.randrange(len(legal))])
        if rng.random() < 0.3:
            games.append(g.clone())  # same stamps, same content
        for seat in rng.sample(range(cfg.num_players), k=min(2, cfg.num_players)):
            planes, features = enc.encode(g, seat)
            ref_planes, ref_features = reference(g, seat)
            np.testing.assert_array_equal(planes, ref_planes, err_msg=f"planes seat {seat}")
            bad = np.flatnonzero(~np.isclose(features, ref_features))
            names = [
                k for k, sl in enc.feature_slices.items() for i in bad if sl.start <= i < sl.stop
            ]
            assert bad.size == 0, f"features differ at {bad.tolist()} ({names})"
            checked += 1
        if len(games) > 6:
            games = games[:3]
    assert checked > 300


def test_encoder_follows_positions_edited_in_place() -> None:
    """A hand-edited position (cells changed in place, then ``rebuild_masks``) is re-encoded
    in full, also when the edit adds plots and partners as play does: the incremental path
    must not take an in-place change of an old cell for a plain addition."""
    cfg = CONFIGS["2p-base"]
    enc = ObservationEncoder(cfg)
    g = new_game(cfg, seed=11)
    rng = random.Random(3)
    while len([k for k in g.kinds[0] if k >= 0]) < 6:
        legal = g.legal_action_list()
        g.apply(legal[rng.randrange(len(legal))])
    seat = 0
    enc.encode(g, seat)
    placed = [c for c, k in enumerate(g.kinds[seat]) if k >= 0]
    empty = [c for c, k in enumerate(g.kinds[seat]) if k < 0]
    edits = [
        ("kind changed", lambda: g.kinds[seat].__setitem__(placed[0], (g.kinds[seat][placed[0]] + 1) % 25)),
        ("kind changed + plot added", lambda: (
            g.kinds[seat].__setitem__(placed[1], (g.kinds[seat][placed[1]] + 3) % 25),
            g.kinds[seat].__setitem__(empty[0], 7),
        )),
        ("partner added + partner on an old cell", lambda: (
            g.partners[seat].__setitem__(placed[2], 4),
            g.partners[seat].__setitem__(empty[0], 5),
        )),
        ("cows changed", lambda: g.cows[seat].__setitem__(placed[3], 2)),
    ]  # fmt: skip
    for label, edit in edits:
        edit()
        g.rebuild_masks()
        planes, features = enc.encode(g, seat)
        ref_planes, ref_features = reference(g, seat)
        np.testing.assert_array_equal(planes, ref_planes, err_msg=label)
        np.testing.assert_allclose(features, ref_features, err_msg=label)


def test_own_ranch_first_and_opponents_in_seat_order() -> None:
    cfg = CONFIGS["4p-base"]
    state = new_game(cfg, seed=5)
    rng = random.Random(5)
    for _ in range(150):
        legal = state.legal_action_list()
        state.apply(legal[rng.randrange(len(legal))])
    enc = ObservationEncoder(cfg)
    ch = len(RANCH_CHANNEL_NAMES)
    empties = [[int(sum(k < 0 for k in state.kinds[s])) for s in range(4)]][0]
    assert len(set(empties)) > 1, "pick a position where ranches differ"
    for seat in range(4):
        planes, _ = enc.encode(state, seat)
        for r in range(4):
            shown = int(planes[r * ch + CH["empty"]].sum())
            assert shown == empties[(seat + r) % 4]


def test_hidden_information_is_absent() -> None:
    """Two states that differ only in draw order and stack order observe identically."""
    for cfg in (CONFIGS["2p-base"], CONFIGS["4p-legends"]):
        state = new_game(cfg, seed=11)
        rng = random.Random(1)
        for _ in range(40):
            legal = state.legal_action_list()
            state.apply(legal[rng.randrange(len(legal))])
        other = state.clone()
        other.redetermine(np.random.default_rng(99))
        assert other.pile != state.pile and other.stack != state.stack
        enc_a, enc_b = ObservationEncoder(cfg), ObservationEncoder(cfg)
        for seat in range(cfg.num_players):
            a_planes, a_features = enc_a.encode(state, seat)
            b_planes, b_features = enc_b.encode(other, seat)
            np.testing.assert_array_equal(a_planes, b_planes)
            np.testing.assert_array_equal(a_features, b_features)


def test_observation_within_declared_bounds() -> None:
    for cfg in CONFIGS.values():
        enc = ObservationEncoder(cfg)
        state = new_game(cfg, seed=3)
        rng = random.Random(3)
        while not state.is_terminal:
            seat = state.current_seat
            assert seat is not None
            planes, features = enc.encode(state, seat)
            assert (planes >= 0).all() and (planes <= enc.plane_high).all()
            assert (features >= 0).all() and (features <= enc.feature_high).all()
            legal = state.legal_action_list()
            state.apply(legal[rng.randrange(len(legal))])


def test_split_flat_round_trip() -> None:
    cfg = CONFIGS["3p-base"]
    enc = ObservationEncoder(cfg)
    state = new_game(cfg, seed=2)
    planes, features = enc.encode(state, 1)
    flat = enc.encode_flat(state, 1)
    p2, f2 = enc.split_flat(flat)
    np.testing.assert_array_equal(p2, planes)
    np.testing.assert_array_equal(f2, features)
    batch = np.stack([flat, flat])
    bp, bf = enc.split_flat(batch)
    assert bp.shape == (2, *enc.plane_shape) and bf.shape == (2, enc.num_features)


@pytest.mark.parametrize("name", ["2p-base", "4p-legends"])
def test_piece_channel_marks_only_a_piece_in_play(name: str) -> None:
    """``state.piece`` (and the piece plane) is set exactly while a piece's symbols act."""
    cfg = CONFIGS[name]
    enc = ObservationEncoder(cfg)
    for seed in range(4):
        state = new_game(cfg, seed=seed)
        rng = random.Random(seed)
        while not state.is_terminal:
            assert bool(state.piece) == (state.phase in RESOLVE_PHASES), state.phase
            planes, _ = enc.encode(state, 0)
            marked = planes.reshape(cfg.num_players, len(RANCH_CHANNEL_NAMES), -1)[:, CH["piece"]]
            assert int(marked.sum()) == len(state.piece)
            legal = state.legal_action_list()
            state.apply(legal[rng.randrange(len(legal))])
