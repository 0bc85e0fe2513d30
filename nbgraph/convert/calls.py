"""``converted_call``: what every call in converted code goes through.

User functions are converted (recursively, once each) and called; builtins and NumPy
functions that receive graph values are staged as graph calls; everything else is
called as is.  Recursion is reported instead of tracing forever.
"""

from __future__ import annotations

import abc
import builtins
import cmath
import collections
import contextlib
import inspect
import math
import random
import threading
import types
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..errors.exceptions import ConversionError, StagingError
from ..graph import runtime
from ..graph.functions import STAGEABLE_BUILTINS
from ..graph.template import Text
from ..graph.types import TensorType
from ..source.origins import is_converted, register_passing_call, user_location, user_module
from ..source.user_code import is_user_code
from ..staging import iteration, statements
from ..staging.control_flow import list_comp
from ..staging.flavors import after_extremum, types_of
from ..staging.traced import ARRAY_FUNCTIONS, Traced, TracedList, call, is_graph_value
from ..staging.tracing import note_call
from ..staging.undefined import Undefined, check_defined
from .conversion import convert
from .global_values import global_values

_LIST_CONSUMERS = {np.array, np.asarray, np.stack, np.vstack, np.hstack, np.concatenate}


class _CallStack(threading.local):
    def __init__(self) -> None:
        self.codes: list[types.CodeType] = []  # functions being traced, outermost first
        # Module-level functions the graph being traced called, with where they are bound.
        self.helpers: list[Binding] | None = None


class Binding:
    """A function called while tracing, found under ``name`` in its module's globals:
    the graph is out of date once that name is bound to something else."""

    __slots__ = ("function", "name", "namespace")

    def __init__(self, function: Any, namespace: dict[str, Any], name: str) -> None:
        self.function = function
        self.namespace = namespace
        self.name = name

    def changed(self) -> bool:
        return self.namespace.get(self.name) is not self.function


_stack = _CallStack()


def is_user_function(fn: Any) -> bool:
    """Whether fn is the user's own Python function (converted), not a library's."""
    return inspect.isfunction(fn) and is_user_code(fn.__code__)


def _graph_args(args: tuple, kwargs: dict) -> bool:
    def has(value: Any) -> bool:
        if is_graph_value(value) or isinstance(value, Text):
            return True
        if type(value) in (tuple, list):
            return any(has(v) for v in value)
        return False

    return any(has(a) for a in args) or any(has(v) for v in kwargs.values())


def _list_to_array(fn: Callable, lst: TracedList, *args: Any, **kwargs: Any) -> Any:
    if args:
        raise StagingError(
            f"{fn.__name__}(list, ...) with extra positional arguments", user_location()
        )
    elem = lst.type.elem
    empty, check = None, False
    if isinstance(elem, TensorType):  # (of the graph's type: eager's is put back on return)
        empty = np.zeros((0,) * (elem.ndim + 1), dtype=kwargs.get("dtype", elem.dtype))
        if fn in (np.array, np.asarray):  # eagerly float64 (or dtype) of shape (0,)
            eager = fn([], **kwargs)
            check = (eager.shape, eager.dtype) != (empty.shape, empty.dtype)
    return call(runtime.list_to_array, lst, fn, kwargs, empty, check)


def _stage_len(*args: Any) -> Any:
    """len(x): of a graph range or sequence, a graph list or array, staged; else Python's."""
    value = args[0] if len(args) == 1 else None
    if isinstance(value, iteration.GraphSequence):
        return value.length()
    if isinstance(value, TracedList):
        return call(runtime.list_len, value)
    if is_graph_value(value):
        return call(len, value)
    return len(*args)


def _extremum(fn: Callable) -> Callable:
    """max/min of graph numbers: the promoted type whichever value wins."""

    def stage(*args: Any, **kwargs: Any) -> Any:
        if len(args) == 1 and isinstance(args[0], TracedList) and not kwargs:
            return _list_extremum(fn, args[0])
        numbers = all(
            (is_graph_value(a) and a.type.ndim == 0) or isinstance(a, (int, float, np.number))
            for a in args
        )
        if len(args) > 1 and numbers and not kwargs:
            return after_extremum(fn, args, call(runtime.extremum, fn, *args))
        return call(fn, *args, **kwargs)

    return stage


def _list_extremum(fn: Callable, lst: TracedList) -> Any:
    """max/min of a graph list: of numbers only (of arrays, eager's comparisons of two
    items raise for their ambiguous truth value)."""
    elem = lst.type.elem
    if not (isinstance(elem, TensorType) and elem.ndim == 0):
        what = "never appended to" if elem is None else f"of {elem.describe()} items"
        raise StagingError(
            f"{fn.__name__}() of a graph list {what}: graph mode takes the {fn.__name__} of "
            "a list of numbers only; call the function's .eager(...) to run it as plain "
            "Python",
            user_location(),
        )
    return call(runtime.list_extremum, fn, lst)


def _isinstance(value: Any, classes: Any) -> bool:
    """isinstance of a graph value: of an example of its type (a container holding graph
    values is tested as it is)."""
    return isinstance(value.type.example() if is_graph_value(value) else value, classes)


def _type_of(*args: Any) -> Any:
    """type(x) of a graph value: the Python type eager code's value has (a Python int,
    np.float64, np.ndarray); refused where that type depends on the run."""
    if len(args) != 1 or not is_graph_value(args[0]):
        return type(*args)
    value = args[0]
    if not isinstance(value.type, TensorType):
        return list if isinstance(value, TracedList) else type(value)
    if types_of(value):
        raise StagingError(
            "type() of a number whose Python type depends on the run (a Python number or "
            "a NumPy scalar, by the path taken): give it one type on every path, or call "
            "the function's .eager(...) to run it as plain Python",
            user_location(),
        )
    return type(value.type.example())


def _make_list(*args: Any) -> Any:
    """list(x): a graph list built by a graph loop when x is a graph range/sequence."""
    if len(args) == 1 and isinstance(args[0], iteration.GraphSequence):
        return list_comp(args[0], lambda item: item)
    return list(*args)


def _refuse_breakpoint(*args: Any, **kwargs: Any) -> None:
    raise StagingError(
        "breakpoint() cannot stop a graph: graph mode runs the function's Python code "
        "once, to trace it, with symbolic values. nbgraph.breakpoint() stops a graph run "
        "there and shows it recorded as Python, in the stepper; for pdb, run the "
        "function as Python: %autograph off (nbgraph.config.run_eagerly = True) or "
        "f.eager(...)"
    )


def _namedtuple(typename: str, field_names: Any, **options: Any) -> type:
    """``collections.namedtuple`` made in converted code: its class belongs to the user's
    module, as eagerly (namedtuple takes the module from its caller's frame, which is
    nbgraph's here)."""
    options.setdefault("module", user_module())
    return collections.namedtuple(typename, field_names, **options)


_SPECIAL: dict[Any, Callable] = {
    builtins.len: _stage_len,
    collections.namedtuple: _namedtuple,
    builtins.breakpoint: _refuse_breakpoint,
    builtins.list: _make_list,
    builtins.print: statements.print_stmt,
    builtins.range: iteration.make_range,
    builtins.enumerate: iteration.make_enumerate,
    builtins.zip: iteration.make_zip,
}


def _any_or_all(fn: Callable, reduce: Callable) -> Callable:
    """any/all of a 1-d graph array: over the truth of its elements, a Python bool (of
    other values, as Python's: iterating a graph value is refused)."""

    def stage(*args: Any) -> Any:
        if len(args) == 1 and is_graph_value(args[0]) and args[0].type.ndim == 1:
            return call(bool, call(reduce, args[0]))
        return call(fn, *args)

    return stage


_SPECIAL_WITH_GRAPH: dict[Any, Callable] = {
    builtins.any: _any_or_all(builtins.any, np.any),
    builtins.all: _any_or_all(builtins.all, np.all),
    builtins.str: statements.to_str,
    builtins.repr: statements.to_repr,
    builtins.format: statements.to_format,
    builtins.isinstance: _isinstance,
    builtins.type: _type_of,
    builtins.max: _extremum(builtins.max),
    builtins.min: _extremum(builtins.min),
}


def converted_call(fn: Any, args: tuple, kwargs: dict) -> Any:
    """Call fn from converted code: convert user functions, stage graph-value calls."""
    if isinstance(fn, Undefined):
        raise fn.error()
    check_defined(args)
    check_defined(list(kwargs.values()))
    if _stack.helpers is not None:
        _record_helper(fn)
    fn = getattr(fn, "python_function", fn) if _is_graph_function(fn) else fn
    try:
        special = _SPECIAL.get(fn)
    except TypeError:  # unhashable callable
        special = None
    if special is not None:
        return special(*args, **kwargs)
    if is_user_function(fn) or (inspect.ismethod(fn) and is_user_function(fn.__func__)):
        return _call_user_function(fn, args, kwargs)
    if inspect.isfunction(fn) and is_converted(fn.__code__):
        with _entered(fn):  # a nested def or lambda of converted code
            return fn(*args, **kwargs)
    if _draws_random_numbers(fn):
        raise _random_draw_error(fn)
    if not _graph_args(args, kwargs):
        return fn(*args, **kwargs)
    return _stage(fn, args, kwargs)


register_passing_call(converted_call.__code__)


class StagedFunction(abc.ABC):
    """A wrapper whose calls from converted code trace its ``python_function`` inline
    (graph functions): subclasses are the public API's, above this layer."""

    python_function: Callable


def _is_graph_function(fn: Any) -> bool:
    return isinstance(fn, StagedFunction)


def _stage(fn: Any, args: tuple, kwargs: dict) -> Any:
    """A call whose arguments hold graph values."""
    special = _SPECIAL_WITH_GRAPH.get(fn) if _hashable(fn) else None
    if special is not None:
        return special(*args, **kwargs)
    if _hashable(fn) and fn in _LIST_CONSUMERS and args and isinstance(args[0], TracedList):
        return _list_to_array(fn, *args, **kwargs)
    self = getattr(fn, "__self__", None)
    if isinstance(self, str) and getattr(fn, "__name__", "") == "format":
        return statements.format_text(self, *args, **kwargs)
    if _hashable(fn) and fn in ARRAY_FUNCTIONS:
        return ARRAY_FUNCTIONS[fn](*args, **kwargs)
    if _is_stageable(fn):
        return call(fn, *args, **kwargs)
    if isinstance(fn, type) and issubclass(fn, BaseException) and not kwargs:
        return statements.DeferredException(fn, args)
    try:
        return fn(*args, **kwargs)
    except StagingError:
        if is_graph_value(getattr(fn, "__self__", None)):  # a graph array's method's own
            raise
        raise _unconverted_call_error(fn, (*args, *kwargs.values())) from None
    except TypeError:
        raise _unconverted_call_error(fn, (*args, *kwargs.values())) from None


def _unconverted_call_error(fn: Any, args: tuple) -> StagingError:
    """A call of code nbgraph neither converts nor stages failed on a graph value."""
    name = getattr(fn, "__qualname__", None) or type(fn).__name__
    value = next(a for a in args if _graph_args((a,), {}))
    what = (
        "a string formatted from graph values"
        if isinstance(value, Text)
        else f"a {value.type.describe()} graph value"
        if is_graph_value(value)
        else "a container holding graph values"
    )
    return StagingError(
        f"{name}() got {what}, which is only known when the graph runs; nbgraph "
        f"converts your own functions and stages NumPy and math calls, but {name} is "
        "neither, so it needs values known while tracing: call it outside the graph "
        "function, or pass its inputs as static arguments (static_argnames)",
        user_location(),
    )


def _hashable(fn: Any) -> bool:
    try:
        hash(fn)
    except TypeError:
        return False
    return True


def _is_stageable(fn: Any) -> bool:
    """Pure functions a graph may apply at run time: NumPy (not random), math, builtins."""
    if isinstance(fn, np.ufunc) or (_hashable(fn) and fn in STAGEABLE_BUILTINS):
        return True
    module = getattr(fn, "__module__", None) or ""
    if module.startswith("numpy.random"):
        raise _random_draw_error(fn)
    return module.startswith("numpy") or module in (math.__name__, cmath.__name__)


# What draws random numbers: NumPy's global functions (np.random.rand is a method of its
# global RandomState), a Generator's methods, Python's random module.
_RANDOM_SOURCES = (np.random.RandomState, np.random.Generator, random.Random)


def _draws_random_numbers(fn: Any) -> bool:
    return isinstance(getattr(fn, "__self__", None), _RANDOM_SOURCES)


def _random_draw_error(fn: Any) -> StagingError:
    """Eager code draws new numbers on every call; a graph would have drawn them once,
    while tracing, whatever its arguments (a different value from the second call on)."""
    module = {id(np.random.mtrand._rand): "np.random", id(random._inst): "random"}
    owner = module.get(id(getattr(fn, "__self__", None)))  # the global generators
    name = f"{owner}.{fn.__name__}" if owner else getattr(fn, "__qualname__", repr(fn))
    return StagingError(
        f"{name}() draws new random numbers on every call, but graph mode runs this "
        "line once, to trace it, so every run of the graph would get the same numbers: "
        "draw them outside the graph function and pass them in as an argument, or call "
        "the function's .eager(...) to run it as plain Python",
        user_location(),
    )


def _call_user_function(fn: Callable, args: tuple, kwargs: dict) -> Any:
    target = fn.__func__ if inspect.ismethod(fn) else fn
    if inspect.isgeneratorfunction(target):
        raise ConversionError(
            f"{target.__name__} is a generator function; graph mode cannot express "
            "generators (yield). Build a list or an array instead.",
            user_location(),
        )
    converted = convert(target)
    _record_globals(target)
    if inspect.ismethod(fn):
        args = (fn.__self__, *args)
    with _entered(target):
        result = converted(*args, **kwargs)
    _note_call(target, args, kwargs, result)
    return result


def _note_call(fn: Callable, args: tuple, kwargs: dict, result: Any) -> None:
    """Keep a helper call's arguments and result with the graph (``tracing.note_call``):
    what its frame shows when a recording steps through the graph's run."""
    bound = inspect.signature(fn).bind(*args, **kwargs)  # (the call went through)
    values = [*bound.arguments.items(), ("return", result)]
    note_call(
        [
            (name, value.node if isinstance(value, Traced) else value)
            for name, value in values
            if isinstance(value, Traced) or type(value) in _SHOWN_AS_THEY_ARE
        ]
    )


_SHOWN_AS_THEY_ARE = frozenset({int, float, complex, bool, str, type(None)})


@contextlib.contextmanager
def _entered(fn: Callable) -> Iterator[None]:
    """Mark fn as being traced; calling it again inside is recursion, reported plainly."""
    if fn.__code__ in _stack.codes:
        raise ConversionError(
            f"recursive call to {fn.__name__}: graph mode cannot express recursion. "
            "Rewrite it as a loop, or call it outside the graph function.",
            user_location(),
        )
    _stack.codes.append(fn.__code__)
    try:
        yield
    finally:
        _stack.codes.pop()


@contextlib.contextmanager
def traced_function(fn: Callable) -> Iterator[list[Binding]]:
    """Context for tracing graph function ``fn`` (its own entry, for recursion checks);
    gives the list of the module-level functions the trace calls."""
    outer, _stack.helpers = _stack.helpers, []
    try:
        _record_globals(fn)
        with _entered(fn):
            yield _stack.helpers
    finally:
        _stack.helpers = outer


def _record_helper(fn: Any) -> None:
    """Note a user's module-level function (or graph function) called while tracing."""
    target = getattr(fn, "python_function", fn) if _is_graph_function(fn) else fn
    if not is_user_function(target) or target.__qualname__ != target.__name__:
        return
    namespace = target.__globals__
    if namespace.get(target.__name__) is fn and not any(
        isinstance(b, Binding) and b.function is fn for b in _stack.helpers
    ):
        _stack.helpers.append(Binding(fn, namespace, target.__name__))


def _record_globals(fn: Callable) -> None:
    """Note the module-level data fn reads: a change of it makes the graph out of date."""
    if _stack.helpers is None:
        return
    known = {(id(b.namespace), b.name) for b in _stack.helpers}
    _stack.helpers.extend(b for b in global_values(fn) if (id(b.namespace), b.name) not in known)
