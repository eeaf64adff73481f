"""The Ray backend of the game runner (agents/ray_backend.py, issue 14): the same jobs on Ray
actors give the same games, files and samples as the process backend; Ray is imported only
when asked for; a missing Ray or a bad address is a clear error, not a hang.

One local Ray (2 CPUs) serves the module's tests (module fixture; starting Ray takes seconds);
the run functions find it running and use it, as they would a notebook's."""

from __future__ import annotations

import json
import operator
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fresh_python import run_python

from agents.jobs import Backend, BackendError, run_jobs
from agents.ray_backend import (
    INSTALL_HINT,
    LOCAL_OBJECT_STORE_BYTES,
    LOCAL_RAY_ENV,
    check_address,
    start_local,
)
from agents.shipped import CHECKPOINTS
from agents.tournament import main, run_tournament
from agents.tournament.gamesfile import GamesFile

RAY = Backend("ray")
SPECS = ["random", "greedy", "heuristic"]


@pytest.fixture(scope="module")
def local_ray() -> Iterator[str]:
    """A Ray on this machine for the module (one already running is used as it is); yields
    its address (for a second driver)."""
    ray = pytest.importorskip("ray")
    started = not ray.is_initialized()
    if started:
        start_local(2, logging_level="WARNING")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        if started:
            ray.shutdown()


@pytest.fixture(scope="module")
def process_files(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, bytes]]:
    """The process backend's tournament files, 2 and 4 players (what Ray must reproduce)."""
    files = {}
    for players in (2, 4):
        out = tmp_path_factory.mktemp(f"process{players}")
        _tournament(out, players)
        files[players] = _files(out)
    return files


def _files(out: Path) -> dict[str, bytes]:
    """The tournament's files but its (wall-clock) timing."""
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.name != "timing.json"}


def _tournament(out: Path, players: int, backend: Backend | None = None, **kw: Any) -> None:
    games = 2 if players == 2 else 6  # 2 players: per pair (3 pairs), so 6 games either way
    workers = 2 if backend is not None else 1
    result = run_tournament(
        SPECS, players, games, seed=11, workers=workers, out=out, backend=backend, **kw
    )
    result.save(out, plot=False)


# ------------------------------------------------------------------------ same results


def test_run_jobs_streams_every_result_and_keeps_job_order(local_ray: str) -> None:
    seen: list[int] = []
    # setup and play are importable anywhere (Ray's workers cannot import the test modules)
    got = run_jobs(range(7), int, (10,), operator.add, 2, seen.append, backend=RAY)
    assert got == [10 + j for j in range(7)]
    assert sorted(seen) == got  # on_result saw each result once, as it came


@pytest.mark.parametrize("players", [2, 4])
def test_tournament_files_are_the_process_backends(
    local_ray: str, process_files: dict[int, dict[str, bytes]], tmp_path: Path, players: int
) -> None:
    _tournament(tmp_path, players, RAY)
    process = process_files[players]
    assert set(process) >= {"games.csv", "summary.csv", "summary.json", "tournament.json"}
    assert _files(tmp_path) == process  # byte-identical


def test_interrupted_ray_tournament_resumes_to_the_same_files(
    local_ray: str,
    process_files: dict[int, dict[str, bytes]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    append = GamesFile.append
    kept: list[int] = []

    def ctrl_c_after_two(self: GamesFile, record: Any) -> None:
        if len(kept) == 2:  # Ctrl-C reaches this process while the actors play
            raise KeyboardInterrupt
        kept.append(record.index)
        append(self, record)

    monkeypatch.setattr(GamesFile, "append", ctrl_c_after_two)
    part = tmp_path / "part"
    with pytest.raises(KeyboardInterrupt):
        _tournament(part, 2, RAY)
    assert len((part / "games.csv").read_text().splitlines()) == 1 + 2 * 2  # header, 2 games
    monkeypatch.setattr(GamesFile, "append", append)
    _tournament(part, 2, RAY, resume=True)
    assert _files(part) == process_files[2]


def test_cli_on_a_cluster_address_plays_the_same_games(
    local_ray: str, process_files: dict[int, dict[str, bytes]], tmp_path: Path
) -> None:
    """A second driver joins the running Ray by its address (as on a cluster)."""
    out = tmp_path / "cli"
    argv = f"--agents {','.join(SPECS)} --games 2 --seed 11 --workers 2 --no-plot --out {out}"
    argv += f" --backend ray --address {local_ray}"
    code = f"import sys; from agents.tournament import main; sys.exit(main({argv.split()!r}))"
    proc = run_python(code, timeout=180)
    assert f"results: {out}" in proc.stdout
    assert "games" in proc.stderr  # the progress bar
    assert _files(out) == process_files[2]


def test_evaluation_is_the_process_backends(local_ray: str) -> None:
    from agents.networks.snapshots import load_policy
    from training.common.ladder import evaluate_ladder

    model = CHECKPOINTS / "ppo_2p_base" / "model.zip"
    policy = load_policy(model)  # sent to the actors: the file need not be on their machine
    args = (policy, ["random"], 2)
    process = evaluate_ladder(*args, seed=3, env_kwargs={"num_players": 2})
    ray = evaluate_ladder(*args, seed=3, env_kwargs={"num_players": 2}, workers=2, backend=RAY)
    assert ray == process
    assert ray[0]["games"] == 2


def test_a_failing_job_raises_its_own_error(local_ray: str) -> None:
    with pytest.raises(ZeroDivisionError):
        run_jobs([1, 0], int, (1,), operator.floordiv, workers=2, backend=RAY)


# ------------------------------------------------------------------------------- errors


def test_the_local_ray_keeps_its_own_memory_settings(local_ray: str) -> None:
    """The Ray the tests (and the commands) start: its memory monitor off in every worker, its
    object store a fixed size rather than a share of the memory free at its start."""
    import ray

    @ray.remote
    def settings(names: list[str]) -> dict[str, str | None]:
        import os

        return {name: os.environ.get(name) for name in names}

    assert ray.get(settings.remote(list(LOCAL_RAY_ENV))) == LOCAL_RAY_ENV
    assert ray.cluster_resources()["object_store_memory"] <= LOCAL_OBJECT_STORE_BYTES


def test_a_full_machine_does_not_kill_the_local_rays_work() -> None:
    """Another process holding most of the machine's memory, made cheap: Ray told the machine
    is full past 1 % of its memory. Ray's own monitor would kill the task (OutOfMemoryError);
    the project's Ray keeps it."""
    pytest.importorskip("ray")
    code = (
        "import os; os.environ.pop('RAY_memory_monitor_refresh_ms', None)\n"
        "from agents.ray_backend import start_local\n"
        "ray = start_local(1, logging_level='ERROR')\n"
        "@ray.remote(max_retries=0)\n"
        "def work():\n"
        "    import time; time.sleep(2); return len(bytearray(20_000_000))\n"
        "print(ray.get(work.remote()))\n"
        "ray.shutdown()\n"
    )
    out = run_python(code, timeout=180, RAY_memory_usage_threshold="0.01")
    assert out.stdout.strip().splitlines()[-1] == "20000000"


def test_ray_is_started_in_one_place() -> None:
    """Every local Ray of the project and its tests comes from ``start_local``."""
    here = Path(__file__).resolve()
    root = here.parents[2]
    calls = [
        f"{path.relative_to(root)}:{n}"
        for folder in ("agents", "training", "moonriver_env", "tests")
        for path in sorted((root / folder).rglob("*.py"))
        if path != here
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if "ray.init(" in line and path != root / "agents" / "ray_backend.py"
    ]
    assert calls == []


def test_ray_is_imported_only_for_the_ray_backend(tmp_path: Path) -> None:
    """A process-backend tournament and the training modules load Ray at no point, even
    where an importable ``ray`` exists (a stub first on the path catches ``try: import``)."""
    (tmp_path / "ray").mkdir()
    (tmp_path / "ray" / "__init__.py").write_text("STUB = True\n")
    code = (
        "import json, sys\n"
        "import moonriver_env, agents, agents.runner, agents.ray_backend\n"
        "import training.common.ladder, training.value.collect\n"
        "from agents.tournament import main\n"
        "main(['--agents', 'random,greedy', '--games', '1', '--no-plot', '--no-progress',\n"
        f"      '--out', {str(tmp_path / 'out')!r}])\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] == 'ray')))\n"
    )
    out = run_python(code, timeout=120, paths=[str(tmp_path)])
    assert json.loads(out.stdout.strip().splitlines()[-1]) == []


def test_missing_ray_names_the_extra(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what an environment without Ray sees
    with pytest.raises(BackendError, match=r"pip install -e \.\[ray\]"):
        run_jobs([1], int, (), operator.add, backend=RAY)
    with pytest.raises(SystemExit) as exit_info:
        main(
            ["--agents", "random", "--games", "1", "--backend", "ray", "--out", str(tmp_path / "t")]
        )
    assert exit_info.value.code == 2
    assert INSTALL_HINT in capsys.readouterr().err
    assert not (tmp_path / "t").exists()  # refused before anything was written


def test_address_needs_the_ray_backend(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="^address: .*--backend ray"):
        Backend("process", "127.0.0.1:6379")
    with pytest.raises(SystemExit):
        main(["--agents", "random", "--games", "1", "--address", "127.0.0.1:6379"])


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def not_ray() -> Iterator[int]:
    """A port that accepts connections and answers like an HTTP/1 server (a dashboard)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def answer() -> None:
        try:
            conn, _ = server.accept()
        except OSError:
            return
        with conn:
            conn.recv(64)
            conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    yield int(server.getsockname()[1])
    server.close()


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("nonsense", "expected HOST:PORT"),
        ("127.0.0.1:{closed}", "no Ray cluster answers at"),
        ("ray://127.0.0.1:{closed}", "no Ray cluster answers at"),
        ("127.0.0.1:{not_ray}", "answers but is not a Ray cluster's head"),
    ],
)
def test_a_bad_address_is_a_prompt_error(address: str, message: str, not_ray: int) -> None:
    address = address.format(closed=_closed_port(), not_ray=not_ray)
    start = time.monotonic()
    with pytest.raises(BackendError, match=f"^address: .*{message}"):
        check_address(address, timeout=5.0)
    assert time.monotonic() - start < 6.0


def test_cli_refuses_an_unreachable_cluster_before_writing(tmp_path: Path) -> None:
    """End to end, in a fresh interpreter (no Ray running there to fall back on)."""
    out = tmp_path / "t"
    argv = ["--agents", "random", "--games", "1", "--out", str(out), "--backend", "ray"]
    argv += ["--address", f"127.0.0.1:{_closed_port()}"]
    code = (
        "import sys\nfrom agents.tournament import main\n"
        f"try:\n    main({argv!r})\nexcept SystemExit as e:\n    print('exit', e.code)\n"
    )
    start = time.monotonic()
    proc = run_python(code, timeout=60)
    assert proc.stdout.split()[-2:] == ["exit", "2"]
    assert "no Ray cluster answers at" in proc.stderr
    assert time.monotonic() - start < 30
    assert not out.exists()
