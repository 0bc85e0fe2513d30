"""Dead-code elimination: drop nodes no result (or effect) depends on."""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable

import numpy as np

from .. import runtime
from ..functions import Call, is_effect, is_elementwise
from ..ir import Graph, Node, Op, Region
from ..numpy_facts import call_operands, method_name, reduction_of
from ..types import PYTHON, TensorType, TupleType

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
_LOGICAL = frozenset({operator.not_, operator.and_, operator.or_})
_NEVER_RAISE = frozenset({runtime.print_effect, runtime.breakpoint_effect})
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


def may_raise(node: Node) -> bool:
    """Whether running ``node`` may print or raise, in itself or in the branches and
    loop bodies it holds (an error that always happens must come after it)."""
    return _observable(node) or any(map(may_raise, (n for r in node.regions() for n in r.nodes)))


def first_observable(
    nodes: Iterable[Node], ignore: Callable[[Node], bool] = lambda node: False
) -> Node | None:
    """The first of ``nodes``, or of the nodes in their branches and loop bodies, that
    prints or may raise when the graph runs (skipping those ``ignore`` picks)."""
    for node in nodes:
        if ignore(node):
            continue
        if _observable(node):
            return node
        for region in node.regions():
            found = first_observable(region.nodes, ignore)
            if found is not None:
                return found
    return None


def never_raises(node: Node) -> bool:
    """A print or a breakpoint: effects that never end a run with an error."""
    return node.op is Op.CALL and node.arg.fn in _NEVER_RAISE


def _cannot_raise(node: Node) -> bool:
    """Conservatively: NumPy arithmetic (it warns instead of raising) except integer
    powers, Python +, -, * and comparisons, total reductions, shape reads."""
    call = node.arg
    fn = call.fn
    if fn in _STRUCTURAL:
        return True
    if fn is runtime.range_len:  # raises for a step of 0 only
        step = call.args[2]
        return type(step) is int and step != 0
    if fn is bool:  # of a scalar (an array's truth value may be ambiguous)
        return all(isinstance(i.type, TensorType) and i.type.ndim == 0 for i in node.inputs)
    if fn in _LOGICAL:  # of bools (the flags graph mode keeps beside values)
        return all(_is_bool_scalar(i.type) for i in node.inputs)
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


def _is_bool_scalar(t: object) -> bool:
    return isinstance(t, TensorType) and t.ndim == 0 and t.dtype.kind == "b"


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


def _needed(region: Region, results: list[Node]) -> set[Node]:
    """The nodes (params included) that ``results`` and the region's effects need."""
    live: set[Node] = set(results)
    for node in reversed(region.nodes):
        if node in live or may_raise(node):
            live.update(node.inputs)
            for sub in node.regions():
                live |= _used_inside(sub)
    return live


def _prune_loop(loop: Node, live: set[Node]) -> None:
    """Drop the loop variables of a WHILE that nothing after it reads and that the
    loop needs for nothing else (a temporary first assigned in the body, its flag):
    keeps the token, the condition's inputs, effects', and what those need in turn."""
    test, body = loop.arg
    count = len(body.params)
    keep = {n.arg for n in live if n.op is Op.PROJ and n.inputs[0] is loop} | {count - 1}
    while True:
        needs = _needed(body, [body.results[k] for k in keep]) | _needed(test, list(test.results))
        more = {k for k in range(count) if body.params[k] in needs or test.params[k] in needs}
        if more <= keep:
            break
        keep |= more
    if len(keep) == count:
        return
    order = sorted(keep)
    body.variables += tuple(
        (name, body.results[k])
        for k, name in enumerate(body.names)
        if k not in keep and name is not None
    )
    loop.inputs = tuple(loop.inputs[k] for k in order)
    loop.type = TupleType(tuple(loop.type.items[k] for k in order))
    for region in (test, body):
        region.params = [region.params[k] for k in order]
        for i, param in enumerate(region.params):
            param.arg = i
    body.results = tuple(body.results[k] for k in order)
    if body.names:
        body.names = tuple(body.names[k] for k in order if k < len(body.names))
    body.flags = {order.index(k): kind for k, kind in body.flags.items() if k in keep}
    for proj in live:
        if proj.op is Op.PROJ and proj.inputs[0] is loop:
            proj.arg = order.index(proj.arg)


def _sweep(region: Region) -> None:
    live: set[Node] = set(region.results)
    kept: list[Node] = []
    for node in reversed(region.nodes):
        if node in live or may_raise(node):
            if node.op is Op.WHILE:
                _prune_loop(node, live)
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
