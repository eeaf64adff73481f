"""Mini Draft: the family's third game, written only for the tests (``tests/family``).

Two seats, each with an empty 3 x 3 grid. Two tiles lie face up; the seat to move takes one
and lays it on an empty cell of its grid (action ``slot * 9 + cell``), and the slot is refilled
from the top of a hidden, shuffled pile (24 tiles, 8 of each of 3 colours). After 18 turns both
grids are full; a seat scores a point per pair of orthogonal neighbours of one colour. The
pile's order is the only hidden thing (:meth:`MiniDraftState.redetermine` re-draws it). With
``chance=True`` (the OpenSpiel game) the refills are explicit chance nodes instead: the outcome
is the colour drawn, with the pile's exact odds.

Everything a game of the family gives is here, registered by the one
``register_game(GameEntry(...))`` at the bottom; no file outside ``tests/family`` names it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from gymnasium import spaces

from moonriver_env.aec_base import GameAECEnv, env_metadata
from moonriver_env.family.records import ScoreSheet, SeatSheet
from moonriver_env.games import GameEntry, register_game
from moonriver_env.seat_rewards import rank_rewards

SIDE, COLOURS, SLOTS, PER_COLOUR = 3, 3, 2, 8
CELLS = SIDE * SIDE
COLOUR_NAMES = "rgb"


class IllegalActionError(ValueError):
    """An action that is not legal now; the state is unchanged."""


@dataclass(frozen=True)
class MiniDraftConfig:
    """The game's configuration: two players, one mode."""

    num_players: int = 2
    mode: str = "base"
    num_actions: int = SLOTS * CELLS
    max_game_length: int = 2 * CELLS

    def __post_init__(self) -> None:
        if self.num_players != 2 or self.mode != "base":
            raise ValueError(f"num_players: Mini Draft is 2p_base, got {self.num_players}")


class Score(NamedTuple):
    total: int


class MiniDraftState:
    """One game: ``grids[seat][cell]`` a colour or -1, ``face_up[slot]`` a colour or -1,
    ``pile`` the hidden tiles (drawn from the front), ``turn`` the decisions taken."""

    def __init__(self, config: MiniDraftConfig, pile: list[int], chance: bool = False) -> None:
        self.config, self.pile, self.chance, self.turn = config, pile, chance, 0
        self.grids = [[-1] * CELLS for _ in range(2)]
        self.face_up = [-1] * SLOTS
        if not chance:
            self.face_up = [self.pile.pop(0) for _ in range(SLOTS)]

    @property
    def current_seat(self) -> int | None:
        return None if self.is_terminal or self.pending else self.turn % 2

    @property
    def is_terminal(self) -> bool:
        return self.turn == 2 * CELLS

    @property
    def pending(self) -> bool:
        """A refill waits for its chance outcome (``chance=True`` only)."""
        return not self.is_terminal and -1 in self.face_up

    def legal_action_list(self) -> list[int]:
        if self.is_terminal or self.pending:
            return []
        grid = self.grids[self.turn % 2]
        return [s * CELLS + c for s in range(SLOTS) for c in range(CELLS) if grid[c] < 0]

    def legal_actions(self) -> np.ndarray:
        return np.array(self.legal_action_list(), dtype=np.int64)

    def legal_action_mask(self) -> np.ndarray:
        mask = np.zeros(self.config.num_actions, dtype=np.bool_)
        mask[self.legal_action_list()] = True
        return mask

    def is_legal(self, action: int) -> bool:
        return action in self.legal_action_list()

    def apply(self, action: int) -> None:
        if not self.is_legal(action):
            raise IllegalActionError(f"action {action!r} is not legal at turn {self.turn}")
        slot, cell = divmod(int(action), CELLS)
        self.grids[self.turn % 2][cell] = self.face_up[slot]
        self.face_up[slot] = -1
        self.turn += 1
        if not self.chance and not self.is_terminal:
            self.face_up[slot] = self.pile.pop(0)

    def chance_outcomes(self) -> list[tuple[int, float]]:
        counts = [self.pile.count(c) for c in range(COLOURS)]
        return [(c, n / len(self.pile)) for c, n in enumerate(counts) if n]

    def apply_chance(self, colour: int) -> None:
        self.pile.remove(colour)
        self.face_up[self.face_up.index(-1)] = colour

    def clone(self) -> MiniDraftState:
        return MiniDraftState.from_json(self.to_json())

    def redetermine(self, rng: np.random.Generator) -> None:
        rng.shuffle(self.pile)

    def scores(self) -> list[Score]:
        def pairs(g: list[int]) -> int:
            right = sum(g[c] == g[c + 1] >= 0 for c in range(CELLS) if c % SIDE < SIDE - 1)
            return right + sum(g[c] == g[c + SIDE] >= 0 for c in range(CELLS - SIDE))

        return [Score(pairs(g)) for g in self.grids]

    def points(self) -> list[int]:
        return [s.total for s in self.scores()]

    def winners(self) -> list[int]:
        points = self.points()
        return [s for s, p in enumerate(points) if p == max(points)] if self.is_terminal else []

    def action_to_string(self, action: int) -> str:
        slot, cell = divmod(int(action), CELLS)
        return f"take {slot} to {'abc'[cell % SIDE]}{cell // SIDE + 1}"

    def string_to_action(self, text: str) -> int:
        for action in range(self.config.num_actions):
            if self.action_to_string(action) == text.strip():
                return action
        raise IllegalActionError(f"no action reads {text!r}")

    def to_json(self) -> str:
        fields = ("pile", "chance", "turn", "grids", "face_up")
        return json.dumps({k: getattr(self, k) for k in fields})

    @classmethod
    def from_json(cls, text: str) -> MiniDraftState:
        raw = json.loads(text)
        state = cls(MiniDraftConfig(), [], chance=True)
        for key, value in raw.items():
            setattr(state, key, value)
        return state


def new_game(config: MiniDraftConfig, seed: int, chance: bool = False) -> MiniDraftState:
    """The game dealt by ``seed`` (the pile shuffled by it)."""
    pile = [c for c in range(COLOURS) for _ in range(PER_COLOUR)]
    if not chance:
        np.random.default_rng(seed).shuffle(pile)
    return MiniDraftState(config, pile, chance)


class MiniDraftEncoder:
    """Per grid (the observer's first) one-hot colour-or-empty per cell, the face-up tiles,
    the unseen tiles per colour and the turn: nothing about the pile's order."""

    def __init__(self, config: MiniDraftConfig) -> None:
        self.config = config
        self.size = 2 * CELLS * (COLOURS + 1) + SLOTS * (COLOURS + 1) + COLOURS + 1

    def encode_flat(self, state: MiniDraftState, seat: int) -> np.ndarray:
        seen = [*state.grids[seat], *state.grids[1 - seat], *state.face_up]
        out = np.zeros(self.size, dtype=np.float32)
        out[np.arange(len(seen)) * (COLOURS + 1) + np.array(seen) + 1] = 1.0
        for c in range(COLOURS):
            out[-1 - COLOURS + c] = (PER_COLOUR - seen.count(c)) / PER_COLOUR
        out[-1] = state.turn / (2 * CELLS)
        return out


class raw_env(GameAECEnv):  # noqa: N801 (PettingZoo's naming)
    """Mini Draft as a PettingZoo AEC environment (the generic bookkeeping of GameAECEnv)."""

    metadata = env_metadata("minidraft_v0")

    def __init__(
        self,
        num_players: int = 2,
        mode: str = "base",
        reward: str = "win",
        obs_type: str = "dict",
        render_mode: str | None = None,
    ) -> None:
        self._record_arguments(locals())
        self.config = MiniDraftConfig(num_players, mode)
        self.encoder = MiniDraftEncoder(self.config)
        self.reward_mode, self.obs_type, self.render_mode = reward, obs_type, render_mode
        self._init_agents(spaces.Box(0.0, 1.0, (self.encoder.size,), np.float32))

    def _new_game(self, seed: int) -> MiniDraftState:
        return new_game(self.config, seed)

    def _observation(self, state: MiniDraftState, seat: int) -> np.ndarray:
        return self.encoder.encode_flat(state, seat)

    def _win_rewards(self, state: MiniDraftState) -> list[float]:
        return rank_rewards(state.points())

    def _final_points(self, state: MiniDraftState) -> list[int]:
        return state.points()

    def _set_infos(self) -> None:
        self.infos = {a: {"points": self.state.points()} for a in self.agents}

    def _render_text(self, state: MiniDraftState) -> str:
        return "\n".join(
            " ".join(COLOUR_NAMES[c] if c >= 0 else "." for c in g) for g in state.grids
        )


def _read_records(state: MiniDraftState) -> tuple[dict[str, str], list[SeatSheet]]:
    """The tournament's view of a finished game: each seat's points, ranked by them."""
    return {}, [SeatSheet(text={}, scores={"total": p}, rank_key=(p,)) for p in state.points()]


RECORDS = ScoreSheet(score_columns=("total",), categories={"total": "pts"}, read=_read_records)


ENTRY = register_game(
    GameEntry(
        name="minidraft",
        title="Mini Draft",
        config_class=MiniDraftConfig,
        player_counts=(2,),
        modes=("base",),
        make_config=lambda spec, **overrides: MiniDraftConfig(spec.num_players, spec.mode),
        observation_size=lambda config: MiniDraftEncoder(config).size,
        env_entry_point="minidraft:raw_env",
        gymnasium_id="MiniDraft-v0",
        hooks={
            "new_game": "minidraft:new_game",
            "openspiel": "minidraft_openspiel:GAME_NAME",
            "replay": "minidraft_replay:REPLAY",
            "records": "minidraft:RECORDS",
        },
    )
)
__all__ = ["ENTRY", "RECORDS", "IllegalActionError", "MiniDraftState", "new_game", "raw_env"]
