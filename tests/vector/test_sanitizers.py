"""The native core under AddressSanitizer and UBSan (issue 21: "the differential test also
runs under AddressSanitizer in CI").

A separate build of the core's C sources with ``-fsanitize=address,undefined`` goes to a
temporary directory; a fresh interpreter with ``libasan`` preloaded loads it in place of the
installed extension and runs the differential check over every config and policy plus a fuzz
of raw records and action ids (tests/vector/asan_check.py). Any sanitizer report fails.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "moonriver_env" / "_core"
SOURCES = sorted(p.name for p in CORE.glob("*.c"))


def _compiler() -> str:
    cc = shutil.which(os.environ.get("CC", "gcc")) or shutil.which("cc")
    if cc is None:
        pytest.fail("no C compiler: the native core cannot be built (see setup.py)")
    return cc


def test_differential_check_under_address_sanitizer(tmp_path: Path) -> None:
    cc = _compiler()
    lib = tmp_path / "_native_asan.so"
    include = sysconfig.get_paths()["include"]
    subprocess.run(
        [
            cc,
            "-std=c11",
            "-O1",
            "-g",
            "-fno-omit-frame-pointer",
            "-fsanitize=address,undefined",
            "-fno-sanitize-recover=all",
            "-DLR_CHECK_SUMS",  # every incremental first layer of the search checked in full
            "-shared",
            "-fPIC",
            f"-I{include}",
            *(str(CORE / s) for s in SOURCES),
            "-o",
            str(lib),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    libasan = subprocess.run(
        [cc, "-print-file-name=libasan.so"], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert os.path.exists(libasan), f"libasan not found ({libasan})"
    env = dict(
        os.environ,
        LD_PRELOAD=libasan,
        ASAN_OPTIONS="detect_leaks=0:abort_on_error=1",
        UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1",
        PYTHONPATH=os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    )
    out = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("asan_check.py")), str(lib), "1"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert "AddressSanitizer" not in out.stderr, out.stderr[-4000:]
    assert "runtime error" not in out.stderr, out.stderr[-4000:]
    assert out.returncode == 0, (out.stdout[-2000:], out.stderr[-4000:])
    assert "all equal" in out.stdout
