"""The parameters of an agent spec (``"mcts:sims=200,time=0.5"``): the one parser of the
``key=value`` list after the name, shared by every game's agents
(:func:`agents.registry.parse_spec`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

TIME_OFF = ("none", "0", "0.0", "off")
"""The spellings of ``time=`` that switch the time budget off."""

AZ_PARAMS: dict[str, type] = {
    "sims": int, "k": int, "r": int, "depth": int, "leaves": int, "path": str, "sample": str,
    "rollout_temp": str, "opponent_temp": str,
}  # fmt: skip
"""The ``az`` agent's spec parameters (:class:`agents.az.AzAgent`), in every game."""


def split_spec(spec: str, example: str) -> tuple[str, str]:
    """``"mcts:sims=200"`` -> ``("mcts", "sims=200")`` (the name lower-cased);
    ``ValueError`` for anything but a non-empty string (``example``: a good spec to show)."""
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(f"spec: expected a non-empty string like {example!r}, got {spec!r}")
    name, _, rest = spec.strip().partition(":")
    return name.strip().lower(), rest


def convert_param(name: str, key: str, typ: type, text: str) -> Any:
    """One parameter's text as ``typ`` (``int``, ``float``, else kept as text); ``time`` may
    be switched off (:data:`TIME_OFF` -> ``None``). ``ValueError`` naming the key."""
    if key == "time" and text.lower() in TIME_OFF:
        return None
    try:
        if typ is int:
            return int(text)
        if typ is float:
            return float(text)
    except ValueError:
        raise ValueError(
            f"{key}: expected {'an integer' if typ is int else 'a number'} for agent "
            f"{name!r}, got {text!r}"
        ) from None
    return text


def parse_params(spec: str, name: str, rest: str, allowed: Mapping[str, type]) -> dict[str, Any]:
    """The ``key=value`` list ``rest`` of agent ``name`` (its parameters and their types in
    ``allowed``); ``ValueError`` for a piece without ``=``, an unknown key or a repeated one."""
    params: dict[str, Any] = {}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, text = item.partition("=")
        key = key.strip()
        if not eq:
            raise ValueError(f"spec: expected key=value in {spec!r}, got {item!r}")
        if key not in allowed:
            ok = ", ".join(allowed) or "none"
            raise ValueError(f"{key}: not a parameter of agent {name!r} (parameters: {ok})")
        if key in params:
            raise ValueError(f"{key}: given twice in {spec!r}")
        params[key] = convert_param(name, key, allowed[key], text.strip())
    return params
