"""Transcendental elementwise work: np.tanh(a*b+c)*np.exp(-a)."""

from __future__ import annotations

import math

import numba
import numpy as np

from . import _jax

NAME = "tanh_exp"
DESCRIPTION = "np.tanh(a*b+c)*np.exp(-a), 10M float64"


def tanh_exp(a, b, c):
    return np.tanh(a * b + c) * np.exp(-a)


@numba.njit
def tanh_exp_njit(a, b, c):
    out = np.empty_like(a)
    for i in range(a.shape[0]):
        out[i] = math.tanh(a[i] * b[i] + c[i]) * math.exp(-a[i])
    return out


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
