"""New device arrays filled on the device (np.zeros, np.full, np.arange, np.linspace...),
so creating an array costs no host-to-device transfer."""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import cuda

from .device import as_device, block_size, blocks_for, empty
from .launch import configured

_MAX_BLOCKS = 1 << 16


@cuda.jit
def ramp(out, start, step, last, fix_last):
    """out[i] = start + i * step; the last element exactly ``last`` if asked."""
    n = out.size
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        out[i] = last if fix_last and i == n - 1 else start + i * step


def _launch(kernel: Any, out: Any, *args: Any) -> Any:
    n = out.size
    if n:
        threads = min(block_size(), n)
        blocks = min(blocks_for(n, threads), _MAX_BLOCKS)
        configured(kernel, blocks, threads)(out.reshape(n), *args)
    return out


def full(shape: Any, value: Any, dtype: np.dtype) -> Any:
    """np.full(shape, value, dtype) on the device."""
    out = empty(tuple(np.broadcast_shapes(shape)) if shape != () else (), dtype)
    if out.ndim == 0:
        return as_device(np.asarray(value, dtype=dtype))
    value = np.asarray(value, dtype=dtype)[()]
    return _launch(ramp, out, value, dtype.type(0), value, False)


def arange(start: Any, stop: Any, step: Any, dtype: np.dtype) -> Any:
    """np.arange(start, stop, step) with NumPy's length and dtype."""
    n = (
        len(np.arange(start, stop, step, dtype=np.float64 if dtype.kind == "f" else None))
        if dtype.kind in "iuf"
        else 0
    )
    out = empty((n,), dtype)
    cast = dtype.type
    return _launch(ramp, out, cast(start), cast(step), cast(start), False)


def linspace(start: Any, stop: Any, num: int, endpoint: bool, dtype: np.dtype) -> Any:
    """np.linspace(start, stop, num, endpoint) (float results; the end point exact)."""
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    div = (num - 1) if endpoint else num
    step = (stop - start) / div if div > 0 else 0.0
    out = empty((num,), dtype)
    cast = dtype.type
    return _launch(ramp, out, cast(start), cast(step), cast(stop), bool(endpoint and num > 1))
