"""Show a graph function's build in the running cell while a build is slow.

A build (first call for a signature) that lasts more than ``DELAY`` seconds gets a line
in the cell: the stage it is in, the time so far, and the stages done with their times
("nbgraph: building f: compiling function 3 - 2.4 s (converting 0.01 s, tracing
0.12 s)"). It is redrawn every ``INTERVAL`` seconds and at each stage, and removed when
the build is done; faster builds show nothing.
"""

from __future__ import annotations

import html
import threading
import time

from IPython.display import display

DELAY = 0.5
INTERVAL = 0.5
_EMPTY = {"text/plain": "", "text/html": ""}


class ProgressDisplay:
    """A progress listener (see ``nbgraph.progress``) that draws in the current cell."""

    def __init__(self, delay: float = DELAY, interval: float = INTERVAL) -> None:
        self.delay = delay
        self.interval = interval
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._handle = None
        self._name = ""
        self._began = 0.0
        self._stages: list[tuple[str, float]] = []  # (stage, when it began)

    def start(self, name: str) -> None:
        with self._lock:
            self._name, self._began = name, time.perf_counter()
            self._stages = [("starting", self._began)]
            self._done = threading.Event()
            threading.Thread(target=self._redraw, args=(self._done,), daemon=True).start()

    def stage(self, text: str) -> None:
        """A new stage; "compiling function k" details the compile stage, not a new one."""
        with self._lock:
            now = time.perf_counter()
            if text.startswith("compiling") and self._stages[-1][0].startswith(
                ("compiling", "loading")
            ):
                self._stages[-1] = (text, self._stages[-1][1])
            else:
                self._stages.append((text, now))
            if self._handle is not None:
                self._handle.update(self._bundle(now), raw=True)

    def end(self) -> None:
        with self._lock:
            self._done.set()
            if self._handle is not None:
                self._handle.update(_EMPTY, raw=True)
            self._handle = None

    def _redraw(self, done: threading.Event) -> None:
        """Show the line once the build has lasted ``delay``, then keep its time current."""
        if done.wait(self.delay):
            return
        while True:
            with self._lock:
                if done.is_set():
                    return
                bundle = self._bundle(time.perf_counter())
                if self._handle is None:
                    self._handle = display(bundle, raw=True, display_id=True)
                else:
                    self._handle.update(bundle, raw=True)
            if done.wait(self.interval):
                return

    def text(self, now: float) -> str:
        """The line: the current stage, the time so far, the stages done and their times."""
        current = self._stages[-1][0]
        finished = [
            f"{stage} {_seconds(end - began)}"
            for (stage, began), (_, end) in zip(self._stages, self._stages[1:])
            if stage != "starting"
        ]
        done = f" ({', '.join(finished)})" if finished else ""
        return f"nbgraph: building {self._name}: {current} - {_seconds(now - self._began)}{done}"

    def _bundle(self, now: float) -> dict[str, str]:
        line = self.text(now)
        return {
            "text/plain": line,
            "text/html": "<div class='nbgraph-progress' style='color:#555'>"
            f"{html.escape(line)}</div>",
        }


def _seconds(value: float) -> str:
    return f"{value:.2f} s" if value < 10 else f"{value:.1f} s"
