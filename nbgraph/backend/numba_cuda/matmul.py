"""Matrix products (``a @ b``) on the GPU: a tiled shared-memory kernel.

Operands are made C-contiguous and viewed as stacks of matrices ``(batch, n, k)`` and
``(batch, k, m)`` (a 1-d operand is a one-row or one-column matrix, as in NumPy).  Each
block of ``TILE x TILE`` threads computes one ``TILE x TILE`` tile of one output matrix:
for every ``TILE``-wide slice of ``k`` it loads one tile of each operand into shared
memory (zeros past the edges), synchronises, and each thread adds that slice's products
for its output element.  Products accumulate in the result dtype, as NumPy does (float32
in float32, like its BLAS; integers wrap in theirs); bool results count the true
products in int64 and store whether there were any (NumPy's or of ands).
"""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numba import cuda

from . import device, layout

_SIGNATURE = "(n?,k),(k,m?)->(n?,m?)"


def _tile() -> int:
    """Tile edge: 16 (256 threads a block) on a GPU, 4 on the simulator, where every
    thread is a Python thread."""
    return 4 if device.simulated() else 16


@functools.cache
def _kernel(acc: np.dtype) -> Any:
    """Kernel ``(a, b, out)`` for C-contiguous ``(batch_a, n, k)``, ``(batch_b, k, m)`` and
    ``(batch, n, m)`` (a batch of 1 broadcasts): block ``g`` computes tile ``g % tiles``
    of matrix ``g // tiles``, the tiles running along rows of the output."""
    tile = _tile()
    acc_t = acc.type

    @cuda.jit
    def matmul_tiles(a, b, out):
        a_tile = cuda.shared.array((tile, tile), acc_t)
        b_tile = cuda.shared.array((tile, tile), acc_t)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        n, k, m = out.shape[1], a.shape[2], out.shape[2]
        tiles_m = (m + tile - 1) // tile
        tiles = (n + tile - 1) // tile * tiles_m
        g = cuda.blockIdx.x
        z = g // tiles
        row = g % tiles // tiles_m * tile + ty
        col = g % tiles_m * tile + tx
        za = z if a.shape[0] > 1 else 0
        zb = z if b.shape[0] > 1 else 0
        total = acc_t(0)
        for start in range(0, k, tile):
            a_tile[ty, tx] = acc_t(a[za, row, start + tx]) if row < n and start + tx < k \
                else acc_t(0)
            b_tile[ty, tx] = acc_t(b[zb, start + ty, col]) if start + ty < k and col < m \
                else acc_t(0)
            cuda.syncthreads()
            for q in range(tile):
                total += a_tile[ty, q] * b_tile[q, tx]
            cuda.syncthreads()
        if row < n and col < m:
            out[z, row, col] = total

    return matmul_tiles


def matmul(a: Any, b: Any, dtype: np.dtype) -> Any:
    """``a @ b`` for device arrays of 1 to 3 dimensions (any layout) by NumPy's rules
    (1-d operands are vectors, 3-d ones stacks of matrices, broadcast over the stack),
    as a new device array of ``dtype``."""
    for number, operand in enumerate((a, b)):
        if operand.ndim == 0:
            raise ValueError(
                f"matmul: Input operand {number} does not have enough dimensions (has 0, "
                f"gufunc core with signature {_SIGNATURE} requires 1)")
        if operand.ndim > 3:
            raise TypeError(f"matmul of {operand.ndim}-d arrays is not supported on the "
                            "CUDA backend")
        if operand.dtype.kind not in "biuf" or operand.dtype == np.float16:
            raise TypeError(f"matmul of {operand.dtype} arrays is not supported on the "
                            "CUDA backend")
    dtype = np.dtype(dtype)
    a_shape = (1, 1, *a.shape) if a.ndim == 1 else (1,) * (3 - a.ndim) + a.shape
    b_shape = (1, *b.shape, 1) if b.ndim == 1 else (1,) * (3 - b.ndim) + b.shape
    (batch_a, n, k), (batch_b, k_b, m) = a_shape, b_shape
    if k_b != k:
        raise ValueError(
            f"matmul: Input operand 1 has a mismatch in its core dimension 0, with gufunc "
            f"signature {_SIGNATURE} (size {k_b} is different from {k})")
    if batch_a != batch_b and 1 not in (batch_a, batch_b):
        raise ValueError(
            "operands could not be broadcast together with remapped shapes "
            f"[original->remapped]: {_shape(a.shape)}->({batch_a},newaxis,newaxis) "
            f"{_shape(b.shape)}->({batch_b},newaxis,newaxis)  and requested shape "
            f"({n},{m})")
    batch = batch_a if batch_b == 1 else batch_b
    out = device.empty((batch, n, m), dtype)
    if out.size:
        acc = np.dtype(np.int64) if dtype == np.bool_ else dtype
        tile = _tile()
        tiles = batch * -(-n // tile) * -(-m // tile)
        _kernel(acc)[tiles, (tile, tile)](layout.contiguous(a).reshape(a_shape),
                                           layout.contiguous(b).reshape(b_shape), out)
    result_shape = ((batch,) if max(a.ndim, b.ndim) == 3 else ()) + \
        ((n,) if a.ndim > 1 else ()) + ((m,) if b.ndim > 1 else ())
    return out.reshape(result_shape)


def _shape(shape: tuple[int, ...]) -> str:
    return "(" + ",".join(map(str, shape)) + ")"
