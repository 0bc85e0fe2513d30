"""Uneventful loop iterations, followed without making steps.

Once a loop has run its first iterations, and if no iteration can write a name (bind
it, or assign its items or attributes) on two lines (``Loop.flat``), the recorder
follows further iterations cheaply: per line it notes the line number and, where the
loop's length is not known in advance (``trips``), per iteration it takes a snapshot of
the frame's variables (with summaries of the objects the loop assigns into). Which line
writes which name tells when each change became visible, so the steps of the
iterations kept (the last ones) are made afterwards from the line numbers and
snapshots; the others fold into one skipped step. A loop whose length is known takes
snapshots only for its last iterations.

The recorder goes back to making steps when something needs it: a line not recorded
before, a line outside the loop, an exception, a return, a call of the user's code, an
object changed in place while snapshots are taken, or a variable updated in place
(``a += b``) holding an array. If that happens before the snapshots began, the steps
of the current iteration up to there fold into the skipped step too.
"""

from __future__ import annotations

import types
from collections import deque
from collections.abc import Callable
from typing import Any

from .frames import BEFORE, CHANGES, LINE, UNBOUND, FrameState, is_shown
from .loops import ActiveLoop, Gap
from .summary import IMMUTABLE, fingerprint, is_immutable, shares, summarize


class _Iteration:
    """One iteration followed fast."""

    __slots__ = ("contents", "head", "index", "lines", "printed", "start")

    def __init__(
        self,
        index: int,
        start: dict[str, Any] | None,
        contents: dict[str, Any] | None,
        head: list[list],
    ) -> None:
        self.index = index
        self.start = start  # the variables when it started (None: not taken)
        self.contents = contents  # summaries of the objects the loop assigns into
        self.lines: list[int] = []  # the lines it ran (the current one's: FastLoop.lines)
        self.printed: list[tuple[int, str]] = []  # (before its i-th line, text)
        self.head = head  # the step made before the loop went fast, if any


class FastLoop:
    """The iterations of one running loop while they are followed without steps."""

    def __init__(
        self,
        running: ActiveLoop,
        frame: types.FrameType,
        keep_last: int,
        printed: list[str],
        forget: Callable[[list[list]], None],
        over_limit: Callable[[], bool],
    ) -> None:
        self.running = running
        self.state: FrameState = running.frame
        loop = running.loop
        self.keep_last = keep_last
        self.printed = printed  # the recorder's output buffer
        self.forget = forget  # the recorder's account of the steps it holds
        self.over_limit = over_limit  # whether the recording holds too much
        # Lines this loop ran before: any other line ends the fast run.
        self.seen = frozenset(n for n in loop.writes if n in self.state.seen)
        self.in_place = tuple(loop.in_place)
        self.names: tuple[str, ...] | None = None  # module level: the names to snapshot
        if self.state.info.module_level:
            written = {name for names in loop.writes.values() for name in names}
            self.names = tuple(written | set(self.state.known))
        # Snapshots start with the iteration that is the first of the last ones.
        self.snapshots_from = (
            running.trips - keep_last if running.trips is not None else running.index
        )
        self.entry = self.snapshot(frame)  # where the skipped iterations start from
        # The objects the loop assigns into, and those sharing memory with them: their
        # contents are summarized with every snapshot.
        targets = [self.entry[name] for name in loop.assigned_into if name in self.entry]
        self.watched = tuple(
            name
            for name, value in self.entry.items()
            if not is_immutable(value) and shares(value, targets)
        )
        self.entry_contents = self.contents(self.entry)
        self.entry_marks = {
            name: fingerprint(value)
            for name, value in self.entry.items()
            if name in self.state.known and not is_immutable(value)
        }
        self.marks = self.entry_marks if loop.calls else {}
        taken = running.index >= self.snapshots_from
        self.current = _Iteration(
            running.index,
            self.entry if taken else None,
            self.entry_contents if taken else None,
            running.current,
        )
        self.lines: list[int] = []  # the lines the current iteration ran so far
        self.ring: deque[_Iteration] = deque()
        self.gap: Gap | None = None

    def snapshot(self, frame: types.FrameType) -> dict[str, Any]:
        if self.names is None:
            return frame.f_locals.copy()
        namespace = frame.f_globals
        return {name: namespace.get(name, UNBOUND) for name in self.names}

    def contents(self, values: dict[str, Any]) -> dict[str, Any]:
        return {name: summarize(values[name]) for name in self.watched if name in values}

    def tracer(
        self, leave: Callable[[types.FrameType, str, Any], Any], fail: Callable[[Exception], None]
    ) -> Callable:
        """The frame's local tracer while iterations are followed fast; ``leave``
        handles every event the fast run cannot, ``fail`` an error of the recorder."""
        boundary = self.running.loop.boundary
        seen = self.seen
        printed = self.printed
        lines = self.lines
        append = lines.append

        def fast(frame: types.FrameType, event: str, arg: Any) -> Any:
            if event == "line":
                lineno = frame.f_lineno
                if lineno == boundary:
                    try:
                        going_on = self.next_iteration(frame)
                    except Exception as exc:
                        return fail(exc)
                    if going_on:
                        append(lineno)
                        return fast
                elif lineno in seen:
                    if printed:
                        self.current.printed.append((len(lines), "".join(printed)))
                        printed.clear()
                    append(lineno)
                    return fast
            return leave(frame, event, arg)

        return fast

    def next_iteration(self, frame: types.FrameType) -> bool:
        """Start the next iteration; False where the fast run has to end instead."""
        finished = self.current
        if finished.printed and self.over_limit():  # output is kept, and counts
            return False
        index = finished.index + 1
        if index < self.snapshots_from:  # not one of the last iterations: drop it
            gap = self.gap
            if gap is None or finished.head or finished.printed:
                finished.lines = self.lines
                self._drop(finished)
                finished.printed = []
                finished.head = []
            else:  # the common case, inline: this runs once per iteration
                gap.steps += len(self.lines)
                gap.last = finished.index
            finished.index = index
        else:
            start = self.snapshot(frame)
            for name in self.in_place:
                value = start.get(name)
                if type(value) not in IMMUTABLE and not is_immutable(value):
                    return False
            if self.marks and self._marks(start) != self.marks:
                return False
            finished.lines = self.lines.copy()
            if finished.start is None:
                self._drop(finished)
            else:
                self.ring.append(finished)
                if len(self.ring) > self.keep_last:
                    self._drop(self.ring.popleft())
            self.current = _Iteration(index, start, self.contents(start), [])
        self.lines.clear()
        if self.printed:
            self.current.printed.append((0, "".join(self.printed)))
            self.printed.clear()
        return True

    def _marks(self, values: dict[str, Any]) -> dict[str, Any]:
        return {name: fingerprint(values.get(name)) for name in self.marks}

    def _drop(self, iteration: _Iteration) -> None:
        gap = self.gap
        if gap is None:
            gap = self.gap = Gap(iteration.index, iteration.index)
        if iteration.head:
            gap.absorb(iteration.index, iteration.head)
            self.forget(iteration.head)
        gap.last = iteration.index
        gap.steps += len(iteration.lines)
        if iteration.printed:
            gap.printed.extend(text for _, text in iteration.printed)

    def materialize(
        self, frame: types.FrameType, last_line: bool
    ) -> tuple[int, list[tuple[str, Any]], int]:
        """Make the steps of the iterations kept so far and hand them to the running
        loop (with ``last_line``, the step of the line that ran last is made even where
        its iteration is skipped). Returns how many steps were made, the changes made
        by the line that ran last (visible from the frame's next step) and its number."""
        end = self.snapshot(frame)
        end_contents = self.contents(end)
        running = self.running
        current = self.current
        current.lines = self.lines.copy()
        ran = (
            current.lines[-1]
            if current.lines
            else current.head[-1][1]
            if current.head
            else running.loop.boundary
        )
        steps_made: list[tuple[int, list[list]]] = []
        made = 0
        carried: list[tuple[str, Any]] = []
        if current.start is None:  # the current iteration had no snapshot: skip it
            tail = current.lines[-1:] if last_line else []
            del current.lines[len(current.lines) - len(tail) :]
            self._drop(current)
            first, first_contents = end, end_contents
            if tail:
                steps_made.append(
                    (current.index, [[self.state, tail[0], LINE, None, None, None, None]])
                )
                made = 1
        else:
            oldest = self.ring[0] if self.ring else current
            first, first_contents = oldest.start, oldest.contents
        if self.gap is not None:  # first: the frame's known values end up the latest
            self.gap.changes.update(
                ((self.state, name), value)
                for name, value in self._changes(
                    self.entry, first, self.entry_contents, first_contents, self.entry_marks
                )
            )
            if running.gap is None:
                running.gap = self.gap
            else:
                running.gap.merge(self.gap)
        if current.start is not None:
            iterations = [*self.ring, current]
            ends = [(it.start, it.contents) for it in iterations[1:]] + [(end, end_contents)]
            for iteration, following in zip(iterations, ends):
                steps, carried = self._steps(iteration, *following, carried)
                made += len(steps) - len(iteration.head)
                steps_made.append((iteration.index, steps))
        running.ring.extend(steps_made[:-1])
        running.index = current.index
        running.current = steps_made[-1][1] if steps_made else []
        return made, carried, ran

    def _steps(
        self,
        iteration: _Iteration,
        following: dict[str, Any],
        contents: dict[str, Any],
        carried: list[tuple[str, Any]],
    ) -> tuple[list[list], list[tuple[str, Any]]]:
        """The steps of one iteration, and the changes visible only after it."""
        state = self.state
        writes = self.running.loop.writes
        head = iteration.head
        steps = head + [[state, n, LINE, None, None, None, None] for n in iteration.lines]
        for position, text in iteration.printed:
            if position + len(head) < len(steps):
                steps[position + len(head)][BEFORE] = text
        if carried and steps:
            _add(steps[0], carried)
        ran = [step[1] for step in steps]
        later = []
        for name, value in self._changes(
            iteration.start, following, iteration.contents, contents, {}
        ):
            at = next(
                (i for i in range(len(ran) - 1, -1, -1) if name in writes.get(ran[i], ())),
                len(ran) - 1,
            )
            if at + 1 < len(steps):
                _add(steps[at + 1], [(name, value)])
            else:
                later.append((name, value))
        return steps, later

    def _changes(
        self,
        before: dict[str, Any],
        after: dict[str, Any],
        contents_before: dict[str, Any],
        contents_after: dict[str, Any],
        marks: dict[str, Any],
    ) -> list[tuple[str, Any]]:
        """The changes from one snapshot to another as the recorder records them (an
        object changed in place is seen by its contents, or where ``marks`` has its
        earlier fingerprint); the frame's known values are brought up to date."""
        known = self.state.known
        changes = []
        for name, value in after.items():
            summary = contents_after.get(name)
            if before.get(name, UNBOUND) is value:
                if summary is not None:
                    if summary == contents_before.get(name):
                        continue
                elif name not in marks or fingerprint(value) == marks[name]:
                    continue
            elif value is not UNBOUND and not is_shown(name, value):
                continue
            if value is UNBOUND:
                if known.pop(name, None) is not None:
                    changes.append((name, UNBOUND))
            elif is_immutable(value):
                known[name] = (value, None)
                changes.append((name, value))
            else:
                known[name] = (value, fingerprint(value))
                changes.append((name, summary or summarize(value)))
        changes.extend(
            (name, UNBOUND)
            for name in before.keys() - after.keys()
            if known.pop(name, None) is not None
        )
        return changes


def _add(step: list, changes: list[tuple[str, Any]]) -> None:
    if step[CHANGES] is None:
        step[CHANGES] = list(changes)
    else:
        step[CHANGES].extend(changes)
