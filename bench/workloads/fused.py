"""Fused elementwise arithmetic: np.maximum(a*b+c, 0)*(a-0.5*c)."""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np

from . import _jax
from ._alloc import advise_huge

NAME = "fused"
DESCRIPTION = "np.maximum(a*b+c, 0)*(a-0.5*c), 10M float64"


def fused_arith(a, b, c):
    return np.maximum(a * b + c, 0) * (a - 0.5 * c)


@numba.njit
def _fill(a, b, c, out):
    for i in range(a.shape[0]):
        out[i] = max(a[i] * b[i] + c[i], 0.0) * (a[i] - 0.5 * c[i])
    return out


@numba.njit
def fused_arith_njit(a, b, c):
    """One loop into an output allocated as graph mode allocates it (huge pages)."""
    return _fill(a, b, c, advise_huge(np.empty_like(a)))


@numba.njit
def fused_arith_njit_plain(a, b, c):
    return _fill(a, b, c, np.empty_like(a))


def other_baselines() -> dict[str, Callable]:
    return {"njit, output from plain np.empty_like (no huge pages)": fused_arith_njit_plain}


def make_jax():
    jax, jnp, _ = _jax.load()

    @jax.jit
    def fused_arith_jax(a, b, c):
        return jnp.maximum(a * b + c, 0) * (a - 0.5 * c)

    return fused_arith_jax


eager = fused_arith
njit = fused_arith_njit


def make_inputs(size: int = 10_000_000):
    rng = np.random.default_rng(4)
    return tuple(rng.standard_normal(size) for _ in range(3))
