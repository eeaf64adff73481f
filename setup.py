"""Builds the optional native core, ``moonriver_env._native`` (the rest is in pyproject.toml).

The extension is optional: without a working C compiler the package still installs, and
``moonriver_env.vector`` falls back to the Python engine with one warning at import. The test
suite (``tests/vector/test_build.py``) fails when the extension did not build, so ``make test``
and CI notice.
"""

from __future__ import annotations

import platform
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

CORE = Path("moonriver_env") / "_core"
SOURCES = [
    str(CORE / f"{name}.c")
    for name in (
        *("module", "batch", "state", "rules", "transitions", "scoring", "config", "encode"),
        *("rng", "agent", "rollout", "kingdomino", "kdsearch", "kdbind"),
        *("nnue", "azgames", "azsearch", "azselfplay", "azbind", "sparsemm"),
    )
]


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing when the C compiler is missing or fails."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any build failure leaves the Python engine
            _warn(exc)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            _warn(exc)


# x86-64 has counted bits in one instruction since 2008 (Nehalem, Barcelona); without the flag
# every popcount of the bitboards is a library call.
POPCNT = ["-mpopcnt"] if platform.machine().lower() in ("x86_64", "amd64") else []


def _warn(exc: BaseException) -> None:
    print(
        f"WARNING: the native core moonriver_env._native was not built ({exc}); "
        "moonriver_env.vector will run on the Python engine",
        file=sys.stderr,
    )


setup(
    ext_modules=[
        Extension(
            "moonriver_env._native",
            sources=SOURCES,
            depends=[str(CORE / h) for h in ("moonriver.h", "kingdomino.h", "binding.h", "learn.h")],
            extra_compile_args=["-std=c11", "-O3", "-fno-strict-aliasing", *POPCNT],
            libraries=["m"],
            optional=True,
        )
    ],
    cmdclass={"build_ext": OptionalBuildExt},
)
