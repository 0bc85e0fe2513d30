"""Long loops in a recording: the first and last iterations, and the interesting ones.

Every running loop collects the steps of its current iteration (with the steps of the
functions it calls). When the iteration ends it is kept if it is among the first
``keep_first``, or if it reached a line not recorded before or raised; the others wait
in a ring of the ``keep_last`` latest, and fall out of it unrecorded. Iterations that
are dropped leave one *skipped* step in their place, holding the net changes of the
variables (so every later step shows the right values) and what they printed.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .code_info import Loop
from .frames import CHANGES, FRAME, SKIPPED, FrameState


@dataclass
class Gap:
    """Iterations dropped in a row, folded into the one step that stands for them."""

    first: int  # iteration indices (from 0)
    last: int
    steps: int = 0
    changes: dict[tuple[FrameState, str], Any] = field(default_factory=dict)
    printed: list[str] = field(default_factory=list)

    def absorb(self, iteration: int, steps: list[list]) -> None:
        self.last = iteration
        self.steps += len(steps)
        for step in steps:
            if step[4]:
                self.printed.append(step[4])
            frame: FrameState = step[FRAME]
            if step[CHANGES] and frame.alive:
                for name, value in step[CHANGES]:
                    self.changes[(frame, name)] = value

    def merge(self, later: Gap) -> None:
        """Add the iterations dropped right after these."""
        self.last = later.last
        self.steps += later.steps
        self.changes.update(later.changes)
        self.printed.extend(later.printed)

    def step(self, loop: ActiveLoop) -> list:
        """The skipped step: at the loop's header, in the loop's frame (a change of
        another frame's variable names that frame third)."""
        changes = [
            (name, value) if frame is loop.frame else (name, value, frame)
            for (frame, name), value in self.changes.items()
        ]
        note = (self.first, self.last, self.steps)
        return [
            loop.frame,
            loop.loop.header,
            SKIPPED,
            changes or None,
            "".join(self.printed) or None,
            None,
            note,
        ]


class ActiveLoop:
    """One execution of a loop statement, while it runs."""

    __slots__ = ("current", "frame", "gap", "index", "interesting", "into", "loop", "ring", "trips")

    def __init__(self, loop: Loop, frame: FrameState, into: list[list], trips: int | None) -> None:
        self.loop = loop
        self.frame = frame
        self.into = into  # where kept steps go: the enclosing iteration or the recording
        self.trips = trips  # how many iterations it will run, where that is known
        self.index = 0
        self.current: list[list] = []
        self.interesting = False
        self.ring: deque[tuple[int, list[list]]] = deque()
        self.gap: Gap | None = None

    def next_iteration(
        self, keep_first: int, keep_last: int, forget: Callable[[list[list]], None]
    ) -> None:
        """End the current iteration and start the next one."""
        if self.index < keep_first or self.interesting:
            self._drop_ring(forget)
            self._emit(self.current)
        else:
            self.ring.append((self.index, self.current))
            while len(self.ring) > keep_last:
                self._drop(*self.ring.popleft(), forget)
        self.index += 1
        self.current = []
        self.interesting = False

    def end(self, keep_last: int, forget: Callable[[list[list]], None]) -> None:
        """The loop is over: keep the iteration that ended it and the ``keep_last``
        before it."""
        self.ring.append((self.index, self.current))
        while len(self.ring) > keep_last + 1:
            self._drop(*self.ring.popleft(), forget)
        self.current = []
        self._emit_gap()
        for _, steps in self.ring:
            self._emit(steps)
        self.ring.clear()

    def _drop_ring(self, forget: Callable[[list[list]], None]) -> None:
        while self.ring:
            self._drop(*self.ring.popleft(), forget)

    def _drop(self, index: int, steps: list[list], forget: Callable[[list[list]], None]) -> None:
        if self.gap is None:
            self.gap = Gap(index, index)
        self.gap.absorb(index, steps)
        forget(steps)

    def _emit_gap(self) -> None:
        if self.gap is not None:
            self.into.append(self.gap.step(self))
            self.gap = None

    def _emit(self, steps: list[list]) -> None:
        self._emit_gap()
        self.into.extend(steps)
