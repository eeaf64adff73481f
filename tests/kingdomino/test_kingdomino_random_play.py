"""Random-play invariants over every player count and every combination of variants:
every domino accounted for, kings, grid bounds (:func:`check_state`), the score equals a
fresh recount from the kingdom text, the mask equals the legal set, save and load
round-trip, every game has ``max_game_length`` decisions (RULES.md section 13)."""

from __future__ import annotations

import random

import pytest
from kingdomino_cases import all_configs, config_id

from moonriver_env.kingdomino import (
    Kingdom,
    KingdominoConfig,
    KingdominoState,
    check_state,
    new_game,
    score_kingdom,
)

CONFIGS = all_configs()


def test_all_configs_are_the_64_the_rules_allow() -> None:
    assert len(CONFIGS) == 64 and len(set(CONFIGS)) == 64


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_random_play_keeps_every_invariant(config: KingdominoConfig) -> None:
    seed = sum(map(ord, config_id(config)))
    state = new_game(config, seed)
    rng = random.Random(seed)
    decisions = 0
    while not state.is_terminal:
        legal = state.legal_action_list()
        assert legal, "no legal action before the end"
        mask = state.legal_action_mask()
        assert mask.sum() == len(legal) and all(mask[a] for a in legal)
        state.apply(rng.choice(legal))
        decisions += 1
        check_state(state)
        if decisions % 7 == 0:
            for seat, kingdom in enumerate(state.kingdoms):
                fresh = Kingdom.from_text(kingdom.to_text(), config.size)
                recount = score_kingdom(fresh, config.variants)
                assert recount == state.scores()[seat]
                finished = sum(game[2 * seat] for game in state.results)
                assert state.points()[seat] == recount.total + finished
            assert KingdominoState.from_json(state.to_json()).to_json() == state.to_json()
    assert decisions == config.max_game_length
    assert state.legal_action_list() == []
    assert sum(map(len, state.placed)) + len(state.discarded) == config.dominoes_in_play
    assert sorted(state.box) == state.box
    winners = state.winners()
    keys = state.rank_keys()
    assert winners and all(keys[w] == max(keys) for w in winners)
