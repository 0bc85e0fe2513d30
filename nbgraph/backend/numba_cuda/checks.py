"""What can fail on the device, checked there: integer-array indexing out of bounds and
asserts on device values.  A failing thread records an error code and the node's number
in a small error array; the host reads it when the run ends (or before it next reads a
value), so checks cost no synchronisation on the success path."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda

from .device import block_size, blocks_for, empty
from .launch import configured

VALUE_ERROR = 1
INDEX_ERROR = 2
ASSERTION_ERROR = 3
EXCEPTIONS = {VALUE_ERROR: ValueError, INDEX_ERROR: IndexError, ASSERTION_ERROR: AssertionError}
_MAX_BLOCKS = 1 << 16


@cuda.jit
def check(err, cond, node):
    if cuda.grid(1) == 0 and not cond[()] and err[0] == 0:
        err[0] = ASSERTION_ERROR
        err[1] = node


def device_assert(err: Any, cond: Any, node: int) -> None:
    """Record an AssertionError for ``node`` if the 0-d device value ``cond`` is false."""
    configured(check, 1, 1)(err, cond, node)


@cuda.jit
def take_rows(err, out, x, index, node):
    """out[i, j] = x[index[i], j] (x and out as 2-d: rows, row size)."""
    rows = x.shape[0]
    n = out.shape[0] * out.shape[1]
    for k in range(cuda.grid(1), n, cuda.gridsize(1)):
        i = k // out.shape[1]
        j = k % out.shape[1]
        row = index[i]
        if row < 0:
            row += rows
        if row < 0 or row >= rows:
            if err[0] == 0:
                err[0] = INDEX_ERROR
                err[1] = node
            return
        out[i, j] = x[row, j]


def take(err: Any, x: Any, index: Any, node: int, contiguous: Any) -> Any:
    """``x[index]`` for an integer device array ``index`` (NumPy's take along axis 0),
    bounds checked on the device."""
    x = contiguous(x)
    index = contiguous(index)
    row = int(np.prod(x.shape[1:], dtype=np.int64))
    out = empty(tuple(index.shape) + tuple(x.shape[1:]), x.dtype)
    n = out.size
    if n == 0:
        return out
    if x.shape[0] == 0:
        raise IndexError("index out of bounds for axis 0 with size 0")
    threads = min(block_size(), n)
    configured(take_rows, min(blocks_for(n, threads), _MAX_BLOCKS), threads)(
        err,
        out.reshape(index.size, row),
        x.reshape(x.shape[0], row),
        index.reshape(index.size),
        node,
    )
    return out


@cuda.jit
def add_rows(err, out, index, values, node):
    """out[index[i], j] += values[i, j] for each i in order (out and values as 2-d: rows,
    row size): one thread per j, so an element picked twice adds up in NumPy's order."""
    rows = out.shape[0]
    for j in range(cuda.grid(1), out.shape[1], cuda.gridsize(1)):
        for i in range(index.size):
            row = index[i]
            if row < 0:
                row += rows
            if row < 0 or row >= rows:
                if err[0] == 0:
                    err[0] = INDEX_ERROR
                    err[1] = node
                return
            out[row, j] += values[i, j]


def add_at(err: Any, out: Any, index: Any, values: Any, node: int, contiguous: Any) -> None:
    """``np.add.at(out, index, values)`` for a C-contiguous device array ``out``, an
    integer device array ``index`` along axis 0 and ``values`` of the gathered shape
    (``index.shape + out.shape[1:]``), bounds checked on the device."""
    row = int(np.prod(out.shape[1:], dtype=np.int64))
    if index.size == 0 or row == 0:
        return
    if out.shape[0] == 0:
        raise IndexError("index out of bounds for axis 0 with size 0")
    threads = min(block_size(), row)
    configured(add_rows, min(blocks_for(row, threads), _MAX_BLOCKS), threads)(
        err,
        out.reshape(out.shape[0], row),
        contiguous(index).reshape(index.size),
        contiguous(values).reshape(index.size, row),
        node,
    )


def new_error_array() -> Any:
    """A zeroed error array: [error code, node number]."""
    return cuda.to_device(np.zeros(2, dtype=np.int64))
