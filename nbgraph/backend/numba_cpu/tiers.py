"""Which first calls run on the interpreter while the CPU backend compiles afterwards.

Numba takes from a tenth of a second to a few seconds to compile a graph; a graph of
array operations runs on the interpreter about as fast as eager NumPy (each node is one
NumPy call), which for such code is far less than the compile.  So a first call that
would compile (nothing in the disk cache) runs on the interpreter when every graph loop
in it does array work on arrays that are not tiny, and the compile starts when that call
returns, on a background thread; the next call waits for it.  A loop does array work
when it has array-valued operations and either reads or writes no single elements
(``x[i]``, ``x[i] = v``: a loop over clusters, iterations until convergence) or has as
many array-valued operations as scalar ones.  A graph loop of scalar work (a Collatz
step, a loop over elements) would run orders of magnitude slower on the interpreter
than compiled, so such a graph compiles first.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from typing import Any

import numpy as np

from ...graph import runtime
from ...graph.ir import Graph, Node, Op, Region
from ...graph.template import Hole
from ...graph.types import TensorType

# Below this many elements in every array argument, a graph loop's array operations
# cost about as little as scalar ones: the loop's graph compiles first.
SMALL_ARRAY = 4096
_ELEMENT_WRITES = (runtime.setitem, runtime.add_at)


def _work(region: Region) -> tuple[int, int, int]:
    """(array operations, scalar operations, element reads and writes) in ``region``,
    nested regions included."""
    arrays = scalars = elements = 0
    for node in region.nodes:
        for sub in node.regions():
            a, s, e = _work(sub)
            arrays, scalars, elements = arrays + a, scalars + s, elements + e
        if node.op is not Op.CALL:
            continue
        if _touches_elements(node):
            elements += 1
        if _is_array(node) and node.arg.fn not in _ELEMENT_WRITES:
            arrays += 1
        else:
            scalars += 1
    return arrays, scalars, elements


def _is_array(node: Node) -> bool:
    return isinstance(node.type, TensorType) and node.type.ndim >= 1


def _touches_elements(node: Node) -> bool:
    """Whether ``node`` reads or writes one element of an array (``x[i]``, ``x[i] = v``):
    a loop that does usually runs once per element."""
    fn = node.arg.fn
    if fn is operator.getitem:
        return _is_array(node.inputs[0]) and not _is_array(node)
    if fn not in _ELEMENT_WRITES:
        return False
    value = node.arg.args[2]  # a constant, or a Hole for one of the node's inputs
    return (
        np.ndim(value) == 0
        if not isinstance(value, Hole)
        else not _is_array(node.inputs[value.index])
    )


def _loops(region: Region) -> list[Node]:
    found = []
    for node in region.nodes:
        if node.op is Op.WHILE:
            found.append(node)
        for sub in node.regions():
            found += _loops(sub)
    return found


def interprets_first(graph: Graph, args: Sequence[Any]) -> bool:
    """Whether the first call of ``graph`` on ``args`` runs on the interpreter while the
    CPU backend compiles after it (see the module docstring)."""
    loops = _loops(graph.body)
    if not loops:
        return True
    largest = max((a.size for a in args if isinstance(a, np.ndarray)), default=0)
    if largest < SMALL_ARRAY:
        return False
    for loop in loops:
        arrays, scalars, elements = (sum(n) for n in zip(*(_work(r) for r in loop.regions())))
        if arrays == 0 or (elements and arrays < scalars):
            return False
    return True
