"""NaN and Inf hunting (``check_numerics``): the first node that makes a NaN where no
operand holds one, or an infinity from finite operands, found exactly, at the user's
line.

Detection is cheap: after a run, its results (and the arrays it writes into the
arguments) are looked at.  Only when one holds a NaN or an infinity does the
interpret backend run the graph again on the same inputs, node by node, checking each
operation's result against its operands (constants in the call included, so
``np.full(n, np.inf)`` is not a finding, and ``0 * inf`` is one): the first one that
makes a new NaN or infinity raises ``FloatingPointError`` there, tagged with the node,
its operands and the loop iterations around it like any run-time error.  A NaN that only
lives inside the graph and never reaches a result is not looked for (as
``jax_debug_nans`` for jitted code).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...graph.ir import Graph, Node, Op
from ...graph.template import fill
from ...graph.types import host_value
from ..interpret import Interpreter
from .mapping import locate
from .sites import tag


def has_non_finite(values: Sequence[Any]) -> bool:
    """Whether any inexact number or array among ``values`` (nested in tuples, lists
    and dicts too) holds a NaN or an infinity."""
    for value in values:
        if isinstance(value, (tuple, list)):
            if has_non_finite(value):
                return True
        elif isinstance(value, dict):
            if has_non_finite(list(value.values())):
                return True
        elif _inexact(value) and not np.all(np.isfinite(host_value(value))):
            return True
    return False


def first_non_finite(graph: Graph, leaves: Sequence[Any]) -> BaseException | None:
    """The tagged ``FloatingPointError`` of the first node making a NaN or an infinity
    from finite operands on these inputs (None: no such node, e.g. the inputs held
    them, or the search ran out of time)."""
    found = locate(graph, leaves, _NumericsInterpreter)
    return found if isinstance(found, FloatingPointError) else None


class _NumericsInterpreter(Interpreter):
    """The interpret backend, checking each operation's result against its operands."""

    def _eval(self, node: Node, env: dict[Node, Any]) -> Any:
        value = super()._eval(node, env)
        if node.op is not Op.CALL or not _inexact(value) or np.all(np.isfinite(value)):
            return value
        operands = [env[i] for i in node.inputs]
        call = node.arg
        arguments = [*fill(call.args, operands), *fill(call.kwargs, operands).values()]
        numbers = [np.asarray(a) for a in _numbers(arguments)]
        nan_in = any(np.isnan(a).any() for a in numbers if a.dtype.kind in "fc")
        made = []
        if not nan_in and np.isnan(value).any():
            made.append("NaN")
        if not has_non_finite(arguments) and np.isinf(value).any():
            made.append("Inf")
        if not made:
            return value  # what it holds came in with an operand
        ranges = ", ".join(_range(a) for a in numbers if a.dtype.kind in "biufc" and a.size)
        exc = FloatingPointError(f"{node.label()} made {_counts(value, made)} (operands: {ranges})")
        tag(exc, node, operands)
        raise exc


def _numbers(values: Sequence[Any]) -> list[Any]:
    """The numbers and arrays among ``values``, nested containers flattened."""
    out: list[Any] = []
    for value in values:
        if isinstance(value, (tuple, list)):
            out += _numbers(value)
        elif isinstance(value, (np.ndarray, np.generic, int, float, complex)):
            out.append(value)
    return out


def _range(array: np.ndarray) -> str:
    if array.size == 1:
        return str(array.reshape(())[()])
    shape = ", ".join(map(str, array.shape))
    return f"{array.dtype}[{shape}] from {array.min()} to {array.max()}"


def _inexact(value: Any) -> bool:
    dtype = getattr(value, "dtype", None)
    if dtype is not None:
        return dtype.kind in "fc"
    return isinstance(value, (float, complex))


def _counts(value: Any, made: list[str]) -> str:
    """``2 NaN, 1 Inf of 5 values`` (or ``NaN`` for a scalar), of the kinds ``made``."""
    array = np.asarray(value)
    if array.ndim == 0:
        return made[0]
    tests = {"NaN": np.isnan, "Inf": np.isinf}
    parts = [f"{int(np.count_nonzero(tests[kind](array)))} {kind}" for kind in made]
    return f"{', '.join(parts)} of {array.size} values"
