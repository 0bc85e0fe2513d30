"""A pool of device memory for the arrays the CUDA backend makes.

A fresh ``cudaMalloc`` per output costs tens of microseconds for a small array and far
more for a large one, and ``cudaFree`` synchronises the device: a graph called in a
loop would pay both for every array it makes.  The pool keeps the blocks of arrays
that are no longer referenced, by size, and hands them out again, so a repeated call
allocates nothing new.

A block returns to the pool when the last device array viewing it is collected.  The
backend runs all its work on the default stream, in order, so a block handed out again
is written only after the kernels that used it before have finished.  Idle blocks are
kept up to ``IDLE_LIMIT`` bytes; beyond that, and whenever an allocation finds the
device full, they are given back to the driver.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np

IDLE_LIMIT = 2 << 30  # bytes of unreferenced blocks kept for reuse
_ALIGN = 512  # sizes are rounded up to this, so near sizes share a bin


def rounded(nbytes: int) -> int:
    """The size of the block that holds ``nbytes``."""
    return -(-nbytes // _ALIGN) * _ALIGN


class BlockPool:
    """Blocks by size: ``allocate(size)`` makes a new one, ``is_full(error)`` tells an
    out-of-memory error from others.  Blocks are opaque here; ``take`` hands one out
    with the function that gives it back."""

    def __init__(
        self, allocate: Callable[[int], Any], is_full: Callable[[BaseException], bool]
    ) -> None:
        self._allocate = allocate
        self._is_full = is_full
        self._idle: defaultdict[int, list[Any]] = defaultdict(list)
        self.idle_bytes = 0
        self.allocations = 0  # blocks made by the driver, for the tests and the report

    def take(self, size: int) -> tuple[Any, Callable[[], None]]:
        """A block of ``size`` bytes (a multiple of 512) and its give-back function."""
        bin_ = self._idle.get(size)
        if bin_:
            block = bin_.pop()
            self.idle_bytes -= size
        else:
            block = self._new(size)
        return block, functools.partial(self._give_back, size, block)

    def _new(self, size: int) -> Any:
        try:
            block = self._allocate(size)
        except Exception as exc:
            if not self._is_full(exc) or not self.idle_bytes:
                raise
            self.release()  # the device is full: hand idle blocks back and try again
            block = self._allocate(size)
        self.allocations += 1
        return block

    def _give_back(self, size: int, block: Any) -> None:
        if self.idle_bytes + size > IDLE_LIMIT:
            return  # dropped: the driver frees it
        self._idle[size].append(block)
        self.idle_bytes += size

    def release(self) -> None:
        """Give every idle block back to the driver."""
        self._idle.clear()
        self.idle_bytes = 0


def _is_full(exc: BaseException) -> bool:
    from numba.cuda.cudadrv.driver import CudaAPIError, binding

    return isinstance(exc, CudaAPIError) and exc.code == binding.CUresult.CUDA_ERROR_OUT_OF_MEMORY


_pools: dict[int, BlockPool] = {}  # by id of the numba-cuda context (which it holds)


def _pool(context: Any) -> BlockPool:
    """The pool of one CUDA context (device)."""
    found = _pools.get(id(context))
    if found is None:
        found = _pools[id(context)] = BlockPool(context.memalloc, _is_full)
    return found


def device_array(shape: tuple[int, ...], dtype: np.dtype, context: Any) -> Any:
    """A new C-contiguous device array whose memory comes from ``context``'s pool."""
    from numba import cuda
    from numba.cuda.cudadrv.devicearray import DeviceNDArray
    from numba.cuda.cudadrv.driver import MemoryPointer

    dtype = np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes == 0:
        return cuda.device_array(shape, dtype=dtype)
    size = rounded(nbytes)
    block, give_back = _pool(context).take(size)
    memory = MemoryPointer(context, block.device_pointer, size, finalizer=give_back)
    strides = c_strides(shape, dtype.itemsize)
    return DeviceNDArray(shape, strides, dtype, gpu_data=memory)


def pool_of_current_device() -> BlockPool:
    """The current device's pool (its counts say whether calls allocate)."""
    from numba import cuda

    return _pool(cuda.current_context())


def c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """The strides in bytes of a C-contiguous array of ``shape``."""
    strides = []
    step = itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))
