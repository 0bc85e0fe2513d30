"""The public entry points: ``function`` (graph functions), ``to_graph``, ``to_code``."""

from __future__ import annotations

import functools
import inspect
import logging
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, overload

from .backend import BACKENDS, compile_graph
from .backend.failures.mapping import user_error
from .backend.inspection import inspected
from .config import call_as_python, call_mode, eagerly
from .convert.calls import Binding, StagedFunction, traced_function
from .convert.conversion import convert, to_code
from .errors.boundary import entry_point
from .errors.exceptions import BreakpointReached, RetracingWarning
from .graph.ir import Graph
from .graph.passes import optimize
from .graph.pytree import LEAF, flatten
from .progress import building
from .specialization import (
    Bound,
    Specialization,
    describe_key,
    leaf_key,
    rebind,
    retrace_reason,
    signature_key,
    split_dynamic,
)
from .staging.build import trace

DEFAULT_BACKEND = "cpu"
RETRACE_WARNING_AT = 6  # traces of one function: the RetracingWarning's threshold


@dataclass
class Trace:
    """One trace of a graph function: its argument types, why it was made, the build's
    seconds per stage, and the specialization it made."""

    signature: str
    reason: str
    build: dict[str, float]  # (the first run's time joins it after the run)
    entry: Specialization
    _shown: tuple = field(default=(None, (), None), repr=False, compare=False)

    def graph(self, number: int) -> Graph:
        """Its graph as shown (``annotated_graph``) with the summary of this trace, the
        ``number``-th of its function (one copy while they stay the same)."""
        graph = self.entry.annotated_graph()
        first, *rest = self.summary()
        lines = (f"trace {number} {first}", *rest)
        if self._shown[0] is not graph or self._shown[1] != lines:
            self._shown = (graph, lines, graph.annotated(trace=lines))
        return self._shown[2]

    def summary(self) -> tuple[str, ...]:
        """Why it was made, what building it cost per stage, and whether Numba compiled
        or loaded from the disk cache, one line each (``nbgraph.explain`` prints these,
        the graph view's explain panel shows them)."""
        stages = ", ".join(f"{stage} {seconds:.3f} s" for stage, seconds in self.build.items())
        lines = [
            f"{self.signature}: {self.reason}",
            f"built in {sum(self.build.values()):.3f} s ({stages})",
        ]
        compiled = getattr(self.entry.program, "functions_compiled", None)
        after = getattr(self.entry.program, "background_s", None)
        if after is not None:
            done = (
                f"Numba then compiled {compiled} functions"
                if compiled
                else "then loaded from the disk cache: nothing compiled"
            )
            lines.append(f"first call ran on the interpreter; {done} ({after:.3f} s after it)")
        elif compiled == 0:
            lines.append("loaded from the disk cache: nothing compiled")
        elif compiled:
            lines.append(f"Numba compiled {compiled} functions (not in the disk cache)")
        return tuple(lines)


# Build, cache and retrace messages (Python's logging; see the README's "Settings").
log = logging.getLogger("nbgraph")

# Registered from the layers above (see ``nbgraph/__init__.py``), which this one does not
# import: calls on another library's arrays, how a graph function pickles, and how a
# call that reached nbgraph.breakpoint() runs again.
_array_calls: list[tuple[Callable[[tuple, dict], bool], Callable[..., Any]]] = []
_pickling: list[Callable[[GraphFunction], tuple]] = []
_stopped_calls: list[Callable[[GraphFunction, tuple, dict], Any]] = []


def register_array_call(
    holds: Callable[[tuple, dict], bool], call: Callable[[GraphFunction, tuple, dict], Any]
) -> None:
    """Run calls whose arguments ``holds`` accepts (another library's arrays, e.g. Dask)
    as ``call(graph_function, args, kwargs)``."""
    _array_calls.append((holds, call))


def register_stopped_call(call: Callable[[GraphFunction, tuple, dict], Any]) -> None:
    """Run a call whose graph reached ``nbgraph.breakpoint()`` again as
    ``call(graph_function, args, kwargs)`` (the step recorder's)."""
    _stopped_calls[:] = [call]


def register_pickling(reduce: Callable[[GraphFunction], tuple]) -> None:
    """Pickle graph functions with ``reduce`` (their ``__reduce__``)."""
    _pickling[:] = [reduce]


class GraphFunction(StagedFunction):
    """A Python function that runs as a graph; see ``function``."""

    def __init__(
        self,
        fn: Callable,
        backend: str = DEFAULT_BACKEND,
        static_argnames: Sequence[str] = (),
        parallel: bool = False,
        traced: Callable[[], Callable] | None = None,
        check_numerics: bool = False,
    ) -> None:
        if not callable(fn):
            raise TypeError(f"nbgraph.function needs a function, got {type(fn).__name__}")
        if backend not in BACKENDS:
            raise ValueError(
                f"backend={backend!r} is not available; choose one of {', '.join(BACKENDS)}"
            )
        if isinstance(static_argnames, str):
            static_argnames = (static_argnames,)
        self.python_function = fn
        self.backend = backend
        self.parallel = parallel
        self.check_numerics = check_numerics
        self.signature = inspect.signature(fn)
        unknown = set(static_argnames) - set(self.signature.parameters)
        if unknown:
            raise ValueError(
                f"static_argnames names no parameter of {fn.__name__}: {', '.join(sorted(unknown))}"
            )
        self.static_argnames = tuple(static_argnames)
        self.trace_count = 0
        self.last_build: dict[str, float] | None = None  # seconds per stage, newest build
        # Functions Numba compiled for the newest build (0: all loaded from the disk
        # cache; None: a backend that does not count them).
        self.last_compiled: int | None = None
        # The recording of the last call that reached nbgraph.breakpoint() (a Recording).
        self.last_recording: Any = None
        self.after_first_call: Callable[[Graph], Any] | None = None  # e.g. show the graph
        # What a new signature traces: the converted Python function unless ``traced``
        # makes another (a gradient's function; a shipped function refuses).
        self.traced = traced or (lambda: convert(self.python_function))
        self.has_python_function = traced is None  # what nbgraph.config.run_eagerly runs
        self.specializations: dict[Any, Specialization] = {}  # by signature_key
        self.traces: list[Trace] = []  # every trace made, oldest first (nbgraph.explain)
        # Calls with exactly the positional parameters skip argument binding.
        params = list(self.signature.parameters.values())
        plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
        self._positional = len(params) if plain and not self.static_argnames else -1
        functools.update_wrapper(self, fn)
        # Calls enter through a function placed in the user's file, so that errors show
        # the user's frames only (see errors/boundary.py).
        entry = entry_point(fn, self._call, user_error)
        self.__class__ = type(
            GraphFunction.__name__,
            (type(self),),
            {"__call__": staticmethod(entry), "__module__": __name__},
        )

    if TYPE_CHECKING:  # (each instance's class gets its entry point as __call__)

        def __call__(self, *args: Any, **kwargs: Any) -> Any: ...

    def __repr__(self) -> str:
        return f"<nbgraph.function {self.python_function.__qualname__} ({self.backend})>"

    def eager(self, *args: Any, **kwargs: Any) -> Any:
        """Run the original Python function, and the graph functions it calls eagerly
        too: eager code all the way down."""
        with eagerly():
            return call_as_python(self.python_function, args, kwargs)

    def bind(self, args: tuple, kwargs: dict) -> Bound:
        """The call's arguments bound to the signature: dynamic values and statics."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            raise _call_error(self.python_function, args, kwargs) from None
        bound.apply_defaults()
        statics = tuple((n, bound.arguments.pop(n)) for n in self.static_argnames)
        return Bound(*split_dynamic(self.signature, bound.arguments), statics)

    def specialize(self, bound: Bound, leaves: Sequence[Any] | None = None) -> Specialization:
        """The specialization for this signature, built if new (then compiled for the
        types of ``leaves`` when given, and ``last_build`` timed stage by stage)."""
        key = signature_key(bound)
        try:
            entry = self.specializations.get(key)
        except TypeError:
            raise TypeError(f"static arguments of {self.__name__} must be hashable") from None
        if entry is not None and not entry.out_of_date():
            return entry
        names = self._leaf_names(bound.args, bound.kwargs)
        if entry is not None:
            redefined = [b.name for b in entry.helpers if b.changed()]
            reason = f"{', '.join(redefined)} redefined since the last trace"
        else:
            reason = retrace_reason(key, list(self.specializations), names)
        with building(self.__name__) as stage:
            stage("converting")
            start = time.perf_counter()
            converted = self.traced()
            stage("tracing")
            converted_at = time.perf_counter()
            graph, helpers = self._trace(converted, bound, names)
            stage("generating code")
            traced_at = time.perf_counter()
            program = compile_graph(graph, self.backend, self.parallel)
            if leaves is not None:
                program.prepare(leaves, stage)
        self.last_build = {
            "convert": converted_at - start,
            "trace": traced_at - converted_at,
            "compile": time.perf_counter() - traced_at,
        }
        # The CPU backend counts what Numba compiled: 0 when all came from the disk cache.
        self.last_compiled = getattr(program, "functions_compiled", None)
        entry = self.specializations[key] = Specialization(
            graph, program, self.backend == "interpret", helpers, names, self.check_numerics
        )
        self.traces.append(Trace(describe_key(key), reason, self.last_build, entry))
        _log_build(
            self.__name__,
            self.traces[-1],
            self.last_compiled,
            getattr(program, "interprets_first_call", False),
        )
        if len(self.traces) == RETRACE_WARNING_AT:
            message = (
                f"{self.__name__} has been traced {len(self.traces)} times, each compiled "
                f"anew; this time because {reason}. Give the changing argument one type, "
                "or make it static (static_argnames) if it takes few values; "
                f"nbgraph.explain({self.__name__}) lists every trace and its cause"
            )
            log.warning(message)
            warnings.warn(
                message,
                RetracingWarning,
                stacklevel=4,  # the user's call (through _call and the entry point)
            )
        return entry

    def _leaf_names(self, args: tuple, kwargs: dict) -> list[str]:
        """A name for each flat argument leaf, for messages: its parameter's, with the
        leaf's number where the parameter holds several (empty where ``*args`` makes
        the positions ambiguous)."""
        params = [
            p.name for p in self.signature.parameters.values() if p.name not in self.static_argnames
        ]
        if len(args) > len(params):
            return []
        names = []
        for name, value in [*zip(params, args), *kwargs.items()]:
            count = len(flatten(value)[0])
            if count == 1:
                names.append(name)
            else:
                names += [f"{name} (leaf {k + 1} of {count})" for k in range(count)]
        return names

    def _trace(
        self, converted: Callable, bound: Bound, names: Sequence[str] = ()
    ) -> tuple[Graph, list[Binding]]:
        """The optimised graph, and the user's functions it called (see ``Binding``);
        ``names``: the argument leaves' names, which the graph's parameters carry."""
        fn = self.python_function
        static_values = dict(bound.statics)

        def with_statics(*dynamic: Any, **dynamic_kw: Any) -> Any:
            call = rebind(self.signature, dynamic, dynamic_kw, static_values)
            return converted(*call.args, **call.kwargs)

        with traced_function(fn) as helpers:
            graph = trace(fn.__name__, with_statics, bound.args, bound.kwargs, names)
        self.trace_count += 1
        return optimize(graph), helpers

    def graph(self, *args: Any, inspect: bool = False, **kwargs: Any) -> Graph:
        """The traced (optimised) graph for these arguments' signature, without running.

        ``inspect=True`` also runs the graph once on these arguments with the interpret
        backend (the compiled code is left alone) and returns the graph with each
        node's value summary from that run, which the graph view shows.  (A parameter
        of the function named ``inspect`` is then passed by position.)
        """
        bound = self.bind(args, kwargs)
        entry = self.specialize(bound)
        made = [(k, t) for k, t in enumerate(self.traces, 1) if t.entry is entry]
        graph = made[-1][1].graph(made[-1][0]) if made else entry.annotated_graph()
        if not inspect:
            return graph
        return inspected(graph, flatten((bound.args, bound.kwargs))[0])

    def _call(self, args: tuple, kwargs: dict) -> Any:
        """A call (``__call__`` is the entry point made in ``__init__``)."""
        mode = call_mode()
        if mode is not None and self.has_python_function:
            if mode is True:
                return call_as_python(self.python_function, args, kwargs)
            return mode(self, args, kwargs)  # (recorded step by step)
        try:
            if len(args) == self._positional and not kwargs:
                keys = tuple([leaf_key(a) for a in args])  # NumPy or device arrays, scalars
                entry = self.specializations.get((keys, ()))
                if entry is not None and not (entry.helpers and entry.out_of_date()):
                    return entry(args)
            for holds, call in _array_calls:  # arrays of other libraries (Dask)
                if holds(args, kwargs):
                    return call(self, args, kwargs)
            bound = self.bind(args, kwargs)
            leaves, _ = flatten((bound.args, bound.kwargs))
            built = self.last_build
            entry = self.specialize(bound, leaves)
            if self.last_build is not built:  # a new signature: time its first run too
                start = time.perf_counter()
                try:
                    return entry(leaves, (bound.args, bound.kwargs))
                finally:  # also when the call fails: the graph helps most then
                    self.last_build["first_run"] = time.perf_counter() - start
                    hook, self.after_first_call = self.after_first_call, None
                    if hook is not None:
                        hook(entry.annotated_graph())
            return entry(leaves, (bound.args, bound.kwargs))
        except BreakpointReached:  # (the graph ran on copies of the argument arrays)
            if _stopped_calls:
                return _stopped_calls[0](self, args, kwargs)
            return call_as_python(self.python_function, args, kwargs)

    def __reduce__(self) -> tuple:
        """Pickled as its traced graphs, so a process without the source (a Dask worker)
        can run it (see ``distributed/shipping.py``, which registers how)."""
        if not _pickling:
            raise TypeError(f"cannot pickle {self!r}: import nbgraph to register how")
        return _pickling[0](self)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        return functools.partial(self, instance)


def _log_build(name: str, trace: Trace, compiled: int | None, deferred: bool) -> None:
    """One line per build on the ``nbgraph`` logger: what was traced and why, the
    seconds per stage, and whether Numba compiled or loaded it from the disk cache, or
    the first call runs on the interpreter (``deferred``) and Numba compiles after it."""
    stages = ", ".join(f"{stage} {seconds:.3f} s" for stage, seconds in trace.build.items())
    cache = (
        "; first call on the interpreter, Numba compiles after it"
        if deferred
        else ""
        if compiled is None
        else "; loaded from the disk cache"
        if compiled == 0
        else f"; Numba compiled {compiled} functions"
    )
    log.info(
        "%s traced for %s: %s; built (%s)%s", name, trace.signature, trace.reason, stages, cache
    )


def _call_error(fn: Callable, args: tuple, kwargs: dict) -> TypeError:
    """The TypeError Python raises for calling ``fn`` with these arguments (wrong count or
    names), word for word: a body-less function with ``fn``'s signature is called."""
    signature = inspect.signature(fn)
    params = [
        p.replace(annotation=p.empty, default=p.empty if p.default is p.empty else None)
        for p in signature.parameters.values()
    ]
    bare = signature.replace(parameters=params, return_annotation=signature.empty)
    namespace: dict = {}
    exec(f"def {fn.__name__}{bare}: pass", namespace)
    stub = namespace[fn.__name__]
    stub.__qualname__ = fn.__qualname__
    try:
        stub(*args, **kwargs)
    except TypeError as exc:
        return exc
    return TypeError(f"{fn.__qualname__}() got arguments it cannot take")


@overload
def function(
    fn: Callable[..., Any],
    *,
    backend: str = ...,
    static_argnames: Sequence[str] = ...,
    parallel: bool = ...,
    check_numerics: bool = ...,
) -> GraphFunction: ...


@overload
def function(
    fn: None = None,
    *,
    backend: str = ...,
    static_argnames: Sequence[str] = ...,
    parallel: bool = ...,
    check_numerics: bool = ...,
) -> Callable[[Callable[..., Any]], GraphFunction]: ...


def function(
    fn: Callable[..., Any] | None = None,
    *,
    backend: str = DEFAULT_BACKEND,
    static_argnames: Sequence[str] = (),
    parallel: bool = False,
    check_numerics: bool = False,
) -> GraphFunction | Callable[[Callable[..., Any]], GraphFunction]:
    """Make ``fn`` a graph function (decorator, with or without options).
    ``check_numerics=True``: a call whose results hold a NaN or an infinity raises
    ``FloatingPointError`` at the line that made the first one from finite values."""

    def make(f: Callable) -> GraphFunction:
        return GraphFunction(
            f,
            backend=backend,
            static_argnames=static_argnames,
            parallel=parallel,
            check_numerics=check_numerics,
        )

    return make if fn is None else make(fn)


to_graph = function

__all__ = ["LEAF", "GraphFunction", "function", "to_code", "to_graph"]
