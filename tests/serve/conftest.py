"""The web app's fixtures: a live server (uvicorn in a thread, on a free loopback port, its
own save folder) and headless Chromium browsers driven by Selenium, as the replay tests
drive them (``make browser`` installs Debian's chromium and chromium-driver; without them the
browser tests skip, except in CI, where that is a failure)."""

from __future__ import annotations

import os
import shutil
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette", reason="the serve extra is not installed")
pytest.importorskip("uvicorn", reason="the serve extra is not installed")

CHROMIUM = ("chromium", "chromium-browser")
DRIVER = "chromedriver"


@dataclass
class Server:
    url: str
    save_dir: Path


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    import uvicorn

    from agents.serve.app import create_app

    save_dir = tmp_path_factory.mktemp("saves")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    config = uvicorn.Config(create_app(save_dir), log_level="warning")
    live = uvicorn.Server(config)
    thread = threading.Thread(target=live.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not live.started:
        if time.monotonic() > deadline:
            raise RuntimeError("the server did not start")
        time.sleep(0.05)
    try:
        yield Server(f"http://127.0.0.1:{port}", save_dir)
    finally:
        live.should_exit = True
        thread.join(timeout=10)
        sock.close()


def _missing(reason: str) -> None:
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        pytest.fail(f"CI: {reason}; .ci/run installs it (make browser)")
    pytest.skip(f"{reason} (install it with: make browser)")


@pytest.fixture(scope="module")
def browsers() -> Iterator[Callable[[], Any]]:
    """A factory of headless Chromium drivers (each a separate browser profile: its own
    cookies), all quit at the end."""
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        _missing("selenium is not installed (the docs extra)")
    binary = next((b for b in map(shutil.which, CHROMIUM) if b), None)
    driver_path = shutil.which(DRIVER)
    if binary is None or driver_path is None:
        _missing("headless Chromium is not installed (Debian: chromium, chromium-driver)")
    made: list[Any] = []

    def make() -> Any:
        options = webdriver.ChromeOptions()
        options.binary_location = binary
        for arg in (
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--window-size=1500,1100",
            "--disable-dev-shm-usage",
        ):
            options.add_argument(arg)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        driver = webdriver.Chrome(service=Service(driver_path), options=options)
        made.append(driver)
        return driver

    try:
        yield make
    finally:
        for driver in made:
            driver.quit()
