"""The native single-state API for Kingdomino search (moonriver_env.kingdomino.vector.search) against
the Python engine and the agents' playouts: the same JSON state after set-up, every legal
action, redetermine, random, greedy and player-greedy playouts and the mc agent's evaluation,
from many mid-game states in every player count and variant; bad input refused with a named
error, nothing changed."""

from __future__ import annotations

import numpy as np
import pytest
from test_kingdomino_core import CONFIGS

from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, new_game
from moonriver_env.kingdomino.agents import MonteCarloKingdominoAgent, playout
from moonriver_env.kingdomino.rules.core import IllegalActionError
from moonriver_env.vector import NATIVE

pytestmark = pytest.mark.skipif(not NATIVE, reason="the native core is not built")

if NATIVE:
    from moonriver_env.family.native import native
    from moonriver_env.kingdomino.vector._spec import kd_record_dtype
    from moonriver_env.kingdomino.vector.search import NativeKingdominoState


def midgame_states(config: KingdominoConfig, seed: int, count: int) -> list[KingdominoState]:
    """``count`` states of one random game, spread from its set-up to its end."""
    state = new_game(config, seed)
    rng = np.random.default_rng(seed)
    states = [state.clone()]
    while not state.is_terminal:
        legal = state.legal_action_list()
        state.apply(legal[int(rng.integers(len(legal)))])
        states.append(state.clone())
    picks = np.linspace(0, len(states) - 1, count).round().astype(int)
    return [states[i] for i in picks]


def config_of(num_players: int, variants: tuple[str, ...]) -> KingdominoConfig:
    return KingdominoConfig(num_players, variants)


IDS = [f"{n}p-{'+'.join(v) or 'base'}" for n, v in CONFIGS]


@pytest.mark.parametrize(("num_players", "variants"), CONFIGS, ids=IDS)
def test_state_round_trip_and_every_action(num_players: int, variants: tuple[str, ...]) -> None:
    config = config_of(num_players, variants)
    for seed in (1, 2):
        fresh = NativeKingdominoState(config, seed=seed)
        assert fresh.to_state().to_json() == new_game(config, seed).to_json()
        for state in midgame_states(config, seed, 6):
            ns = NativeKingdominoState.from_state(state)
            assert ns.to_state().to_json() == state.to_json()
            assert ns.legal_action_list() == state.legal_action_list()
            assert ns.current_seat == state.current_seat and ns.phase == state.phase
            assert ns.scores() == state.rank_keys() and ns.points() == state.points()
            assert ns.winners() == state.winners()
            for a in state.legal_action_list():
                mine, theirs = ns.clone(), state.clone()
                mine.apply(a)
                theirs.apply(a)
                assert mine.to_state().to_json() == theirs.to_json(), a
            assert ns.to_state().to_json() == state.to_json()  # the clones were independent


@pytest.mark.parametrize(("num_players", "variants"), CONFIGS, ids=IDS)
@pytest.mark.parametrize("policy", ["random", "greedy", "player_greedy"])
def test_playouts_equal_the_agents_playouts(
    num_players: int, variants: tuple[str, ...], policy: str
) -> None:
    config = config_of(num_players, variants)
    for k, state in enumerate(midgame_states(config, 30 + num_players, 4)):
        seat = k % num_players
        ns = NativeKingdominoState.from_state(state)
        points = ns.rollout(policy, seed=100 + k, seat=seat)
        ref = state.clone()
        playout(ref, policy, np.random.default_rng(100 + k), seat)
        assert ns.to_state().to_json() == ref.to_json()
        assert points == ref.points()
        assert ns.is_terminal


def test_random_rollout_is_the_python_loop() -> None:
    """``legal[rng.integers(len(legal))]`` with the same seed plays the same game."""
    config = config_of(3, ("harmony",))
    state = new_game(config, 4)
    ns = NativeKingdominoState.from_state(state)
    ns.rollout("random", seed=9)
    rng = np.random.default_rng(9)
    while not state.is_terminal:
        legal = state.legal_action_list()
        state.apply(legal[rng.integers(len(legal))])
    assert ns.to_state().to_json() == state.to_json()


@pytest.mark.parametrize(("num_players", "variants"), CONFIGS, ids=IDS)
def test_redetermine_equals_the_engine(num_players: int, variants: tuple[str, ...]) -> None:
    config = config_of(num_players, variants)
    for k, state in enumerate(midgame_states(config, 50, 5)):
        ns = NativeKingdominoState.from_state(state)
        ns.redetermine(k)
        ref = state.clone()
        ref.redetermine(np.random.default_rng(k))
        assert ns.to_state().to_json() == ref.to_json()
        mine, theirs = np.random.default_rng(7 + k), np.random.default_rng(7 + k)
        ns.redetermine(mine)
        ref.redetermine(theirs)
        assert ns.to_state().to_json() == ref.to_json()
        assert mine.bit_generator.state == theirs.bit_generator.state


@pytest.mark.parametrize(
    ("num_players", "variants", "policy", "value"),
    [
        (2, (), "player_greedy", "win"),
        (3, ("harmony", "middle_kingdom"), "greedy", "margin"),
        (4, ("must_place", "harmony", "middle_kingdom"), "random", "win"),
        (2, ("mighty_duel",), "greedy", "win"),
        (2, ("harmony", "middle_kingdom", "dynasty"), "player_greedy", "margin"),
    ],
)
def test_monte_carlo_is_the_mc_agents_evaluation(
    num_players: int, variants: tuple[str, ...], policy: str, value: str
) -> None:
    """The agent's own loop and the core's, from the same generator: the same decision and
    the generator left in the same state (so the same playouts were drawn)."""
    config = config_of(num_players, variants)
    checked = 0
    for k, state in enumerate(midgame_states(config, 60 + num_players, 5)[:-1]):
        agent = MonteCarloKingdominoAgent(
            seed=k, sims=1, rollout=policy, value=value, engine="python"
        )
        cands = agent.candidates(state)
        if len(cands) < 2:
            continue
        agent.sims = sims = 3 * len(cands) + 1  # ends within a round
        mine = np.random.default_rng()
        mine.bit_generator.state = agent.rng.bit_generator.state
        ns = NativeKingdominoState.from_state(state)
        totals, counts = ns.monte_carlo(cands, sims, policy, value, state.seat, mine)
        want = agent.choose(state)
        best = max(range(len(cands)), key=lambda i: (totals[i] / counts[i], -i))
        assert cands[best] == want
        assert mine.bit_generator.state == agent.rng.bit_generator.state
        assert sum(counts) == sims and counts[0] == 4 and counts[-1] == 3
        assert ns.to_state().to_json() == state.to_json()  # evaluated on a copy
        checked += 1
    assert checked


def test_monte_carlo_can_disagree() -> None:
    """Another generator gives other totals (the comparison above can fail)."""
    config = config_of(2, ())
    state = midgame_states(config, 3, 3)[1]
    cands = state.legal_action_list()[:3]
    ns = NativeKingdominoState.from_state(state)
    a = ns.monte_carlo(cands, 30, "random", "margin", state.seat, np.random.default_rng(1))
    b = ns.monte_carlo(cands, 30, "random", "margin", state.seat, np.random.default_rng(2))
    assert a != b


def test_illegal_actions_and_bad_arguments_change_nothing() -> None:
    config = config_of(4, ())
    state = midgame_states(config, 5, 3)[1]
    ns = NativeKingdominoState.from_state(state)
    before = ns.to_state().to_json()
    illegal = [a for a in range(config.num_actions) if not state.is_legal(a)][:5]
    for bad in [*illegal, -1, config.num_actions, 2**40, 2**70]:
        with pytest.raises(IllegalActionError, match="not legal"):
            ns.apply(bad)
    for bad_type in ("pick 1", 1.0, True, None):
        with pytest.raises(IllegalActionError, match="action"):
            ns.apply(bad_type)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="policy"):
        ns.clone().rollout("heuristic")
    with pytest.raises(ValueError, match="seat"):
        ns.clone().rollout("player_greedy", seat=4)
    with pytest.raises(ValueError, match="seed"):
        ns.redetermine(-1)
    rng = np.random.default_rng(0)
    legal = state.legal_action_list()
    with pytest.raises(ValueError, match="not legal"):
        ns.monte_carlo([legal[0], illegal[0]], 4, "random", "win", 0, rng)
    with pytest.raises(ValueError, match="value"):
        ns.monte_carlo(legal, 4, "random", "score", 0, rng)
    with pytest.raises(ValueError, match="sims"):
        ns.monte_carlo(legal, 0, "random", "win", 0, rng)
    with pytest.raises(ValueError, match="candidates"):
        ns.monte_carlo([], 4, "random", "win", 0, rng)
    with pytest.raises(ValueError, match="PCG64"):
        ns.monte_carlo(legal, 4, "random", "win", 0, np.random.Generator(np.random.MT19937(0)))
    with pytest.raises(TypeError, match="KdState"):
        ns.copy_from(NativeKingdominoState(config_of(2, ())))
    assert ns.to_state().to_json() == before
    assert rng.bit_generator.state == np.random.default_rng(0).bit_generator.state


def test_bad_records_are_refused_by_name() -> None:
    """A record the rules could not have made is refused (a named ValueError); random bytes
    into a good record are refused or play legally, never out of bounds (the sanitizer run
    repeats this)."""
    config = config_of(3, ("harmony",))
    state = midgame_states(config, 8, 3)[1]
    dtype = kd_record_dtype(native)
    from moonriver_env.kingdomino.vector._spec import core_config, state_to_record

    cfg = core_config(native, config)
    good = state_to_record(dtype, state)
    cases = {
        "phase": ("phase", 7),
        "seat": ("seat", 3),
        "dominoes": ("pile", 47),
        "box_len": ("box_len", 3),
        "turn_pos|cur_kings": ("turn_pos", 3),
        "cur_kings": ("cur_kings", 5),
        "land": ("land", 9),
        "crowns": ("crowns", 4),
    }
    for why, (field, value) in cases.items():
        rec = np.frombuffer(good, dtype=dtype).copy()
        rec[field] = value
        with pytest.raises(ValueError, match=why):
            native.kd_state_from_record(cfg, rec.tobytes())
    with pytest.raises(ValueError, match="bytes"):
        native.kd_state_from_record(cfg, good[:-1])
    too_long = state.clone()
    too_long.pile = list(range(48)) * 2
    with pytest.raises(ValueError, match="record"):
        NativeKingdominoState.from_state(too_long)
    fuzz_records(cfg, good, rounds=300)


def fuzz_records(cfg: object, good: bytes, rounds: int) -> None:
    """Flip random bytes of ``good``; a record the core accepts must play to the end."""
    rng = np.random.default_rng(0)
    accepted = 0
    for _ in range(rounds):
        raw = bytearray(good)
        for _ in range(int(rng.integers(1, 6))):
            raw[int(rng.integers(len(raw)))] = int(rng.integers(256))
        try:
            core = native.kd_state_from_record(cfg, bytes(raw))
        except ValueError:
            continue
        accepted += 1
        core.rollout(1, int(rng.integers(2**32)), -1)
        assert core.phase == 3
    assert accepted > 0


def test_clone_is_a_struct_copy() -> None:
    ns = NativeKingdominoState(config_of(2, ()), seed=1)
    assert ns.time_clones(1000) == 1000
    other = ns.clone()
    other.rollout("random", seed=1)
    assert not ns.is_terminal and other.is_terminal
    ns.copy_from(other)
    assert ns.to_state().to_json() == other.to_state().to_json()
