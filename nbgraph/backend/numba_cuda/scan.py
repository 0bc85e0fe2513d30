"""Prefix scans on the device (np.cumsum, np.cumprod) and what they make possible:
boolean-mask indexing, whose result size depends on the data.

A 1-d scan runs in three steps: each block scans its chunk (every thread its own few
elements in order, then a Hillis-Steele scan of the threads' totals in shared memory)
and writes the chunk's total; the totals are scanned the same way (recursively); a last
kernel combines each chunk with the totals before it.  An axis of a larger array is
scanned line by line: one thread per line when there are many lines, else the 1-d scan
on each line.  Floating-point sums are added in another order than NumPy's sequential
loop, so they can differ from it in the last bits, as any parallel sum does.
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import cuda

from . import device, layout
from .launch import configured
from .views import index

_SUM, _PROD = 0, 1
_MANY_LINES = 256  # at least this many lines: one thread scans each


def _per_thread() -> int:
    """Elements each thread scans in order (fewer on the simulator)."""
    return 2 if device.simulated() else 8


@cuda.jit(device=True)
def _combine(a, b, op):
    return a + b if op == _SUM else a * b


@functools.cache
def _chunk_kernel(acc: np.dtype) -> Any:
    threads, per = device.block_size(), _per_thread()
    acc_t = acc.type

    @cuda.jit
    def scan_chunks(x, out, totals, op):
        """Inclusive scan of each block's chunk of ``threads * per`` elements."""
        partial = cuda.shared.array(threads, acc_t)
        t = cuda.threadIdx.x
        start = (cuda.blockIdx.x * threads + t) * per
        n = x.shape[0]
        running = acc_t(0) if op == _SUM else acc_t(1)
        for e in range(per):
            if start + e < n:
                running = _combine(running, acc_t(x[start + e]), op)
                out[start + e] = running
        partial[t] = running
        cuda.syncthreads()
        offset = 1
        while offset < threads:  # Hillis-Steele: after it, partial[t] covers 0..t
            before = partial[t - offset] if t >= offset else (acc_t(0) if op == _SUM else acc_t(1))
            cuda.syncthreads()
            partial[t] = _combine(partial[t], before, op)
            cuda.syncthreads()
            offset *= 2
        if t > 0:
            earlier = partial[t - 1]
            for e in range(per):
                if start + e < n:
                    out[start + e] = _combine(earlier, out[start + e], op)
        if t == threads - 1:
            totals[cuda.blockIdx.x] = partial[t]

    return scan_chunks


@cuda.jit
def _add_totals(out, totals, chunk, op):
    """Combine every element of chunk ``c > 0`` with the scanned total of chunk c - 1."""
    for i in range(cuda.grid(1) + chunk, out.shape[0], cuda.gridsize(1)):
        out[i] = _combine(totals[i // chunk - 1], out[i], op)


@cuda.jit
def _scan_lines(x, out, op):
    """Each thread scans one line ``x[o, :, i]`` of a (outer, n, inner) array in order."""
    outer, n, inner = x.shape
    for line in range(cuda.grid(1), outer * inner, cuda.gridsize(1)):
        o, i = line // inner, line % inner
        if n:
            out[o, 0, i] = x[o, 0, i]
        for j in range(1, n):
            out[o, j, i] = _combine(out[o, j - 1, i], x[o, j, i], op)


def _scan_1d(x: Any, out: Any, op: int) -> None:
    """Inclusive scan of the 1-d device array ``x`` into ``out`` (of the result dtype;
    either may be a strided view, and they may be the same array)."""
    n = x.shape[0]
    if n == 0:
        return
    threads, per = device.block_size(), _per_thread()
    chunk = threads * per
    blocks = device.blocks_for(n, chunk)
    totals = device.empty((blocks,), out.dtype)
    configured(_chunk_kernel(out.dtype), blocks, threads)(x, out, totals, op)
    if blocks > 1:
        _scan_1d(totals, totals, op)
        launch = min(device.blocks_for(n - chunk, threads), 1 << 16)
        configured(_add_totals, launch, threads)(out, totals, chunk, op)


def cumulative(x: Any, method: str, axis: int | None, dtype: np.dtype) -> Any:
    """``np.cumsum``/``np.cumprod`` (``method``: "cumsum" or "cumprod") of a device array
    along ``axis`` (None: of the flattened array), as a new array of ``dtype``."""
    op = _SUM if method == "cumsum" else _PROD
    x = layout.contiguous(x)
    if axis is None or x.ndim <= 1:
        if axis is not None and not -1 <= axis < 1:
            raise np.exceptions.AxisError(axis, 1)
        flat = x.reshape(x.size) if x.ndim != 1 else x
        out = device.empty((x.size,), dtype)
        _scan_1d(flat, out, op)
        return out
    if not -x.ndim <= axis < x.ndim:
        raise np.exceptions.AxisError(axis, x.ndim)
    axis %= x.ndim
    outer = int(np.prod(x.shape[:axis], dtype=np.int64))
    inner = int(np.prod(x.shape[axis + 1 :], dtype=np.int64))
    lines = (outer, x.shape[axis], inner)
    out = device.empty(x.shape, dtype)
    x3, out3 = x.reshape(*lines), out.reshape(*lines)
    if outer * inner >= _MANY_LINES or x.shape[axis] <= device.block_size():
        if out.size:
            threads = device.block_size()
            blocks = min(device.blocks_for(outer * inner, threads), 1 << 16)
            configured(_scan_lines, blocks, threads)(x3, out3, op)
        return out
    for o in range(outer):  # few long lines: the 1-d scan on each (a strided view)
        for i in range(inner):
            line = (o, slice(None), i)
            _scan_1d(index(x3, line), index(out3, line), op)
    return out


@cuda.jit
def _compact(x, flags, positions, out):
    """out[positions[i] - 1] = x[i] where flags[i] (x, flags, positions flat)."""
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        if flags[i]:
            out[positions[i] - 1] = x[i]


@cuda.jit
def _compact_rows(x, flags, positions, out):
    """Rows of the 2-d ``x`` where ``flags``, in order, into ``out``."""
    rows, width = x.shape
    for k in range(cuda.grid(1), rows * width, cuda.gridsize(1)):
        r, c = k // width, k % width
        if flags[r]:
            out[positions[r] - 1, c] = x[r, c]


def masked(x: Any, mask: Any) -> Any:
    """``x[mask]`` for a boolean device array ``mask`` of ``x``'s shape (the selected
    elements in order) or of its first dimension (the selected rows).  The result's
    length is read back from the device: the one synchronisation this needs."""
    if tuple(mask.shape) != tuple(x.shape[: mask.ndim]) or mask.ndim not in (1, x.ndim):
        raise IndexError(
            f"boolean index did not match indexed array along axis 0; size of axis is "
            f"{x.shape[0] if x.ndim else 0} but size of corresponding boolean axis is "
            f"{mask.shape[0] if mask.ndim else 0}"
        )
    x = layout.contiguous(x)
    flags = layout.contiguous(mask).reshape(mask.size)
    positions = device.empty((mask.size,), np.dtype(np.int64))
    _scan_1d(flags, positions, _SUM)
    count = int(positions[mask.size - 1 :].copy_to_host()[0]) if mask.size else 0
    threads = device.block_size()
    if mask.ndim == x.ndim:
        out = device.empty((count,), x.dtype)
        if count:
            blocks = min(device.blocks_for(x.size, threads), 1 << 16)
            configured(_compact, blocks, threads)(x.reshape(x.size), flags, positions, out)
        return out
    width = int(np.prod(x.shape[1:], dtype=np.int64))
    out = device.empty((count, *x.shape[1:]), x.dtype)
    if count and width:
        blocks = min(device.blocks_for(x.size, threads), 1 << 16)
        configured(_compact_rows, blocks, threads)(
            x.reshape(x.shape[0], width), flags, positions, out.reshape(count, width)
        )
    return out
