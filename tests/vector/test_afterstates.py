"""The afterstates of the legal moves, from the core (``VectorGame.afterstates``, both games).

Each game is redetermined once, then every legal move is applied to that determinization and
encoded for the seat that moved. A move that turns up no hidden piece gives the same row
whatever the redetermination: that row must equal the observation the game itself shows the
mover after the move (a copy of the game stepped with it). The games must not change; the
moves must be the legal lists in order; bad input gets a named error.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from moonriver_env.vector import NATIVE, KingdominoVectorGame, VectorGame

pytestmark = pytest.mark.skipif(not NATIVE, reason="afterstates come from the native core")

TABLES: dict[str, tuple[type, dict[str, Any]]] = {
    "mr-2p": (VectorGame, {"num_players": 2}),
    "mr-4p-legends": (VectorGame, {"num_players": 4, "mode": "legends", "scenario": "outlaws"}),
    "kd-2p-duel": (KingdominoVectorGame, {"num_players": 2, "mode": "mighty_duel"}),
    "kd-4p-study": (KingdominoVectorGame, {"num_players": 4,
                                           "mode": "must_place+harmony+middle_kingdom"}),
}  # fmt: skip


def make(name: str, num_games: int, **kwargs: Any) -> Any:
    cls, settings = TABLES[name]
    return cls(num_games=num_games, seed=3, **settings, **kwargs)


def snapshot(vg: Any) -> list[Any]:
    batch = vg._backend._batch  # the core's own records of the games
    sparse = None if vg.obs_idx is None else vg.obs_idx.copy()
    return [batch.get_record(i) for i in range(vg.num_games)] + [vg.legal_ids.copy(), sparse]


@pytest.mark.parametrize("name", sorted(TABLES))
def test_afterstates_are_the_movers_observation_after_each_move(name: str) -> None:
    vg = make(name, 3, observe="sparse")
    copy = make(name, 1, observe="dense", auto_reset=False)
    rng = np.random.default_rng(0)
    rows = np.arange(vg.num_games)
    compared = differed = 0
    for step in range(48):
        # every step: a Kingdomino reveal comes at one set decision of each round
        before = snapshot(vg)
        a = vg.afterstates(rows, seed=step)
        b = vg.afterstates(rows, seed=step + 1000)
        assert snapshot(vg)[:-2] == before[:-2], "a game changed"
        np.testing.assert_array_equal(vg.obs_idx, before[-1])
        np.testing.assert_array_equal(a.counts, vg.num_legal)
        np.testing.assert_array_equal(
            a.legal, np.concatenate([vg.legal_ids[i, : vg.num_legal[i]] for i in rows])
        )
        assert a.off.size == a.legal.size + 1 and a.off[-1] == a.idx.size == a.val.size
        dense_a = unpack_rows_csr(a, vg.observation_size)
        dense_b = unpack_rows_csr(b, vg.observation_size)
        m = 0
        for i in rows:
            seat = int(vg.current_seat[i])
            for _ in range(int(a.counts[i])):
                if np.array_equal(dense_a[m], dense_b[m]):  # no hidden piece turned up
                    copy.set_state(0, vg.get_state(int(i)))
                    copy.step([int(a.legal[m])])
                    np.testing.assert_array_equal(dense_a[m], copy.observation_of(0, seat))
                    compared += 1
                else:
                    differed += 1
                m += 1
        pick = (rng.random(vg.num_games) * vg.num_legal).astype(np.int64)
        vg.step(vg.legal_ids[rows, pick].astype(np.int64))
    assert compared > 50, compared  # most moves turn up nothing
    assert differed > 0, "no move depended on the redetermination: a reveal was never seen"


def unpack_rows_csr(a: Any, size: int) -> np.ndarray:
    """The afterstates' rows as dense rows."""
    out = np.zeros((a.legal.size, size), np.float32)
    for m in range(a.legal.size):
        lo, hi = a.off[m], a.off[m + 1]
        out[m, a.idx[lo:hi]] = a.val[lo:hi]
    return out


def test_the_same_seed_gives_the_same_afterstates_and_features_widen_the_rows() -> None:
    for name in ("mr-2p", "kd-4p-study"):
        vg = make(name, 4)
        rows = np.array([3, 0, 0])
        a, b = vg.afterstates(rows, seed=7), vg.afterstates(rows, seed=7)
        for f in ("legal", "counts", "off", "idx", "val"):
            np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
        assert a.counts[1] == a.counts[2] == vg.num_legal[0]
        f = vg.afterstates(rows, seed=7, features=True)
        np.testing.assert_array_equal(f.legal, a.legal)
        assert a.idx.max() < vg.observation_size <= f.idx.max()  # the features come after
    for name in ("mr-2p", "kd-2p-duel"):  # a game's draw is its own: other rows change nothing
        vg = make(name, 3)
        rng = np.random.default_rng(4)
        for _ in range(40):
            alone, joint = vg.afterstates([1], seed=9), vg.afterstates([0, 1, 2], seed=9)
            m0, m1 = int(joint.counts[0]), int(joint.counts[0] + joint.counts[1])
            np.testing.assert_array_equal(alone.off - alone.off[0],
                                          joint.off[m0 : m1 + 1] - joint.off[m0])  # fmt: skip
            np.testing.assert_array_equal(alone.idx, joint.idx[joint.off[m0] : joint.off[m1]])
            pick = (rng.random(3) * vg.num_legal).astype(np.int64)
            vg.step(vg.legal_ids[np.arange(3), pick].astype(np.int64))
    empty = make("mr-2p", 2).afterstates(np.zeros(0, np.int64))
    assert empty.legal.size == empty.counts.size == 0 and empty.off.tolist() == [0]


def test_bad_rows_and_seeds_are_refused_and_change_nothing() -> None:
    vg = make("mr-2p", 3, auto_reset=False)
    before = snapshot(vg)
    for rows, err in (([3], ValueError), ([-1], ValueError), ([[0]], ValueError),
                      ([0.5], ValueError), (["0"], ValueError)):  # fmt: skip
        with pytest.raises(err, match="rows"):
            vg.afterstates(rows)
    for seed in (-1, 2**64, 1.5, True, "1"):
        with pytest.raises(TypeError, match="seed"):
            vg.afterstates([0], seed=seed)  # type: ignore[arg-type]
    batch = vg._backend._batch
    with pytest.raises(ValueError, match="multiple of 8"):
        batch.afterstates(b"\x00" * 7, 0, False)
    with pytest.raises(IndexError, match="not in 0..2"):
        batch.afterstates(np.array([2**40], np.int64).tobytes(), 0, False)
    while not vg.terminated[0]:  # play game 0 out: a finished game has no moves
        vg.step(vg.legal_ids[:, 0].astype(np.int64), active=np.array([True, False, False]))
    with pytest.raises(ValueError, match="game 0 is over"):
        vg.afterstates([1, 0])
    assert snapshot(vg)[1:3] == before[1:3]
    py = VectorGame(num_games=2, num_players=2, backend="python")
    with pytest.raises(NotImplementedError, match="native core"):
        py.afterstates([0])
