"""A real JupyterLab and a real Jupyter Notebook 7 (each started once per test session,
when a test needs it) and a headless Chromium page per test.

Each server serves a temporary copy of tests/browser/notebooks/ with this venv's
kernel and labextensions; Playwright drives Debian's /usr/bin/chromium.  Screenshots go
to each test's temporary folder, or with ``NBGRAPH_SCREENSHOTS`` set to that folder
(``make screenshots``: the README's pictures).
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import NamedTuple

import pytest
from notebook_page import Notebook7Page, NotebookPage

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
NOTEBOOKS = Path(__file__).parent / "notebooks"
START_TIMEOUT_S = 60


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_until_serving(url: str, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if server.poll() is not None:
            pytest.fail(f"{log.stem} exited ({server.returncode}):\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"{url}/api/status", timeout=2):
                return
        except OSError:
            time.sleep(0.2)
    pytest.fail(f"{log.stem} did not answer in {START_TIMEOUT_S} s:\n{log.read_text()}")


def serve(app: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Run ``python -m <app>`` (jupyterlab, notebook) on a fresh copy of the fixture
    notebooks and yield its base URL."""
    root = tmp_path_factory.mktemp(f"{app}-root")
    for notebook in NOTEBOOKS.glob("*.ipynb"):
        shutil.copy(notebook, root)
    state = tmp_path_factory.mktemp(f"{app}-state")
    # Settings and workspaces of the user running the tests must not leak in, and no
    # news toast may cover the notebook.
    notification = state / "settings/@jupyterlab/apputils-extension"
    notification.mkdir(parents=True)
    (notification / "notification.jupyterlab-settings").write_text(
        '{"fetchNews": "false", "checkForUpdates": false}'
    )
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(state / "settings"),
        "JUPYTERLAB_WORKSPACES_DIR": str(state / "workspaces"),
    }
    port = free_port()
    log = state / f"{app}.log"
    with log.open("w") as out:
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                app,
                "--no-browser",
                "--allow-root",
                "--ServerApp.token=",
                "--ip=127.0.0.1",
                f"--port={port}",
                f"--ServerApp.root_dir={root}",
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            env=env,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        wait_until_serving(url, server, log)
        yield url
    finally:
        server.terminate()
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()


@pytest.fixture(scope="session")
def lab_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a JupyterLab serving a fresh copy of the fixture notebooks."""
    yield from serve("jupyterlab", tmp_path_factory)


@pytest.fixture(scope="session")
def notebook_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Base URL of a Jupyter Notebook 7 serving a fresh copy of the fixture notebooks."""
    yield from serve("notebook", tmp_path_factory)


class Jupyter(NamedTuple):
    """A running server and the driver for its notebook page."""

    url: str
    driver: type[NotebookPage]


@pytest.fixture(params=["jupyterlab", "notebook"], ids=["lab", "notebook7"])
def jupyter(request) -> Jupyter:
    """JupyterLab, then (the test's second run) Notebook 7: what a user sees must work in
    both."""
    if request.param == "jupyterlab":
        return Jupyter(request.getfixturevalue("lab_url"), NotebookPage)
    return Jupyter(request.getfixturevalue("notebook_url"), Notebook7Page)


@pytest.fixture
def open_notebook(jupyter, page):
    """Open a fixture notebook by name in each server ``jupyter`` gives."""
    return lambda name: jupyter.driver(page, jupyter.url, name)


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium from the system (Playwright never downloads its own)."""
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: `make setup` installs Debian's chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    """A fresh browser page (its own context: no state shared between tests)."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    # Waits end as soon as the awaited thing shows; the limit only has to cover a
    # kernel's first import and Numba compile on a busy two-core test machine.
    page.set_default_timeout(90_000)
    yield page
    context.close()


@pytest.fixture
def screenshot(request, tmp_path) -> Callable[[str], Path]:
    """Where a test saves the screenshot ``name``: its temporary folder, or the folder
    ``NBGRAPH_SCREENSHOTS`` names (the name prefixed with the application)."""
    folder = os.environ.get("NBGRAPH_SCREENSHOTS")
    if not folder:
        return lambda name: tmp_path / name
    callspec = getattr(request.node, "callspec", None)
    app = callspec.id if callspec else "page"
    Path(folder).mkdir(parents=True, exist_ok=True)
    return lambda name: Path(folder) / f"{app}-{name}"
