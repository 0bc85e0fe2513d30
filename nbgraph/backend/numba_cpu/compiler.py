"""Compile a lowered graph with Numba and run it.

The source is loaded from a cache folder (``backend/generated.py``), so Numba's own
``cache=True`` can reuse the machine code in a new process.  Compilation happens on the
first call, with the real argument types, or, for a graph of array work that the disk
cache lacks, after it: that call runs on the interpreter and the compile is queued for
the background thread (``tiers.py``, ``compile_queue.py``; ``config.background_compile``
turns it off), which the next call waits for.  While that thread compiles, such a graph
does not even look in the disk cache on its first call (Numba's lock would make it wait
for the compile in progress): it runs on the interpreter and its load is queued too.  If
Numba cannot type a node, that node is lowered to a call back into Python and
compilation retried.
"""

from __future__ import annotations

import functools
import operator
import re
import threading
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numba
import numpy as np
from numba.core import event
from numba.core.compiler_lock import global_compiler_lock
from numba.core.errors import NumbaError
from numba.core.registry import cpu_target

from ...config import config
from ...errors.exceptions import NbgraphPerformanceWarning
from ...graph.ir import Graph, Node, Op
from ...graph.numpy_facts import method_name
from ...graph.types import ARRAY, PYTHON, SCALAR, ListType, TensorType, TokenType, TupleType
from ...progress import building
from ..common.arguments import unsupported_argument
from ..common.ownership import report_copies
from ..failures.sites import interrupted_in
from ..generated import load_source
from ..interpret import Interpreter
from . import thread_warnings
from .compile_queue import QUEUE, Job
from .helpers import Interrupted
from .lowering import FUNCTION, Lowering, lower
from .tiers import interprets_first

_PY_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


_VIEW_FUNCTIONS = (operator.getitem, np.reshape, np.ravel, np.transpose, np.squeeze)
_VIEW_METHODS = ("reshape", "ravel", "transpose", "squeeze", "view", "swapaxes")


def _new_view(node: Node) -> bool:
    """Whether ``node`` makes a new view of an array every time (``x[:, :]``,
    ``x.reshape(x.shape)``; not ``np.asarray(x)``, which may be ``x`` itself)."""
    if node.op is not Op.CALL or not isinstance(node.type, TensorType):
        return False
    fn = node.arg.fn
    return node.type.flavor == ARRAY and (
        fn in _VIEW_FUNCTIONS or method_name(node.arg) in _VIEW_METHODS
    )


def _output_converter(t: Any) -> Callable[[Any], Any] | None:
    """How a Numba result becomes what eager code returns (flavors, lists)."""
    if isinstance(t, ListType):
        item = _output_converter(t.elem)
        return list if item is None else (lambda v, item=item: [item(i) for i in v])
    if isinstance(t, TupleType):
        items = [_output_converter(i) or (lambda v: v) for i in t.items]
        return lambda v: tuple(convert(i) for convert, i in zip(items, v))
    if not isinstance(t, TensorType):
        return None
    if t.flavor == PYTHON:
        py_type = _PY_TYPES[t.dtype.kind]
        return None if py_type is float else py_type  # Numba returns floats as float
    if t.flavor == SCALAR:
        return t.dtype.type
    if t.ndim == 0:
        return lambda v, dtype=t.dtype: np.asarray(v, dtype=dtype)
    return lambda v, dtype=t.dtype: v if v.dtype == dtype else v.astype(dtype)


def warm_up() -> None:
    """Load Numba's typing and lowering registries for the CPU (about half a second,
    once per process, which the first compile or disk-cache load would otherwise wait
    for), holding Numba's compiler lock as a compile does."""
    with global_compiler_lock:
        cpu_target.typing_context.refresh()
        cpu_target.target_context.refresh()


class _CompileCounter(event.Listener):
    """Counts the functions Numba compiles on this thread (another may compile another
    graph meanwhile), reporting each as it starts."""

    def __init__(self, report: Callable[[str], None]) -> None:
        self.report = report
        self.count = 0
        self.thread = threading.get_ident()

    def on_start(self, ev: event.Event) -> None:
        if threading.get_ident() != self.thread:
            return
        self.count += 1
        self.report(f"compiling function {self.count}")

    def on_end(self, ev: event.Event) -> None:
        pass


class _NotCached(Exception):
    """Raised to stop a compile that the disk cache cannot serve."""


class _CacheOnly(event.Listener):
    """Stops ``dispatcher`` from compiling on this thread: only loading is allowed."""

    def __init__(self, dispatcher: Any) -> None:
        self.dispatcher = dispatcher
        self.thread = threading.get_ident()

    def on_start(self, ev: event.Event) -> None:
        if ev.data["dispatcher"] is self.dispatcher and threading.get_ident() == self.thread:
            raise _NotCached

    def on_end(self, ev: event.Event) -> None:
        pass


class NumbaGraph:
    """A graph compiled by Numba; call ``run`` with the flat parameter values."""

    def __init__(self, graph: Graph, parallel: bool = False) -> None:
        self.graph = graph
        self.parallel = parallel
        self.objmode: set[Node] = set()
        # Nodes Numba cannot compile, and copies inside loops, each with why (the graph
        # view marks them; see ``Program``).
        self._python_nodes: dict[Node, str] = {}
        self._copies: dict[Node, str] = {}
        self.fallback: Callable[[list[Any]], list[Any]] | None = None
        results = [r for r in graph.body.results if not isinstance(r.type, TokenType)]
        self.converters = [
            (i, c)
            for i, c in enumerate(_output_converter(r.type) for r in results)
            if c is not None
        ]
        self.const_results = [i for i, r in enumerate(results) if r.op.value == "const"]
        # Views an operation made, which Numba hands back as the argument object itself
        # when they look like it (``x[:, :]``): eagerly they are new objects.
        self.made_views = [i for i, r in enumerate(results) if _new_view(r)]
        self._functions_compiled: int | None = None  # by the last compile that counted
        self._background_s: float | None = None  # how long the background compile took
        # The first call's run on the interpreter, then the compile on the background
        # thread (the types it compiles for), and the warnings made there, for the
        # caller's thread.
        self._interpret_first: Interpreter | None = None
        self._deferred_types: tuple | None = None
        self._background: Job | None = None
        self._warnings: list[Callable[[], None]] = []
        self._compiling = threading.Lock()  # one compile at a time (threads of a Dask worker)
        self._build()
        self._warn_pending()

    def _build(self) -> None:
        self.lowering: Lowering = lower(self.graph, self.objmode, self.parallel)
        report_copies(
            self.graph,
            self.lowering.ownership,
            self._copies,
            lambda *args: self._warnings.append(functools.partial(warnings.warn_explicit, *args)),
        )
        self._module = load_source(self.lowering.text, self.lowering.globals)
        # Only the kernels run on several threads (their loops use prange): Numba's
        # parallel transformation of the whole graph function mistypes its values.
        self.dispatcher = numba.njit(
            cache=True,
            boundscheck=True,
            error_model="python",
        )(getattr(self._module, FUNCTION))
        self.constants = tuple(self.lowering.constants)
        self.compiled = False

    # What compiling learned (see ``Program``): read after a compile on the background
    # thread has finished.

    @property
    def functions_compiled(self) -> int | None:
        """How many functions Numba compiled (0: all loaded from the disk cache)."""
        self.wait()
        return self._functions_compiled

    @property
    def background_s(self) -> float | None:
        """Seconds the compile after the first call took on the background thread
        (None: the first call waited for the compile, or loaded it)."""
        self.wait()
        return self._background_s

    @property
    def interprets_first_call(self) -> bool:
        """Whether the next call runs on the interpreter, the compile after it."""
        return self._interpret_first is not None

    @property
    def module(self) -> Any:
        """The generated module (its kernels, compiled for what the graph ran on)."""
        self.wait()
        return self._module

    @property
    def python_nodes(self) -> dict[Node, str]:
        self.wait()
        return self._python_nodes

    @property
    def copies(self) -> dict[Node, str]:
        self.wait()
        return self._copies

    @property
    def fused(self) -> list[list[Node]]:
        """The fused groups of two or more operations, each with the reduction that
        computes it element by element, if one does (see ``Program``)."""
        self.wait()
        lowering = self.lowering
        groups = {id(g): g for g in lowering.groups.values()}
        reducing = {id(g): red for red, g in lowering.absorbed.items()}
        found = [
            [*g.members, reducing[k]] if k in reducing else g.members for k, g in groups.items()
        ]
        return [members for members in found if len(members) > 1]

    @property
    def source(self) -> str:
        """The generated source (for debugging and the graph view)."""
        self.wait()
        return self.lowering.text

    def prepare(self, args: Sequence[Any], report: Callable[[str], None] | None = None) -> None:
        """Compile for these parameter values' types, if not done yet, telling ``report``
        what it is doing: loading from the disk cache until Numba starts compiling
        (which it does only when the cache has no machine code for them), then how many
        functions it has compiled.  A graph of array work the cache lacks compiles after
        the first run instead (see the module docstring)."""
        if self.compiled or self._deferred_types is not None:
            return
        if report is None:
            report = _ignore
        types = self._types(args)
        deferrable = (
            types is not None and config.background_compile and interprets_first(self.graph, args)
        )
        if deferrable and QUEUE.busy():  # loading would wait for that compile
            self._defer(types, report)
            return
        report("loading from the disk cache")
        if types is None or self._load(types):
            self._functions_compiled = 0
            self._warn_pending()
            return
        if deferrable:
            self._defer(types, report)
            return
        counter = _CompileCounter(report)
        with event.install_listener("numba:compile", counter):
            self._compile_types(types)
        self._functions_compiled = counter.count
        self._warn_pending()

    def _defer(self, types: tuple, report: Callable[[str], None]) -> None:
        """Run the first call on the interpreter and compile for ``types`` after it."""
        report("running on the interpreter (compiling after this call)")
        self._interpret_first = Interpreter(self.graph, writes_in_place=True)
        self._deferred_types = types

    def run(self, args: Sequence[Any]) -> Sequence[Any]:
        """The graph's results for these parameter values."""
        if self._interpret_first is not None:
            interpreter, self._interpret_first = self._interpret_first, None
            try:
                return interpreter.run(args)
            finally:
                self._start_background_compile()
        if not self.compiled:
            self.wait()
            if not self.compiled:
                self._compile(args)
                self._warn_pending()
        if self.fallback is not None:
            return self.fallback(args)
        try:
            out = self.dispatcher(*args, *self.constants)
        except Interrupted as exc:
            loop, completed = exc.args
            raise interrupted_in(self.lowering.loops[loop], completed) from None
        renew = [i for i in self.made_views if any(out[i] is a for a in args)]
        if not (self.converters or self.const_results or renew):
            return out
        out = list(out)
        for i in renew:
            out[i] = out[i].view()
        for i, convert in self.converters:
            out[i] = convert(out[i])
        for i in self.const_results:
            if isinstance(out[i], np.ndarray):
                out[i] = out[i].copy()
        return out

    def wait(self) -> None:
        """Wait for a compile running on the background thread, if one is (a wait over
        half a second shows in the cell, as a build does)."""
        if self._background is None:
            return
        if not self._background.finished():
            with building(self.graph.name) as stage:
                stage("compiling (started after the first call)")
                QUEUE.wait(self._background)
        self._background = None
        self._warn_pending()

    def _start_background_compile(self) -> None:
        """Queue the compile for the first run's types (``compile_queue.py``)."""
        types = self._deferred_types

        def compile_here() -> None:
            start = time.perf_counter()
            counter = _CompileCounter(_ignore)
            try:
                with (
                    thread_warnings.kept() as given,
                    event.install_listener("numba:compile", counter),
                ):
                    self._compile_types(types)
            except Exception:  # the next call compiles again, on its own thread, and
                return  # raises there
            self._warnings += [functools.partial(warnings.warn_explicit, *w) for w in given]
            self._functions_compiled = counter.count
            self._background_s = time.perf_counter() - start

        self._background = Job(compile_here)
        QUEUE.submit(self._background)

    def _warn_pending(self) -> None:
        """Give the warnings building and compiling made (on this thread or the
        background one), on this thread."""
        pending, self._warnings = self._warnings, []
        for warn in pending:
            warn()

    def _load(self, types: tuple) -> bool:
        """Load the machine code for ``types`` from the disk cache, if it is there."""
        try:
            with event.install_listener("numba:compile", _CacheOnly(self.dispatcher)):
                self.dispatcher.compile(types)
        except Exception:  # not cached (_NotCached), or a damaged entry: compile
            return False
        self.compiled = True
        return True

    def _compile(self, args: Sequence[Any]) -> None:
        types = self._types(args)
        if types is not None:
            self._compile_types(types)

    def _types(self, args: Sequence[Any]) -> tuple | None:
        """Numba's types of the parameter values and the graph's constants (None: an
        argument Numba cannot take, and the graph falls back to the interpreter)."""
        for k, arg in enumerate(args):
            reason = unsupported_argument(arg)
            if reason is not None:
                self._fall_back(f"its argument {k + 1} is {reason}")
                return None
        return tuple(numba.typeof(a) for a in (*args, *self.constants))

    def _compile_types(self, types: tuple) -> None:
        with self._compiling:
            if not self.compiled:
                self._compile_unlocked(types)

    def _compile_unlocked(self, types: tuple) -> None:
        cache_cleared = False
        while True:
            try:
                self.dispatcher.compile(types)
                self.compiled = True
                return
            except Exception as exc:  # Numba's own assertions surface as plain errors
                if not isinstance(exc, NumbaError) and not cache_cleared:
                    # A damaged or stale cache entry (e.g. made for another module):
                    # compile again from the source.
                    self._clear_cache()
                    cache_cleared = True
                    self._build()
                    continue
                node = self._failing_node(exc) if isinstance(exc, NumbaError) else None
                if node is None or node in self.objmode:
                    self._fall_back(
                        unsupported(node)
                        if node is not None
                        else (
                            f"Numba failed on the generated code ({type(exc).__name__}: "
                            f"{_first_line(exc)})"
                        )
                    )
                    return
                for alike in _alike(self.graph, node):
                    self.objmode.add(alike)
                    self._python_nodes[alike] = unsupported(alike)
                self._build()

    def _clear_cache(self) -> None:
        """Remove Numba's cached machine code for this graph's source."""
        source = Path(self.dispatcher.py_func.__code__.co_filename)
        for folder in (source.parent, source.parent / "__pycache__"):  # where Numba writes
            for path in folder.glob(f"{source.stem}.*.nb[ic]"):
                path.unlink(missing_ok=True)

    def _fall_back(self, reason: str) -> None:
        """Run the graph with the reference backend: correct, only slower."""
        message = (
            f"nbgraph: the CPU backend cannot compile graph '{self.graph.name}': {reason}; "
            "it runs with the interpret backend instead (correct, but slower)"
        )
        self._warnings.append(
            functools.partial(warnings.warn, message, NbgraphPerformanceWarning, stacklevel=5)
        )
        self.fallback = Interpreter(self.graph, writes_in_place=True).run
        self.compiled = True

    def _failing_node(self, exc: Exception) -> Node | None:
        name = re.escape(Path(self.dispatcher.py_func.__code__.co_filename).name)
        text = str(exc)
        lines = [int(m) for m in re.findall(name + r'", line (\d+)', text)]
        lines += [int(m) for m in re.findall(name + r" \((\d+)\)", text)]
        for line in lines:
            node = self.lowering.line_nodes.get(line)
            if node is not None and node.op.value == "call":
                return node
        return None


def _alike(graph: Graph, node: Node) -> list[Node]:
    """``node`` and every other call of the same function on the same graph types: Numba
    fails on them as it did on ``node``, and taking them all to Python at once saves a
    compile for each (a loop unrolled or a helper inlined repeats a node many times)."""

    def key(n: Node) -> tuple | None:
        try:
            found = (n.arg.key(), tuple(i.type for i in n.inputs), n.type)
            hash(found)
        except TypeError:  # an unhashable constant in the call: only the node itself
            return None
        return found

    wanted = key(node)
    if wanted is None:
        return [node]
    return [n for n in graph.find(Op.CALL) if n is node or key(n) == wanted]


def _ignore(text: str) -> None:
    pass


def unsupported(node: Node) -> str:
    """Plain words for a node Numba cannot type: the operation, operand types, line."""
    operands = ", ".join(str(i.type) for i in node.inputs if not isinstance(i.type, TokenType))
    where = f" (line {node.loc.lineno} of {node.loc.filename})" if node.loc else ""
    return f"Numba does not support {node.label()} on ({operands}){where}"


def _first_line(exc: Exception) -> str:
    """The first informative line of a Numba error (not its pipeline banner)."""
    for line in re.sub(r"\x1b\[[0-9;]*m", "", str(exc)).splitlines():
        line = line.strip()
        if line and not re.match(r"Failed in .* (pipeline|mode)", line):
            return line
    return type(exc).__name__
