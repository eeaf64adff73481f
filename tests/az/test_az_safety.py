"""The learned agent's core (azbind.c: ``Net``, ``az_search``, ``az_selfplay``) is safe from any
Python caller (issue 32's standard): half-initialised and re-initialised nets refused,
non-finite weights and wrong-size buffers refused, sequences whose items change them while
the core reads them, and searches from several threads sharing one Net and one state while
another thread plays moves on that state.

Each scenario runs in a fresh interpreter (a crash of the core fails its test instead of the
test run), as in tests/vector/test_core_safety.py; tests/vector/asan_check.py runs the same
scenarios under AddressSanitizer (``run_all``). Nothing here imports torch: the weights are
drawn with NumPy."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: fresh_python, also when run as a script
import fresh_python  # noqa: E402

SETTINGS = (3, 2, 1, 12, 1, 1.0, 0.1, -1.0)
"""A cheap search (the core's tuple: k, r, depth, max_depth, leaves, rollout_temp, tau,
opponent_temp)."""
AFTERSTATE = (2, 1, 1, 6, 1, 1.0, 0.1, -1.0)
ARGMAX = (2, 2, 2, 12, 1, 0.0, 0.1, -1.0)
"""Afterstate values with argmax rollouts: the rollouts' incremental first layer from each
seat's last move (azsearch.c; the sanitizer build checks every such sum against the full one)."""
KD_STUDY = "harmony+middle_kingdom+must_place"


def native() -> Any:
    from moonriver_env.family.native import native as module

    assert module is not None, "the native core is not built"
    return module


def spec(game: str, players: int) -> Any:
    from moonriver_env.games import GameSpec

    return GameSpec(
        game=game, num_players=players, mode=KD_STUDY if game == "kingdomino" else "base"
    )


def net_of(game_spec: Any, h1: int = 8, h2: int = 4, seed: int = 0) -> Any:
    """A core Net of the game's sizes with random weights (learn.h's order and count)."""
    i, a = game_spec.observation_size, game_spec.num_actions
    size = i * h1 + h1 + h1 * h2 + h2 + h2 + 1
    w = np.random.default_rng(seed).normal(0.0, 0.3, size).astype(np.float32)
    return native().Net(i, h1, h2, a, w)


def state_of(game_spec: Any, seed: int) -> Any:
    return game_spec.entry.hook("native_state")(game_spec.config(), seed)


def raises(kind: type[BaseException], text: str, call: Callable, *args: object) -> None:
    try:
        call(*args)
    except kind as exc:
        assert text in str(exc), (text, str(exc))
        return
    raise AssertionError(f"expected {kind.__name__} ({text!r}) from {args!r:.200}")


def race(*loops: Callable[[], None]) -> None:
    """Each loop in its own thread with a small switch interval; the first error re-raised."""
    errors: list[BaseException] = []

    def guard(loop: Callable[[], None]) -> None:
        try:
            loop()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        threads = [threading.Thread(target=guard, args=(loop,)) for loop in loops]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(old)
    if errors:
        raise errors[0]


class Shrinking:
    """An item whose conversion empties the list it is in."""

    def __init__(self, items: list, value: float) -> None:
        self.items, self.value = items, value

    def __index__(self) -> int:
        self.items.clear()
        return int(self.value)

    def __float__(self) -> float:
        self.items.clear()
        return float(self.value)


def shrinking(values: list) -> list:
    items: list = []
    items.extend([Shrinking(items, values[0]), *values[1:]])
    return items


# --- the scenarios ------------------------------------------------------------------------
def net_lifecycle() -> None:
    """A Net before __init__ or after a failed one refuses every use by name; a second
    __init__ is refused; non-finite weights, wrong sizes and wrong buffers are refused."""
    core = native()
    mr = spec("moonriver", 2)
    i, a = mr.observation_size, mr.num_actions
    size = i * 8 + 8 + 8 * 4 + 4 + 4 + 1
    good = np.random.default_rng(1).normal(0, 0.3, size).astype(np.float32)
    state = state_of(mr, 1)._core
    obs = np.zeros(i, np.float32)
    blank = core.Net.__new__(core.Net)
    for attempt in range(2):  # before __init__, then after a failed one
        raises(RuntimeError, "Net is not initialised", blank.evaluate, obs)
        raises(RuntimeError, "Net is not initialised", lambda: blank.sizes)
        raises(
            RuntimeError, "Net is not initialised", core.az_search, state, blank, SETTINGS, 0, False
        )
        raises(
            RuntimeError,
            "Net is not initialised",
            core.az_selfplay,
            state,
            blank,
            1,
            0,
            SETTINGS,
            False,
            0,
            0.5,
            1.0,
            0.5,
            None,
        )
        if attempt == 0:
            bad = good.copy()
            bad[size // 2] = np.nan
            raises(ValueError, f"weight {size // 2} is not finite", blank.__init__, i, 8, 4, a, bad)
    blank.__init__(i, 8, 4, a, good)  # a failed __init__ kept nothing
    assert blank.sizes == (i, 8, 4, a)
    raises(RuntimeError, "already initialised", blank.__init__, i, 8, 4, a, good)
    for value in (np.inf, -np.inf):
        bad = good.copy()
        bad[-1] = value
        raises(ValueError, "is not finite", core.Net, i, 8, 4, a, bad)
    for sizes in ((0, 8, 4, a), (i, 0, 4, a), (i, 8, 0, a), (i, 8, 4, 0), (9000, 8, 4, a),
                  (i, 513, 4, a), (i, 8, 257, a), (i, 8, 4, 9000), (-5, 8, 4, a)):  # fmt: skip
        raises(ValueError, "Net: sizes out of range", core.Net, *sizes, good)
    for buffer in (good[:-1], np.concatenate([good, good[:1]]), good.astype(np.float64),
                   good[::2], b"\x00" * (4 * size - 4), [0.0] * 3):  # fmt: skip
        try:
            core.Net(i, 8, 4, a, buffer)
        except (TypeError, ValueError, BufferError):
            continue
        raise AssertionError(f"Net accepted weights of type {type(buffer).__name__}")
    # the weights of a network with the removed policy head (a x 4 + a more) are refused
    with_head = np.concatenate([good, np.zeros(a * 4 + a, np.float32)])
    raises(ValueError, "weights", core.Net, i, 8, 4, a, with_head)
    net = core.Net(i, 8, 4, a, good)
    value = net.evaluate(obs)
    assert isinstance(value, float) and -1.0 <= value <= 1.0
    for o in (obs[:-1], np.zeros(i + 1, np.float32), obs.astype(np.float64), "obs"):
        try:
            net.evaluate(o)
        except (TypeError, ValueError, BufferError):
            continue
        raise AssertionError("evaluate accepted a wrong observation buffer")
    raises(TypeError, "", net.evaluate, obs, [0])  # the legal actions went with the head


def bad_teacher_weights() -> None:
    """Moon River's teacher with non-finite weights is refused; with finite weights so large
    their values overflow to NaN it still plays legal games; weights changed by their items'
    conversion are read once."""
    core = native()
    mr = spec("moonriver", 2)
    t = state_of(mr, 0)._core
    for w in ([float("nan")] * 11, [float("inf")] * 11, [1.0] * 10 + [float("-inf")]):
        raises(
            ValueError,
            "is not finite",
            core.az_selfplay,
            t,
            None,
            1,
            0,
            SETTINGS,
            True,
            0,
            0.5,
            1.0,
            0.5,
            w,
        )
    for w in ([1e308] * 11, [-1e308, 1e308] * 5 + [1e308]):
        out = core.az_selfplay(t, None, 2, 0, SETTINGS, True, 0, 0.5, 1.0, 0.5, w)
        assert out["positions"] > 0
    w = [0.6, 0.8, 0.5, 0.8, 3.0, 1.0, 3.0, 0.3, 0.5, 0.3, 1.0]
    assert core.az_selfplay(
        t, None, 1, 3, SETTINGS, True, 0, 0.5, 0.5, 0.5, shrinking(w)
    ) == core.az_selfplay(t, None, 1, 3, SETTINGS, True, 0, 0.5, 0.5, 0.5, w)
    for w in ([1.0] * 10, [1.0] * 12, "weights", [None] * 11):
        try:
            core.az_selfplay(t, None, 1, 0, SETTINGS, True, 0, 0.5, 1.0, 0.0, w)
        except (TypeError, ValueError):
            continue
        raise AssertionError(f"az_selfplay accepted teacher weights {w!r}")


def shared_search(game: str, players: int, searches: int = 150) -> None:
    """Two threads search one state object with one Net while a third plays random moves on
    that state (and starts it again when it ends) and a fourth plays self-play games with the
    same Net: no crash, and every move a search returns is legal in the position it read (a
    quarter of the searches sample the other seats' rollout moves, ``opponent_temp = 1``)."""
    core = native()
    argmax, afterstate = ARGMAX, AFTERSTATE
    sampled_others = (*argmax[:7], 1.0)  # the deciding seat's argmax, the others' moves sampled
    gs = spec(game, players)
    net = net_of(gs)
    ns = state_of(gs, 1)
    fresh = ns.clone()  # copy_from takes a state of the same config object
    done = threading.Event()
    found: list[int] = []

    def searcher(seed: int) -> Callable[[], None]:
        def loop() -> None:
            # A search the mover's finished game refused is tried again (after a pause that
            # lets the mover start the next game), so each searcher completes ``searches``.
            k, refused = 0, 0
            while k < searches:
                try:
                    settings = (SETTINGS, argmax, AFTERSTATE, sampled_others)[k % 4]
                    out = core.az_search(ns._core, net, settings, seed + k, (k // 4) % 2 == 1)
                except ValueError as exc:  # the mover ended the game just before
                    assert "the game is over" in str(exc), str(exc)
                    refused += 1
                    assert refused <= 20 * searches, f"{refused} searches refused, {k} done"
                    time.sleep(0.001)
                    continue
                k += 1
                action, legal, prior, _, pi, value, _ = out
                assert action in legal and len(prior) == len(pi) == len(legal)
                assert abs(sum(prior) - 1.0) < 1e-4 and abs(sum(pi) - 1.0) < 1e-4
                assert -1.0 <= value <= 1.0
                found.append(action)

        return loop

    def mover() -> None:
        rng = np.random.default_rng(0)
        while not done.is_set():
            if ns.is_terminal:
                ns.copy_from(fresh)
                continue
            legal = ns.legal_action_list()
            ns.apply(int(legal[rng.integers(len(legal))]))

    def selfplay() -> None:
        for seed in range(4):
            settings = afterstate if seed >= 2 else SETTINGS
            out = core.az_selfplay(
                ns._core, net, 1, seed, settings, False, 2, 0.5, 0.8, 0.5, None, False, 0.0
            )
            assert out["positions"] > 0 and len(out["aft_obs_off"]) > 0

    def searchers() -> None:
        try:
            race(searcher(0), searcher(10_000), selfplay)
        finally:
            done.set()

    race(searchers, mover)
    assert len(found) == 2 * searches


def mr_shared_search() -> None:
    shared_search("moonriver", 2)


def mr4_shared_search() -> None:
    shared_search("moonriver", 4)


def kd_shared_search() -> None:
    shared_search("kingdomino", 4)


SCENARIOS: dict[str, Callable[[], None]] = {
    f.__name__: f
    for f in (
        net_lifecycle,
        bad_teacher_weights,
        mr_shared_search,
        mr4_shared_search,
        kd_shared_search,
    )
}


def run_all(scale: float = 1.0) -> None:
    """Every scenario in this interpreter (asan_check.py, with the sanitizer build loaded);
    the threaded ones on scale times their searches."""
    for name, scenario in SCENARIOS.items():
        if "shared" in name:
            game, players = {
                "mr": ("moonriver", 2),
                "mr4": ("moonriver", 4),
                "kd": ("kingdomino", 4),
            }[name.split("_")[0]]
            shared_search(game, players, max(10, int(150 * scale)))
        else:
            scenario()


def run_scenarios(names: list[str]) -> dict[str, str]:
    """The named scenarios in fresh interpreters (:func:`fresh_python.run_scenarios`)."""
    return fresh_python.run_scenarios(Path(__file__), names)


@pytest.fixture(scope="module")
def outcome() -> dict[str, str]:
    return run_scenarios(list(SCENARIOS))


@pytest.mark.parametrize("name", SCENARIOS)
def test_scenario_in_a_fresh_interpreter(outcome: dict[str, str], name: str) -> None:
    assert outcome[name] == "ok", f"{name}: {outcome[name]}"


if __name__ == "__main__":
    fresh_python.scenario_main(SCENARIOS, sys.argv[1:])
