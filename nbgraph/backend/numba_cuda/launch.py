"""Kernel launches at the driver's cost.

``kernel[blocks, threads](*args)`` in numba-cuda types every argument (``typeof``), looks
up the current context once per array argument and marshals in Python: about 45 us a
launch on a GPU, several times what the driver needs.  A graph call is mostly launches,
so ``configured(kernel, blocks, threads)`` does the same launch with what is known in
advance: the compiled kernel is found by a key of the arguments' dtypes, ranks and
layouts (typed once per key), and array arguments are marshalled as numba-cuda's kernel
ABI lays them out (meminfo, parent, size, itemsize, data, shape, strides).  Arguments of
other kinds, and the simulator, take numba-cuda's own launch.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np

from .device import current_context_handle, simulated
from .pool import c_strides

_UNKEYED = object()  # an argument the fast path does not take


def configured(dispatcher: Any, blocks: Any, threads: Any) -> Callable[..., None]:
    """``dispatcher[blocks, threads]``, with the fast launch on a GPU."""
    if simulated():  # the simulator's kernel holds one configuration: set it each time
        return dispatcher[blocks, threads]
    return _launcher(dispatcher, blocks, threads)


@functools.lru_cache(maxsize=4096)
def _launcher(dispatcher: Any, blocks: Any, threads: Any) -> _Launcher:
    """Made once per grid (numba-cuda checks occupancy each time one is configured)."""
    return _Launcher(dispatcher, blocks, threads)


class _Launcher:
    """One kernel on one grid: compiled kernels by argument key and current context."""

    def __init__(self, dispatcher: Any, blocks: int, threads: int) -> None:
        from cuda.core import LaunchConfig, Stream

        self.dispatcher = dispatcher
        self.configured = dispatcher[blocks, threads]  # the general path
        self.config = LaunchConfig(grid=blocks, block=threads, shmem_size=0)
        self.stream = Stream.from_handle(0)  # the default stream, as numba-cuda launches
        self.kernels: dict[tuple, tuple[Any, Any]] = {}

    def __call__(self, *args: Any) -> None:
        from cuda.core import launch

        key = (current_context_handle(), *map(_key, args))
        found = self.kernels.get(key)
        if found is None:
            if _UNKEYED in key:
                self.configured(*args)
                return
            found = self.kernels[key] = self._compile(key[1:], args)
        compiled, handle = found
        params: list[Any] = []
        for ty, k, value in zip(compiled.argument_types, key[1:], args):
            if isinstance(k, tuple):  # a device array
                params += array_params(value)
            else:
                compiled._prepare_args(ty, value, 0, [], params)
        launch(self.stream, self.config, handle, *params)

    def _compile(self, key: tuple, args: tuple) -> tuple[Any, Any]:
        types = []
        for k, value in zip(key, args):
            ty = self.dispatcher.typeof_pyval(value)
            types.append(ty.copy(layout=k[2]) if isinstance(k, tuple) else ty)
        compiled = self.dispatcher.compile(tuple(types))
        return compiled, compiled.library.get_cufunc().kernel


def array_params(value: Any) -> tuple[int, ...]:
    """A device array as numba-cuda's kernels take it: meminfo and parent (unused on the
    device), size, itemsize, data pointer, shape, strides in bytes."""
    data = value.device_ctypes_pointer.value or 0  # None for an empty array
    return (0, 0, value.size, value.dtype.itemsize, data, *value.shape, *value.strides)


_PYTHON_SCALARS = (bool, int, float, complex)
_INT64 = (-(1 << 63), 1 << 63)


def _key(value: Any) -> Any:
    """What the compiled kernel depends on: dtype, rank and layout of a device array,
    the type of a scalar."""
    kind = type(value)
    if kind in _PYTHON_SCALARS or isinstance(value, np.generic):
        if kind is int and not _INT64[0] <= value < _INT64[1]:
            return _UNKEYED
        return kind
    if not getattr(value, "__cuda_memory__", False):
        return _UNKEYED
    shape = value.shape  # C only where the strides are exactly C order's
    layout = "C" if tuple(value.strides) == c_strides(shape, value.dtype.itemsize) else "A"
    return (value.dtype, len(shape), layout)
