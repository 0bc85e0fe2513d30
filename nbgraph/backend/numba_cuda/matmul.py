"""Matrix products (``a @ b``) on the GPU: cuBLAS through CuPy where CuPy is installed
(float32 and float64), else, and for integers and bools, a tiled, register-blocked kernel.

cuBLAS gets the operands without a copy (``__cuda_array_interface__``) and runs on the
default stream, as the backend's own kernels do, so no synchronisation is needed.

The kernel: operands are made C-contiguous and viewed as stacks of matrices
``(batch, n, k)`` and ``(batch, k, m)`` (a 1-d operand is a one-row or one-column
matrix, as in NumPy).  Each block of ``THREADS x THREADS`` threads computes one square
tile of one output matrix, ``THREADS * PER_THREAD`` on a side: for every ``DEPTH``-wide
slice of ``k`` the block loads one tile of each operand into shared memory (zeros past
the edges) and each thread accumulates ``PER_THREAD x PER_THREAD`` outputs in registers,
so every value read from shared memory feeds several multiply-adds.  A thread's outputs
are spaced ``THREADS`` apart, so neighbouring threads read neighbouring shared-memory
words and write neighbouring output elements.

Products accumulate in the result dtype, as NumPy does (float32 in float32, like its
BLAS and cuBLAS; integers wrap in theirs); bool results count the true products in int64
and store whether there were any (NumPy's or of ands).
"""

from __future__ import annotations

import functools
from types import ModuleType
from typing import Any

import numpy as np
from numba import cuda

from . import device, layout
from .launch import configured

_SIGNATURE = "(n?,k),(k,m?)->(n?,m?)"


def _shape_of_tiles() -> tuple[int, int, int]:
    """(THREADS, PER_THREAD, DEPTH): 16 x 16 threads of 8 x 8 outputs over 16-deep
    slices on a GPU (128 x 128 tiles; on an H100 at 4096², 13 TFLOP/s against 10 for
    64 x 64 tiles and 7 for 128 x 128 over 8-deep slices); 2 x 2 threads of 2 x 2 on
    the simulator, where every thread is a Python thread."""
    return (2, 2, 4) if device.simulated() else (16, 8, 16)


@functools.cache
def _kernel(acc: np.dtype) -> Any:
    """Kernel ``(a, b, out)`` for C-contiguous ``(batch_a, n, k)``, ``(batch_b, k, m)`` and
    ``(batch, n, m)`` (a batch of 1 broadcasts): block ``g`` computes tile ``g % tiles``
    of matrix ``g // tiles``, the tiles running along rows of the output."""
    threads, per, depth = _shape_of_tiles()
    side = threads * per
    count = threads * threads
    loads = side * depth // count  # elements of each operand tile one thread loads
    acc_t = acc.type

    @cuda.jit
    def matmul_tiles(a, b, out):
        a_tile = cuda.shared.array((depth, side), acc_t)  # a's tile, transposed
        b_tile = cuda.shared.array((depth, side), acc_t)
        total = cuda.local.array((per, per), acc_t)
        a_part = cuda.local.array(per, acc_t)
        b_part = cuda.local.array(per, acc_t)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        t = ty * threads + tx
        n, k, m = out.shape[1], a.shape[2], out.shape[2]
        tiles_m = (m + side - 1) // side
        tiles = (n + side - 1) // side * tiles_m
        g = cuda.blockIdx.x
        z = g // tiles
        top = g % tiles // tiles_m * side
        left = g % tiles_m * side
        za = z if a.shape[0] > 1 else 0
        zb = z if b.shape[0] > 1 else 0
        for i in range(per):
            for j in range(per):
                total[i, j] = acc_t(0)
        for start in range(0, k, depth):
            for e in range(loads):
                index = t + e * count
                r, q = index // depth, index % depth  # a: along k first (coalesced)
                a_tile[q, r] = (
                    acc_t(a[za, top + r, start + q]) if top + r < n and start + q < k else acc_t(0)
                )
                q, c = index // side, index % side
                b_tile[q, c] = (
                    acc_t(b[zb, start + q, left + c])
                    if start + q < k and left + c < m
                    else acc_t(0)
                )
            cuda.syncthreads()
            for q in range(depth):
                for i in range(per):
                    a_part[i] = a_tile[q, ty + i * threads]
                    b_part[i] = b_tile[q, tx + i * threads]
                for i in range(per):
                    for j in range(per):
                        total[i, j] += a_part[i] * b_part[j]
            cuda.syncthreads()
        for i in range(per):
            row = top + ty + i * threads
            for j in range(per):
                col = left + tx + j * threads
                if row < n and col < m:
                    out[z, row, col] = total[i, j]

    return matmul_tiles


def matmul(a: Any, b: Any, dtype: np.dtype) -> Any:
    """``a @ b`` for device arrays of 1 to 3 dimensions (any layout) by NumPy's rules
    (1-d operands are vectors, 3-d ones stacks of matrices, broadcast over the stack),
    as a new device array of ``dtype``."""
    for number, operand in enumerate((a, b)):
        if operand.ndim == 0:
            raise ValueError(
                f"matmul: Input operand {number} does not have enough dimensions (has 0, "
                f"gufunc core with signature {_SIGNATURE} requires 1)"
            )
        if operand.ndim > 3:
            raise TypeError(
                f"matmul of {operand.ndim}-d arrays is not supported on the CUDA backend"
            )
        if operand.dtype.kind not in "biuf" or operand.dtype == np.float16:
            raise TypeError(
                f"matmul of {operand.dtype} arrays is not supported on the CUDA backend"
            )
    dtype = np.dtype(dtype)
    a_shape = (1, 1, *a.shape) if a.ndim == 1 else (1,) * (3 - a.ndim) + a.shape
    b_shape = (1, *b.shape, 1) if b.ndim == 1 else (1,) * (3 - b.ndim) + b.shape
    (batch_a, n, k), (batch_b, k_b, m) = a_shape, b_shape
    if k_b != k:
        raise ValueError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature {_SIGNATURE} (size {k_b} is different from {k})"
        )
    if batch_a != batch_b and 1 not in (batch_a, batch_b):
        raise ValueError(
            "operands could not be broadcast together with remapped shapes "
            f"[original->remapped]: {_shape(a.shape)}->({batch_a},newaxis,newaxis) "
            f"{_shape(b.shape)}->({batch_b},newaxis,newaxis)  and requested shape "
            f"({n},{m})"
        )
    library = _cupy()
    if library is not None and dtype in (np.float32, np.float64):
        with library.cuda.Stream.null:
            product = library.matmul(
                library.asarray(a).astype(dtype, copy=False),
                library.asarray(b).astype(dtype, copy=False),
            )
        return cuda.as_cuda_array(product, sync=False)
    return tiled(a, b, dtype, a_shape, b_shape)


@functools.cache
def _cupy() -> ModuleType | None:
    """CuPy (its matmul is cuBLAS's) where it is installed and kernels run on a GPU."""
    if device.simulated():
        return None
    try:
        import cupy
    except ImportError:
        return None
    return cupy


def tiled(
    a: Any, b: Any, dtype: np.dtype, a_shape: tuple[int, ...], b_shape: tuple[int, ...]
) -> Any:
    """``a @ b`` by the tiled kernel, for operands viewed as ``a_shape`` and ``b_shape``
    (three dimensions each, checked by ``matmul``)."""
    (batch_a, n, _), (batch_b, _, m) = a_shape, b_shape
    batch = batch_a if batch_b == 1 else batch_b
    out = device.empty((batch, n, m), dtype)
    if out.size:
        acc = np.dtype(np.int64) if dtype == np.bool_ else dtype
        threads, per, _ = _shape_of_tiles()
        side = threads * per
        tiles = batch * -(-n // side) * -(-m // side)
        configured(_kernel(acc), tiles, (threads, threads))(
            layout.contiguous(a).reshape(a_shape), layout.contiguous(b).reshape(b_shape), out
        )
    result_shape = (
        ((batch,) if max(a.ndim, b.ndim) == 3 else ())
        + ((n,) if a.ndim > 1 else ())
        + ((m,) if b.ndim > 1 else ())
    )
    return out.reshape(result_shape)


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, shape)) + ")"
