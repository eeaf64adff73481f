"""Self-play in the core (azselfplay.c, ``_native.az_selfplay``; training/az/selfplay.py):
arrays that fit together, outcomes that are the games' winners, the same bytes for the same
seed, teacher games that replay on the rules, TD(lambda) targets, and threads that do not
change the result."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from az_models import FAST, SPECS, native_state, outcome_of, random_net

from moonriver_env.family.native import native
from moonriver_env.games import GameSpec
from training.az.replay import read_shard, shard_path, write_shard
from training.az.selfplay import PlaySettings, Positions, native_template, play_games, play_threads

SETTINGS = FAST.as_tuple()


@pytest.fixture(scope="module")
def nets() -> dict[str, Any]:
    return {key: random_net(spec, seed=4).native() for key, spec in SPECS.items()}


def arrays(out: dict[str, Any]) -> dict[str, np.ndarray]:
    types = {"game": np.int32, "seat": np.int8, "obs_off": np.int64, "obs_idx": np.int16,
             "obs_val": np.float32, "legal_off": np.int64, "legal_id": np.int16,
             "pi": np.float32, "q": np.float32, "z": np.float32, "target": np.float32,
             "outcomes": np.float32, "lengths": np.int32}  # fmt: skip
    return {k: np.frombuffer(out[k], t) for k, t in types.items()}


def selfplay(key: str, net: Any, games: int = 2, seed: int = 10, teacher: bool = False,
             explore: int = 4, lam: float = 0.5) -> dict[str, Any]:  # fmt: skip
    spec = SPECS[key]
    weights = spec.entry.hook("az_teacher")()[1] if teacher else None
    return native.az_selfplay(
        native_template(spec), None if teacher else net, games, seed, SETTINGS, teacher,
        explore, lam, weights,
    )  # fmt: skip


def check_consistent(spec: GameSpec, out: dict[str, Any], games: int) -> dict[str, np.ndarray]:
    """Everything az_selfplay returns fits together and fits the game."""
    a = arrays(out)
    n, P = spec.num_players, out["positions"]
    assert 10 * games < P
    assert a["game"].shape == a["seat"].shape == a["q"].shape == a["z"].shape == (P,)
    assert a["obs_off"].shape == a["legal_off"].shape == (P + 1,)
    assert a["obs_off"][0] == 0 and a["legal_off"][0] == 0
    assert np.all(np.diff(a["obs_off"]) > 0)  # every observation has non-zero entries
    assert np.all(np.diff(a["legal_off"]) >= 2)  # only decisions with a choice are kept
    assert a["obs_off"][-1] == a["obs_idx"].size == a["obs_val"].size
    assert a["legal_off"][-1] == a["legal_id"].size == a["pi"].size
    assert np.all(np.diff(a["game"]) >= 0) and set(a["game"]) == set(range(games))
    assert a["seat"].min() >= 0 and a["seat"].max() < n
    assert a["obs_idx"].min() >= 0 and a["obs_idx"].max() < spec.observation_size
    assert np.all(a["obs_val"] != 0.0)
    assert a["legal_id"].min() >= 0 and a["legal_id"].max() < spec.num_actions
    assert a["pi"].min() >= 0.0
    for p in range(P):
        lo, hi = a["legal_off"][p], a["legal_off"][p + 1]
        assert a["pi"][lo:hi].sum() == pytest.approx(1.0, abs=1e-5), p
        assert len(set(a["legal_id"][lo:hi].tolist())) == hi - lo
        o0, o1 = a["obs_off"][p], a["obs_off"][p + 1]
        assert np.all(np.diff(a["obs_idx"][o0:o1]) > 0)
    outcomes = a["outcomes"].reshape(games, n)
    for row in outcomes:
        winners = [s for s in range(n) if row[s] > -1.0]
        assert winners and np.allclose(row, outcome_of(winners, n))
        assert row.sum() == pytest.approx(2 - n)  # 2 players: the outcomes sum to 0
    assert np.array_equal(a["z"], outcomes[a["game"], a["seat"]])
    assert np.all(a["lengths"] >= np.bincount(a["game"], minlength=games))
    return a


@pytest.mark.parametrize("key", SPECS)
def test_selfplay_arrays_are_consistent(key: str, nets: dict[str, Any]) -> None:
    out = selfplay(key, nets[key], games=2)
    a = check_consistent(SPECS[key], out, 2)
    assert out["evals"] > out["positions"] * (1 + FAST.k)  # the root and a rollout per candidate
    assert np.all(np.abs(a["q"]) <= 1.0) and np.all(np.abs(a["target"]) <= 1.0)
    # the improved policy is the search's: at most k actions, fewer where the prior decides
    for p in range(a["seat"].size):
        lo, hi = a["legal_off"][p], a["legal_off"][p + 1]
        assert np.count_nonzero(a["pi"][lo:hi]) <= FAST.k


@pytest.mark.parametrize("key", SPECS)
def test_same_seed_same_bytes(key: str, nets: dict[str, Any]) -> None:
    one = selfplay(key, nets[key], seed=3)
    assert one == selfplay(key, nets[key], seed=3)
    other = selfplay(key, nets[key], seed=4)
    assert other["obs_idx"] != one["obs_idx"]


@pytest.mark.parametrize("key", SPECS)
def test_teacher_games_replay_on_the_rules(key: str) -> None:
    """A teacher game (Moon River: the heuristic's weights; Kingdomino: greedy) replayed from
    its seed on a native state: each position is the acting seat's observation as the Python
    encoder writes it, the state's legal actions and a one-hot target on the move; the outcomes
    are the winners'; the value targets are the outcome (no search values)."""
    spec = SPECS[key]
    games, seed = 2, 20
    out = selfplay(key, None, games=games, seed=seed, teacher=True, lam=0.3)
    a = check_consistent(spec, out, games)
    assert np.all(np.isnan(a["q"])) and np.array_equal(a["target"], a["z"])
    assert out["evals"] == 0  # no network
    outcomes = a["outcomes"].reshape(games, spec.num_players)
    encoder = _encoder(spec)
    p = 0
    for g in range(games):
        ns = native_state(spec, seed + g)
        decisions = 0
        while not ns.is_terminal:
            legal = ns.legal_action_list()
            decisions += 1
            if len(legal) == 1:
                ns.apply(legal[0])
                continue
            lo, hi = a["legal_off"][p], a["legal_off"][p + 1]
            assert a["game"][p] == g and a["seat"][p] == ns.current_seat
            assert a["legal_id"][lo:hi].tolist() == legal, (g, p)
            pi = a["pi"][lo:hi]
            assert sorted(pi.tolist()) == [0.0] * (len(legal) - 1) + [1.0]
            obs = np.zeros(spec.observation_size, np.float32)
            o0, o1 = a["obs_off"][p], a["obs_off"][p + 1]
            obs[a["obs_idx"][o0:o1]] = a["obs_val"][o0:o1]
            assert np.array_equal(obs, encoder(ns, ns.current_seat)), (g, p)
            ns.apply(legal[int(np.argmax(pi))])
            p += 1
        assert np.allclose(outcomes[g], outcome_of(ns.winners(), spec.num_players))
        assert a["lengths"][g] == decisions
    assert p == out["positions"]


def _encoder(spec: GameSpec) -> Any:
    """The Python engine's observation of a native state's game for a seat."""
    if spec.game == "kingdomino":
        from moonriver_env.kingdomino.encoding import KingdominoEncoder

        kd = KingdominoEncoder(spec.config())
        return lambda ns, seat: kd.encode_flat(ns.to_state(), seat)
    from moonriver_env.moonriver.encoding import ObservationEncoder

    mr = ObservationEncoder(spec.config())
    return lambda ns, seat: mr.encode_flat(ns.to_state(), seat)


@pytest.mark.parametrize("key", SPECS)
def test_td_lambda_targets(key: str, nets: dict[str, Any]) -> None:
    """lambda = 1: the target is the outcome; lambda = 0: the search's value of the move
    played; between: the seat's return over its own later search values, backwards from z."""
    n = SPECS[key].num_players
    one = arrays(selfplay(key, nets[key], lam=1.0))
    assert np.array_equal(one["target"], one["z"])
    zero = arrays(selfplay(key, nets[key], lam=0.0))
    assert np.array_equal(zero["target"], zero["q"])
    assert not np.array_equal(zero["q"], zero["z"])
    lam = np.float32(0.7)
    mid = arrays(selfplay(key, nets[key], lam=float(lam)))
    assert np.array_equal(mid["q"], zero["q"])  # lambda changes the targets, not the games
    want = np.zeros_like(mid["target"])
    for g in set(mid["game"].tolist()):
        for s in range(n):
            rows = np.flatnonzero((mid["game"] == g) & (mid["seat"] == s))
            nxt = mid["z"][rows[-1]] if rows.size else 0.0
            for r in rows[::-1]:
                nxt = (np.float32(1.0) - lam) * mid["q"][r] + lam * nxt
                want[r] = nxt
    assert np.allclose(mid["target"], want, atol=1e-6)


def test_threads_do_not_change_the_games(nets: dict[str, Any]) -> None:
    """play_threads returns the games in seed order whatever the threads' timing: one thread
    or two, the same arrays, those of one core call per run of consecutive seeds in a chunk
    (a call's games share its random stream, so the chunks are part of the recipe); the kept
    share is drawn by the seed (the same positions every time)."""
    template = native_template(SPECS["mr2"])
    settings = PlaySettings(SETTINGS, explore=4, lam=0.5)
    seeds = [5, 6, 7, 9, 10]  # chunks of 2: [5, 6], [7, 9], [10]; calls: 5-6, 7, 9, 10
    one = play_threads(template, nets["mr2"], seeds, settings, threads=1, chunk=2)
    two = play_threads(template, nets["mr2"], seeds, settings, threads=2, chunk=2)
    calls = [(2, 5), (1, 7), (1, 9), (1, 10)]
    direct = Positions.concatenate(
        [play_games(template, nets["mr2"], n, s, settings) for n, s in calls]
    )
    for x in (two, direct):
        for k, v in one.arrays().items():
            assert np.array_equal(v, x.arrays()[k]), k
    assert one.games == 5 and one.decisions >= len(one)
    half = PlaySettings(SETTINGS, explore=4, lam=0.5, keep=0.5)
    kept = play_games(template, nets["mr2"], 3, 5, half)
    again = play_games(template, nets["mr2"], 3, 5, half)
    full = play_games(template, nets["mr2"], 3, 5, settings)
    assert np.array_equal(kept.seat, again.seat) and 0.3 < len(kept) / len(full) < 0.7
    kept.check()
    assert kept.games == full.games == 3
    back = Positions.from_arrays(kept.arrays())
    assert np.array_equal(back.obs_idx, kept.obs_idx) and back.games == 3


def test_bad_selfplay_arguments_are_refused(nets: dict[str, Any]) -> None:
    mr, kd = native_template(SPECS["mr2"]), native_template(SPECS["kd4"])
    net = nets["mr2"]
    for games, explore, lam in (
        (0, 0, 0.5),
        (10**7, 0, 0.5),
        (1, -1, 0.5),
        (1, 0, 1.5),
        (1, 0, float("nan")),
    ):
        with pytest.raises(
            ValueError, match="az_selfplay: games 1..1000000, explore >= 0, lambda 0..1"
        ):
            native.az_selfplay(mr, net, games, 0, SETTINGS, False, explore, lam, None)
    with pytest.raises(ValueError, match="Moon River's teacher needs weights"):
        native.az_selfplay(mr, None, 1, 0, SETTINGS, True, 0, 0.5, None)
    with pytest.raises(TypeError, match="net: expected a Net"):
        native.az_selfplay(mr, None, 1, 0, SETTINGS, False, 0, 0.5, None)
    with pytest.raises(TypeError, match="state: expected a State or KdState"):
        native.az_selfplay("state", net, 1, 0, SETTINGS, False, 0, 0.5, None)
    with pytest.raises(ValueError, match="settings: k 0..32"):
        native.az_selfplay(kd, nets["kd4"], 1, 0, (40, 1, 1, 1, 1.0, 0.1), False, 0, 0.5, None)
    with pytest.raises(ValueError):
        native.az_selfplay(mr, None, 1, 0, SETTINGS, True, 0, 0.5, [1.0, 2.0])  # 11 weights


def test_a_shard_round_trips_and_a_damaged_one_is_named(
    tmp_path: Path, nets: dict[str, Any]
) -> None:
    """write_shard then read_shard gives the positions back (what --resume reloads; a
    precedence slip once made every shard read as missing all its arrays); a shard missing
    arrays or with arrays that do not fit is refused naming the file and what is wrong."""
    settings = PlaySettings(SETTINGS, explore=4, lam=0.5)
    pos = play_games(native_template(SPECS["kd4"]), nets["kd4"], 2, 3, settings)
    back = read_shard(write_shard(tmp_path, 1, 0, pos))
    for k, v in pos.arrays().items():
        assert np.array_equal(v, back.arrays()[k]), k
    assert (back.games, back.evals, back.decisions) == (pos.games, pos.evals, pos.decisions)
    arrays = pos.arrays()
    del arrays["pi"], arrays["z"]
    np.savez(shard_path(tmp_path, 2, 0), **arrays)
    with pytest.raises(ValueError, match=r"it000002_0000\.npz.*missing arrays \['pi', 'z'\]"):
        read_shard(shard_path(tmp_path, 2, 0))
    arrays = pos.arrays()
    arrays["q"] = arrays["q"][:-1]
    np.savez(shard_path(tmp_path, 3, 0), **arrays)
    with pytest.raises(ValueError, match="inconsistent sizes"):
        read_shard(shard_path(tmp_path, 3, 0))
