"""Which first calls run on the interpreter while the CPU backend compiles afterwards.

Numba takes from a tenth of a second to a few seconds to compile a graph; a graph of
array operations runs on the interpreter about as fast as eager NumPy (each node is one
NumPy call), which for such code is far less than the compile.  So a first call that
would compile (nothing in the disk cache) runs on the interpreter when every graph loop
in it does array work (as many array-valued operations as scalar ones, element writes
counting as scalar) on arrays that are not tiny, and the compile starts when that call
returns, on a background thread; the next call waits for it.  A graph loop of scalar
work (a Collatz step, an element loop) would run orders of magnitude slower on the
interpreter than compiled, so such a graph compiles first, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ...graph import runtime
from ...graph.ir import Graph, Node, Op, Region
from ...graph.types import TensorType

# Below this many elements in every array argument, a graph loop's array operations
# cost about as little as scalar ones: the loop's graph compiles first.
SMALL_ARRAY = 4096
_ELEMENT_WRITES = (runtime.setitem, runtime.add_at)


def _work(region: Region) -> tuple[int, int]:
    """(array operations, scalar operations) in ``region``, nested regions included."""
    arrays = scalars = 0
    for node in region.nodes:
        for sub in node.regions():
            a, s = _work(sub)
            arrays, scalars = arrays + a, scalars + s
        if node.op is not Op.CALL:
            continue
        if _is_array_work(node):
            arrays += 1
        else:
            scalars += 1
    return arrays, scalars


def _is_array_work(node: Node) -> bool:
    return (
        isinstance(node.type, TensorType)
        and node.type.ndim >= 1
        and node.arg.fn not in _ELEMENT_WRITES
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
        arrays, scalars = (sum(pair) for pair in zip(*(_work(r) for r in loop.regions())))
        if arrays < scalars or arrays == 0:
            return False
    return True
