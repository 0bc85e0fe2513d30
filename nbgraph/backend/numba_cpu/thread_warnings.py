"""Warnings of a compile on a background thread, kept away from the user's thread.

Python's warnings filters and display hook are one state shared by every thread, and
Numba's compiler swaps that state in and out (``warnings.catch_warnings``) many times
per compile.  A compile on a background thread would then swap it under the user's
code running at the same time: a warning eager code gives would be caught by Numba's
recorder, and a ``catch_warnings`` block of the user's could be undone, or left in place
after it ends.  So Numba's modules see the warnings module through ``THREAD_AWARE``:
on a thread inside ``kept()`` its filters and recorders are the thread's own and every
warning the compile gives is kept for the caller's thread, which gives it when it waits
for the compile; on every other thread it is the warnings module itself.
"""

from __future__ import annotations

import contextlib
import re
import sys
import threading
import types
import warnings
from collections.abc import Iterator
from typing import Any

_local = threading.local()


class _Frame:
    """One ``catch_warnings`` block on a compile thread: what it records and the
    filters set in it (action, category, message pattern), newest last."""

    def __init__(self, record: bool) -> None:
        self.log: list[warnings.WarningMessage] | None = [] if record else None
        self.filters: list[tuple[str, type[Warning], re.Pattern[str]]] = []

    def action(self, message: str, category: type[Warning]) -> str | None:
        for action, of, pattern in reversed(self.filters):
            if issubclass(category, of) and pattern.match(message):
                return action
        return None


def _compiling() -> bool:
    """Whether this thread runs inside ``kept()``."""
    return getattr(_local, "kept", None) is not None


class _ThreadAware(types.ModuleType):
    """The warnings module, with its state per thread on compile threads."""

    def __getattr__(self, name: str) -> Any:
        return getattr(warnings, name)

    def catch_warnings(self, *args: Any, **kwargs: Any) -> Any:
        if not _compiling():
            return warnings.catch_warnings(*args, **kwargs)
        return _catch(kwargs.get("record", False))

    def simplefilter(self, action: str, category: type[Warning] = Warning, *a: Any, **k: Any):
        if not _compiling():
            return warnings.simplefilter(action, category, *a, **k)
        _add_filter(action, category, "")

    def filterwarnings(
        self, action: str, message: str = "", category: type[Warning] = Warning, *a, **k
    ):
        if not _compiling():
            return warnings.filterwarnings(action, message, category, *a, **k)
        _add_filter(action, category, message)

    def warn(
        self, message: Any, category: type[Warning] | None = None, stacklevel: int = 1, *a, **k
    ):
        if not _compiling():
            return warnings.warn(message, category, stacklevel + 1, *a, **k)
        frame = sys._getframe(1)  # the caller, then as many up as stacklevel says
        for _ in range(stacklevel - 1):
            frame = frame.f_back or frame
        _keep(message, category or UserWarning, frame.f_code.co_filename, frame.f_lineno)

    def warn_explicit(
        self, message: Any, category: type[Warning], filename: str, lineno: int, *a, **k
    ):
        if not _compiling():
            return warnings.warn_explicit(message, category, filename, lineno, *a, **k)
        _keep(message, category, filename, lineno)


THREAD_AWARE = _ThreadAware("warnings")


@contextlib.contextmanager
def _catch(record: bool) -> Iterator[list[warnings.WarningMessage] | None]:
    frame = _Frame(record)
    _local.frames.append(frame)
    try:
        yield frame.log
    finally:
        _local.frames.pop()


def _add_filter(action: str, category: type[Warning], message: str) -> None:
    if _local.frames:
        _local.frames[-1].filters.append((action, category, re.compile(message, re.I)))


def _keep(message: Any, category: type[Warning], filename: str, lineno: int) -> None:
    """Record the warning in the innermost block that records it, drop it where a block
    ignores it, else keep it for the caller's thread."""
    if isinstance(message, Warning):
        category = type(message)
    for frame in reversed(_local.frames):
        if frame.action(str(message), category) == "ignore":
            return
        if frame.log is not None:
            frame.log.append(warnings.WarningMessage(message, category, filename, lineno))
            return
    _local.kept.append((str(message), category, filename, lineno))


@contextlib.contextmanager
def kept() -> Iterator[list[tuple[str, type[Warning], str, int]]]:
    """On this thread, the warnings Numba gives (message, category, file, line), kept
    in the list this yields instead of given, and its filters its own."""
    _install()
    _local.kept, _local.frames = [], []
    try:
        yield _local.kept
    finally:
        _local.kept = _local.frames = None


def _install() -> None:
    """Numba's modules (those imported so far) read warnings through ``THREAD_AWARE``."""
    for name, module in list(sys.modules.items()):
        if (
            name.partition(".")[0] in ("numba", "llvmlite")
            and getattr(module, "warnings", None) is warnings
        ):
            module.warnings = THREAD_AWARE
