"""The public entry points: ``function`` (graph functions), ``to_graph``, ``to_code``."""

from __future__ import annotations

import functools
import inspect
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .backend import BACKENDS, Program, compile_graph
from .convert.calls import Binding, traced_function
from .convert.conversion import convert, to_code
from .distributed.inputs import holds_dask_array
from .errors.boundary import entry_point
from .errors.mapping import mark_run, user_error
from .errors.sites import site_of
from .graph.build import trace
from .graph.ir import Graph
from .graph.passes import optimize
from .graph.pytree import LEAF, flatten, tree_key, unflatten
from .graph.runtime import ConsList
from .graph.types import ListType, is_device_array, type_of
from .progress import building
from .writeback import ArgumentWrites

DEFAULT_BACKEND = "cpu"


class _Compiled:
    """One traced, optimised and compiled signature of a graph function."""

    def __init__(self, graph: Graph, program: Program, locates: bool,
                 helpers: list[Binding], names: Sequence[str] = ()) -> None:
        self.graph = graph
        self.helpers = helpers  # a helper redefined since (a notebook cell run again)
        self.program = program
        self.run = program.run
        self.locates = locates  # the backend tags its errors with the failing node
        # Arguments the function writes into get their final values after the run.
        self.writes = ArgumentWrites(graph, names) if graph.writes else None
        results = graph.body.results[:-1]  # the last result is the effect token
        self.fix_lists = [i for i, r in enumerate(results) if isinstance(r.type, ListType)]
        self.leaf = graph.out_tree is LEAF and not self.fix_lists  # one plain result
        self.single = self.leaf and self.writes is None

    def out_of_date(self) -> bool:
        """Whether a function the graph called has been redefined: trace again."""
        return any(b.changed() for b in self.helpers)

    def __call__(self, leaves: Sequence[Any]) -> Any:
        if self.writes is not None:
            self.writes.check(leaves)
        try:
            outputs = self.run(leaves)
        except Exception as exc:
            mark_run(exc, self.graph, leaves, self.locates)
            raise
        except KeyboardInterrupt as exc:  # at a graph loop's line, when a backend knows it
            if site_of(exc) is not None:
                mark_run(exc, self.graph, leaves, located=True)
            raise
        if self.single:
            return outputs[0]
        if self.writes is not None:
            outputs = self.writes.finish(leaves, outputs)
            if self.leaf:
                return outputs[0]
        outputs = list(outputs)
        for i in self.fix_lists:
            outputs[i] = outputs[i].to_list() if isinstance(outputs[i], ConsList) else outputs[i]
        return unflatten(self.graph.out_tree, outputs)


# Trace-cache keys: an array's (dtype, ndim); a scalar's (dtype, flavor), fixed per type,
# so the per-call key is a dict lookup (this runs on every call).
_SCALAR_KEYS: dict[type, Any] = {}
for _type in (bool, int, float, complex, *set(np.sctypeDict.values())):
    if _type in (bool, int, float, complex) or issubclass(_type, np.number | np.bool_):
        _t = type_of(_type(0))
        _SCALAR_KEYS[_type] = (_t.dtype, _t.flavor)


def _leaf_key(value: Any) -> Any:
    key = _SCALAR_KEYS.get(type(value))
    if key is None and (type(value) is np.ndarray or is_device_array(value)):
        return (np.dtype(value.dtype), len(value.shape))
    return key


class GraphFunction:
    """A Python function that runs as a graph; see ``function``."""

    def __init__(self, fn: Callable, backend: str = DEFAULT_BACKEND,
                 static_argnames: Sequence[str] = (), parallel: bool = False) -> None:
        if not callable(fn):
            raise TypeError(f"nbgraph.function needs a function, got {type(fn).__name__}")
        if backend not in BACKENDS:
            raise ValueError(
                f"backend={backend!r} is not available; choose one of {', '.join(BACKENDS)}")
        if isinstance(static_argnames, str):
            static_argnames = (static_argnames,)
        self.python_function = fn
        self.backend = backend
        self.parallel = parallel
        self.signature = inspect.signature(fn)
        unknown = set(static_argnames) - set(self.signature.parameters)
        if unknown:
            raise ValueError(f"static_argnames names no parameter of {fn.__name__}: "
                             f"{', '.join(sorted(unknown))}")
        self.static_argnames = tuple(static_argnames)
        self.trace_count = 0
        self.last_build: dict[str, float] | None = None  # seconds per stage, newest build
        self.after_first_call: Callable[[Graph], Any] | None = None  # e.g. show the graph
        self._cache: dict[Any, _Compiled] = {}
        # Calls with exactly the positional parameters skip argument binding.
        params = list(self.signature.parameters.values())
        plain = all(p.kind is p.POSITIONAL_OR_KEYWORD for p in params)
        self._positional = len(params) if plain and not self.static_argnames else -1
        functools.update_wrapper(self, fn)
        # Calls enter through a function placed in the user's file, so that errors show
        # the user's frames only (see errors/boundary.py).
        entry = entry_point(fn, self._call, user_error)
        self.__class__ = type(GraphFunction.__name__, (type(self),),
                              {"__call__": staticmethod(entry), "__module__": __name__})

    def __repr__(self) -> str:
        return f"<nbgraph.function {self.python_function.__qualname__} ({self.backend})>"

    def eager(self, *args: Any, **kwargs: Any) -> Any:
        """Run the original Python function."""
        return self.python_function(*args, **kwargs)

    def _split(self, args: tuple, kwargs: dict) -> tuple[tuple, dict, tuple]:
        """Bound (dynamic args, dynamic kwargs, static values)."""
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError:
            raise _call_error(self.python_function, args, kwargs) from None
        bound.apply_defaults()
        statics = tuple((n, bound.arguments.pop(n)) for n in self.static_argnames)
        return (*_split_dynamic(self.signature, bound.arguments), statics)

    def _key(self, args: tuple, kwargs: dict, statics: tuple) -> Any:
        keys = [_leaf_key(a) for a in args]
        if None in keys or kwargs:
            leaves, tree = flatten((args, kwargs))
            return (tree_key(tree), tuple(_leaf_key(leaf) for leaf in leaves), statics)
        return (tuple(keys), statics)

    def _compiled(self, args: tuple, kwargs: dict, statics: tuple,
                  leaves: Sequence[Any] | None = None) -> _Compiled:
        """The compiled entry for this signature, built if new (then compiled for the
        types of ``leaves`` when given, and ``last_build`` timed stage by stage)."""
        key = self._key(args, kwargs, statics)
        try:
            entry = self._cache.get(key)
        except TypeError:
            raise TypeError(f"static arguments of {self.__name__} must be hashable") from None
        if entry is not None and not entry.out_of_date():
            return entry
        with building(self.__name__) as stage:
            stage("converting")
            start = time.perf_counter()
            converted = self._convert()
            stage("tracing")
            converted_at = time.perf_counter()
            graph, helpers = self._trace(converted, args, kwargs, statics)
            stage("compiling")
            traced_at = time.perf_counter()
            program = compile_graph(graph, self.backend, self.parallel)
            if leaves is not None:
                program.prepare(leaves)
        self.last_build = {"convert": converted_at - start, "trace": traced_at - converted_at,
                           "compile": time.perf_counter() - traced_at}
        entry = self._cache[key] = _Compiled(graph, program, self.backend == "interpret",
                                             helpers, self._leaf_names(args, kwargs))
        return entry

    def _leaf_names(self, args: tuple, kwargs: dict) -> list[str]:
        """The parameter name of each flat argument, where each argument is one leaf
        (for messages; empty otherwise)."""
        leaves, _ = flatten((args, kwargs))
        if kwargs or len(leaves) != len(args):
            return []
        return [p.name for p in self.signature.parameters.values()
                if p.name not in self.static_argnames][:len(args)]

    def _convert(self) -> Callable:
        """The function to trace: the converted Python function."""
        return convert(self.python_function)

    def _trace(self, converted: Callable, args: tuple, kwargs: dict, statics: tuple
               ) -> tuple[Graph, list[Binding]]:
        """The optimised graph, and the user's functions it called (see ``Binding``)."""
        fn = self.python_function
        static_values = dict(statics)

        def with_statics(*dynamic: Any, **dynamic_kw: Any) -> Any:
            call = _rebind(self.signature, dynamic, dynamic_kw, static_values)
            return converted(*call.args, **call.kwargs)

        with traced_function(fn) as helpers:
            graph = trace(fn.__name__, with_statics, args, kwargs)
        self.trace_count += 1
        return optimize(graph), helpers

    def graph(self, *args: Any, inspect: bool = False, **kwargs: Any) -> Graph:
        """The traced (optimised) graph for these arguments' signature, without running.

        ``inspect=True`` also runs the graph once on these arguments with the interpret
        backend (the compiled code is left alone) and returns the graph with each
        node's value summary from that run, which the graph view shows.  (A parameter
        of the function named ``inspect`` is then passed by position.)
        """
        dyn, dyn_kw, statics = self._split(args, kwargs)
        graph = self._compiled(dyn, dyn_kw, statics).graph
        if not inspect:
            return graph
        from .viz.values import inspected

        return inspected(graph, flatten((dyn, dyn_kw))[0])

    def _call(self, args: tuple, kwargs: dict) -> Any:
        """A call (``__call__`` is the entry point made in ``__init__``)."""
        if len(args) == self._positional and not kwargs:
            keys = tuple([_SCALAR_KEYS.get(type(a)) or (
                (a.dtype, a.ndim) if type(a) is np.ndarray else None) for a in args])
            entry = self._cache.get((keys, ()))
            if entry is not None and not (entry.helpers and entry.out_of_date()):
                return entry(args)
        if holds_dask_array(args, kwargs):  # blockwise over the chunks: a lazy Dask array
            from .distributed.blockwise import call_blockwise

            return call_blockwise(self, args, kwargs)
        dyn, dyn_kw, statics = self._split(args, kwargs)
        leaves, _ = flatten((dyn, dyn_kw))
        built = self.last_build
        entry = self._compiled(dyn, dyn_kw, statics, leaves)
        if self.last_build is not built:  # a new signature: time its first run too
            start = time.perf_counter()
            try:
                return entry(leaves)
            finally:  # also when the call fails: the graph helps most then
                self.last_build["first_run"] = time.perf_counter() - start
                hook, self.after_first_call = self.after_first_call, None
                if hook is not None:
                    hook(entry.graph)
        return entry(leaves)

    def __reduce__(self) -> tuple:
        """Pickled as its traced graphs, so a process without the source (a Dask worker)
        can run it (see ``distributed/shipping.py``)."""
        from .distributed.shipping import reduce_function

        return reduce_function(self)

    def __get__(self, instance: Any, owner: Any = None) -> Any:
        if instance is None:
            return self
        return functools.partial(self, instance)


def _call_error(fn: Callable, args: tuple, kwargs: dict) -> TypeError:
    """The TypeError Python raises for calling ``fn`` with these arguments (wrong count or
    names), word for word: a body-less function with ``fn``'s signature is called."""
    signature = inspect.signature(fn)
    params = [p.replace(annotation=p.empty, default=p.empty if p.default is p.empty else None)
              for p in signature.parameters.values()]
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


def _split_dynamic(signature: inspect.Signature, arguments: dict) -> tuple[tuple, dict]:
    """Bound arguments (statics taken out) as positional values while they can be, then
    values by parameter name (``*args`` as a tuple under its name) and ``**kwargs``'s."""
    args: list = []
    kwargs: dict = {}
    positional = True
    for p in signature.parameters.values():
        if p.name not in arguments:  # a static argument: what follows goes by name
            positional = False
        elif positional and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            args.append(arguments[p.name])
        elif positional and p.kind is p.VAR_POSITIONAL:
            args.extend(arguments[p.name])
        elif p.kind is p.VAR_KEYWORD:
            kwargs.update(arguments[p.name])
        else:
            kwargs[p.name] = arguments[p.name]
    return tuple(args), kwargs


def _rebind(signature: inspect.Signature, args: tuple, kwargs: dict, statics: dict
            ) -> inspect.BoundArguments:
    """The call's arguments again, from the dynamic ones (see ``_split_dynamic``) and
    the static values."""
    positional, named, arguments = list(args), dict(kwargs), {}
    for p in signature.parameters.values():
        if p.name in statics:
            arguments[p.name] = statics[p.name]
        elif p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            if positional:
                arguments[p.name] = positional.pop(0)
            elif p.name in named:
                arguments[p.name] = named.pop(p.name)
        elif p.kind is p.VAR_POSITIONAL:
            if p.name in named:
                arguments[p.name] = tuple(named.pop(p.name))
            else:
                arguments[p.name], positional = tuple(positional), []
        elif p.kind is p.KEYWORD_ONLY:
            if p.name in named:
                arguments[p.name] = named.pop(p.name)
        else:
            arguments[p.name] = named
    return inspect.BoundArguments(signature, arguments)


def function(fn: Callable | None = None, *, backend: str = DEFAULT_BACKEND,
             static_argnames: Sequence[str] = (), parallel: bool = False) -> Any:
    """Make ``fn`` a graph function (decorator, with or without options)."""
    def make(f: Callable) -> GraphFunction:
        return GraphFunction(f, backend=backend, static_argnames=static_argnames,
                             parallel=parallel)

    return make if fn is None else make(fn)


to_graph = function

__all__ = ["LEAF", "GraphFunction", "function", "to_code", "to_graph"]
