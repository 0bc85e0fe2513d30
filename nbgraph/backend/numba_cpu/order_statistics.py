"""Medians as NumPy computes them, where Numba's own ``np.median`` differs.

NumPy's median of an array holding a NaN is NaN (the NaN that sorts last), whatever the
length; Numba's selects around it in odd lengths. NumPy averages the two middle values of
an integer array as float64; Numba adds them as integers first, which wraps near the int64
limits. Converting integers to float64 before selecting gives NumPy's result exactly: the
conversion keeps the order, and NumPy converts the same middle values the same way.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ...graph.ir import Node
from ...graph.template import Hole
from ...graph.types import ARRAY, TensorType


@njit(cache=True)
def median_with_nan(a):
    """np.median of a float or complex array: the last NaN in sort order if there is one."""
    for value in a.flat:
        if np.isnan(value):
            return np.sort(a.ravel())[-1]
    return np.median(a)


def median(lowering, node: Node, args: list[str], kwargs: list[str]) -> str:
    """np.median / np.nanmedian of a whole array (other forms: Numba's or Python's)."""
    name = node.arg.fn.__name__
    source = node.inputs[0].type if node.inputs else None
    whole = (
        not kwargs
        and len(args) == 1
        and node.arg.args[0] == Hole(0)
        and isinstance(source, TensorType)
        and source.flavor == ARRAY
    )
    if whole and source.dtype.kind in "biu":
        return f"np.{name}({args[0]}.astype(np.float64))"
    if whole and name == "median" and source.dtype.kind in "fc":
        return f"{lowering._global(median_with_nan, 'f')}({args[0]})"
    return f"np.{name}({', '.join(args + kwargs)})"


RULES = {np.median: median, np.nanmedian: median}
