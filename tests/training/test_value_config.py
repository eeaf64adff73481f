"""The value pipeline's config on the shared base: defaults in ``configs/default.toml``, the
``[env]`` section (the old ``[game]`` read with a deprecation warning)."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from agents.shipped import CHECKPOINTS
from training.common.config import ConfigError
from training.value.config import DEFAULTS_FILE, SCHEMA, load_value_config


def test_the_defaults_file_gives_every_key_of_the_schema() -> None:
    data = tomllib.loads(DEFAULTS_FILE.read_text())
    assert {s: set(keys) for s, keys in SCHEMA.items()} == {s: set(v) for s, v in data.items()}
    cfg = load_value_config()
    assert cfg["env"] == {"num_players": 2, "mode": "base"}


def test_the_old_game_section_is_read_with_a_warning(tmp_path: Path) -> None:
    path = tmp_path / "old.toml"
    path.write_text('[game]\nnum_players = 4\nmode = "base"\n')
    with pytest.warns(DeprecationWarning, match=r"\[game\] is now called \[env\]"):
        cfg = load_value_config(path)
    assert cfg["env"]["num_players"] == 4 and "game" not in cfg
    both = tmp_path / "both.toml"
    both.write_text("[game]\nnum_players = 4\n[env]\nnum_players = 3\n")
    with pytest.raises(ConfigError, match=r"^game: .* has both \[game\] and \[env\]"):
        load_value_config(both)


def test_the_shipped_models_configs_still_load() -> None:
    for name in ("trained_2p_base", "trained_4p_base"):
        with pytest.warns(DeprecationWarning):
            cfg = load_value_config(CHECKPOINTS / name / "config.toml")
        assert f"{cfg['env']['num_players']}p_{cfg['env']['mode']}" in name


def test_a_bad_config_file_exits_with_a_named_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not UTF-8, or a folder: exit status 2 with the config's named error (issue 50)."""
    from training.value.train import main

    (tmp_path / "latin1.toml").write_bytes(b"[env]\nmode = '\xe9'\n")
    (tmp_path / "folder.toml").mkdir()
    for name, message in (("latin1.toml", "is not UTF-8"), ("folder.toml", "cannot be read")):
        assert main(["--config", str(tmp_path / name), "--run-dir", str(tmp_path / "r")]) == 2
        assert message in capsys.readouterr().err
    assert not (tmp_path / "r").exists()


def test_export_replaces_only_a_value_model_folder(tmp_path: Path) -> None:
    """--export replaces the shipped ``trained_*`` folder (its files only), never a run
    directory or a folder holding other files (issue 50)."""
    from training.value.train import EXPORTED, exported_files

    for folder in sorted(CHECKPOINTS.glob("trained_*")):
        assert exported_files(folder) == set(EXPORTED)
    run = tmp_path / "run"
    run.mkdir()
    for name in (*EXPORTED, "eval.json"):
        (run / name).write_text("x")
    assert exported_files(run) is None
    (run / "eval.json").unlink()
    assert exported_files(run) == set(EXPORTED)
