"""The agents of the family: every registered game offers its agents through its entry's
``agents`` hook, ``make_agent(spec, game=...)`` finds them there, and the generic agent
modules name no game."""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from agents import AGENT_NAMES, Agent, PolicyAgent, make_agent, parse_spec
from agents.base import AgentKind, describe_game, engine_state, env_config
from agents.registry import game_agents
from moonriver_env.games import GAMES, GameSpec

REPO = Path(__file__).resolve().parents[2]
GENERIC = (
    "agents/__init__.py",
    "agents/base.py",
    "agents/registry.py",
    "agents/random_agent.py",
    "agents/rllib_agent.py",
    "agents/search.py",
    "agents/spec_params.py",
    "agents/az/checkpoint.py",
)
"""The agent modules that serve every game: they import no game's package and spell no
game's name."""


@pytest.mark.parametrize("game", list(GAMES))
def test_every_game_offers_the_baseline_agents_by_its_hook(game: str) -> None:
    kinds = game_agents(game)
    assert kinds is GAMES[game].hook("agents")
    assert set(AGENT_NAMES) <= set(kinds)
    for name in AGENT_NAMES:
        assert isinstance(kinds[name], AgentKind)
        agent = make_agent(f" {name} ", seed=3, game=game)
        assert isinstance(agent, Agent) and agent.name == name and agent.spec == name
        config = GameSpec(game=game).config()
        agent.check_game(config)  # every baseline agent plays its own game


@pytest.mark.parametrize("game", list(GAMES))
def test_a_baseline_agent_plays_its_game_through_the_environment(game: str) -> None:
    env = GameSpec(game=game).make_env()
    env.reset(seed=5)
    agents = [make_agent("greedy", seed=i, game=game) for i in range(2)]
    for _ in range(30):
        seat = env.agents.index(env.agent_selection)
        obs = env.observe(env.agent_selection)
        action = agents[seat].act(obs, env)
        assert obs["action_mask"][action]
        assert engine_state(env).is_terminal is False
        assert env_config(env) is engine_state(env).config
        env.step(action)


@pytest.mark.parametrize("game", list(GAMES))
def test_a_policy_sees_each_game_through_its_encoder_hook(game: str) -> None:
    env = GameSpec(game=game).make_env()
    env.reset(seed=2)
    state = engine_state(env)
    seen: list[dict[str, np.ndarray]] = []

    def policy(observation: dict[str, np.ndarray], env: object) -> int:
        seen.append(observation)
        return int(np.flatnonzero(observation["action_mask"])[-1])

    action = PolicyAgent(policy).choose(state)
    shown = env.observe(env.agent_selection)
    assert action == int(state.legal_actions()[-1])
    assert seen[0]["observation"].shape == shown["observation"].shape
    np.testing.assert_array_equal(seen[0]["action_mask"], shown["action_mask"])


def test_an_unknown_agent_is_named_with_the_game_s_agents() -> None:
    with pytest.raises(ValueError, match=r"^spec: unknown Kingdomino agent 'trained' \(known: "):
        parse_spec("trained", game="kingdomino")
    with pytest.raises(ValueError, match=r"^spec: unknown Moon River agent 'x' .*trained:PATH"):
        make_agent("x")
    with pytest.raises(ValueError, match=r"^game: expected one of"):
        make_agent("greedy", game="chess")


def test_engine_state_refuses_what_is_no_game() -> None:
    with pytest.raises(TypeError, match=r"^env: expected a game environment"):
        engine_state(object())
    assert env_config(object()) is None


def test_describe_game_spells_every_game() -> None:
    assert describe_game(GameSpec(num_players=3, mode="legends").config()) == "3p_legends"
    assert describe_game(GameSpec(game="kingdomino").config()) == "kingdomino_2p_base"


def _imports(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.append(node.module)
        elif isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
    return found


@pytest.mark.parametrize("path", GENERIC)
def test_the_generic_agent_modules_name_no_game(path: str) -> None:
    tree = ast.parse((REPO / path).read_text())
    games = [f"moonriver_env.{name}" for name in GAMES]
    bad = [m for m in _imports(tree) if any(m == g or m.startswith(g + ".") for g in games)]
    assert not bad, f"{path} imports a game: {bad}"
    spelled = [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in GAMES
    ]
    assert not spelled, f"{path} spells a game's name: {spelled}"


def test_kingdomino_s_bare_ppo_is_its_shipped_model(monkeypatch: pytest.MonkeyPatch) -> None:
    """``ppo`` in Kingdomino plays the shipped reference-PPO model's raw policy; without the
    file, a named error asks for a path."""
    from agents.az import AzAgent
    from moonriver_env.kingdomino import agents as kd_agents

    agent = make_agent("ppo", game="kingdomino")
    assert isinstance(agent, AzAgent) and agent.raw and agent.path == kd_agents.SHIPPED_PPO
    monkeypatch.setattr(kd_agents, "SHIPPED_PPO", kd_agents.SHIPPED_PPO.with_name("gone.pt"))
    with pytest.raises(ValueError, match=r"^spec: no shipped model at .*give ppo:PATH"):
        make_agent("ppo", game="kingdomino")
