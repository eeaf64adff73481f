"""The ``az`` agent's search, run in the native core (``moonriver_env/_core/azsearch.c``).

A decision: the network's prior over the legal actions (softmax of each move's afterstate
value for the deciding seat over ``tau``, on one determinization, TD-Gammon's move choice; the
network has no policy head); its ``k`` best candidates are each played through ``r`` determinizations (the hidden pieces dealt again; the same deals and the
same rollout noise for every candidate), every seat then moving by the network's policy
(sampled at ``rollout_temp``; 0: its argmax) until ``leaves`` x ``depth`` decisions after the
next reveal (at most ``max_depth`` decisions); the rollout's score is the mean of the network's
values for the deciding seat at ``depth``, ``2 depth``, ... ``leaves`` x ``depth`` decisions
after that reveal (``leaves = 1``: the one value at ``depth``). Where the game ends (or
``max_depth`` stops the rollout) first, the value there counts for every leaf not reached.
Averaging estimates along a path is TD(lambda)'s way of smoothing the value's error, which a
single leaf carries whole. The move played is the candidate with the best mean value; the improved policy ``pi = softmax(log prior + (Q - max Q) / tau)`` over the
candidates is the self-play target. ``k = 0`` (``az:sims=0``) plays the raw policy.

``opponent_temp = T`` samples the rollouts' moves of every seat but the deciding one from the
network's policy at temperature T (0: their argmax), while the deciding seat keeps
``rollout_temp``; -1 (the default; any value from -1 to 0, 0 excluded): the other seats move as
the deciding seat does.
The opponents are still the network's moves: the setting says how closely they follow them.

Every move choice and every value in the search comes from the network: no hand-written
evaluation, heuristic or rule-based rollout.
"""

from __future__ import annotations

from dataclasses import astuple, dataclass, fields
from typing import Any

from moonriver_env.family.native import native

MAX_CANDIDATES = 32 if native is None else int(native.AZ_MAX_CANDIDATES)
"""The most candidates a search takes (the core's ``AZ_MAX_CANDIDATES``)."""

MAX_LEAVES = 64 if native is None else int(native.AZ_MAX_LEAVES)
"""The most leaf values a rollout averages (the core's ``AZ_MAX_LEAVES``)."""

MIN_TAU = 0.003
"""The smallest ``tau``: the core's ``pi`` weighs each candidate by its prior (a float, at
least 1 / the legal moves' count for the likeliest) times ``exp((Q - max Q) / tau)`` in double,
and Q spans 2 at most; at 0.003 the likeliest candidate's weight stays above 1e-290, below
about 0.0027 it can underflow to 0 with every other's, and ``pi`` is NaN (0 / 0)."""

BOUNDS: dict[str, tuple[float, float, bool]] = {
    "k": (0, MAX_CANDIDATES, False),
    "r": (0, 4096, False),
    "depth": (0, 100_000, False),
    "max_depth": (0, 100_000, False),
    "leaves": (1, MAX_LEAVES, False),
    "rollout_temp": (0.0, 100.0, False),
    "tau": (MIN_TAU, 100.0, False),
    "opponent_temp": (-1.0, 100.0, False),
}
"""Each numeric setting's range ``(low, high, low excluded)``: the one home, read by
:class:`SearchSettings` and by the az pipeline's config schema (``[search]``, ``[selfplay]``);
the core checks its own (the safety net for direct calls)."""
INTEGER_SETTINGS = ("k", "r", "depth", "max_depth", "leaves")

RETIRED: dict[str, Any] = {
    "policy": "afterstate",
    "symmetries": 1,
    "move_symmetries": 1,
}
"""Play settings the search no longer has, each with the one value it now always plays
(docs/az-experiments.md says what each measured): a model file that stores one at that value
loads as before; any other value is refused by name (:meth:`SearchSettings.from_mapping`)."""


@dataclass(frozen=True)
class SearchSettings:
    """The search's settings (module docstring); checked on construction."""

    k: int = 6
    r: int = 4
    depth: int = 4
    max_depth: int = 48
    leaves: int = 1
    rollout_temp: float = 0.0
    tau: float = 0.1
    opponent_temp: float = -1.0

    def __post_init__(self) -> None:
        for name, (lo, hi, open_lo) in BOUNDS.items():
            v = getattr(self, name)
            if name in INTEGER_SETTINGS:
                if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
                    raise ValueError(f"{name}: expected an integer in {lo}..{hi}, got {v!r}")
            elif (
                isinstance(v, bool)
                or not isinstance(v, int | float)
                or not (lo < v if open_lo else lo <= v)
                or not v <= hi
            ):
                span = f"({lo}, {hi}]" if open_lo else f"{lo}..{hi}"
                raise ValueError(f"{name}: expected a number in {span}, got {v!r}")

    def as_tuple(self) -> tuple[Any, ...]:
        """The core's settings tuple."""
        return astuple(self)

    @classmethod
    def from_mapping(cls, values: dict[str, Any]) -> SearchSettings:
        """Settings from a mapping of some of the fields (others: the defaults); a
        :data:`RETIRED` setting at the value the search plays is dropped, at any other it is a
        ``ValueError`` naming it."""
        values = dict(values)
        for name, kept in RETIRED.items():
            value = values.pop(name, kept)
            if value != kept or isinstance(value, bool):
                raise ValueError(
                    f"{name}: the search no longer has this setting (it plays {name} = "
                    f"{kept!r} only; docs/az-experiments.md); this model or config asks for "
                    "another value"
                )
        names = {f.name for f in fields(cls)}
        unknown = sorted(set(values) - names)
        if unknown:
            raise ValueError(
                f"search: unknown settings {unknown}; expected some of {sorted(names)}"
            )
        return cls(**values)


@dataclass(frozen=True)
class SearchResult:
    """One decision's search: the move, the legal actions with the prior, Q and pi of each, the
    root's value and the network evaluations spent."""

    action: int
    legal: tuple[int, ...]
    prior: tuple[float, ...]
    q: tuple[float, ...]
    pi: tuple[float, ...]
    value: float
    evals: int


def native_search(
    net: Any, core: Any, settings: SearchSettings, seed: int, sample: bool = False
) -> SearchResult:
    """Search the native state object ``core`` (a ``State`` or ``KdState``) with the core's
    ``Net`` ``net``; ``sample``: draw the move from ``pi`` (else the best Q)."""
    if native is None:
        raise RuntimeError("the az agent needs the native core (reinstall with a C compiler)")
    out = native.az_search(core, net, settings.as_tuple(), seed, sample)
    return SearchResult(*out)
