"""Which reductions the CPU backend computes in NumPy's own summation order.

``sum``, ``mean``, ``var``, ``std``, ``max`` and ``min`` of real arrays, over the whole
array, its first axis or its last axis, are lowered to generated kernels
(``kernels.py``) that add in NumPy's pairwise order and may compute their input element
by element (``np.sum(x * x, axis=1)`` reads ``x`` once and writes no temporary).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...graph.ir import Node, Op
from ...graph.numpy_facts import call_operands, reduction_of
from ...graph.template import Hole
from ...graph.types import ARRAY, TensorType

EXTREMES = ("max", "min")
# The reductions covered (by their array method's name), with the positional parameters
# after the array as NumPy's functions and methods take them.
_POSITIONAL = {
    "sum": ("axis", "dtype", "out", "keepdims"),
    "mean": ("axis", "dtype", "out", "keepdims"),
    "var": ("axis", "dtype", "out", "ddof", "keepdims"),
    "std": ("axis", "dtype", "out", "ddof", "keepdims"),
    "max": ("axis", "out", "keepdims"),
    "min": ("axis", "out", "keepdims"),
}


@dataclass(frozen=True)
class Reduction:
    """One reduction: ``method`` of ``source`` along ``axis`` (None: all of it)."""

    node: Node
    source: Node
    method: str
    axis: int | None
    keepdims: bool
    ddof: int

    @property
    def ndim(self) -> int:
        return self.source.type.ndim

    @property
    def along(self) -> str:
        """The ``array_reductions`` function computing it: of the ``whole`` array, its
        ``rows`` (last axis) or ``columns`` (first axis), or, above 2-d, its
        ``last_axis`` or ``first_axis``."""
        if self.axis is None:
            return "whole"
        if self.ndim > 2:
            return "first_axis" if self.axis == 0 else "last_axis"
        return "columns" if self.axis == 0 else "rows"

    @property
    def accumulator(self) -> np.dtype:
        """The type NumPy adds in: the result's (float64 for a mean of integers)."""
        return self.node.type.dtype

    @property
    def element(self) -> np.dtype:
        return self.source.type.dtype

    @property
    def converts(self) -> bool:
        """Whether NumPy converts elements on the way (its sums then go buffer by buffer)."""
        return self.element != self.accumulator and self.method not in EXTREMES


def reduction(node: Node) -> Reduction | None:
    """The reduction ``node`` computes, if the generated kernels cover it."""
    if node.op is not Op.CALL or not node.inputs:
        return None
    call = node.arg
    facts = reduction_of(call)
    method, rest = facts.method if facts else None, call_operands(call)[1:]
    if method not in _POSITIONAL or call.args[0] != Hole(0):
        return None
    names = _POSITIONAL[method]
    if len(rest) > len(names) or set(call.kwargs) - set(names):
        return None
    options = {
        "axis": None,
        "dtype": None,
        "out": None,
        "keepdims": False,
        "ddof": 0,
        **dict(zip(names, rest)),
        **call.kwargs,
    }
    if any(isinstance(v, Hole) for v in options.values()):
        return None
    source, result = node.inputs[0].type, node.type
    if not (
        isinstance(source, TensorType)
        and source.flavor == ARRAY
        and source.ndim >= 1
        and isinstance(result, TensorType)
    ):
        return None
    if source.dtype.kind not in "biuf" or result.dtype.kind not in "iuf":
        return None
    if options["dtype"] is not None or options["out"] is not None:
        return None
    axis, keepdims, ddof = options["axis"], options["keepdims"], options["ddof"]
    if type(keepdims) is not bool or type(ddof) is not int:
        return None
    if type(axis) is tuple and len(axis) == 1:
        axis = axis[0]
    if axis is not None:
        if type(axis) is not int or not -source.ndim <= axis < source.ndim:
            return None
        axis %= source.ndim
        if source.ndim == 1:
            axis = None
        elif axis not in (0, source.ndim - 1):
            return None
    return Reduction(node, node.inputs[0], method, axis, keepdims, ddof)
