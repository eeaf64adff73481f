"""How the project answers generated bad input, counted per input class (issue 32's closing
note): ``python tests/hardening/fuzz_count.py [--n 500] [--seed 0]`` from the repository root.

Each class starts from a valid input the project wrote itself (a state's JSON, a saved game, a
replay move list, a tournament's ``games.csv``, a shipped model file, arguments of the native
core's calls; since issue 50 the az pipeline's model files, configs, ``--resume`` checkpoint
and ``--export`` records) and tries ``--n`` seeded mutations of it: a JSON value replaced by junk (huge,
negative, wrong type, empty, NaN), a key dropped, bytes flipped, the file cut short, CSV cells
changed, rows repeated or dropped. An input is *accepted* (no error: the mutation was still a
valid input), answered with a *named error* (one of the project's error classes, or a
``ValueError``/``TypeError`` with a message; a CLI's exit status 2 with one line), or a
*crash* (any other exception, a traceback, a hang past its time or a dead process: the native
calls run in a child process, so a segfault is counted, not suffered). Not a test module
(pytest does not collect it; ``test_named_errors.py`` runs it on 8 inputs a class): about a
minute; ``tests/hardening/test_*.py`` pin the
findings one by one.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

PROJECT = ("moonriver_env", "agents", "training")
JUNK: tuple[Any, ...] = (
    -1,
    2**63,
    -(2**70),
    10**19,
    0,
    1.5,
    math.nan,
    "",
    "zzz",
    None,
    True,
    [],
    [1, 2],
    {},
    {"a": 1},
)


def outcome(error: BaseException | None) -> str:
    """``accepted``, ``named`` or ``crash`` (the module docstring)."""
    if error is None:
        return "accepted"
    module = type(error).__module__.split(".")[0]
    if module in PROJECT or (isinstance(error, ValueError | TypeError) and str(error)):
        return "named"
    return "crash"


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield prefix
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:40]):
            yield from _paths(v, (*prefix, i))


def mutate_json(text: str, rng: np.random.Generator) -> str:
    """One mutation of a JSON document: a value replaced by junk, a key dropped, a list grown
    or emptied, or the text itself cut or flipped."""
    kind = rng.integers(6)
    if kind == 4:  # cut short
        return text[: int(rng.integers(len(text)))]
    if kind == 5:  # a character flipped
        i = int(rng.integers(len(text)))
        return text[:i] + chr(int(rng.integers(32, 127))) + text[i + 1 :]
    doc = json.loads(text)
    paths = [p for p in _paths(doc) if p]
    path = paths[int(rng.integers(len(paths)))]
    parent = doc
    for key in path[:-1]:
        parent = parent[key]
    last = path[-1]
    if kind == 0 or kind == 3:
        parent[last] = JUNK[int(rng.integers(len(JUNK)))]
    elif kind == 1 and isinstance(parent, dict):
        del parent[last]
    elif isinstance(parent[last], list):
        parent[last] = parent[last] * 50 if parent[last] else [10**9] * 1000
    else:
        parent[last] = -parent[last] if isinstance(parent[last], int) else [parent[last]]
    return json.dumps(doc)


def mutate_bytes(data: bytes, rng: np.random.Generator) -> bytes:
    kind = rng.integers(3)
    if kind == 0:
        return data[: int(rng.integers(len(data)))]
    out = bytearray(data)
    for _ in range(int(rng.integers(1, 20))):
        out[int(rng.integers(len(out)))] = int(rng.integers(256))
    if kind == 2:  # a block zeroed
        start = int(rng.integers(len(out)))
        out[start : start + 512] = bytes(min(512, len(out) - start))
    return bytes(out)


def mutate_csv(text: str, rng: np.random.Generator) -> str:
    lines = text.splitlines()
    kind = rng.integers(5)
    if kind == 0 and len(lines) > 1:  # a cell changed
        i = int(rng.integers(1, len(lines)))
        cells = lines[i].split(",")
        cells[int(rng.integers(len(cells)))] = str(JUNK[int(rng.integers(len(JUNK)))])
        lines[i] = ",".join(cells)
    elif kind == 1 and len(lines) > 1:  # a row twice
        lines.append(lines[int(rng.integers(1, len(lines)))])
    elif kind == 2:  # a row (or the header) dropped
        del lines[int(rng.integers(len(lines)))]
    elif kind == 3:  # a row for a game past the run's
        cells = lines[-1].split(",")
        cells[0] = str(int(rng.integers(2, 10**6)))
        lines.append(",".join(cells))
    else:
        return mutate_bytes(text.encode(), rng).decode("utf-8", "replace")
    return "\n".join(lines) + "\n"


def _count(name: str, n: int, trial: Callable[[int], BaseException | None]) -> dict[str, Any]:
    counts = {"accepted": 0, "named": 0, "crash": 0}
    crashes: dict[str, int] = {}
    for i in range(n):
        try:
            error = trial(i)
        except Exception as exc:  # noqa: BLE001 - what the count is about
            error = exc
        kind = outcome(error)
        counts[kind] += 1
        if kind == "crash":
            key = f"{type(error).__name__}: {str(error)[:80]}"
            crashes[key] = crashes.get(key, 0) + 1
    return {"class": name, "tried": n, **counts, "crashes": crashes}


def _call(fn: Callable[[], Any]) -> BaseException | None:
    try:
        fn()
    except Exception as exc:  # noqa: BLE001
        return exc
    return None


# -- the classes -------------------------------------------------------------------------------
def state_json(n: int, seed: int) -> dict[str, Any]:
    from moonriver_env.kingdomino.rules.state import KingdominoState
    from moonriver_env.kingdomino.rules.state import new_game as new_kingdomino
    from moonriver_env.rules import GameConfig, GameState, new_game

    state = new_game(GameConfig(num_players=3, mode="legends"), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(30):
        state.apply(int(rng.choice(state.legal_action_list())))
    kd = new_kingdomino(seed=seed)
    for _ in range(10):
        kd.apply(int(rng.choice(kd.legal_action_list())))
    texts: list[tuple[Any, str]] = [(GameState, state.to_json()), (KingdominoState, kd.to_json())]

    def trial(i: int) -> BaseException | None:
        cls, text = texts[i % len(texts)]
        bad = mutate_json(text, rng)
        return _call(lambda: cls.from_json(bad))

    return _count("state JSON", n, trial)


def _tournament(folder: Path) -> Path:
    from agents.tournament.cli import main as tournament

    out = folder / "t"
    args = ["--agents", "random,random", "--games", "2", "--no-plot", "--no-progress"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert tournament([*args, "--out", str(out), "--save-games", "1"]) == 0
    return out


def saved_game(n: int, seed: int, folder: Path) -> dict[str, Any]:
    from agents.saved_game import SavedGame
    from moonriver_env.rules import GameConfig, new_game

    state = new_game(GameConfig(num_players=2), seed=seed)
    source = SavedGame(
        players=2,
        mode="base",
        scenario=None,
        seed=seed,
        agents={1: "random"},
        humans=(0,),
        decisions=0,
        state=state,
    )
    path = folder / "saved.json"
    source.save(path)
    text = path.read_text(encoding="utf-8")
    rng = np.random.default_rng(seed)

    def trial(i: int) -> BaseException | None:
        path.write_text(mutate_json(text, rng), encoding="utf-8")
        return _call(lambda: SavedGame.load(path))

    return _count("saved game", n, trial)


def move_list(n: int, seed: int, run: Path) -> dict[str, Any]:
    from agents.move_list import MoveList

    text = (run / "moves" / "game-0.json").read_text(encoding="utf-8")
    rng = np.random.default_rng(seed)

    def trial(i: int) -> BaseException | None:
        bad = mutate_json(text, rng)
        return _call(lambda: MoveList.from_json(bad).final_state())

    return _count("replay move list", n, trial)


def games_csv(n: int, seed: int, run: Path, folder: Path) -> dict[str, Any]:
    from agents.tournament.cli import main as tournament

    text = (run / "games.csv").read_text(encoding="utf-8")
    rng = np.random.default_rng(seed)
    args = ["--agents", "random,random", "--games", "2", "--no-plot", "--no-progress"]

    def trial(i: int) -> BaseException | None:
        out = folder / f"csv{i}"
        shutil.copytree(run, out)
        (out / "games.csv").write_text(mutate_csv(text, rng), encoding="utf-8")
        err = io.StringIO()
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
            status = tournament([*args, "--out", str(out), "--resume"])
        shutil.rmtree(out)
        if status == 0:
            return None
        lines = err.getvalue().strip().splitlines()
        if status == 2 and len(lines) == 1 and "Traceback" not in err.getvalue():
            return ValueError(lines[0])
        return RuntimeError(f"exit {status}: {err.getvalue()[-200:]}")

    return _count("games.csv (resume)", n, trial)


def model_files(n: int, seed: int, folder: Path) -> dict[str, Any]:
    from agents.networks.snapshots import load_policy

    sources = [
        (ROOT / "agents/checkpoints/ppo_2p_base/model.zip").read_bytes(),
        (ROOT / "agents/checkpoints/trained_2p_base/model.pt").read_bytes(),
    ]
    rng = np.random.default_rng(seed)

    def trial(i: int) -> BaseException | None:
        path = folder / ("model.zip" if i % 2 == 0 else "model.pt")
        path.write_bytes(mutate_bytes(sources[i % 2], rng))
        if i % 2:  # the trained agent's loader
            from agents.registry import make_agent

            return _call(lambda: make_agent(f"trained:{path}"))
        return _call(lambda: load_policy(path))

    return _count("model files", n, trial)


TOML_JUNK = ("-1", "0", "1.5", "nan", "inf", "-inf", '""', '"zzz"', "[]", "[1, 2]", "{}",
             "true", "9223372036854775807", "1e300", "[" * 50 + "]" * 50)  # fmt: skip
"""Values a config line is given (TOML literals: wrong type, out of range, NaN, nested)."""


def mutate_toml(text: str, rng: np.random.Generator) -> str:
    """One mutation of a TOML config: a value replaced by junk, a line dropped, or the bytes
    flipped or cut."""
    lines = text.splitlines()
    settings = [i for i, line in enumerate(lines) if "=" in line and not line.startswith("#")]
    kind = rng.integers(4)
    if kind == 0 and settings:
        i = settings[int(rng.integers(len(settings)))]
        lines[i] = lines[i].split("=")[0] + "= " + TOML_JUNK[int(rng.integers(len(TOML_JUNK)))]
    elif kind == 1 and lines:
        del lines[int(rng.integers(len(lines)))]
    else:
        return mutate_bytes(text.encode(), rng).decode("utf-8", "replace")
    return "\n".join(lines) + "\n"


AZ_SMALL = ["net.hidden1=8", "net.hidden2=4", "eval.every=0", "eval.final=false"]
AZ_TINY = ROOT / "training" / "configs" / "az_tiny.toml"
EVAL_CSV = (
    "step,wall_time,opponent,win_rate,games,ci_low,ci_high,mean_score,opponent_score\n"
    "8,0.2,random,0.5,2,0.0945,0.9055,53.0,89.5\n16,0.5,random,0.5,2,0.0945,0.9055,78.0,76.5\n"
)


def _az_run(folder: Path) -> Path:
    """A run directory of the az pipeline as a finished iteration 0 leaves it (no games: the
    network saved by the run itself, with its records), made in a moment."""
    from training.az.config import load_az_config
    from training.az.run import Run
    from training.common.config import dumps

    rd = folder / "az_run"
    cfg = load_az_config(AZ_TINY, AZ_SMALL)
    run = Run(cfg, rd, "fuzz", log=lambda _: None)
    run.iteration, run.games = 0, 16
    run.save()
    (rd / "config.toml").write_text(dumps(cfg))
    (rd / "progress.csv").write_text("iteration,wall_time,games,loss\n0,0.2,16,1.5\n")
    (rd / "eval.csv").write_text(EVAL_CSV)
    return rd


def _junk_blob(blob: dict[str, Any], rng: np.random.Generator) -> None:
    """An az model file's contents with one entry of its shape, play settings, provenance,
    progress or optimizer state replaced by junk, or one weight poisoned."""
    import torch

    part = ("shape", "search", "provenance", "progress", "optimizer", "state_dict")[
        int(rng.integers(6))
    ]
    junk = JUNK[int(rng.integers(len(JUNK)))]
    table = blob.get(part)
    if part == "state_dict" and isinstance(table, dict):
        name = sorted(table)[int(rng.integers(len(table)))]
        table[name] = (
            table[name].clone().flatten()[: int(rng.integers(1, 4))]
            * float((math.nan, math.inf, 3e38, -1e5)[int(rng.integers(4))])
            if rng.integers(2)
            else torch.full_like(table[name], 3e38)
        )
    elif isinstance(table, dict) and table and rng.integers(3):
        table[sorted(table)[int(rng.integers(len(table)))]] = junk
    else:
        blob[part] = junk


def az_model_files(n: int, seed: int, run: Path, folder: Path) -> dict[str, Any]:
    """An az model file with bytes flipped or cut, or an entry of its contents replaced by
    junk, loaded as ``az:path=`` loads it."""
    import torch

    from agents.az import load_checkpoint
    from agents.az.checkpoint import read_blob

    source = (run / "model.pt").read_bytes()
    rng = np.random.default_rng(seed)

    def trial(i: int) -> BaseException | None:
        path = folder / "az_model.pt"
        if i % 2:
            path.write_bytes(mutate_bytes(source, rng))
        else:
            blob = read_blob(run / "model.pt")
            _junk_blob(blob, rng)
            torch.save(blob, path)
        return _call(lambda: load_checkpoint(path))

    return _count("az model files", n, trial)


def az_configs(n: int, seed: int, folder: Path) -> dict[str, Any]:
    """The az pipeline's config file mutated (``--config``), read and checked."""
    from training.az.config import load_az_config

    text = AZ_TINY.read_text()
    rng = np.random.default_rng(seed)

    def trial(i: int) -> BaseException | None:
        path = folder / "az_config.toml"
        path.write_text(mutate_toml(text, rng))
        return _call(lambda: load_az_config(path))

    return _count("az configs", n, trial)


def az_resume(n: int, seed: int, run: Path, folder: Path) -> dict[str, Any]:
    """A run's ``checkpoints/latest.pt`` damaged (bytes, or an entry of its contents: the
    optimizer state, the counters, the shape, a weight), read back as ``--resume`` does."""
    import torch

    from agents.az.checkpoint import read_blob
    from training.az.config import load_az_config
    from training.az.run import Run

    latest = run / "checkpoints" / "latest.pt"
    source = latest.read_bytes()
    cfg = load_az_config(AZ_TINY, AZ_SMALL)
    rng = np.random.default_rng(seed)

    def trial(i: int) -> BaseException | None:
        rd = folder / "az_resume"
        target = rd / "checkpoints" / "latest.pt"
        target.parent.mkdir(parents=True, exist_ok=True)
        if i % 2:
            target.write_bytes(mutate_bytes(source, rng))
        else:
            blob = read_blob(latest)
            _junk_blob(blob, rng)
            torch.save(blob, target)
        return _call(lambda: Run(cfg, rd, "fuzz", log=lambda _: None).restore())

    return _count("az resume", n, trial)


def az_export(n: int, seed: int, run: Path, folder: Path) -> dict[str, Any]:
    """``--export`` of a run whose ``progress.csv`` or ``eval.csv`` is damaged, or of a model
    folder whose ``provenance.json`` is, into a new folder."""
    from training.az.cli import export

    shipped = folder / "az_shipped"
    export(run, shipped)
    texts = {name: (run / name).read_text() for name in ("progress.csv", "eval.csv")} | {
        "provenance.json": (shipped / "provenance.json").read_text()
    }
    rng = np.random.default_rng(seed)

    def trial(i: int) -> BaseException | None:
        name = ("progress.csv", "eval.csv", "provenance.json")[i % 3]
        source = folder / f"az_export_source{i}"
        shutil.copytree(shipped if name == "provenance.json" else run, source)
        mutate = mutate_json if name == "provenance.json" else mutate_csv
        (source / name).write_text(mutate(texts[name], rng))
        out = folder / f"az_export_out{i}"
        try:
            return _call(lambda: export(source, out))
        finally:
            shutil.rmtree(source, ignore_errors=True)
            shutil.rmtree(out, ignore_errors=True)

    return _count("az export", n, trial)


NATIVE_CHILD = """
import json, sys
import numpy as np
sys.path.insert(0, {root!r})
sys.path.insert(0, {here!r})
from fuzz_count import native_trials
print(json.dumps(native_trials({n}, {seed})))
"""


def native_trials(n: int, seed: int) -> dict[str, Any]:
    """In the child: junk arguments to the native core's calls (both games)."""
    from moonriver_env.vector import KingdominoVectorGame, VectorGame

    rng = np.random.default_rng(seed)
    games = [
        VectorGame(num_games=8, num_players=2, seed=seed),
        KingdominoVectorGame(num_games=8, num_players=2, seed=seed),
    ]
    junk_arrays: list[Callable[[int], Any]] = [
        lambda k: np.full(k, 2**40, dtype=np.int64),
        lambda k: np.full(k, -1, dtype=np.int64),
        lambda k: np.zeros(k + 3, dtype=np.int64),
        lambda k: np.zeros(k, dtype=np.float64) + np.nan,
        lambda k: np.zeros((k, 2), dtype=np.int64),
        lambda k: [None] * k,
        lambda k: "x" * k,
        lambda k: np.zeros(k, dtype=np.int8)[::-1],
        lambda k: np.array([True] * k),
        lambda k: np.zeros(0, dtype=np.int64),
        lambda k: [True] + [0] * (k - 1),  # a bool among ints (NumPy would read it as 1)
        lambda k: [0.5] * k,
    ]

    def trial(i: int) -> BaseException | None:
        vg = games[i % 2]
        k = vg.num_games
        call = int(rng.integers(5))
        arg = junk_arrays[int(rng.integers(len(junk_arrays)))](k)
        if call == 0:
            return _call(lambda: vg.step(arg))
        if call == 1:
            return _call(lambda: vg.step(vg.legal_ids[:, 0].astype(np.int64), active=arg))
        if call == 2:
            return _call(lambda: vg.reset_game(JUNK[int(rng.integers(len(JUNK)))]))
        if call == 3:
            return _call(lambda: vg.get_state(JUNK[int(rng.integers(len(JUNK)))]))
        seat = JUNK[int(rng.integers(len(JUNK)))]
        return _call(lambda: vg.observation_of(int(rng.integers(-3, k + 3)), seat))

    return _count("native calls", n, trial)


def _all_crashed(n: int, why: str) -> dict[str, Any]:
    return {
        "class": "native calls",
        "tried": n,
        "accepted": 0,
        "named": 0,
        "crash": n,
        "crashes": {why: n},
    }


def native_calls(n: int, seed: int) -> dict[str, Any]:
    here = str(Path(__file__).resolve().parent)
    code = NATIVE_CHILD.format(root=str(ROOT), here=here, n=n, seed=seed)
    try:
        proc = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT
        )
    except subprocess.TimeoutExpired:
        return _all_crashed(n, "hang")
    if proc.returncode != 0:  # a segfault or an abort: the child's whole batch counts
        return _all_crashed(n, f"child exit {proc.returncode}: {proc.stderr[-200:]}")
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def _az_classes(n: int, seed: int, folder: Path) -> list[dict[str, Any]]:
    """The az pipeline's inputs (issue 50): its model files, configs, resume and export."""
    import torch

    torch.set_num_threads(1)
    run = _az_run(folder)
    return [
        az_model_files(n, seed, run, folder),
        az_configs(n, seed, folder),
        az_resume(n, seed, run, folder),
        az_export(max(1, n // 4), seed, run, folder),
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=500, help="inputs tried per class")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.n < 1:
        parser.error("--n: expected at least 1")
    from training.common.closing import closing_table

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run = _tournament(folder)
        results = [
            state_json(args.n, args.seed),
            saved_game(args.n, args.seed, folder),
            move_list(args.n, args.seed, run),
            games_csv(max(1, args.n // 4), args.seed, run, folder),
            model_files(args.n, args.seed, folder),
            native_calls(args.n, args.seed),
            *_az_classes(args.n, args.seed, folder),
        ]
    total = {k: sum(r[k] for r in results) for k in ("tried", "accepted", "named", "crash")}
    columns = [("class", "input class"), "tried", "accepted", ("named", "named error"), "crash"]
    print(closing_table([*results, {"class": "all", **total}], columns))
    for r in results:
        for what, count in r["crashes"].items():
            print(f"crash ({r['class']}, {count}x): {what}")
    return 1 if total["crash"] else 0


if __name__ == "__main__":
    sys.exit(main())
