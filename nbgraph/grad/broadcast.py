"""Shape helpers of gradients: undoing broadcasting, zeros, casting.

``sum_to`` is a graph CALL function, compiled with Numba when first needed (importing
nbgraph does not import Numba), so the CPU backend calls it from its generated code
and the interpret backend runs the same compiled code.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..graph import runtime
from ..graph.runtime import compiled_sum_to
from ..graph.types import ARRAY, TensorType
from ..staging.traced import Traced, call, const


def cast(g: Any, t: TensorType) -> Any:
    """The cotangent ``g`` as a value of the forward value's type ``t``."""
    if g.type == t:
        return g
    return call(runtime.coerce, g, t.dtype, t.flavor)


def zeros(x: Traced) -> Any:
    """Zeros of x's shape and type."""
    if x.type.flavor == ARRAY:
        return call(np.zeros_like, x)
    return cast(const(x.type.dtype.type(0)), x.type)


def unbroadcast(g: Any, x: Traced, others: tuple = ()) -> Any:
    """The cotangent ``g`` of an elementwise result, reduced to operand ``x``'s shape
    (summed over the axes x was broadcast along).  ``others`` are the other operands:
    when none is an array of x's rank or more, x's shape is the result's."""
    rank = x.type.ndim
    for _ in range(g.type.ndim - rank):  # leading axes x lacks, one int axis at a time
        g = call(np.sum, g, axis=0)
    if rank and any(
        _rank(o) >= rank for o in others if not (isinstance(o, Traced) and o.node is x.node)
    ):
        g = call(compiled_sum_to(), g, x)
    return cast(g, x.type)


def _rank(value: Any) -> int:
    return value.type.ndim if isinstance(value, Traced) else np.ndim(value)
