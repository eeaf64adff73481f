"""One Kingdomino game in the native core, for search: clone, apply, legal actions, scores,
redetermine, playouts and the Monte Carlo agent's evaluation at C speed.

A :class:`NativeKingdominoState` is the game a :class:`~moonriver_env.kingdomino.
KingdominoState` plays (made from one with :meth:`NativeKingdominoState.from_state`, or set up
from a seed as ``new_game(config, seed)``); :meth:`NativeKingdominoState.to_state` gives it
back, equal to the engine's state down to its JSON (the generator included). Its random
parts use NumPy's generator as the engine and the agents of ``moonriver_env/kingdomino/agents/``
do, so the same seed plays the same game:

- ``redetermine(seed)`` shuffles as ``KingdominoState.redetermine(default_rng(seed))``
  (or pass a generator: it is advanced as NumPy would);
- ``rollout(policy, seed, seat)`` is ``playout(state, policy, default_rng(seed), seat)``:
  ``"random"`` plays ``legal[rng.integers(len(legal))]``, ``"greedy"`` the greedy agent's
  placement and pick (largest immediate gain, ties by ``rng.integers``), ``"player_greedy"``
  greedy for ``seat`` and random for the others;
- ``monte_carlo(candidates, sims, policy, value, seat, rng)`` is the ``mc`` agent's loop
  with a playout budget, in one call with the GIL released: the same totals and counts per
  candidate as ``MonteCarloKingdominoAgent.choose`` draws from the same generator.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from moonriver_env.family.core_state import CoreState, check_seed64
from moonriver_env.family.native import IMPORT_ERROR
from moonriver_env.family.native import native as _maybe_native
from moonriver_env.family.rng import generator_words, set_generator_words
from moonriver_env.kingdomino import KingdominoConfig, KingdominoState, Phase
from moonriver_env.kingdomino.rules.core import IllegalActionError
from moonriver_env.kingdomino.rules.scoring import rank_winners
from moonriver_env.kingdomino.vector._spec import (
    core_config,
    kd_record_dtype,
    record_to_state,
    state_to_record,
)

__all__ = ["NativeKingdominoState"]


def _extension() -> Any:
    """The extension module; ``ImportError`` when the core is not built (or switched off)."""
    if _maybe_native is None:
        raise ImportError(
            f"moonriver_env.kingdomino.vector.search needs the native core: {IMPORT_ERROR}"
        )
    return _maybe_native


_CONFIGS: dict[KingdominoConfig, Any] = {}


def _core_config(config: KingdominoConfig) -> Any:
    """The core's ``KdConfig`` of ``config`` (built once per config)."""
    cfg = _CONFIGS.get(config)
    if cfg is None:
        if not isinstance(config, KingdominoConfig):
            raise TypeError(f"config: expected a KingdominoConfig, got {type(config).__name__}")
        cfg = _CONFIGS[config] = core_config(_extension(), config)
    return cfg


def _code(kind: str, name: object, names: Sequence[str]) -> int:
    if name not in names:
        raise ValueError(f"{kind}: expected one of {', '.join(names)}, got {name!r}")
    return list(names).index(str(name))


class NativeKingdominoState(CoreState):
    """One Kingdomino game in the core (see the module docstring; the game-free part:
    :class:`CoreState`)."""

    __slots__ = ()
    phases = Phase
    illegal_action_error = IllegalActionError

    def __init__(
        self, config: KingdominoConfig | None = None, seed: int = 0, *, _core: Any = None
    ) -> None:
        self.config = KingdominoConfig() if config is None else config
        if _core is None:
            _core = _extension().kd_new_state(_core_config(self.config), check_seed64(seed))
        self._core = _core

    @classmethod
    def from_state(cls, state: KingdominoState) -> NativeKingdominoState:
        """The game of ``state``, checked by the core (``ValueError`` naming a bad field)."""
        if not isinstance(state, KingdominoState):
            raise TypeError(f"state: expected a KingdominoState, got {type(state).__name__}")
        native = _extension()
        record = state_to_record(kd_record_dtype(native), state)
        core = native.kd_state_from_record(_core_config(state.config), record)
        return cls(state.config, _core=core)

    def to_state(self) -> KingdominoState:
        """This game as a :class:`KingdominoState` (a copy)."""
        native = _extension()
        rec = np.frombuffer(self._core.record(), dtype=kd_record_dtype(native))[0]
        return record_to_state(self.config, rec)

    def scores(self) -> list[tuple[int, int]]:
        """Per seat, ``(points, largest territory)`` of the match so far: the engine's
        :meth:`~moonriver_env.kingdomino.KingdominoState.rank_keys`."""
        return [(int(p), int(b)) for p, b in self._core.scores()]

    rank_keys = scores

    def points(self) -> list[int]:
        """Each seat's points (the engine's ``points()``)."""
        return [p for p, _ in self._core.scores()]

    def winners(self) -> list[int]:
        """The seats that win after the tie-break, as things stand."""
        return rank_winners(self.scores())

    def redetermine(self, rng: int | np.random.Generator) -> None:
        """Re-deal the unseen dominoes as ``KingdominoState.redetermine``: with
        ``default_rng(rng)`` for a seed, or with a PCG64 generator (advanced in place)."""
        if isinstance(rng, np.random.Generator):
            set_generator_words(rng, self._core.redetermine(generator_words(rng)))
            return
        gen = np.random.default_rng(check_seed64(rng))
        self._core.redetermine(generator_words(gen))

    def rollout(self, policy: str = "random", seed: int = 0, seat: int = -1) -> list[int]:
        """Play to the end in place with ``policy`` (module docstring) drawing from
        ``default_rng(seed)``; ``seat``: the greedy seat of ``"player_greedy"``. Returns the
        final points."""
        code = _code("policy", policy, _extension().KD_POLICIES)
        self._core.rollout(code, check_seed64(seed), self._seat(seat, allow_none=True))
        return self.points()

    def monte_carlo(
        self,
        candidates: Sequence[int],
        sims: int,
        policy: str,
        value: str,
        seat: int,
        rng: np.random.Generator,
    ) -> tuple[list[float], list[int]]:
        """The ``mc`` agent's evaluation (module docstring): ``sims`` playouts in rounds,
        each round one redetermine with ``rng``, one ``rng.integers(2**62)`` playout seed and
        every candidate (legal here) played from that deal; ``value``: ``"win"`` or
        ``"margin"`` for ``seat``. Returns the totals and counts per candidate; ``rng`` is
        advanced as the Python loop would advance it."""
        native = _extension()
        if isinstance(sims, bool) or not isinstance(sims, (int, np.integer)) or sims < 1:
            raise ValueError(f"sims: expected an integer >= 1, got {sims!r}")
        ids = [int(a) for a in candidates]
        totals, counts, after = self._core.monte_carlo(
            ids,
            int(sims),
            _code("policy", policy, native.KD_POLICIES),
            _code("value", value, native.KD_VALUES),
            self._seat(seat),
            generator_words(rng),
        )
        set_generator_words(rng, after)
        return list(totals), list(counts)

    def _seat(self, seat: int, allow_none: bool = False) -> int:
        lo = -1 if allow_none else 0
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)):
            raise ValueError(f"seat: expected an integer, got {seat!r}")
        if not lo <= seat < self.config.num_players:
            raise ValueError(f"seat: expected {lo}..{self.config.num_players - 1}, got {seat}")
        return int(seat)

    def __repr__(self) -> str:
        return (
            f"NativeKingdominoState({self.config.describe()}, phase={self.phase.name}, "
            f"seat={self.current_seat})"
        )
