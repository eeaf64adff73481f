"""Which game is played: the one home of a game's name, its defaults, its text spelling and
its parsing (from text, from a config section, from command-line arguments, from an action
count).

A :class:`GameSpec` names one game: the game (``"moonriver"``, the default; a second game
registers itself with :func:`register_game`), the number of players, the mode and the few
settings that say which game is dealt. :meth:`GameSpec.config` builds the engine's
configuration (``GameConfig`` for Moon River).

The one text spelling (:meth:`GameSpec.text`, :func:`parse_game`), used by checkpoint folders,
messages and the command lines::

    2p_base                  Moon River (the default game is not written), 2 players, base game
    4p_legends               Moon River, 4 players, Legends of the West, scenario drawn per game
    3p_legends@gold_rush     ... with a fixed scenario
    kingdomino_4p_base       another registered game: its name first

A :class:`GameEntry` is what a registered game declares: its names, player counts and modes,
how its configuration is built, its action count and observation size, and its environment
(by entry point, ``"module:attribute"``, the way Gymnasium names environments: the engine's
floors below the environments never import them).

Every rejection is a ``ValueError`` whose message starts with the offending field
(``game``, ``num_players``, ``mode``, ``scenario``, ``auto_resolve``) and says what is allowed.
No RL library is imported here.
"""

from __future__ import annotations

import argparse
import importlib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any

from moonriver_env.family.contract import DEFAULT_MODE, DEFAULT_NUM_PLAYERS

BUILTIN_GAMES: dict[str, str] = {
    "moonriver": "moonriver_env.moonriver.game",
    "kingdomino": "moonriver_env.kingdomino.game",
}
"""Each game shipped with the package and the module whose import registers it (its one entry,
:func:`register_game`); the first is the default. A game outside the package (the tests' third
game) registers itself the same way."""
DEFAULT_GAME: str = next(iter(BUILTIN_GAMES))
"""The game played when none is named: the first of :data:`BUILTIN_GAMES`."""

# The keys of a config section (``[env]``) that name the game; the other keys of the section
# (rewards, observation type, ...) belong to the environment and are ignored here.
SPEC_KEYS = ("game", "num_players", "mode", "scenario", "auto_resolve")


@dataclass(frozen=True)
class GameEntry:
    """What a game registers (:func:`register_game`): the facts every floor above the engine
    reads about it.

    Attributes:
        name: the game's name in text, configs and command lines (``"moonriver"``).
        title: its name in prose (``"Moon River"``).
        config_class: the engine's configuration class (``GameConfig``).
        player_counts: the numbers of players it can be played with.
        modes: the modes it knows, ``"base"`` (the plain rules) first.
        make_config: :class:`GameSpec` -> the engine's configuration (``ValueError`` naming
            the bad field).
        observation_size: configuration -> length of the flat observation vector.
        env_entry_point: ``"module:attribute"`` of the PettingZoo ``raw_env`` class.
        gymnasium_id: the single-agent environment's Gymnasium id.
        single_agent_entry_point: ``"module:attribute"`` of that single-agent environment
            (registered with Gymnasium by the package's ``__init__``; ``None``: none).
        settings: the :class:`GameSpec` fields beyond ``num_players`` and ``mode`` that this
            game takes (another field given a non-default value is refused).
        check_mode: ``mode`` -> the mode, or ``ValueError`` starting with ``"mode"`` (default:
            one of ``modes``). A game whose modes combine (variants) checks them here.
        check_settings: checks a spec's game settings (``ValueError`` naming the field).
        hooks: what the floors above the engine need of the game, each ``"module:attribute"``
            (read by :meth:`hook`): ``vector_game`` (its batched game class), ``encoder`` (its
            observation encoder class, built from a configuration:
            :class:`~moonriver_env.family.contract.EncoderLike`), ``agents`` (a mapping of its
            own agent spec names to :class:`agents.base.AgentKind`), ``records`` (score columns and
            the points of a finished state), ``replay`` (its replay frames), ``play`` (its
            terminal screen), ``board`` (where its moves are clicked on the replay's
            pictures: :class:`~moonriver_env.family.board.BoardView`) and ``openspiel`` (the
            module that registers its OpenSpiel game). ``strongest``: the agent specs seated
            by default (the web app's set-up), strongest first; the first that plays a table
            is seated there (a model agent plays only the tables its models were trained on).
            Further hooks: ``new_game`` (configuration, ``seed=`` -> a new state), ``render``
            (a state's picture for an animation, ``(state, seat_names=)`` -> uint8 RGB
            ``(H, W, 3)``: :mod:`agents.animate`),
            ``native_state`` (its core's search state class, ``(config, seed=)``),
            ``scenarios`` (the names a ``scenario`` setting takes, for a game that has them),
            and the benchmarks' facts: ``bench_modes`` (the spelled games :mod:`moonriver_env.bench`
            times by default; without it, every player count and mode), ``bench_playouts``
            (the native playout policies :mod:`moonriver_env.bench_vector` times) and
            ``bench_mc_agent`` (the agent spec whose native and Python simulations it times).
    """

    name: str
    title: str
    config_class: type
    player_counts: tuple[int, ...]
    modes: tuple[str, ...]
    make_config: Callable[[GameSpec], Any]
    observation_size: Callable[[Any], int]
    env_entry_point: str
    gymnasium_id: str
    single_agent_entry_point: str | None = None
    settings: tuple[str, ...] = ()
    check_mode: Callable[[str], str] | None = None
    check_settings: Callable[[GameSpec], None] | None = None
    hooks: Mapping[str, str] = field(default_factory=dict)

    def hook(self, name: str) -> Any:
        """The object a hook names (``"module:attribute"``, imported now); ``None`` if the game
        has no such hook (a game without a native core has no ``vector_game``)."""
        where = self.hooks.get(name)
        if where is None:
            return None
        module, _, attribute = where.partition(":")
        return getattr(importlib.import_module(module), attribute)

    def __post_init__(self) -> None:
        if not re.fullmatch(r"[a-z][a-z0-9]*", self.name):
            raise ValueError(f"name: expected lower-case letters and digits, got {self.name!r}")
        if DEFAULT_NUM_PLAYERS not in self.player_counts:
            raise ValueError(
                f"player_counts: must include the project's default {DEFAULT_NUM_PLAYERS}, "
                f"got {self.player_counts!r}"
            )
        if not self.modes or self.modes[0] != DEFAULT_MODE:
            raise ValueError(f"modes: must start with {DEFAULT_MODE!r}, got {self.modes!r}")

    def num_actions(self, config: Any) -> int:
        """The size of the flat action space of ``config``."""
        return int(config.num_actions)

    def env_factory(self) -> Callable[..., Any]:
        """The environment class named by :attr:`env_entry_point` (imported now)."""
        module, _, attribute = self.env_entry_point.partition(":")
        factory: Callable[..., Any] = getattr(importlib.import_module(module), attribute)
        return factory


GAMES: dict[str, GameEntry] = {}
"""The registered games by name; :data:`DEFAULT_GAME` first."""


def register_game(entry: GameEntry) -> GameEntry:
    """Add ``entry`` to :data:`GAMES` (``ValueError`` if its name is taken by another entry)."""
    known = GAMES.get(entry.name)
    if known is not None and known != entry:
        raise ValueError(f"game: {entry.name!r} is already registered")
    GAMES[entry.name] = entry
    return entry


def _load_builtin_games() -> None:
    for name, module in BUILTIN_GAMES.items():
        importlib.import_module(module)
        if name not in GAMES:
            raise ImportError(f"{module} did not register the game {name!r}")


def config_entry(config: Any) -> GameEntry | None:
    """The registered game whose configuration class ``config`` is, or ``None``."""
    for entry in GAMES.values():
        if isinstance(config, entry.config_class):
            return entry
    return None


def game_entry(name: str) -> GameEntry:
    """The registered game called ``name`` (``ValueError`` naming the known games)."""
    try:
        return GAMES[name]
    except (KeyError, TypeError):
        raise ValueError(f"game: expected one of {tuple(GAMES)}, got {name!r}") from None


@dataclass(frozen=True)
class GameSpec:
    """One game: which game, how many players, which mode, and the settings that say which
    game is dealt. Checked at construction (``ValueError`` naming the field).

    Attributes:
        game: a registered game's name (:data:`GAMES`); default :data:`DEFAULT_GAME`.
        num_players: default :data:`~moonriver_env.moonriver.rules.config.DEFAULT_NUM_PLAYERS`.
        mode: default :data:`DEFAULT_MODE`.
        scenario: Moon River Legends: a scenario, or ``None`` / ``"random"`` to draw one per
            game (``None`` elsewhere).
        auto_resolve: Moon River: play every decision with one legal action automatically.
    """

    game: str = DEFAULT_GAME
    num_players: int = DEFAULT_NUM_PLAYERS
    mode: str = DEFAULT_MODE
    scenario: str | None = None
    auto_resolve: bool = False

    def __post_init__(self) -> None:
        entry = game_entry(self.game)
        n = self.num_players
        if isinstance(n, bool) or not isinstance(n, int) or n not in entry.player_counts:
            raise ValueError(
                f"num_players: {entry.title} is played by {entry.player_counts}, got {n!r}"
            )
        if not isinstance(self.mode, str):
            raise ValueError(f"mode: expected one of {entry.modes}, got {self.mode!r}")
        if entry.check_mode is not None:
            object.__setattr__(self, "mode", entry.check_mode(self.mode))
        elif self.mode not in entry.modes:
            raise ValueError(f"mode: {entry.title} knows {entry.modes}, got {self.mode!r}")
        if not isinstance(self.auto_resolve, bool):
            raise ValueError(f"auto_resolve: expected a bool, got {self.auto_resolve!r}")
        for f in fields(self):
            if f.name in ("game", "num_players", "mode") or f.name in entry.settings:
                continue
            if getattr(self, f.name) != f.default:
                raise ValueError(f"{f.name}: {entry.title} has no such setting")
        if entry.check_settings is not None:
            entry.check_settings(self)

    # ------------------------------------------------------------------ what it is

    @property
    def entry(self) -> GameEntry:
        """The registered game."""
        return GAMES[self.game]

    @property
    def text(self) -> str:
        """The one text spelling (module docstring): ``"2p_base"``, ``"kingdomino_4p_base"``."""
        prefix = "" if self.game == DEFAULT_GAME else f"{self.game}_"
        scenario = "" if self.scenario in (None, "random") else f"@{self.scenario}"
        return f"{prefix}{self.num_players}p_{self.mode}{scenario}"

    def __str__(self) -> str:
        return self.text

    def config(self, **overrides: Any) -> Any:
        """The engine's configuration of this game (``overrides``: further fields of the
        configuration class, e.g. ``boards``)."""
        return self.entry.make_config(self, **overrides)

    @property
    def num_actions(self) -> int:
        """The size of the flat action space."""
        return self.entry.num_actions(self.config())

    @property
    def observation_size(self) -> int:
        """The length of the flat observation vector."""
        return self.entry.observation_size(self.config())

    def env_kwargs(self) -> dict[str, Any]:
        """The game's keyword arguments of its environment (``raw_env``, ``env()``,
        ``SingleAgentEnv``)."""
        kwargs: dict[str, Any] = {"num_players": self.num_players, "mode": self.mode}
        for name in self.entry.settings:
            kwargs[name] = getattr(self, name)
        return kwargs

    def make_env(self, **kwargs: Any) -> Any:
        """The game's PettingZoo ``raw_env`` (imports the environment; ``kwargs``: its
        other arguments, e.g. ``obs_type``)."""
        return self.entry.env_factory()(**self.env_kwargs(), **kwargs)

    def with_players(self, num_players: int) -> GameSpec:
        """This game with another number of players."""
        return replace(self, num_players=num_players)

    def to_section(self) -> dict[str, Any]:
        """The spec as a config section (``[env]``): the keys a reader needs, defaults left
        out except ``num_players`` and ``mode`` (always written)."""
        out: dict[str, Any] = {}
        if self.game != DEFAULT_GAME:
            out["game"] = self.game
        out["num_players"] = self.num_players
        out["mode"] = self.mode
        if self.scenario is not None:
            out["scenario"] = self.scenario
        if self.auto_resolve:
            out["auto_resolve"] = True
        return out

    # ------------------------------------------------------------------ parsing

    @classmethod
    def from_section(cls, section: Mapping[str, Any]) -> GameSpec:
        """From a config section (``[env]``; keys of :data:`SPEC_KEYS`, the others ignored;
        missing keys: the defaults; ``scenario = "random"`` with the base game is ignored: the
        training configs' default means "drawn per game, when the mode has scenarios")."""
        if not isinstance(section, Mapping):
            raise ValueError(f"env: expected a table, got {section!r}")
        given = {k: section[k] for k in SPEC_KEYS if k in section}
        if given.get("scenario") == "random" and given.get("mode", DEFAULT_MODE) == DEFAULT_MODE:
            del given["scenario"]  # the configs' default: "drawn per game, when there is one"
        return cls(**given)

    @classmethod
    def from_text(cls, text: str) -> GameSpec:
        """From the text spelling; see :func:`parse_game`."""
        return parse_game(text)

    @classmethod
    def from_config(cls, config: Any) -> GameSpec:
        """The spec of an engine configuration (a ``GameConfig`` or a registered game's
        configuration class)."""
        entry = config_entry(config)
        if entry is None:
            raise ValueError(f"config: not the configuration of a registered game: {config!r}")
        given = {
            name: getattr(config, name)
            for name in ("num_players", "mode", *entry.settings)
            if hasattr(config, name)
        }
        return cls(game=entry.name, **given)

    @classmethod
    def from_num_actions(
        cls, num_actions: int, observation_size: int | None = None, game: str | None = None
    ) -> GameSpec:
        """The one game whose action count (and observation size, when given) is this
        (``ValueError`` if none or several match; :func:`games_with_actions` lists them)."""
        found = games_with_actions(num_actions, observation_size, game)
        if len(found) != 1:
            what = f"{num_actions} actions" + (
                "" if observation_size is None else f" and observation length {observation_size}"
            )
            matches = " or ".join(s.text for s in found) or "no game"
            raise ValueError(f"num_actions: {matches} has {what}")
        return found[0]


def parse_game(text: str) -> GameSpec:
    """``"2p_base"``, ``"4p_legends@gold_rush"``, ``"kingdomino_4p_base"`` -> the spec.

    The separator after the player count may also be written ``-`` (``"2p-base"``, the
    benchmark's older spelling); :attr:`GameSpec.text` always writes ``_``.
    """
    if not isinstance(text, str):
        raise ValueError(f"game: expected text like '2p_base', got {text!r}")
    m = re.fullmatch(r"(?:([a-z][a-z0-9]*)_)?(\d+)p[_-]([a-z0-9_+]+)(?:@([a-z_]+))?", text.strip())
    if m is None:
        raise ValueError(
            f"game: expected text like '2p_base', '4p_legends@gold_rush' or "
            f"'kingdomino_4p_base', got {text!r}"
        )
    game, players, mode, scenario = m.groups()
    return GameSpec(
        game=game or DEFAULT_GAME,
        num_players=int(players),
        mode=mode,
        scenario=scenario,
    )


def games_with_actions(
    num_actions: int, observation_size: int | None = None, game: str | None = None
) -> list[GameSpec]:
    """Every registered game, player count and mode (of ``game`` only, when given) whose
    action count is ``num_actions`` and, when given, whose observation has this length."""
    found = []
    entries = [game_entry(game)] if game is not None else list(GAMES.values())
    for entry in entries:
        for mode in entry.modes:
            for n in entry.player_counts:
                spec = GameSpec(game=entry.name, num_players=n, mode=mode)
                try:
                    config = spec.config()
                except ValueError:  # a mode this player count cannot play (Mighty Duel: 2)
                    continue
                if entry.num_actions(config) != num_actions:
                    continue
                if observation_size is None or entry.observation_size(config) == observation_size:
                    found.append(spec)
    return found


# ------------------------------------------------------------------ command lines


def add_game_arguments(parser: argparse.ArgumentParser, players: bool = True) -> None:
    """``--game``, ``--players`` and ``--mode`` (and ``--scenario``), the same on every
    command; :func:`spec_from_args` reads them back."""
    parser.add_argument(
        "--game",
        default=DEFAULT_GAME,
        help=f"the game: {', '.join(GAMES)} (default {DEFAULT_GAME}), or a spelled game such "
        "as 2p_base or 4p_legends@gold_rush (then --players and --mode are not needed)",
    )
    if players:
        parser.add_argument(
            "--players",
            type=int,
            default=None,
            help=f"number of players (default {DEFAULT_NUM_PLAYERS})",
        )
    parser.add_argument("--mode", default=None, help=f"the mode (default {DEFAULT_MODE})")
    parser.add_argument(
        "--scenario", default=None, help="Legends scenario (default: drawn per game)"
    )


def add_table_arguments(parser: argparse.ArgumentParser, seed: int) -> None:
    """``--players``, ``--seed`` (default ``seed``), ``--mode`` and ``--scenario`` of a command
    that plays the default game only, checked by :func:`check_table_arguments`."""
    entry = GAMES[DEFAULT_GAME]
    parser.add_argument(
        "--players", type=int, default=DEFAULT_NUM_PLAYERS, choices=entry.player_counts
    )
    parser.add_argument("--seed", type=int, default=seed)
    parser.add_argument("--mode", default=DEFAULT_MODE, choices=entry.modes)
    parser.add_argument("--scenario", default=None, help="Legends scenario (default: drawn)")


def check_table_arguments(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Exit through ``parser.error`` if :func:`add_table_arguments`'s arguments do not agree."""
    if args.scenario is not None and args.mode != "legends":
        parser.error("--scenario needs --mode legends")


def spec_from_args(args: argparse.Namespace) -> GameSpec:
    """The spec named by :func:`add_game_arguments`'s arguments (``ValueError`` naming the
    bad field)."""
    game = getattr(args, "game", DEFAULT_GAME)
    players = getattr(args, "players", None)
    mode = getattr(args, "mode", None)
    scenario = getattr(args, "scenario", None)
    spelled = game not in GAMES
    spec = parse_game(game) if spelled else GameSpec(game=game)
    given: dict[str, Any] = {}
    for field_name, option, value in (
        ("num_players", "--players", players),
        ("mode", "--mode", mode),
        ("scenario", "--scenario", scenario),
    ):
        if value is None:
            continue
        if spelled and value != getattr(spec, field_name):
            raise ValueError(
                f"{field_name}: {option} {value} contradicts --game {game} "
                f"({getattr(spec, field_name)!r}); give one of them"
            )
        given[field_name] = value
    return replace(spec, **given) if given else spec


_load_builtin_games()

__all__ = [
    "BUILTIN_GAMES",
    "DEFAULT_GAME",
    "DEFAULT_MODE",
    "DEFAULT_NUM_PLAYERS",
    "GAMES",
    "SPEC_KEYS",
    "GameEntry",
    "GameSpec",
    "add_game_arguments",
    "add_table_arguments",
    "check_table_arguments",
    "config_entry",
    "game_entry",
    "games_with_actions",
    "parse_game",
    "register_game",
    "spec_from_args",
]
