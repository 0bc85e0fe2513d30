"""Views of device arrays (basic indexing, reshape, transpose) without copying.

NumPy computes each view's shape, strides and offset on a stand-in host array with the
device array's shape and strides over a one-element buffer (never read), so indexing
rules and their errors (IndexError out of bounds, ValueError for a bad reshape) are
NumPy's own; the device array then gets the same shape and strides at that offset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.lib.stride_tricks import as_strided

from .device import cuda, empty, simulated
from .layout import contiguous


def _stand_in(a: Any) -> np.ndarray:
    return as_strided(np.zeros(1, dtype=a.dtype), shape=a.shape, strides=a.strides, writeable=False)


def restrided(a: Any, how: Callable[[np.ndarray], np.ndarray]) -> Any:
    """The view of device array ``a`` that ``how`` makes of a host array like it."""
    if simulated():  # the simulator's arrays wrap NumPy arrays: view the real one
        return type(a)(how(a._ary))
    stand_in = _stand_in(a)
    view = how(stand_in)
    if view.size == 0:
        return empty(view.shape, a.dtype)
    if not np.may_share_memory(view, stand_in):
        raise AssertionError("not a view: advanced indexing has its own kernel")
    offset = _address(view) - _address(stand_in)
    data = a.gpu_data.view(offset) if offset else a.gpu_data
    result = cuda().devicearray.DeviceNDArray(
        view.shape, view.strides, a.dtype, stream=a.stream, gpu_data=data
    )
    # A view of a reversed array could start before its memory pointer: copy it instead,
    # so that every device array held has non-negative strides.
    return contiguous(result) if any(s < 0 for s in view.strides) else result


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


def index(a: Any, key: Any) -> Any:
    """``a[key]`` for basic keys (ints, slices, None, Ellipsis) as a device view; an
    element is a 0-d view (still on the device)."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(item is Ellipsis for item in items):
        items += (Ellipsis,)  # an element as a 0-d view, not a copied scalar
    return restrided(a, lambda h: h[items])


def written(a: Any, key: Any) -> tuple[Any, tuple[int, ...]]:
    """The view ``a[key]`` to write into (basic keys), and the axes along which it runs
    backwards (a negative step).  The view returned runs forwards along those axes (a
    view with a negative stride would be a copy, and the writes lost): the value
    written must be flipped along them too (``flipped``)."""
    items = key if isinstance(key, tuple) else (key,)
    if not any(item is Ellipsis for item in items):
        items += (Ellipsis,)
    strides = _stand_in(a)[items].strides
    axes = tuple(j for j, stride in enumerate(strides) if stride < 0)
    if not axes:
        return restrided(a, lambda h: h[items]), axes
    forwards = tuple(slice(None, None, -1 if j in axes else 1) for j in range(len(strides)))
    return restrided(a, lambda h: h[items][forwards]), axes


def flipped(value: Any, axes: tuple[int, ...], rank: int) -> Any:
    """Device array ``value`` reversed along the ``axes`` of the ``rank``-d array it is
    broadcast to (axes of length 1 stay as they are): a C-contiguous copy."""
    lead = rank - value.ndim
    steps = tuple(
        slice(None, None, -1 if j + lead in axes and n > 1 else 1)
        for j, n in enumerate(value.shape)
    )
    return contiguous(restrided(value, lambda h: h[steps]))


def may_share(a: Any, b: Any) -> bool:
    """Whether device arrays ``a`` and ``b`` may share memory (their extents meet)."""
    if simulated():
        return bool(np.may_share_memory(a._ary, b._ary))
    (a_low, a_high), (b_low, b_high) = _extent(a), _extent(b)
    return a_low < b_high and b_low < a_high


def _extent(a: Any) -> tuple[int, int]:
    """The first and one past the last device address ``a`` reads ((0, 0) if empty)."""
    if a.size == 0:
        return 0, 0
    low = a.device_ctypes_pointer.value
    high = low + a.dtype.itemsize
    for size, stride in zip(a.shape, a.strides):
        if stride < 0:
            low += (size - 1) * stride
        else:
            high += (size - 1) * stride
    return low, high


def reshape(a: Any, shape: Any) -> Any:
    """``a.reshape(shape)``; a non-contiguous array is copied first (as NumPy does)."""
    if not _c_contiguous(a):
        a = contiguous(a)
    return restrided(a, lambda h: h.reshape(shape))


def transpose(a: Any, axes: Any = None) -> Any:
    """``a.transpose(axes)``: the same memory with permuted strides."""
    return restrided(a, lambda h: h.transpose(axes))


def _c_contiguous(a: Any) -> bool:
    return _stand_in(a).flags.c_contiguous or a.size <= 1
