"""Lowering: a Graph to the Python source of one function that ``numba.njit`` compiles.

Every node becomes one assignment; COND becomes ``if``/``else`` and WHILE a real
``while`` loop, so ``break`` exits early and state lives in registers.  Effects (print,
assert, raise) call back into Python through ``objmode`` so their text is eager's.  A
node Numba cannot type is lowered to an ``objmode`` call of the same function (the
compiler finds those nodes from Numba's error and lowers again).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numba
import numpy as np

from ...graph import runtime
from ...graph.functions import Call, is_effect, is_elementwise
from ...graph.ir import Graph, Node, Op, Region
from ...graph.numpy_facts import OPERATORS, call_operands, method_name, reduction_of
from ...graph.template import Hole, Text, fill
from ...graph.types import (
    ARRAY,
    PYTHON,
    SCALAR,
    ListType,
    TensorType,
    TokenType,
    TupleType,
    type_of,
)
from ..common.fusion import (
    Group,
    all_groups,
    count_uses,
    crosses_writes,
    is_float_clip,
    is_fusable,
    is_select,
    small_power,
)
from ..common.indexing import basic_rank, has_boolean_scalar, key_items
from ..common.ownership import Ownership
from ..failures.sites import tag
from ..generated import stable_key
from . import element_loops, float32_powers, numpy_loops, python_ints, staged
from .chunked import make_chunked
from .kernels import KernelWriter
from .order_statistics import RULES as ORDER_STATISTICS
from .reductions import Reduction, reduction

FUNCTION = "graph_function"
_PY_CASTS = {"b": "bool", "i": "int", "u": "int", "f": "float", "c": "complex"}
_ARRAY_DIVISION = {
    operator.truediv: "np.true_divide",
    operator.floordiv: "np.floor_divide",
    operator.mod: "np.remainder",
    operator.pow: "np.power",
}
# NumPy's signed integer divisions, as ``helpers`` computes them.
_SIGNED_DIVISION = {
    operator.floordiv: "floor_divide",
    np.floor_divide: "floor_divide",
    operator.mod: "remainder",
    np.remainder: "remainder",
}
# Comparisons and choices by order (see _complex_ordering).
_ORDERINGS = frozenset(
    {
        operator.lt,
        operator.le,
        operator.gt,
        operator.ge,
        np.less,
        np.less_equal,
        np.greater,
        np.greater_equal,
        np.maximum,
        np.minimum,
        np.fmax,
        np.fmin,
        runtime.extremum,
    }
)
_MATH_OVERFLOWS = frozenset(
    {"exp", "exp2", "expm1", "cosh", "sinh", "gamma", "lgamma", "ldexp", "pow", "hypot", "fsum"}
)
_UFUNC_OPERATORS = {
    fn: OPERATORS[fn].ufunc for fn in (operator.pow, operator.floordiv, operator.mod)
}
# Signed integer operations generated as ``wrapping``'s (a negation is 0 - x).
_WRAPPING = {
    operator.add: ("add", 2),
    np.add: ("add", 2),
    operator.sub: ("sub", 2),
    np.subtract: ("sub", 2),
    operator.mul: ("mul", 2),
    np.multiply: ("mul", 2),
    operator.neg: ("sub", 1),
    np.negative: ("sub", 1),
}
_NATIVE_SCALARS = {np.dtype(t) for t in (np.float64, np.int64, np.bool_, np.complex128)}


class Source:
    """A name in generated code (rendered bare by repr)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def numba_type(t: Any) -> str:
    """The Numba type of a graph type, as source evaluated in ``numba.types``."""
    if isinstance(t, TensorType):
        scalar = str(t.dtype) if t.dtype.kind != "b" else "boolean"
        if t.flavor == ARRAY:
            return f"Array({scalar}, {t.ndim}, 'A')"
        return scalar
    if isinstance(t, TupleType):
        return "Tuple((" + "".join(numba_type(i) + ", " for i in t.items) + "))"
    if isinstance(t, ListType) and t.elem is not None:
        return f"ListType({numba_type(t.elem)})"
    raise TypeError(f"no Numba type for {t}")


class Lowering:
    """Generates the source; ``objmode`` holds nodes that must call back into Python."""

    def __init__(self, graph: Graph, objmode: set[Node], parallel: bool = False) -> None:
        self.graph = graph
        self.objmode = objmode
        self.parallel = parallel  # fused loops over large arrays use prange
        self.uses = count_uses(graph.body)
        self.groups = all_groups(graph.body, self.uses, self._fusable)
        # Reductions computing their operand's fused group element by element.
        self.absorbed: dict[Node, Group] = {}
        self.absorbed_members = self._absorb(graph.body)
        self.ownership = Ownership(graph)
        self.kernels = KernelWriter(self)
        self.names: dict[Node, str] = {}
        self.lines: list[str] = []
        self.line_nodes: dict[int, Node] = {}
        self.constants: list[Any] = []  # values of hidden array arguments
        self.globals: dict[str, Any] = {}
        self.params = [self._name(p, "p") for p in graph.body.params]
        self.callbacks: list[str] = []  # module-level functions: kernels, objmode calls
        # What objmode calls reach (by index), and the compiled function making the
        # calls of each (arity, result type): see ``_python_call``.
        self._targets: list[Callable] = []
        self.globals["_targets"] = self._targets
        self._callers: dict[tuple[int, str | None], str] = {}
        self.loops: list[Node] = []  # while nodes, numbered as Interrupted reports them

    # --- names, literals ---------------------------------------------------------------
    def _name(self, node: Node, prefix: str = "v") -> str:
        if node not in self.names:
            self.names[node] = f"{prefix}{len(self.names)}"
        return self.names[node]

    def _global(self, value: Any, prefix: str) -> str:
        for name, existing in self.globals.items():
            if existing is value:
                return name
        name = f"_{prefix}{len(self.globals)}"
        self.globals[name] = value
        return name

    def literal(self, value: Any) -> str:
        """Source for a constant inside an argument template."""
        if isinstance(value, Source):
            return value.text
        if value is None or isinstance(value, (bool, int, str)):
            return repr(value)
        if isinstance(value, float):
            if math.isfinite(value):
                return repr(value)
            return "np.nan" if math.isnan(value) else ("np.inf" if value > 0 else "-np.inf")
        if isinstance(value, complex):
            return f"complex({self.literal(value.real)}, {self.literal(value.imag)})"
        if isinstance(value, np.generic) and value.dtype.kind in "biufc":
            return f"np.{value.dtype.name}({self.literal(value.item())})"
        if isinstance(value, (tuple, list)):
            return "(" + "".join(self.literal(v) + ", " for v in value) + ")"
        if isinstance(value, slice):
            parts = [
                self.literal(p) if p is not None else ""
                for p in (value.start, value.stop, value.step)
            ]
            return ":".join(parts) if value.step is not None else ":".join(parts[:2])
        if value is Ellipsis:
            return "..."
        if isinstance(value, np.dtype):
            return f"np.{value.name}" if value.kind != "b" else "np.bool_"
        if isinstance(value, type) and value in (float, int, bool, complex):
            return {
                float: "np.float64",
                int: "np.int64",
                bool: "np.bool_",
                complex: "np.complex128",
            }[value]
        if isinstance(value, type) and issubclass(value, np.generic):
            return f"np.{np.dtype(value).name}"
        return self._global(value, "k")

    def _args(self, call: Call, inputs: list[str]) -> tuple[list[str], list[str]]:
        values = [Source(n) for n in inputs]
        args = [self.literal(a) for a in fill(call.args, values)]
        kwargs = [f"{k}={self.literal(v)}" for k, v in fill(call.kwargs, values).items()]
        return args, kwargs

    def _index(self, template: Any, inputs: list[str], node: Node) -> str:
        index = fill(template, [Source(n) for n in inputs])
        items = _without_ellipsis(index if isinstance(index, tuple) else (index,), node)
        index = items if isinstance(index, tuple) or len(items) != 1 else items[0]
        text = [
            f"np.array({self.literal(i)})" if isinstance(i, list) else self.literal(i)
            for i in items
        ]
        if isinstance(index, tuple):
            return ", ".join(text) or "()"
        return text[0]

    # --- emission -----------------------------------------------------------------------
    def emit(self, text: str, indent: int, node: Node | None = None) -> None:
        self.lines.append("    " * indent + text)
        if node is not None:
            self.line_nodes[len(self.lines)] = node

    def source(self) -> str:
        """The whole module source."""
        body = self.graph.body
        self.lines = []
        self._region(body, 1)
        results = [self.names[r] for r in body.results if not isinstance(r.type, TokenType)]
        self.emit(f"return ({''.join(r + ', ' for r in results)})", 1)
        hidden = [f"k{i}" for i in range(len(self.constants))]
        header = [
            "import math",
            "import numpy as np",
            "from numba import njit, objmode, prange, types",
            "from numba.typed import List",
            "from nbgraph.backend.numba_cpu import array_reductions, complex_powers",
            "from nbgraph.backend.numba_cpu import float32_powers, helpers, numpy_loops",
            "from nbgraph.backend.numba_cpu import pairwise, products, wrapping",
            "",
            *(line for cb in self.callbacks for line in ("", *cb.splitlines(), "")),
            "",
            f"def {FUNCTION}({', '.join(self.params + hidden)}):",
        ]
        offset = len(header)
        self.line_nodes = {line + offset: n for line, n in self.line_nodes.items()}
        return "\n".join(header + self.lines) + "\n"

    def _region(self, region: Region, indent: int) -> None:
        for node in region.nodes:
            if node in self.absorbed_members:
                continue
            group = self.groups.get(node)
            if group is not None and node not in self.objmode:
                if node is group.root:
                    self._fused(group, indent)
                continue
            self._node(node, indent)
        if not region.nodes:
            self.emit("pass", indent)

    def _fusable(self, node: Node) -> bool:
        """Whether a node is computed element by element in a fused loop (not by a call
        back into Python)."""
        return is_fusable(node) and node not in self.objmode and not _complex_ordering(node)

    def _absorb(self, body: Region) -> set[Node]:
        """Fused groups that a reduction in their region (``body`` or one nested in it)
        computes element by element (the group's only use), so their result is never
        stored; returns the groups' members."""
        members: set[Node] = set()
        for region in body.walk():
            members |= self._absorb_in(region)
        return members

    def _absorb_in(self, region: Region) -> set[Node]:
        members: set[Node] = set()
        here = set(region.nodes)
        crosses = crosses_writes(region)
        for node in region.nodes:
            red = reduction(node)
            group = self.groups.get(red.source) if red else None
            if (
                group is None
                or group.root not in here
                or group.root is not red.source
                or (red.ndim > 2 and red.axis != red.ndim - 1)
                or self.uses.get(group.root) != 1
                or node in self.objmode
            ):
                continue
            if any(crosses(m, node) for m in group.members):
                continue  # computed where it is: it reads what is written since
            if (
                any(self.block_loop(m) for m in group.members)
                or not group.scalar_loop_safe
                or any(m in self.objmode for m in group.members)
            ):
                continue  # NumPy's SIMD functions beat a compiled scalar loop
            self.absorbed[node] = group
            members.update(group.members)
        return members

    def _node(self, node: Node, indent: int) -> None:
        op = node.op
        if isinstance(node.type, TokenType) and op is not Op.CALL:
            return
        if op is Op.CONST:
            self._const(node, indent)
        elif op is Op.PROJ:
            source = node.inputs[0]
            if source.op in (Op.COND, Op.WHILE):
                self.names[node] = self.names[source][node.arg]
            else:
                self.emit(f"{self._name(node)} = {self.names[source]}[{node.arg}]", indent, node)
        elif op is Op.COND:
            self._cond(node, indent)
        elif op is Op.WHILE:
            self._while(node, indent)
        elif op is Op.CALL:
            self._call(node, indent)
        else:
            raise AssertionError(f"cannot lower {node!r}")

    def _const(self, node: Node, indent: int) -> None:
        value = node.arg
        if isinstance(value, np.ndarray):
            self.constants.append(value)
            self.names[node] = f"k{len(self.constants) - 1}"
            return
        self.emit(f"{self._name(node)} = {self.literal(value)}", indent, node)

    def _state_names(self, node: Node, prefix: str) -> list[str | None]:
        items = node.type.items
        base = self._name(node, prefix)
        names = [None if isinstance(t, TokenType) else f"{base}_{k}" for k, t in enumerate(items)]
        self.names[node] = names  # type: ignore[assignment]
        return names

    def _assign(self, targets: list[str | None], values: list[Node], indent: int) -> None:
        """Set state variables; unchanged ones are skipped (an array reassigned in a
        loop costs reference counting on every iteration)."""
        pairs = [
            (t, self.names[v])
            for t, v in zip(targets, values)
            if t is not None and t != self.names[v]
        ]
        if not pairs:
            return
        if {v for _, v in pairs} & {t for t, _ in pairs}:  # a swap: assign all at once
            left = ", ".join(t for t, _ in pairs)
            right = ", ".join(v for _, v in pairs)
            self.emit(f"{left}, = {right},", indent)
            return
        for target, value in pairs:
            self.emit(f"{target} = {value}", indent)

    def _cond(self, node: Node, indent: int) -> None:
        names = self._state_names(node, "c")
        then, other = node.arg
        self.emit(f"if {self.names[node.inputs[0]]}:", indent, node)
        self._region(then, indent + 1)
        self._assign(names, list(then.results), indent + 1)
        self.emit("else:", indent)
        self._region(other, indent + 1)
        self._assign(names, list(other.results), indent + 1)

    def _while(self, node: Node, indent: int) -> None:
        base = self._name(node, "s")  # the state variables are base_0, base_1, ...
        names = self._state_names(node, "s")
        test, body = node.arg
        for k, value in enumerate(node.inputs):
            if names[k] is None:
                continue
            source = self.names[value]
            if (node, k) in self.ownership.copy_on_entry:
                source += ".copy()"
            self.emit(f"{names[k]} = {source}", indent, node)
        for region in (test, body):
            for k, param in enumerate(region.params):
                if names[k] is not None:
                    self.names[param] = names[k]
        loop = None if self.parallel else element_loops.match(node, self._per_element)
        if loop is not None:  # block by block where it can, else as written
            self._element_loop(loop, base, indent)
            self.emit("else:", indent)
            indent += 1
        # Signals are looked at now and then, so Ctrl-C stops a long or endless loop.
        ticks = f"{base}_ticks"
        self.emit(f"{ticks} = 0", indent, node)
        self.emit("while True:", indent, node)
        self.emit(f"{ticks} += 1", indent + 1, node)
        self.emit(f"if helpers.interrupted({ticks}):", indent + 1, node)
        self.emit(f"raise helpers.Interrupted({len(self.loops)}, {ticks} - 1)", indent + 2, node)
        self.loops.append(node)
        self._region(test, indent + 1)
        self.emit(f"if not {self.names[test.results[0]]}:", indent + 1, node)
        self.emit("break", indent + 2)
        self._region(body, indent + 1)
        self._assign(names, list(body.results), indent + 1)

    def _per_element(self, node: Node) -> bool:
        """Whether a fusable node is computed by a compiled scalar loop."""
        return node not in self.objmode and not self.block_loop(node)

    def _element_loop(self, loop: element_loops.ElementLoop, base: str, indent: int) -> None:
        """The loop block by block (``element_loops``), when it has an iteration and its
        arrays are C-contiguous and of one shape: its scalars iteration by iteration
        first, then the kernel."""
        node = loop.node
        names = self.names[node]
        body = node.arg[1]
        counter = names[loop.counter]
        trip = f"{base}_trip"
        arrays = [names[k] for k in loop.states] + [self.names[v] for v in loop.outside_arrays]
        checks = [f"{trip} > 0", *(f"pairwise.is_c({a})" for a in arrays)]
        checks += [f"{a}.shape == {arrays[0]}.shape" for a in arrays[1:]]
        steps = [f"{trip}_q{j}" for j in range(len(loop.per_iteration))]
        if steps:  # the iterations' scalars are stored: not for a very long loop
            checks.append(f"{trip} <= {element_loops.MAX_STORED}")
        self.emit(f"{trip} = {self.names[loop.bound]} - {counter}", indent, node)
        self.emit(f"if {' and '.join(checks)}:", indent, node)
        for q, value in zip(steps, loop.per_iteration):
            self.emit(f"{q} = np.empty({trip}, {self.literal(value.type.dtype)})", indent + 1)
        step = body.results[loop.counter]
        if steps or any(n is not step for n in loop.scalars):
            self.emit(f"for {trip}_t in range({trip}):", indent + 1, node)
            for scalar in loop.scalars:
                self._node(scalar, indent + 2)
            for q, value in zip(steps, loop.per_iteration):
                self.emit(f"{q}[{trip}_t] = {self.names[value]}", indent + 2)
            self._assign([counter], [step], indent + 2)
        else:
            self.emit(f"{counter} = {counter} + {trip}", indent + 1)
        # A state starts in its initial array where ownership hands that over and the
        # loop's elements do not also read it from outside.
        handed_over = {
            k
            for k in loop.states
            if (node, k) in self.ownership.handed_over and node.inputs[k] not in loop.outside
        }
        source = element_loops.kernel(loop, self, len(self.loops), handed_over)
        kernel = self.kernels.add_lines("loop", source)
        states = [names[k] for k in loop.states]
        args = [trip, *steps, *states, *(self.names[v] for v in loop.outside)]
        self.emit(f"{', '.join(states)}, = {kernel}({', '.join(args)})", indent + 1, node)

    def _call(self, node: Node, indent: int) -> None:
        call: Call = node.arg
        inputs = [self.names.get(i, "None") for i in node.inputs]
        if is_effect(call.fn):
            self._effect(node, inputs, indent)
            return
        if node in self.objmode or _beyond_numba(node):
            self._objmode(node, inputs, indent)
            return
        for check in python_ints.checks(self, node, inputs):
            self.emit(check, indent, node)
        special = _STATEMENTS.get(call.fn)
        if special is not None:
            special(self, node, inputs, indent)
            return
        red = reduction(node)
        if red is not None:
            self._reduce(red, indent)
            return
        axis_reduction = _axis_reduction(node)
        if axis_reduction is not None:
            self._reduce_axis(node, inputs[0], *axis_reduction, indent)
            return
        expr = self.expression(node, inputs)
        t = node.type
        if (
            isinstance(t, TensorType)
            and t.ndim == 0
            and t.flavor == SCALAR
            and t.dtype not in _NATIVE_SCALARS
            and t.dtype.kind in "iufc"
        ):
            # NumPy's type: int8 etc. wrap around, and Numba computes some float32
            # functions in float64 (np.round), which float() would then show.
            expr = f"{self.literal(t.dtype)}({expr})"
        self.emit(f"{self._name(node)} = {expr}", indent, node)
        self._python_float_errors(node, indent)

    def _python_float_errors(self, node: Node, indent: int) -> None:
        """Python floats raise where C math returns inf/NaN: ``math.sqrt(-1.0)``,
        ``math.log(0.0)``, ``math.exp(1e3)``, ``0.0 ** -1.0``."""
        t, fn = node.type, node.arg.fn
        if not (isinstance(t, TensorType) and t.flavor == PYTHON and t.dtype.kind == "f"):
            return
        operands = [self.names[i] for i in node.inputs]
        name = self._name(node)
        args, kwargs = self._args(node.arg, operands)
        if fn is operator.pow and len(args) == 2 and not kwargs:  # (an int ** -k: floats)
            floats = ", ".join(f"float({x})" for x in args)
            self.emit(f"{name} = helpers.float_power({floats})", indent, node)
        elif getattr(fn, "__module__", None) == "math" and 1 <= len(operands) <= 2:
            x, y = operands[0], operands[-1] if len(operands) == 2 else "0.0"
            overflows = fn.__name__ in _MATH_OVERFLOWS
            self.emit(
                f"{name} = helpers.math_result({name}, float({x}), float({y}), {overflows})",
                indent,
                node,
            )

    def _reduce(self, red: Reduction, indent: int) -> None:
        """A sum, mean, var or std in NumPy's order, its operand's group fused in."""
        group = self.absorbed.get(red.node)
        name = self._name(red.node)
        if group is None:
            self.emit(
                f"{name} = {self.kernels.shared(red, self.names[red.source])}", indent, red.node
            )
        else:
            inputs = ", ".join(self.names[i] for i in group.inputs)
            self.emit(f"{name} = {self.kernels.reduce(red, group)}({inputs})", indent, red.node)
        if red.keepdims:
            shape = [1] * red.ndim
            if red.axis is None:
                self.emit(f"{name} = np.full({tuple(shape)}, {name})", indent, red.node)
                return
            if red.ndim > 2:
                self.emit(f"{name} = np.expand_dims({name}, {red.axis})", indent, red.node)
                return
            shape[1 - red.axis] = -1
            self.emit(f"{name} = {name}.reshape({tuple(shape)})", indent, red.node)

    def element_expression(self, node: Node, inputs: list[str]) -> str:
        """The expression computing one element of an elementwise node in a kernel:
        small powers as multiplications (``fusion.small_power``), which vectorize;
        ``np.clip`` of floats and ``np.where`` in the result's type."""
        power = small_power(node)
        if power is not None:
            x = inputs[0]
            return f"({x} * {x})" if power == 2 else f"np.sqrt({x})"
        if is_float_clip(node):
            dtype = self.literal(node.type.dtype)
            return f"helpers.clip({', '.join(f'{dtype}({a})' for a in inputs)})"
        if is_select(node):
            dtype = self.literal(node.type.dtype)
            condition, x, y = self._args(node.arg, inputs)[0]
            return f"({dtype}({x}) if {condition} else {dtype}({y}))"
        expr = self.expression(node, inputs, per_element=True)
        if node.type.dtype not in _NATIVE_SCALARS:
            expr = f"{self.literal(node.type.dtype)}({expr})"
        return expr

    def _reduce_axis(
        self, node: Node, x: str, method: str, axis: int, keepdims: bool, indent: int
    ) -> None:
        """A reduction along one axis of a 1-d or 2-d array, as a loop of whole-row
        reductions (Numba has no ``axis=``/``keepdims=`` for most of them)."""
        name = self._name(node)
        ndim = node.inputs[0].type.ndim
        if ndim == 1:
            self.emit(f"{name} = {_reduced(x, method)}", indent, node)
            if keepdims:
                self.emit(f"{name} = np.full(1, {name})", indent, node)
            return
        dtype = self.literal(node.type.dtype)
        keep = axis % 2
        size = f"{x}.shape[{1 - keep}]"
        part = f"{x}[{name}_i]" if keep else f"{x}[:, {name}_i]"
        flat = f"{name}_r" if keepdims else name
        self.emit(f"{flat} = np.empty({size}, {dtype})", indent, node)
        self.emit(f"for {name}_i in range({size}):", indent, node)
        self.emit(f"{flat}[{name}_i] = {_reduced(part, method)}", indent + 1, node)
        if keepdims:
            shape = f"({size}, 1)" if keep else f"(1, {size})"
            self.emit(f"{name} = {flat}.reshape({shape})", indent, node)

    def expression(self, node: Node, inputs: list[str], per_element: bool = False) -> str:
        """The source expression computing a CALL node natively.

        ``per_element``: inside a fused loop, where division-like operators use NumPy's
        scalar ufuncs (inf/nan on division by zero, as for arrays) instead of Python's.
        """
        call: Call = node.arg
        fn = call.fn
        power = float32_powers.exponent(node)
        if power is not None and (per_element or node.type.ndim == 0):
            return f"float32_powers.power_{power}({inputs[0]})"
        loop = self.numpy_loop(node, inputs, per_element)
        if loop is not None:
            # NumPy's own SIMD loop, not the C library's function: NumPy's last bits.
            return f"numpy_loops.{loop[0].__name__}({', '.join(loop[1])})"
        args, kwargs = self._args(call, inputs)
        if is_elementwise(fn):
            args = self._weak_operands(node, args)
        wraps, arity = _WRAPPING.get(fn, (None, 0))
        if (
            wraps is not None
            and node.type.dtype.kind == "i"
            and not kwargs
            and len(args) == arity
            and (per_element or _numpy_scalar_result(node))
        ):
            # NumPy wraps around; Numba's "no signed wrap" lets LLVM assume no overflow.
            dtype = self.literal(node.type.dtype)
            operands = [f"{dtype}({a})" for a in (["0", *args] if arity == 1 else args)]
            return f"wrapping.{wraps}({', '.join(operands)})"
        if (
            fn is operator.pow
            and node.type.dtype.kind == "c"
            and len(args) == 2
            and node.type.ndim == 0
            and not kwargs
        ):
            # Python multiplies for integer exponents, Numba takes logarithms.
            return f"complex_powers.python_power(complex({args[0]}), complex({args[1]}))"
        if (
            fn is operator.invert
            and node.type.dtype.kind == "i"
            and len(args) == 1
            and node.inputs[0].type.dtype.kind == "b"
        ):
            return f"(~np.int64({args[0]}))"  # ~ of a Python bool is of the int (~True: -2)
        if (
            fn is np.sign
            and node.type.dtype.kind == "f"
            and len(args) == 1
            and not kwargs
            and (per_element or node.type.ndim == 0)
        ):
            dtype = self.literal(node.type.dtype)
            return f"helpers.sign({dtype}({args[0]}), {dtype}(1))"  # (+0 of -0)
        if (
            fn in (np.maximum, np.minimum)
            and node.type.dtype.kind == "f"
            and len(args) == 2
            and not kwargs
            and (per_element or node.type.ndim == 0)
        ):
            # Of two equal values (signed zeros) NumPy keeps the second, Numba the first.
            dtype = self.literal(node.type.dtype)
            return f"helpers.{fn.__name__}({dtype}({args[0]}), {dtype}({args[1]}))"
        if (
            fn in (operator.pow, np.power)
            and node.type.dtype.kind in "iu"
            and len(args) == 2
            and not kwargs
            and _numpy_scalar_result(node)
        ):
            return f"helpers.integer_power({args[0]}, {args[1]})"
        division = _SIGNED_DIVISION.get(fn)
        if (
            division is not None
            and node.type.dtype.kind == "i"
            and len(args) == 2
            and not kwargs
            and (per_element or _numpy_scalar_result(node))
        ):
            # NumPy's result where the processor's division traps (the minimum by -1).
            dtype = self.literal(node.type.dtype)
            operands = ", ".join(f"{dtype}({a})" for a in args)
            return f"{dtype}(helpers.{division}({operands}))"
        if fn in _ARRAY_DIVISION and (per_element or _numpy_scalar_result(node)):
            if fn is operator.truediv and node.type.dtype == np.float64:
                args = [f"np.float64({a})" for a in args]  # NumPy divides integers as float64
            return f"{_ARRAY_DIVISION[fn]}({', '.join(args)})"
        if fn is operator.matmul:
            return _matmul(self, node, args, kwargs)
        op = OPERATORS.get(fn)
        if op is not None and op.syntax is not None:
            if op.arity == 1:
                return f"({op.syntax}{args[0]})"
            return f"({args[0]} {op.syntax} {args[1]})"
        if fn is operator.getitem:
            return f"{args[0]}[{self._index(call.args[1], inputs, node)}]"
        rule = _EXPRESSIONS.get(fn)
        if rule is not None:
            return rule(self, node, args, kwargs)
        method = method_name(call)
        if method is not None:
            receiver, *rest = call_operands(call, args)
            if not rest and not kwargs:
                return _reduced(receiver, method)
            return f"{receiver}.{method}({', '.join(rest + kwargs)})"
        return f"{self._callee(fn)}({', '.join(args + kwargs)})"

    def block_loop(self, node: Node) -> bool:
        """Whether a fused member is computed by NumPy's loop a block at a time
        (``staged``): every member ``numpy_loop`` computes, except small powers, which
        are multiplications."""
        return (
            small_power(node) is None
            and float32_powers.exponent(node) is None
            and self.numpy_loop(node, [""] * len(node.inputs)) is not None
        )

    def block_function(self, node: Node, inputs: list[str]) -> tuple[str, list[str], str]:
        """The function computing a block of a ``block_loop`` member's elements, its
        operands, and the arguments it takes after its output: NumPy's loop
        (``numpy_loops``), or ``float32_powers.power_into`` where it is faster."""
        split = float32_powers.by_blocks(node)
        if split is not None:
            exponent, negative, positive = split
            return "float32_powers.power_into", inputs[:1], f", {exponent}, {negative}, {positive}"
        ufunc, operands = self.numpy_loop(node, inputs)
        return f"numpy_loops.{ufunc.__name__}_into", operands, ""

    def numpy_loop(
        self, node: Node, inputs: list[str], per_element: bool = True
    ) -> tuple[np.ufunc, list[str]] | None:
        """The ufunc whose NumPy loop (``numpy_loops``) computes a CALL node's elements,
        with the operand expressions it takes (in the node's type); None where the node
        computes otherwise."""
        call: Call = node.arg
        fn = call.fn
        # ** of arrays is np.power, and NumPy's complex scalars power as it does (its float
        # scalars call the C library's pow, as Numba does); // and % are its ufuncs'.
        ufunc = _UFUNC_OPERATORS.get(fn, fn)
        if fn is operator.pow and not per_element and node.type.dtype.kind != "c":
            ufunc = fn
        if (
            call.kwargs
            or not (per_element or _numpy_scalar_result(node))
            or not numpy_loops.supports(ufunc, node.type.dtype)
        ):
            return None
        args = self._args(call, inputs)[0]
        if is_elementwise(fn):
            args = self._weak_operands(node, args)
        if len(args) != ufunc.nin:
            return None
        dtype = self.literal(node.type.dtype)
        return ufunc, [f"{dtype}({a})" for a in args]

    def _weak_operands(self, node: Node, args: list[str]) -> list[str]:
        """Python scalars meeting NumPy values take NumPy's dtype (NEP 50), not Numba's
        legacy promotion: ``float32_array * 2.0`` stays float32."""
        types = [i.type for i in node.inputs]
        operands = [
            t if isinstance(t, TensorType) else type_of(t) for t in fill(node.arg.args, types)
        ]
        if len(operands) != len(args) or any(t is None for t in operands):
            return args
        strong = [t.dtype for t in operands if t.flavor != PYTHON]
        weak = [t for t in operands if t.flavor == PYTHON]
        if not strong or not weak:
            return args
        try:
            target = np.result_type(*strong, *(t.example() for t in weak))
        except TypeError:  # no common type (datetime64 and a Python int): Numba decides
            return args
        return python_ints.weak_operands(self, node, args, operands, target)

    def _callee(self, fn: Callable) -> str:
        if isinstance(fn, np.ufunc) and getattr(np, fn.__name__, None) is fn:
            return f"np.{fn.__name__}"
        module = getattr(fn, "__module__", "") or ""
        name = getattr(fn, "__name__", "")
        if module.startswith("numpy") and getattr(np, name, None) is fn:
            return f"np.{name}"
        if module == "math" and getattr(math, name, None) is fn:
            return f"math.{name}"
        if module == "builtins":
            return name
        return self._global(fn, "f")

    def _fused(self, group: Group, indent: int) -> None:
        """One kernel for a fused group (a staged one where NumPy's loops compute some
        members); NumPy by blocks where compiled code cannot match it (integer powers)."""
        root = group.root
        name = self._name(root)
        inputs = [self.names[i] for i in group.inputs]
        if group.scalar_loop_safe:
            if any(self.block_loop(m) for m in group.members):
                kernel = staged.write(self.kernels, group)
            else:
                kernel = self.kernels.elementwise(group)
            self.emit(f"{name} = {kernel}({', '.join(inputs)})", indent, root)
            return
        out_type = numba_type(root.type).replace("'A'", "'C'")
        call = self._python_call(make_chunked(group), inputs, out_type)
        self.emit(f"{name} = {call}", indent, root)

    def _python_call(self, target: Callable, args: list[str], result: str | None) -> str:
        """An expression calling the Python callable ``target`` from compiled code.

        The ``objmode`` block sits in a small compiled function of its own (Numba
        mishandles several objmode blocks in the branches of one function), shared by
        every call site with as many arguments and the same result type: the site
        passes its target's index in ``_targets``.  Numba compiles that function once
        per argument types, not once per site (a graph printing in a hundred places
        compiled a hundred objmode blocks, a tenth of a second each).
        """
        key = (len(args), result)
        if key not in self._callers:
            name = self._callers[key] = f"_cb{len(self.callbacks)}"
            params = ", ".join(["k", *(f"a{i}" for i in range(len(args)))])
            call = f"_targets[k]({params[3:]})"
            lines = ["@njit(cache=True)", f"def {name}({params}):"]
            if result is None:
                lines += ["    with objmode():", f"        {call}", "    return 0"]
            else:
                lines += [f"    with objmode(r={result!r}):", f"        r = {call}", "    return r"]
            self.callbacks.append("\n".join(lines))
        self._targets.append(target)
        # np.intp: an integer literal would make Numba compile the function per site.
        index = f"np.intp({len(self._targets) - 1})"
        return f"{self._callers[key]}({', '.join([index, *args])})"

    def _objmode(self, node: Node, inputs: list[str], indent: int) -> None:
        """Call back into Python for this node (Numba cannot compile it)."""
        expr = self._python_call(_Applier(node), inputs, numba_type(node.type))
        self.emit(f"{self._name(node)} = {expr}", indent, node)

    def _effect(self, node: Node, inputs: list[str], indent: int) -> None:
        call = node.arg
        caller = _Applier(node, prefix=(None,))
        if call.fn is runtime.assert_effect and node.inputs[1].type.flavor != ARRAY:
            self.emit(f"if not {inputs[1]}:", indent, node)
            indent += 1
        elif call.fn in (runtime.unbound_effect, runtime.refusal_effect):  # only to raise
            self.emit(f"if {inputs[1]}:", indent, node)
            indent += 1
        self.emit(self._python_call(caller, inputs[1:], None), indent, node)


def _without_ellipsis(items: tuple, node: Node) -> tuple:
    """Index items with ``...`` spelled out as full slices (Numba has no ``x[...]``),
    where the other items are constant integers and slices and ``...`` stands for at
    least one axis (``x[0, ...]`` of a vector is a 0-d array, ``x[0]`` a number)."""
    if not any(i is Ellipsis for i in items):
        return items
    array = node.inputs[0].type if node.inputs else None
    taking = [i for i in items if i is not Ellipsis and i is not None]
    if (
        not isinstance(array, TensorType)
        or sum(i is Ellipsis for i in items) != 1
        or not all(type(i) in (int, slice) for i in taking)
        or array.ndim <= len(taking)
    ):
        return items
    k = items.index(Ellipsis)
    rest = (slice(None),) * (array.ndim - len(taking))
    return (*items[:k], *rest, *items[k + 1 :])


def _axis_reduction(node: Node) -> tuple[str, int, bool] | None:
    """(method, axis, keepdims) for a reduction arrays have as a method (called as the
    method or by its own name: not np.amax), along one constant axis of a 1-d or 2-d
    array, else None."""
    call = node.arg
    facts = reduction_of(call)
    if (
        facts is None
        or facts.method is None
        or facts.alias
        or call_operands(call)[1:]
        or set(call.kwargs) - {"axis", "keepdims"}
    ):
        return None
    method = facts.method
    axis, keepdims = call.kwargs.get("axis"), call.kwargs.get("keepdims", False)
    source = node.inputs[0].type if node.inputs else None
    if (
        not isinstance(source, TensorType)
        or source.flavor != ARRAY
        or source.ndim not in (1, 2)
        or node.arg.args[0] != Hole(0)
    ):
        return None
    if (
        type(axis) is not int
        or type(keepdims) is not bool
        or not -source.ndim <= axis < source.ndim
        or (source.ndim == 1 and method in ("argmax", "argmin") and keepdims)
    ):
        return None
    return method, axis, keepdims


def _complex_statistic(node: Node) -> bool:
    """A sum, mean, var or std of complex numbers: Numba's adds in order and divides by
    zero its own way (the mean of no complex numbers is nan+0j there, nan+nanj in
    NumPy), so NumPy computes it."""
    facts = reduction_of(node.arg)
    return (
        facts is not None
        and facts.method in ("sum", "mean", "var", "std")
        and bool(node.inputs)
        and isinstance(node.inputs[0].type, TensorType)
        and node.inputs[0].type.dtype.kind == "c"
    )


def _complex_ordering(node: Node) -> bool:
    """A comparison or choice by order of complex numbers: NumPy orders them (by real,
    then imaginary part), Numba cannot, so NumPy computes it."""
    return node.arg.fn in _ORDERINGS and any(
        isinstance(i.type, TensorType) and i.type.dtype.kind == "c" for i in node.inputs
    )


def _beyond_numba(node: Node) -> bool:
    """What Numba mishandles instead of rejecting: indexing with several advanced
    indices or a boolean mask of more than one dimension; arrays from lists of tuples,
    and np.vstack/np.hstack of lists (they follow NumPy's rules for every rank);
    ``np.clip`` outside a fused kernel (Numba's ignores NaN bounds); ordering complex
    numbers; ``np.histogram`` (Numba's puts values on bin edges in other bins) and
    ``np.linalg`` (Numba's LAPACK and loops round otherwise).  And what Numba rejects
    late, after compiling much else: indexing with a boolean scalar (``x[s > 0]``),
    ``np.linspace`` with more than start, stop and num."""
    if node.arg.fn is np.clip or method_name(node.arg) == "clip" or _complex_statistic(node):
        return True
    if node.arg.fn is np.histogram or getattr(node.arg.fn, "__module__", "") == "numpy.linalg":
        return True
    if node.arg.fn is np.linspace:
        return len(node.arg.args) > 3 or not set(node.arg.kwargs) <= {"num"}
    if node.arg.fn is runtime.list_to_array:  # (np.vstack and np.hstack: NumPy's own)
        how = node.arg.args[1]
        return isinstance(node.inputs[0].type.elem, TupleType) or how in (np.vstack, np.hstack)
    if node.arg.fn is np.fmod:  # Numba's integer fmod has the sign of the divisor
        return node.type.dtype.kind in "iu"
    if _complex_ordering(node):
        return True
    if node.arg.fn not in (operator.getitem, runtime.setitem):
        return False
    if has_boolean_scalar(node):
        return True
    advanced = 0
    for item in key_items(node):
        if isinstance(item, list):
            advanced += 1
        elif isinstance(item, TensorType) and item.ndim > 0:
            advanced += 1
            if item.dtype.kind == "b" and item.ndim > 1:
                return True
    return advanced > 1


def _numpy_scalar_result(node: Node) -> bool:
    """Whether a node computes a NumPy scalar (division by zero gives inf/nan, not an
    exception, as for arrays)."""
    return isinstance(node.type, TensorType) and node.type.flavor != PYTHON


class _Applier:
    """Applies a node's Call to values (what objmode blocks call).  Compiled code hands
    NumPy scalars over as Python numbers: they get their flavor back first, so the
    function (and print) sees what eager code has.  ``prefix`` stands for the inputs
    compiled code does not pass (the effect token)."""

    def __init__(self, node: Node, prefix: tuple = ()) -> None:
        self.node = node
        self.call = node.arg
        self.prefix = prefix
        types = [i.type for i in node.inputs[len(prefix) :]]
        self.scalars = [
            t.dtype.type if isinstance(t, TensorType) and t.flavor == SCALAR else None
            for t in types
        ]

    def cache_key(self) -> str | None:
        """What the call does and where its node is (errors name the user's line), for
        the key of the module that calls it (``generated.stable_key``)."""
        call = self.call
        return stable_key(
            (call.fn, call.args, call.kwargs, self.prefix, tuple(self.scalars), self.node.loc)
        )

    def __call__(self, *values: Any) -> Any:
        values = tuple(
            v if scalar is None else scalar(v) for v, scalar in zip(values, self.scalars)
        )
        try:
            return self.call.apply((*self.prefix, *values))
        except Exception as exc:
            tag(exc, self.node, [*self.prefix, *values])
            raise


# --- per-function lowering rules ---------------------------------------------------------


def _updated(self: Lowering, node: Node, target: str, indent: int) -> str:
    """The variable a functional update writes: its input's (in place) or a copy."""
    if node in self.ownership.in_place:
        self.names[node] = target
        return target
    self.emit(f"{self._name(node)} = {target}.copy()", indent, node)
    return self.names[node]


def _setitem(self: Lowering, node: Node, inputs: list[str], indent: int) -> None:
    call = node.arg
    target = inputs[0] if isinstance(call.args[0], Hole) else self.literal(call.args[0])
    index = self._index(call.args[1], inputs, node)
    value = self.literal(_fill_one(call.args[2], inputs))
    target = _updated(self, node, target, indent)
    rank = basic_rank(node)
    types = [i.type for i in node.inputs]
    array, source = fill(call.args[0], types), fill(call.args[2], types)
    key = key_items(node)
    if rank and isinstance(source, TensorType) and 0 < source.ndim <= rank:
        view = target if index == "()" else f"{target}[{index}]"
        self.emit(f"{self.kernels.assign(rank, source.ndim)}({view}, {value})", indent, node)
    elif _vector_put(array, key, source) == "iu":
        values = value if source.ndim else f"np.full(1, {value})"
        self.emit(f"helpers.put({target}, {index}, {values})", indent, node)
    elif _vector_put(array, key, source) == "b" and source.ndim == 1:
        self.emit(f"helpers.put_masked({target}, {index}, {value})", indent, node)
    else:
        self.emit(f"{target}[{index}] = {value}", indent, node)


def _vector_put(array: Any, key: tuple, source: Any) -> str | None:
    """For ``x[i] = v`` with ``x`` a vector, ``i`` an integer or boolean vector and ``v``
    a vector or a number: the key's kind ("iu" or "b"), else None."""
    if not (
        isinstance(array, TensorType)
        and array.ndim == 1
        and len(key) == 1
        and isinstance(key[0], TensorType)
        and key[0].ndim == 1
        and isinstance(source, TensorType)
        and source.ndim <= 1
    ):
        return None
    return "b" if key[0].dtype.kind == "b" else "iu" if key[0].dtype.kind in "iu" else None


def _list_append(self: Lowering, node: Node, inputs: list[str], indent: int) -> None:
    item = self.literal(_fill_one(node.arg.args[1], inputs))
    self.emit(f"{_updated(self, node, inputs[0], indent)}.append({item})", indent, node)


def _list_new(self: Lowering, node: Node, inputs: list[str], indent: int) -> None:
    elem = node.type.elem
    if elem is None:
        raise TypeError("a list without items has no type")
    item_type = self._global(_numba_item_type(elem), "t")
    self.emit(f"{self._name(node)} = List.empty_list({item_type})", indent, node)


def _numba_item_type(elem: TensorType) -> Any:
    return eval(numba_type(elem), {}, vars(numba.types))


def _fill_one(template: Any, inputs: list[str]) -> Any:
    """An argument template with graph inputs as source names."""
    return fill(template, [Source(n) for n in inputs])


def _list_to_array(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    call = node.arg
    lst_type = node.inputs[0].type
    how = call.args[1]
    elem = lst_type.elem
    # An empty list raises for np.stack; for a checked np.array (see runtime.list_to_array)
    # too, and the run on the interpreter that locates the error gives its message.
    needs_items = how is np.stack or (len(call.args) > 4 and call.args[4])
    if how in (np.array, np.asarray, np.stack) and elem.ndim == 0:
        zero = self.literal(elem.dtype.type(0))
        out = f"helpers.stack_scalars({args[0]}, {zero}, {needs_items})"
    elif how in (np.array, np.asarray, np.stack, np.concatenate):
        empty = np.zeros((0,) * elem.ndim, dtype=elem.dtype)
        self.constants.append(empty)
        empty_name = f"k{len(self.constants) - 1}"
        if how is np.concatenate:
            out = f"helpers.concat_arrays({args[0]}, {empty_name})"
        else:
            out = f"helpers.stack_arrays({args[0]}, {empty_name}, {needs_items})"
    else:
        raise TypeError(f"{how.__name__} of a list")
    dtype = call.args[2].get("dtype")
    if dtype is not None:
        out += f".astype({self.literal(np.dtype(dtype))})"
    return out


def _coerce(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    dtype, flavor = node.arg.args[1], node.arg.args[2]
    if flavor == PYTHON:
        return f"{_PY_CASTS[dtype.kind]}({args[0]})"
    if flavor == SCALAR:
        return f"{self.literal(dtype)}({args[0]})"
    return f"np.asarray({args[0]}).astype({self.literal(dtype)})"


def _astype(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    source = node.inputs[0].type
    dtype = self.literal(np.dtype(node.arg.args[1]))
    if source.flavor != ARRAY:
        return f"{dtype}({args[0]})"
    return f"{args[0]}.astype({dtype})"


def _python_cast(name: str) -> Callable:
    def rule(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
        if name == "int" and len(args) == 1 and node.inputs[0].type.dtype.kind == "f":
            return f"helpers.float_to_int({args[0]})"  # (Python's errors for NaN, inf)
        return f"{name}({', '.join(args)})"

    return rule


_STATEMENTS: dict[Callable, Callable] = {
    runtime.setitem: _setitem,
    runtime.list_append: _list_append,
    runtime.list_new: _list_new,
}


def _transpose(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    # ``.T`` keeps Numba's layout knowledge (C becomes F), so BLAS still applies.
    if not kwargs and args[1:] in ([], ["None"]):
        return f"{args[0]}.T"
    return f"np.transpose({', '.join(args + kwargs)})"


def _extremum(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    t = node.type
    cast = _PY_CASTS[t.dtype.kind] if t.flavor == PYTHON else self.literal(t.dtype)
    return f"{cast}({args[0]}({', '.join(args[1:])}))"


def _spread(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    """np.mean / np.std / np.var of a whole array (see ``_reduced``)."""
    name = node.arg.fn.__name__
    if kwargs or len(args) != 1:
        return f"np.{name}({', '.join(args + kwargs)})"
    return _reduced(args[0], name)


def _reduced(array: str, method: str) -> str:
    """``array.method()``; NaN for an empty array where NumPy gives it (mean, std, var:
    Numba divides by zero there)."""
    if method in ("mean", "std", "var"):
        return f"(np.nan if {array}.size == 0 else {array}.{method}())"
    return f"{array}.{method}()"


def _arg_extremum(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    """np.argmax / np.argmin: 0 for a scalar, as NumPy gives (Numba has no scalar form)."""
    source = node.inputs[0].type if node.inputs else None
    if isinstance(source, TensorType) and source.ndim == 0 and len(args) == 1 and not kwargs:
        return "0"
    return f"np.{node.arg.fn.__name__}({', '.join(args + kwargs)})"


def _matmul(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    """np.matmul, ``@`` and np.dot of two operands as NumPy computes them (see
    ``products``)."""
    name = "dot" if node.arg.fn is np.dot else "matmul"
    if kwargs or len(args) != 2:
        return f"np.{name}({', '.join(args + kwargs)})"
    return f"products.{name}({args[0]}, {args[1]})"


def _fresh(empty: str, value: str | None) -> Callable:
    """The rule of ``np.zeros``/``np.ones``/``np.empty`` and their ``_like`` twins: an
    empty array of the same arguments given NumPy's huge-page advice before anything
    touches it (Numba's own zeros writes every page first, a page fault each: 3 ms for
    8 MB here, against 0.3 ms), then filled."""

    def rule(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
        array = f"helpers.advise_huge({empty}({', '.join(args + kwargs)}))"
        return array if value is None else f"helpers.filled({array}, {value})"

    return rule


def _outer(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    """np.outer with both operands in the result's type first, as NumPy multiplies them
    (Numba's multiplies an int64 by a float32 in float32)."""
    if kwargs or len(args) != 2:
        return f"np.outer({', '.join(args + kwargs)})"
    dtype = self.literal(node.type.dtype)
    return f"np.outer({', '.join(f'np.asarray({a}).astype({dtype})' for a in args)})"


def _abs(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    """Builtin abs of an array as np.abs (Numba's abs takes numbers only)."""
    array = node.inputs and node.inputs[0].type.flavor == ARRAY
    return f"{'np.abs' if array else 'abs'}({', '.join(args + kwargs)})"


def _add_at(self: Lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    """runtime.add_at compiled for one 1-d integer index array and values of x's rank
    (one item per index), else NumPy's."""
    index, values = node.arg.args[1:3]
    if isinstance(index, Hole) and isinstance(values, Hole):
        t = node.inputs[index.index].type
        v = node.inputs[values.index].type
        x = node.inputs[0].type
        if t.ndim == 1 and t.dtype.kind in "iu" and t.flavor == ARRAY and v.ndim == x.ndim:
            return f"helpers.add_at({', '.join(args)})"
    return f"{self._callee(runtime.add_at)}({', '.join(args)})"


_EXPRESSIONS: dict[Callable, Callable] = {
    np.argmax: _arg_extremum,
    np.argmin: _arg_extremum,
    np.mean: _spread,
    np.std: _spread,
    np.var: _spread,
    runtime.retype: lambda self, node, a, k: a[0],
    runtime.extremum: _extremum,
    runtime.make_tuple: lambda self, node, a, k: "(" + "".join(f"{x}, " for x in a) + ")",
    np.transpose: _transpose,
    runtime.shape_dim: lambda self, node, a, k: f"{a[0]}.shape[{a[1]}]",
    runtime.range_len: lambda self, node, a, k: f"helpers.range_len({', '.join(a)})",
    runtime.list_len: lambda self, node, a, k: f"len({a[0]})",
    runtime.list_getitem: lambda self, node, a, k: f"{a[0]}[{a[1]}]",
    runtime.list_extremum: lambda self, node, a, k: (
        f"helpers.list_extremum({a[0]}, {node.arg.args[0] is max})"
    ),
    runtime.list_to_array: _list_to_array,
    runtime.coerce: _coerce,
    runtime.astype: _astype,
    bool: _python_cast("bool"),
    int: _python_cast("int"),
    float: _python_cast("float"),
    np.matmul: _matmul,
    np.dot: _matmul,
    np.outer: _outer,
    abs: _abs,
    runtime.add_at: _add_at,
    np.empty: _fresh("np.empty", None),
    np.empty_like: _fresh("np.empty_like", None),
    np.zeros: _fresh("np.empty", "0"),
    np.zeros_like: _fresh("np.empty_like", "0"),
    np.ones: _fresh("np.empty", "1"),
    np.ones_like: _fresh("np.empty_like", "1"),
    **ORDER_STATISTICS,
}


def lower(graph: Graph, objmode: set[Node], parallel: bool = False) -> Lowering:
    """Generate the source for ``graph`` (see ``Lowering.source``)."""
    lowering = Lowering(graph, objmode, parallel)
    lowering.text = lowering.source()  # type: ignore[attr-defined]
    return lowering


__all__ = ["FUNCTION", "Lowering", "Text", "lower", "numba_type"]
