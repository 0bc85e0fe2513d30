"""Matrix products of non-contiguous arrays as NumPy computes them.

Numba multiplies arrays that are not contiguous (``A[:, k]``, ``A[i, :j]`` of a column
block) with loops of its own, summing in another order than the BLAS call NumPy makes
for them (float32 results then differ well beyond the last bit after cancellation, as
in Gram-Schmidt or an LU solve) and slowly.  ``matmul`` and ``dot`` hand such operands
to NumPy itself; contiguous ones stay with Numba's BLAS call.
"""

from __future__ import annotations

import numpy as np
from numba import objmode, types
from numba.extending import overload
from numba.np.numpy_support import as_dtype, from_dtype


def matmul(a, b):
    """``a @ b``, compiled through the overload below."""
    return np.matmul(a, b)


def dot(a, b):
    """``np.dot(a, b)``, compiled through the overload below."""
    return np.dot(a, b)


def _to_numpy(a, b) -> types.Type | None:
    """The result type where NumPy must compute a product of ``a`` and ``b`` (arrays of
    rank 1 or 2, one of them not contiguous), else None."""
    if not (isinstance(a, types.Array) and isinstance(b, types.Array)):
        return None
    if (a.layout in "CF" and b.layout in "CF") or not (1 <= a.ndim <= 2 and 1 <= b.ndim <= 2):
        return None
    dtype = from_dtype(np.result_type(as_dtype(a.dtype), as_dtype(b.dtype)))
    ndim = a.ndim + b.ndim - 2
    return dtype if ndim == 0 else types.Array(dtype, ndim, "C")


@overload(matmul)
def _matmul(a, b):
    result = _to_numpy(a, b)
    if result is None:
        return lambda a, b: a @ b

    def by_numpy(a, b):
        with objmode(r=result):
            r = np.matmul(a, b)
        return r

    return by_numpy


@overload(dot)
def _dot(a, b):
    result = _to_numpy(a, b)
    if result is None:
        return lambda a, b: np.dot(a, b)

    def by_numpy(a, b):
        with objmode(r=result):
            r = np.dot(a, b)
        return r

    return by_numpy
