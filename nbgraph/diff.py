"""``nbgraph.diff(f, *args)``: the first line where graph mode and eager code part.

The function runs eagerly under a line tracer that keeps, after each assignment to a
name (``acc += v``, ``y = np.sum(x * x)``), the value that name got; and its graph runs
on the interpret backend, which hands over every value it computes: the last operation
of each line, per run of the loop body or branch holding it, is what that line
assigned. The two sequences of each line are compared in order (the k-th run of the
line eagerly against its k-th run in the graph), and the earliest run, in eager order,
whose values differ beyond the tolerance (in ULPs of the eager value, or relative) or
whose dtype or shape differ is reported: the line, its run (so the loop iteration),
both values and the graph node. Finally the results of the function's own backend are
compared with eager's: a difference that only that backend makes (summation order, a
fused multiply-add) is reported at the results, with the per-line agreement as context.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import linecache
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .api import GraphFunction, function
from .backend.interpret import RecordingInterpreter
from .config import eagerly
from .graph import runtime
from .graph.ir import Node, Op
from .graph.pytree import flatten
from .graph.types import TensorType
from .graph.variables import assigned_name

# Calls that pass a value on (retyped or packed), not what a line computes.
_PASSING = frozenset({runtime.retype, runtime.make_tuple})


@dataclass
class Divergence:
    """Where graph mode first gave another value than eager code."""

    line: int  # in the user's file (0: at the results)
    source: str  # that line's text (or "results")
    run: int  # which run of the line, from 1 (the loop iteration, for a loop body)
    variable: str  # the name assigned (or "result k")
    eager: Any
    graph: Any
    reason: str  # what differs: "values", "dtypes", "shapes"; "error": graph mode raised
    node: str = ""  # the graph node that computed it
    backend: str = "interpret"  # the backend that gave ``graph``

    def __str__(self) -> str:
        if self.reason == "error":  # (``graph`` is the exception)
            return (
                f"graph mode ({self.backend}) raised {type(self.graph).__name__} where eager "
                f"code returned:\n  {self.graph}"
            )
        where = f"line {self.line} (run {self.run})" if self.line else "the results"
        text = [
            f"first difference at {where}: {self.source.strip()}",
            f"  {self.variable}: {self.reason} differ",
            f"    eager:              {_show(self.eager)}",
            f"    graph ({self.backend}): {_show(self.graph)}",
        ]
        at = _worst(self.eager, self.graph) if self.reason == "values" else None
        if at is not None:
            text.append(
                f"  most at index {at}: eager {np.asarray(self.eager)[at]!r}, "
                f"graph {np.asarray(self.graph)[at]!r}"
            )
        if self.node:
            text.append(f"  graph node: {self.node}")
        return "\n".join(text)


@dataclass
class DiffReport:
    """``diff``'s answer: the first divergence, or how closely everything agreed."""

    name: str
    backend: str
    compared: int  # line runs compared
    largest_ulps: float  # the largest difference seen where values agree
    first: Divergence | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def agree(self) -> bool:
        return self.first is None

    def __repr__(self) -> str:
        head = f"{self.name}: graph mode ({self.backend})"
        if self.first is None:
            lines = [
                f"{head} agrees with eager code: {self.compared} line runs compared, "
                f"largest difference {self.largest_ulps:g} ULPs"
            ]
        else:
            lines = [f"{head} differs from eager code", str(self.first)]
        return "\n".join(lines + self.notes)

    def _repr_markdown_(self) -> str:
        return "```\n" + repr(self) + "\n```"


def diff(
    fn: Callable,
    *args: Any,
    ulps: float = 4.0,
    rtol: float = 0.0,
    **kwargs: Any,
) -> DiffReport:
    """Run ``fn(*args, **kwargs)`` eagerly and in graph mode and report the first line
    (and loop iteration) where a value differs by more than ``ulps`` units in the last
    place of the eager value and more than ``rtol`` relative to it; or, when nothing
    does, the largest difference seen. The arguments are copied for each run.

    ``fn`` is a graph function (its backend is checked at the results) or a plain one
    (run on the CPU backend).
    """
    graph_fn = fn if isinstance(fn, GraphFunction) else function(fn)
    python = graph_fn.python_function
    close = _Closeness(ulps, rtol)
    assigned = _assignments(python)
    eager_runs, eager_result, eager_error = _run_eagerly(graph_fn, args, kwargs, assigned)
    graph_runs = _run_graph(graph_fn, args, kwargs, python)
    report = DiffReport(graph_fn.__name__, graph_fn.backend, 0, 0.0)
    for line, run, name, value in eager_runs:
        values = graph_runs.get(line, [])
        if run > len(values):
            continue  # (the graph computed it elsewhere, or folded it away)
        node, graph_value = values[run - 1]
        report.compared += 1
        reason = close.differs(value, graph_value, node)
        if reason is not None:
            report.first = Divergence(
                line, _line_text(python, line), run, name, value, graph_value, reason, node.label()
            )
            return report
    if eager_error is not None:
        report.notes.append(f"(eager code raised {type(eager_error).__name__}: {eager_error})")
        return report
    _compare_results(report, graph_fn, args, kwargs, eager_result, close)
    report.largest_ulps = close.largest
    return report


class _Closeness:
    """The tolerance, and the largest difference seen within it."""

    def __init__(self, ulps: float, rtol: float) -> None:
        self.ulps, self.rtol = ulps, rtol
        self.largest = 0.0

    def differs(self, eager: Any, graph: Any, node: Node | None = None) -> str | None:
        """What differs between the two values ("dtypes", "shapes", "values"), or None."""
        if _is_int(eager) and _is_int(graph):  # (a Python int may be beyond int64)
            return None if int(eager) == int(graph) else "values"
        a, b = np.asarray(eager), np.asarray(graph)
        if a.dtype.kind not in "biufc" or b.dtype.kind not in "biufc":
            return None  # (only numbers and arrays of them are compared)
        numpy_value = isinstance(eager, (np.ndarray, np.generic))  # (not a Python number)
        if numpy_value and a.dtype != _dtype_of(graph, node):
            return "dtypes"
        if a.shape != b.shape:
            return "shapes"
        if a.dtype.kind not in "fc":
            return None if np.array_equal(a, b) else "values"
        same_nan = np.isnan(a) == np.isnan(b)
        if not np.all(same_nan):
            return "values"
        finite = np.isfinite(a) & np.isfinite(b)
        if not np.array_equal(a[~finite & ~np.isnan(a)], b[~finite & ~np.isnan(a)]):
            return "values"
        if not finite.any():
            return None
        x, y = a[finite], b[finite]
        error = np.abs(x - y).astype(np.float64)
        spacing = np.spacing(np.abs(x).astype(a.real.dtype)).real.astype(np.float64)
        in_ulps = float(np.max(error / spacing))
        relative = float(np.max(error / np.maximum(np.abs(x), np.finfo(np.float64).tiny)))
        if in_ulps > self.ulps and relative > self.rtol:
            return "values"
        self.largest = max(self.largest, in_ulps)
        return None


def _worst(eager: Any, graph: Any) -> tuple[int, ...] | None:
    """The index of the array element that differs most (None for a number)."""
    a, b = np.asarray(eager), np.asarray(graph)
    if a.ndim == 0 or a.shape != b.shape or a.dtype.kind not in "biufc":
        return None
    error = np.abs(a.astype(np.complex128) - b.astype(np.complex128))
    error[np.isnan(a) != np.isnan(b)] = np.inf
    error[np.isnan(error)] = 0.0
    return tuple(int(k) for k in np.unravel_index(int(np.argmax(error)), a.shape))


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _dtype_of(value: Any, node: Node | None = None) -> np.dtype:
    """A value's dtype as NumPy computes with it (a Python float is float64)."""
    if node is not None and isinstance(node.type, TensorType):
        return node.type.dtype
    return np.asarray(value).dtype


def _show(value: Any) -> str:
    text = np.array2string(np.asarray(value), threshold=8, edgeitems=3, precision=17)
    kind = type(value).__name__
    if isinstance(value, np.ndarray):
        kind = f"{value.dtype} array of shape {value.shape}"
    elif isinstance(value, np.generic):
        kind = f"np.{value.dtype.name}"
    return f"{text} ({kind})"


def _assignments(fn: Callable) -> dict[int, str]:
    """Line -> the one name a statement on that line assigns (``x = ...``,
    ``x += ...``), in the function's file's line numbers."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError):
        return {}
    named = ((first + k, assigned_name(line)) for k, line in enumerate(lines))
    return {line: name for line, name in named if name is not None}


def _line_text(fn: Callable, line: int) -> str:
    return linecache.getline(fn.__code__.co_filename, line) if line else "results"


def _run_eagerly(
    graph_fn: GraphFunction, args: tuple, kwargs: dict, assigned: dict[int, str]
) -> tuple[list[tuple], Any, BaseException | None]:
    """Each assignment's value in eager order, as (line, run, name, value), the result and the
    exception eager code raised (if any)."""
    code = graph_fn.python_function.__code__
    runs: list[tuple] = []
    count: dict[int, int] = {}
    pending: list[int | None] = [None]

    def finish(frame: types.FrameType) -> None:
        line = pending[0]
        if line is not None:
            name = assigned[line]
            if name in frame.f_locals:
                count[line] = count.get(line, 0) + 1
                runs.append((line, count[line], name, _kept(frame.f_locals[name])))
        pending[0] = None

    def local(frame: types.FrameType, event: str, arg: Any) -> Any:
        if event in ("line", "return"):
            finish(frame)
            if event == "line" and frame.f_lineno in assigned:
                pending[0] = frame.f_lineno
        return local

    def tracer(frame: types.FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code is code else None

    error = None
    result = None
    previous = sys.gettrace()
    sys.settrace(tracer)
    try:
        with eagerly():
            result = graph_fn.python_function(*copy.deepcopy(args), **copy.deepcopy(kwargs))
    except Exception as exc:
        error = exc
    finally:
        sys.settrace(previous)
    return runs, result, error


def _kept(value: Any) -> Any:
    return value.copy() if isinstance(value, np.ndarray) else value


def _run_graph(
    graph_fn: GraphFunction, args: tuple, kwargs: dict, python: Callable
) -> dict[int, list[tuple[Node, Any]]]:
    """Per line of the function: (node, value) of the last operation of the line in each
    run of the region holding it, in run order, from the interpret backend."""
    bound = graph_fn.bind(*copy.deepcopy((args, kwargs)))
    graph = graph_fn.specialize(bound).graph
    leaves = flatten((bound.args, bound.kwargs))[0]
    filename = python.__code__.co_filename
    runs: dict[int, list[tuple[Node, Any]]] = {}
    open_runs: list[dict[int, tuple[Node, Any]]] = [{}]

    bodies = {id(n.arg[1]) for n in graph.find(Op.WHILE)}

    class Interpreter(RecordingInterpreter):
        def _region(self, region: Any, values: Any, env: dict) -> list[Any]:
            if id(region) not in bodies:  # (a branch runs within its region's run)
                return super()._region(region, values, env)
            open_runs.append({})
            try:
                return super()._region(region, values, env)
            finally:
                _close(open_runs.pop())

    def _close(run: dict[int, tuple[Node, Any]]) -> None:
        for line, last in run.items():
            runs.setdefault(line, []).append(last)

    def record(node: Node, value: Any) -> None:
        loc = node.loc
        if (
            node.op in (Op.CALL, Op.PROJ)
            and loc is not None
            and loc.caller is None
            and loc.filename == filename
            and not loc.gradient
            and isinstance(node.type, TensorType)
            and (node.op is Op.PROJ or node.arg.fn not in _PASSING)
        ):
            open_runs[-1][loc.lineno] = (node, value)

    with contextlib.suppress(Exception):  # (what ran before an error is compared)
        Interpreter(graph, record).run(leaves)
    _close(open_runs[0])
    return runs


def _compare_results(
    report: DiffReport,
    graph_fn: GraphFunction,
    args: tuple,
    kwargs: dict,
    eager_result: Any,
    close: _Closeness,
) -> None:
    """The function's own backend against eager, at the results."""
    try:
        graph_result = graph_fn(*copy.deepcopy(args), **copy.deepcopy(kwargs))
    except Exception as exc:  # (eager code returned)
        report.first = Divergence(
            0, "results", 1, "result", eager_result, exc, "error", backend=graph_fn.backend
        )
        return
    eager_leaves, graph_leaves = flatten(eager_result)[0], flatten(graph_result)[0]
    for k, (a, b) in enumerate(zip(eager_leaves, graph_leaves)):
        reason = close.differs(a, b)
        if reason is not None:
            name = f"result {k + 1}" if len(eager_leaves) > 1 else "result"
            report.first = Divergence(0, "results", 1, name, a, b, reason, "", graph_fn.backend)
            report.notes.append(_where_from(graph_fn, args, kwargs, k, a, close, report.compared))
            return


def _where_from(
    graph_fn: GraphFunction,
    args: tuple,
    kwargs: dict,
    k: int,
    eager: Any,
    close: _Closeness,
    n: int,
) -> str:
    """Whether a difference in result ``k`` is the graph's own (the interpret backend
    gives it too) or the compiled backend's."""
    if graph_fn.backend != "interpret":
        reference = function(graph_fn.python_function, backend="interpret")
        try:
            results = flatten(reference(*copy.deepcopy(args), **copy.deepcopy(kwargs)))[0]
        except Exception:
            results = []
        if k < len(results) and close.differs(eager, results[k]) is None:
            return (
                f"(the interpret backend agrees, as do the {n} line runs compared: the "
                f"difference comes from the {graph_fn.backend} backend's compiled code; "
                "see the README's Known limitations)"
            )
    return (
        f"(the {n} line runs compared agree: the graph differs in a value no compared "
        "line assigns, such as a constant's type or a loop that never ran; see the "
        "README's Known limitations)"
    )
