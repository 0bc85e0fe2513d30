"""Compile a lowered graph with Numba and run it.

The source is loaded from a cache folder (``backend/generated.py``), so Numba's own
``cache=True`` can reuse the machine code in a new process.  Compilation happens on the
first call, with the real argument types; if Numba cannot type a node, that node is
lowered to a call back into Python and compilation retried.
"""

from __future__ import annotations

import re
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

from ...errors.exceptions import NbgraphPerformanceWarning
from ...graph.ir import Graph, Node
from ...graph.types import PYTHON, SCALAR, ListType, TensorType, TokenType, TupleType
from ..common.arguments import unsupported_argument
from ..common.ownership import report_copies
from ..failures.sites import interrupted_in
from ..generated import load_source
from ..interpret import Interpreter
from .helpers import Interrupted
from .lowering import FUNCTION, Lowering, lower

_PY_TYPES = {"b": bool, "i": int, "u": int, "f": float, "c": complex}


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
    """Counts the functions Numba compiles, reporting each as it starts."""

    def __init__(self, report: Callable[[str], None]) -> None:
        self.report = report
        self.count = 0

    def on_start(self, ev: event.Event) -> None:
        self.count += 1
        self.report(f"compiling function {self.count}")

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
        self.python_nodes: dict[Node, str] = {}
        self.copies: dict[Node, str] = {}
        self.fallback: Callable[[list[Any]], list[Any]] | None = None
        results = [r for r in graph.body.results if not isinstance(r.type, TokenType)]
        self.converters = [
            (i, c)
            for i, c in enumerate(_output_converter(r.type) for r in results)
            if c is not None
        ]
        self.const_results = [i for i, r in enumerate(results) if r.op.value == "const"]
        self.functions_compiled: int | None = None  # by the last prepare that reported
        self._build()

    def _build(self) -> None:
        self.lowering: Lowering = lower(self.graph, self.objmode, self.parallel)
        report_copies(self.graph, self.lowering.ownership, self.copies)
        self.module = load_source(self.lowering.text, self.lowering.globals)
        # Only the kernels run on several threads (their loops use prange): Numba's
        # parallel transformation of the whole graph function mistypes its values.
        self.dispatcher = numba.njit(
            cache=True,
            boundscheck=True,
            error_model="python",
        )(getattr(self.module, FUNCTION))
        self.constants = tuple(self.lowering.constants)
        self.compiled = False

    @property
    def fused(self) -> list[list[Node]]:
        """The fused groups of two or more operations, each with the reduction that
        computes it element by element, if one does (see ``Program``)."""
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
        return self.lowering.text

    def prepare(self, args: Sequence[Any], report: Callable[[str], None] | None = None) -> None:
        """Compile for these parameter values' types, if not done yet, telling ``report``
        what it is doing: loading from the disk cache until Numba starts compiling
        (which it does only when the cache has no machine code for them), then how many
        functions it has compiled."""
        if self.compiled:
            return
        if report is None:
            self._compile(args)
            return
        counter = _CompileCounter(report)
        report("loading from the disk cache")
        with event.install_listener("numba:compile", counter):
            self._compile(args)
        self.functions_compiled = counter.count

    def run(self, args: Sequence[Any]) -> Sequence[Any]:
        """The graph's results for these parameter values."""
        if not self.compiled:
            self._compile(args)
        if self.fallback is not None:
            return self.fallback(args)
        try:
            out = self.dispatcher(*args, *self.constants)
        except Interrupted as exc:
            loop, completed = exc.args
            raise interrupted_in(self.lowering.loops[loop], completed) from None
        if not (self.converters or self.const_results):
            return out
        out = list(out)
        for i, convert in self.converters:
            out[i] = convert(out[i])
        for i in self.const_results:
            if isinstance(out[i], np.ndarray):
                out[i] = out[i].copy()
        return out

    def _compile(self, args: list[Any]) -> None:
        for k, arg in enumerate(args):
            reason = unsupported_argument(arg)
            if reason is not None:
                self._fall_back(f"its argument {k + 1} is {reason}")
                return
        types = tuple(numba.typeof(a) for a in (*args, *self.constants))
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
                self.objmode.add(node)
                self.python_nodes[node] = unsupported(node)
                self._build()

    def _clear_cache(self) -> None:
        """Remove Numba's cached machine code for this graph's source."""
        source = Path(self.dispatcher.py_func.__code__.co_filename)
        for folder in (source.parent, source.parent / "__pycache__"):  # where Numba writes
            for path in folder.glob(f"{source.stem}.*.nb[ic]"):
                path.unlink(missing_ok=True)

    def _fall_back(self, reason: str) -> None:
        """Run the graph with the reference backend: correct, only slower."""
        warnings.warn(
            f"nbgraph: the CPU backend cannot compile graph '{self.graph.name}': {reason}; "
            "it runs with the interpret backend instead (correct, but slower)",
            NbgraphPerformanceWarning,
            stacklevel=4,
        )
        self.fallback = Interpreter(self.graph).run
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
