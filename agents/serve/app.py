"""The web app's HTTP side (Starlette): the page, its assets, and a small JSON API.

Each browser gets a session (a random id in an ``HttpOnly``, ``SameSite=Strict`` cookie) and
its own :class:`~agents.serve.session.WebGame`; two sessions never share a game. Routes:

============================  ===============================================================
``GET /``                      the page (``static/index.html``); ``/static/...`` its assets
``GET /api/games``             the registered games: players, modes, agents
``GET /api/default-agent``     the agent seated by default at a table (``?game=&players=&mode=``)
                               and a note saying why where it is not the game's strongest
``GET /api/state``             what the page shows of this browser's game
``POST /api/new``              ``{"game", "seats": ["human", "az", "", ...], "mode", "seed",
                               "candidates"}``: a new game (``""``: the default agent)
``POST /api/move``             ``{"action": id}``: the human's move
``POST /api/step``             one agent decision (timed)
``POST /api/undo``             take back the humans' last move
``GET /api/saves``             the saved games in the save folder
``POST /api/save``             ``{"name", "replace"}``: save the game in the save folder
``POST /api/load``             ``{"name"}``: resume a saved game of the save folder
``GET /replay``                the game's replay page (:mod:`agents.replay`)
============================  ===============================================================

A refused request gets a 4xx answer ``{"error": NAME, "message": TEXT}`` and changes nothing:
``bad_json``, ``bad_request``, ``too_large`` (a body over :data:`MAX_BODY` bytes: 413),
``unsupported_media_type`` (a POST that is not JSON: 415), ``unknown_game``, ``bad_setup``,
``bad_move``, ``illegal_move``, ``not_your_turn``, ``not_agents_turn``, ``game_over``,
``no_game``, ``cannot_undo``, ``bad_name``, ``file_exists``, ``no_such_save``, ``bad_save``,
``no_replay``, ``not_found``, ``method_not_allowed``, ``bad_host``. Requests whose ``Host``
is not the server's own are refused (``bad_host``) while it serves on a loopback address, so a
web page elsewhere cannot reach it through DNS rebinding.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from moonriver_env.games import GAMES, GameSpec

from ..registry import game_agents
from ..replay import ReplayError, load_game, replay_html
from .session import GameError, WebGame, default_agent, save_path

STATIC = Path(__file__).with_name("static")
"""The page and its assets (served from here: no CDN, no network)."""
COOKIE = "moonriver_session"
MAX_BODY = 16 * 1024
"""The largest request body accepted, in bytes (a move is a few dozen)."""
MAX_SESSIONS = 64
"""Browsers kept at once; the one idle longest is dropped first."""
LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")


class Sessions:
    """Each browser's game, by session id (thread-safe, the least recently used dropped
    beyond ``limit``)."""

    def __init__(self, limit: int = MAX_SESSIONS) -> None:
        self.limit = limit
        self._games: OrderedDict[str, WebGame | None] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sid: str | None) -> tuple[str, WebGame | None, bool]:
        """``(id, game, new)``: the session of ``sid``, or a new one."""
        with self._lock:
            if sid is not None and sid in self._games:
                self._games.move_to_end(sid)
                return sid, self._games[sid], False
            sid = secrets.token_urlsafe(24)
            self._games[sid] = None
            while len(self._games) > self.limit:
                self._games.popitem(last=False)
            return sid, None, True

    def put(self, sid: str, game: WebGame) -> None:
        with self._lock:
            self._games[sid] = game
            self._games.move_to_end(sid)


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


async def _body(request: Request) -> dict[str, Any]:
    """The request's JSON object (a :class:`GameError` for anything else)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise GameError("unsupported_media_type", "send the request as application/json", 415)
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise GameError("too_large", f"the request body is over {MAX_BODY} bytes", 413)
    data = b""
    async for chunk in request.stream():
        data += chunk
        if len(data) > MAX_BODY:
            raise GameError("too_large", f"the request body is over {MAX_BODY} bytes", 413)
    try:
        body = json.loads(data.decode("utf-8")) if data else {}
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise GameError("bad_json", f"the body is not JSON: {exc}") from None
    if not isinstance(body, dict):
        raise GameError("bad_json", "the body must be a JSON object")
    return body


def create_app(
    save_dir: str | os.PathLike[str] = "runs/games",
    allowed_hosts: tuple[str, ...] | None = LOOPBACK,
    agent_kwargs: dict[str, Any] | None = None,
) -> Starlette:
    """The app. ``save_dir``: the save folder (created when first written); games are
    saved, loaded and autosaved there only. ``allowed_hosts``: the host names the ``Host``
    header may carry (``None``: any, for a server bound to other addresses)."""
    folder = Path(save_dir)
    sessions = Sessions()
    extra = dict(agent_kwargs or {})

    def session_of(request: Request) -> tuple[str, WebGame | None, bool]:
        return sessions.get(request.cookies.get(COOKIE))

    def answer(data: Any, sid: str, new: bool, status: int = 200) -> JSONResponse:
        response = JSONResponse(data, status_code=status)
        if new:
            response.set_cookie(COOKIE, sid, httponly=True, samesite="strict", path="/")
        return response

    def need(game: WebGame | None) -> WebGame:
        if game is None:
            raise GameError("no_game", "no game yet: start one", 409)
        return game

    async def locked(game: WebGame, work: Callable[[], Any]) -> Any:
        def run() -> Any:
            with game.lock:
                return work()

        return await run_in_threadpool(run)

    async def index(request: Request) -> Response:
        sid, _, new = session_of(request)
        response = FileResponse(STATIC / "index.html", media_type="text/html")
        if new:
            response.set_cookie(COOKIE, sid, httponly=True, samesite="strict", path="/")
        return response

    async def games(request: Request) -> Response:
        out = []
        for entry in GAMES.values():
            if entry.hook("play") is None:
                continue  # no move words: not playable here
            out.append(
                {
                    "name": entry.name,
                    "title": entry.title,
                    "players": list(entry.player_counts),
                    "modes": list(entry.modes),
                    "agents": sorted(game_agents(entry.name)),
                    "settings": [s for s in entry.settings if s == "scenario"],
                }
            )
        return JSONResponse({"games": out})

    async def default(request: Request) -> Response:
        q = request.query_params

        def find() -> Any:
            try:
                spec = GameSpec(
                    game=q.get("game", ""),
                    num_players=int(q.get("players", "2")),
                    mode=q.get("mode", "base"),
                )
                return default_agent(spec).as_json()
            except ValueError as exc:
                raise GameError("bad_setup", str(exc)) from None

        return JSONResponse(await run_in_threadpool(find))

    async def state(request: Request) -> Response:
        sid, game, new = session_of(request)
        if game is None:
            return answer({"game": None}, sid, new)
        return answer(await locked(game, game.view), sid, new)

    async def new_game(request: Request) -> Response:
        body = await _body(request)
        sid, _, new = session_of(request)
        seats = body.get("seats")
        if not isinstance(seats, list) or not all(isinstance(s, str) for s in seats):
            raise GameError("bad_request", "seats: expected a list of 'human' or agent specs")
        seed = body.get("seed")
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise GameError("bad_request", f"seed: expected an integer, got {seed!r}")
        mode = body.get("mode", "base")
        scenario = body.get("scenario")
        if not isinstance(mode, str) or not (scenario is None or isinstance(scenario, str)):
            raise GameError("bad_request", "mode and scenario: expected text")
        name = body.get("game")
        if not isinstance(name, str) or name not in GAMES:
            raise GameError("unknown_game", f"game: expected one of {list(GAMES)}, got {name!r}")

        def make() -> WebGame:
            return WebGame.new(
                name,
                seats,
                mode=mode,
                scenario=scenario or None,
                seed=seed,
                save_dir=folder,
                candidates=bool(body.get("candidates", True)),
                **extra,
            )

        game = await run_in_threadpool(make)
        sessions.put(sid, game)
        return answer(await locked(game, game.view), sid, new)

    async def move(request: Request) -> Response:
        body = await _body(request)
        sid, game, new = session_of(request)
        live = need(game)
        if "action" not in body:
            raise GameError("bad_request", "action: missing (an action id)")

        def work() -> Any:
            played = live.play_human(body["action"])
            return {"move": played.as_json(), "state": live.view()}

        return answer(await locked(live, work), sid, new)

    async def step(request: Request) -> Response:
        await _body(request)
        sid, game, new = session_of(request)
        live = need(game)

        def work() -> Any:
            played = live.step_agent()
            return {"move": played.as_json(), "state": live.view()}

        return answer(await locked(live, work), sid, new)

    async def undo(request: Request) -> Response:
        await _body(request)
        sid, game, new = session_of(request)
        live = need(game)

        def work() -> Any:
            live.undo()
            return live.view()

        return answer(await locked(live, work), sid, new)

    async def saves(request: Request) -> Response:
        files = []
        if folder.is_dir():
            found = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
            files = [p.name for p in found if not p.name.startswith(".")][:200]
        return JSONResponse({"folder": str(folder), "saves": files})

    async def save(request: Request) -> Response:
        body = await _body(request)
        sid, game, new = session_of(request)
        live = need(game)
        path = save_path(folder, body.get("name"))
        replace = body.get("replace") is True
        folder.mkdir(parents=True, exist_ok=True)
        saved = await locked(live, lambda: live.save_as(path, replace))
        return answer({"saved": saved.name}, sid, new)

    async def load(request: Request) -> Response:
        body = await _body(request)
        sid, _, new = session_of(request)
        path = save_path(folder, body.get("name"))
        if not path.is_file():
            raise GameError("no_such_save", f"no saved game {path.name!r} in the save folder", 404)

        def make() -> WebGame:
            try:
                return WebGame.resume(path, save_dir=folder, **extra)
            except (ValueError, RuntimeError) as exc:
                raise GameError("bad_save", str(exc)) from None

        game = await run_in_threadpool(make)
        sessions.put(sid, game)
        return answer(await locked(game, game.view), sid, new)

    async def replay(request: Request) -> Response:
        _, game, _ = session_of(request)
        live = need(game)

        def page() -> str:
            if live.actions is None:
                raise GameError("no_replay", "this game was saved without its moves", 404)
            path = live.autosave()
            try:
                return replay_html(load_game(path))
            except ReplayError as exc:
                raise GameError("no_replay", str(exc), 404) from None

        return HTMLResponse(await locked(live, page))

    async def game_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, GameError)
        return _error(exc.code, str(exc), exc.status)

    async def server_error(request: Request, exc: Exception) -> Response:
        return _error("internal_error", f"{type(exc).__name__}: {exc}", 500)

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, HTTPException)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "bad_request")
        return _error(code, str(exc.detail), exc.status_code)

    routes = [
        Route("/", index),
        Route("/api/games", games),
        Route("/api/default-agent", default),
        Route("/api/state", state),
        Route("/api/new", new_game, methods=["POST"]),
        Route("/api/move", move, methods=["POST"]),
        Route("/api/step", step, methods=["POST"]),
        Route("/api/undo", undo, methods=["POST"]),
        Route("/api/saves", saves),
        Route("/api/save", save, methods=["POST"]),
        Route("/api/load", load, methods=["POST"]),
        Route("/replay", replay),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    middleware = [] if allowed_hosts is None else [Middleware(_HostCheck, hosts=allowed_hosts)]
    return Starlette(
        routes=routes,
        middleware=middleware,
        exception_handlers={
            GameError: game_error,
            HTTPException: http_error,
            Exception: server_error,
        },
    )


class _HostCheck:
    """ASGI middleware: refuse a request whose ``Host`` header names another host
    (``bad_host``, 400)."""

    def __init__(self, app: Any, hosts: tuple[str, ...]) -> None:
        self.app = app
        self.hosts = {h.lower() for h in hosts}

    async def __call__(
        self,
        scope: dict[str, Any],
        receive: Callable[[], Awaitable[Any]],
        send: Callable[[Any], Awaitable[None]],
    ) -> None:
        if scope["type"] == "http":
            host = dict(scope.get("headers") or []).get(b"host", b"").decode("latin-1").lower()
            name = host.partition("]")[0] + "]" if host.startswith("[") else host.partition(":")[0]
            if name not in self.hosts:
                response = _error("bad_host", f"host {host!r} is not this server", 400)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)
