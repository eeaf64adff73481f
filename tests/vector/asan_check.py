"""Run inside a fresh interpreter with an AddressSanitizer build of the core preloaded (by
tests/vector/test_sanitizers.py): loads that build as ``moonriver_env._native``, then runs the
differential check, a fuzz of raw records and actions, and the safety scenarios of
test_core_safety.py (threads stepping one batch of either game, a thread writing the actions
during a step, half-initialised objects, sequences changed by their items) and those of
tests/az/test_az_safety.py (the az agent's Net, search and self-play), then searches and
self-play stopped as Ctrl-C stops them (az_interrupts). Not a test module."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np


def load(path: str) -> None:
    loader = importlib.machinery.ExtensionFileLoader("moonriver_env._native", path)
    spec = importlib.util.spec_from_file_location("moonriver_env._native", path, loader=loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    sys.modules["moonriver_env._native"] = module
    import moonriver_env

    moonriver_env._native = module  # type: ignore[attr-defined]


def fuzz() -> None:
    """Random bytes in records and random action ids: refused or played, never out of bounds."""
    from moonriver_env.rules import IllegalActionError
    from moonriver_env.vector import VectorGame

    rng = np.random.default_rng(0)
    for players in (2, 3, 4):
        vg = VectorGame(num_games=4, num_players=players, mode="legends", seed=players)
        batch = vg._backend._batch
        good = batch.get_record(0)
        for _ in range(400):
            raw = bytearray(good)
            for _ in range(int(rng.integers(1, 12))):
                raw[int(rng.integers(len(raw)))] = int(rng.integers(256))
            try:
                batch.set_record(0, bytes(raw))
            except ValueError:
                continue
            for _ in range(20):
                actions = rng.integers(-5, vg.num_actions + 5, size=4)
                try:
                    vg.step(actions)
                except IllegalActionError:
                    pick = (rng.random(4) * vg.num_legal).astype(np.int64)
                    vg.step(vg.legal_ids[np.arange(4), pick].astype(np.int64))
            good = batch.get_record(0)


def search() -> None:
    """The mc agent's native simulations (agent.c) and the single-state API."""
    from agents.registry import make_agent
    from moonriver_env.rules import GameConfig, new_game

    for players, spec in ((2, "mc:sims=16"), (4, "mc:sims=8,rollout=random,depth=0")):
        agent = make_agent(spec, seed=players)
        state = new_game(GameConfig(num_players=players, mode="legends"), seed=players)
        for _ in range(40):
            if state.is_terminal:
                break
            state.apply(agent.choose(state))


def value_leaves() -> None:
    """The trained agent's leaves, the heuristic's one-ply values, the greedy agent's keys and
    the state's observation (agent.c mr_value_leaf, mr_action_values, mr_greedy_keys; mr_encode) from positions over whole games, at
    every kind of depth, and bad candidates, seats and buffers refused."""
    from moonriver_env.moonriver.agents.evaluation import Weights
    from moonriver_env.moonriver.rules import GameConfig, new_game
    from moonriver_env.moonriver.vector.search import NativeState

    weights = [getattr(Weights(), f) for f in Weights.names()]
    for players in (2, 3, 4):
        state = new_game(GameConfig(num_players=players, mode="legends"), seed=players)
        rng = np.random.default_rng(players)
        step = 0
        while not state.is_terminal:
            legal = state.legal_action_list()
            core = NativeState.from_state(state)
            for depth in (-1, 3) if step % 6 else (-1, 0, 3):
                core.value_leaves(state.seat, legal[:6], depth, int(rng.integers(2**62)), weights)
            core.action_values(legal, weights)
            core.greedy_keys(legal)
            core.observation(state.seat)
            state.apply(legal[int(rng.integers(len(legal)))])
            step += 1
        core = NativeState.from_state(new_game(state.config, seed=0))
        legal = core.legal_action_list()
        for actions, rows in (([-1], 1), ([2**40], 1), (legal[:2], 1), (legal[:1], 2)):
            buffer = np.zeros((rows, 10), dtype=np.float32)
            try:
                core._core.value_leaves(0, actions, 2, 0, tuple(weights), buffer)
            except (ValueError, OverflowError):
                continue
            raise AssertionError(f"value_leaves accepted {actions} with {rows} rows")
        for seat, size in ((0, 10), (-1, 100_000), (players, 100_000)):
            try:
                core._core.observe(seat, np.zeros(size, dtype=np.float32))
            except ValueError:
                continue
            raise AssertionError(f"observe accepted seat {seat} with a buffer of {size}")
        for actions in ([-1], [2**40], [*legal, 10**6]):
            for method in ("action_values", "greedy_keys"):
                try:
                    if method == "action_values":
                        core.action_values(actions, weights)
                    else:
                        core.greedy_keys(actions)
                except ValueError:
                    continue
                raise AssertionError(f"action_values or greedy_keys accepted {actions}")


def kingdomino() -> None:
    """Kingdomino on the core: the differential check over its configs, then random and
    out-of-range action ids into every game, and the greedy and heuristic values of every game
    and of out-of-range ones."""
    from test_kdsearch import fuzz_records, midgame_states
    from test_kingdomino_core import CONFIGS, compare

    from moonriver_env.family.native import native
    from moonriver_env.kingdomino import KingdominoConfig
    from moonriver_env.kingdomino.rules.core import IllegalActionError
    from moonriver_env.kingdomino.vector._spec import core_config, kd_record_dtype, state_to_record
    from moonriver_env.kingdomino.vector.game import KingdominoVectorGame
    from moonriver_env.kingdomino.vector.search import NativeKingdominoState

    for players, variants in CONFIGS:
        compare(players, variants, seed=7, games=1, kind="random")
        compare(players, variants, seed=8, games=1, kind="discard_last")
        vg = KingdominoVectorGame(num_games=4, num_players=players, variants=variants, seed=1)
        rng = np.random.default_rng(players)
        for _ in range(300):
            ids = rng.integers(-(2**40), 2**40, size=4)
            ids[rng.random(4) < 0.7] = rng.integers(-2, vg.num_actions + 2, size=4)[0]
            try:
                vg.step(ids)
            except IllegalActionError:
                vg.step(vg.legal_ids[:, 0].astype(np.int64))
            for i in range(4):  # the agents' values of every game, finished ones included
                for agent in ("greedy", "heuristic"):
                    top = vg.best_moves(i, agent)
                    legal = set(vg.legal_ids[i, : vg.num_legal[i]])
                    assert top is not None and set(top) <= legal
        for bad in (-1, 4, 2**40):
            for method in (vg._backend._batch.greedy_top, vg._backend._batch.heuristic_top):
                try:
                    method(bad)  # past the Python API's own check
                except (IndexError, ValueError, OverflowError):
                    continue
                raise AssertionError(f"{method.__name__}({bad}) was not refused")
        config = KingdominoConfig(players, variants)
        for state in midgame_states(config, players, 4):
            ns = NativeKingdominoState.from_state(state)
            if not ns.is_terminal:
                cands = ns.legal_action_list()[:4]
                for policy in ("random", "greedy", "player_greedy"):
                    ns.monte_carlo(cands, 6, policy, "win", state.seat, rng)
            fuzz_records(
                core_config(native, config), state_to_record(kd_record_dtype(native), state), 40
            )


def az_interrupts() -> None:
    """Searches and self-play games in three threads, stopped by ``az_interrupt()`` (what
    Ctrl-C does) at once or after a moment, again and again in both games: every early exit
    frees what it took and reads nothing out of bounds; a search made afterwards runs whole."""
    from test_az_safety import native, net_of, spec, state_of

    from agents.az.search import SearchSettings

    core = native()
    slow = SearchSettings(k=8, r=4096, depth=64, max_depth=100_000, leaves=4).as_tuple()
    fast = SearchSettings(k=2, r=1, depth=1, max_depth=4).as_tuple()
    for game, players in (("moonriver", 2), ("kingdomino", 4)):
        gs = spec(game, players)
        net, state = net_of(gs), state_of(gs, 1)._core
        for turn in range(6):
            ended = _interrupted_calls(core, state, net, slow, turn)
            assert ended == ["stopped"] * 3, ended
        action, legal = core.az_search(state, net, fast, 0, False)[:2]
        assert action in legal
        raw = SearchSettings(k=0).as_tuple()  # whole games, every move drawn (PPO's rollouts)
        out = core.az_selfplay(state, net, 2, 3, raw, False, 1 << 30, 0.8, 1.0, 1.0, None,
                               False, 0.0)  # fmt: skip
        chosen = np.frombuffer(out["chosen"], np.int16)
        legal_off = np.frombuffer(out["legal_off"], np.int64)
        assert chosen.size == out["positions"] and np.all(chosen < np.diff(legal_off))
        actor = ~np.isnan(np.frombuffer(out["pi"], np.float32)[legal_off[:-1]])
        assert np.all(chosen[actor] >= 0) and np.all(chosen[~actor] == -1)


def _interrupted_calls(
    core: Any, state: Any, net: Any, settings: tuple[Any, ...], seed: int
) -> list[str]:
    """Two searches and a self-play call of ``settings`` in threads, ``az_interrupt()`` after
    ``seed`` x 20 ms and again until all three have ended: how each ended."""
    import threading
    import time

    ended: list[str] = []
    calls = [
        lambda: core.az_search(state, net, settings, seed, seed % 2 == 1),
        lambda: core.az_search(state, net, settings, seed + 1, False),
        lambda: core.az_selfplay(
            state, net, 2, seed, settings, False, 2, 0.5, 0.8, 0.5, None, False, 0.0
        ),
    ]

    def run(call: Callable[[], Any]) -> None:
        try:
            call()
            ended.append("finished")
        except KeyboardInterrupt:
            ended.append("stopped")

    pool = [threading.Thread(target=run, args=(c,)) for c in calls]
    for t in pool:
        t.start()
    time.sleep(0.02 * seed)
    while any(t.is_alive() for t in pool):  # again for a call that began since
        core.az_interrupt()
        for t in pool:
            t.join(0.05)
    return ended


def sparse() -> None:
    """The sparse observation of both games stepped against the dense one (with every legal
    move's afterstate), a ranch width too small for its rows, the sparse products and the
    afterstates with good and out-of-range input."""
    from moonriver_env.family.native import native
    from moonriver_env.family.sparse import unpack_rows
    from moonriver_env.moonriver.vector._backend import native_config
    from moonriver_env.vector import KingdominoVectorGame, VectorGame

    rng = np.random.default_rng(0)
    for vg in (VectorGame(num_games=8, num_players=4, mode="legends", seed=1, observe="both"),
               KingdominoVectorGame(num_games=8, num_players=2, seed=1, observe="both")):
        rows = np.arange(8)
        for step in range(200):
            dense = unpack_rows(vg.obs_idx, vg.obs_val, vg.observation_size)
            assert np.array_equal(dense, vg.observation)
            aft = vg.afterstates(rows, seed=step, features=bool(step % 2))  # every legal move
            assert aft.legal.size == int(vg.num_legal.sum()) == aft.off.size - 1
            pick = (rng.random(8) * vg.num_legal).astype(np.int64)
            vg.step(vg.legal_ids[rows, pick].astype(np.int64))
    vg = VectorGame(num_games=2, num_players=2, seed=0, observe=False)
    a, w = vg.num_actions, 8
    nnz = np.zeros(2, np.int32)
    acting = np.zeros(2, np.int32)
    batch = native.Batch(
        native_config(vg.config), 2, 0, 0.0, True, None, np.zeros((2, a), np.int8),
        np.zeros((2, a), np.int16), np.zeros(2, np.int32), acting,
        np.zeros((2, 2)), np.zeros(2, np.bool_), np.zeros((2, 2, 7), np.int32),
        sparse_idx=np.zeros((2, w), np.int32), sparse_val=np.zeros((2, w), np.float32),
        sparse_nnz=nnz, sparse_width=w, ranch_width=4,
    )
    batch.reset(np.arange(2, dtype=np.uint64))
    assert (nnz == -1).all()
    seats = np.zeros(2, np.int32)
    narrow = native.Batch(  # without the sparse outputs: observe_rows's own lists, too narrow
        native_config(vg.config), 2, 0, 0.0, True, None, np.zeros((2, a), np.int8),
        np.zeros((2, a), np.int16), np.zeros(2, np.int32), seats,
        np.zeros((2, 2)), np.zeros(2, np.bool_), np.zeros((2, 2, 7), np.int32), ranch_width=4,
    )
    narrow.reset(np.arange(2, dtype=np.uint64))
    for b, seat in ((batch, acting), (narrow, seats)):  # lists too narrow: rows by the encoder
        out = np.full((2, vg.observation_size), np.nan, np.float32)
        b.observe_rows(out, 2)
        for i in range(2):
            one = np.zeros(vg.observation_size, np.float32)
            b.observe(i, int(seat[i]), one)
            assert np.array_equal(out[i], one)
    dense = VectorGame(num_games=8, num_players=4, mode="legends", seed=2, observe=True)
    quiet = VectorGame(num_games=8, num_players=4, mode="legends", seed=2, observe=False)
    rows = np.arange(8)
    for step in range(200):  # observe_rows from the lists it makes, against the dense rows
        assert np.array_equal(quiet.observe_rows(threads=1 + step % 3), dense.observation)
        pick = (rng.random(8) * dense.num_legal).astype(np.int64)
        moves = dense.legal_ids[rows, pick].astype(np.int64)
        dense.step(moves)
        quiet.step(moves)
    for rows in (b"\x01" * 7, np.array([2], np.int64).tobytes(), np.array([-1], np.int64).tobytes(),
                 np.array([2**62], np.int64).tobytes()):  # fmt: skip
        try:
            batch.afterstates(rows, 0, False)
        except (ValueError, IndexError):
            pass
        else:
            raise AssertionError("afterstates took rows out of range")
    crow = np.array([0, 3, 5], np.int64)
    weights = rng.random((10, 4)).astype(np.float32)
    for idx in (np.array([1, 2, 9, 0, 4], np.int64), np.array([1, 2, 10, 0, -1], np.int64)):
        val = np.ones(5, np.float32)
        try:
            native.sparse_matmul(crow, idx, val, weights, np.zeros((2, 4), np.float32), 10, 4)
            native.sparse_matmul_t(crow, idx, val, np.ones((2, 4), np.float32),
                                   np.zeros((10, 4), np.float32), 10, 4)
        except ValueError:
            assert idx.max() >= 10 or idx.min() < 0


if __name__ == "__main__":
    load(sys.argv[1])
    from moonriver_env.family.native import native as used
    from moonriver_env.moonriver.vector.check import main

    assert used is not None and used.__file__ == sys.argv[1]
    fuzz()
    search()
    value_leaves()
    kingdomino()
    sparse()
    from test_core_safety import run_all

    run_all(scale=0.25)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "az"))
    from test_az_safety import run_all as run_az_scenarios  # the learned agent's core (issue 33)

    run_az_scenarios(scale=0.25)
    az_interrupts()
    sys.exit(main(["--games", sys.argv[2]]))
