"""Dead-code elimination: drop nodes no result (or effect) depends on."""

from __future__ import annotations

import operator

import numpy as np

from .. import runtime
from ..functions import Call, is_effect, is_elementwise
from ..ir import Graph, Node, Op, Region
from ..numpy_facts import call_operands, method_name, reduction_of
from ..types import PYTHON, TensorType

# Operations on Python numbers that never raise, whatever the values.
_PYTHON_SAFE = frozenset(
    {
        operator.add,
        operator.sub,
        operator.mul,
        operator.neg,
        operator.pos,
        operator.lt,
        operator.le,
        operator.gt,
        operator.ge,
        operator.eq,
        operator.ne,
        operator.not_,
        abs,
        bool,
    }
)
_POWERS = frozenset({operator.pow, np.power, np.float_power})
_STRUCTURAL = frozenset({runtime.shape_dim, runtime.retype, runtime.make_tuple})


def _observable(node: Node) -> bool:
    """Whether a node must run even when nothing uses its value: effects, and whatever
    may raise in eager code (an unused ``x[5]``, ``np.max`` of an empty array, an
    integer power with a negative exponent) -- removing it would hide that error."""
    if node.op is not Op.CALL:
        return False
    fn = node.arg.fn
    if is_effect(fn):
        return True
    if fn is operator.getitem:
        return not _only_slices(node.arg.args[1])
    return not _cannot_raise(node)


def _cannot_raise(node: Node) -> bool:
    """Conservatively: NumPy arithmetic (it warns instead of raising) except integer
    powers, Python +, -, * and comparisons, total reductions, shape reads."""
    call = node.arg
    fn = call.fn
    if fn in _STRUCTURAL:
        return True
    if fn is bool:  # of a scalar (an array's truth value may be ambiguous)
        return all(isinstance(i.type, TensorType) and i.type.ndim == 0 for i in node.inputs)
    method = method_name(call)
    if method is not None:  # x.copy(), x.sum(): without arguments
        total = method == "copy" or _total(call)
        return total and len(call_operands(call)) == 1 and not call.kwargs
    if _total(call):
        return set(call.kwargs) <= {"axis", "keepdims"} and len(call.args) == 1
    if not is_elementwise(fn) or call.kwargs:
        return False
    types = [i.type for i in node.inputs] + [node.type]
    if not all(isinstance(t, TensorType) for t in types):
        return False
    if any(t.flavor == PYTHON for t in types):
        return fn in _PYTHON_SAFE
    return fn not in _POWERS or all(t.dtype.kind in "fc" for t in types)


def _total(call: Call) -> bool:
    """A reduction that gives a value for any input, empty ones included (np.max does not)."""
    facts = reduction_of(call)
    return facts is not None and facts.total


def _only_slices(index: object) -> bool:
    items = index if type(index) is tuple else (index,)
    return all(type(i) is slice or i is None or i is Ellipsis for i in items)


def _used_inside(region: Region) -> set[Node]:
    """Nodes used by a region, captured outer values included."""
    used: set[Node] = set(region.results)
    for node in region.nodes:
        used.update(node.inputs)
        for sub in node.regions():
            used |= _used_inside(sub)
    return used


def _sweep(region: Region) -> None:
    live: set[Node] = set(region.results)
    kept: list[Node] = []
    for node in reversed(region.nodes):
        if node in live or _observable(node):
            kept.append(node)
            live.update(node.inputs)
            for sub in node.regions():
                _sweep(sub)
                live |= _used_inside(sub)
    kept.reverse()
    region.nodes = kept


def eliminate_dead_code(graph: Graph) -> Graph:
    """Remove unused nodes in every region, in place; returns the graph."""
    _sweep(graph.body)
    return graph
