"""The CUDA device as the backend sees it: numba-cuda imported on first use, the
simulator (``NUMBA_ENABLE_CUDASIM=1``) recognised, launch sizes chosen for either.

Device values are numba-cuda device arrays; a NumPy scalar computed on the device is a
0-d device array, read by the host only where it needs the value (a branch, a print).
"""

from __future__ import annotations

import functools
import warnings
from types import ModuleType
from typing import Any

import numpy as np

from ...graph.types import is_device_array
from . import pool


@functools.cache
def cuda() -> ModuleType:
    """``numba.cuda``, from the numba-cuda package (``pip install nbgraph[cuda]``)."""
    try:
        from numba import cuda as module
    except ImportError as exc:  # pragma: no cover - numba-cuda is a declared extra
        raise ImportError("backend='cuda' needs numba-cuda: pip install 'nbgraph[cuda]'") from exc
    # Small arrays make small grids, and numba-cuda warns about occupancy on each launch.
    warnings.filterwarnings("ignore", message=".*Grid size .* under-utilization")
    return module


def check_available() -> None:
    """A clear error where kernels cannot run: no GPU and no simulator.  (Kernels still
    compile to PTX there.)"""
    if not cuda().is_available():
        raise RuntimeError(
            "backend='cuda' found no usable NVIDIA GPU (numba.cuda.is_available() is "
            "False); set NUMBA_ENABLE_CUDASIM=1 to run on numba-cuda's simulator"
        )


@functools.cache
def simulated() -> bool:
    """Whether kernels run on numba-cuda's CPU simulator (each thread a Python thread; read
    once: numba.cuda chose it when first imported)."""
    from numba import config

    return bool(config.ENABLE_CUDASIM)


def block_size() -> int:
    """Threads per block for 1-d launches: 256 on a GPU; 32 on the simulator, where
    every thread of a block is a Python thread and barriers cost milliseconds."""
    return 32 if simulated() else 256


def blocks_for(n: int, threads: int) -> int:
    """Blocks covering ``n`` items with ``threads`` per block (at least one)."""
    return max(1, (n + threads - 1) // threads)


def as_device(value: Any) -> Any:
    """A numba-cuda view of a GPU array (no copy) or a copy of a host array on the GPU."""
    if is_device_array(value):
        return value if hasattr(value, "copy_to_host") else cuda().as_cuda_array(value)
    host = np.asarray(value, order="C")
    if simulated():
        return cuda().to_device(host)
    out = empty(host.shape, host.dtype)
    out.copy_to_device(host)
    return out


def current_context_handle() -> int:
    """The driver's handle of the calling thread's current context (numba-cuda's own
    lookup costs about 15 us; the driver's a microsecond), one made current first if
    none is."""
    from cuda.bindings import driver

    handle = int(driver.cuCtxGetCurrent()[1])
    if handle:
        return handle
    cuda().current_context()
    return int(driver.cuCtxGetCurrent()[1])


def current_context() -> Any:
    """numba-cuda's context of the current device, found at the driver's cost."""
    handle = current_context_handle()
    found = _contexts.get(handle)
    if found is None:
        found = _contexts[handle] = cuda().current_context()
    return found


_contexts: dict[int, Any] = {}  # numba-cuda's contexts by driver handle


def empty(shape: tuple[int, ...], dtype: np.dtype) -> Any:
    """A new uninitialised C-contiguous device array (memory from the pool on a GPU)."""
    if simulated():
        return cuda().device_array(shape, dtype=dtype)
    return pool.device_array(tuple(shape), dtype, current_context())
