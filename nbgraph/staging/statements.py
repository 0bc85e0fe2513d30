"""Statements with effects or Python-only meaning, staged: print, assert, raise,
f-strings, list.append and item assignment.
"""

from __future__ import annotations

import contextlib
import operator
import string
import sys
import traceback
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..config import stop_in
from ..errors.exceptions import GraphModeError, StagingError, UndefinedValueError
from ..graph import runtime
from ..graph.ir import Op
from ..graph.passes.dce import may_raise
from ..graph.pytree import is_dataclass_instance
from ..graph.template import Text
from ..source.locations import Loc
from ..source.origins import (
    is_converted,
    is_passing_call,
    location_in,
    register_passing_call,
    user_location,
)
from ..source.user_code import is_own_code
from .aliases import concrete_names
from .flavors import types_of
from .traced import Traced, call, effect, is_graph_value, lift
from .tracing import (
    changed_argument,
    current,
    given_argument,
    in_try_here,
    is_staged,
    is_tracing,
    leaving,
    located,
    raise_leaves_exiting_finally,
    stages_raise,
)


def _has_graph_value(value: Any) -> bool:
    if is_graph_value(value) or isinstance(value, Text):
        return True
    if type(value) in (tuple, list):
        return any(_has_graph_value(v) for v in value)
    if type(value) is slice:
        return any(_has_graph_value(v) for v in (value.start, value.stop, value.step))
    return False


# Whether the step recorder (a layer above) runs and took this call as the step its
# stepper opens at; registered from there.
_recording_stops: list[Callable[[], bool]] = []


def register_recording_stop(stop: Callable[[], bool]) -> None:
    _recording_stops.append(stop)


def stop_here() -> None:
    """``nbgraph.breakpoint()``: stop here with the values of this run.

    In a graph function, a graph run that reaches it runs the call again as Python,
    recorded line by line, and shows the recording's stepper opened at this line (the
    call then returns what the Python run returned). Run as Python otherwise (``.eager``,
    ``%autograph off``), it is ``breakpoint()``: a pdb prompt, or the stepper's stop
    when recording (``%%step``, ``nbgraph.step``).
    """
    if is_tracing():
        effect(runtime.breakpoint_effect)
    elif not any(stop() for stop in _recording_stops):
        stop_in(sys._getframe(1))


def print_stmt(
    *values: Any, sep: Any = " ", end: Any = "\n", file: Any = None, flush: bool = False
) -> None:
    """print(...): a graph effect, so it prints on every run, in program order."""
    if file is not None and file is not sys.stdout:
        raise StagingError("print(file=...) is not supported in graph mode", user_location())
    alts = [types_of(v) for v in values]
    if any(alts):  # numbers whose Python type depends on the run: print eager's
        types = tuple(tuple(t for _, t in a) for a in alts)
        flags = [when for a in alts for when, _ in a]
        effect(runtime.print_effect, *values, *flags, sep=sep, end=end, types=types)
        return
    effect(runtime.print_effect, *values, sep=sep, end=end)


def assert_stmt(cond: Any, message: Callable[[], Any] | None = None) -> None:
    """assert cond, message()."""
    if not is_graph_value(cond):
        if cond:
            return
        if not is_staged() and not something_happened():
            raise AssertionError(*((message(),) if message else ()))
        cond = lift(False)  # fails when the graph runs, after the effects before it
    args = (message(),) if message else ()
    effect(runtime.assert_effect, cond, *args)


def something_happened() -> bool:
    """Whether the graph does something observable before this point (a print, an
    operation that may raise): an error that always happens must then come after it,
    when the graph runs, not while tracing."""
    builder = current()
    return builder.token.op is not Op.CONST or any(map(may_raise, builder.region.nodes))


@dataclass(frozen=True)
class DeferredException:
    """An exception class called with graph values (``ValueError(f"bad {x}")``,
    ``Limit(x.max())``): the exception is made when the graph runs, when its
    ``__init__`` can see the values."""

    type: type
    args: tuple


def raise_stmt(exc: Any, leaves: str | None = None) -> None:
    """raise exc: a graph effect in a staged branch, or after effects (a print) that must
    come first; otherwise at trace time (the graph could only ever raise it).  ``leaves``:
    the outermost try statement with a finally clause it leaves, whose finally clauses
    were traced before it if ``stages_raise(leaves)``."""
    if isinstance(exc, type):
        exc = exc()
    deferred = isinstance(exc, DeferredException)
    if leaves is not None and raise_leaves_exiting_finally(leaves):
        raise StagingError(
            "this raise leaves a try statement whose finally clause may return, break or "
            "continue, which would drop the exception; graph mode cannot drop an "
            "exception. Move that return, break or continue out of the finally clause "
            "(after the try statement), or call the function's .eager(...)",
            user_location(),
        )
    staged_past_finally = leaves is not None and stages_raise(leaves)
    if not deferred and in_try_here() and not staged_past_finally:
        # the try's except or finally clauses see it (and, uncaught, it is staged where
        # it is: see user_error_location)
        raise exc
    if not is_staged() and not something_happened():
        if deferred:
            raise StagingError(
                f"this raise always happens, with a {exc.type.__name__} made from values "
                "only known when the graph runs; raise it under a condition on them "
                "(if ...: raise ...) or outside the graph function",
                user_location(),
            )
        raise exc
    if not deferred and not isinstance(exc, BaseException):
        raise TypeError("exceptions must derive from BaseException")
    with leaving(leaves) if staged_past_finally else contextlib.nullcontext():
        if deferred:
            effect(runtime.raise_effect, exc.type, *exc.args)
        else:
            effect(runtime.raise_effect, exc)
    current().diverged = True


def fstring(*parts: Any) -> Any:
    """An f-string: a str, or a Text formatted at run time when it holds graph values."""
    if not any(not isinstance(p, str) and _has_graph_value(p[0]) for p in parts):
        return Text(parts).render()
    return Text(parts)


def percent_format(template: str, values: Any) -> Any:
    """template % values, staged like an f-string when values hold graph values."""
    if not _has_graph_value(values if type(values) is tuple else (values,)):
        return template % values
    return Text(((values, "%", template),))


def format_text(template: str, *args: Any, **kwargs: Any) -> Any:
    """template.format(*args, **kwargs), staged like an f-string."""
    if not (_has_graph_value(args) or _has_graph_value(list(kwargs.values()))):
        return template.format(*args, **kwargs)
    parts: list[Any] = []
    auto = 0
    for literal, field, spec, conversion in string.Formatter().parse(template):
        if literal:
            parts.append(literal)
        if field is None:
            continue
        if field == "":
            value, auto = args[auto], auto + 1
        elif field.isdigit():
            value = args[int(field)]
        elif field.isidentifier():
            value = kwargs[field]
        else:
            raise StagingError(
                f"format field {{{field}}} is not supported in graph mode", user_location()
            )
        parts.append((value, conversion, spec or ""))
    return Text(tuple(parts))


def to_str(value: Any) -> Any:
    """str(value)."""
    if is_graph_value(value):
        return Text(((value, None, ""),))
    return str(value)


def to_repr(value: Any) -> Any:
    """repr(value): of a graph value, eager's repr when the graph runs."""
    if is_graph_value(value):
        return Text(((value, "r", ""),))
    return repr(value)


def to_format(value: Any, spec: str = "") -> Any:
    """format(value, spec)."""
    if is_graph_value(value):
        return Text(((value, None, spec),))
    return format(value, spec)


def list_append(target: Any, item: Any) -> Any:
    """target.append(item), returning target (converted code rebinds the name)."""
    _check_not_argument(target)
    target.append(item)
    return target


def _check_not_argument(container: Any) -> None:
    """Refuse changing a list, dict or set the graph function was given, at this line."""
    where = given_argument(container)
    if where is not None:
        loc = user_location()
        raise StagingError(
            changed_argument(loc.function if loc else "the function", where, container), loc
        )


def setitem(target: Any, index: Any, value: Any) -> Any:
    """target[index] = value, returning target (converted code rebinds the name).

    A concrete array updated with a graph value (or at a graph index) becomes a graph
    value, updated functionally.
    """
    _check_not_argument(target)
    if isinstance(target, Traced) or not (is_graph_value(value) or _has_graph_value(index)):
        _check_shared_constant(target)
        target[index] = value
        return target
    if hasattr(target, "__array__") and not isinstance(target, (list, dict)):
        _check_shared_constant(target, graph_write=True)
        return call(runtime.setitem, lift(target), index, value)
    target[index] = value
    return target


def _check_shared_constant(target: Any, graph_write: bool = False) -> None:
    """Refuse a write into an array made from constants while tracing that several
    variables name, where it cannot reach all of them: a write of graph values
    (``graph_write``) makes a new graph array for the one name, and a write of numbers
    inside a graph if or loop would happen while tracing (once per trace, not on each
    run of the branch or iteration)."""
    names = concrete_names(target) if graph_write or is_staged() else []
    if len(names) > 1:
        listed = ", ".join(f"'{n}'" for n in names)
        why = (
            "a write of values known only when the graph runs gives one name a new graph "
            "array, and the others would not see it"
            if graph_write
            else "inside a graph if or loop graph mode would make the write once while "
            "tracing, not on each run of the branch or iteration"
        )
        raise StagingError(
            f"this writes into an array made from constants while tracing that several "
            f"variables name ({listed}): {why}. Make the array from the function's "
            "arguments (np.zeros_like(x)), copy it where it is made (.copy()), or call "
            "the function's .eager(...) to run it as plain Python",
            user_location(),
        )


def augmented(target: Any, operation: str, value: Any) -> Any:
    """``target op= value`` on a variable (``operation``: the in-place operator's name in
    ``operator``), as Python does it, after ``_check_shared_constant``."""
    graph_write = isinstance(target, np.ndarray) and _has_graph_value(value)
    _check_shared_constant(target, graph_write)
    if graph_write:  # an array made while tracing, updated with graph values: one now
        target = lift(target)
    return getattr(operator, operation)(target, value)


def getitem(target: Any, index: Any) -> Any:
    """target[index]: an array made while tracing, read at an index known only when the
    graph runs (``coeffs[i]`` in a graph loop), is read as a graph constant."""
    if isinstance(target, np.ndarray) and _has_graph_value(index):
        return lift(target)[index]
    if (target is np.mgrid or target is np.ogrid) and _has_graph_value(index):
        return _grid(target is np.ogrid, index)
    return target[index]


def _grid(sparse: bool, index: Any) -> Any:
    """np.mgrid[a:b, c:d] / np.ogrid[...] with graph bounds, from np.arange as NumPy
    makes it (NumPy's own would convert the bounds to numbers)."""
    items = index if type(index) is tuple else (index,)
    if not all(type(item) is slice for item in items) or any(
        isinstance(v, complex) for item in items for v in (item.start, item.stop, item.step)
    ):
        raise StagingError(
            "np.mgrid/np.ogrid with bounds known only when the graph runs take slices "
            "with real steps (a:b or a:b:step); call the function's .eager(...) to run "
            "it as plain Python",
            user_location(),
        )
    ranges = [
        call(np.arange, 0 if s.start is None else s.start, s.stop, 1 if s.step is None else s.step)
        for s in items
    ]
    if type(index) is not tuple:
        return ranges[0]
    if any(r.dtype.kind == "f" for r in ranges):
        ranges = [r.astype(np.float64) for r in ranges]
    if sparse:  # each range along its own axis
        last = len(ranges) - 1
        return tuple(r.reshape((1,) * k + (-1,) + (1,) * (last - k)) for k, r in enumerate(ranges))
    grid = np.stack(np.meshgrid(*ranges, indexing="ij"))
    grid.leading = len(ranges)
    return grid


def augmented_item(target: Any, index: Any, operation: str, value: Callable[[], Any]) -> Any:
    """``target[index] op= value()`` (``operation``: the in-place operator's name in
    ``operator``, as ``"iadd"``), returning target (converted code rebinds the name).

    Python applies the item's own in-place operator, then stores the result: an array
    held in a list or dict is changed in place (``y = [b]; y[0] += 1`` changes ``b``), so
    it goes through the graph value's in-place operator, as ``t = b; t += 1`` does.  An
    array's item is updated functionally, as before (``a[i] = a[i] + v``)."""
    item = getitem(target, index)
    if type(target) in (list, dict):
        return setitem(target, index, getattr(operator, operation)(item, value()))
    return setitem(target, index, getattr(operator, _BINARY[operation])(item, value()))


# The binary operator of each in-place one (by their names in ``operator``).
_BINARY = {
    **{f"i{name}": name for name in ("add", "sub", "mul", "truediv", "floordiv", "mod")},
    **{f"i{name}": name for name in ("pow", "matmul", "xor", "lshift", "rshift")},
    "iand": "and_",
    "ior": "or_",
}


# They do the user's item assignment, append or raise on Python values as Python does:
# an error raised in their own frame is the user's statement's (user_error_location).
for _passing in (getitem, setitem, augmented, augmented_item, list_append, raise_stmt):
    register_passing_call(_passing.__code__)


def contains(container: Any, item: Any) -> Any:
    """``item in container``: staged when either side is a graph value."""
    if is_graph_value(container):
        return call(operator.contains, container, item)
    if is_graph_value(item) and type(container) in (tuple, list, set, frozenset, range):
        result: Any = False
        for candidate in container:
            match = item == candidate
            result = match if result is False else call(operator.or_, result, match)
        return result
    return item in container


def set_attribute(obj: Any, attr: str, value: Any) -> None:
    """obj.attr = value.  In a staged branch or loop only on a dataclass instance, which
    each path changes a copy of; any other object would be changed on every path."""
    if is_staged() and not is_dataclass_instance(obj):
        raise StagingError(
            f"setting the attribute '{attr}' of a {type(obj).__name__} inside a graph if or "
            "loop: graph mode traces every path, so the change would happen on paths that "
            "do not run it, and only once, while tracing. Keep the value in a local "
            "variable (or a dataclass), or call the function's .eager(...) to run it as "
            "plain Python",
            user_location(),
        )
    if isinstance(obj, Traced):
        raise StagingError(
            f"x.{attr} = ... changes a graph array in place, which graph mode does not "
            f"do; make a new array (x = x.reshape(...) for the shape, x = x.astype(...) "
            "for the dtype), or call the function's .eager(...) to run it as plain Python",
            user_location(),
        )
    setattr(obj, attr, value)


def outer_write(name: str, kind: str, value: Any) -> None:
    """Check an assignment to a ``global`` or ``nonlocal`` name: a global is set while
    tracing only, never when the graph runs; a nonlocal only where it runs on every path."""
    if kind == "global":
        fix = f"return the new value instead and assign {name} outside"
    elif is_staged():
        fix = "assign it after the if or loop, from a local variable"
    else:
        return
    raise StagingError(
        f"assignment to the {kind} variable '{name}' in graph mode: graph mode runs the "
        "function's Python code once, while tracing (and every path of a graph if or loop), "
        f"so '{name}' would not change as it does when the function runs; {fix}, or call "
        "the function's .eager(...) to run it as plain Python",
        user_location(),
    )


def outer_mutation(name: str, container: Any) -> Any:
    """``container`` (the variable ``name`` from outside the function), about to be
    changed in place: refused inside a graph if or loop, where every path is traced,
    and anywhere for a global of the module, which would change once, while tracing,
    instead of on every call.  A module is not (``np.sort(x)``: a function of the
    module, named like a method)."""
    if isinstance(container, types.ModuleType):
        return container
    caller = sys._getframe(1)
    if name not in caller.f_locals and caller.f_globals.get(name) is container:
        raise StagingError(
            f"'{name}' is a global variable of the module changed in place: graph mode "
            "runs the function's Python code once, while tracing, so it would change on "
            "the first call only. Return the new value and change it outside the "
            "function, or call the function's .eager(...) to run it as plain Python",
            user_location(),
        )
    if is_staged():
        raise StagingError(
            f"'{name}' is changed in place inside a graph if or loop, but it is not a local "
            "variable of the function: graph mode traces every path once, so the change "
            "would happen on paths that do not run it. Copy it into a local variable first "
            f"(e.g. {name}_local = list({name})), or call the function's .eager(...) to run "
            "it as plain Python",
            user_location(),
        )
    return container


# Errors of the user's own Python code that a branch not taken must not raise: raised
# while tracing a graph if's branch, they are raised when (if) that branch runs instead.
_DEFERRED_ERRORS = (
    LookupError,
    ArithmeticError,
    NameError,
    AttributeError,
    ValueError,
    AssertionError,
)


def user_error_location(exc: Exception) -> Loc | None:
    """Where the user's own code raised ``exc`` while tracing, if it is an error eager
    code raises at that point: raised by the user's code or by a library it called
    (not one of nbgraph's refusals and limitations, which are raised now)."""
    frames = [frame for frame, _ in traceback.walk_tb(exc.__traceback__)]
    raised = bool(frames) and frames[-1].f_code is raise_stmt.__code__  # the user's raise
    if not raised and (
        not isinstance(exc, _DEFERRED_ERRORS)
        or not getattr(exc, "deferrable", True)
        or (isinstance(exc, GraphModeError) and not isinstance(exc, UndefinedValueError))
    ):
        return None
    # The innermost frame of the user's code, below which only a library (NumPy, or a
    # built-in through converted_call) ran: its error, on values known while tracing.
    for frame in reversed(frames):
        code = frame.f_code
        if is_converted(code):
            return location_in(frame)  # (with the user's functions that called it)
        if is_own_code(code) and not is_passing_call(code):
            break  # nbgraph's own: a refusal or a limitation
    return exc.loc if isinstance(exc, UndefinedValueError) else None


def raise_when_run(exc: Exception) -> bool:
    """Stage ``exc``, raised while tracing, to be raised when the graph reaches that
    point (as eagerly: only on the path that reaches it, after what happens before);
    False if it is not an error of the user's code (see ``user_error_location``)."""
    loc = user_error_location(exc)
    if loc is None:
        return False
    with located(loc):
        effect(runtime.raise_effect, exc)
    current().diverged = True
    return True
