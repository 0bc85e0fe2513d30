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
