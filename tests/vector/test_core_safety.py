"""The native core is safe from any Python caller (issue 32).

Each scenario below runs in a fresh interpreter (a crash or a hang of the core fails its test
instead of the test run): two threads stepping one batch, a thread writing the actions array
during a step, half-initialised objects (``__new__`` without ``__init__``, a failed
``__init__``, a batch or a state on an uninitialised config) and sequences whose items'
``__index__`` / ``__float__`` change them while the core reads them. tests/vector/asan_check.py
runs the same scenarios under AddressSanitizer (``run_all``).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # tests/: fresh_python, also when run as a script
import fresh_python  # noqa: E402

BUSY = "is in use by another call"


def native() -> Any:
    from moonriver_env.family.native import native as module

    assert module is not None, "the native core is not built"
    return module


# --- helpers ------------------------------------------------------------------------------
def race(*loops: Callable[[], None], switch: float = 1e-5) -> None:
    """Runs each loop in its own thread, with a small switch interval; re-raises the first
    error a thread met."""
    errors: list[BaseException] = []

    def guard(loop: Callable[[], None]) -> None:
        try:
            loop()
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            errors.append(exc)

    old = sys.getswitchinterval()
    sys.setswitchinterval(switch)
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


def raises(kind: type[BaseException], text: str, call: Callable, *args: object) -> None:
    try:
        call(*args)
    except kind as exc:
        assert text in str(exc), (text, str(exc))
        return
    raise AssertionError(f"expected {kind.__name__} ({text!r})")


def stepper(step: Callable[[np.ndarray], object], vg: Any, seed: int, steps: int) -> Callable:
    """A loop of steps with random legal actions; the batch refusing a call another thread is
    making (RuntimeError naming it) or an action the other thread made stale is expected."""
    from moonriver_env.kingdomino.rules.core import IllegalActionError as KdIllegal
    from moonriver_env.rules import IllegalActionError

    def loop() -> None:
        rng = np.random.default_rng(seed)
        rows = np.arange(vg.num_games)
        for _ in range(steps):
            pick = (rng.random(vg.num_games) * np.maximum(vg.num_legal, 1)).astype(np.int64)
            try:
                step(vg.legal_ids[rows, pick].astype(np.int64))
            except RuntimeError as exc:
                assert BUSY in str(exc) and "Batch" in str(exc), str(exc)
            except (IllegalActionError, KdIllegal):
                pass

    return loop


def check_mr_batch(vg: Any) -> None:
    """Every game of a VectorGame's batch passes the core's record check, and its published
    legal ids are the legal ids of its state."""
    core, batch = native(), vg._backend._batch
    from moonriver_env.moonriver.vector._backend import native_config

    config = native_config(vg.config)
    for i in range(vg.num_games):
        state = core.state_from_record(config, batch.get_record(i))  # ValueError: corrupt
        assert list(vg.legal_ids[i, : vg.num_legal[i]]) == state.legal(), i


def check_kd_batch(vg: Any) -> None:
    """The same for a KingdominoVectorGame."""
    from moonriver_env.kingdomino.vector._spec import core_config

    core, batch = native(), vg._backend._batch
    config = core_config(core, vg.config)
    for i in range(vg.num_games):
        state = core.kd_state_from_record(config, batch.get_record(i))
        assert list(vg.legal_ids[i, : vg.num_legal[i]]) == state.legal(), i


def mr_game(num_games: int) -> Any:
    from moonriver_env.vector import VectorGame

    return VectorGame(num_games=num_games, num_players=2, seed=0, observe=False)


def kd_game(num_games: int) -> Any:
    from moonriver_env.kingdomino.vector.game import KingdominoVectorGame

    return KingdominoVectorGame(num_games=num_games, num_players=2, seed=0, observe=False)


# --- the scenarios ------------------------------------------------------------------------
def mr_two_steppers(num_games: int = 3000, steps: int = 20) -> None:
    vg = mr_game(num_games)
    race(stepper(vg.step, vg, 1, steps), stepper(vg.step, vg, 2, steps))
    check_mr_batch(vg)


def kd_two_steppers(num_games: int = 2000, steps: int = 20) -> None:
    vg = kd_game(num_games)
    race(stepper(vg.step, vg, 1, steps), stepper(vg.step, vg, 2, steps))
    check_kd_batch(vg)


def writer_during_step(vg: Any, step: Callable[[np.ndarray], int], steps: int) -> None:
    """A second thread fills the actions array with -1000000 while the main thread puts legal
    actions in and steps: a step plays what it checked, or refuses the array."""
    actions = np.zeros(vg.num_games, dtype=np.int64)
    done = threading.Event()

    def writer() -> None:
        while not done.is_set():
            actions.fill(-1_000_000)

    def main() -> None:
        try:
            for _ in range(steps):
                actions[:] = vg.legal_ids[:, 0]
                step(actions)  # -1, or the index of a game refused (nothing changed)
        finally:
            done.set()

    race(writer, main)


def mr_writer(num_games: int = 2000, steps: int = 30) -> None:
    vg = mr_game(num_games)
    writer_during_step(vg, vg._backend._batch.step, steps)
    check_mr_batch(vg)


def kd_writer(num_games: int = 2000, steps: int = 30) -> None:
    vg = kd_game(num_games)
    on = np.ones(num_games, dtype=np.bool_)
    writer_during_step(vg, lambda a: vg._backend._batch.step(a, on), steps)
    check_kd_batch(vg)


def mr_random_and_rows_racing(num_games: int = 2000, steps: int = 20) -> None:
    """One thread plays random opponents and writes the rows with three threads while another
    steps the same batch: each call plays whole, or is refused as busy."""
    vg = mr_game(num_games)
    batch = vg._backend._batch
    out = np.zeros((num_games, vg.observation_size), dtype=np.float32)

    def others() -> None:
        rng = np.random.default_rng(3)
        for _ in range(steps):
            seats = rng.integers(2, size=num_games).astype(np.int32)
            seed = int(rng.integers(2**63))
            for name, args in (
                ("play_random", (seats, seed, np.zeros(num_games), np.zeros(num_games, bool))),
                ("observe_rows", (out, 3)),
            ):
                try:
                    getattr(batch, name)(*args)
                except RuntimeError as exc:
                    assert BUSY in str(exc) and "Batch" in str(exc), str(exc)

    race(stepper(vg.step, vg, 1, steps), others)
    check_mr_batch(vg)


def kd_rows_racing(num_games: int = 2000, steps: int = 20) -> None:
    """The rows written from three threads while another thread steps the batch."""
    vg = kd_game(num_games)
    out = np.zeros((num_games, vg.observation_size), dtype=np.float32)

    def rows() -> None:
        for _ in range(steps):
            try:
                vg._backend._batch.observe_rows(out, 3)
            except RuntimeError as exc:
                assert BUSY in str(exc) and "KdBatch" in str(exc), str(exc)

    race(stepper(vg.step, vg, 1, steps), rows)
    check_kd_batch(vg)


def mr_random_and_rows_refusals() -> None:
    """play_random and observe_rows refuse wrong arrays, seats and thread counts before
    anything changes: the games' records stay as they were."""
    vg = mr_game(4)
    batch = vg._backend._batch
    before = [batch.get_record(i) for i in range(4)]
    size = vg.observation_size
    gained, ended = np.zeros(4), np.zeros(4, np.bool_)
    for seats, kind in (
        (np.array([0, 1, 2, 0], np.int32), ValueError),  # a seat past the table
        (np.array([0, -1, 0, 0], np.int32), ValueError),
        (np.zeros(3, np.int32), ValueError),  # too short
        (np.zeros(4, np.int64), ValueError),  # not int32
        ("seats", TypeError),
    ):
        raises(kind, "seats", batch.play_random, seats, 1, gained, ended)
    seats = np.zeros(4, np.int32)
    raises(ValueError, "gained", batch.play_random, seats, 1, np.zeros(3), ended)
    raises(ValueError, "ended", batch.play_random, seats, 1, gained, np.zeros(4, np.int8))
    readonly = np.zeros(4)
    readonly.flags.writeable = False
    raises((ValueError, TypeError), "gained", batch.play_random, seats, 1, readonly, ended)
    for out, threads in (
        (np.zeros((4, size - 1), np.float32), 1),
        (np.zeros((4, size), np.float64), 1),
        (np.zeros((4, size), np.float32)[:, ::-1], 1),
        (np.zeros((4, size), np.float32), 0),
        (np.zeros((4, size), np.float32), 65),
    ):
        raises((ValueError, TypeError), "out" if threads == 1 else "threads",
               batch.observe_rows, out, threads)
    assert [batch.get_record(i) for i in range(4)] == before
    from moonriver_env.family.batch import MAX_ROW_THREADS

    assert native().MAX_ROW_THREADS == MAX_ROW_THREADS


def half_initialised(
    batch_type: Any, config_type: Any, good: tuple, bad: tuple, calls: dict[str, tuple]
) -> None:
    """A batch before __init__, after a failed __init__ (then initialised for good, and no
    second __init__), and on a config never initialised: every call refused by name."""
    name = batch_type.__name__
    batch = batch_type.__new__(batch_type)
    for method, args in calls.items():
        raises(RuntimeError, "not initialised", getattr(batch, method), *args)
    try:
        batch.__init__(*bad)
    except (TypeError, ValueError):
        pass
    else:
        raise AssertionError("the bad __init__ passed")
    for method, args in calls.items():
        raises(RuntimeError, f"{name} is not initialised", getattr(batch, method), *args)
    batch.__init__(*good)  # a failed __init__ kept nothing: the batch can still be set up
    batch.get_record(0)
    raises(RuntimeError, "already initialised", lambda: batch.__init__(*good))
    blank = config_type.__new__(config_type)
    cname = config_type.__name__
    raises(RuntimeError, f"{cname} is not initialised", lambda: batch_type(blank, *good[1:]))


def mr_half_initialised() -> None:
    from moonriver_env.moonriver.vector._backend import native_config
    from moonriver_env.moonriver.vector._spec import build_spec

    core = native()
    vg = mr_game(4)
    config = native_config(vg.config)
    a = vg._arrays
    outs = (None, a["mask"], a["legal"], a["num_legal"], a["seat"], a["rewards"])
    good = (config, 4, 0, 0.0, True, *outs, a["terminated"], a["scores"])
    bad = (config, 4, 0, 0.0, True, *outs, a["terminated"], "not an array")
    calls = {
        "step": (np.zeros(4, dtype=np.int64),),
        "reset": (None,),
        "get_record": (0,),
        "set_record": (0, b""),
        "observe": (0, 0, np.zeros(10, dtype=np.float32)),
        "observe_rows": (np.zeros((4, 10), dtype=np.float32), 2),
        "play_random": (np.zeros(4, np.int32), 1, np.zeros(4), np.zeros(4, np.bool_)),
    }
    half_initialised(core.Batch, core.Config, good, bad, calls)
    blank = core.Config.__new__(core.Config)
    raises(RuntimeError, "Config is not initialised", lambda: core.new_state(blank, 0))
    raises(RuntimeError, "Config is not initialised", core.state_from_record, blank, b"")
    raises(TypeError, "cannot create", type(core.new_state(config, 0)))  # only built whole
    raises(RuntimeError, "Config is not initialised", lambda: blank.obs_size)
    spec = build_spec(core, vg.config)
    raises(RuntimeError, "Config: already initialised", lambda: config.__init__(spec))


def kd_half_initialised() -> None:
    from moonriver_env.kingdomino.vector._spec import core_config

    core = native()
    vg = kd_game(4)
    config = core_config(core, vg.config)
    a = vg._arrays
    outs = (a["legal"], a["mask"], a["num_legal"], a["seat"])
    good = (config, 4, *outs, a["phase"], None)
    bad = (config, 4, *outs, "not an array", None)
    calls = {
        "step": (np.zeros(4, dtype=np.int64), np.ones(4, dtype=np.bool_)),
        "new_game": (0, 1),
        "get_record": (0,),
        "scores": (0,),
        "observe_rows": (np.zeros((4, 10), dtype=np.float32), 2),
    }
    half_initialised(core.KdBatch, core.KdConfig, good, bad, calls)
    blank = core.KdConfig.__new__(core.KdConfig)
    raises(RuntimeError, "KdConfig is not initialised", lambda: core.kd_new_state(blank, 0))
    raises(RuntimeError, "KdConfig is not initialised", core.kd_state_from_record, blank, b"")
    raises(TypeError, "cannot create", type(core.kd_new_state(config, 0)))  # only built whole


class Shrinking:
    """An item whose conversion empties the list it is in."""

    def __init__(self, items: list, value: int) -> None:
        self.items, self.value = items, value

    def __index__(self) -> int:
        self.items.clear()
        return self.value

    def __float__(self) -> float:
        self.items.clear()
        return float(self.value)


class Playing:
    """An item whose conversion plays a move on the state it is passed to."""

    def __init__(self, state: Any, value: int) -> None:
        self.state, self.value = state, value

    def __index__(self) -> int:
        assert self.state.apply(self.state.legal()[0])
        return self.value


def shrinking(values: list) -> list:
    items: list = []
    items.extend([Shrinking(items, values[0]), *values[1:]])
    return items


def mr_mutating_sequences() -> None:
    from moonriver_env.moonriver.agents.evaluation import Weights
    from moonriver_env.moonriver.vector._backend import native_config

    core = native()
    vg = mr_game(1)
    state = core.new_state(native_config(vg.config), 3)
    weights = [float(getattr(Weights(), f)) for f in Weights.names()]
    legal = state.legal()[:4]
    want = state.action_values(legal, weights)
    assert state.action_values(shrinking(legal), weights) == want
    assert state.greedy_keys(shrinking(legal)) == state.greedy_keys(legal)
    assert state.action_values(legal, shrinking(weights)) == want
    width = vg.observation_size + 2 + 1
    rows = np.zeros((len(legal), width), dtype=np.float32)
    want = state.value_leaves(0, legal, 2, 5, weights, rows)
    got = state.value_leaves(0, shrinking(legal), 2, 5, shrinking(weights), rows)
    assert got == want
    # legal[0] (a setup claim) is taken by the move the first item's __index__ plays: the ids
    # are checked against the state as it is after every conversion
    raises(ValueError, "not legal", state.action_values, [Playing(state, legal[0])], weights)


def kd_mutating_sequences() -> None:
    from moonriver_env.kingdomino.vector._spec import core_config

    core = native()
    vg = kd_game(1)
    state = core.kd_new_state(core_config(core, vg.config), 3)
    legal = state.legal()[:4]
    words = (1, 2, 3, 5, 0, 0)
    want = state.monte_carlo(legal, 8, 0, 0, 0, words)
    assert state.monte_carlo(shrinking(legal), 8, 0, 0, 0, words) == want


SCENARIOS: dict[str, Callable[[], None]] = {
    f.__name__: f
    for f in (
        mr_two_steppers,
        kd_two_steppers,
        mr_writer,
        kd_writer,
        mr_random_and_rows_racing,
        kd_rows_racing,
        mr_random_and_rows_refusals,
        mr_half_initialised,
        kd_half_initialised,
        mr_mutating_sequences,
        kd_mutating_sequences,
    )
}


def run_all(scale: float = 1.0) -> None:
    """Every scenario in this interpreter (asan_check.py, with the sanitizer build loaded);
    the threaded ones on scale times their games."""
    for name, scenario in SCENARIOS.items():
        if "steppers" in name or "writer" in name or "racing" in name:
            scenario(max(8, int(2000 * scale)))  # type: ignore[call-arg]
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
