"""Fixed-point iteration: a while loop until the largest change is small, with ``np.tanh``,
``np.max(np.abs(...))`` and a loop clipping each element."""

from __future__ import annotations

import numba
import numpy as np

from . import _jax

NAME = "fixed_point"
DESCRIPTION = "y = clip(tanh(y / 2 + x) - b) until converged, 50000 float64"


def fixed_point(x, b, tol, max_iter):
    y = np.zeros_like(x)
    it = 0
    delta = tol + 1.0
    while delta > tol and it < max_iter:
        z = np.tanh(0.5 * y + x) - b
        for i in range(z.shape[0]):
            if z[i] > 1.0:
                z[i] = 1.0
            elif z[i] < -1.0:
                z[i] = -1.0
        delta = np.max(np.abs(z - y))
        y = z
        it += 1
    return y, it


# Numba compiles the very same source.
fixed_point_njit = numba.njit(fixed_point)


def make_jax():
    jax, jnp, lax = _jax.load()

    @jax.jit
    def fixed_point_jax(x, b, tol, max_iter):
        def cond(state):
            _, it, delta = state
            return (delta > tol) & (it < max_iter)

        def body(state):
            y, it, _ = state
            z = jnp.clip(jnp.tanh(0.5 * y + x) - b, -1.0, 1.0)
            return z, it + 1, jnp.max(jnp.abs(z - y))

        y, it, _ = lax.while_loop(cond, body, (jnp.zeros_like(x), 0, jnp.inf))
        return y, it

    return fixed_point_jax


eager = fixed_point
njit = fixed_point_njit


def make_inputs(size: int = 50_000):
    rng = np.random.default_rng(12)
    return rng.standard_normal(size), 0.5 * rng.standard_normal(size), 1e-12, 200
