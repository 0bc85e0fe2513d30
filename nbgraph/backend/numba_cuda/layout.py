"""Memory layout of device arrays: C-contiguous copies of strided views, for kernels that
index their operands as flat buffers.

Kernels of this backend name ``numba.cuda`` as the module global ``cuda`` (bound on first
use by :func:`bind_cuda`, so importing nbgraph never imports numba-cuda): the simulator
runs a kernel with its per-thread API swapped into the kernel's module globals, and would
not see a ``cuda`` held in a closure.
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

from . import device

cuda: Any = None  # numba.cuda once bind_cuda(globals()) ran


def bind_cuda(namespace: dict[str, Any]) -> ModuleType:
    """Bind ``numba.cuda`` to the name ``cuda`` in a module's ``globals()``, where that
    module's kernels look it up; returns the module."""
    namespace["cuda"] = module = device.cuda()
    return module


@functools.cache
def _copy_kernel() -> Any:
    """Kernel ``(x, out)``: ``out[k] = x.flat[k]`` for a flat C-ordered ``out``; Numba
    compiles it per ndim and layout of ``x``, unravelling ``k`` with ``x``'s strides."""
    bind_cuda(globals())

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
        _copy_kernel()[device.blocks_for(x.size, threads), threads](x, out.reshape(x.size))
    return out
