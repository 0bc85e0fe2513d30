"""The reference backend: execute a graph node by node with NumPy.

It is the semantic reference the compiled backends are tested against, so it is kept
as direct as possible: every CALL applies its function to the inputs' values.  It is
also the error locator: a failing run's exception carries the failing node, its
operands and the loop iterations around it (``backend.failures.sites``); before the
error leaves a try statement's body, the statement's finally clause runs
(``backend.failures.finally_clauses``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, TextIO

import numpy as np

from ..graph import runtime
from ..graph.ir import Graph, Node, Op, Region
from ..graph.template import fill
from ..graph.types import PYTHON, SCALAR, TensorType, type_of
from .common.ownership import Ownership
from .failures.finally_clauses import run_finally_clauses
from .failures.sites import tag, tag_loop


class Interpreter:
    """Runs one graph; ``run`` takes the flat parameter values.

    With ``writes_in_place`` (the interpret backend itself), an update whose old value
    nothing uses any more writes into its array, as eager code does: an argument the
    function writes into changes as the run goes (also when it fails midway), and a
    loop filling an array does not copy it per element.  Runs that must leave the
    arguments alone (locating an error, recording values) keep every update a copy.
    """

    def __init__(
        self,
        graph: Graph,
        deadline: float | None = None,
        writes_in_place: bool = False,
        finally_output: tuple[TextIO, TextIO] | None = None,
    ) -> None:
        self.graph = graph
        self.deadline = deadline  # time.monotonic() after which loops give up
        # where the finally clauses run after a failure print (None: where the run does)
        self.finally_output = finally_output
        ownership = Ownership(graph) if writes_in_place else None
        self.in_place = _array_updates(ownership.in_place) if ownership else set()
        # Loop states that start from a value still used elsewhere: copied on entry, as
        # the compiled backends copy them, before the loop writes into them.
        self.copy_on_entry = ownership.copy_on_entry if ownership else set()
        self.python_nodes: dict[Node, str] = {}  # (every node runs in Python here)
        self.copies: dict[Node, str] = {}
        self.fused: list[list[Node]] = []  # (each node runs on its own)
        # Per region, the values no later node needs, after each node (see _last_uses).
        self._drops: dict[int, list[list[Node]]] = {}

    def prepare(self, args: Sequence[Any], report: Callable[[str], None] | None = None) -> None:
        """Nothing to compile: nodes run as they are."""

    def run(self, args: Sequence[Any]) -> list[Any]:
        """The graph's results (the effect token left out)."""
        env: dict[Node, Any] = {}
        return self._region(self.graph.body, args, env)[:-1]

    def _region(self, region: Region, args: Any, env: dict[Node, Any]) -> list[Any]:
        for param, value in zip(region.params, args):
            env[param] = value
        drops = self._drops.get(id(region))
        if drops is None:
            drops = self._drops[id(region)] = _last_uses(region)
        for node, dropped in zip(region.nodes, drops):
            try:
                env[node] = self._eval(node, env)
            except Exception as exc:
                run_finally_clauses(region, node, env, exc, self._eval, self.finally_output)
                raise
            for done in dropped:  # (freed as eager code frees its temporaries)
                del env[done]
        return [env[r] for r in region.results]

    def _eval(self, node: Node, env: dict[Node, Any]) -> Any:
        op = node.op
        if op is Op.CALL:
            values = [env[i] for i in node.inputs]
            try:
                value = _write(node, values) if node in self.in_place else node.arg.apply(values)
            except Exception as exc:
                tag(exc, node, values)
                raise
            _check_type(node, value)
            return value
        if op is Op.CONST:
            return node.arg
        if op is Op.PROJ:
            return env[node.inputs[0]][node.arg]
        if op is Op.COND:
            then, other = node.arg
            return tuple(self._region(then if env[node.inputs[0]] else other, (), env))
        if op is Op.WHILE:
            test, body = node.arg
            state = [
                env[i].copy()
                if (node, k) in self.copy_on_entry and isinstance(env[i], np.ndarray)
                else env[i]
                for k, i in enumerate(node.inputs)
            ]
            completed = 0
            try:
                while self._region(test, state, env)[0]:
                    state = self._region(body, state, env)
                    completed += 1
                    if self.deadline is not None and time.monotonic() > self.deadline:
                        raise TimeoutError("the interpret backend ran out of time")
            except KeyboardInterrupt as exc:  # Ctrl-C: shown at the innermost loop
                tag(exc, node, [])
                tag_loop(exc, node, completed, body.names, state)
                raise
            except Exception as exc:
                tag_loop(exc, node, completed, body.names, state)
                raise
            return tuple(state)
        raise AssertionError(f"cannot interpret {node!r}")


class RecordingInterpreter(Interpreter):
    """An Interpreter that hands every value it computes to ``record(node, value)``,
    parameters of nested regions included (the graph view's value summaries).  A
    subclass, so that plain runs pay nothing for it."""

    def __init__(self, graph: Graph, record: Callable[[Node, Any], None]) -> None:
        super().__init__(graph)
        self.record = record

    def _region(self, region: Region, args: Any, env: dict[Node, Any]) -> list[Any]:
        for param, value in zip(region.params, args):
            self.record(param, value)
        return super()._region(region, args, env)

    def _eval(self, node: Node, env: dict[Node, Any]) -> Any:
        value = super()._eval(node, env)
        self.record(node, value)
        return value


def _last_uses(region: Region) -> list[list[Node]]:
    """For each node of ``region``, the region's values (its nodes') that nothing after it
    uses (its nested regions' nodes included; the region's results are kept)."""
    index = {node: k for k, node in enumerate(region.nodes)}
    last: dict[Node, int] = {}
    for k, node in enumerate(region.nodes):
        for used in node.reads():
            if used in index:
                last[used] = k
    for result in region.results:
        last.pop(result, None)
    kept = set(region.results)
    drops: list[list[Node]] = [[] for _ in region.nodes]
    for node, k in index.items():
        if node not in kept:
            drops[last.get(node, k)].append(node)
    return drops


def _array_updates(nodes: set[Node]) -> set[Node]:
    """The in-place updates that are array writes (``x[i] = v``)."""
    return {n for n in nodes if n.arg.fn is runtime.setitem}


def _write(node: Node, values: list[Any]) -> Any:
    """``x[index] = value`` into x itself (an owned array; see ``Ownership``)."""
    target, index, value = fill(node.arg.args, values)
    if not isinstance(target, np.ndarray):
        return node.arg.apply(values)
    target[index] = value
    return target


def _check_type(node: Node, value: Any) -> None:
    """The reference backend checks every value against its static type: a mismatch is
    a bug in a type rule, and compiled backends would silently misread the value."""
    actual = type_of(value)
    if (
        isinstance(node.type, TensorType)
        and actual != node.type
        and not (actual is not None and _same_scalar(actual, node.type))
    ):
        raise TypeError(
            f"internal error: graph op '{node.label()}' produced {type_of(value)} where "
            f"{node.type} was inferred; please report this with the function's source"
        )


def _same_scalar(a: TensorType, b: TensorType) -> bool:
    """A Python scalar where a NumPy scalar of the same dtype is typed (or the reverse)
    is right: each path keeps the kind of scalar eager code has (see runtime.retype)."""
    return (a.dtype, a.ndim) == (b.dtype, b.ndim) and {a.flavor, b.flavor} <= {PYTHON, SCALAR}
