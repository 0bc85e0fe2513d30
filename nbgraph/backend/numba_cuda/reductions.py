"""Reductions (sum, prod, mean, max, min, argmax, argmin, any, all, std, var) on the GPU.

The array is made C-contiguous and viewed as ``(outer, n, inner)``: each of the
``outer * inner`` outputs reduces ``n`` elements ``inner`` apart (a full reduction is the
case ``outer = inner = 1``).  Every method is one or more *passes*, each given by device
functions: ``load`` (an element, or a partial result, as a ``(value, index)`` pair),
``merge`` (two pairs into one; the index only matters to argmax/argmin, which break ties
and NaNs by it, so the merge order never changes a result) and ``finish`` (the stored
result from the merged pair and ``n``).  Two kernel factories over these serve every
method:

* few elements per output (fewer than a block, or than a warp for rows, ``inner ==
  1``): one thread per output loops over them (adjacent threads read adjacent elements
  when ``inner > 1``);
* otherwise blocks of :func:`device.block_size` threads, each taking several outputs
  with several threads (lanes) each: rows get adjacent lanes (about one per 16
  elements, enough that a warp's loads fill whole 32-byte memory sectors, up to a
  block), columns come a warp's width of adjacent ones a block.  Each thread
  accumulates a strided share of its output's elements, then the lanes merge in a
  shared-memory tree (``cuda.syncthreads`` between levels).  When that makes fewer
  blocks than fill the GPU (``_max_blocks()``), each output's elements are split over
  several blocks (a full reduction over all of them) and a second launch reduces the
  partial pairs, in one of the two ways above.  No atomics: results are deterministic.

Values accumulate in the result dtype (float32 sums, means and variances stay float32,
as in NumPy; integers and bools sum in the int64 NumPy chooses); max/min/argmax/argmin
compare in the input dtype.  var and std take two passes: the mean, then the mean
squared deviation from it (``ddof=0``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numba import cuda
from numba.cuda import libdevice

from . import device, layout
from .launch import configured

# Device functions, compiled by _device.  load(x, idx, aux, pos, j, o) -> (value, index)
# reads flat position ``pos``, the ``j``-th element of output ``o``.


def _load_element(x, idx, aux, pos, j, o):
    return x[pos], j


def _load_nonzero(x, idx, aux, pos, j, o):
    return x[pos] != 0, j


def _load_squared_deviation(x, idx, aux, pos, j, o):
    deviation = x[pos] - aux[o]  # aux: the means, in the result dtype
    return deviation * deviation, j


# The same with a product never fused into an FMA with the sum that follows (ptxas fuses
# a plain multiply and add; NumPy rounds the square first), by the deviation's dtype.
def _load_squared_deviation_f64(x, idx, aux, pos, j, o):
    deviation = x[pos] - aux[o]
    return libdevice.dmul_rn(deviation, deviation), j


def _load_squared_deviation_f32(x, idx, aux, pos, j, o):
    deviation = x[pos] - aux[o]
    return libdevice.fmul_rn(deviation, deviation), j


_UNFUSED_SQUARES = {
    np.dtype(np.float64): _load_squared_deviation_f64,
    np.dtype(np.float32): _load_squared_deviation_f32,
}


def _load_partial(x, idx, aux, pos, j, o):
    return x[pos], idx[pos]  # x, idx: a first pass's values and indices


# merge(v1, i1, v2, i2) -> (value, index).  Index -1: no element (a thread that had none).


def _add(v1, i1, v2, i2):
    return v1 + v2, i1


def _multiply(v1, i1, v2, i2):
    return v1 * v2, i1


def _or(v1, i1, v2, i2):
    return v1 or v2, i1


def _and(v1, i1, v2, i2):
    return v1 and v2, i1


def _maximum(v1, i1, v2, i2):  # NaN propagates (v != v: NaN); of equal values the later
    return (v1 if v1 > v2 or v1 != v1 else v2), i1


def _minimum(v1, i1, v2, i2):
    return (v1 if v1 < v2 or v1 != v1 else v2), i1


def _arg_merge(greatest: bool) -> Callable[..., Any]:
    """The merge of argmax (``greatest``) or argmin: the extreme value's first index, or
    the first NaN's, whichever order the pairs come in."""

    def merge(v1, i1, v2, i2):
        if i2 < 0:
            return v1, i1
        if i1 < 0:
            return v2, i2
        if v1 != v1 or v2 != v2:
            second = v2 != v2 and (v1 == v1 or i2 < i1)
        elif v1 == v2:
            second = i2 < i1
        else:
            second = (v2 > v1) == greatest
        return (v2, i2) if second else (v1, i1)

    return merge


# finish(v, i, n) -> the stored result.


def _finish_value(v, i, n):
    return v


def _finish_index(v, i, n):
    return i


def _finish_mean(v, i, n):
    return v / n if n else math.nan


def _finish_root_mean(v, i, n):
    return math.sqrt(v / n) if n else math.nan


class _Pass(NamedTuple):
    """One reduction over the array; ``identity`` starts each accumulation (infinities
    stand for the extremes of integer and bool types)."""

    load: Callable[..., Any]
    merge: Callable[..., Any]
    finish: Callable[..., Any]
    identity: float


_MEAN = _Pass(_load_element, _add, _finish_mean, 0)
# A method's passes: each one's results are the next one's ``aux``; the last is the result.
_PASSES: dict[str, tuple[_Pass, ...]] = {
    "sum": (_Pass(_load_element, _add, _finish_value, 0),),
    "prod": (_Pass(_load_element, _multiply, _finish_value, 1),),
    "mean": (_MEAN,),
    "max": (_Pass(_load_element, _maximum, _finish_value, -math.inf),),
    "min": (_Pass(_load_element, _minimum, _finish_value, math.inf),),
    "argmax": (_Pass(_load_element, _arg_merge(True), _finish_index, 0),),
    "argmin": (_Pass(_load_element, _arg_merge(False), _finish_index, 0),),
    "any": (_Pass(_load_nonzero, _or, _finish_value, False),),
    "all": (_Pass(_load_nonzero, _and, _finish_value, True),),
    "var": (_MEAN, _Pass(_load_squared_deviation, _add, _finish_mean, 0)),
    "std": (_MEAN, _Pass(_load_squared_deviation, _add, _finish_root_mean, 0)),
}
_UFUNC_NAMES = {"max": "maximum", "min": "minimum"}
_WARP = 32
_SECTOR = 32  # bytes: the unit of the GPU's memory transactions


@functools.cache
def _device(fn: Callable[..., Any]) -> Any:
    """``fn`` compiled as a device function (once per process)."""
    return cuda.jit(device=True)(fn)


@functools.cache
def _store(finish: Callable[..., Any] | None) -> Any:
    """Device function ``(out_v, out_i, k, v, i, n)`` writing result ``k``: ``finish``'s
    value into ``out_v``, or with ``finish`` None the pair itself (a partial result)."""
    if finish is None:

        def store(out_v, out_i, k, v, i, n):
            out_v[k] = v
            out_i[k] = i

        return _device(store)
    finish_ = _device(finish)

    def store_result(out_v, out_i, k, v, i, n):
        out_v[k] = finish_(v, i, n)

    return _device(store_result)


@functools.cache
def _strided(load: Callable[..., Any], merge: Callable[..., Any], acc: np.dtype) -> Any:
    """Device function ``(x, idx, aux, p, q, n, inner, j, stride, v, i) -> (v, i)``:
    merges elements ``j, j + stride, ... < n`` of output ``(p, q)`` into ``(v, i)`` as
    ``acc`` values."""
    load_, merge_ = _device(load), _device(merge)
    acc_t = acc.type

    def strided(x, idx, aux, p, q, n, inner, j, stride, v, i):
        o = p * inner + q
        while j < n:
            value, index = load_(x, idx, aux, (p * n + j) * inner + q, j, o)
            v, i = merge_(v, i, acc_t(value), index)
            j += stride
        return v, i

    return _device(strided)


@functools.cache
def _thread_kernel(
    load: Callable[..., Any], merge: Callable[..., Any], finish: Callable[..., Any], acc: np.dtype
) -> Any:
    """Kernel ``(x, idx, aux, n, inner, outputs, count, ident, out_v, out_i)``: thread
    ``o`` reduces output ``o``'s ``n`` elements, accumulating in ``acc`` from ``ident``
    (``count``: the elements behind each output, for ``finish``)."""
    strided, store = _strided(load, merge, acc), _store(finish)

    @cuda.jit
    def reduce_per_thread(x, idx, aux, n, inner, outputs, count, ident, out_v, out_i):
        o = cuda.grid(1)
        if o < outputs:
            v, i = strided(x, idx, aux, o // inner, o % inner, n, inner, 0, 1, ident, -1)
            store(out_v, out_i, o, v, i, count)

    return reduce_per_thread


@functools.cache
def _block_kernel(
    load: Callable[..., Any],
    merge: Callable[..., Any],
    finish: Callable[..., Any] | None,
    acc: np.dtype,
) -> Any:
    """Kernel ``(x, idx, aux, outer, n, inner, width, parts, count, ident, out_v,
    out_i)``: a block reduces ``width`` outputs, ``threads // width`` threads (lanes)
    each, over part ``b % parts`` of their ``n`` elements, and stores result
    ``o * parts + part`` of each output ``o``.  With ``inner == 1`` the outputs are rows,
    a row's lanes adjacent threads; else adjacent columns, adjacent threads in adjacent
    columns: either way a warp reads adjacent elements."""
    strided, merge_, store = _strided(load, merge, acc), _device(merge), _store(finish)
    acc_t = acc.type
    threads = device.block_size()  # a power of two, as width is

    @cuda.jit
    def reduce_per_block(x, idx, aux, outer, n, inner, width, parts, count, ident, out_v, out_i):
        values = cuda.shared.array(threads, acc_t)
        indices = cuda.shared.array(threads, np.int64)
        t = cuda.threadIdx.x
        group = cuda.blockIdx.x // parts
        part = cuda.blockIdx.x % parts
        lanes = threads // width
        if inner == 1:
            p = group * width + t // lanes
            q = 0
            lane = t % lanes
            spacing = 1  # between the threads of one output
        else:
            groups = (inner + width - 1) // width  # per outer index
            p = group // groups
            q = group % groups * width + t % width
            lane = t // width
            spacing = width
        active = p < outer and q < inner
        v = ident
        i = -1
        if active:
            v, i = strided(x, idx, aux, p, q, n, inner, part * lanes + lane, parts * lanes, v, i)
        values[t] = v
        indices[t] = i
        cuda.syncthreads()
        step = lanes // 2
        while step > 0:
            if lane < step:
                other = t + step * spacing
                v, i = merge_(values[t], indices[t], values[other], indices[other])
                values[t] = v
                indices[t] = i
            cuda.syncthreads()
            step //= 2
        if lane == 0 and active:
            store(out_v, out_i, (p * inner + q) * parts + part, values[t], indices[t], count)

    return reduce_per_block


def _max_blocks() -> int:
    """Blocks worth launching for one reduction: enough to fill a GPU (an H100 runs
    about a thousand blocks of 256 threads at once); a few on the simulator."""
    return 4 if device.simulated() else 1024


def _identity(value: float, acc: np.dtype) -> Any:
    """``value`` as an ``acc`` scalar, infinities made the type's extremes."""
    if acc.kind == "f" or math.isfinite(value):
        return acc.type(value)
    if acc.kind == "b":
        return acc.type(value > 0)
    info = np.iinfo(acc)
    return acc.type(info.max if value > 0 else info.min)


def _run(
    step: _Pass,
    x: Any,
    aux: Any,
    n: int,
    inner: int,
    out: Any,
    partials: tuple[Any, int] | None = None,
) -> None:
    """One pass over flat ``x`` viewed as ``(out.size // inner, n, inner)`` into ``out``;
    with ``partials`` (the indices of partial results ``x``, and the number of elements
    behind each output), the pass that finishes them."""
    # Values accumulate in the result's dtype, argmax/argmin's in the input's.
    acc = x.dtype if step.finish is _finish_index else out.dtype
    if step.load is _load_squared_deviation and acc in _UNFUSED_SQUARES and not device.simulated():
        step = step._replace(load=_UNFUSED_SQUARES[acc])
    ident = _identity(step.identity, acc)
    idx, count = partials or (x, n)  # x: an array the first pass's loads leave unread
    outputs = out.size
    outer = outputs // inner
    threads = device.block_size()
    if n < (_WARP if inner == 1 else threads):
        kernel = _thread_kernel(step.load, step.merge, step.finish, acc)
        configured(kernel, device.blocks_for(outputs, threads), threads)(
            x, idx, aux, n, inner, outputs, count, ident, out, out
        )
        return
    if inner == 1:  # rows: about 16 elements a lane, and a sector's worth of lanes at least
        lanes = min(threads, max(_SECTOR // x.dtype.itemsize, _floor_power_of_two(n // 16)))
        width = min(threads // lanes, _ceil_power_of_two(outer))
        blocks = -(-outer // width)
    else:  # columns: up to a warp's width of adjacent ones a block
        width = min(_WARP, _ceil_power_of_two(inner))
        blocks = outer * -(-inner // width)
    lanes = threads // width
    parts = 1 if partials else min(device.blocks_for(n, lanes), max(1, _max_blocks() // blocks))
    if parts == 1:
        kernel = _block_kernel(step.load, step.merge, step.finish, acc)
        configured(kernel, blocks, threads)(
            x, idx, aux, outer, n, inner, width, 1, count, ident, out, out
        )
        return
    values = device.empty((outputs * parts,), acc)
    indices = device.empty((outputs * parts,), np.dtype(np.int64))
    kernel = _block_kernel(step.load, step.merge, None, acc)
    configured(kernel, blocks * parts, threads)(
        x, idx, aux, outer, n, inner, width, parts, n, ident, values, indices
    )
    _run(step._replace(load=_load_partial), values, aux, parts, 1, out, (indices, n))


def reduce(x: Any, method: str, axis: int | None, keepdims: bool, dtype: np.dtype) -> Any:
    """NumPy's ``x.<method>(axis=axis, keepdims=keepdims)`` on device array ``x`` (any
    layout), as a new device array of NumPy's result shape (``()`` for a full reduction)
    and of ``dtype``, NumPy's result dtype, which sums, means and variances accumulate in
    (float32 stays float32)."""
    if method not in _PASSES:
        raise ValueError(f"unknown reduction {method!r}")
    if x.dtype.kind not in "biuf" or x.dtype == np.float16:
        raise TypeError(f"{method} of {x.dtype} arrays is not supported on the CUDA backend")
    dtype = np.dtype(dtype)
    shape = tuple(x.shape)
    if axis is None:
        outer, n, inner = 1, x.size, 1
        result_shape = (1,) * len(shape) if keepdims else ()
    else:
        axis = _normalize_axis(axis, len(shape))
        outer, n, inner = math.prod(shape[:axis]), shape[axis], math.prod(shape[axis + 1 :])
        kept = (1,) if keepdims else ()
        result_shape = shape[:axis] + kept + shape[axis + 1 :]
    if n == 0 and method in ("argmax", "argmin"):
        raise ValueError(f"attempt to get {method} of an empty sequence")
    if n == 0 and method in _UFUNC_NAMES:
        raise ValueError(
            f"zero-size array to reduction operation {_UFUNC_NAMES[method]} which has no identity"
        )
    out = device.empty((outer * inner,), dtype)
    if out.size:
        flat = layout.contiguous(x).reshape(x.size)
        aux = flat  # the first pass's loads leave it unread
        *firsts, last = _PASSES[method]
        for step in firsts:
            means = device.empty(out.shape, dtype)
            _run(step, flat, aux, n, inner, means)
            aux = means
        _run(last, flat, aux, n, inner, out)
    return out.reshape(result_shape)


def _floor_power_of_two(n: int) -> int:
    return 1 << max(0, n.bit_length() - 1)


def _ceil_power_of_two(n: int) -> int:
    return 1 << (n - 1).bit_length()


def _normalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise np.exceptions.AxisError(axis, ndim)
    return axis % ndim
