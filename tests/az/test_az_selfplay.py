"""Self-play in the core (azselfplay.c, ``_native.az_selfplay``; training/az/selfplay.py):
arrays that fit together, games that replay on the Python engine (each row the observer's view
as the Python encoder writes it, the policy target only on the actor's rows, the afterstates of
every legal move, outcomes from the engine's scores and winners), the same bytes for the same
seed, the kept share drawn in the core, TD(lambda) targets per observer, and threads that do
not change the result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from az_models import (
    FAST,
    SPECS,
    dense,
    encoder,
    final_points,
    native_state,
    outcome_of,
    random_net,
)

from agents.az import SearchSettings
from agents.az.network import NetShape
from moonriver_env.family.native import native
from moonriver_env.games import GameSpec
from training.az.replay import read_shard, shard_path, write_shard
from training.az.selfplay import (
    JobWorker,
    PlaySettings,
    Positions,
    native_template,
    play_games,
    play_threads,
    run_job,
)

SETTINGS = CHEAP = replace(FAST, max_depth=6, rollout_temp=0.0).as_tuple()
"""The search most tests play with (an afterstate search costs an evaluation per legal move at
every decision of its rollouts: short rollouts keep it cheap)."""
RAW = SearchSettings(k=0).as_tuple()
"""No search: each move the best afterstate value (explore 0)."""


@pytest.fixture(scope="module")
def torch_nets() -> dict[str, Any]:
    return {key: random_net(spec, seed=4) for key, spec in SPECS.items()}


@pytest.fixture(scope="module")
def nets(torch_nets: dict[str, Any]) -> dict[str, Any]:
    return {key: net.native() for key, net in torch_nets.items()}


def arrays(out: dict[str, Any]) -> dict[str, np.ndarray]:
    types = {"game": np.int32, "seat": np.int8, "obs_off": np.int64, "obs_idx": np.int16,
             "obs_val": np.float32, "legal_off": np.int64, "legal_id": np.int16,
             "pi": np.float32, "q": np.float32, "z": np.float32, "target": np.float32,
             "chosen": np.int16, "aft_off": np.int64, "aft_obs_off": np.int64, "aft_idx": np.int16,
             "aft_val": np.float32, "outcomes": np.float32, "lengths": np.int32}  # fmt: skip
    return {k: np.frombuffer(out[k], t) for k, t in types.items()}


def selfplay(key: str, net: Any, games: int = 2, seed: int = 10, teacher: bool = False,
             explore: int = 4, lam: float = 0.5, keep: float = 1.0, afterstates: float = 0.0,
             settings: tuple = SETTINGS, teacher_temp: float = 0.0) -> dict[str, Any]:  # fmt: skip
    spec = SPECS[key]
    weights = spec.entry.hook("az_teacher")()[1] if teacher else None
    return native.az_selfplay(
        native_template(spec), None if teacher else net, games, seed, settings, teacher,
        explore, lam, keep, afterstates, weights, False, teacher_temp,
    )  # fmt: skip


def check_consistent(spec: GameSpec, out: dict[str, Any], games: int) -> dict[str, np.ndarray]:
    """Everything az_selfplay returns fits together and fits the game."""
    a = arrays(out)
    n, P = spec.num_players, out["positions"]
    assert 5 * games < P
    assert a["game"].shape == a["seat"].shape == a["q"].shape == a["z"].shape == (P,)
    assert a["obs_off"].shape == a["legal_off"].shape == a["aft_off"].shape == (P + 1,)
    assert a["obs_off"][0] == 0 and a["legal_off"][0] == 0 and a["aft_off"][0] == 0
    assert np.all(np.diff(a["obs_off"]) > 0)  # every observation has non-zero entries
    assert np.all(np.diff(a["legal_off"]) >= 2)  # only decisions with a choice are kept
    assert a["obs_off"][-1] == a["obs_idx"].size == a["obs_val"].size
    assert a["legal_off"][-1] == a["legal_id"].size == a["pi"].size
    assert np.all(np.diff(a["game"]) >= 0) and set(a["game"]) <= set(range(games))
    assert a["seat"].min() >= 0 and a["seat"].max() < n
    assert a["obs_idx"].min() >= 0 and a["obs_idx"].max() < spec.observation_size
    assert np.all(a["obs_val"] != 0.0)
    assert a["legal_id"].min() >= 0 and a["legal_id"].max() < spec.num_actions
    # afterstates: none, or one row per legal action, and only on rows with a policy target
    aft = np.diff(a["aft_off"])
    legal = np.diff(a["legal_off"])
    assert np.all((aft == 0) | (aft == legal))
    rows = a["aft_off"][-1]
    assert a["aft_obs_off"].shape == ((rows + 1,) if rows else (0,))
    if rows:
        assert a["aft_obs_off"][0] == 0 and np.all(np.diff(a["aft_obs_off"]) > 0)
        assert a["aft_obs_off"][-1] == a["aft_idx"].size == a["aft_val"].size
        assert a["aft_idx"].min() >= 0 and a["aft_idx"].max() < spec.observation_size
    for p in range(P):
        lo, hi = a["legal_off"][p], a["legal_off"][p + 1]
        pi = a["pi"][lo:hi]
        if np.isnan(pi[0]):  # seen from another seat than the actor's: no policy target
            assert np.all(np.isnan(pi)) and aft[p] == 0, p
        else:
            assert pi.min() >= 0.0 and pi.sum() == pytest.approx(1.0, abs=1e-5), p
        assert len(set(a["legal_id"][lo:hi].tolist())) == hi - lo
        o0, o1 = a["obs_off"][p], a["obs_off"][p + 1]
        assert np.all(np.diff(a["obs_idx"][o0:o1]) > 0)
    outcomes = a["outcomes"].reshape(games, n)
    assert np.all(np.abs(outcomes) <= 1.0) and np.all(outcomes.max(axis=1) > -0.5)
    if n == 2:  # the win halves cancel, and so do tanh(margin) and tanh(-margin)
        assert np.allclose(outcomes.sum(axis=1), 0.0, atol=1e-6)
    assert np.array_equal(a["z"], outcomes[a["game"], a["seat"]])
    assert np.all(a["lengths"] >= np.bincount(a["game"], minlength=games))
    return a


def replay(
    spec: GameSpec,
    a: dict[str, np.ndarray],
    games: int,
    seed: int,
    move_of: Callable[[int, Any, list[int], int], int],
) -> tuple[np.ndarray, list[list[tuple[int, int]]]]:
    """Replays every game (game ``g`` from ``seed + g``) on a native state, the moves from
    ``move_of(row, state, legal, actor)``, checking each row against the Python engine: the
    game, the legal actions, the observer's observation, a policy target exactly when the
    observer acts, the afterstates of every legal move (equal to the engine's where the move
    turns up nothing hidden), and the outcomes from the engine's winners and points. Every
    decision with a choice must have a row (keep = 1). Returns each row's actor and each
    game's decisions as (actor, row or -1)."""
    n = spec.num_players
    P = a["seat"].size
    outcomes = a["outcomes"].reshape(games, n)
    actors = np.full(P, -1)
    played: list[list[tuple[int, int]]] = []
    p = checked = 0
    size = spec.observation_size
    for g in range(games):
        enc = encoder(spec)
        ns = native_state(spec, seed + g)
        dec: list[tuple[int, int]] = []
        while not ns.is_terminal:
            legal = ns.legal_action_list()
            actor = ns.current_seat
            if len(legal) == 1:
                dec.append((actor, -1))
                ns.apply(legal[0])
                continue
            lo, hi = a["legal_off"][p], a["legal_off"][p + 1]
            assert a["game"][p] == g and a["legal_id"][lo:hi].tolist() == legal, (g, p)
            seat = int(a["seat"][p])
            state = ns.to_state()
            obs = dense(a["obs_idx"], a["obs_val"], a["obs_off"], p, size)
            assert np.array_equal(obs, enc(state, seat)), (g, p)
            assert np.isnan(a["pi"][lo]) == (seat != actor), (g, p)
            a0, a1 = a["aft_off"][p], a["aft_off"][p + 1]
            if a1 > a0:
                assert seat == actor and a1 - a0 == len(legal)
                first = dense(a["aft_idx"], a["aft_val"], a["aft_obs_off"], a0, size)
                assert not np.array_equal(first, obs)  # the move changed what the seat sees
                for i, move in enumerate(legal):
                    after = state.clone()
                    after.apply(move)
                    if len(after.pile) != len(state.pile):
                        continue  # turned up pieces of the determinization
                    got = dense(a["aft_idx"], a["aft_val"], a["aft_obs_off"], a0 + i, size)
                    assert np.array_equal(got, enc(after, seat)), (g, p, move)
                    checked += 1
            actors[p] = actor
            dec.append((actor, p))
            ns.apply(move_of(p, ns, legal, actor))
            p += 1
        final = ns.to_state()
        want = outcome_of(final.winners(), final_points(final))
        assert np.allclose(outcomes[g], want, atol=1e-6), (g, outcomes[g], want)
        assert a["lengths"][g] == len(dec)
        played.append(dec)
    assert p == P
    if a["aft_off"][-1]:
        assert checked > 0
    return actors, played


def td_targets(a: dict[str, np.ndarray], played: list[list[tuple[int, int]]], n: int,
               lam: float) -> np.ndarray:  # fmt: skip
    """Each row's TD(lambda) target: for its observer s, backwards from s's outcome over all
    of s's own decisions with a search value, G <- (1 - lam) q + lam G, read at the row."""
    want = np.full(a["seat"].size, np.nan, np.float32)
    lam32 = np.float32(lam)
    outcomes = a["outcomes"].reshape(len(played), n)
    for g, dec in enumerate(played):
        for s in range(n):
            nxt = outcomes[g, s]
            for actor, row in reversed(dec):
                if actor == s and row >= 0 and not np.isnan(a["q"][row]):
                    nxt = (np.float32(1.0) - lam32) * a["q"][row] + lam32 * nxt
                if row >= 0 and a["seat"][row] == s:
                    want[row] = nxt
    return want


@pytest.mark.parametrize("key", SPECS)
def test_selfplay_arrays_are_consistent(key: str, nets: dict[str, Any]) -> None:
    out = selfplay(key, nets[key], games=2, afterstates=0.5, settings=FAST.as_tuple())
    a = check_consistent(SPECS[key], out, 2)
    assert out["evals"] > out["positions"] * (1 + FAST.k)  # the root and a rollout per candidate
    assert np.all(np.abs(a["q"]) <= 1.0) and np.all(np.abs(a["target"]) <= 1.0)
    # the improved policy is the search's: at most k actions, fewer where the prior decides
    has_pi = ~np.isnan(a["pi"][a["legal_off"][:-1]])
    for p in np.flatnonzero(has_pi):
        lo, hi = a["legal_off"][p], a["legal_off"][p + 1]
        assert np.count_nonzero(a["pi"][lo:hi]) <= FAST.k
    # about half the rows are seen by their actor; about half of those keep afterstates
    assert 0.3 < has_pi.mean() < 0.7
    with_aft = np.diff(a["aft_off"]) > 0
    assert not np.any(with_aft & ~has_pi) and 0.25 < with_aft.sum() / has_pi.sum() < 0.75


@pytest.mark.parametrize("key", SPECS)
def test_raw_policy_games_replay_on_the_engine(key: str, nets: dict[str, Any]) -> None:
    """Self-play without search (each move the best afterstate value, explore 0) replayed in
    Python: each move is the one that leads to the next row (its observer's observation and
    legal actions) or, at a game's last row, to the game's outcomes; every row checks out
    (:func:`replay`), the observer is the actor half the time and every other seat otherwise,
    on the actor's rows pi is the prior with the move its argmax, q (the chosen afterstate's
    value, whoever observes) is a value, and the targets are TD(lambda) over each observer's
    own decisions."""
    spec, net = SPECS[key], nets[key]
    games, seed, lam = 2, 30, 0.6
    out = selfplay(key, net, games, seed, explore=0, lam=lam, afterstates=1.0, settings=RAW)
    a = check_consistent(spec, out, games)
    enc, size, n = encoder(spec), spec.observation_size, spec.num_players
    outcomes = a["outcomes"].reshape(games, n)

    def leads_to(p: int, after: Any) -> bool:
        """Whether the state ``after`` (the move of row ``p`` played) is row ``p + 1``'s
        decision, or the end of row ``p``'s game with its outcomes."""
        while not after.is_terminal and len(after.legal_action_list()) == 1:
            after.apply(after.legal_action_list()[0])
        g = int(a["game"][p])
        if p + 1 == a["seat"].size or a["game"][p + 1] != g:
            if not after.is_terminal:
                return False
            final = after.to_state()
            return bool(np.allclose(outcomes[g], outcome_of(final.winners(), final_points(final))))
        lo, hi = a["legal_off"][p + 1], a["legal_off"][p + 2]
        if after.is_terminal or after.legal_action_list() != a["legal_id"][lo:hi].tolist():
            return False
        seen = dense(a["obs_idx"], a["obs_val"], a["obs_off"], p + 1, size)
        return bool(np.array_equal(enc(after.to_state(), int(a["seat"][p + 1])), seen))

    def move_of(p: int, ns: Any, legal: list[int], actor: int) -> int:
        moves = []
        for move in legal:
            after = ns.clone()
            after.apply(move)
            if leads_to(p, after):
                moves.append(move)
        assert moves, p
        lo, hi = a["legal_off"][p], a["legal_off"][p + 1]
        assert -1.0 <= a["q"][p] <= 1.0  # the move's afterstate value, whoever observes
        if a["seat"][p] == actor:  # the prior's argmax is the move played, and recorded
            assert legal[int(np.argmax(a["pi"][lo:hi]))] in moves, p
            assert 0 <= a["chosen"][p] < hi - lo and legal[int(a["chosen"][p])] in moves, p
        else:
            assert a["chosen"][p] == -1, p
        return moves[0]

    actors, played = replay(spec, a, games, seed, move_of)
    n = spec.num_players
    offset = (a["seat"].astype(int) - actors) % n
    counts = np.bincount(offset, minlength=n)
    assert 0.3 < counts[0] / offset.size < 0.7 and np.all(counts[1:] > 0), counts
    aft = np.diff(a["aft_off"]) > 0
    assert np.array_equal(aft, offset == 0)  # afterstates = 1: every actor row, no other
    assert np.allclose(a["target"], td_targets(a, played, n, lam), atol=1e-6)
    # the root and an afterstate per legal move (less those that end the game) a decision with
    # a choice (keep = 1: each is a row); a forced move is not searched
    legal = np.diff(a["legal_off"])
    assert out["positions"] < out["evals"] <= legal.sum() + out["positions"]


@pytest.mark.parametrize("key", SPECS)
def test_afterstate_moves_value_the_chosen_afterstate(key: str, nets: dict[str, Any]) -> None:
    """Without search in afterstate mode (explore 0) the move is the best afterstate: q, the
    value of the move played, is the largest of the actor's afterstate values (the kept
    afterstate rows, where no hidden piece is turned up), and each decision with a choice
    costs one evaluation per legal move and the root."""
    spec, net = SPECS[key], nets[key]
    settings = SearchSettings(k=0).as_tuple()
    out = selfplay(key, net, 2, 40, explore=0, afterstates=1.0, settings=settings)
    a = check_consistent(spec, out, 2)
    rows = np.flatnonzero(np.diff(a["aft_off"]))
    assert rows.size > 10
    rows = rows[:: max(1, rows.size // 25)]  # about 25 of them (each move a network call here)
    size = spec.observation_size
    hits = 0
    for p in rows:
        a0, a1 = a["aft_off"][p], a["aft_off"][p + 1]
        values = [
            net.evaluate(dense(a["aft_idx"], a["aft_val"], a["aft_obs_off"], i, size))
            for i in range(a0, a1)
        ]  # fmt: skip
        hits += abs(a["q"][p] - max(values)) < 1e-5
    assert hits >= 0.8 * rows.size  # the others: a reveal dealt differently, or a game's end
    legal = np.diff(a["legal_off"])
    # every decision with a choice (keep = 1: each is a row) costs its root and one evaluation
    # per legal move, less the afterstates that end the game (their outcome is exact: they lie
    # among a game's last 10 decisions); a forced move costs nothing
    ends = np.flatnonzero(np.diff(np.append(a["game"], -1)))  # each game's last row
    final = np.concatenate([np.arange(max(0, e - 9), e + 1) for e in ends])
    full = legal.sum() + len(legal)
    assert full - legal[final].sum() <= out["evals"] <= full


@pytest.mark.parametrize("key", SPECS)
def test_sampled_moves_are_recorded(key: str, nets: dict[str, Any]) -> None:
    """Every move drawn from the prior (the reference PPO's core rollouts): an actor's row
    records the move played as its index in the legal actions (``chosen``), whose kept
    afterstate has the value ``q`` the move was played with (where no hidden piece is turned
    up); a row seen from another seat records -1; the moves are not all the prior's argmax."""
    spec, net = SPECS[key], nets[key]
    settings = SearchSettings(k=0).as_tuple()
    out = selfplay(key, net, 2, 41, explore=1 << 30, afterstates=1.0, settings=settings)
    a = check_consistent(spec, out, 2)
    actor = ~np.isnan(a["pi"][a["legal_off"][:-1]])
    legal = np.diff(a["legal_off"])
    assert np.all(a["chosen"][~actor] == -1)
    assert np.all((a["chosen"][actor] >= 0) & (a["chosen"][actor] < legal[actor]))
    rows = np.flatnonzero(actor)
    best = np.array([np.argmax(a["pi"][a["legal_off"][p] : a["legal_off"][p + 1]]) for p in rows])
    assert np.any(a["chosen"][rows] != best)  # drawn, not the argmax
    size, hits = spec.observation_size, 0
    sample = rows[:: max(1, rows.size // 25)]
    for p in sample:
        i = int(a["aft_off"][p]) + int(a["chosen"][p])
        value = net.evaluate(dense(a["aft_idx"], a["aft_val"], a["aft_obs_off"], i, size))
        hits += abs(a["q"][p] - value) < 1e-5
    assert hits >= 0.8 * sample.size


def test_a_shard_from_before_the_move_was_recorded_reads_as_none(nets: dict[str, Any]) -> None:
    """Positions saved without ``chosen`` (an older replay shard) read back with -1 at every
    row; a ``chosen`` out of its row's legal actions is refused."""
    pos = play_games(native_template(SPECS["mr2"]), nets["mr2"], 1, 5,
                     PlaySettings(SETTINGS, explore=4, lam=0.5))  # fmt: skip
    old = {k: v for k, v in pos.arrays().items() if k != "chosen"}
    back = Positions.from_arrays(old)
    assert back.chosen.shape == pos.seat.shape and np.all(back.chosen == -1)
    assert np.array_equal(back.obs_idx, pos.obs_idx)
    bad = pos.arrays()
    bad["chosen"] = np.diff(pos.legal_ptr).astype(np.int16)  # one past each row's last
    with pytest.raises(ValueError, match="inconsistent"):
        Positions.from_arrays(bad)


@pytest.mark.parametrize("key", SPECS)
def test_same_seed_same_bytes(key: str, nets: dict[str, Any]) -> None:
    one = selfplay(key, nets[key], seed=3, keep=0.7, afterstates=0.5)
    assert one == selfplay(key, nets[key], seed=3, keep=0.7, afterstates=0.5)
    other = selfplay(key, nets[key], seed=4, keep=0.7, afterstates=0.5)
    assert other["obs_idx"] != one["obs_idx"]


@pytest.mark.parametrize("key", SPECS)
def test_teacher_games_replay_on_the_rules(key: str) -> None:
    """A teacher game (Moon River: the heuristic's weights; Kingdomino: greedy) replayed from
    its seed on a native state (:func:`replay`): a one-hot target on the teacher's move on the
    actor's rows (the other rows have none: their move is the one that leads to the next
    row); the value targets are the outcome (no search values)."""
    spec = SPECS[key]
    games, seed = 2, 20
    out = selfplay(key, None, games=games, seed=seed, teacher=True, lam=0.3, afterstates=0.2)
    a = check_consistent(spec, out, games)
    assert np.all(np.isnan(a["q"])) and np.array_equal(a["target"], a["z"])
    assert out["evals"] == 0  # no network
    enc = encoder(spec)
    P = a["seat"].size
    outcomes = a["outcomes"].reshape(games, spec.num_players)
    size = spec.observation_size

    def view(ns: Any, seat: int) -> np.ndarray:
        """The seat's observation (Moon River's native state encodes in C, the same)."""
        return ns.observation(seat) if hasattr(ns, "observation") else enc(ns.to_state(), seat)

    def move_of(p: int, ns: Any, legal: list[int], actor: int) -> int:
        pi = a["pi"][a["legal_off"][p] : a["legal_off"][p + 1]]
        if a["seat"][p] == actor:
            assert sorted(pi.tolist()) == [0.0] * (len(legal) - 1) + [1.0]
            return legal[int(np.argmax(pi))]
        found = []
        for move in legal:  # the move after which the game reaches row p + 1 (or its end)
            c = ns.clone()
            c.apply(move)
            while not c.is_terminal and len(c.legal_action_list()) == 1:
                c.apply(c.legal_action_list()[0])
            if p + 1 < P and a["game"][p + 1] == a["game"][p]:
                want = dense(a["obs_idx"], a["obs_val"], a["obs_off"], p + 1, size)
                if not c.is_terminal and np.array_equal(view(c, int(a["seat"][p + 1])), want):
                    found.append(move)
            elif c.is_terminal:  # the game's last choice: the move that ends it as it ended
                end = c.to_state()
                got = outcome_of(end.winners(), final_points(end))
                if np.allclose(got, outcomes[a["game"][p]], atol=1e-6):
                    found.append(move)
        assert found, p
        return found[0]

    replay(spec, a, games, seed, move_of)


@pytest.mark.parametrize("key", SPECS)
def test_the_teachers_soft_target_is_the_softmax_of_its_values(key: str) -> None:
    """teacher_temp > 0 changes the actor rows' target only: the same games as with the
    one-hot target (same rows, same observations), each target positive, summing to 1, its
    largest entry on the teacher's move; Kingdomino's greedy values are whole points, so
    temp x log(pi_i / pi_max) is a whole number; Moon River's heuristic values spread."""
    temp = 2.0
    hard = arrays(selfplay(key, None, games=2, seed=31, teacher=True))
    soft = arrays(selfplay(key, None, games=2, seed=31, teacher=True, teacher_temp=temp))
    for name in ("game", "seat", "obs_off", "obs_idx", "obs_val", "legal_off", "legal_id", "z"):
        assert np.array_equal(hard[name], soft[name]), name
    off, spread = hard["legal_off"], 0
    actor_rows = np.flatnonzero(~np.isnan(hard["pi"][off[:-1]]))
    assert actor_rows.size > 10
    for p in actor_rows:
        h, s = hard["pi"][off[p] : off[p + 1]], soft["pi"][off[p] : off[p + 1]]
        assert np.all(s > 0) and abs(float(s.sum()) - 1.0) < 1e-5
        assert s[np.argmax(h)] >= s.max() - 1e-6  # the teacher played a best-valued move
        gaps = temp * np.log(s / s.max())
        if key == "kd4":
            assert np.allclose(gaps, np.round(gaps), atol=1e-3), gaps
        spread += int(np.any(gaps < -0.5))
    assert spread > actor_rows.size // 4  # not a one-hot in disguise
    others = np.setdiff1d(np.arange(off.size - 1), actor_rows)
    assert np.all(np.isnan(soft["pi"][off[others]]))


@pytest.mark.parametrize("key", SPECS)
def test_td_lambda_targets(key: str, nets: dict[str, Any]) -> None:
    """lambda = 1: the target is the outcome; lambda = 0: on the actor's rows the search's
    value of the move played; lambda changes the targets, not the games."""
    one = arrays(selfplay(key, nets[key], lam=1.0))
    assert np.array_equal(one["target"], one["z"])
    zero = arrays(selfplay(key, nets[key], lam=0.0))
    actor = ~np.isnan(zero["pi"][zero["legal_off"][:-1]])
    assert np.array_equal(zero["target"][actor], zero["q"][actor])
    assert not np.array_equal(zero["q"], zero["z"])
    mid = arrays(selfplay(key, nets[key], lam=0.7))
    for k in ("q", "z", "seat", "obs_idx", "pi"):
        assert np.array_equal(mid[k], zero[k], equal_nan=k == "pi"), k
    assert not np.array_equal(mid["target"], zero["target"])


def test_keep_is_drawn_in_the_core(nets: dict[str, Any]) -> None:
    """``keep`` records about that share of the decisions with a choice."""
    for keep in (0.3, 0.8):
        out = arrays(selfplay("mr2", nets["mr2"], games=3, seed=5, keep=keep, settings=CHEAP))
        assert out["lengths"].sum() > 200
        # forced decisions (one legal action) are never kept: the share of all is below keep
        assert 0.5 * keep < out["seat"].size / out["lengths"].sum() < keep + 0.05


def test_threads_do_not_change_the_games(nets: dict[str, Any]) -> None:
    """play_threads returns the games in seed order whatever the threads' timing: one thread
    or two, the same arrays, those of one core call per run of consecutive seeds in a chunk
    (a call's games share its random stream, so the chunks are part of the recipe); the kept
    share is drawn by the seed (the same positions every time)."""
    template = native_template(SPECS["mr2"])
    settings = PlaySettings(SETTINGS, explore=4, lam=0.5, afterstates=0.5)
    seeds = [5, 6, 7, 9, 10]  # chunks of 2: [5, 6], [7, 9], [10]; calls: 5-6, 7, 9, 10
    one = play_threads(template, nets["mr2"], seeds, settings, threads=1, chunk=2)
    two = play_threads(template, nets["mr2"], seeds, settings, threads=2, chunk=2)
    calls = [(2, 5), (1, 7), (1, 9), (1, 10)]
    direct = Positions.concatenate(
        [play_games(template, nets["mr2"], n, s, settings) for n, s in calls]
    )
    for x in (two, direct):
        for k, v in one.arrays().items():
            assert np.array_equal(v, x.arrays()[k], equal_nan=True), k
    assert one.games == 5 and one.decisions >= len(one) and one.aft_ptr[-1] > 0
    one.check()
    half = PlaySettings(SETTINGS, explore=4, lam=0.5, keep=0.5)
    kept = play_games(template, nets["mr2"], 3, 5, half)
    again = play_games(template, nets["mr2"], 3, 5, half)
    full = play_games(template, nets["mr2"], 3, 5, PlaySettings(SETTINGS, explore=4, lam=0.5))
    assert np.array_equal(kept.seat, again.seat) and 0.3 < len(kept) / len(full) < 0.7
    kept.check()
    assert kept.games == full.games == 3 and kept.aft_ptr[-1] == 0
    back = Positions.from_arrays(kept.arrays())
    assert np.array_equal(back.obs_idx, kept.obs_idx) and back.games == 3


def test_take_and_concatenate_keep_the_afterstates(nets: dict[str, Any]) -> None:
    """``Positions.take`` gathers each row's afterstate rows with it and ``concatenate``
    shifts their offsets: a row taken out has the afterstates it had in the whole."""
    template = native_template(SPECS["kd4"])
    settings = PlaySettings(SETTINGS, explore=2, lam=0.5, afterstates=1.0)
    pos = Positions.concatenate([play_games(template, nets["kd4"], 1, s, settings) for s in (3, 4)])
    pos.check()
    rows = np.array([len(pos) - 1, 0, 3, 3, 1])
    part = pos.take(rows)
    part.check()
    size = SPECS["kd4"].observation_size
    for j, r in enumerate(rows):
        assert part.aft_ptr[j + 1] - part.aft_ptr[j] == pos.aft_ptr[r + 1] - pos.aft_ptr[r]
        for i in range(int(part.aft_ptr[j + 1] - part.aft_ptr[j])):
            got = dense(part.aft_idx, part.aft_val, part.aft_obs_ptr, part.aft_ptr[j] + i, size)
            want = dense(pos.aft_idx, pos.aft_val, pos.aft_obs_ptr, pos.aft_ptr[r] + i, size)
            assert np.array_equal(got, want)
    assert np.diff(part.aft_ptr).sum() > 0


def test_job_workers_play_what_the_threads_play(
    torch_nets: dict[str, Any], nets: dict[str, Any]
) -> None:
    """``--backend ray``'s jobs (:class:`JobWorker`, :func:`run_job`: the weights as bytes,
    the net built in the worker) give the positions play_games gives."""
    spec = SPECS["mr2"]
    settings = PlaySettings(SETTINGS, explore=3, lam=0.5, keep=0.5, afterstates=0.5)
    worker = JobWorker(spec.text, torch_nets["mr2"].shape.to_dict())
    job = {"seeds": [7, 8, 10], "settings": settings, "teacher": False, "teacher_weights": None,
           "weights": torch_nets["mr2"].flat_weights().tobytes(), "features": False}  # fmt: skip
    got = run_job(worker, job)
    template = native_template(spec)
    want = Positions.concatenate(
        [play_games(template, nets["mr2"], n, s, settings) for n, s in ((2, 7), (1, 10))]
    )
    for k, v in want.arrays().items():
        assert np.array_equal(v, got.arrays()[k], equal_nan=True), k


def test_bad_selfplay_arguments_are_refused(nets: dict[str, Any]) -> None:
    mr, kd = native_template(SPECS["mr2"]), native_template(SPECS["kd4"])
    net = nets["mr2"]
    message = "az_selfplay: games 1..1000000, explore >= 0, lambda 0..1, keep \\(0, 1\\]"
    nan = float("nan")
    for games, explore, lam, keep, aft in (
        (0, 0, 0.5, 1.0, 0.0), (10**7, 0, 0.5, 1.0, 0.0), (1, -1, 0.5, 1.0, 0.0),
        (1, 0, 1.5, 1.0, 0.0), (1, 0, nan, 1.0, 0.0), (1, 0, 0.5, 0.0, 0.0),
        (1, 0, 0.5, 1.5, 0.0), (1, 0, 0.5, nan, 0.0), (1, 0, 0.5, 1.0, -0.1),
        (1, 0, 0.5, 1.0, 1.1), (1, 0, 0.5, 1.0, nan),
    ):  # fmt: skip
        with pytest.raises(ValueError, match=message):
            native.az_selfplay(mr, net, games, 0, SETTINGS, False, explore, lam, keep, aft, None)
    with pytest.raises(ValueError, match="Moon River's teacher needs weights"):
        native.az_selfplay(mr, None, 1, 0, SETTINGS, True, 0, 0.5, 1.0, 0.0, None)
    with pytest.raises(TypeError, match="net: expected a Net"):
        native.az_selfplay(mr, None, 1, 0, SETTINGS, False, 0, 0.5, 1.0, 0.0, None)
    with pytest.raises(TypeError, match="state: expected a State or KdState"):
        native.az_selfplay("state", net, 1, 0, SETTINGS, False, 0, 0.5, 1.0, 0.0, None)
    with pytest.raises(ValueError, match="settings: k 0..32"):
        native.az_selfplay(
            kd,
            nets["kd4"],
            1,
            0,
            (40, 1, 1, 1, 1, 1.0, 0.1, -1.0),
            False,
            0,
            0.5,
            1.0,
            0.0,
            None,
        )
    with pytest.raises(ValueError, match="settings: k 0..32"):
        native.az_selfplay(
            kd, nets["kd4"], 1, 0, (3, 1, 1, 1, 1, 1.0, 0.0, -1.0), False, 0, 0.5, 1.0, 0.0, None
        )
    with pytest.raises(TypeError, match="settings: expected a tuple"):
        native.az_selfplay(kd, nets["kd4"], 1, 0, SETTINGS[:6], False, 0, 0.5, 1.0, 0.0, None)
    with pytest.raises(TypeError):  # the search_share after teacher_temp, removed
        native.az_selfplay(kd, nets["kd4"], 1, 0, SETTINGS, False, 0, 0.5, 1.0, 0.0, None, False,
                           0.0, 0.5)  # fmt: skip
    with pytest.raises(ValueError):  # 11 weights
        native.az_selfplay(mr, None, 1, 0, SETTINGS, True, 0, 0.5, 1.0, 0.0, [1.0, 2.0])
    for temp in (-0.5, float("nan"), 1001.0):
        with pytest.raises(ValueError, match="teacher_temp 0..1000"):
            native.az_selfplay(mr, None, 1, 0, SETTINGS, True, 0, 0.5, 1.0, 0.0,
                               SPECS["mr2"].entry.hook("az_teacher")()[1], False, temp)  # fmt: skip
    with pytest.raises(TypeError):  # the old signature, without keep and afterstates
        native.az_selfplay(mr, net, 1, 0, SETTINGS, False, 0, 0.5, None)


def test_a_shard_round_trips_and_a_damaged_one_is_named(
    tmp_path: Path, nets: dict[str, Any]
) -> None:
    """write_shard then read_shard gives the positions back (what --resume reloads; a
    precedence slip once made every shard read as missing all its arrays), afterstates
    included; a shard missing arrays or with arrays that do not fit is refused naming the file
    and what is wrong."""
    settings = PlaySettings(SETTINGS, explore=4, lam=0.5, afterstates=0.5)
    pos = play_games(native_template(SPECS["kd4"]), nets["kd4"], 2, 3, settings)
    assert pos.aft_ptr[-1] > 0
    back = read_shard(write_shard(tmp_path, 1, 0, pos))
    for k, v in pos.arrays().items():
        assert np.array_equal(v, back.arrays()[k], equal_nan=True), k
    assert (back.games, back.evals, back.decisions) == (pos.games, pos.evals, pos.decisions)
    arrays_ = pos.arrays()
    del arrays_["pi"], arrays_["z"]
    np.savez(shard_path(tmp_path, 2, 0), **arrays_)
    with pytest.raises(ValueError, match=r"it000002_0000\.npz.*missing arrays \['pi', 'z'\]"):
        read_shard(shard_path(tmp_path, 2, 0))
    for name, cut in (("q", lambda x: x[:-1]), ("aft_ptr", lambda x: x + 1),
                      ("aft_val", lambda x: x[:-1])):  # fmt: skip
        arrays_ = pos.arrays()
        arrays_[name] = cut(arrays_[name])
        np.savez(shard_path(tmp_path, 3, 0), **arrays_)
        with pytest.raises(ValueError, match="inconsistent sizes"):
            read_shard(shard_path(tmp_path, 3, 0))


def test_job_workers_play_teacher_games_with_the_territory_features() -> None:
    """A job of teacher games for a network with the territory features records them, as the
    threads do (the job carries ``features``: teacher games have no net to decide by)."""
    from moonriver_env.moonriver.agents.heuristic import core_teacher

    spec = SPECS["mr2"]
    shape = NetShape.for_game(spec, 8, 4, features=True)
    settings = PlaySettings(SETTINGS, explore=0, lam=0.5, keep=0.5, afterstates=0.0)
    job = {"seeds": [3, 4], "settings": settings, "teacher": True,
           "teacher_weights": core_teacher()[1], "weights": b"", "features": True}  # fmt: skip
    got = run_job(JobWorker(spec.text, shape.to_dict()), job)
    want = play_games(
        native_template(spec), None, 2, 3, settings, True, core_teacher()[1], features=True
    )
    assert int(got.obs_idx.max()) >= spec.observation_size  # the features are there
    for k, v in want.arrays().items():
        assert np.array_equal(v, got.arrays()[k], equal_nan=True), k
