"""Row softmax of a square matrix (subtract the row max, exp, divide by the row sum)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numba
import numpy as np

from . import _jax
from ._alloc import advise_huge

NAME = "softmax"
DESCRIPTION = "row softmax, 2000x2000 float64"
BLOCK = 16384  # elements per call of NumPy's exp


def row_softmax(x):
    shifted = x - np.max(x, axis=1, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=1, keepdims=True)


def _exp_rows(block):
    np.exp(block, out=block)


@numba.njit
def row_softmax_njit(x):
    """Graph mode's choices: NumPy's SIMD exp on blocks of about 16K elements (called
    from compiled code), the output allocated with huge pages."""
    rows, cols = x.shape
    out = advise_huge(np.empty_like(x))
    step = max(1, BLOCK // cols)
    for start in range(0, rows, step):
        stop = min(start + step, rows)
        for i in range(start, stop):
            top = x[i, 0]
            for j in range(1, cols):
                top = max(top, x[i, j])
            for j in range(cols):
                out[i, j] = x[i, j] - top
        with numba.objmode():
            _exp_rows(out[start:stop])
        for i in range(start, stop):
            total = 0.0
            for j in range(cols):
                total += out[i, j]
            for j in range(cols):
                out[i, j] /= total
    return out


@numba.njit
def row_softmax_njit_libm(x):
    rows, cols = x.shape
    out = np.empty_like(x)
    for i in range(rows):
        top = x[i, 0]
        for j in range(1, cols):
            top = max(top, x[i, j])
        total = 0.0
        for j in range(cols):
            e = math.exp(x[i, j] - top)
            out[i, j] = e
            total += e
        for j in range(cols):
            out[i, j] /= total
    return out


def other_baselines() -> dict[str, Callable]:
    return {"njit, scalar libm exp, plain np.empty_like output": row_softmax_njit_libm}


def make_jax():
    jax, jnp, _ = _jax.load()

    @jax.jit
    def row_softmax_jax(x):
        shifted = x - jnp.max(x, axis=1, keepdims=True)
        e = jnp.exp(shifted)
        return e / jnp.sum(e, axis=1, keepdims=True)

    return row_softmax_jax


eager = row_softmax
njit = row_softmax_njit


def make_inputs(size: int = 2000):
    rng = np.random.default_rng(6)
    return (rng.standard_normal((size, size)) * 3.0,)
