"""Saved ``az`` models: one file per model (``torch.save`` of plain data, read back with
``torch.load(weights_only=True)``), its game, network shape, play settings and provenance.

A file holds::

    {"format": "moonriver-az", "version": 2,
     "shape": NetShape fields (the game: num_players, mode; the layer sizes),
     "state_dict": the weights,
     "search": default play settings (SearchSettings fields),
     "search_tables": (optional) {table: the settings changed at that table}, e.g.
         {"kingdomino_2p_mighty_duel": {"r": 12}} (:func:`play_settings`),
     "provenance": {"command", "config", "iteration", "positions", "games", "seconds", ...}}

Reading checks, before any move is played: the file exists and is complete (a truncated or
foreign file is refused), the weights fit the stored shape (another network shape is refused),
and :func:`check_game` refuses a game other than the model's, naming both games. Every refusal
is a :class:`CheckpointError` (a ``ValueError``) naming the path.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from collections.abc import Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any

import torch

from agents.atomic import atomic_path
from agents.shipped import CHECKPOINTS
from moonriver_env.games import GameSpec

from .network import AzNet, NetShape
from .search import SearchSettings
from .tables import input_layout

FORMAT = "moonriver-az"
VERSION = 2
MODEL_FILE = "model.pt"


class CheckpointError(ValueError):
    """A file that is not a usable ``az`` model (missing, truncated, foreign, another shape or
    another game); the message names the path and what is wrong."""


def shipped_path(game: str) -> Path:
    """Where the shipped model of a table (its :attr:`GameSpec.text`, ``"2p_base"``) or of
    every table of a game (its name, ``"moonriver"``) lives:
    ``agents/checkpoints/az_<game>/model.pt``."""
    return CHECKPOINTS / f"az_{game}" / MODEL_FILE


def shipped_model(spec: GameSpec) -> Path | None:
    """The shipped model that plays ``spec``'s table: the table's own where one ships, else
    the game's model of every table (:mod:`.tables`); ``None`` when neither ships."""
    for p in (shipped_path(spec.text), shipped_path(spec.game)):
        if p.is_file():
            return p
    return None


TABLE_SEARCH = "search_tables"
"""The key of a model file's play settings changed for some of its tables (``--export --play
TABLE:KEY=VALUE``): ``{table as GameSpec.text spells it: {setting: value}}``."""


def play_settings(meta: Mapping[str, Any], table: str) -> SearchSettings:
    """The settings a model (its file's contents, ``meta``) plays ``table`` with: its
    ``search``, with the changes recorded for that table (a Legends table with its scenario
    named, ``2p_legends@gold_rush``, takes those of ``2p_legends``, then its own over them).
    ``ValueError`` for a setting out of range."""
    tables = meta.get(TABLE_SEARCH) or {}
    mode = tables.get(table.partition("@")[0], {}) if "@" in table else {}
    return SearchSettings.from_mapping({**meta.get("search", {}), **mode, **tables.get(table, {})})


def check_table_search(meta: Mapping[str, Any], shape: NetShape, path: Any) -> None:
    """``CheckpointError`` unless the per-table play settings (:data:`TABLE_SEARCH`) are a
    table of changes per table the model plays, each giving valid settings."""
    tables = meta.get(TABLE_SEARCH, {})
    if not isinstance(tables, Mapping):
        raise CheckpointError(
            f"path: {str(path)!r}: bad play settings ({TABLE_SEARCH}: expected a table of "
            f"tables, got {tables!r:.100})"
        )
    for text, changes in tables.items():
        try:
            spec = GameSpec.from_text(text) if isinstance(text, str) else None
            config = None if spec is None else spec.config()
        except ValueError:  # a spelling no game takes (or a variant its player count lacks)
            spec = config = None
        if spec is None or spec.text != text:
            raise CheckpointError(
                f"path: {str(path)!r}: bad play settings ({TABLE_SEARCH}: {text!r} is not a "
                "table spelt as the games are, e.g. 'kingdomino_2p_mighty_duel')"
            )
        check_game(shape, config, path)
        try:
            if not isinstance(changes, Mapping) or not changes:
                raise ValueError("expected a table of the settings changed")
            play_settings(meta, text)
        except (TypeError, ValueError) as exc:
            raise CheckpointError(
                f"path: {str(path)!r}: bad play settings ({TABLE_SEARCH}: {text}: "
                f"{changes!r:.200}): {exc}"
            ) from None


def save_checkpoint(
    path: str | os.PathLike[str],
    net: AzNet,
    search: Mapping[str, Any],
    provenance: Mapping[str, Any],
    extra: Mapping[str, Any] | None = None,
) -> Path:
    """Write ``net`` (and ``extra`` entries, e.g. the optimizer state) to ``path`` atomically:
    a reader sees the old file or the new one, never a part. Weights a reader would refuse
    (:func:`check_weights`: not finite, or too large) are refused before anything is written,
    so the file at ``path`` stays as it was."""
    weights = net.state_dict()
    check_weights(weights, path, writing=True)
    blob: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "shape": net.shape.to_dict(),
        "state_dict": weights,
        "search": dict(search),
        "provenance": {**provenance, DIGEST: weights_digest(weights)},
    }
    if extra:
        blob.update(extra)
    with atomic_path(path) as tmp:
        torch.save(blob, tmp)
    return Path(path)


def read_blob(path: str | os.PathLike[str]) -> dict[str, Any]:
    """The raw contents of a model file (``CheckpointError`` if it is not one)."""
    p = Path(path)
    if p.is_dir():
        p = p / MODEL_FILE
    if not p.is_file():
        raise CheckpointError(f"path: no az model file at {str(p)!r}")
    blob = _load(p)
    if not isinstance(blob, dict) or blob.get("format") != FORMAT:
        raise CheckpointError(f"path: {str(p)!r} is not an az model (no {FORMAT!r} format tag)")
    if blob.get("version") != VERSION:
        raise CheckpointError(
            f"path: {str(p)!r} is az model version {blob.get('version')!r}; this code reads "
            f"version {VERSION}"
        )
    return blob


def _load(p: Path) -> Any:
    """The file's contents, read without running code (``CheckpointError`` if unreadable)."""
    check_archive(p)
    try:
        return torch.load(p, map_location="cpu", weights_only=True)
    except Exception as exc:  # truncated zip, pickle refused, ...: whatever the bytes raise
        first = (str(exc).strip().splitlines() or [""])[0][:200]
        raise CheckpointError(
            f"path: {str(p)!r} is not a readable az model (truncated or corrupt: "
            f"{type(exc).__name__}: {first})"
        ) from None


def has_az_tag(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a file that says it is an az model (its format tag, any version;
    read as :func:`read_blob` reads, without running code). A file too damaged to read says
    nothing: ``False``."""
    p = Path(path)
    if not p.is_file():
        return False
    try:
        blob = _load(p)
    except CheckpointError:
        return False
    return isinstance(blob, dict) and blob.get("format") == FORMAT


MAX_FILE_BYTES = 256 * 2**20
"""The largest model file read, and the most its archive's members may hold unpacked (the
largest network the az config allows is about 10 MB; the shipped files are 2 MB)."""


def check_archive(path: Path) -> None:
    """``CheckpointError`` unless ``path`` is a whole zip archive (what ``torch.save``
    writes) of at most :data:`MAX_FILE_BYTES`: every member's CRC is checked (a changed byte
    is refused, not loaded as altered weights), before ``torch.load`` reads it."""
    size = path.stat().st_size
    if size > MAX_FILE_BYTES:
        raise CheckpointError(
            f"path: {str(path)!r} is {size:,} bytes, over the {MAX_FILE_BYTES:,} bytes an az "
            "model file may hold"
        )
    try:
        with zipfile.ZipFile(path) as archive:
            unpacked = sum(info.file_size for info in archive.infolist())
            if unpacked > MAX_FILE_BYTES:
                raise CheckpointError(
                    f"path: {str(path)!r} unpacks to {unpacked:,} bytes, over the "
                    f"{MAX_FILE_BYTES:,} bytes an az model file may hold"
                )
            bad = archive.testzip()
    except CheckpointError:
        raise
    except Exception as exc:  # a bad zip: whatever zipfile raises (BadZipFile, zlib.error, ...)
        raise CheckpointError(
            f"path: {str(path)!r} is not a readable az model (truncated or corrupt: not a whole "
            f"zip archive: {type(exc).__name__}: {exc})"
        ) from None
    if bad is not None:
        raise CheckpointError(
            f"path: {str(path)!r} is corrupt: its member {bad!r} fails its CRC check (the file "
            "changed after it was written)"
        )


DIGEST = "weights_sha256"
"""The provenance entry holding :func:`weights_digest` of the file's weights (written by
:func:`save_checkpoint`, verified at load when present: files written before it have none)."""


def weights_digest(weights: Mapping[str, torch.Tensor]) -> str:
    """SHA-256 of the weights: each tensor's name, dtype, shape and bytes, in name order."""
    h = hashlib.sha256()
    for name in sorted(weights):
        t = weights[name].detach().cpu().contiguous()
        h.update(f"{name}:{t.dtype}:{tuple(t.shape)};".encode())
        h.update(t.numpy().tobytes())
    return h.hexdigest()


MAX_WEIGHT = 1e4
"""The largest magnitude a model's weight may have (the shipped models' stay below 60, their
input scales at most 50). With every weight within it the network's sums stay far inside
float32 (a first layer of 3,500 inputs of at most 100 times 1e4 x 1e4, then 512 and 256 wide:
below 1e27), where weights of 3e38 overflowed to NaN priors and values."""


def check_weights(
    state: Mapping[str, torch.Tensor], path: str | os.PathLike[str], writing: bool = False
) -> None:
    """``CheckpointError`` naming the weight if any entry of ``state`` is not finite or is
    larger in magnitude than :data:`MAX_WEIGHT` (``writing``: the message says nothing was
    written)."""
    for name, tensor in state.items():
        if not tensor.is_floating_point():
            continue
        finite = torch.isfinite(tensor)
        if not bool(finite.all()):
            problem = f"{int((~finite).sum())} of its {tensor.numel()} entries are not finite"
        elif tensor.numel() and float(tensor.abs().max()) > MAX_WEIGHT:
            problem = (
                f"its largest magnitude {float(tensor.abs().max()):.3g} is over {MAX_WEIGHT:g}"
            )
        else:
            continue
        where = (
            f"refused to write {str(path)!r} (the file there is kept)"
            if writing
            else (f"{str(path)!r} is not a usable az model")
        )
        raise CheckpointError(f"path: {where}: weight {name!r}: {problem}")


def net_shape(blob: Mapping[str, Any], path: str | os.PathLike[str] = "?") -> NetShape:
    """The :class:`NetShape` a model file declares."""
    raw = blob.get("shape")
    names = {f.name for f in fields(NetShape)}
    optional = {"features", "tables"}  # written only since they exist: absent means False
    if not isinstance(raw, Mapping) or not names - optional <= set(raw) <= names:
        raise CheckpointError(f"path: {str(path)!r} declares no valid network shape: {raw!r}")
    try:
        shape = NetShape(**raw)
    except TypeError as exc:
        raise CheckpointError(f"path: {str(path)!r}: bad network shape ({exc})") from None
    for f in fields(NetShape):
        v = getattr(shape, f.name)
        kind = {"game": str, "mode": str, "features": bool, "tables": bool}.get(f.name, int)
        if kind is int and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
            raise CheckpointError(
                f"path: {str(path)!r}: bad network shape: {f.name} must be a whole number of "
                f"at least 1, got {v!r}"
            )
        if kind is not int and not isinstance(v, kind):
            raise CheckpointError(
                f"path: {str(path)!r}: bad network shape: {f.name} must be a "
                f"{kind.__name__}, got {v!r}"
            )
    return shape


def check_sizes(shape: NetShape, weights: Any, path: str | os.PathLike[str]) -> None:
    """``CheckpointError`` unless the file's ``weights`` have the sizes its declared ``shape``
    makes, checked before a network of that shape takes any memory (a file declaring
    ``hidden1 = 150000`` beside small weights is refused here, not after gigabytes)."""
    with torch.device("meta"):  # the sizes alone, no memory
        wanted = {k: tuple(v.shape) for k, v in AzNet(shape).state_dict().items()}
    got = (
        {k: tuple(v.shape) for k, v in weights.items() if isinstance(v, torch.Tensor)}
        if isinstance(weights, Mapping)
        else {}
    )
    if got != wanted or len(got) != len(weights):
        wrong = sorted(k for k in wanted.keys() | got.keys() if wanted.get(k) != got.get(k))
        detail = ", ".join(
            f"{k}: {got.get(k, 'missing')} for {wanted.get(k, 'none')}" for k in wrong[:4]
        )
        raise CheckpointError(
            f"path: {str(path)!r}: the weights do not fit the declared network shape {shape} "
            f"(another network shape: {detail or 'weights that are not tensors'})"
        )


RETIRED_WEIGHTS = ("wp.weight", "bp")
"""The policy head's weights, which files written before the network lost it carry (the shipped
models among them): read past, since no search reads them (docs/az-experiments.md)."""


def state_dict_of(blob: Mapping[str, Any]) -> Any:
    """A file's weights, without the :data:`RETIRED_WEIGHTS` of the old policy head; one
    written before the network had its input scale (the same version, saved before the scale
    was added) gets the scale of 1 it was trained with."""
    weights = blob["state_dict"]
    if isinstance(weights, Mapping) and any(k in weights for k in RETIRED_WEIGHTS):
        weights = {k: v for k, v in weights.items() if k not in RETIRED_WEIGHTS}
    if isinstance(weights, Mapping) and "input_scale" not in weights:
        w1 = weights.get("w1")
        if isinstance(w1, torch.Tensor) and w1.dim() == 2:
            weights = {**weights, "input_scale": torch.ones(w1.shape[0], dtype=w1.dtype)}
    return weights


def load_checkpoint(path: str | os.PathLike[str]) -> tuple[AzNet, dict[str, Any]]:
    """The network (in eval mode) and the file's contents minus the weights.

    Raises:
        CheckpointError: not a complete az model file, or weights that do not fit the
            declared network shape (another network shape).
    """
    blob = read_blob(path)
    shape = net_shape(blob, path)
    weights = state_dict_of(blob)
    check_sizes(shape, weights, path)
    check_weights(weights, path)
    prov = blob.get("provenance")
    recorded = prov.get(DIGEST) if isinstance(prov, Mapping) else None
    if recorded is not None and recorded != weights_digest(blob["state_dict"]):
        raise CheckpointError(
            f"path: {str(path)!r}: its weights do not match the checksum in its provenance "
            f"({DIGEST}): they changed after it was written"
        )
    search = blob.get("search", {})
    try:
        if not isinstance(search, Mapping):
            raise ValueError("expected a table of the search's settings")
        SearchSettings.from_mapping(dict(search))
    except (TypeError, ValueError) as exc:
        raise CheckpointError(
            f"path: {str(path)!r}: bad play settings (search: {search!r:.200}): {exc}"
        ) from None
    check_table_search(blob, shape, path)
    try:
        net = AzNet(shape)
    except ValueError as exc:
        raise CheckpointError(f"path: {str(path)!r}: unknown game in the shape ({exc})") from None
    try:
        net.load_state_dict(weights, strict=True)
    except (RuntimeError, KeyError, TypeError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise CheckpointError(
            f"path: {str(path)!r}: the weights do not fit the declared network shape "
            f"{shape} (another network shape: {first})"
        ) from None
    net.eval()
    meta = {k: v for k, v in blob.items() if k != "state_dict"}
    return net, meta


def game_text(config: Any) -> str:
    """The one spelling of the game ``config`` is for (:attr:`GameSpec.text`: ``"2p_base"``,
    ``"kingdomino_2p_base"``); a config of a game this install does not register is spelt
    the same way from its class name."""
    try:
        return GameSpec.from_config(config).text
    except ValueError:
        name = type(config).__name__.removesuffix("Config").lower()
        return f"{name}_{config.num_players}p_{config.mode}"


def model_game(shape: NetShape) -> str:
    """The spelling of a model's game (``"2p_base"``; a model of every table: the game's
    name and ``"(every table)"``)."""
    if shape.tables:
        return f"{shape.game} (every table)"
    return shape.spec.text


def check_game(shape: NetShape, config: Any, path: str | os.PathLike[str]) -> None:
    """``CheckpointError`` naming both games if the model was made for another game than
    ``config`` (another game, player count or mode; a model of every table: another game,
    or a table its input layout lacks)."""
    asked = game_text(config)
    if shape.tables:
        try:
            spec = GameSpec.from_config(config)
        except ValueError:
            spec = None
        if spec is not None and spec.game == shape.game:
            layout = input_layout(shape.game)
            if layout.fits(shape.inputs, shape.features) and layout.covers(spec):
                return
    if asked != model_game(shape):
        raise CheckpointError(
            f"game: the game is {asked} but the az model {str(path)!r} was trained for "
            f"{model_game(shape)}"
        )
