"""The one background thread that compiles graphs after their first call, in turn.

A graph whose first call ran on the interpreter (``tiers.py``) is compiled afterwards,
here.  Numba compiles one function at a time under a global lock that is not taken in
turn, so a thread per graph would only pile up on that lock, and a call waiting for its
own graph could wait behind every other one.  Instead one thread takes the compiles in
the order they were asked for, and a call that needs its graph before that thread got
to it takes the compile off the queue and does it on its own thread, waiting only for
the compile in progress.

When the process ends, the compile in progress is finished, so the disk cache holds it
for the next process; the ones not started are dropped.  A forked process has no compile
thread: there every compile left is run by the call that needs it.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections import deque
from collections.abc import Callable


class Job:
    """One graph's compile: run once, by the queue's thread or by the caller that
    needs it first."""

    def __init__(self, compile_graph: Callable[[], None]) -> None:
        self._compile = compile_graph
        self._done = threading.Event()

    def run(self) -> None:
        try:
            self._compile()
        finally:
            self._done.set()

    def finished(self) -> bool:
        return self._done.is_set()

    def wait_finished(self) -> None:
        self._done.wait()


class CompileQueue:
    """Compiles on one daemon thread, first come first served (see the module
    docstring); ``close`` runs at exit."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pending: deque[Job] = deque()
        self._running: Job | None = None  # set while the thread is alive
        self._closed = False

    def submit(self, job: Job) -> None:
        """Compile ``job`` after the ones asked for before it."""
        with self._lock:
            if self._closed:
                return
            if self._running is not None:
                self._pending.append(job)
                return
            self._running = job
        threading.Thread(
            target=self._work, args=(job,), name="nbgraph compile", daemon=True
        ).start()

    def busy(self) -> bool:
        """Whether a compile runs or waits (Numba's lock is then held or about to be)."""
        with self._lock:
            return self._running is not None

    def wait(self, job: Job) -> None:
        """Return when ``job`` has run: on this thread if it had not started."""
        with self._lock:
            if job in self._pending:
                self._pending.remove(job)
                mine = True
            else:  # in progress, done, or dropped at exit
                mine = self._running is not job and not job.finished()
        if mine:
            job.run()
        else:
            job.wait_finished()

    def close(self) -> None:
        """Drop the compiles not started and finish the one in progress."""
        with self._lock:
            self._closed = True
            self._pending.clear()
            job = self._running
        if job is not None:
            job.wait_finished()

    def forget_in_child(self) -> None:
        """After a fork: the compile thread did not come along, so nothing runs or waits
        here (``wait`` runs what was left)."""
        self._lock = threading.Lock()
        self._pending.clear()
        self._running = None

    def _work(self, job: Job | None) -> None:
        while job is not None:
            job.run()
            with self._lock:
                job = self._pending.popleft() if self._pending and not self._closed else None
                self._running = job


QUEUE = CompileQueue()
atexit.register(QUEUE.close)
os.register_at_fork(after_in_child=QUEUE.forget_in_child)
