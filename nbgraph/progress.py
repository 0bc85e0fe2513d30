"""Build progress: which stage a graph function's first call for a signature is in.

Converting, tracing and compiling can take seconds.  ``building`` announces each stage
to the listeners (the Jupyter extension shows them in the cell when a build lasts more
than half a second); with no listener it costs nothing worth measuring.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Protocol


class Listener(Protocol):
    """Receives ``start(name)``, then ``stage(text)`` per stage, then ``end()``."""

    def start(self, name: str) -> None: ...

    def stage(self, text: str) -> None: ...

    def end(self) -> None: ...


_listeners: list[Listener] = []


def add_listener(listener: Listener) -> None:
    """Start telling ``listener`` about builds (once, however often it is added)."""
    if listener not in _listeners:
        _listeners.append(listener)


def remove_listener(listener: Listener) -> None:
    """Stop telling ``listener`` about builds."""
    if listener in _listeners:
        _listeners.remove(listener)


@contextlib.contextmanager
def building(name: str) -> Iterator[Callable[[str], None]]:
    """Context of one build of graph function ``name``; yields ``stage(text)``."""
    listeners = list(_listeners)
    for listener in listeners:
        listener.start(name)

    def stage(text: str) -> None:
        for listener in listeners:
            listener.stage(text)

    try:
        yield stage
    finally:
        for listener in listeners:
            listener.end()
