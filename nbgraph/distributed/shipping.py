"""Graph functions sent to other processes: pickled as their traced graphs, not source.

A Dask worker may not have the file (or notebook cell) a graph function was written
in, so a pickled ``GraphFunction`` carries each signature's optimised ``Graph`` plus the
backend options; the receiving process compiles a graph the first time it runs it
(Numba's on-disk cache, shared by the processes of one machine, makes that a load).
Each process keeps what it unpickled by a token that changes whenever the sender
traces again, so the many tasks of one computation share one compiled function, and
unpickling in the process that pickled gives back the original object.
"""

from __future__ import annotations

import collections
import inspect
import pickle
import threading
import types
import uuid
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..api import GraphFunction
from ..backend import Program, compile_graph
from ..graph.ir import Graph, Node, Op
from ..graph.pytree import LEAF
from ..specialization import Specialization, describe_key

_MAX_RESTORED = 64  # graph functions a process keeps compiled for later tasks
_restored: collections.OrderedDict[str, GraphFunction] = collections.OrderedDict()
_originals: weakref.WeakValueDictionary[str, GraphFunction] = weakref.WeakValueDictionary()
_payloads: weakref.WeakKeyDictionary[GraphFunction, tuple[int, str, bytes]] = (
    weakref.WeakKeyDictionary()
)
_lock = threading.Lock()


class ShippingError(TypeError):
    """A graph function cannot be sent to another process as it is."""


def reduce_function(fn: GraphFunction) -> tuple:
    """``fn.__reduce__``: rebuilt by ``restore_function`` from a token and its graphs."""
    with _lock:
        cached = _payloads.get(fn)
        if cached is None or cached[0] != fn.trace_count:
            token = f"{uuid.uuid4().hex}-{fn.trace_count}"
            cached = (fn.trace_count, token, _payload(fn))
            _payloads[fn] = cached
            _originals[token] = fn
    return restore_function, (cached[1], cached[2])


def restore_function(token: str, payload: bytes) -> GraphFunction:
    """The graph function a token names in this process, rebuilt from ``payload`` once."""
    with _lock:
        fn = _originals.get(token) or _restored.get(token)
        if fn is None:
            fn = _rebuild(pickle.loads(payload))
            _restored[token] = fn
            while len(_restored) > _MAX_RESTORED:
                _restored.popitem(last=False)
        elif token in _restored:
            _restored.move_to_end(token)
        return fn


def _payload(fn: GraphFunction) -> bytes:
    python = fn.python_function
    code = python.__code__
    params = [p.replace(annotation=p.empty) for p in fn.signature.parameters.values()]
    state = {
        "name": python.__name__,
        "qualname": python.__qualname__,
        "module": python.__module__,
        "filename": code.co_filename,
        "firstlineno": code.co_firstlineno,
        "signature": fn.signature.replace(
            parameters=params, return_annotation=inspect.Signature.empty
        ),
        "backend": fn.backend,
        "parallel": fn.parallel,
        "static_argnames": fn.static_argnames,
        "graphs": {key: entry.graph for key, entry in fn.specializations.items()},
    }
    for graph in state["graphs"].values():
        check_picklable(graph)
    try:
        return pickle.dumps(state, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        raise ShippingError(
            f"graph function {python.__qualname__} cannot be pickled: {exc}"
        ) from exc


def check_picklable(graph: Graph) -> None:
    """Raise ShippingError naming the line of a graph call whose function does not
    pickle by reference (a lambda or a function only the sender has)."""
    seen: set[int] = set()
    for node in graph.all_nodes():
        if node.op is not Op.CALL or id(node.arg.fn) in seen:
            continue
        seen.add(id(node.arg.fn))
        try:
            pickle.dumps(node.arg.fn)
        except Exception as exc:
            where = f" (line {node.loc.lineno} of {node.loc.filename})" if node.loc else ""
            raise ShippingError(
                f"graph '{graph.name}' calls {node.arg.name}{where}, which cannot be sent "
                f"to another process ({exc}); call a function of an importable module "
                "there instead"
            ) from exc


class _LazyProgram:
    """A backend program compiled on its first use (not every signature runs here)."""

    def __init__(self, graph: Graph, backend: str, parallel: bool) -> None:
        self.graph, self.backend, self.parallel = graph, backend, parallel
        self._program: Program | None = None
        self._lock = threading.Lock()

    def _compiled(self) -> Program:
        with self._lock:
            if self._program is None:
                self._program = compile_graph(self.graph, self.backend, self.parallel)
            return self._program

    def prepare(self, args: Sequence[Any], report: Callable[[str], None] | None = None) -> None:
        self._compiled().prepare(args, report)

    def run(self, args: Sequence[Any]) -> Sequence[Any]:
        program = self._program
        if program is None:  # prepared as for a first call: it may run on the interpreter
            program = self._compiled()  # while the CPU backend compiles (tiers.py there)
            program.prepare(args)
        return program.run(args)

    @property
    def compiled(self) -> bool:
        """Whether the program is compiled (a first call on the interpreter leaves the
        compile to the next call)."""
        return self._program is not None and getattr(self._program, "compiled", True)

    @property
    def python_nodes(self) -> Mapping[Node, str]:
        return self._program.python_nodes if self._program is not None else {}

    @property
    def copies(self) -> Mapping[Node, str]:
        return self._program.copies if self._program is not None else {}


def _rebuild(state: dict) -> GraphFunction:
    """A graph function rebuilt from its graphs: it runs the signatures traced before
    it was pickled, and has no Python source to trace new ones from."""

    def no_source() -> Any:
        traced = ", ".join(describe_key(key) for key in fn.specializations) or "none"
        raise ShippingError(
            f"{fn.__qualname__} was sent to this process as its traced graphs "
            f"only (signatures: {traced}); call it once with arguments of this "
            "signature before pickling it, so its graph is sent along"
        )

    fn = GraphFunction(
        _stub(state),
        backend=state["backend"],
        static_argnames=state["static_argnames"],
        parallel=state["parallel"],
        traced=no_source,
    )
    for key, graph in state["graphs"].items():
        graph.in_tree, graph.out_tree = same_leaf(graph.in_tree), same_leaf(graph.out_tree)
        program = _LazyProgram(graph, state["backend"], state["parallel"])
        fn.specializations[key] = Specialization(
            graph, program, state["backend"] == "interpret", []
        )
    return fn


def same_leaf(tree: Any) -> Any:
    """A pytree whose leaf markers are ``LEAF`` itself again (unpickled strings are
    equal to it, not the same object, and pytrees test identity)."""
    if isinstance(tree, str) and tree == LEAF:
        return LEAF
    if type(tree) is tuple:
        return tuple(same_leaf(t) for t in tree)
    return tree


def _stub(state: dict) -> types.FunctionType:
    """A function at the user's file and line with the graph function's name and
    signature; calling it (eager mode) says that the source stayed behind."""
    namespace: dict = {}
    exec("def stub(*args, **kwargs):\n    raise NotImplementedError(message)\n", namespace)
    stub = namespace["stub"]
    stub.__code__ = stub.__code__.replace(
        co_filename=state["filename"],
        co_firstlineno=state["firstlineno"],
        co_name=state["name"],
        co_qualname=state["qualname"],
    )
    stub.__name__ = state["name"]
    stub.__globals__["message"] = (
        f"{state['qualname']} was sent to this process as its traced graphs only; its "
        "Python function (eager mode) stayed with the process that pickled it"
    )
    stub.__qualname__ = state["qualname"]
    stub.__module__ = state["module"]
    stub.__signature__ = state["signature"]
    return stub
