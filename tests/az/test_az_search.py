"""The search in the core (azsearch.c, ``_native.az_search``) on both games and with both
move policies (the policy head; the afterstate values): a legal move, the prior and pi as
distributions (pi on the k candidates only), the raw policy at k = 0, determinism, the
caller's state untouched, and named refusals."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from az_models import FAST, POLICIES, SPECS, midgame, native_state, random_net, turned

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


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("key", SPECS)
def test_search_results_are_consistent(key: str, policy: str, nets: dict[str, object]) -> None:
    """The move is legal; the prior and pi sum to 1; pi is 0 outside the k candidates (the
    k best by the prior), the move is the candidate with the best Q; evaluations were spent
    on the rollouts."""
    for seed in range(3):
        ns = busy(key, seed)
        for k in (1, 3, 5):
            settings = SearchSettings(k=k, r=2, depth=1, max_depth=8, policy=policy)
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
    the deciding seat's at ``rollout_temp``. Set to ``rollout_temp`` (or negative, the default,
    or left out of the core's tuple) the search is the one without it; another temperature
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
            short = native.az_search(ns._core, net, base.as_tuple()[:10], 7, False)
            assert short[3] == q[temp]  # the core's default: rollout_temp's
        mixed = SearchSettings(k=4, r=3, depth=6, max_depth=24, rollout_temp=0.0, opponent_temp=1.0)
        got = native_search(net, ns._core, mixed, 7).q
        assert got != q[0.0] and got != q[1.0], (got, q)
        assert native_search(net, ns._core, mixed, 7).q == got  # seeded: the same again


@pytest.mark.parametrize("policy", POLICIES)
@pytest.mark.parametrize("key", SPECS)
def test_k0_plays_the_priors_argmax(key: str, policy: str, nets: dict[str, object]) -> None:
    """Without candidates (or determinizations) the search is the raw policy: its argmax,
    pi = prior, Q the root's value; one evaluation with the policy head, one more per legal
    move with the afterstate values (no move ends the game this early)."""
    for seed in range(4):
        ns = busy(key, seed)
        count = len(ns.legal_action_list())
        for settings in (
            SearchSettings(k=0, policy=policy),
            SearchSettings(k=4, r=0, policy=policy),
        ):
            res = native_search(nets[key], ns._core, settings, seed)
            assert res.action == res.legal[int(np.argmax(res.prior))]
            assert res.pi == res.prior and res.q == (res.value,) * count
            assert res.evals == (1 if policy == "head" else 1 + count)


@pytest.mark.parametrize("key", SPECS)
def test_the_policy_setting_reaches_the_core(key: str, nets: dict[str, object]) -> None:
    """``policy`` picks where the moves come from: the two priors differ, the head's does
    not depend on the seed (no determinization), and an afterstate search's rollouts spend an
    evaluation per legal move at each of their decisions (many more than the head's)."""
    ns = busy(key, 1)
    head = [
        native_search(nets[key], ns._core, SearchSettings(k=0, policy="head"), s) for s in (0, 1)
    ]
    after = native_search(nets[key], ns._core, SearchSettings(k=0), 0)
    assert head[0].prior == head[1].prior and head[0].value == after.value
    assert not np.allclose(head[0].prior, after.prior, atol=1e-3)
    evals = {
        p: native_search(nets[key], ns._core, replace(FAST, max_depth=6, policy=p), 3).evals
        for p in POLICIES
    }
    assert evals["afterstate"] > 2 * evals["head"], evals
    assert SearchSettings(policy="head").as_tuple()[7] == native.AZ_POLICY_HEAD
    assert SearchSettings().as_tuple()[7] == native.AZ_POLICY_AFTERSTATE
    assert SearchSettings().as_tuple() == (
        6,
        4,
        4,
        48,
        1,
        0.0,
        0.1,
        1,
        1,
        1,
        -1.0,
    )  # argmax rollouts


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


def test_symmetries_average_the_turned_kingdoms(nets: dict[str, object]) -> None:
    """Kingdomino's values with ``symmetries = 8`` are the means over the eight views of the
    kingdoms (turned, mirrored): a game and the same game with its kingdoms turned or mirrored
    get the same leaf values for their moves (Q with ``max_depth = 0``: each move's afterstate
    at the leaf, every move a candidate), the same prior (``move_symmetries``: each move's
    afterstate value) and the same root value, where one view's differ; with 4 views (the
    quarter turns) the same holds under a quarter turn, not under a mirror."""
    net = nets["kd4"]

    def values(state: object, views: int) -> np.ndarray:
        search = SearchSettings(k=32, r=1, depth=0, max_depth=0, symmetries=views)
        return np.sort(native_search(net, state._core, search, 3).q)

    def prior(state: object, views: int) -> tuple[np.ndarray, float]:
        """The raw policy's prior (each move's afterstate value in ``move_symmetries`` views)
        and the root's value (in ``symmetries`` views)."""
        search = SearchSettings(k=0, symmetries=views, move_symmetries=views)
        res = native_search(net, state._core, search, 3)
        return np.sort(res.prior), res.value

    checked, root_gaps = 0, []  # one view's root values of a game and its turned copy
    for seed in range(12):
        ns = midgame(SPECS["kd4"], seed, moves=8 + 4 * seed, min_legal=3)
        if ns is None or len(ns.legal_action_list()) > 32:
            continue
        for sym, views in ((1, 4), (3, 4), (2, 8), (4, 8), (7, 8)):
            other = turned(ns, sym)
            assert sorted(other.legal_action_list()) != [] and len(
                other.legal_action_list()
            ) == len(ns.legal_action_list())
            assert np.allclose(values(ns, views), values(other, views), atol=1e-5)
            assert not np.allclose(values(ns, 1), values(other, 1), atol=1e-4)
            (p, v), (p_other, v_other) = prior(ns, views), prior(other, views)
            assert np.allclose(p, p_other, atol=1e-5) and v == pytest.approx(v_other, abs=1e-5)
            (p, v), (p_other, v_other) = prior(ns, 1), prior(other, 1)
            assert not np.allclose(p, p_other, atol=1e-4)
            root_gaps.append(abs(v - v_other))
        assert not np.allclose(values(ns, 4), values(turned(ns, 4), 4), atol=1e-4)
        for views, moves in ((1, 1), (8, 1), (3, 5)):  # an evaluation per view of each value
            raw = SearchSettings(k=0, symmetries=views, move_symmetries=moves)
            count = len(ns.legal_action_list())
            assert native_search(net, ns._core, raw, 3).evals == views + moves * count
        checked += 1
    assert checked >= 4 and max(root_gaps) > 1e-3


def test_symmetries_beyond_the_games_are_refused(nets: dict[str, object]) -> None:
    """Moon River's observation has no symmetry the search uses: more than one view is
    refused by the search and by self-play, naming the setting."""
    ns = busy("mr2", 0)
    for views in ({"symmetries": 2}, {"move_symmetries": 3}):
        settings = replace(FAST, **views).as_tuple()
        text = r"settings: symmetries \d and move_symmetries \d, but this game's .* has 1"
        with pytest.raises(ValueError, match=text):
            native.az_search(ns._core, nets["mr2"], settings, 0, False)
        with pytest.raises(ValueError, match=text):
            native.az_selfplay(ns._core, nets["mr2"], 1, 0, settings, False, 0, 0.5, 1.0, 0.0, None)


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
    settings = SearchSettings(k=0, policy="head")
    res = [native_search(nets[key], ns._core, settings, s, True) for s in range(60)]
    assert len({r.action for r in res}) > 1
    assert {r.action for r in res} <= set(ns.legal_action_list())


@pytest.mark.parametrize("key", SPECS)
def test_same_seed_same_search_and_the_state_is_unchanged(
    key: str, nets: dict[str, object]
) -> None:
    ns = busy(key, 2)
    record = bytes(ns._core.record())
    for settings in (SETTINGS, replace(FAST, max_depth=6, policy="head").as_tuple()):
        a = native.az_search(ns._core, nets[key], settings, 77, False)
        b = native.az_search(ns._core, nets[key], settings, 77, False)
        assert a == b
    assert bytes(ns._core.record()) == record  # the search played on copies
    others = {
        native.az_search(ns._core, nets[key], (5, 3, 1, 12, 1, 1.0, 0.1, 0, 1, 1), s, False)[3]
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
    [(-1, 2, 1, 12, 1, 1.0, 0.1, 1, 1, 1), (33, 2, 1, 12, 1, 1.0, 0.1, 1, 1, 1),
     (3, -1, 1, 12, 1, 1.0, 0.1, 1, 1, 1), (3, 5000, 1, 12, 1, 1.0, 0.1, 1, 1, 1),
     (3, 2, -1, 12, 1, 1.0, 0.1, 1, 1, 1), (3, 2, 1, -1, 1, 1.0, 0.1, 1, 1, 1),
     (3, 2, 1, 12, 0, 1.0, 0.1, 1, 1, 1), (3, 2, 1, 12, 65, 1.0, 0.1, 1, 1, 1),
     (3, 2, 1, 12, 1, -0.5, 0.1, 1, 1, 1), (3, 2, 1, 12, 1, float("nan"), 0.1, 1, 1, 1),
     (3, 2, 1, 12, 1, 1.0, 0.0, 1, 1, 1), (3, 2, 1, 12, 1, 1.0, float("inf"), 0, 1, 1),
     (2**40, 2, 1, 12, 1, 1.0, 0.1, 0, 1, 1), (3, 2, 1, 12, 1, 1.0, 0.1, 2, 1, 1),
     (3, 2, 1, 12, 1, 1.0, 0.1, -1, 1, 1), (3, 2, 1, 12, 1, 1.0, 0.1, 2**40, 1, 1),
     (3, 2, 1, 12, 1, 1.0, 0.1, 1, 0, 1), (3, 2, 1, 12, 1, 1.0, 0.1, 1, 9, 1),
     (3, 2, 1, 12, 1, 1.0, 0.1, 1, 1, 0), (3, 2, 1, 12, 1, 1.0, 0.1, 1, 1, 9),
     (3, 2, 1, 12, 1, 1.0, 0.1, 1, 1, 1, float("nan")), (3, 2, 1, 12, 1, 1.0, 0.1, 1, 1, 1, 101.0),
     (3, 2, 1, 12, 1, 1.0, 0.1, 1, 1, 1, float("inf"))],
)  # fmt: skip
def test_settings_out_of_range_are_refused(settings: tuple, nets: dict[str, object]) -> None:
    ns = busy("mr2", 0)
    with pytest.raises(
        ValueError,
        match=r"settings: k 0\.\.32, r 0\.\.4096.*leaves 1\.\.64.*policy 0 .* or 1.*"
        r"symmetries and move_symmetries 1\.\.8, opponent_temp up to 100",
    ):
        native.az_search(ns._core, nets["mr2"], settings, 0, False)


def test_settings_are_checked_by_name_in_python() -> None:
    for name, value in (("k", -1), ("k", 33), ("r", 1.5), ("depth", True), ("tau", 0.0),
                        ("rollout_temp", "1"), ("max_depth", -2), ("leaves", 0),
                        ("leaves", 65), ("leaves", 2.0), ("symmetries", 0),
                        ("symmetries", 9), ("symmetries", 2.0), ("move_symmetries", 0),
                        ("move_symmetries", 9), ("opponent_temp", -1.5),
                        ("opponent_temp", 101.0), ("opponent_temp", "1"),
                        ("opponent_temp", float("nan"))):  # fmt: skip
        with pytest.raises(ValueError, match=rf"^{name}: expected"):
            SearchSettings(**{name: value})
    with pytest.raises(ValueError, match=r"^policy: expected one of \['head', 'afterstate'\]"):
        SearchSettings(policy="tree")
    with pytest.raises(ValueError, match=r"unknown settings \['sims'\]"):
        SearchSettings.from_mapping({"sims": 4})


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
        ("settings: expected a tuple", (ns._core, net, SETTINGS[:9], 0, False)),  # one short
        ("settings: expected a tuple", (ns._core, net, (*SETTINGS[:7], "head", 1, 1), 0, False)),
        ("settings: expected a tuple", (ns._core, net, (*SETTINGS[:8], 8.0, 1), 0, False)),
        ("settings: expected a tuple", (ns._core, net, (*SETTINGS[:9], "8"), 0, False)),
        ("settings: expected a tuple", (ns._core, net, (*SETTINGS[:10], "1"), 0, False)),
        ("settings: expected a tuple", (ns._core, net, (*SETTINGS[:11], 1.0), 0, False)),
        ("settings: expected a tuple .* got list", (ns._core, net, list(SETTINGS), 0, False)),
        ("settings: expected a tuple .* got NoneType", (ns._core, net, None, 0, False)),
    ]
    for text, args in calls:
        with pytest.raises(TypeError, match=text):
            native.az_search(*args)
    with pytest.raises(TypeError):
        native.az_search(ns._core, net, SETTINGS, "seed", False)
