"""The baseline and search agents (package ``agents``): legal full games in every mode through
the PettingZoo loop, reproducibility from a seed, the greedy choice on a hand-built position,
no use of hidden information, agent specs and the policy wrapper."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from positions import position

from agents import AGENT_NAMES, PolicyAgent, RandomAgent, make_agent
from agents.base import Agent
from moonriver_env import moonriver_v0
from moonriver_env.moonriver.agents import GreedyAgent, HeuristicAgent, MCTSAgent, MonteCarloAgent
from moonriver_env.moonriver.agents.common import determinize
from moonriver_env.moonriver.agents.evaluation import Weights
from moonriver_env.moonriver.rules import GameConfig, GameState, Phase, new_game

# Tiny budgets: the tests check legality and plumbing, not strength.
TINY = {
    "random": "random",
    "greedy": "greedy",
    "heuristic": "heuristic",
    "mc": "mc:sims=6,depth=4,k=3",
    "mcts": "mcts:sims=6,depth=4,k=3,width=2",
}
MODES = [(n, m) for n in (2, 3, 4) for m in ("base", "legends")]


def play_env(agents: list[Agent], seed: int, **kwargs: object) -> tuple[list[int], dict]:
    """Play one game through ``moonriver_v0.env`` (wrapped: an illegal action would end the
    game with -1); return the actions and the final rewards."""
    env = moonriver_v0.env(**kwargs)
    env.reset(seed=seed)
    for i, agent in enumerate(agents):
        agent.reset(seed=seed * 10 + i)
    actions: list[int] = []
    rewards: dict = {}
    for name in env.agent_iter():
        obs, reward, term, trunc, _ = env.last()
        rewards[name] = reward
        if term or trunc:
            env.step(None)
            continue
        seat = env.unwrapped.agent_name_mapping[name]
        a = agents[seat].act(obs, env)
        assert obs["action_mask"][a] == 1, f"{agents[seat].name} chose illegal action {a}"
        actions.append(a)
        env.step(a)
    assert env.unwrapped.state.is_terminal
    return actions, rewards


@pytest.mark.parametrize(("n", "mode"), MODES, ids=[f"{n}p-{m}" for n, m in MODES])
def test_every_agent_finishes_games_in_every_mode(n: int, mode: str) -> None:
    names = list(AGENT_NAMES)
    games = -(-len(names) // n)  # every agent plays at least once
    for g in range(games):
        seats = [names[(g * n + i) % len(names)] for i in range(n)]
        agents = [make_agent(TINY[s], seed=i) for i, s in enumerate(seats)]
        _, rewards = play_env(agents, seed=100 + g, num_players=n, mode=mode)
        # Win rewards sum to zero; an illegal move would end the game with -1 + 0 + ...
        assert abs(sum(rewards.values())) < 1e-9


@pytest.mark.parametrize("name", AGENT_NAMES)
def test_same_seed_same_actions(name: str) -> None:
    def run() -> list[int]:
        agents = [make_agent(TINY[name], seed=5), make_agent("greedy", seed=6)]
        return play_env(agents, seed=3, num_players=2)[0]

    assert run() == run()


def test_greedy_takes_the_score_maximising_placement() -> None:
    # Seat 0: a meadow territory on a1-b1 (2 plots, 2 cows on a1: 2 x 2 = 4 points); it holds
    # two meadow gold plots (kind 12) and a farm (23). Joining the meadow pair to the
    # territory makes it 4 plots x 2 cows = 8, plus 2 gold: +6, the most any placement gives
    # (a meadow + farm pair adds 3 x 2 - 4 + 1 = +3; anything away from it just its gold).
    cfg = GameConfig(num_players=2)
    st = position(cfg, ranch="14c2 14 . . .", held=[12, 12, 23], phase=Phase.EXPAND)
    before = st.score_seat(0).total
    assert before == 4
    deltas = {}
    for a in st.legal_action_list():
        sim = st.clone()
        sim.apply(a)
        deltas[a] = sim.score_seat(0).total - before
    assert max(deltas.values()) == 6
    for seed in range(5):
        a = GreedyAgent(seed=seed).choose(st)
        assert deltas[a] == 6, st.action_to_string(a)
        assert st.action_to_string(a).startswith("place 0+1")


def _hidden_variant(state: GameState, seed: int) -> GameState:
    """The same table with the draw pile and the partner stack in another order."""
    other = state.clone()
    rng = np.random.default_rng(seed)
    rng.shuffle(other.pile)
    rng.shuffle(other.stack)
    assert sorted(other.pile) == sorted(state.pile) and other.pile != state.pile
    return other


def _positions() -> list[GameState]:
    return [st.clone() for st in _cached_positions()]


@functools.cache
def _cached_positions() -> tuple[GameState, ...]:
    """Decisions with several options along a 2-player game (claims, placements, ...)."""
    st = new_game(GameConfig(num_players=2), seed=11)
    player = HeuristicAgent(seed=0)
    out: list[GameState] = []
    phases: set[Phase] = set()
    while not st.is_terminal and len(out) < 6:
        if len(st.legal_action_list()) > 1 and st.round >= 3 and st.phase not in phases:
            phases.add(st.phase)
            out.append(st.clone())
        st.apply(player.choose(st))
    return tuple(out)


HIDDEN_SPECS = ["greedy", "heuristic", "mc:sims=24,depth=8,k=4", "mcts:sims=24,depth=8,k=4"]


@pytest.mark.parametrize("spec", HIDDEN_SPECS)
def test_agents_ignore_hidden_order(spec: str) -> None:
    # Same public table, another hidden order, same agent seed: the same action.
    name = spec.split(":")[0]
    for i, st in enumerate(_positions()):
        twin = _hidden_variant(st, seed=i)
        agent, other = make_agent(spec, seed=42), make_agent(spec, seed=42)
        a, b = agent.choose(st), other.choose(twin)
        # Search agents: the very same simulated values, not just the same choice.
        assert getattr(agent, "last_values", None) == getattr(other, "last_values", None)
        assert a == b, f"{name} at {st.phase.name}: {st.action_to_string(a)} vs {b}"


@pytest.mark.parametrize(
    "config",
    [
        GameConfig(num_players=2),
        GameConfig(num_players=3, mode="legends", scenario="timber_rafting"),
        GameConfig(num_players=4, mode="legends", boards="random"),
    ],
    ids=["2p", "3p-legends", "4p-legends"],
)
def test_heuristic_values_natively_with_the_same_decisions(config: GameConfig) -> None:
    """Issue 21, item 4: the heuristic's one-ply values in the core (the prior of ``mc`` and
    ``trained``) equal the Python ones to the last bit, decision for decision over a whole
    game, so the same decisions from the same seeds."""
    native = [
        HeuristicAgent(seed=s, weights=Weights(grow_w=0.7)) for s in range(config.num_players)
    ]
    python = [
        HeuristicAgent(seed=s, weights=Weights(grow_w=0.7)) for s in range(config.num_players)
    ]
    for agent in python:
        agent.native = False
    state = new_game(config, seed=5)
    compared = 0
    while not state.is_terminal:
        seat = state.seat
        if len(state.legal_action_list()) > 1:
            assert native[seat].action_values(state) == python[seat].action_values(state)
            compared += 1
        a = native[seat].choose(state)
        assert python[seat].choose(state) == a
        state.apply(a)
    assert compared > 50


def test_determinize_depends_only_on_public_information() -> None:
    st = _positions()[0]
    twin = _hidden_variant(st, seed=1)
    d1 = determinize(st, np.random.default_rng(9))
    d2 = determinize(twin, np.random.default_rng(9))
    assert d1.pile == d2.pile and d1.stack == d2.stack
    assert sorted(d1.pile) == sorted(st.pile) and st.pile == _positions()[0].pile


def test_single_legal_action_is_answered_at_once() -> None:
    cfg = GameConfig(num_players=2)
    # One free plot left in the next column: SELECT has a single legal action.
    st = position(
        cfg,
        ranch="1 1 . . .",
        phase=Phase.SELECT,
        next_column=[1, 1, 1, 1],
        next_claims=[1, 1, 0, -1],
    )
    assert len(st.legal_action_list()) == 1
    for name in ("mc", "mcts"):
        agent = make_agent(f"{name}:sims=50")
        assert agent.choose(st) == st.legal_action_list()[0]
        assert agent.last_sims == 0


def test_time_budget_agents_play_legal_moves() -> None:
    st = _positions()[1]
    for spec in ("mc:sims=0,time=0.05", "mcts:sims=0,time=0.05", "mc:sims=1000,time=0.02"):
        agent = make_agent(spec, seed=1)
        assert st.is_legal(agent.choose(st))


def test_make_agent_builds_every_registered_agent() -> None:
    kinds = {
        "random": RandomAgent,
        "greedy": GreedyAgent,
        "heuristic": HeuristicAgent,
        "mc": MonteCarloAgent,
        "mcts": MCTSAgent,
    }
    assert set(AGENT_NAMES) == set(kinds)
    for name, cls in kinds.items():
        agent = make_agent(name, seed=1)
        assert type(agent) is cls and agent.name == name
    a = make_agent("mcts:sims=200,time=0.5,c=1.2,width=4,rollout=random,depth=0", seed=3)
    assert isinstance(a, MCTSAgent)
    assert (a.sims, a.time, a.c, a.width, a.rollout_policy, a.depth) == (
        200,
        0.5,
        1.2,
        4,
        "random",
        0,
    )
    m = make_agent(" MC : sims=10 , k=0 , value=win , time=none ")
    assert isinstance(m, MonteCarloAgent) and (m.sims, m.k, m.value_mode, m.time) == (
        10,
        0,
        "win",
        None,
    )
    h = make_agent("heuristic:grow_w=0.9,waste_w=1")
    assert isinstance(h, HeuristicAgent) and h.evaluator.w.grow_w == 0.9


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ("", "spec"),
        ("alphazero", "spec"),
        ("mc:sims", "spec"),
        ("mc:sims=lots", "sims"),
        ("mc:sims=-1", "sims"),
        ("mcts:c=-1", "c"),
        ("mcts:width=0", "width"),
        ("mc:rollout=smart", "rollout"),
        ("mc:value=points", "value"),
        ("mc:depth=1.5", "depth"),
        ("mc:time=-2", "time"),
        ("mc:sims=0", "sims"),
        ("greedy:sims=3", "sims"),
        ("mc:k=2,k=3", "k"),
        ("heuristic:grow=1", "grow"),
        ("ppo:/no/such/model.zip", "path"),
    ],
)
def test_bad_specs_name_the_field(spec: str, field: str) -> None:
    with pytest.raises(ValueError, match=rf"^{field}\b"):
        make_agent(spec)


def test_policy_agent_wraps_a_callable() -> None:
    calls = []

    def first_legal(obs: dict, env: object) -> int:
        calls.append(env)
        return int(np.flatnonzero(obs["action_mask"])[0])

    agents: list[Agent] = [PolicyAgent(first_legal), RandomAgent(seed=1)]
    actions, _ = play_env(agents, seed=4, num_players=2)
    assert calls and actions
    # Engine-level use builds the observation itself.
    st = new_game(GameConfig(num_players=3), seed=2)
    assert st.is_legal(PolicyAgent(first_legal).choose(st))


def test_policy_agent_wraps_a_model_and_repairs_illegal_actions() -> None:
    class Model:
        def __init__(self, action: int | None) -> None:
            self.action = action
            self.seen: list[tuple] = []

        def predict(self, obs, action_masks=None, deterministic=True):
            self.seen.append((obs.shape, action_masks.dtype, deterministic))
            a = int(np.flatnonzero(action_masks)[-1]) if self.action is None else self.action
            return np.array(a), None

    env = moonriver_v0.env(num_players=2)
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    good = PolicyAgent(Model(None))
    a = good.act(obs, env)
    assert obs["action_mask"][a] and good.illegal == 0
    assert good.policy.seen[0][1] == np.bool_
    bad = PolicyAgent(Model(10**6 % obs["action_mask"].size), seed=0)
    obs["action_mask"][:] = 0
    obs["action_mask"][[1, 2]] = 1
    assert bad.act(obs, env) in (1, 2) and bad.illegal == 1
    with pytest.raises(TypeError, match="policy"):
        PolicyAgent(42)


def test_bare_ppo_spec_needs_the_shipped_checkpoint(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    from pathlib import Path

    from moonriver_env.moonriver import agents as moonriver_agents

    monkeypatch.setattr(moonriver_agents, "SHIPPED_PPO", Path(str(tmp_path)) / "none" / "model.zip")
    with pytest.raises(ValueError, match=r"^spec: no shipped checkpoint"):
        make_agent("ppo")
