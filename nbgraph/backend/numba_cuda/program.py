"""The CUDA backend: a graph run by the host, its array work done by device kernels.

The host walks a plan made once per graph: control flow and Python scalars stay on
the host (a loop counter costs no kernel), while every array lives on the device from
the moment it is an argument or created until the run returns, so there is no
host round trip per operation.  Each node is *placed*:

* on the device: fused elementwise groups (one kernel each), reductions, matrix
  products, creation, views (indexing, reshape, transpose), integer-array indexing;
* on the host: effects (print, assert, raise), scalar Python arithmetic, lists; a
  device scalar they need (a loop condition like ``err > tol``) is read then.

A node with array work the device cannot do is refused when the graph is built, with
its line, never run wrongly.  Device-side failures (an integer index out of bounds, an
assert on a device value, an integer power with a negative exponent) are recorded in
an error array and raised when the host next reads the device; the error mapping
(``backend/failures/mapping.py``) then re-runs the graph with the interpret backend to report
NumPy's exact error at the user's line.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...errors.exceptions import GraphModeError
from ...graph import runtime
from ...graph.functions import Call, is_effect
from ...graph.ir import Graph, Node, Op, Region
from ...graph.numpy_facts import call_operands, method_name, reduction_of
from ...graph.template import Hole, fill
from ...graph.types import ARRAY, PYTHON, SCALAR, TensorType, TokenType
from ..common.arguments import unsupported_argument
from ..common.fusion import all_groups, count_uses
from ..common.indexing import has_boolean_scalar
from ..common.ownership import Ownership
from ..failures.sites import tag, tag_loop
from . import checks
from .device import as_device, check_available, is_device_array
from .elementwise import Elementwise
from .layout import contiguous
from .reductions import reduce
from .rules import METHOD_RULES, RULES, copy_of
from .scalar_ops import UnsupportedElement, supported
from .steps import Env, Step, is_array, merge, mover


class DeviceUnsupportedError(GraphModeError, NotImplementedError):
    """The graph has array work the CUDA backend cannot do (refused before running)."""


@dataclass
class _Plan:
    """A region made runnable: its params, steps in order and results."""

    params: list[Node]
    steps: list[Step] = field(default_factory=list)
    results: tuple[Node, ...] = ()

    def run(self, env: Env, args: Sequence[Any]) -> list[Any]:
        for param, value in zip(self.params, args):
            env[param] = value
        for step in self.steps:
            step(env)
        return [env.get(r) for r in self.results]  # effect tokens have no value


class CudaGraph:
    """A graph compiled for the CUDA backend; ``run`` takes the flat parameter values
    (NumPy arrays are copied to the device, device arrays used in place)."""

    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.uses = count_uses(graph.body)
        self.groups = all_groups(graph.body, self.uses, _fusable)
        self.ownership = Ownership(graph, element_views=True)
        self.numbers = {node: k + 1 for k, node in enumerate(graph.all_nodes())}
        self.on_device: dict[Node, bool] = {}
        self.may_fail = False
        self.constants: dict[Node, Any] = {}  # arrays uploaded once per program
        self.kernels: list[Elementwise] = []  # the graph's generated kernels
        top = graph.body
        for param in top.params:
            self.on_device[param] = is_array(param)
        self.plan = self._plan(top)
        results = [r for r in top.results if not isinstance(r.type, TokenType)]
        self.results = results
        self.err: Any = None
        self.python_nodes: dict[Node, str] = {}  # none: what cannot run is refused
        self.copies: dict[Node, str] = {}

    @property
    def fused(self) -> list[list[Node]]:
        """The fused groups of two or more operations, one kernel each (see ``Program``)."""
        found = {id(g): g.members for g in self.groups.values()}
        return [members for members in found.values() if len(members) > 1]

    # --- running ---------------------------------------------------------------------
    def prepare(self, args: Sequence[Any], report: Callable[[str], None] | None = None) -> None:
        """Check there is a GPU and the arguments can go to it (kernels compile when
        first launched, specialised for their arguments then)."""
        check_available()
        for k, arg in enumerate(args):
            reason = unsupported_argument(arg) if isinstance(arg, np.ndarray) else None
            if reason is None and isinstance(arg, np.ndarray) and arg.dtype.kind == "c":
                reason = "an array of complex numbers"
            if reason is not None:
                raise DeviceUnsupportedError(
                    f"the CUDA backend cannot take argument {k + 1} of graph "
                    f"'{self.graph.name}': it is {reason}; run this function with "
                    "backend='cpu'"
                )

    def ptx(self, cc: tuple[int, int] = (7, 5)) -> list[str]:
        """The graph's generated elementwise kernels in PTX (no GPU needed)."""
        return [k.ptx(cc) for k in self.kernels]

    def run(self, args: Sequence[Any]) -> list[Any]:
        """The graph's results: NumPy values, or device arrays when an argument was one."""
        if self.err is None:
            check_available()
            self.err = checks.new_error_array()
        device_io = any(is_device_array(a) for a in args)
        values = [
            as_device(a) if on else a
            for a, on in zip(args, (self.on_device[p] for p in self.graph.body.params))
        ]
        env: Env = {}
        try:
            outputs = self.plan.run(env, values)
            # Results stay on the device, still being computed when device arrays came
            # in: work the caller queues next (the default stream) runs after them.
            self.raise_device_error()
        except BaseException:
            self._keep_writes(args, values)
            raise
        params = self.graph.body.params
        return [
            # A parameter returned as it came is the caller's object, as eagerly.
            args[params.index(node)]
            if node.op is Op.PARAM and not device_io
            else self._output(value, node, device_io)
            for value, node in zip(outputs, self.plan.results)
            if node in self.results
        ]

    def _keep_writes(self, args: Sequence[Any], values: Sequence[Any]) -> None:
        """After an error, the caller's NumPy arguments get the writes made before it, as
        eagerly (the writes ran in place on their device copies)."""
        for k in self.graph.writes:
            if isinstance(args[k], np.ndarray) and is_device_array(values[k]):
                np.copyto(args[k], values[k].copy_to_host())

    def raise_device_error(self) -> None:
        """Raise what a kernel recorded in the error array, if anything."""
        if not self.may_fail:
            return
        code, number = self.err.copy_to_host()
        if code:
            self.err = checks.new_error_array()
            node = next((n for n, k in self.numbers.items() if k == number), None)
            where = f" in {node.label()}" if node is not None else ""
            raise checks.EXCEPTIONS[int(code)](f"failed on the device{where}")

    def _output(self, value: Any, node: Node, device_io: bool) -> Any:
        if not is_device_array(value):  # (an item of a tuple may be on the device)
            t = node.type
            if isinstance(t, TensorType) and t.ndim == 0:
                # A host step may leave one kind of scalar where eager code has the other.
                if t.flavor == PYTHON and isinstance(value, np.generic):
                    return value.item()
                if t.flavor == SCALAR and type(value) is not t.dtype.type:
                    return t.dtype.type(value)
            return value
        if device_io and node.type.flavor == ARRAY:
            return value
        return self.fetch(value, node)

    def fetch(self, value: Any, node: Node) -> Any:
        """A device value on the host, with the Python flavor eager code has."""
        self.raise_device_error()
        host = contiguous(value).copy_to_host()
        t = node.type
        if t.flavor == SCALAR:
            return t.dtype.type(host[()])
        if t.flavor == PYTHON:
            return host[()].item()
        return host

    # --- planning --------------------------------------------------------------------
    def _plan(self, region: Region) -> _Plan:
        plan = _Plan(list(region.params), results=region.results)
        for node in region.nodes:
            group = self.groups.get(node)
            if group is not None:
                if node is group.root:
                    plan.steps.append(self._kernel(group.members, group.inputs))
                continue
            step = self._node(node)
            if step is not None:
                plan.steps.append(step)
        return plan

    def _node(self, node: Node) -> Step | None:
        op = node.op
        if isinstance(node.type, TokenType) and op is not Op.CALL:
            self.on_device[node] = False
            return None
        if op is Op.CONST:
            return self._const(node)
        if op is Op.PROJ:
            return self._proj(node)
        if op is Op.COND:
            return self._cond(node)
        if op is Op.WHILE:
            return self._while(node)
        return self._call(node)

    def _const(self, node: Node) -> Step | None:
        value = node.arg
        self.on_device[node] = isinstance(value, np.ndarray)
        if not self.on_device[node]:

            def const(env: Env) -> None:
                env[node] = value

            return const

        def device_const(env: Env) -> None:
            array = self.constants.get(node)
            if array is None:
                array = self.constants[node] = as_device(value)
            env[node] = array

        return device_const

    def _proj(self, node: Node) -> Step:
        source, k = node.inputs[0], node.arg
        places = self.on_device.get(source)
        self.on_device[node] = places[k] if isinstance(places, tuple) else bool(places)

        def proj(env: Env) -> None:
            env[node] = env[source][k]

        return proj

    def _cond(self, node: Node) -> Step:
        pred = node.inputs[0]
        then, other = node.arg
        plans = [self._plan(then), self._plan(other)]
        places = tuple(
            merge(self.on_device.get(a, False), self.on_device.get(b, False))
            for a, b in zip(then.results, other.results)
        )
        self.on_device[node] = places
        read = self.host_reader(pred)
        movers = [self._movers(list(r.results), places) for r in (then, other)]

        def cond(env: Env) -> None:
            branch = 0 if read(env) else 1
            outputs = plans[branch].run(env, ())
            env[node] = tuple(move(v) for move, v in zip(movers[branch], outputs))

        return cond

    def _while(self, node: Node) -> Step:
        test, body = node.arg
        places = [self.on_device.get(i, False) for i in node.inputs]
        while True:  # a state variable on the device anywhere is on the device throughout
            for region in (test, body):
                for param, on in zip(region.params, places):
                    self.on_device[param] = on
            test_plan, body_plan = self._plan(test), self._plan(body)
            after = [merge(on, self.on_device.get(r, False)) for on, r in zip(places, body.results)]
            if after == places:
                break
            places = after
        self.on_device[node] = tuple(places)
        enter = self._movers(list(node.inputs), tuple(places))
        carry = self._movers(list(body.results), tuple(places))
        read = self.host_reader(test.results[0])

        # States that start from a value still used elsewhere: copied before the loop
        # writes into them.
        copied = {k for k in range(len(node.inputs)) if (node, k) in self.ownership.copy_on_entry}

        def loop(env: Env) -> None:
            state = [move(env.get(i)) for move, i in zip(enter, node.inputs)]
            state = [
                copy_of(v) if k in copied and is_device_array(v) else v for k, v in enumerate(state)
            ]
            completed = 0
            try:
                while test_plan.run(env, state) and read(env):
                    state = [move(v) for move, v in zip(carry, body_plan.run(env, state))]
                    completed += 1
            except KeyboardInterrupt as exc:  # Ctrl-C: shown at the innermost loop
                tag(exc, node, [])
                tag_loop(exc, node, completed, (), [])
                raise
            env[node] = tuple(state)

        return loop

    def _movers(self, nodes: list[Node], places: tuple[Any, ...]) -> list[Callable]:
        """Per value: how it gets to where the merged value lives (host scalars go to the
        device when the other path left theirs there)."""
        return [mover(n.type, self.on_device.get(n, False), want) for n, want in zip(nodes, places)]

    def lives_on_device(self, node: Node) -> bool:
        """Whether the node's value lives on the device (a tuple's items are placed
        one by one: the tuple itself is a host structure)."""
        return self.on_device.get(node) is True

    def host_reader(self, node: Node) -> Callable[[Env], Any]:
        """How the host reads ``node``'s value (fetching it if it is on the device)."""
        if self.lives_on_device(node):
            return lambda env: self.fetch(env[node], node)

        def read(env: Env) -> Any:  # an item of a tuple may be on the device
            value = env.get(node)  # (an effect token has no value)
            return self.fetch(value, node) if is_device_array(value) else value

        return read

    # --- calls -----------------------------------------------------------------------
    def _call(self, node: Node) -> Step:
        call: Call = node.arg
        fn = call.fn
        if is_effect(fn):
            return self._effect(node)
        if fn in _LIST_FUNCTIONS:
            return self._list(node)
        on = [self.lives_on_device(i) for i in node.inputs]
        if fn is len or (not any(on) and not is_array(node)):
            return self._host(node, read=fn is not len)
        if fn in (operator.getitem, runtime.setitem) and on[0] and has_boolean_scalar(node):
            raise DeviceUnsupportedError(
                "the CUDA backend cannot index with a boolean scalar (x[s > 0], x[True]: "
                "a new axis of length 1 or 0); branch on it with `if` instead, or run this "
                "function with backend='cpu'",
                node.loc,
            )
        method = method_name(call)
        special = RULES.get(fn) if method is None else METHOD_RULES.get(method)
        if special is not None:
            step = special(self, node)
            if step is not None:
                self.on_device.setdefault(node, True)
                return step
        if _reduction(node) is not None:
            return self._reduction(node)
        if supported(node) and node.type.flavor != PYTHON:
            return self._kernel([node], list(dict.fromkeys(node.inputs)))
        if not is_array(node) and all(not o or i.type.ndim == 0 for o, i in zip(on, node.inputs)):
            return self._host(node)  # scalars read from the device, e.g. float(total)
        raise self._unsupported(node)

    def _unsupported(self, node: Node) -> DeviceUnsupportedError:
        call = node.arg
        # Complex constants (folded while tracing) are named too: the GPU has no complex.
        constants = [
            f"complex constant {a!r}"
            for a in call.args
            if isinstance(a, (complex, np.complexfloating))
        ]
        operands = ", ".join(
            [str(i.type) for i in node.inputs if not isinstance(i.type, TokenType)] + constants
        )
        method = method_name(call)
        name = f".{method}()" if method is not None else call.name
        t = node.type
        giving = (
            f" giving {t} (the GPU kernels have no complex numbers)"
            if isinstance(t, TensorType) and t.dtype.kind == "c"
            else ""
        )
        return DeviceUnsupportedError(
            f"the CUDA backend cannot run {name} on ({operands}){giving} on the GPU; "
            "run this function with backend='cpu'",
            node.loc,
        )

    def _host(self, node: Node, read: bool = True) -> Step:
        """The node's function on host values (device values read first, unless the
        function needs no values, as ``len``)."""
        self.on_device[node] = False
        readers = [self.host_reader(i) if read else (lambda env, i=i: env[i]) for i in node.inputs]
        call = node.arg

        def host(env: Env) -> None:
            env[node] = call.apply([read(env) for read in readers])

        return host

    def _list(self, node: Node) -> Step:
        """A graph list (``runtime.ConsList``) is a host structure: it holds arrays by
        reference, where they live on the device, so appending and indexing move no
        data (a loop's saved states for its gradient stay on the GPU); a scalar item is
        read to the host when appended."""
        self.on_device[node] = node.arg.fn is runtime.list_getitem and is_array(node)
        readers = [
            (lambda env, i=i: env[i]) if is_array(i) else self.host_reader(i) for i in node.inputs
        ]
        call = node.arg

        def host_list(env: Env) -> None:
            env[node] = call.apply([read(env) for read in readers])

        return host_list

    def _effect(self, node: Node) -> Step:
        self.on_device[node] = False
        cond = node.inputs[1] if len(node.inputs) > 1 else None
        if (
            node.arg.fn is runtime.assert_effect
            and len(node.inputs) == 2
            and self.lives_on_device(cond)
            and cond.type.ndim == 0
        ):
            self.may_fail = True
            number = self.numbers[node]

            def device_assert(env: Env) -> None:  # checked on the device: no sync
                checks.device_assert(self.err, env[cond], number)

            return device_assert
        return self._host(node)

    def _kernel(self, members: list[Node], inputs: list[Node]) -> Step:
        root = members[-1]
        on = [self.lives_on_device(i) for i in inputs]
        try:
            kernel = Elementwise(members, inputs, on, self.numbers.__getitem__)
        except UnsupportedElement:
            raise self._unsupported(root) from None
        self.may_fail |= kernel.may_fail
        self.kernels.append(kernel)
        for member in members:
            self.on_device[member] = True

        def elementwise(env: Env) -> None:
            env[root] = kernel(self.err, [env[i] for i in inputs])

        return elementwise

    def _reduction(self, node: Node) -> Step:
        method, axis, keepdims = _reduction(node)
        source = node.inputs[0]
        dtype = node.type.dtype
        self.on_device[node] = True
        to_device = self.device_reader(source)

        def reduction(env: Env) -> None:
            env[node] = reduce(to_device(env), method, axis, keepdims, dtype)

        return reduction

    def device_reader(self, node: Node) -> Callable[[Env], Any]:
        if self.lives_on_device(node):
            return lambda env: env[node]
        dtype = node.type.dtype
        return lambda env: as_device(np.asarray(env[node], dtype=dtype))

    def arguments(self, node: Node) -> Callable[[Env], list[Any]]:
        """The node's filled argument template at run time (device arrays as they are,
        host scalars as values)."""
        call = node.arg
        inputs = node.inputs

        def values(env: Env) -> tuple[list[Any], dict[str, Any]]:
            holes = [env[i] for i in inputs]
            return fill(call.args, holes), fill(call.kwargs, holes)

        return values


_LIST_FUNCTIONS = frozenset(
    {runtime.list_new, runtime.list_append, runtime.list_len, runtime.list_getitem}
)


def _reduction(node: Node) -> tuple[str, int | None, bool] | None:
    """(method, axis, keepdims) of a reduction arrays have as a method (np.amax is
    x.max) of one device array, else None."""
    call = node.arg
    facts = reduction_of(call)
    rest = call_operands(call)[1:]
    if (
        facts is None
        or facts.method is None
        or len(rest) > 1
        or (rest and "axis" in call.kwargs)
        or set(call.kwargs) - {"axis", "keepdims"}
    ):
        return None
    if call.args[0] != Hole(0) or not is_array(node.inputs[0]):
        return None
    axis = rest[0] if rest else call.kwargs.get("axis")  # m.max(0) is m.max(axis=0)
    keepdims = call.kwargs.get("keepdims", False)
    if not (axis is None or type(axis) is int) or type(keepdims) is not bool:
        return None
    return facts.method, axis, keepdims


def _fusable(node: Node) -> bool:
    """Whether a node can be computed element by element inside a fused kernel."""
    return (
        node.op is Op.CALL
        and is_array(node)
        and supported(node)
        and all(isinstance(i.type, TensorType) for i in node.inputs)
    )
