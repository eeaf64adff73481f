"""Ctrl-C ends a long az search, a tournament and a training run within a second, losing
nothing finished (issue 50, finding 4: a search of in-range settings took 75-83 s a decision and
SIGINT was acted on 66 s later).

The core's search and self-play run without the GIL; while one runs, SIGINT also reaches the
core (azbind.c ``on_sigint``), which stops every search and self-play of the process within one
rollout decision; ``az_interrupt()`` does the same from Python. The subprocess tests send a real
SIGINT to a command busy in such a search and time the line that says it stopped; the
interpreter's own exit after that is bounded loosely (seconds on a loaded machine)."""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from az_models import SPECS, native_state, random_net, write_model
from fresh_python import as_from_a_terminal

from agents.az import SearchSettings
from moonriver_env.family.native import native
from training.az.selfplay import native_template

ROOT = Path(__file__).resolve().parents[2]
SLOW = SearchSettings(k=32, r=4096, depth=100_000, max_depth=100_000, leaves=64)
"""The issue's settings (each in range): minutes a decision."""
STOP_S = 1.0
"""The most seconds from SIGINT to the line saying what stopped."""
EXIT_S = 60.0
"""The most seconds from SIGINT to the process's end (its interpreter's teardown included)."""
TINY = ROOT / "training" / "configs" / "az_tiny.toml"


@dataclass
class Interrupted:
    rc: int
    stopped: float  # seconds from SIGINT to the first line holding ``said``
    stdout: str
    stderr: str


def interrupt(
    cmd: list[str], ready: Callable[[str], bool], said: str, settle: float = 1.0
) -> Interrupted:
    """Run ``cmd``; once ``ready(its output so far)`` and ``settle`` seconds more (it is then
    deep in a search: still running is asserted), send SIGINT and time the line holding
    ``said``."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests" / "az")]))
    p = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        preexec_fn=as_from_a_terminal,
    )  # fmt: skip
    lines: list[tuple[float, str, str]] = []

    def read(stream: Any, name: str) -> None:
        for line in stream:
            lines.append((time.perf_counter(), name, line))

    readers = [threading.Thread(target=read, args=(s, n)) for s, n in ((p.stdout, "out"), (p.stderr, "err"))]  # fmt: skip
    for r in readers:
        r.start()
    try:
        deadline = time.perf_counter() + 240
        while not ready("".join(line for _, _, line in lines)):
            assert p.poll() is None, "".join(line for _, _, line in lines)[-3000:]
            assert time.perf_counter() < deadline, "never ready"
            time.sleep(0.02)
        time.sleep(settle)
        assert p.poll() is None, "finished before the interrupt"
        sent = time.perf_counter()
        p.send_signal(signal.SIGINT)
        p.wait(timeout=EXIT_S)
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        for r in readers:
            r.join()
    text = {n: "".join(line for _, m, line in lines if m == n) for n in ("out", "err")}
    when = [t for t, _, line in lines if said in line and t >= sent]
    assert when, f"never said {said!r}: {text['err'][-3000:]}"
    return Interrupted(p.returncode, when[0] - sent, text["out"], text["err"])


SEARCH = """
import sys, threading, time
from az_models import SPECS, native_state
from agents.az import AzAgent
path, threads = sys.argv[1], int(sys.argv[2])
agents = [AzAgent(seed=i, path=path) for i in range(max(threads, 1))]
for agent in agents:
    agent.load_for(SPECS["mr2"].config())
state = native_state(SPECS["mr2"], 3).to_state()
ended = []
def search(agent):
    try:
        agent.choose(state)
        ended.append("finished")
    except BaseException as exc:
        ended.append(f"{type(exc).__name__}: {exc}")
pool = [threading.Thread(target=search, args=(a,)) for a in agents[:threads]]
for t in pool:
    t.start()
print("searching", flush=True)
try:
    if pool:
        for t in pool:
            t.join()
    else:
        agents[0].choose(state)
except KeyboardInterrupt:
    while len(ended) < len(pool):  # they end by themselves (a join Ctrl-C cut short can
        time.sleep(0.001)  # leave a live thread marked as ended: counted instead)
    print("stopped", ended, flush=True)
    sys.exit(130)
"""


@pytest.mark.parametrize("threads", [0, 2])
def test_ctrl_c_ends_a_long_search_within_a_second(threads: int, tmp_path: Path) -> None:
    """The issue's model, searching in the main thread (0) or in two threads while the main
    one waits for them: SIGINT stops every search within a second."""
    slow = write_model(tmp_path / "slow.pt", SPECS["mr2"], settings=SLOW)
    cmd = [sys.executable, "-c", SEARCH, str(slow), str(threads)]
    out = interrupt(cmd, lambda text: "searching" in text, said="stopped")
    assert out.rc == 130, out.stderr[-3000:]
    assert out.stopped < STOP_S, out
    if threads:
        expected = ["KeyboardInterrupt: az_search: interrupted (SIGINT)"] * threads
        assert f"stopped {expected}" in out.stdout


def test_ctrl_c_ends_a_tournament_keeping_its_finished_games(tmp_path: Path) -> None:
    """A tournament busy in a long az search stops within a second with its finished game in
    games.csv (rc 130); --resume then plays only the others (the model made fast here)."""
    model = write_model(tmp_path / "model.pt", SPECS["mr2"], settings=SLOW)
    out_dir = tmp_path / "t"
    games = out_dir / "games.csv"
    args = ["--agents", f"random,random,az:path={model}", "--games", "1", "--out", str(out_dir),
            "--no-progress", "--no-plot"]  # fmt: skip
    cmd = [sys.executable, "-m", "agents.tournament", *args]

    def first_game_kept(_: str) -> bool:  # game 0 is random against random; 1 and 2 search
        return games.is_file() and len(games.read_text().splitlines()) >= 3

    out = interrupt(cmd, first_game_kept, said="interrupted:")
    assert out.rc == 130, out.stderr[-3000:]
    assert out.stopped < STOP_S, out
    kept = games.read_text().splitlines()
    assert len(kept) == 3 and kept[1].startswith("0,") and kept[2].startswith("0,")
    write_model(model, SPECS["mr2"])  # the same path, a fast search: the resume finishes
    done = subprocess.run([*cmd, "--resume"], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    lines = games.read_text().splitlines()
    assert lines[:3] == kept and len(lines) == 7
    assert sorted({line.split(",")[0] for line in lines[1:]}) == ["0", "1", "2"]


def test_ctrl_c_on_the_play_screen_saves_the_game_within_a_second(tmp_path: Path) -> None:
    """Watching the issue's model think: SIGINT leaves the game within a second and saves it
    (the play screen never loses a game), a file ``--load`` reads back."""
    from agents.saved_game import SavedGame

    slow = write_model(tmp_path / "slow.pt", SPECS["mr2"], settings=SLOW)
    saves = tmp_path / "games"
    cmd = [sys.executable, "-m", "agents.play", "--opponents", f"az:path={slow}", "--watch",
           "--delay", "0", "--no-color", "--save-dir", str(saves)]  # fmt: skip
    out = interrupt(cmd, lambda text: "hold 0/3" in text, said="Interrupted: leaving the game")
    assert out.stopped < STOP_S, out
    files = list(saves.iterdir())
    assert len(files) == 1 and f"--load {files[0]}" in out.stdout
    SavedGame.load(files[0])  # a whole saved game, not a file cut short


def test_ctrl_c_ends_a_training_run_keeping_its_iterations(tmp_path: Path) -> None:
    """A training run interrupted in the self-play of iteration 1 (its search the issue's) stops
    within a second with iteration 0 kept (rc 130); --resume then goes on
    from there (its search made fast) and finishes, iteration 0 unchanged."""
    rd = tmp_path / "run"
    heavy = ["net.hidden1=8", "net.hidden2=4", "eval.every=0", "selfplay.k=32",
             "selfplay.r=4096", "selfplay.depth=100000", "search.max_depth=100000",
             "search.leaves=64"]  # fmt: skip
    sets = [a for s in heavy for a in ("--set", s)]
    cmd = [sys.executable, "-m", "training.az", "--config", str(TINY), "--run-dir", str(rd), *sets]

    def iteration_0_kept(text: str) -> bool:
        return "iteration 0:" in text

    out = interrupt(cmd, iteration_0_kept, said="interrupted:", settle=1.5)
    assert out.rc == 130, out.stderr[-3000:]
    assert out.stopped < STOP_S, out
    assert f"python -m training.az --run-dir {rd} --resume" in out.stderr
    iter0 = (rd / "checkpoints" / "iter_00000.pt").read_bytes()
    rows = (rd / "progress.csv").read_text().splitlines()
    assert [r.split(",")[0] for r in rows[1:]] == ["0"]
    light = ["selfplay.k=0", "selfplay.depth=2", "search.max_depth=48", "search.leaves=1"]
    again = [a for s in light for a in ("--set", s)]
    done = subprocess.run(
        [sys.executable, "-m", "training.az", "--run-dir", str(rd), "--resume", *again],
        cwd=ROOT, capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    after = (rd / "progress.csv").read_text().splitlines()
    assert after[:2] == rows[:2] and [r.split(",")[0] for r in after[1:]] == ["0", "1", "2"]
    assert (rd / "checkpoints" / "iter_00000.pt").read_bytes() == iter0


def _sigint_handler() -> int:
    """The address of the process's C-level SIGINT handler (sigaction's first field)."""
    libc = ctypes.CDLL(None, use_errno=True)
    buf = ctypes.create_string_buffer(256)  # a struct sigaction, and room to spare
    assert libc.sigaction(signal.SIGINT, None, buf) == 0
    return int.from_bytes(buf.raw[:8], sys.byteorder)


def _run_stopped(call: Callable[[], Any], during: Callable[[], None]) -> tuple[str, float, int]:
    """``call()`` in a thread; once it is searching, ``during()`` and az_interrupt(): what the
    call ended with, the seconds it took to end after, and the SIGINT handler while it ran."""
    box: list[str] = []

    def work() -> None:
        try:
            call()
            box.append("finished")
        except BaseException as exc:  # noqa: BLE001 - what it ended with is the result
            box.append(f"{type(exc).__name__}: {exc}")

    t = threading.Thread(target=work)
    t.start()
    time.sleep(0.5)
    assert t.is_alive()
    seen = _sigint_handler()
    during()
    start = time.perf_counter()
    native.az_interrupt()
    t.join(30)
    return box[0] if box else "still running", time.perf_counter() - start, seen


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads sigaction through libc")
@pytest.mark.parametrize("ignored", [False, True])
def test_the_core_catches_sigint_only_while_it_searches(ignored: bool) -> None:
    """While a search or self-play runs the core's handler is installed (unless SIGINT is
    ignored: a worker process, left as it is), and the one before is back afterwards;
    az_interrupt stops a search and a self-play call in another thread at once."""
    spec = SPECS["mr2"]
    net = random_net(spec).native()
    state = native_state(spec, 3)._core
    # Python's own handler (a terminal's process), or ignored (a worker's), whatever this
    # test process was left with
    before = signal.signal(
        signal.SIGINT, signal.SIG_IGN if ignored else signal.default_int_handler
    )
    try:
        idle = _sigint_handler()

        def search() -> Any:
            return native.az_search(state, net, SLOW.as_tuple(), 1, False)

        def games() -> Any:
            return native.az_selfplay(
                native_template(spec), net, 4, 1, SLOW.as_tuple(), False, 0, 0.5, 1.0, 0.0, None
            )

        for call, name in ((search, "az_search"), (games, "az_selfplay")):
            ended, took, seen = _run_stopped(call, lambda: None)
            assert ended == f"KeyboardInterrupt: {name}: interrupted (SIGINT)" and took < STOP_S
            assert (seen == idle) == ignored  # the core's handler only while SIGINT is handled
            assert _sigint_handler() == idle
        # a call after the interrupt is not stopped by it
        fast = SearchSettings(k=2, r=1, depth=1, max_depth=4).as_tuple()
        action, legal = native.az_search(state, net, fast, 1, False)[:2]
        assert action in legal
    finally:
        signal.signal(signal.SIGINT, before)
