"""Show a graph function's build stages in the running cell when a build is slow.

A build (first call for a signature) that lasts more than ``DELAY`` seconds gets a line
"nbgraph: compiling f ..." in the cell, updated per stage and removed when done; faster
builds show nothing.
"""

from __future__ import annotations

import html
import threading

from IPython.display import display

DELAY = 0.5


class ProgressDisplay:
    """A progress listener (see ``nbgraph.progress``) that draws in the current cell."""

    def __init__(self, delay: float = DELAY) -> None:
        self.delay = delay
        self._lock = threading.Lock()
        self._timer: threading.Timer | None = None
        self._handle = None
        self._name = ""
        self._stage = ""

    def start(self, name: str) -> None:
        with self._lock:
            self._name, self._stage = name, "starting"
            self._timer = threading.Timer(self.delay, self._show)
            self._timer.daemon = True
            self._timer.start()

    def stage(self, text: str) -> None:
        with self._lock:
            self._stage = text
            if self._handle is not None:
                self._handle.update(self._bundle(), raw=True)

    def end(self) -> None:
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
            if self._handle is not None:
                self._handle.update({"text/plain": "", "text/html": ""}, raw=True)
            self._timer = self._handle = None

    def _show(self) -> None:
        with self._lock:
            if self._timer is not None and self._handle is None:
                self._handle = display(self._bundle(), raw=True, display_id=True)

    def _bundle(self) -> dict[str, str]:
        name = html.escape(self._name)
        return {
            "text/plain": f"nbgraph: {self._stage} {self._name} ...",
            "text/html": f"<div class='nbgraph-progress' style='color:#555'>nbgraph: "
            f"{self._stage} <code>{name}</code> …</div>",
        }
