"""The README's and the documentation pages' Python snippets run as written and their commands
parse (issue: RL interface, "a quickstart that runs"; issue 24: the docs pages too)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"
DOCS = README.parent / "docs"
# The README and every page of the documentation site (mkdocs.yml).
DOCUMENTS = [README, *sorted(DOCS.glob("*.md"))]


def _name(document: Path) -> str:
    return document.relative_to(README.parent).as_posix()


def python_blocks(document: Path = README) -> list[str]:
    text = document.read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def shown_outputs(document: Path = README) -> list[str | None]:
    """Per python block, the output the document shows for it: a ``text`` block right after
    it (nothing but blank lines between), else ``None``."""
    text = document.read_text(encoding="utf-8")
    found = re.findall(r"```python\n.*?```\n(?:\s*\n)?(?:```text\n(.*?)```)?", text, flags=re.S)
    return [shown if shown else None for shown in found]


def _all_blocks() -> list[tuple[str, int]]:
    return [(_name(d), i) for d in DOCUMENTS for i in range(len(python_blocks(d)))]


def test_readme_has_a_short_quickstart() -> None:
    blocks = python_blocks()
    assert blocks, "README has no python snippet"
    quickstart = blocks[0]
    assert "moonriver_v0" in quickstart
    assert len([line for line in quickstart.splitlines() if line.strip()]) <= 12


def bound_names(code: str) -> set[str]:
    """The names a snippet binds at its top level (assignments, loops, imports)."""
    names: set[str] = set()
    for node in ast.parse(code).body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        for target in getattr(node, "targets", [getattr(node, "target", None)]):
            if target is not None:
                names |= {n.id for n in ast.walk(target) if isinstance(n, ast.Name)}
    return names


@pytest.mark.parametrize(("document", "index"), _all_blocks())
def test_readme_snippet_runs(document: str, index: int, capsys: pytest.CaptureFixture[str]) -> None:
    """The snippet runs to its last line, binds every name it promises, and prints what it
    says it prints."""
    code = python_blocks(README.parent / document)[index]
    namespace: dict[str, object] = {}
    ended = "\n__readme_snippet_ended__ = True\n"
    exec(compile(code + ended, f"{document}[python block {index}]", "exec"), namespace)
    assert namespace.get("__readme_snippet_ended__") is True
    missing = bound_names(code) - namespace.keys()
    assert not missing, f"block {index} never bound {sorted(missing)}"
    printed = capsys.readouterr().out
    shown = shown_outputs(README.parent / document)[index]
    if shown is not None:  # the document shows the output: the snippet prints exactly that
        assert _lines(printed) == _lines(shown), f"block {index} printed {printed!r}"
    if "print(" in code:
        assert printed.strip(), f"block {index} printed nothing"


def _lines(text: str) -> list[str]:
    return [line.rstrip() for line in text.strip().splitlines()]


def test_the_readmes_snippets_print_what_they_show() -> None:
    """Every README snippet prints something (a silent one shows nothing), and the quickstart
    and the Vector API's show their output beside them (compared by the test above)."""
    blocks, shown = python_blocks(), shown_outputs()
    assert len(shown) == len(blocks)
    silent = [i for i, code in enumerate(blocks) if "print(" not in code]
    assert silent == [], f"README python blocks {silent} print nothing"
    with_output = [blocks[i] for i, out in enumerate(shown) if out is not None]
    assert any("moonriver_v0.env" in code for code in with_output), "quickstart output not shown"
    assert any("VectorGame(" in code for code in with_output), "Vector API output not shown"


def test_one_quickstart_and_one_import_path() -> None:
    """README, docs/index.md and docs/setup.md show the same quickstart with the same output,
    and every document imports ``SingleAgentEnv`` from its public module."""
    pages = [README, DOCS / "index.md", DOCS / "setup.md"]
    quickstarts = {(python_blocks(p)[0].strip(), shown_outputs(p)[0]) for p in pages}
    assert len(quickstarts) == 1, "the quickstarts differ"
    notebooks = sorted((README.parent / "notebooks").glob("*.ipynb"))
    for document in [*DOCUMENTS, *notebooks]:
        imports = re.findall(r"moonriver_env\.(\w+)[\s\w]*\.?SingleAgentEnv", document.read_text())
        assert set(imports) <= {"single_agent"}, f"{_name(document)}: SingleAgentEnv from {imports}"


# -- every command in the README --------------------------------------------------------------
# Each `python -m MODULE ARGS` line of a shell block is run through MODULE.main(ARGS) up to the
# end of argument parsing (a flag that does not exist or a bad value fails here); what the
# commands then do is run, at small sizes, by the tests named in COVERED_BY. The two set-up
# commands `make run` and `make test` are checked against the Makefile (`make -n`), and CI
# runs `make test` itself.
COVERED_BY = {
    "training.az.bench": "tests/az/test_az_pipeline.py",
    "training.az.bars": "tests/training/test_az_bars.py",
    "agents.tournament": "tests/agents/test_tournament.py",
    "agents.play": "tests/agents/test_agents.py",
    "agents.replay": "tests/replay/test_replay_page.py",
    "agents.animate": "tests/replay/test_animate.py",
    "agents.serve": "tests/serve/test_serve_api.py",
    "training.evaluate": "tests/training/test_training.py",
    "training.export": "tests/training/test_training.py",
    "training.rllib_train": "tests/env/test_rllib.py",
    "training.value.train": "tests/agents/test_trained.py",
    "training.value.timing": "test_value_timing_runs_small (below)",
    "training.az": "tests/az/test_az_pipeline.py",
    "training.ppo.ppo": "tests/training/test_ppo_reference.py",
    "training.ppo.bench": "tests/training/test_ppo_reference.py",
    "moonriver_env.bench": "test_bench_commands_run_small (below)",
    "moonriver_env.bench_env": "test_bench_commands_run_small (below)",
    "moonriver_env.examples.gymnasium_vector": "tests/env/test_integrations.py",
    "moonriver_env.examples.pettingzoo_parallel": "tests/env/test_integrations.py",
    "moonriver_env.examples.torchrl_rollout": "tests/env/test_integrations.py",
    "moonriver_env.examples.tianshou_collect": "tests/env/test_integrations.py",
}


def shell_commands(document: Path = README) -> list[str]:
    """Command lines of a document's shell blocks (fences without a language, bash or sh),
    continuation lines joined, comments dropped."""
    blocks: list[str] = []
    lang: str | None = None  # the open fence's language; None outside a fence
    for line in document.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            if lang is None:
                lang = line[3:].strip()
                if lang in ("", "bash", "sh", "console"):
                    blocks.append("")
            else:
                lang = None
        elif lang in ("", "bash", "sh", "console"):
            blocks[-1] += line + "\n"
    commands = []
    for block in blocks:
        for line in block.replace("\\\n", " ").splitlines():
            line = line.split("  #")[0].split(" # ")[0].strip()
            if line and not line.startswith("#"):
                commands.append(line)
    return commands


class _Parsed(Exception):
    pass


def _all_commands() -> list[str]:
    """Every distinct command line of the README and the docs pages."""
    return list(dict.fromkeys(c for d in DOCUMENTS for c in shell_commands(d)))


@pytest.mark.parametrize("command", [c for c in _all_commands() if c.startswith("python -m ")])
def test_readme_command_parses(command: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import argparse
    import importlib
    import shlex

    words = shlex.split(command)
    module_name, argv = words[2], words[3:]
    assert module_name in COVERED_BY, f"{module_name}: add the test that runs it to COVERED_BY"
    module = importlib.import_module(module_name)
    if not hasattr(module, "main"):  # a package run by its __main__ module
        module = importlib.import_module(f"{module_name}.__main__")
    real_parse = argparse.ArgumentParser.parse_args

    def parse_then_stop(self: argparse.ArgumentParser, args=None, namespace=None):  # type: ignore[no-untyped-def]
        real_parse(self, args, namespace)  # SystemExit(2) with argparse's message on a bad line
        raise _Parsed

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    with pytest.raises(_Parsed):
        module.main(argv)


def test_readme_names_only_known_commands() -> None:
    assert shell_commands(), "the README shows no shell commands"
    for command in _all_commands():
        assert command.startswith(
            (
                "python -m ",
                "make ",
                "pip install ",
                "tensorboard ",
                "ray start ",
                "ray status",
                "export RAY_AUTH_MODE=",
                "export MOONRIVER_TRUST_FILES=",
            )
        ), command


@pytest.mark.parametrize("target", ["run", "test"])
def test_setup_commands_are_the_makefile_targets(target: str) -> None:
    """`make run` is the training main job and `make test` runs pytest (CI calls it)."""
    import shutil
    import subprocess

    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    root = README.parent
    text = README.read_text(encoding="utf-8")
    assert f"`make {target}`" in text
    out = subprocess.run(
        ["make", "-n", target],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    expected = "-m training.az" if target == "run" else "-m pytest"
    assert expected in out
    ci = (root / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci


def test_bench_commands_run_small(capsys: pytest.CaptureFixture[str]) -> None:
    from moonriver_env import bench, bench_env

    assert bench.main(["--games", "2", "--runs", "1", "--modes", "2p_base"]) == 0
    assert "decisions/s" in capsys.readouterr().out
    assert bench_env.main(["--steps", "300", "--runs", "1", "--players", "2"]) == 0
    out = capsys.readouterr().out
    assert "connect_four_v3" in out and "moonriver_v0 2p base" in out


def test_value_timing_runs_small(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    from training.value import timing

    assert timing.main(["--agent", "greedy", "--players", "2", "--games", "1", "--seed", "3"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["agent"] == "greedy" and report["games"] == 1 and report["decisions"] > 20
    assert 0 < report["cpu_ms_mean"] <= report["cpu_ms_p95"] or report["cpu_ms_mean"] > 0
