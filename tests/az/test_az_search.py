"""The search in the core (azsearch.c, ``_native.az_search``) on both games: a legal move, the
prior (the afterstate values) and pi as distributions (pi on the k candidates only), the raw
policy at k = 0, determinism, the caller's state untouched, and named refusals."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from az_models import FAST, SPECS, midgame, native_state, random_net

from agents.az import SearchSettings, native_search
from moonriver_env.family.native import native

SETTINGS = FAST.as_tuple()


@pytest.fixture(scope="module")
def nets() -> dict[str, object]:
    return {key: random_net(spec, seed=2).native() for key, spec in SPECS.items()}


def busy(key: str, seed: int) -> object:
    """A native game with at least 5 legal actions (seeded)."""
    ns = midgame(SPECS[key], seed, moves=6 + 3 * seed, min_legal=5)
    assert ns is not None
    return ns


@pytest.mark.parametrize("key", SPECS)
def test_search_results_are_consistent(key: str, nets: dict[str, object]) -> None:
    """The move is legal; the prior and pi sum to 1; pi is 0 outside the k candidates (the
    k best by the prior), the move is the candidate with the best Q; evaluations were spent
    on the rollouts."""
    for seed in range(3):
        ns = busy(key, seed)
        for k in (1, 3, 5):
            settings = SearchSettings(k=k, r=2, depth=1, max_depth=8)
            res = native_search(nets[key], ns._core, settings, seed)
            legal = ns.legal_action_list()
            assert list(res.legal) == legal and res.action in legal
            prior, pi, q = np.array(res.prior), np.array(res.pi), np.array(res.q)
            assert prior.sum() == pytest.approx(1.0, abs=1e-5) and prior.min() >= 0.0
            assert pi.sum() == pytest.approx(1.0, abs=1e-5) and pi.min() >= 0.0
            cands = np.argsort(-prior, kind="stable")[:k]
            outside = np.setdiff1d(np.arange(len(legal)), cands)
            assert np.all(pi[outside] == 0.0)
            assert np.count_nonzero(pi) <= k
            assert legal.index(res.action) in cands
            assert q[legal.index(res.action)] == pytest.approx(q[cands].max())
            assert np.all(np.abs(q) <= 1.0)
            assert res.evals > 1 + k  # the root, then at least one leaf per candidate


@pytest.mark.parametrize("key", SPECS)
def test_opponent_temp_moves_the_other_seats_only(key: str, nets: dict[str, object]) -> None:
    """``opponent_temp``: the rollouts' moves of the other seats sampled at that temperature,
    the deciding seat's at ``rollout_temp``. Set to ``rollout_temp`` (or negative, the default)
    the search is the one without it; another temperature
    changes the Qs; sampled opponents with the deciding seat's argmax are neither the all-argmax
    nor the all-sampled search (each seat moves in these rollouts)."""
    net = nets[key]
    for seed in range(2):
        ns = busy(key, seed)
        q = {}
        for temp in (0.0, 1.0):
            base = SearchSettings(k=4, r=3, depth=6, max_depth=24, rollout_temp=temp)
            q[temp] = native_search(net, ns._core, base, 7).q
            assert native_search(net, ns._core, replace(base, opponent_temp=temp), 7).q == q[temp]
            assert native_search(net, ns._core, replace(base, opponent_temp=-0.5), 7).q == q[temp]
        mixed = SearchSettings(k=4, r=3, depth=6, max_depth=24, rollout_temp=0.0, opponent_temp=1.0)
        got = native_search(net, ns._core, mixed, 7).q
        assert got != q[0.0] and got != q[1.0], (got, q)
        assert native_search(net, ns._core, mixed, 7).q == got  # seeded: the same again


@pytest.mark.parametrize("key", SPECS)
def test_k0_plays_the_priors_argmax(key: str, nets: dict[str, object]) -> None:
    """Without candidates (or determinizations) the search is the raw policy: its argmax,
    pi = prior, Q the root's value; one evaluation for the root, one more per legal move (its
    afterstate; no move ends the game this early)."""
    for seed in range(4):
        ns = busy(key, seed)
        count = len(ns.legal_action_list())
        for settings in (SearchSettings(k=0), SearchSettings(k=4, r=0)):
            res = native_search(nets[key], ns._core, settings, seed)
            assert res.action == res.legal[int(np.argmax(res.prior))]
            assert res.pi == res.prior and res.q == (res.value,) * count
            assert res.evals == 1 + count


def test_the_core_reads_the_settings_in_their_order() -> None:
    """The core's settings tuple is the fields in order (its parser reads them by place)."""
    assert SearchSettings().as_tuple() == (6, 4, 4, 48, 1, 0.0, 0.1, -1.0)
    assert SearchSettings(k=2, r=3, depth=5, max_depth=7, leaves=2, rollout_temp=0.5, tau=0.2,
                          opponent_temp=1.5).as_tuple() == (2, 3, 5, 7, 2, 0.5, 0.2, 1.5)  # fmt: skip


@pytest.mark.parametrize("rollout_temp", (0.0, 1.0))
@pytest.mark.parametrize("key", SPECS)
def test_leaves_average_the_values_along_each_rollout(
    key: str, rollout_temp: float, nets: dict[str, object]
) -> None:
    """With ``leaves = 3`` a candidate's Q is the mean of its Qs with one leaf at ``depth``,
    ``2 depth`` and ``3 depth`` (the same deals and rollout noise: the rollouts pass through the
    same states), and differs from each of them; where ``max_depth`` stops the rollouts between
    leaves, the value there counts for each leaf not reached (the one-leaf searches stop at the
    same place: the mean still holds); a game that ends first counts its outcome for the leaves
    it does not reach (a depth past the game's end: its outcome, whatever the count)."""
    for seed in range(2):
        ns = busy(key, seed)
        for stop in (400, 6, 9, 12):  # max_depth past, before, between or after the leaves
            base = SearchSettings(k=4, r=3, depth=2, max_depth=stop, rollout_temp=rollout_temp)
            one = [
                np.array(native_search(nets[key], ns._core, replace(base, depth=d), 11).q)
                for d in (2, 4, 6)
            ]
            three = np.array(native_search(nets[key], ns._core, replace(base, leaves=3), 11).q)
            assert np.allclose(three, np.mean(one, axis=0), atol=1e-5)
            if stop == 400:  # every leaf reached: three values, their mean none of them
                assert not any(np.allclose(three, q, atol=1e-4) for q in one)
    ns, far = busy(key, 0), SearchSettings(k=3, r=2, depth=500, max_depth=10_000)
    q1 = native_search(nets[key], ns._core, far, 5).q
    assert native_search(nets[key], ns._core, replace(far, leaves=4), 5).q == q1


@pytest.mark.parametrize("key", SPECS)
def test_the_afterstate_prior_sharpens_as_tau_falls(key: str, nets: dict[str, object]) -> None:
    """The afterstate prior is softmax(value / tau): on the same determinization (same seed),
    halving tau squares the ratios of the probabilities."""
    ns = busy(key, 0)
    wide = np.array(native_search(nets[key], ns._core, SearchSettings(k=0, tau=0.2), 5).prior)
    sharp = np.array(native_search(nets[key], ns._core, SearchSettings(k=0, tau=0.1), 5).prior)
    want = wide**2 / np.sum(wide**2)
    assert np.allclose(sharp, want, atol=1e-5) and sharp.max() > wide.max()


@pytest.mark.parametrize("key", SPECS)
def test_sampling_draws_from_the_prior(key: str, nets: dict[str, object]) -> None:
    ns = busy(key, 1)
    settings = SearchSettings(k=0)
    res = [native_search(nets[key], ns._core, settings, s, True) for s in range(60)]
    assert len({r.action for r in res}) > 1
    assert {r.action for r in res} <= set(ns.legal_action_list())


@pytest.mark.parametrize("key", SPECS)
def test_same_seed_same_search_and_the_state_is_unchanged(
    key: str, nets: dict[str, object]
) -> None:
    ns = busy(key, 2)
    record = bytes(ns._core.record())
    for settings in (SETTINGS, replace(FAST, max_depth=6, rollout_temp=0.0).as_tuple()):
        a = native.az_search(ns._core, nets[key], settings, 77, False)
        b = native.az_search(ns._core, nets[key], settings, 77, False)
        assert a == b
    assert bytes(ns._core.record()) == record  # the search played on copies
    others = {
        native.az_search(ns._core, nets[key], (5, 3, 1, 12, 1, 1.0, 0.1, -1.0), s, False)[3]
        for s in range(6)
    }
    assert len(others) > 1  # the seed drives the determinizations and the rollouts


@pytest.mark.parametrize("key", SPECS)
def test_a_finished_game_is_refused(key: str, nets: dict[str, object]) -> None:
    ns = native_state(SPECS[key], 4)
    rng = np.random.default_rng(0)
    while not ns.is_terminal:
        legal = ns.legal_action_list()
        ns.apply(int(legal[rng.integers(len(legal))]))
    with pytest.raises(ValueError, match="the game is over"):
        native.az_search(ns._core, nets[key], SETTINGS, 0, False)


@pytest.mark.parametrize(
    "settings",
    [(-1, 2, 1, 12, 1, 1.0, 0.1, -1.0), (33, 2, 1, 12, 1, 1.0, 0.1, -1.0),
     (3, -1, 1, 12, 1, 1.0, 0.1, -1.0), (3, 5000, 1, 12, 1, 1.0, 0.1, -1.0),
     (3, 2, -1, 12, 1, 1.0, 0.1, -1.0), (3, 2, 1, -1, 1, 1.0, 0.1, -1.0),
     (3, 2, 1, 12, 0, 1.0, 0.1, -1.0), (3, 2, 1, 12, 65, 1.0, 0.1, -1.0),
     (3, 2, 1, 12, 1, -0.5, 0.1, -1.0), (3, 2, 1, 12, 1, float("nan"), 0.1, -1.0),
     (3, 2, 1, 12, 1, 1.0, 0.0, -1.0), (3, 2, 1, 12, 1, 1.0, float("inf"), -1.0),
     (2**40, 2, 1, 12, 1, 1.0, 0.1, -1.0), (3, 2, 1, 12, 1, 1.0, 0.1, float("nan")),
     (3, 2, 1, 12, 1, 1.0, 0.1, 101.0), (3, 2, 1, 12, 1, 1.0, 0.1, float("inf"))],
)  # fmt: skip
def test_settings_out_of_range_are_refused(settings: tuple, nets: dict[str, object]) -> None:
    ns = busy("mr2", 0)
    with pytest.raises(
        ValueError,
        match=r"settings: k 0\.\.32, r 0\.\.4096.*leaves 1\.\.64.*tau > 0.*"
        r"opponent_temp up to 100",
    ):
        native.az_search(ns._core, nets["mr2"], settings, 0, False)


def test_settings_are_checked_by_name_in_python() -> None:
    for name, value in (("k", -1), ("k", 33), ("r", 1.5), ("depth", True), ("tau", 0.0),
                        ("rollout_temp", "1"), ("max_depth", -2), ("leaves", 0),
                        ("leaves", 65), ("leaves", 2.0), ("opponent_temp", -1.5),
                        ("opponent_temp", 101.0), ("opponent_temp", "1"),
                        ("opponent_temp", float("nan"))):  # fmt: skip
        with pytest.raises(ValueError, match=rf"^{name}: expected"):
            SearchSettings(**{name: value})
    with pytest.raises(ValueError, match=r"unknown settings \['sims'\]"):
        SearchSettings.from_mapping({"sims": 4})


def test_retired_settings_load_at_their_value_and_are_refused_at_another() -> None:
    """A model file's ``policy``, ``symmetries`` and ``move_symmetries`` (settings the search
    no longer has): at the value it always plays, read past (the same settings as without
    them); at any other, a ``ValueError`` naming the setting; not fields any more."""
    own = {"k": 5, "rollout_temp": 0.5}
    at_value = {"policy": "afterstate", "symmetries": 1, "move_symmetries": 1}
    assert SearchSettings.from_mapping({**own, **at_value}) == SearchSettings(k=5, rollout_temp=0.5)
    for name, value in (("policy", "head"), ("symmetries", 8), ("move_symmetries", 2),
                        ("symmetries", True), ("policy", 1)):  # fmt: skip
        with pytest.raises(ValueError, match=rf"^{name}: the search no longer has this setting"):
            SearchSettings.from_mapping({**own, name: value})
        with pytest.raises(TypeError):
            SearchSettings(**{name: value})


def test_a_net_of_another_game_is_refused(nets: dict[str, object]) -> None:
    """A network made for another game's sizes (Kingdomino's on Moon River, 2 players' on 4
    players) is refused naming the sizes."""
    for net_key, state_key in (("kd4", "mr2"), ("mr2", "kd4"), ("mr2", "mr4")):
        ns = busy(state_key, 0)
        with pytest.raises(
            ValueError, match=r"net: made for \d+ inputs and \d+ actions, the game has"
        ):
            native.az_search(ns._core, nets[net_key], SETTINGS, 0, False)
        with pytest.raises(ValueError, match=r"net: made for"):
            native.az_selfplay(
                ns._core, nets[net_key], 1, 0, SETTINGS, False, 0, 0.5, 1.0, 0.0, None
            )


def test_wrong_types_are_refused(nets: dict[str, object]) -> None:
    """Every argument of the wrong type is a TypeError naming it (a list or None as the
    settings once raised SystemError)."""
    ns = busy("mr2", 0)
    net = nets["mr2"]
    calls = [
        ("state: expected a State or KdState", (ns, net, SETTINGS, 0, False)),  # the wrapper
        ("state: expected a State or KdState", (None, net, SETTINGS, 0, False)),
        ("net: expected a Net", (ns._core, "net", SETTINGS, 0, False)),
        ("net: expected a Net", (ns._core, None, SETTINGS, 0, False)),
        ("settings: expected a tuple", (ns._core, net, (1, 2, 3), 0, False)),
        ("settings: expected a tuple", (ns._core, net, ("a", *SETTINGS[1:]), 0, False)),
        ("settings: expected a tuple", (ns._core, net, SETTINGS[:7], 0, False)),  # one short
        ("settings: expected a tuple", (ns._core, net, (*SETTINGS, 1.0), 0, False)),  # one more
        (
            "settings: expected a tuple",
            (ns._core, net, (*SETTINGS[:4], 1.0, *SETTINGS[5:]), 0, False),
        ),  # fmt: skip
        ("settings: expected a tuple", (ns._core, net, (*SETTINGS[:7], "1"), 0, False)),
        # the tuple before the policy, symmetries and move_symmetries were removed
        ("settings: expected a tuple", (ns._core, net, (*SETTINGS[:7], 1, 1, 1, -1.0), 0, False)),
        ("settings: expected a tuple .* got list", (ns._core, net, list(SETTINGS), 0, False)),
        ("settings: expected a tuple .* got NoneType", (ns._core, net, None, 0, False)),
    ]
    for text, args in calls:
        with pytest.raises(TypeError, match=text):
            native.az_search(*args)
    with pytest.raises(TypeError):
        native.az_search(ns._core, net, SETTINGS, "seed", False)
