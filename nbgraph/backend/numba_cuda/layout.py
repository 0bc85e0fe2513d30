"""Memory layout of device arrays: C-contiguous copies of strided views, for kernels that
index their operands as flat buffers.

Kernels of this backend name ``numba.cuda`` as the module global ``cuda`` (this package
is imported only when a graph uses the CUDA backend): the simulator runs a kernel with
its per-thread API swapped into the kernel's module globals, and would not see a
``cuda`` held in a closure.
"""

from __future__ import annotations

import functools
from typing import Any

from numba import cuda

from . import device
from .launch import configured


@functools.cache
def _copy_kernel() -> Any:
    """Kernel ``(x, out)``: ``out[k] = x.flat[k]`` for a flat C-ordered ``out``; Numba
    compiles it per ndim and layout of ``x``, unravelling ``k`` with ``x``'s strides."""

    @cuda.jit
    def copy(x, out):
        k = cuda.grid(1)
        if k < out.size:
            out[k] = x.flat[k]

    return copy


def contiguous(x: Any) -> Any:
    """``x`` itself when it is C-contiguous, else a C-contiguous device copy of it."""
    if x.is_c_contiguous():
        return x
    out = device.empty(x.shape, x.dtype)
    if x.size:
        threads = device.block_size()
        blocks = device.blocks_for(x.size, threads)
        configured(_copy_kernel(), blocks, threads)(x, out.reshape(x.size))
    return out
