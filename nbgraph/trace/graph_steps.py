"""A graph function's own run, recorded step by step at the user's source lines.

While a recording runs (``nbgraph.step``, ``%%step``), a graph function called in it
runs its graph on the interpret backend, which hands over every value it computes. The
operations of one source line make one step, in a frame of the user's function the line
belongs to (a helper's lines in a frame of their own, one per call); a line that assigns
a name (``y = ...``, ``total += ...``, ``x[i] = ...``) shows the graph's value of that
name from the next step of its frame on, as eager recordings show a line's effect.
Graph loops keep their first and last iterations as eager loops do; an error ends the
run at the failing line; ``nbgraph.breakpoint()`` marks the step the stepper opens at.
The steps join the recording where the call was made, so one recording can hold eager
lines and graph lines: the call's frame is a child of the calling line's frame.
"""

from __future__ import annotations

import sys
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ..backend.interpret import Interpreter
from ..config import recording_calls
from ..graph import runtime
from ..graph.ir import Graph, Node, Op, Region
from ..graph.pytree import flatten
from ..graph.variables import assignments
from ..source.locations import Loc
from .frames import (
    BEFORE,
    CHANGES,
    ERROR,
    LINE,
    RAISED,
    RETURN,
    RETURN_NAME,
    UNBOUND,
    describe,
    is_shown,
    same_value,
)
from .graph_places import (
    assigned_calls,
    code_of,
    iteration_values,
    line_of,
    places,
    stops,
)
from .loops import ActiveLoop
from .source_facts import passed_lines, return_line, source_facts
from .summary import fingerprint, is_immutable, summarize

if TYPE_CHECKING:
    from ..api import GraphFunction
    from .recorder import Recorder

# Operations that change their first input in place, as the user's code reads them.
_UPDATES = frozenset({runtime.setitem, runtime.add_at, runtime.list_append})


_MISSING = object()


class GraphFrame:
    """One call of a user function in a graph's run: a frame of the recording."""

    __slots__ = (
        "alive",
        "chain",
        "code",
        "depth",
        "known",
        "last",
        "line",
        "loops",
        "parent",
        "pending",
        "returns",
        "site",
        "unrolled",
    )

    def __init__(self, code: Any, parent: Any) -> None:
        self.code = code  # (co_filename and co_qualname name the frame)
        self.parent = parent  # the calling frame (a GraphFrame or the recorder's FrameState)
        self.depth = 0 if parent is None else parent.depth + 1
        self.alive = True
        self.line = 0  # the line of its latest step
        self.last: list | None = None  # that step
        self.pending: list[tuple[str, Any]] = []  # changes its next step shows
        self.known: dict[str, tuple] = {}  # name -> (value last shown, its fingerprint)
        self.loops: list[ActiveLoop] = []  # its running graph loops, innermost last
        self.returns: Any = _MISSING  # what it returns: a node, or a value known earlier
        self.site: Loc | None = None  # where it was called from
        self.unrolled: tuple = ()  # the iterations unrolled while tracing around its step
        self.chain: tuple = ()  # the calls it is in (see _places): () for the function's


class _Header(NamedTuple):
    """What a loop's kept iterations need of it: the line a skipped step stands at."""

    header: int


class _Running:
    """One run of a graph loop: its kept iterations, its frame, the iterations begun."""

    __slots__ = ("active", "frame", "header", "started", "unset")

    def __init__(self, active: ActiveLoop, frame: GraphFrame, header: int) -> None:
        self.active = active
        self.frame = frame
        self.header = header  # the loop's line
        self.started = 0
        self.unset: set[str] = set()  # its variables that entered it without a value


class _Safely:
    """``with``: bookkeeping that goes wrong stops the recording, as the recorder's own
    failures do (``Recorder._fail``); the graph's run goes on."""

    __slots__ = ("recorder",)

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type | None, error: Any, traceback: Any) -> bool:
        if kind is not None and issubclass(kind, Exception):
            self.recorder._fail(error)
            return True
        return False


class StepInterpreter(Interpreter):
    """The interpret backend, turning the nodes it runs into the recorder's steps."""

    def __init__(self, recorder: Recorder, graph: Graph, top: GraphFrame) -> None:
        super().__init__(graph, writes_in_place=True)  # arguments written as eagerly
        self.recorder = recorder
        self._safely = _Safely(recorder)
        self.frames = [top]  # the active calls, outermost first
        self.calls: list[Hashable] = [None]  # the call each stands for (see _places)
        self.places = places(graph)
        # Each helper call's arguments, by its call site and unrolled iterations.
        self.arguments = dict(graph.calls)
        # Values the user's names hold: what lines assign, arguments, loop variables.
        self.names: dict[Node, list[tuple[int, str]]] = assignments(graph)
        # (calls, file, line, name) of each assignment an operation's value is named
        # after, in the call (by its calls, see _places) it is made in; None: any call.
        self.carried: set[tuple] = set()
        for node, named in self.names.items():
            place = self.places.get(node) or self.places.get((node.inputs or [node])[0])
            for depth, name in named:
                line = line_of(node, depth)
                if line is not None:
                    self.carried.add((place[0][:depth] if place else None, *line, name))
        self.untracked: dict[tuple, list[tuple[int, str]]] = {}
        # Calls a line assigns as they are (``y = helper(x)``): the name gets what the
        # helper returns when it returns (the line's last operation may be another).
        self.results = assigned_calls(graph)
        call_lines = {(f, n) for f, n, _, _ in self.results}
        for node, named in list(self.names.items()):
            kept = [(d, name) for d, name in named if line_of(node, d) not in call_lines]
            if len(kept) < len(named):
                self.names[node] = kept
        self.carried |= {(None, f, n, name) for (f, n, _, _), name in self.results.items()}
        for param, name in zip(graph.body.params, graph.body.names):
            if name is not None:
                self.names[param] = [(0, name)]
        # Loop variables as values written into (x[i] = v), not shown when computed.
        self.targets: dict[Node, list[tuple[int, str]]] = {}
        for loop in graph.find(Op.WHILE):
            depth = len(self.places[loop][0]) if loop in self.places else 0
            for param, name in zip(loop.arg[1].params, loop.arg[1].names):
                if name is not None:
                    self.targets[param] = [(depth, name)]
        for proj in graph.find(Op.PROJ):
            loop = proj.inputs[0]
            if loop.op is Op.WHILE and proj.arg < len(loop.arg[1].names):
                name = loop.arg[1].names[proj.arg]
                if name is not None:
                    depth = len(self.places[loop][0]) if loop in self.places else 0
                    self.targets[proj] = [(depth, name)]
        # Per graph loop (by its test's and its body's regions): its runs, innermost last.
        self.tests: dict[int, list[_Running]] = {}
        self.bodies: dict[int, list[_Running]] = {}
        self.latest: list | None = None  # the newest step
        self.env: dict[Node, Any] = {}

    # ------------------------------------------------------------------ running

    def _eval(self, node: Node, env: dict[Node, Any]) -> Any:
        frame = self.frames[-1]
        with self._safely:
            place = self.places.get(node)
            if place is not None:
                frame = self._at(*place, env)
            if node.op is Op.WHILE:
                self._entering(node, env, frame)
            elif stops(node) and self.recorder.stop_step is None:
                self.recorder.stop_step = self.latest  # (the stepper opens here)
        if node.op is Op.WHILE:
            return self._loop(node, env, frame)
        if stops(node):
            return None  # (the run goes on)
        value = super()._eval(node, env)
        if node.op is not Op.CALL and node not in self.names:
            return value
        with self._safely:
            named = self.names.get(node)
            if named is None and node.op is Op.CALL and node.arg.fn in _UPDATES:
                target = node.inputs[0]  # x[i] = v: x changed
                named = self.names.get(target) or self.targets.get(target)
                if named is not None:
                    self.names[node] = named  # (and the next x[j] = w writes into this)
            for depth, name in named or ():
                self._bind(depth, name, value)
            if node.op is Op.CALL and node.inputs and self._writes_in_place(node, named):
                self._aliases(env.get(node.inputs[0]), value)
        return value

    def _writes_in_place(self, node: Node, named: list | None) -> bool:
        """Whether eager code changes ``node``'s first input in place there: an item
        written, or ``x += v`` of an array (the value the line assigns)."""
        if node.arg.fn in _UPDATES:
            return True
        code = self.frames[-1].code
        return bool(named) and node.loc.lineno in source_facts(code).augmented

    def _aliases(self, old: Any, new: Any) -> None:
        """Eager code changed the array ``old`` in place into ``new``: every name of the
        frame holding it (``b = a``, an array in a list) holds ``new``."""
        if not isinstance(old, np.ndarray):
            return
        frame = self.frames[-1]
        for name, (value, _) in list(frame.known.items()):
            if value is old:
                self._bind(len(self.frames) - 1, name, new)

    def _entering(self, loop: Node, env: dict[Node, Any], frame: GraphFrame) -> None:
        """A loop's variables' values entering it, as the lines before it left them:
        shown from the step at its line on."""
        self._bind_state(self.frames.index(frame), loop.arg[1], loop.inputs, env, entering=True)
        if frame.last is not None and frame.last[1] == frame.line and frame.pending:
            self.recorder._attach([(frame.last, change) for change in frame.pending])
            frame.pending = []

    def _region(self, region: Region, args: Any, env: dict[Node, Any]) -> list[Any]:
        tests = self.tests.get(id(region))
        if tests:
            return self._test(tests[-1], region, args, env)
        bodies = self.bodies.get(id(region))
        if bodies:  # an iteration's body: its variables
            with self._safely:
                running = bodies[-1]
                depth = self.frames.index(running.frame) if running.frame in self.frames else 0
                values = dict(zip(region.params, args))
                targets = source_facts(running.frame.code).targets.get(running.header, ())
                entering = iteration_values(region, running.header, targets)
                self._bind_state(depth, region, entering, values, running.unset)
                for name, node in region.variables:  # (the loop's targets, read each time)
                    if name not in targets:
                        continue  # (assigned in the body: its line binds it, or nothing)
                    if node in region.params:
                        self._bind(depth, name, args[region.params.index(node)])
                    elif (depth, name) not in self.names.setdefault(node, []):
                        self.names[node].append((depth, name))
        return super()._region(region, args, env)

    def _test(self, running: _Running, region: Region, args: Any, env: dict) -> list[Any]:
        """A loop's test: an iteration starts at its step on the loop's line. A false
        test that made that step takes it back: the loop ends, by its test or by a
        ``break``, and eager code shows no step there after a ``break``."""
        recorder = self.recorder
        frame, line, before = running.frame, running.frame.line, self.latest
        with self._safely:
            if running.started and not recorder.stopped:
                limits = recorder.limits
                running.active.next_iteration(limits.keep_first, limits.keep_last, recorder._forget)
                recorder.buffer = running.active.current
            running.started += 1
        results = super()._region(region, args, env)
        step = self.latest
        with self._safely:
            if not results[0] and step is not before and recorder.buffer[-1:] == [step]:
                recorder.buffer.pop()
                recorder._forget([step])
                frame.pending[:0] = step[CHANGES] or []
                if step[BEFORE]:
                    recorder.printed.insert(0, step[BEFORE])
                frame.line, self.latest = line, before
        return results

    def _loop(self, node: Node, env: dict[Node, Any], frame: GraphFrame) -> Any:
        """A graph loop, its iterations kept as an eager loop's are."""
        recorder = self.recorder
        test, body = node.arg
        header = _Header(node.loc.lineno if node.loc else frame.line)
        running = _Running(ActiveLoop(header, frame, recorder.buffer, None), frame, header.header)
        running.unset = {  # (what entered without a value, shown once assigned)
            name
            for name, value in zip(body.names, node.inputs)
            if name is not None
            and name not in frame.known
            and (name in body.undefined or value.op is Op.PARAM)
        }
        self.tests.setdefault(id(test), []).append(running)
        self.bodies.setdefault(id(body), []).append(running)
        if not recorder.stopped:
            frame.loops.append(running.active)
            recorder.active.append(running.active)
            recorder.buffer = running.active.current
        try:
            state = super()._eval(node, env)
        except BaseException:
            running.active.interesting = True  # (the iteration that raised is kept)
            raise
        finally:
            self.tests[id(test)].pop()
            self.bodies[id(body)].pop()
            with self._safely:
                if running.active in recorder.active:  # (unless the recording stopped)
                    frame.loops.remove(running.active)
                    recorder._end_loop(running.active)
        with self._safely:
            depth = self.frames.index(frame) if frame in self.frames else 0
            values = dict(zip(body.results, state))
            self._bind_state(depth, body, body.results, values, running.unset)
        return state

    def _bind_state(
        self,
        depth: int,
        body: Region,
        nodes: Sequence[Node],
        values: dict[Node, Any],
        unset: set[str] | None = None,
        entering: bool = False,
    ) -> None:
        """A loop's variables hold the values of ``nodes`` (entering it, an iteration,
        leaving it), but those without a value before the loop (its ``undefined``, or an
        enclosing loop's, which enter as a param no value was shown for; ``unset`` for
        an iteration) only once assigned."""
        if depth >= len(self.frames):
            return
        known = self.frames[depth].known
        for name, node in zip(body.names, nodes):
            if name is None:
                continue
            if node not in values:  # (a for loop's item: shown once computed)
                self.names[node] = [(depth, name)]
            elif name in known or (
                name not in body.undefined
                and not (entering and node.op is Op.PARAM)
                and name not in (unset or ())
            ):
                self._bind(depth, name, values[node])

    # ------------------------------------------------------------------ frames and steps

    def _at(self, calls: tuple, loc: Loc, env: dict[Node, Any]) -> GraphFrame:
        """The frame of the call ``calls`` ends in (ending the calls that returned and
        starting new ones, with their arguments); a new step there if ``loc`` is on
        another line."""
        self.env = env  # (the run's values: what helpers returned, at the end)
        depth = len(calls)
        common = 0
        while common < min(len(self.calls) - 1, depth) and self.calls[common + 1] == calls[common]:
            common += 1
        while len(self.frames) > common + 1:
            self._return(self.frames.pop(), env)
            self.calls.pop()
        stack = loc.stack() if depth > common else ()
        for k in range(common, depth):
            caller = self.frames[-1]
            if caller.line != stack[k].lineno:  # (the calling line is a step first)
                self._step(caller, stack[k].lineno, LINE)
            self.frames.append(GraphFrame(code_of(stack[k + 1]), caller))
            self.frames[-1].site = stack[k]
            self.calls.append(calls[k])
            self.frames[-1].chain = tuple(calls[: k + 1])
            for name, value in self.arguments.get(calls[k], ()):
                if name == RETURN_NAME:
                    self.frames[-1].returns = value
                elif not isinstance(value, Node):
                    self._bind(k + 1, name, value)
                elif value in env:
                    self._bind(k + 1, name, env[value])
        frame = self.frames[-1]
        if frame.line != loc.lineno or frame.unrolled != loc.unrolled:
            self._step(frame, loc.lineno, LINE)  # (a new line, or a new unrolled iteration)
            frame.unrolled = loc.unrolled
        return frame

    def _step(self, frame: GraphFrame, lineno: int, kind: str) -> list | None:
        recorder = self.recorder
        previous, frame.line = frame.line, lineno
        if recorder.stopped:
            return None
        step = [frame, lineno, kind, None, None, None, None]
        if recorder.printed:
            step[BEFORE] = "".join(recorder.printed)
            recorder.printed.clear()
        if frame.pending:
            recorder._attach([(step, change) for change in frame.pending])
            frame.pending = []
        passed = passed_lines(frame.code, previous, lineno)
        for line, name in self._untracked(frame):
            if passed(line) and name in frame.known:
                del frame.known[name]
                recorder._attach([(step, (name, UNBOUND))])
        seen = (frame.code.co_filename, lineno)
        if seen not in recorder.graph_lines:
            recorder.graph_lines.add(seen)
            for loop in recorder.active:
                loop.interesting = True
        recorder.buffer.append(step)
        frame.last = self.latest = step
        recorder._held(1)
        return step

    def _untracked(self, frame: GraphFrame) -> list[tuple[int, str]]:
        """The assignments of ``frame``'s function that no operation of its call
        carries (a value known while tracing, ``a, b = b, a``, an operation another
        call shares): stepping past one, the name is shown unbound, not with a value it
        no longer holds."""
        key = (frame.code, frame.chain)
        found = self.untracked.get(key)
        if found is None:
            filename = frame.code.co_filename
            found = self.untracked[key] = [
                (line, name)
                for line, name in source_facts(frame.code).binds
                if (frame.chain, filename, line, name) not in self.carried
                and (None, filename, line, name) not in self.carried
            ]
        return found

    def _bind(self, depth: int, name: str, value: Any) -> None:
        """``name`` holds ``value`` in the frame at ``depth``, from its next step on."""
        if depth >= len(self.frames):
            return
        frame = self.frames[depth]
        if isinstance(value, runtime.ConsList):
            value = value.to_list()
        if not is_shown(name, value) or type(value) is tuple:
            return  # (a tuple holds a Python list's or tuple's items: it is not shown)
        mark = None if is_immutable(value) else fingerprint(value)
        old = frame.known.get(name)
        if old is not None and old[1] == mark and (old[0] is value or _same(old[0], value)):
            return  # (a loop passing a variable on unchanged)
        frame.known[name] = (value, mark)
        frame.pending.append((name, value if mark is None else summarize(value)))

    def _return(self, frame: GraphFrame, env: dict[Node, Any], value: Any = _MISSING) -> None:
        """The call of ``frame`` returns: ``value``, or what it noted it returns."""
        if value is _MISSING:
            value = frame.returns
            if isinstance(value, Node):
                value = env.get(value, _MISSING)
        if value is not _MISSING:
            frame.pending.append((RETURN_NAME, value if is_immutable(value) else summarize(value)))
            site = frame.site
            name = site and self.results.get((site.filename, site.lineno, site.col, site.end_col))
            if name:  # (y = helper(x): y holds what it returned)
                self._bind(len(self.frames) - 1, name, value)
        self._step(frame, return_line(frame.code, frame.line), RETURN)
        frame.alive = False
        frame.known.clear()

    # ------------------------------------------------------------------ the call's end

    def returned(self, value: Any) -> None:
        """The graph returned ``value``: every call in it returns."""
        with self._safely:
            while len(self.frames) > 1:
                self._return(self.frames.pop(), self.env)
            self._return(self.frames[0], self.env, value)

    def failed(self, exc: BaseException) -> None:
        """The run raised ``exc`` at the newest step: that step shows it, and the
        recording ends there unless the caller handles it."""
        for frame in self.frames:
            frame.alive = False
        step = self.latest
        if step is not None:
            step[RAISED] = step[RAISED] or describe(exc)
            self.recorder.raised, self.recorder.raised_at = exc, step


def _same(a: Any, b: Any) -> bool:
    """Whether two immutable values show alike (eager recordings' test, too)."""
    return is_immutable(a) and type(a) is type(b) and same_value(a, b)


def record_call(recorder: Recorder, fn: GraphFunction, args: tuple, kwargs: dict) -> Any:
    """Call ``fn`` as the recording's step by step run of its graph (see the module
    docstring); returns what it returns, raises what it raises."""
    with recording_calls(None):  # (what runs inside runs as usual, helpers as graphs)
        if recorder.stopped:
            return fn(*args, **kwargs)
        bound = fn.bind(args, kwargs)
        parent = recorder.calling_state(sys._getframe(1))
        previous = sys.gettrace()
        sys.settrace(None)  # (tracing and the interpreter run no line of the user's)
        try:
            top = GraphFrame(fn.python_function.__code__, parent)
            signature = fn.signature.bind(*args, **kwargs)
            signature.apply_defaults()
            try:
                entry = fn.specialize(bound)
            except Exception as exc:  # (refused, or raised while tracing: at its line)
                _failed_before_running(recorder, top, signature.arguments, exc)
                raise
            leaves = flatten((bound.args, bound.kwargs))[0]
            stepper = StepInterpreter(recorder, entry.graph, top)
            with stepper._safely:
                for name, value in signature.arguments.items():
                    stepper._bind(0, name, value)
            note = (
                f"{fn.__name__} ran as its graph on the interpret backend: its steps "
                "show the graph's values (nbgraph.config.run_eagerly records its "
                "Python code instead)"
            )
            if note not in recorder.notes:
                recorder.notes.append(note)
            try:
                result = entry(leaves, (bound.args, bound.kwargs), stepper.run)
            except BaseException as exc:
                stepper.failed(exc)
                raise
            stepper.returned(result)
            return result
        finally:
            if not recorder.stopped:
                sys.settrace(previous)


def _failed_before_running(
    recorder: Recorder, top: GraphFrame, arguments: dict[str, Any], exc: BaseException
) -> None:
    """The graph could not be made (``exc``): one step, at the line of the function
    that raised, showing the arguments."""
    filename = top.code.co_filename
    line, tb = 0, exc.__traceback__
    while tb is not None:  # (the innermost line in the function's file)
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    if not line or recorder.stopped:
        return
    changes = [
        (name, value if is_immutable(value) else summarize(value))
        for name, value in arguments.items()
        if is_shown(name, value)
    ]
    step = [top, line, ERROR, changes or None, None, describe(exc), None]
    recorder.buffer.append(step)
    recorder._held(1)
    recorder.raised, recorder.raised_at = exc, step
