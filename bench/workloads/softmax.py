"""Row softmax of a square matrix (subtract the row max, exp, divide by the row sum)."""

from __future__ import annotations

import math

import numba
import numpy as np

from . import _jax

NAME = "softmax"
DESCRIPTION = "row softmax, 2000x2000 float64"


def row_softmax(x):
    shifted = x - np.max(x, axis=1, keepdims=True)
    e = np.exp(shifted)
    return e / np.sum(e, axis=1, keepdims=True)


@numba.njit
def row_softmax_njit(x):
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
