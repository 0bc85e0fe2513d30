"""The recorder: runs code under ``sys.settrace`` and keeps what the user's code did.

Only the user's own code is followed (see ``user_code``); a frame of any other code
gets no local tracer and costs one call of the global tracer. The tracer that was
installed before (a debugger's) is put back when the run ends, and nothing is traced
outside a recording. Output written to ``sys.stdout`` during the run still reaches it,
and is attributed to the step that printed it.
"""

from __future__ import annotations

import dis
import sys
import types
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..config import recording_calls
from ..source.user_code import is_user_code, shows_lines
from .code_info import ANYTHING, NO_LINE, UNCHANGED, CodeInfo, Loop, code_info
from .fast import FastLoop
from .frames import (
    BEFORE,
    CHANGES,
    ERROR,
    LINE,
    RAISED,
    RETURN,
    RETURN_NAME,
    FrameState,
    describe,
)
from .graph_steps import record_call
from .loops import ActiveLoop
from .summary import ArraySummary, ObjectSummary
from .trips import trip_count

if TYPE_CHECKING:
    from ..api import GraphFunction

_GENERATOR_FLAGS = 0x20 | 0x80 | 0x200  # generator, coroutine, async generator
_YIELD = frozenset(dis.opmap[name] for name in ("YIELD_VALUE",) if name in dis.opmap)
_STEP_BYTES = 200  # a step's own share of memory, its changes aside
_CHANGE_BYTES = 120


@dataclass(frozen=True)
class Limits:
    """How much a recording keeps."""

    max_steps: int = 20_000  # steps held at once (kept or waiting in a loop's ring)
    max_memory: int = 64 * 2**20  # bytes, estimated, of everything held
    keep_first: int = 5  # iterations kept from the start of every run of a loop
    keep_last: int = 5  # ... and from its end


@dataclass
class RawRecording:
    """What a run left: the kept steps in order, and how the run ended."""

    steps: list[list]
    notes: list[str]
    result: Any
    exception: BaseException | None
    error_step: list | None  # the step that raised ``exception``
    printed_after: str  # output after the last step
    stop_step: list | None = None  # where the run called nbgraph.breakpoint() first


class Recorder:
    """Records one run; see ``record``."""

    def __init__(self, limits: Limits, sources: Mapping[str, str]) -> None:
        self.limits = limits
        self.sources = dict(sources)  # analysable text of files linecache has otherwise
        self.steps: list[list] = []
        self.buffer = self.steps  # where the next step goes
        self.active: list[ActiveLoop] = []  # running loops, innermost last
        self.states: dict[types.FrameType, FrameState] = {}
        self.codes: dict[types.CodeType, tuple[CodeInfo, set[int]] | None] = {}
        self.held_steps = 0
        self.held_bytes = 0
        self.notes: list[str] = []
        self.stopped = False
        self.printed: list[str] = []
        self.raised: BaseException | None = None  # the exception propagating now
        self.raised_at: list | None = None  # the step that raised it
        self.previous_tracer: Any = None
        self.stop_step: list | None = None
        self.graph_lines: set[tuple[str, int]] = set()  # graph runs' lines recorded so far

    # ------------------------------------------------------------------ running

    def run(self, run: Callable[[], Any]) -> RawRecording:
        result = exception = None
        self.previous_tracer = sys.gettrace()
        stdout = sys.stdout
        sys.stdout = _Tee(stdout, self.printed, self._printing)
        sys.settrace(self._on_call)
        _running.append(self)
        try:
            with recording_calls(self._graph_call):
                result = run()
        except BaseException as exc:
            exception = exc
        finally:
            _running.pop()
            sys.settrace(self.previous_tracer)
            sys.stdout = stdout
        return self._finish(result, exception)

    def stop(self, frame: types.FrameType | None) -> None:
        """Note the step ``frame`` (or the nearest recorded frame calling it) is at as
        where the run stopped (``nbgraph.breakpoint()``), if none is noted yet."""
        while frame is not None and frame not in self.states:
            frame = frame.f_back
        if self.stop_step is None and frame is not None:
            self.stop_step = self.states[frame].last

    def _on_call(self, frame: types.FrameType, event: str, arg: Any) -> Any:
        """The global tracer: gives the user's frames their local tracer."""
        code = frame.f_code
        entry = self.codes.get(code, False)
        if entry is False:
            entry = self.codes[code] = self._examine(code)
        if entry is None:
            return None
        parent = self.calling_state(frame.f_back)
        state = self.states.get(frame)
        if state is None:
            state = FrameState(frame, entry[0], entry[1], parent)
            state.slow = state.tracer = self._tracer(state)
            self.states[frame] = state
        else:  # a generator resumed: its objects may have changed meanwhile
            state.must_read = ANYTHING
        return state.tracer

    def calling_state(self, frame: types.FrameType | None) -> FrameState | None:
        """The recorded frame ``frame`` is or runs inside (the caller of a call that
        starts there), its steps so far made (see ``_leave_fast``)."""
        while frame is not None and frame not in self.states:
            frame = frame.f_back
        if frame is None:
            return None
        state = self.states[frame]
        if state.fast is not None:
            self._leave_fast(state, frame, None, None)  # its steps come first
            frame.f_trace = state.slow
        return state

    def _graph_call(self, fn: GraphFunction, args: tuple, kwargs: dict) -> Any:
        """A graph function called in the run: its graph's run, recorded step by step."""
        return record_call(self, fn, args, kwargs)

    def _examine(self, code: types.CodeType) -> tuple[CodeInfo, set[int]] | None:
        if not _steps_into(code):
            return None
        return code_info(code, self.sources.get(code.co_filename)), set()

    def _tracer(self, state: FrameState) -> Callable:
        on_line = self._line
        on_other = self._other

        def trace(frame: types.FrameType, event: str, arg: Any) -> Any:
            try:
                if event == "line":
                    on_line(state, frame, frame.f_lineno)
                else:
                    on_other(state, frame, event, arg)
            except Exception as exc:  # the run must go on whatever the recorder does
                self._fail(exc)
            return None if self.stopped else state.tracer

        return trace

    # ------------------------------------------------------------------ events

    def _line(
        self,
        state: FrameState,
        frame: types.FrameType,
        lineno: int,
        carried: list[tuple[str, Any]] | None = None,
    ) -> None:
        line = state.info.lines.get(lineno, NO_LINE)
        printed = self.printed
        step = [state, lineno, LINE, None, None, None, None]
        if printed:
            step[BEFORE] = "".join(printed)
            printed.clear()
        if carried:
            self._attach([(step, change) for change in carried])
        pending = state.pending
        for name in state.prev.binds:  # visible from this step on
            pending[name] = step
        loops = state.loops
        leaves = bool(loops) and not loops[-1].loop.contains(lineno)
        if state.must_read or (
            pending
            and (
                line.mutating
                or leaves
                or line.loop is not None
                or not pending.keys().isdisjoint(line.binds)
            )
        ):
            self._attach(state.read(step, state.must_read))
        entered = (leaves or line.loop is not None) and self._loops_at(
            state, frame, lineno, line.loop
        )
        if lineno not in state.seen:
            state.seen.add(lineno)
            for loop in self.active:
                loop.interesting = True
        self.buffer.append(step)
        if state.first is None:
            state.first = step
        state.last = step
        state.prev = line
        # A loop starting makes its iterable (calling something) at its first event.
        state.must_read = ANYTHING if entered else line.mutating
        state.raising = False
        self._held(1)
        if line.loop is not None and loops and loops[-1].loop is line.loop:
            self._maybe_go_fast(state, frame, loops[-1])

    def _held(self, steps: int) -> None:
        self.held_steps += steps
        self.held_bytes += steps * _STEP_BYTES
        if self.stopped:
            return
        if self.held_steps > self.limits.max_steps:
            self._stop(f"the step limit ({self.limits.max_steps:,}) was reached")
        elif self.held_bytes > self.limits.max_memory:
            self._stop(f"the memory limit ({self.limits.max_memory / 2**20:g} MiB) was reached")

    def _maybe_go_fast(
        self, state: FrameState, frame: types.FrameType, running: ActiveLoop
    ) -> None:
        """Follow the loop's next iterations fast if they can be and may be dropped."""
        if (
            running.loop.flat
            and running.index >= self.limits.keep_first
            and not running.ring
            and not running.interesting
            and not state.pending
            and not self.stopped
        ):
            fast = FastLoop(
                running, frame, self.limits.keep_last, self.printed, self._forget, self.over_limit
            )
            state.fast = fast
            state.tracer = fast.tracer(
                lambda frame, event, arg: self._leave_fast(state, frame, event, arg), self._fail
            )

    def _leave_fast(
        self, state: FrameState, frame: types.FrameType, event: str | None, arg: Any
    ) -> Any:
        """Make the steps of the iterations followed fast that are kept, then handle
        ``event`` as usual (None: a call of the user's code is starting)."""
        try:
            count, carried, lineno = state.fast.materialize(frame, last_line=event == "exception")
            running = state.fast.running
            state.fast = None
            state.tracer = state.slow
            self.buffer = running.current
            if running.current:
                state.last = running.current[-1]
            state.prev = state.info.lines.get(lineno, NO_LINE)
            state.must_read = ANYTHING
            self._held(count)
            if event == "line":
                self._line(state, frame, frame.f_lineno, carried)
            else:
                self._attach([(state.last, change) for change in carried])
                if event is not None:
                    self._other(state, frame, event, arg)
        except Exception as exc:
            return self._fail(exc)
        return None if self.stopped else state.tracer

    def _printing(self, text: str) -> None:
        """Output is kept (with the step that printed it, or a skipped step)."""
        self.held_bytes += len(text)

    def over_limit(self) -> bool:
        return self.held_bytes > self.limits.max_memory

    def _fail(self, error: Exception) -> None:
        """The recorder went wrong: stop recording, and let the run go on."""
        if not self.stopped:
            self._stop(f"the recorder failed ({describe(error)})")

    def _other(self, state: FrameState, frame: types.FrameType, event: str, arg: Any) -> None:
        if event == "return":
            self._return(state, frame, arg)
        elif event == "exception":
            self._exception(state, arg[1])

    def _return(self, state: FrameState, frame: types.FrameType, value: Any) -> None:
        step = [state, frame.f_lineno, RETURN, None, None, None, None]
        if not state.raising:
            for name in state.prev.binds:
                state.pending[name] = step
        # What the last line may have changed; an exception may have left anything.
        self._attach(
            state.read(
                state.last or step if state.raising else step,
                ANYTHING if state.raising else state.must_read,
            )
        )
        while state.loops:
            self._end_loop(state.loops.pop())
        if not state.raising and state.last is not None:
            if self.printed:
                step[BEFORE] = "".join(self.printed)
                self.printed.clear()
            if not state.info.module_level:
                self._attach([(step, (RETURN_NAME, value))])
                # A generator's yielded value is gone when it resumes: the next full
                # read of its variables sees RETURN_NAME unbound.
                state.known[RETURN_NAME] = (value, None)
            self.buffer.append(step)
            self._held(1)
        if state.parent is not None:
            state.parent.must_read = ANYTHING  # the callee may have changed its objects
        if not _yielding(frame):
            state.alive = False
            state.known.clear()  # keeps no user object alive
            state.frame = None
            del self.states[frame]

    def _exception(self, state: FrameState, value: BaseException) -> None:
        state.raising = True
        if state.last is not None and state.last[RAISED] is None:
            state.last[RAISED] = describe(value)
        for loop in self.active:
            loop.interesting = True
        if value is not self.raised:
            self.raised, self.raised_at = value, state.last

    # ------------------------------------------------------------------ loops

    def _loops_at(
        self, state: FrameState, frame: types.FrameType, lineno: int, loop: Loop | None
    ) -> bool:
        """Leave the loops of ``state`` that do not contain ``lineno``; start an
        iteration of ``loop``. Returns whether that entered the loop."""
        loops = state.loops
        while loops and not loops[-1].loop.contains(lineno):
            self._end_loop(loops.pop())
        if loop is None:
            return False
        entered = not loops or loops[-1].loop is not loop
        if not entered:
            loops[-1].next_iteration(self.limits.keep_first, self.limits.keep_last, self._forget)
        else:
            trips = (
                None
                if loop.iterable is None
                else trip_count(loop.iterable, state.namespace(), frame.f_globals)
            )
            running = ActiveLoop(loop, state, self.buffer, trips)
            loops.append(running)
            self.active.append(running)
        self.buffer = loops[-1].current
        return entered

    def _end_loop(self, running: ActiveLoop) -> None:
        running.end(self.limits.keep_last, self._forget)
        self.active.remove(running)
        self.buffer = self.active[-1].current if self.active else self.steps

    def _forget(self, steps: list[list]) -> None:
        """Steps dropped from a loop no longer count against the limits."""
        self.held_steps -= len(steps)
        self.held_bytes -= sum(map(_step_bytes, steps))

    # ------------------------------------------------------------------ bookkeeping

    def _attach(self, changes: list[tuple[list, tuple[str, Any]]]) -> None:
        for step, change in changes:
            if step[CHANGES] is None:
                step[CHANGES] = [change]
            else:
                step[CHANGES].append(change)
            self.held_bytes += _change_bytes(change)

    def _stop(self, reason: str) -> None:
        """Stop recording; the run goes on untraced."""
        self.stopped = True
        sys.settrace(self.previous_tracer)
        for frame, state in self.states.items():
            frame.f_trace = None
            if state.pending:
                self._attach(state.read(state.last, UNCHANGED))
        self._end_loops()
        self.notes.append(
            f"Recording stopped after {len(self.steps):,} steps: {reason}; "
            "the rest of the run was not recorded."
        )

    def _end_loops(self) -> None:
        while self.active:
            running = self.active[-1]
            running.frame.loops.remove(running)
            self._end_loop(running)

    def _finish(self, result: Any, exception: BaseException | None) -> RawRecording:
        self._end_loops()
        error_step = None
        if exception is not None:
            error_step = (
                self.raised_at
                if exception is self.raised and any(step is self.raised_at for step in self.steps)
                else None
            )
            if error_step is None:
                error_step = self._error_step(exception)
            if error_step is not None:
                error_step[RAISED] = error_step[RAISED] or describe(exception)
        for state in self.states.values():
            state.known.clear()
            state.frame = None
        self.states.clear()
        self.raised = self.raised_at = None
        printed, self.printed[:] = "".join(self.printed), []
        return RawRecording(
            self.steps, self.notes, result, exception, error_step, printed, self.stop_step
        )

    def _error_step(self, exception: BaseException) -> list | None:
        """A step at the user's line that raised ``exception``, from its traceback (when
        the recording had stopped before it was raised)."""
        tb = exception.__traceback__
        innermost = None
        while tb is not None:
            if self.codes.get(tb.tb_frame.f_code) or _steps_into(tb.tb_frame.f_code):
                innermost = tb
            tb = tb.tb_next
        if innermost is None:
            return None
        frame = innermost.tb_frame
        state = self.states.get(frame)
        if state is None:
            entry = self.codes.get(frame.f_code) or self._examine(frame.f_code)
            if entry is None:
                return None
            state = FrameState(frame, entry[0], entry[1], None)
        step = [state, innermost.tb_lineno, ERROR, None, None, None, None]
        self._attach(state.read(step, ANYTHING))
        self.steps.append(step)
        return step


def _yielding(frame: types.FrameType) -> bool:
    """Whether a 'return' event of ``frame`` is a yield (the frame will resume)."""
    if not frame.f_code.co_flags & _GENERATOR_FLAGS:
        return False
    code = frame.f_code.co_code
    return 0 <= frame.f_lasti < len(code) and code[frame.f_lasti] in _YIELD


def _change_bytes(change: tuple[str, Any]) -> int:
    """An estimate of the memory a change holds."""
    value = change[1]
    if isinstance(value, ArraySummary):
        return _CHANGE_BYTES + 400 + sum(map(len, value.head)) + sum(map(len, value.tail))
    if isinstance(value, ObjectSummary):
        return _CHANGE_BYTES + 150 + len(value.text)
    return _CHANGE_BYTES + sys.getsizeof(value)


def _step_bytes(step: list) -> int:
    """The memory a step holds, what it printed aside (that stays when it is dropped)."""
    return _STEP_BYTES + sum(map(_change_bytes, step[CHANGES] or ()))


class _Tee:
    """``sys.stdout`` during a recording: writes through, and keeps a copy."""

    def __init__(self, stream: Any, parts: list[str], kept: Callable[[str], None]) -> None:
        self._stream = stream
        self._parts = parts
        self._kept = kept

    def write(self, text: str) -> int:
        self._parts.append(text)
        self._kept(text)
        return self._stream.write(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


_running: list[Recorder] = []  # the recorders running now, innermost last


def stop_recording_here() -> bool:
    """``nbgraph.breakpoint()`` run while recording: its step is where the stepper
    opens (True), or no recording runs (False)."""
    if not _running:
        return False
    _running[-1].stop(sys._getframe(1))
    return True


def record_run(
    run: Callable[[], Any], limits: Limits, sources: Mapping[str, str] | None = None
) -> RawRecording:
    """Call ``run()`` and record the user's code it runs."""
    return Recorder(limits, sources or {}).run(run)


def _steps_into(code: types.CodeType) -> bool:
    """Whether a recording steps into ``code``: the user's, with lines it can show."""
    return is_user_code(code) and shows_lines(code)
