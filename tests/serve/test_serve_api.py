"""The web app's HTTP side without a browser (Starlette's test client, and the command in a
process): every table can be set up, bad requests get a 4xx with a named error and leave the
game as it was, each browser has its own game, save and load stay in the save folder, a
finished game is on disk before the last move is answered (and survives a killed server),
undo stops at a reveal, and the click maps point at the squares a move fills."""

from __future__ import annotations

import http.cookiejar
import json
import os
import random
import re
import signal
import subprocess
import sys
import urllib.request
import warnings
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("httpx", reason="the serve extra is not installed")

with warnings.catch_warnings():  # Starlette 1.x asks for httpx2; httpx still works
    warnings.simplefilter("ignore")
    from starlette.testclient import TestClient  # noqa: E402

from agents.az.checkpoint import shipped_model  # noqa: E402
from agents.saved_game import SavedGame  # noqa: E402
from agents.serve.app import MAX_BODY, create_app  # noqa: E402
from agents.serve.session import WebGame  # noqa: E402
from agents.shipped import CHECKPOINTS  # noqa: E402
from moonriver_env.games import GAMES, GameSpec, parse_game  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ROOT = Path(__file__).resolve().parents[2]


def _client(save_dir: Path) -> TestClient:
    return TestClient(create_app(save_dir), base_url="http://127.0.0.1:8000")


def _new(client: TestClient, game: str = "moonriver", seats: Any = None, seed: int = 1) -> Any:
    r = client.post(
        "/api/new", json={"game": game, "seats": seats or ["human", "random"], "seed": seed}
    )
    assert r.status_code == 200, r.text
    return r.json()


def _to_human(client: TestClient) -> Any:
    state = client.get("/api/state").json()
    while not state["finished"] and not state["human_turn"]:
        state = client.post("/api/step", json={}).json()["state"]
    return state


def _play_out(client: TestClient, rng: random.Random) -> Any:
    state = _to_human(client)
    while not state["finished"]:
        move = rng.choice(state["moves"])
        state = client.post("/api/move", json={"action": move["id"]}).json()["state"]
        state = _to_human(client)
    return state


def _tables() -> list[tuple[str, int, str]]:
    """Every table: each game at each player count in each mode, and the modes of the shipped
    ``az`` models (Kingdomino's variants combined)."""
    shipped = {p.name for p in CHECKPOINTS.glob("az_*") if (p / "model.pt").is_file()}
    out = []
    for name, entry in GAMES.items():
        modes = list(entry.modes)
        for folder in shipped:
            try:
                spec = parse_game(folder[len("az_") :])
            except ValueError:  # a model kept beside the shipped one (az_2p_zero)
                continue
            if spec.game == name and spec.mode not in modes:
                modes.append(spec.mode)
        out += [(name, players, mode) for players in entry.player_counts for mode in modes]
    return out


def test_every_table_can_be_set_up_and_played_to_the_end(tmp_path: Path) -> None:
    """Every table: the agent seated by default is ``az`` exactly where a model ships for it,
    else the next strongest with a note saying so; every seat left empty gets it and it plays;
    and a game against non-human seats is played to its end. A table the game refuses is a
    named ``bad_setup``."""
    client = _client(tmp_path)
    listed = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    assert set(listed) == set(GAMES)
    played = 0
    for name, players, mode in _tables():
        assert listed[name]["players"] == list(GAMES[name].player_counts)
        r = client.get(
            "/api/default-agent", params={"game": name, "players": players, "mode": mode}
        )
        seats = ["human"] + [""] * (players - 1)
        made = client.post("/api/new", json={"game": name, "seats": seats, "mode": mode, "seed": 3})
        if r.status_code != 200:  # a mode this player count refuses: named, and no game
            assert r.json()["error"] == "bad_setup", r.text
            assert made.status_code == 400 and made.json()["error"] == "bad_setup", made.text
            continue
        default = r.json()
        spec = GameSpec(game=name, num_players=players, mode=mode)
        has_model = shipped_model(spec) is not None  # the table's own, or the game's
        assert (default["agent"] == "az") == has_model, (spec.text, default)
        assert bool(default["note"]) == (not has_model), (spec.text, default)
        if not has_model:
            assert default["note"].startswith("az: ") and default["agent"] in default["note"]
        state = made.json()
        assert len(state["pieces"]) == players + 1 and len(state["scores"]) == players
        assert "state" not in state  # the engine's state (hidden pile) never leaves
        assert all(default["agent"] in seat for seat in state["seats"][1:]), state["seats"]
        rng = random.Random(players)
        moved: set[int] = set()
        while len(moved) < players - 1 and not state["finished"]:  # each default agent plays
            if state["human_turn"]:
                move = rng.choice(state["moves"])
                state = client.post("/api/move", json={"action": move["id"]}).json()["state"]
            else:
                step = client.post("/api/step", json={}).json()
                moved.add(step["move"]["seat"])
                state = step["state"]
        # a whole game against non-human seats
        seats = ["human"] + ["random"] * (players - 1)
        client.post("/api/new", json={"game": name, "seats": seats, "mode": mode, "seed": 3})
        state = _play_out(client, rng)
        assert state["finished"] and state["winners"] and state["saved_to"]
        played += 1
    assert played >= 20


def test_every_asset_is_served_from_here(tmp_path: Path) -> None:
    """The page names no other server: no CDN, nothing fetched from the network."""
    from agents.serve.app import STATIC

    client = _client(tmp_path)
    assert sorted(p.name for p in STATIC.iterdir()) == ["app.css", "app.js", "index.html"]
    for path in STATIC.iterdir():
        text = path.read_text(encoding="utf-8")
        outside = [u for u in re.findall(r"(?:https?:)?//[\w.-]+", text) if "w3.org" not in u]
        assert outside == [], (path.name, outside)
        assert client.get(f"/static/{path.name}").status_code == 200


def test_an_unexpected_failure_is_a_named_json_error(tmp_path: Path) -> None:
    client = TestClient(
        create_app(tmp_path), base_url="http://127.0.0.1", raise_server_exceptions=False
    )
    _new(client, seats=["human", "random"])
    state = _to_human(client)

    def broken(self: Any, action: Any) -> Any:
        raise RuntimeError("boom")

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(WebGame, "play_human", broken)
        r = client.post("/api/move", json={"action": state["moves"][0]["id"]})
    assert r.status_code == 500 and r.json()["error"] == "internal_error"
    assert client.get("/api/state").json() == state


def test_a_scenario_can_be_chosen(tmp_path: Path) -> None:
    client = _client(tmp_path)
    games = {g["name"]: g for g in client.get("/api/games").json()["games"]}
    assert games["moonriver"]["settings"] == ["scenario"] and games["kingdomino"]["settings"] == []
    r = client.post(
        "/api/new",
        json={
            "game": "moonriver",
            "mode": "legends",
            "seats": ["human", "random"],
            "scenario": "nope",
        },
    )
    assert (
        r.status_code == 400
        and r.json()["error"] == "bad_setup"
        and "scenario" in r.json()["message"]
    )


def test_az_is_the_default_where_a_model_exists(tmp_path: Path) -> None:
    client = _client(tmp_path)
    q = client.get("/api/default-agent?game=moonriver&players=2&mode=base").json()
    assert q["agent"] == "az"
    state = _new(client, seats=["az", "human"], seed=4)
    state = client.get("/api/state").json()
    if state["to_play"] == 1:
        move = state["moves"][0]
        client.post("/api/move", json={"action": move["id"]})
    step = client.post("/api/step", json={}).json()
    assert step["move"]["seat"] == 0 and step["move"]["think_ms"] >= 0
    weighed = step["move"]["candidates"]
    assert 1 <= len(weighed) <= 5 and all({"words", "share", "value"} <= set(c) for c in weighed)


BAD_REQUESTS = [
    ("/api/move", {"json": {"action": 10**9}}, 400, "illegal_move"),
    ("/api/move", {"json": {"action": "claim 1"}}, 400, "bad_move"),
    ("/api/move", {"json": {"action": True}}, 400, "bad_move"),
    ("/api/move", {"json": {}}, 400, "bad_request"),
    ("/api/move", {"json": [1, 2]}, 400, "bad_json"),
    ("/api/move", {"content": b"{not json", "headers": {"content-type": "application/json"}}, 400, "bad_json"),
    ("/api/move", {"content": b"action=1", "headers": {"content-type": "application/x-www-form-urlencoded"}}, 415, "unsupported_media_type"),
    ("/api/move", {"content": b"[" * (MAX_BODY + 1), "headers": {"content-type": "application/json"}}, 413, "too_large"),
    ("/api/step", {"json": {}}, 409, "not_agents_turn"),
    ("/api/new", {"json": {"game": "chess", "seats": ["human", "random"]}}, 400, "unknown_game"),
    ("/api/new", {"json": {"game": "moonriver", "seats": ["human"] * 9}}, 400, "bad_setup"),
    ("/api/new", {"json": {"game": "moonriver", "seats": ["human", "nobody"]}}, 400, "bad_setup"),
    ("/api/new", {"json": {"game": "moonriver", "seats": "human"}}, 400, "bad_request"),
    ("/api/new", {"json": {"game": "moonriver", "seats": ["human", "random"], "seed": "x"}}, 400, "bad_request"),
    ("/api/save", {"json": {"name": "../up"}}, 400, "bad_name"),
    ("/api/load", {"json": {"name": "nothing-here"}}, 404, "no_such_save"),
    ("/api/undo", {"json": {}}, 409, "cannot_undo"),
    ("/api/nowhere", {"json": {}}, 404, "not_found"),
]  # fmt: skip


@pytest.mark.parametrize(("path", "kwargs", "status", "code"), BAD_REQUESTS)
def test_a_bad_request_is_named_and_changes_nothing(
    tmp_path: Path, path: str, kwargs: dict[str, Any], status: int, code: str
) -> None:
    client = _client(tmp_path)
    _new(client)
    before = _to_human(client)
    r = client.post(path, **kwargs)
    assert r.status_code == status, r.text
    assert r.json()["error"] == code and r.json()["message"]
    assert client.get("/api/state").json() == before


def test_a_streamed_oversized_body_is_refused(tmp_path: Path) -> None:
    client = _client(tmp_path)
    _new(client)
    before = _to_human(client)

    def chunks() -> Any:
        for _ in range(40):
            yield b" " * 1024

    r = client.post("/api/move", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"] == "too_large"
    assert client.get("/api/state").json() == before


def test_another_host_is_refused(tmp_path: Path) -> None:
    client = _client(tmp_path)
    r = client.get("/api/state", headers={"host": "attacker.example:8000"})
    assert r.status_code == 400 and r.json()["error"] == "bad_host"
    assert client.get("/api/state", headers={"host": "localhost:8000"}).status_code == 200


def test_a_move_out_of_turn_is_refused(tmp_path: Path) -> None:
    client = _client(tmp_path)
    _new(client, seats=["random", "random"])
    before = client.get("/api/state").json()
    r = client.post("/api/move", json={"action": 0})
    assert r.status_code == 409 and r.json()["error"] == "not_your_turn"
    assert client.get("/api/state").json() == before


def test_each_browser_has_its_own_game(tmp_path: Path) -> None:
    app = create_app(tmp_path)
    a = TestClient(app, base_url="http://127.0.0.1")
    b = TestClient(app, base_url="http://127.0.0.1")
    assert a.get("/api/state").json() == {"game": None}
    _new(a, "moonriver", seed=1)
    assert b.get("/api/state").json() == {"game": None}
    _new(b, "kingdomino", seed=2)
    assert a.cookies["moonriver_session"] != b.cookies["moonriver_session"]
    sa, sb = _to_human(a), _to_human(b)
    a.post("/api/move", json={"action": sa["moves"][0]["id"]})
    assert b.get("/api/state").json() == sb
    assert a.get("/api/state").json()["game"] == "moonriver"
    # a made-up session id gets a fresh session, not someone's game
    c = TestClient(app, base_url="http://127.0.0.1", cookies={"moonriver_session": "guess"})
    assert c.get("/api/state").json() == {"game": None}


@pytest.mark.parametrize(
    "name",
    ["../x", "..", "/etc/passwd", "a/b", "a\\b", ".hidden", "", "x" * 200, "C:evil", None, 5],
)
def test_save_names_stay_in_the_save_folder(tmp_path: Path, name: Any) -> None:
    saves = tmp_path / "saves"
    client = _client(saves)
    _new(client)
    for path in ("/api/save", "/api/load"):
        r = client.post(path, json={"name": name})
        assert r.status_code == 400 and r.json()["error"] == "bad_name", r.text
    assert not any(tmp_path.rglob("*.json"))


def test_save_and_load_round_trip(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    client = _client(saves)
    _new(client, "kingdomino", seed=9)
    rng = random.Random(9)
    state = _to_human(client)
    for _ in range(5):
        client.post("/api/move", json={"action": rng.choice(state["moves"])["id"]})
        state = _to_human(client)
    r = client.post("/api/save", json={"name": "mine"})
    assert r.json() == {"saved": "mine.json"}
    assert client.post("/api/save", json={"name": "mine"}).json()["error"] == "file_exists"
    assert client.post("/api/save", json={"name": "mine", "replace": True}).status_code == 200
    saved = SavedGame.load(saves / "mine.json")  # the play command's format
    assert saved.game == "kingdomino" and saved.decisions == state["decisions"]
    assert "mine.json" in client.get("/api/saves").json()["saves"]
    other = _client(saves)
    loaded = other.post("/api/load", json={"name": "mine.json"}).json()
    for key in ("pieces", "scores", "moves", "decisions", "to_play", "seats", "setup"):
        assert loaded[key] == state[key], key
    assert [m["words"] for m in loaded["log"]] == [m["words"] for m in state["log"]]
    # a file that is no saved game, and a link out of the folder
    (saves / "junk.json").write_text("{", encoding="utf-8")
    assert other.post("/api/load", json={"name": "junk"}).json()["error"] == "bad_save"
    outside = tmp_path / "outside.json"
    outside.write_text((saves / "mine.json").read_text(), encoding="utf-8")
    (saves / "link.json").symlink_to(outside)
    assert other.post("/api/load", json={"name": "link.json"}).json()["error"] == "bad_name"


def test_a_finished_game_is_saved_before_the_answer(tmp_path: Path) -> None:
    saves = tmp_path / "saves"
    client = _client(saves)
    _new(client, "kingdomino", seats=["human", "random"], seed=12)
    state = _play_out(client, random.Random(12))
    path = saves / state["saved_to"]
    saved = SavedGame.load(path)
    assert saved.state.is_terminal and saved.actions is not None
    assert [p.name for p in saves.iterdir()] == [path.name]  # no temporary file left
    page = client.get("/replay")
    assert page.status_code == 200 and "final-scores" in page.text
    assert client.post("/api/undo", json={}).json()["error"] == "cannot_undo"
    assert client.post("/api/step", json={}).json()["error"] == "game_over"


def test_an_unwritable_save_folder_is_said_not_hidden(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    client = _client(blocker / "saves")  # a folder under a file: nothing can be written
    _new(client, "kingdomino", seed=2)
    state = _play_out(client, random.Random(2))
    assert state["finished"] and state["saved_to"] is None
    assert state["save_error"].startswith("could not save the finished game")


def test_undo_goes_back_until_something_is_revealed(tmp_path: Path) -> None:
    game = WebGame.new("moonriver", ["human", "random"], seed=5, save_dir=tmp_path)
    rng = random.Random(5)
    undone = refused = 0
    while not game.state.is_terminal and (not undone or not refused):
        while not game.state.is_terminal and game.state.current_seat in game.agents:
            game.step_agent()
        if game.state.is_terminal:
            break
        if game.can_undo() and not undone:
            view = game.view()
            game.undo()
            assert game.view()["decisions"] < view["decisions"]
            undone += 1
        round_before = game.screen.round(game.state)
        game.play_human(rng.choice(game.state.legal_action_list()))
        while not game.state.is_terminal and game.state.current_seat in game.agents:
            game.step_agent()
        if not game.state.is_terminal and game.screen.round(game.state) != round_before:
            assert not game.can_undo()  # a new round revealed pieces: no undo past it
            refused += 1
    assert undone and refused


PASSES = {("stop",), ("cowboy", "stop"), ("desperado", "skip"), ("thief", "skip"), ("discard",)}
"""The moves picked from the buttons only: passes (nothing on the board to click)."""


def _key(target: dict[str, Any]) -> tuple[Any, ...]:
    return (target["piece"], *target["box"])


def _size(markup: str) -> tuple[float, float, float, float]:
    """A picture's viewBox (``x y width height``)."""
    found = re.search(r'viewBox="([-\d. ]+)"', markup)
    assert found is not None
    x, y, w, h = (float(v) for v in found.group(1).split())
    return x, y, w, h


@pytest.mark.parametrize("game", ["moonriver", "kingdomino"])
def test_every_move_is_clicked_on_the_board(tmp_path: Path, game: str) -> None:
    """Through the game's ``board`` hook, every legal move but a pass has a click path; each
    click lies on its picture; no two moves share a path or one's path starts another's
    (so the clicks always tell the moves apart); over whole games at every table and mode."""
    entry = GAMES[game]
    seen: set[str] = set()
    for players in entry.player_counts:
        for mode in entry.modes:
            try:
                web = WebGame.new(game, ["human"] * players, mode=mode, seed=1, save_dir=tmp_path)
            except Exception:  # a mode this player count refuses (test_every_table_...)
                continue
            rng = random.Random(players)
            while not web.state.is_terminal:
                view = web.view()
                frames = [_size(p) for p in view["pieces"]]
                paths: dict[tuple[Any, ...], int] = {}
                for move in view["moves"]:
                    words = tuple(move["words"])
                    assert bool(move["paths"]) == (words not in PASSES), words
                    for path in move["paths"]:
                        seen.add(words[0])
                        for t in path:
                            x0, y0, w, h = frames[t["piece"]]
                            x, y, tw, th = t["box"]
                            assert x0 <= x and x + tw <= x0 + w and y0 <= y and y + th <= y0 + h
                        key = tuple(_key(t) for t in path)
                        assert paths.setdefault(key, move["id"]) == move["id"], words
                for key, action in paths.items():
                    for n in range(1, len(key)):
                        assert paths.get(key[:n], action) == action, key
                web.play_human(rng.choice(view["moves"])["id"])
    kinds = {"moonriver": {"claim", "place", "recruit", "skull", "move", "steal", "bonus"},
             "kingdomino": {"pick", "place"}}[game]  # fmt: skip
    assert kinds <= seen, kinds - seen


@pytest.mark.parametrize("game", ["moonriver", "kingdomino"])
def test_the_clicks_are_where_the_move_goes(tmp_path: Path, game: str) -> None:
    """A placement's last two clicks are the squares the engine fills; in Moon River its first
    two are the held plots that land on them, in that order, and a recruit's last click is the
    cell that takes the partner. The squares are read back from the painters' layout."""
    checked = 0
    for seed in range(2):
        web = WebGame.new(game, ["human", "human"], seed=seed, save_dir=tmp_path)
        rng = random.Random(seed)
        state = web.state
        while not state.is_terminal:
            moves = web.view()["moves"]
            seat = state.current_seat
            board = _Board(state, seat)
            for move in moves:
                if move["words"][0] not in ("place", "recruit"):
                    continue
                after = state.clone()
                after.apply(move["id"])
                then = _Board(after, seat)
                for path in move["paths"]:
                    if move["words"][0] == "recruit":
                        cell = board.cell_at(path[-1])
                        assert then.partner(cell) >= 0 > board.partner(cell)
                        continue
                    first, second = (board.cell_at(t) for t in path[-2:])
                    assert {first, second} == then.filled() - board.filled()
                    if game == "moonriver":
                        plots = [board.held(t) for t in path[:2]]
                        assert plots == [then.face(first), then.face(second)]
                    checked += 1
            web.play_human(rng.choice(moves)["id"])
    assert checked > 100


class _Board:
    """One seat's squares as the painters draw them (their layout constants), read back."""

    def __init__(self, state: Any, seat: int) -> None:
        self.seat = seat
        if hasattr(state, "kingdoms"):
            from moonriver_env.kingdomino.replay import CELL

            k = state.kingdoms[seat]
            side = k.board.side
            self.ranch = None
            self.squares = [k.square(c) for c in range(k.board.cells)]
            self.corner = {
                (q * CELL, r * CELL): r * side + q for r in range(side) for q in range(side)
            }
            return
        from moonriver_env.moonriver.render import svg
        from moonriver_env.moonriver.render.view import table_view

        view = table_view(state)
        self.ranch = view.ranches[seat]
        self.squares = [c.face for c in self.ranch.cells]
        gx = svg._PAD + svg._ROW_LABEL
        gy = svg._PAD + svg._LABEL_H + svg._LETTERS_H
        self.corner = {
            (gx + col * svg.CELL, gy + (view.rows - 1 - row) * svg.CELL): row * view.cols + col
            for row in range(view.rows)
            for col in range(view.cols)
        }
        self.reserve = {svg._PAD + i * (svg._MINI + 4): i for i in range(len(self.ranch.held))}

    def cell_at(self, target: dict[str, Any]) -> int:
        assert target["piece"] == self.seat
        return self.corner[tuple(round(v) for v in target["box"][:2])]

    def filled(self) -> set[int]:
        return {c for c, sq in enumerate(self.squares) if sq is not None}

    def face(self, cell: int) -> Any:
        return self.squares[cell]

    def held(self, target: dict[str, Any]) -> Any:
        assert target["piece"] == self.seat and self.ranch is not None
        return self.ranch.held[self.reserve[round(target["box"][0])]]

    def partner(self, cell: int) -> int:
        assert self.ranch is not None
        return int(self.ranch.cells[cell].partner)


def _http(opener: Any, url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, method="GET" if body is None else "POST")
    if body is not None:
        request.add_header("Content-Type", "application/json")
    with opener.open(request, timeout=60) as answer:
        return json.loads(answer.read())


def test_the_command_serves_and_a_killed_server_keeps_the_finished_game(tmp_path: Path) -> None:
    """``python -m agents.serve --port 0 --no-browser``: it binds 127.0.0.1, plays a game
    to its end over HTTP, and after ``kill -9`` the finished game is on disk, whole."""
    saves = tmp_path / "saves"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agents.serve",
            "--port",
            "0",
            "--no-browser",
            "--save-dir",
            str(saves),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("Serving the games at http://127.0.0.1:"), line
        url = line.split()[4].rstrip("/")
        opener = urllib.request.build_opener(
            urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar())
        )
        with opener.open(url + "/", timeout=60) as page:
            assert b"app.js" in page.read()
        _http(
            opener,
            url + "/api/new",
            {"game": "kingdomino", "seats": ["human", "random"], "seed": 4},
        )
        rng = random.Random(4)
        state = _http(opener, url + "/api/state")
        while not state["finished"]:
            if state["human_turn"]:
                move = rng.choice(state["moves"])
                state = _http(opener, url + "/api/move", {"action": move["id"]})["state"]
            else:
                state = _http(opener, url + "/api/step", {})["state"]
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        saved = SavedGame.load(saves / state["saved_to"])
        assert saved.state.is_terminal and saved.decisions == state["decisions"]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
