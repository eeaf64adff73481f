"""The sparse observation and the layout tables of the vector games (moonriver_env.family.sparse).

The core writes each row's non-zero entries itself; every row must equal the dense row the
same game shows (and the Python engine's packing of it), in ascending index order, padded with
the observation size, within the width the encoder proves. The tables (plane shape, feature
ranges, action structure) must agree with the encoders and the action layouts they describe.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import moonriver_env._native as _native
from moonriver_env.family.sparse import ActionTable, pack_rows, unpack_rows
from moonriver_env.moonriver.vector.check import CONFIGS
from moonriver_env.vector import NATIVE, KingdominoVectorGame, VectorGame

KD_CONFIGS: dict[str, dict[str, Any]] = {
    "kd-2p": {"num_players": 2},
    "kd-3p": {"num_players": 3},
    "kd-4p-study": {"num_players": 4, "mode": "must_place+harmony+middle_kingdom"},
    "kd-2p-duel": {"num_players": 2, "mode": "mighty_duel"},
}


def make(name: str, **kwargs: Any) -> Any:
    if name in KD_CONFIGS:
        return KingdominoVectorGame(**KD_CONFIGS[name], **kwargs)
    return VectorGame(**CONFIGS[name], **kwargs)


def random_steps(vgs: list[Any], steps: int, seed: int, check: Any) -> None:
    """Plays the same random legal actions in every vector game of ``vgs`` (one config),
    calling ``check`` before each step."""
    rng = np.random.default_rng(seed)
    lead = vgs[0]
    rows = np.arange(lead.num_games)
    for _ in range(steps):
        check()
        pick = (rng.random(lead.num_games) * lead.num_legal).astype(np.int64)
        actions = lead.legal_ids[rows, pick].astype(np.int64)
        for vg in vgs:
            vg.step(actions)


def assert_sparse_rows(vg: Any, dense: np.ndarray) -> None:
    size = vg.observation_size
    idx, val, nnz = vg.obs_idx, vg.obs_val, vg.obs_nnz
    assert idx.shape == val.shape == (vg.num_games, vg.sparse_width)
    assert idx.dtype == np.int32 and val.dtype == np.float32 and nnz.dtype == np.int32
    np.testing.assert_array_equal(unpack_rows(idx, val, size), dense)
    inside = np.arange(vg.sparse_width)[None, :] < nnz[:, None]
    assert (idx[~inside] == size).all() and (val[~inside] == 0).all(), "padding"
    assert (val[inside] != 0).all(), "an entry of value 0"
    ascending = (np.diff(idx, axis=1) > 0) | ~inside[:, 1:]
    assert ascending.all(), "indices not ascending"
    np.testing.assert_array_equal(nnz, np.count_nonzero(dense, axis=1))


@pytest.mark.parametrize("name", [*CONFIGS, *KD_CONFIGS])
def test_core_sparse_rows_equal_the_dense_rows(name: str) -> None:
    assert NATIVE, "the native core is not built"
    both = make(name, num_games=12, seed=3, observe="both")
    sparse_only = make(name, num_games=12, seed=3, observe="sparse")
    assert sparse_only.observation is None

    def check() -> None:
        assert_sparse_rows(both, both.observation)
        for arr in ("obs_idx", "obs_val", "obs_nnz"):
            np.testing.assert_array_equal(getattr(sparse_only, arr), getattr(both, arr))

    random_steps([both, sparse_only], 400, seed=1, check=check)


def test_a_set_state_rewrites_the_ranch_part_of_the_row() -> None:
    """The core rewrites only the features of a row whose ranches, observer and pending piece
    are as at its last write, and counts the unseen plots again only when the pile's length
    changed; a state set into a game is a new row, even where the ranch versions it starts
    from equal those of the row before (a set state starts them at 0, as a new game does) and
    its pile is as long. Games left out by ``active`` keep their rows."""
    donors = [make("2p-base", num_games=1, seed=seed) for seed in (9, 10)]
    rng = np.random.default_rng(4)
    states = []
    for _ in range(40):  # mid-game states with plots on the ranches, each seat acting
        for donor in donors:  # two games at the same point: piles as long, other plots
            donor.step([int(donor.legal_ids[0, rng.integers(donor.num_legal[0])])])
            states.append(donor.get_state(0))
    both = make("2p-base", num_games=2, seed=5, observe="both")
    sparse_only = make("2p-base", num_games=2, seed=5, observe="sparse")

    def check() -> None:
        assert_sparse_rows(both, both.observation)
        for arr in ("obs_idx", "obs_val", "obs_nnz"):
            np.testing.assert_array_equal(getattr(sparse_only, arr), getattr(both, arr))

    for t, state in enumerate(states):  # one after another: the versions all 0 each time
        for vg in (both, sparse_only):
            vg.set_state(0, state)
        check()
        if t % 10 == 9:
            actions = [int(both.legal_ids[i, 0]) for i in range(2)]
            for vg in (both, sparse_only):
                vg.step(actions, active=np.array([True, False]))
            check()


@pytest.mark.parametrize("name", ["2p-legends", "4p-base", "kd-2p"])
def test_python_engine_packs_the_same_rows(name: str) -> None:
    native = make(name, num_games=3, seed=8, observe="sparse", backend="native")
    python = make(name, num_games=3, seed=8, observe="sparse", backend="python")

    def check() -> None:
        for arr in ("obs_idx", "obs_val", "obs_nnz"):
            np.testing.assert_array_equal(getattr(python, arr), getattr(native, arr))

    random_steps([native, python], 120, seed=2, check=check)


def test_a_wrong_row_is_caught() -> None:
    """The comparison can fail: one changed value breaks the equality with the dense row."""
    vg = make("2p-base", num_games=2, seed=0, observe="both")
    dense = vg.observation.copy()
    dense[1, int(vg.obs_idx[1, 0])] += 1.0
    with pytest.raises(AssertionError):
        assert_sparse_rows(vg, dense)


def test_observe_refuses_unknown_forms() -> None:
    for bad, error in (("Sparse", ValueError), (1, TypeError), (None, TypeError),
                       ("dense,sparse", ValueError)):
        for cls in (VectorGame, KingdominoVectorGame):
            with pytest.raises(error, match="observe: expected"):
                cls(num_games=1, num_players=2, seed=0, observe=bad)


def test_pack_rows_refuses_a_row_wider_than_the_width() -> None:
    dense = np.ones((1, 5), dtype=np.float32)
    idx = np.zeros((1, 4), dtype=np.int32)
    with pytest.raises(ValueError, match="more than the sparse width 4"):
        pack_rows(dense, idx, np.zeros((1, 4), np.float32), np.zeros(1, np.int32))


class RawBatch:
    """A raw ``Batch`` of ``n_games`` Moon River games with the dense observation and sparse
    rows of ``width`` entries (ranch caches of ``ranch_width``), and the arrays it writes."""

    def __init__(self, probe: VectorGame, n_games: int, width: int, ranch_width: int) -> None:
        from moonriver_env.moonriver.vector._backend import native_config

        n, a, size = probe.num_players, probe.num_actions, probe.observation_size
        self.size = size
        self.obs = np.zeros((n_games, size), np.float32)
        self.idx = np.zeros((n_games, width), np.int32)
        self.val = np.zeros((n_games, width), np.float32)
        self.nnz = np.zeros(n_games, np.int32)
        self.legal = np.zeros((n_games, a), np.int16)
        self.num_legal = np.zeros(n_games, np.int32)
        self.batch = _native.Batch(
            native_config(probe.config), n_games, 0, 0.0, True, self.obs,
            np.zeros((n_games, a), np.int8), self.legal, self.num_legal,
            np.zeros(n_games, np.int32), np.zeros((n_games, n)), np.zeros(n_games, np.bool_),
            np.zeros((n_games, n, 7), np.int32), sparse_idx=self.idx, sparse_val=self.val,
            sparse_nnz=self.nnz, sparse_width=width, ranch_width=ranch_width,
        )
        self.batch.reset(np.arange(n_games, dtype=np.uint64))

    def check_row(self, i: int) -> None:
        """Row ``i`` (one that fits) is the dense observation's non-zero entries, then padding."""
        expected = np.flatnonzero(self.obs[i])
        k = self.nnz[i]
        assert k == expected.size
        np.testing.assert_array_equal(self.idx[i, :k], expected)
        np.testing.assert_array_equal(self.val[i, :k], self.obs[i, expected])
        assert (self.idx[i, k:] == self.size).all() and (self.val[i, k:] == 0).all()

    def step_random(self, rng: np.random.Generator) -> None:
        pick = (rng.random(len(self.nnz)) * self.num_legal).astype(np.int64)
        self.batch.step(self.legal[np.arange(len(self.nnz)), pick].astype(np.int64))


def test_the_core_never_writes_past_the_width() -> None:
    """A ranch width below what a ranch holds: the row is left all padding, its count says
    -1, and the memory around it is untouched (guards on both sides)."""
    from moonriver_env.family.batch import SPARSE_OVERFLOW
    from moonriver_env.moonriver.vector._backend import native_config

    vg = VectorGame(num_games=2, num_players=2, seed=0, observe=False)
    cfg = native_config(vg.config)
    n, a, width = 2, vg.num_actions, 8
    guard = np.full(2 * width + 2, -7, dtype=np.int32)  # one guard entry on each side
    vguard = np.full(2 * width + 2, -7.0, dtype=np.float32)
    nnz = np.zeros(2, dtype=np.int32)
    batch = _native.Batch(
        cfg, 2, 0, 0.0, True, None, np.zeros((2, a), np.int8), np.zeros((2, a), np.int16),
        np.zeros(2, np.int32), np.zeros(2, np.int32), np.zeros((2, n)), np.zeros(2, np.bool_),
        np.zeros((2, n, 7), np.int32), sparse_idx=guard[1:-1], sparse_val=vguard[1:-1],
        sparse_nnz=nnz, sparse_width=width, ranch_width=4,
    )
    batch.reset(np.arange(2, dtype=np.uint64))
    assert (nnz == -1).all()
    assert guard[0] == guard[-1] == -7 and vguard[0] == vguard[-1] == -7.0
    assert (guard[1:-1] == vg.observation_size).all() and (vguard[1:-1] == 0).all()
    # a width the ranches fit but the features do not: the entries written before the
    # overflow are padded away as well
    full = VectorGame(num_games=2, num_players=2, seed=0, observe="sparse")
    plane_size = int(np.prod(full.plane_shape))
    width = int((full.obs_idx[:, : int(full.obs_nnz.max())] < plane_size).sum(1).max()) + 3
    guard = np.full(2 * width + 2, -7, dtype=np.int32)
    vguard = np.full(2 * width + 2, -7.0, dtype=np.float32)
    legal = np.zeros((2, a), np.int16)
    batch = _native.Batch(
        cfg, 2, 0, 0.0, True, None, np.zeros((2, a), np.int8), legal,
        np.zeros(2, np.int32), np.zeros(2, np.int32), np.zeros((2, n)), np.zeros(2, np.bool_),
        np.zeros((2, n, 7), np.int32), sparse_idx=guard[1:-1], sparse_val=vguard[1:-1],
        sparse_nnz=nnz, sparse_width=width, ranch_width=full.sparse_width,
    )
    batch.reset(np.arange(2, dtype=np.uint64))
    for _ in range(3):  # the first publish, then after each of two moves
        assert (nnz == -1).all()
        assert guard[0] == guard[-1] == -7 and vguard[0] == vguard[-1] == -7.0
        assert (guard[1:-1] == vg.observation_size).all() and (vguard[1:-1] == 0).all()
        # a legal move; the step says a row was refused (VectorGame raises on it)
        assert batch.step(legal[:, 0].astype(np.int64)) == SPARSE_OVERFLOW
    with pytest.raises(ValueError, match="go together"):
        _native.Batch(
            cfg, 2, 0, 0.0, True, None, np.zeros((2, a), np.int8), np.zeros((2, a), np.int16),
            np.zeros(2, np.int32), np.zeros(2, np.int32), np.zeros((2, n)),
            np.zeros(2, np.bool_), np.zeros((2, n, 7), np.int32), sparse_idx=guard,
            sparse_width=width, ranch_width=4,
        )
    with pytest.raises(ValueError, match="sparse_width must be in"):
        _native.Batch(
            cfg, 2, 0, 0.0, True, None, np.zeros((2, a), np.int8), np.zeros((2, a), np.int16),
            np.zeros(2, np.int32), np.zeros(2, np.int32), np.zeros((2, n)),
            np.zeros(2, np.bool_), np.zeros((2, n, 7), np.int32), sparse_idx=guard,
            sparse_val=vguard, sparse_nnz=nnz, sparse_width=10**6, ranch_width=4,
        )
    with pytest.raises(ValueError, match="sparse_idx"):  # the width and the arrays disagree
        _native.Batch(
            cfg, 2, 0, 0.0, True, None, np.zeros((2, a), np.int8), np.zeros((2, a), np.int16),
            np.zeros(2, np.int32), np.zeros(2, np.int32), np.zeros((2, n)),
            np.zeros(2, np.bool_), np.zeros((2, n, 7), np.int32), sparse_idx=guard,
            sparse_val=vguard, sparse_nnz=nnz, sparse_width=width, ranch_width=4,
        )


@pytest.mark.parametrize("name", ["2p-base", "4p-legends"])
def test_a_ranch_cache_filled_to_its_last_entries_lists_every_cell(name: str) -> None:
    """Ranch widths about what the ranches hold (raw ``Batch``): a ranch with more entries is
    refused whole, one that fits exactly or within a few entries is listed in full (the
    listing writes ahead in blocks of four only where the cache has room for it)."""
    from moonriver_env.moonriver.encoding import RANCH_CHANNEL_NAMES, RANCH_CHANNELS

    probe = VectorGame(**CONFIGS[name], num_games=8, seed=0, observe=False)
    n = probe.num_players
    cells = int(np.prod(probe.plane_shape)) // (n * RANCH_CHANNELS)
    shown = np.ones(RANCH_CHANNELS, np.bool_)  # the channels a ranch cache lists
    shown[[RANCH_CHANNEL_NAMES.index("piece"), RANCH_CHANNEL_NAMES.index("skull_target")]] = 0
    near_full = 0
    for ranch_width in (18, 30, 45, 60):
        width = n * ranch_width + 2 * cells + 400  # the ranches decide, not the row
        raw = RawBatch(probe, 8, width, ranch_width)
        rng = np.random.default_rng(ranch_width)
        for _ in range(150):
            for i in range(8):
                ranches = raw.obs[i, : n * RANCH_CHANNELS * cells].reshape(n, RANCH_CHANNELS, -1)
                per_ranch = (ranches[:, shown] != 0).sum(axis=(1, 2))
                if raw.nnz[i] < 0:
                    assert per_ranch.max() > ranch_width, "refused, yet every ranch fits"
                    continue
                assert per_ranch.max() <= ranch_width
                near_full += int(per_ranch.max() > ranch_width - 3)
                raw.check_row(i)
            raw.step_random(rng)
    assert near_full >= 20, "rows whose ranch fills its cache to the last three entries"


@pytest.mark.parametrize("name", ["2p-base", "kd-2p"])
def test_a_row_past_the_width_is_an_error_not_a_row(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should the encoder's proven width ever be too small (a bug), the call that wrote the
    row says so with a RuntimeError instead of handing out a row whose count is -1: a reset
    (the set-up's rows), a set state, and a step (a later row past a width the set-up fit)."""
    from moonriver_env.kingdomino.encoding import KingdominoEncoder
    from moonriver_env.moonriver.encoding import ObservationEncoder

    encoder = KingdominoEncoder if name in KD_CONFIGS else ObservationEncoder
    fits = make(name, num_games=4, seed=0, observe="sparse")
    setup_width = int(fits.obs_nnz.max())  # the set-up's rows fit, later ones do not
    monkeypatch.setattr(encoder, "sparse_width", property(lambda self: setup_width - 1))
    with pytest.raises(RuntimeError, match="overflowed its width"):
        make(name, num_games=4, seed=0, observe="sparse")
    monkeypatch.setattr(encoder, "sparse_width", property(lambda self: setup_width))
    vg = make(name, num_games=4, seed=0, observe="sparse")
    rng = np.random.default_rng(0)
    rows = np.arange(4)
    with pytest.raises(RuntimeError, match="overflowed its width"):
        for _ in range(100):
            pick = (rng.random(4) * vg.num_legal).astype(np.int64)
            vg.step(vg.legal_ids[rows, pick].astype(np.int64))
    with pytest.raises(RuntimeError, match="overflowed its width"):
        fits.step(fits.legal_ids[:, 0].astype(np.int64))
        vg.set_state(0, fits.get_state(0))
        for _ in range(100):  # a state whose row does not fit
            pick = (rng.random(4) * fits.num_legal).astype(np.int64)
            fits.step(fits.legal_ids[rows, pick].astype(np.int64))
            vg.set_state(0, fits.get_state(0))


def test_a_row_that_fits_again_after_a_refusal_is_whole() -> None:
    """A width that some rows of a game overflow and later ones fit again (raw ``Batch``; Python
    never passes one): a refused row is all padding with count -1, and the next row that fits
    equals the dense observation's non-zero entries, its ranch part written again (not taken as
    unchanged from the padded row)."""
    from moonriver_env.moonriver.encoding import ObservationEncoder

    probe = VectorGame(num_games=8, num_players=2, seed=0, observe="sparse")
    counts = []
    rng = np.random.default_rng(1)
    rows = np.arange(8)
    for _ in range(200):
        counts.extend(probe.obs_nnz.tolist())
        pick = (rng.random(8) * probe.num_legal).astype(np.int64)
        probe.step(probe.legal_ids[rows, pick].astype(np.int64))
    width = int(np.median(counts))  # about half the rows overflow it
    raw = RawBatch(probe, 8, width, ObservationEncoder(probe.config).ranch_sparse_width)
    refused = np.zeros(8, np.bool_)
    fits_after_refusal = 0
    for _ in range(300):
        for i in range(8):
            if raw.nnz[i] < 0:
                assert (raw.idx[i] == raw.size).all() and (raw.val[i] == 0).all(), "padding"
                refused[i] = True
                continue
            fits_after_refusal += int(refused[i])
            refused[i] = False
            raw.check_row(i)
        raw.step_random(rng)
    assert fits_after_refusal >= 5, "the width should be refused now and then, and fit again"


@pytest.mark.parametrize("name", ["2p-base", "4p-legends", "kd-2p", "kd-4p-study"])
def test_layout_tables_describe_the_observation(name: str) -> None:
    vg = make(name, num_games=1, seed=0, observe=False)
    planes = int(np.prod(vg.plane_shape))
    ranges = sorted(vg.feature_ranges.values())
    assert ranges[0][0] == planes and ranges[-1][1] == vg.observation_size
    for (_, stop), (start, _) in zip(ranges, ranges[1:], strict=False):
        assert stop == start, "feature ranges leave a gap or overlap"
    assert 0 < vg.sparse_width <= vg.observation_size


def test_moon_river_action_table_matches_the_layout() -> None:
    vg = make("3p-legends", num_games=1, seed=0, observe=False)
    table: ActionTable = vg.action_table
    layout = vg.config.layout
    assert table.num_actions == layout.num_actions
    for a in range(layout.num_actions):
        name, index = layout.locate(a)
        s = int(table.segment[a])
        assert table.segments[s] == name
        assert tuple(int(x) for x in table.components[a, : len(index)]) == index
        assert (table.components[a, len(index) :] == -1).all()
        assert len(table.axes[s]) == len(index)
    place = table.ids_of("place")
    axes = table.axes[table.segments.index("place")]
    assert axes == ("pair", "cell", "direction")
    cells = table.components[place, axes.index("cell")]
    assert cells.min() == 0 and cells.max() == layout.cells - 1
    with pytest.raises(ValueError):
        table.segment[0] = 1  # read-only


def test_kingdomino_action_table_matches_the_layout() -> None:
    from moonriver_env.kingdomino.rules.actions import Discard, Pick, Place, action_layout

    vg = make("kd-2p-duel", num_games=1, seed=0, observe=False)
    table = vg.action_table
    layout = action_layout(vg.config)
    assert table.num_actions == layout.num_actions
    for a in range(layout.num_actions):
        act = layout.decode(a)
        seg = table.segments[int(table.segment[a])]
        comp = table.components[a]
        if isinstance(act, Place):
            assert seg == "place" and (comp[0], comp[1]) == (act.direction, act.cell)
        elif isinstance(act, Discard):
            assert seg == "discard" and (comp == -1).all()
        else:
            assert isinstance(act, Pick)
            assert seg == "pick" and comp[0] == act.position
