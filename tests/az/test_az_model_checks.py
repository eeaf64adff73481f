"""A damaged az model never plays (issue 50): a byte changed in the file (its zip CRC wrong),
weights that are not finite or so large the network's sums overflow, play settings out of
range (a ``tau`` whose ``pi`` is NaN, ``search = 5``), a declared shape whose sizes the
weights do not have (refused before the network takes memory) and bad shape fields are each a
:class:`CheckpointError` naming the file; a network with such weights is never written."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import torch
from az_models import FAST, SPECS, native_state, random_net, write_model

from agents.az import AzAgent, CheckpointError, SearchSettings, load_checkpoint, native_search
from agents.az import checkpoint as ckpt
from agents.az.checkpoint import MAX_WEIGHT, read_blob, save_checkpoint
from agents.az.search import MIN_TAU
from agents.tournament import main as tournament_main
from moonriver_env.family.native import native

ROOT = Path(__file__).resolve().parents[2]


def rewritten(src: Path, dest: Path, change: Any) -> Path:
    """``src``'s contents changed by ``change(blob)`` and saved with plain ``torch.save`` (as a
    hostile or damaged file would be, past :func:`save_checkpoint`'s own checks)."""
    blob = read_blob(src)
    change(blob)
    torch.save(blob, dest)
    return dest


@pytest.fixture
def model(tmp_path: Path) -> Path:
    return write_model(tmp_path / "model.pt", SPECS["mr2"])


def test_a_changed_byte_is_refused_by_its_crc(model: Path, tmp_path: Path) -> None:
    """One byte flipped inside w1's data: torch would load the altered weights; the archive's
    CRC check refuses the file, and the agent that names it does not play."""
    raw = bytearray(model.read_bytes())
    w1 = load_checkpoint(model)[0].w1.detach().numpy().tobytes()
    at = raw.find(w1[:64])
    assert at > 0
    raw[at + 10] ^= 0x40
    bad = tmp_path / "flipped.pt"
    bad.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match=r"fails its CRC check"):
        load_checkpoint(bad)
    with pytest.raises(CheckpointError, match=r"fails its CRC check"):
        AzAgent(seed=0, path=bad).load_for(SPECS["mr2"].config())


def test_a_zip_entry_of_an_unknown_version_is_refused(model: Path, tmp_path: Path) -> None:
    """Found by the fuzz count: a member's "version needed" byte changed made zipfile raise
    NotImplementedError (not caught); any failure of the archive is the named error."""
    raw = bytearray(model.read_bytes())
    at = raw.find(b"PK\x01\x02")  # the first central directory entry
    raw[at + 6 : at + 8] = (148).to_bytes(2, "little")  # version 14.8 needed to extract
    bad = tmp_path / "version.pt"
    bad.write_bytes(bytes(raw))
    with pytest.raises(CheckpointError, match="truncated or corrupt: not a whole zip"):
        load_checkpoint(bad)


def test_files_that_are_no_archive_or_too_large_are_refused(
    model: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"\x00" * 4096)
    with pytest.raises(CheckpointError, match="truncated or corrupt"):
        load_checkpoint(junk)
    monkeypatch.setattr(ckpt, "MAX_FILE_BYTES", 1000)
    with pytest.raises(CheckpointError, match="over the 1,000 bytes"):
        load_checkpoint(model)


@pytest.mark.parametrize(
    ("value", "message"),
    [(math.nan, "not finite"), (math.inf, "not finite"), (3e38, "largest magnitude 3e\\+38")],
)
def test_non_finite_or_huge_weights_are_refused(
    model: Path, tmp_path: Path, value: float, message: str
) -> None:
    def poison(blob: dict[str, Any]) -> None:
        blob["state_dict"]["l2.weight"][0, 0] = value

    bad = rewritten(model, tmp_path / "bad.pt", poison)
    with pytest.raises(CheckpointError, match=rf"weight 'l2.weight': .*{message}"):
        load_checkpoint(bad)


def test_weights_at_the_limit_give_finite_searches() -> None:
    """The limit's reason: every weight (input scales too) at +-MAX_WEIGHT still gives finite
    priors, values and pi in the core."""
    for key in ("mr2", "kd4"):
        tn = random_net(SPECS[key], 0, 64, 32)
        with torch.no_grad():
            for p in tn.parameters():
                p.copy_(torch.sign(torch.randn_like(p)) * MAX_WEIGHT)
            tn.input_scale.fill_(MAX_WEIGHT)
        assert_finite_searches(tn.native(), key, seeds=4)


def assert_finite_searches(net: Any, key: str, seeds: int) -> None:
    """Searches of ``net`` at ``tau``'s minimum from ``seeds`` new games of ``key``, the
    rollouts argmax and sampled: their priors, values and pi are finite."""
    for seed in range(seeds):
        state = native_state(SPECS[key], seed)._core
        for temp in (0.0, 1.0):
            settings = replace(FAST, rollout_temp=temp, tau=MIN_TAU)
            r = native_search(net, state, settings, seed, True)
            outputs = [*r.pi, *r.prior, *r.q, r.value]
            assert all(math.isfinite(x) for x in outputs), (key, temp, seed)


def test_the_core_refuses_weights_whose_sums_could_overflow() -> None:
    """The core's own bound (a Net built from Python, past the model file's checks): a weight
    of 3e38 is refused by name; every weight at the bound, all of one sign (the largest sums),
    still gives finite priors, values and pi for both policies."""
    assert native is not None
    bound = float(native.AZ_MAX_WEIGHT)
    assert bound >= MAX_WEIGHT * MAX_WEIGHT  # a model file's weight times its input's scale
    for key in ("mr2", "kd4"):
        tn = random_net(SPECS[key], 0, 512, 256)
        s, size = tn.shape, len(tn.flat_weights())
        for big in (3e38, -3e38, 2 * bound):
            w = np.zeros(size, np.float32)
            w[size // 2] = big
            with pytest.raises(ValueError, match=rf"^Net: weight {size // 2} is .*, over 1e\+08"):
                native.Net(s.inputs, s.hidden1, s.hidden2, s.actions, w)
        for sign in (1.0, -1.0):
            w = np.full(size, sign * bound, np.float32)
            net = native.Net(s.inputs, s.hidden1, s.hidden2, s.actions, w)
            assert_finite_searches(net, key, seeds=2)


def test_a_network_that_is_not_finite_is_never_written(model: Path, tmp_path: Path) -> None:
    net, meta = load_checkpoint(model)
    before = model.read_bytes()
    with torch.no_grad():
        net.w1[3, 1] = math.nan
    with pytest.raises(CheckpointError, match=r"refused to write .*weight 'w1'.*not finite"):
        save_checkpoint(model, net, meta["search"], meta["provenance"])
    assert model.read_bytes() == before
    with pytest.raises(CheckpointError, match="refused to write"):
        save_checkpoint(tmp_path / "new.pt", net, meta["search"], meta["provenance"])
    assert not (tmp_path / "new.pt").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model.pt"]  # no temporary left


@pytest.mark.parametrize(
    ("search", "message"),
    [
        ({"tau": 1e-7}, "tau: expected a number"),
        ({"tau": 0.001}, "tau: expected a number"),
        (5, "bad play settings"),
        ({"k": "six"}, "k: expected an integer"),
        ({"speed": 2}, "unknown settings"),
    ],
)
def test_bad_play_settings_are_refused_at_load(
    model: Path, tmp_path: Path, search: Any, message: str
) -> None:
    def change(blob: dict[str, Any]) -> None:
        blob["search"] = {**blob["search"], **search} if isinstance(search, dict) else search

    bad = rewritten(model, tmp_path / "bad.pt", change)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(bad)


def test_tau_below_its_minimum_is_refused_and_at_it_pi_is_finite() -> None:
    """Below MIN_TAU the core's pi can be 0 / 0 (NaN, seen at 1e-4 on these networks); at
    MIN_TAU it never is: the settings refuse less."""
    with pytest.raises(ValueError, match="tau: expected a number in 0.003"):
        SearchSettings(tau=MIN_TAU / 2)
    net = random_net(SPECS["kd4"], 0).native()
    for seed in range(40):
        state = native_state(SPECS["kd4"], seed)._core
        for sample in (False, True):
            pi = native_search(net, state, replace(FAST, tau=MIN_TAU), seed, sample).pi
            assert all(math.isfinite(x) for x in pi), seed


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("inputs", "abc", "inputs must be a whole number"),
        ("hidden1", True, "hidden1 must be a whole number"),
        ("hidden2", 0, "hidden2 must be a whole number of at least 1"),
        ("game", 7, "game must be a str"),
        ("features", "yes", "features must be a bool"),
        ("hidden1", 2**40, "do not fit the declared network shape"),
        ("hidden1", 150_000, r"w1: \(3282, 8\) for \(3282, 150000\)"),
    ],
)
def test_a_bad_declared_shape_is_refused_by_name(
    model: Path, tmp_path: Path, field: str, value: Any, message: str
) -> None:
    def change(blob: dict[str, Any]) -> None:
        blob["shape"][field] = value

    bad = rewritten(model, tmp_path / "bad.pt", change)
    with pytest.raises(CheckpointError, match=message):
        load_checkpoint(bad)


def test_a_declared_shape_is_checked_before_memory_is_taken(model: Path, tmp_path: Path) -> None:
    """A small file declaring ``hidden1 = 150000`` (a 2 GB first layer) is refused in a fresh
    interpreter whose peak memory stays far below what that network would take."""

    def change(blob: dict[str, Any]) -> None:
        blob["shape"]["hidden1"] = 150_000

    bad = rewritten(model, tmp_path / "bad.pt", change)
    code = (
        "import resource, sys\n"
        "from agents.az import CheckpointError, load_checkpoint\n"
        "try:\n"
        f"    load_checkpoint({str(bad)!r})\n"
        "except CheckpointError as e:\n"
        "    print('refused', e)\n"
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("refused") and "declared network shape" in lines[0]
    assert int(lines[-1]) < 1_200_000, lines[-1]  # KiB: the network alone would be 2 GB


def test_the_shipped_models_pass_every_check() -> None:
    """The checks refuse nothing the repository ships (its four az models)."""
    folders = sorted((ROOT / "agents" / "checkpoints").glob("az_*"))
    assert folders
    for folder in folders:
        net, meta = load_checkpoint(folder)
        assert json.loads((folder / "provenance.json").read_text())
        assert meta["search"]["tau"] >= MIN_TAU


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda b: b["shape"].__setitem__("hidden1", 2**40), "do not fit the declared"),
        (lambda b: b["shape"].__setitem__("inputs", "abc"), "inputs must be a whole number"),
        (lambda b: b.__setitem__("search", 5), "expected a table of the search's settings"),
    ],
)
def test_a_tournament_with_a_damaged_model_exits_with_a_named_error(
    model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str
) -> None:
    """``az:path=`` naming a damaged model: exit status 2 and the file's named error, no
    traceback and no results written (issue 50)."""
    bad = rewritten(model, tmp_path / "bad.pt", change)
    args = ["--agents", f"az:path={bad},random", "--games", "2", "--no-plot", "--no-progress",
            "--out", str(tmp_path / "results")]  # fmt: skip
    with pytest.raises(SystemExit) as exit_:
        tournament_main(args)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and str(bad) in err and "Traceback" not in err
    assert not (tmp_path / "results").exists()


def test_the_weights_checksum_in_the_provenance_is_verified(model: Path, tmp_path: Path) -> None:
    """A model file carries the SHA-256 of its weights in its provenance: weights changed
    and the file re-zipped whole (its CRCs right) are refused; a file without the entry
    (written before it) loads."""
    meta = load_checkpoint(model)[1]
    assert len(meta["provenance"]["weights_sha256"]) == 64

    def change(blob: dict[str, Any]) -> None:
        blob["state_dict"]["b1"][0] += 0.5

    with pytest.raises(CheckpointError, match="do not match the checksum in its provenance"):
        load_checkpoint(rewritten(model, tmp_path / "changed.pt", change))

    def older(blob: dict[str, Any]) -> None:
        del blob["provenance"]["weights_sha256"]

    load_checkpoint(rewritten(model, tmp_path / "older.pt", older))
