"""A finished recording: steps, the frames and sources they ran in, and the values.

Values are stored as changes: a variable appears at a step only when it was bound,
unbound or changed in place since its frame's previous step; ``Step.locals`` rebuilds
a frame's variables at any step from them. ``Recording.to_json`` is what the stepper
widget receives; in a notebook a recording shows as that widget.
"""

from __future__ import annotations

import bisect
import linecache
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from ..graph.views import view
from ..source.user_code import cell_filenames
from .frames import (
    CHANGES,
    FRAME,
    GAP,
    KIND,
    LINENO,
    RAISED,
    RETURN_NAME,
    SKIPPED,
    UNBOUND,
    FrameState,
)
from .recorder import RawRecording
from .summary import ArraySummary, ObjectSummary, Summary, summarize

KINDS = ("line", "return", "skipped", "error")


@dataclass(frozen=True)
class Source:
    """The text of a cell or file that recorded code came from."""

    filename: str
    name: str  # "Cell In[3]" or the file's name
    lines: tuple[str, ...]
    execution_count: int | None = None  # cells: their In[n]
    cell_id: str | None = None  # the notebook cell's id, where known


@dataclass(frozen=True)
class Frame:
    """One call of the user's code (or a cell's run)."""

    index: int
    function: str
    source: Source
    parent: int | None  # the calling frame, if it was recorded
    depth: int  # 0: the outermost recorded frame


@dataclass(frozen=True)
class RecordedError:
    """The exception that ended the recorded run."""

    step: int
    text: str  # "ZeroDivisionError: division by zero"


class Step:
    """The state before one line ran (or a return, or iterations skipped)."""

    __slots__ = ("_recording", "frame", "index", "kind", "lineno", "note", "output", "raised")

    def __init__(
        self,
        recording: Recording,
        index: int,
        frame: Frame,
        lineno: int,
        kind: str,
        output: str,
        raised: str | None,
        note: str | None,
    ) -> None:
        self._recording = recording
        self.index = index
        self.frame = frame
        self.lineno = lineno
        self.kind = kind  # one of KINDS
        self.output = output  # what the step's line printed
        self.raised = raised  # the exception its line raised, if any
        self.note = note  # for skipped steps: what was skipped

    @property
    def filename(self) -> str:
        return self.frame.source.filename

    @property
    def function(self) -> str:
        return self.frame.function

    @property
    def line(self) -> str:
        """The source text of the step's line."""
        lines = self.frame.source.lines
        return lines[self.lineno - 1] if 0 < self.lineno <= len(lines) else ""

    @property
    def locals(self) -> dict[str, Summary]:
        """The frame's variables at this step, as summaries."""
        return self._recording._locals(self.frame.index, self.index)

    @property
    def changed(self) -> list[str]:
        """The variables bound or changed since the frame's previous step."""
        return self._recording._changed(self.index)

    @property
    def stack(self) -> list[tuple[str, int]]:
        """(function, line) of each frame from the outermost to this step's."""
        return self._recording._stack(self.frame, self.index)

    def __repr__(self) -> str:
        return f"<Step {self.index} {self.kind} {self.frame.function}:{self.lineno}>"


class Recording:
    """An eager run recorded step by step; shows as a stepper widget in a notebook."""

    def __init__(self, raw: RawRecording, cell_ids: Mapping[str, str] | None = None) -> None:
        self.result = raw.result  # what the run returned
        self.exception = raw.exception  # what it raised (not re-raised here)
        self.notes = list(raw.notes)  # what was not recorded, and why
        self.sources: list[Source] = []
        self.frames: list[Frame] = []
        self.steps: list[Step] = []
        self.error: RecordedError | None = None
        self.stop: int | None = None  # the step where nbgraph.breakpoint() was called
        # (step, frame, name, summary or None for unbound), in step order
        self.changes: list[tuple[int, int, str, Summary | None]] = []
        self._build(raw, dict(cell_ids or {}))

    def _build(self, raw: RawRecording, cell_ids: dict[str, str]) -> None:
        sources: dict[str, Source] = {}
        frames: dict[FrameState, Frame] = {}
        outputs = [step[4] or "" for step in raw.steps[1:]] + [raw.printed_after]
        skipped_iterations = 0
        for index, (step, output) in enumerate(zip(raw.steps, outputs)):
            state: FrameState = step[FRAME]
            frame = frames.get(state) or self._frame(state, frames, sources, cell_ids)
            note = None
            if step[KIND] == SKIPPED:
                first, last, count = step[GAP]
                skipped_iterations += last - first + 1
                note = (
                    f"iterations {first + 1:,} to {last + 1:,} of the loop at line "
                    f"{step[LINENO]} were not recorded ({count:,} steps)"
                )
            self.steps.append(
                Step(self, index, frame, step[LINENO], step[KIND], output, step[RAISED], note)
            )
            for name, value, *owner in step[CHANGES] or ():
                summary = (
                    None
                    if value is UNBOUND
                    else value
                    if isinstance(value, ArraySummary | ObjectSummary)
                    else summarize(value)
                )
                changed = (
                    frame
                    if not owner
                    else frames.get(owner[0]) or self._frame(owner[0], frames, sources, cell_ids)
                )
                self.changes.append((index, changed.index, name, summary))
            if step is raw.error_step:
                self.error = RecordedError(index, step[RAISED] or "")
            if step is raw.stop_step:
                self.stop = index
        if skipped_iterations:
            self.notes.insert(
                0,
                f"{skipped_iterations:,} loop iterations were not "
                "recorded (the first and last iterations of each loop, "
                "and those reaching a new line or raising, are).",
            )

    def _frame(
        self,
        state: FrameState,
        frames: dict[FrameState, Frame],
        sources: dict[str, Source],
        cell_ids: dict[str, str],
    ) -> Frame:
        code = state.code
        source = sources.get(code.co_filename)
        if source is None:
            source = sources[code.co_filename] = _source(code.co_filename, cell_ids)
            self.sources.append(source)
        parent = state.parent
        while parent is not None and parent not in frames:
            parent = parent.parent
        name = getattr(code, "co_qualname", code.co_name).rpartition("<locals>.")[2]
        frame = Frame(
            len(self.frames),
            "<cell>" if name == "<module>" and source.execution_count is not None else name,
            source,
            frames[parent].index if parent is not None else None,
            state.depth,
        )
        frames[state] = frame
        self.frames.append(frame)
        return frame

    # ------------------------------------------------------------------ queries

    @cached_property
    def _history(self) -> dict[tuple[int, str], tuple[list[int], list[Summary | None]]]:
        """(frame, name) -> the steps where it changed, and its summary from each."""
        history: dict[tuple[int, str], tuple[list[int], list[Summary | None]]] = {}
        for step, frame, name, summary in self.changes:
            steps, values = history.setdefault((frame, name), ([], []))
            steps.append(step)
            values.append(summary)
        return history

    @cached_property
    def _first_steps(self) -> dict[int, int]:
        first: dict[int, int] = {}
        for step in self.steps:
            first.setdefault(step.frame.index, step.index)
        return first

    def _locals(self, frame: int, index: int) -> dict[str, Summary]:
        found = {}
        for (owner, name), (steps, values) in self._history.items():
            if owner == frame:
                at = bisect.bisect_right(steps, index) - 1
                if at >= 0 and values[at] is not None:
                    found[name] = values[at]
        return found

    def _changed(self, index: int) -> list[str]:
        step = self.steps[index]
        if self._first_steps[step.frame.index] == index:
            return []  # a frame's first values are where it starts, not changes
        return [
            name for at, frame, name, _ in self.changes if at == index and frame == step.frame.index
        ]

    def _stack(self, frame: Frame, index: int) -> list[tuple[str, int]]:
        chain = []
        current: Frame | None = frame
        while current is not None:
            chain.append(current)
            current = self.frames[current.parent] if current.parent is not None else None
        lines = {}
        for step in reversed(self.steps[: index + 1]):
            lines.setdefault(step.frame.index, step.lineno)
            if len(lines) >= len(chain) and all(f.index in lines for f in chain):
                break
        return [(f.function, lines.get(f.index, 0)) for f in reversed(chain)]

    # ------------------------------------------------------------------ output

    def to_json(self) -> dict[str, Any]:
        """The recording as the stepper widget reads it."""
        names: dict[str, int] = {}
        values: list[dict[str, Any]] = []
        value_index: dict[int, int] = {}
        changes = []
        for step, frame, name, summary in self.changes:
            if summary is None:
                value = -1
            else:
                value = value_index.get(id(summary))
                if value is None:
                    value = value_index[id(summary)] = len(values)
                    values.append(summary.to_json())
            changes.append([step, frame, names.setdefault(name, len(names)), value])
        return {
            "sources": [
                {
                    "name": s.name,
                    "filename": s.filename,
                    "lines": list(s.lines),
                    "executionCount": s.execution_count,
                    "cellId": s.cell_id,
                }
                for s in self.sources
            ],
            "frames": [
                {
                    "function": f.function,
                    "source": self.sources.index(f.source),
                    "parent": f.parent,
                    "depth": f.depth,
                }
                for f in self.frames
            ],
            "steps": [[s.frame.index, s.lineno, KINDS.index(s.kind)] for s in self.steps],
            "names": list(names),
            "values": values,
            "changes": changes,
            "output": [[s.index, s.output] for s in self.steps if s.output],
            "raised": [[s.index, s.raised] for s in self.steps if s.raised],
            "skipped": [[s.index, s.note] for s in self.steps if s.note],
            "notes": self.notes,
            "error": None
            if self.error is None
            else {"step": self.error.step, "text": self.error.text},
            "returnName": RETURN_NAME,
        }

    def widget(self) -> Any:
        """The stepper widget showing this recording (made once)."""
        if "_widget" not in self.__dict__:
            self.__dict__["_widget"] = view("stepper")(self)
        return self.__dict__["_widget"]

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        return self.widget()._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        ending = f", raised {self.error.text}" if self.error else ""
        return f"<Recording of {len(self.steps)} steps in {len(self.frames)} frames{ending}>"


def _source(filename: str, cell_ids: dict[str, str]) -> Source:
    lines = tuple(line.rstrip("\n") for line in linecache.getlines(filename))
    count = cell_filenames().get(filename)
    name = f"Cell In[{count}]" if count is not None else Path(filename).name
    return Source(filename, name, lines, count, cell_ids.get(filename))
