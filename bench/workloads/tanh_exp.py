"""Transcendental elementwise work: np.tanh(a*b+c)*np.exp(-a)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numba
import numpy as np

from . import _jax
from ._alloc import advise_huge

NAME = "tanh_exp"
DESCRIPTION = "np.tanh(a*b+c)*np.exp(-a), 10M float64"
BLOCK = 16384  # elements per block: the block's temporaries stay in cache


def tanh_exp(a, b, c):
    return np.tanh(a * b + c) * np.exp(-a)


def _block(a, b, c, out, tmp):
    """One block with NumPy's SIMD ufuncs, into preallocated buffers."""
    np.multiply(a, b, out=tmp)
    np.add(tmp, c, out=tmp)
    np.tanh(tmp, out=tmp)
    np.negative(a, out=out)
    np.exp(out, out=out)
    np.multiply(tmp, out, out=out)


@numba.njit
def tanh_exp_njit(a, b, c):
    """The math library graph mode uses for transcendental groups (NumPy's SIMD ufuncs,
    called by blocks from compiled code) and its output allocation (huge pages)."""
    n = a.shape[0]
    out = advise_huge(np.empty_like(a))
    tmp = np.empty(BLOCK)
    for start in range(0, n, BLOCK):
        stop = min(start + BLOCK, n)
        with numba.objmode():
            _block(
                a[start:stop], b[start:stop], c[start:stop], out[start:stop], tmp[: stop - start]
            )
    return out


@numba.njit
def tanh_exp_njit_libm(a, b, c):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = math.tanh(a[i] * b[i] + c[i]) * math.exp(-a[i])
    return out


def other_baselines() -> dict[str, Callable]:
    return {
        "njit, one loop with scalar libm tanh/exp, plain np.empty_like output": tanh_exp_njit_libm
    }


def make_jax():
    jax, jnp, _ = _jax.load()

    @jax.jit
    def tanh_exp_jax(a, b, c):
        return jnp.tanh(a * b + c) * jnp.exp(-a)

    return tanh_exp_jax


eager = tanh_exp
njit = tanh_exp_njit


def make_inputs(size: int = 10_000_000):
    rng = np.random.default_rng(5)
    return tuple(rng.standard_normal(size) for _ in range(3))
