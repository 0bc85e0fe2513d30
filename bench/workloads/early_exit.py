"""Early exit: first index where the running sum of |x| exceeds a threshold."""

from __future__ import annotations

import numba
import numpy as np

from . import _jax

NAME = "early_exit"
DESCRIPTION = "first i with running sum |x| > threshold, 10M float64, exits at ~60%"


def first_exceeding(x, threshold):
    total = 0.0
    for i in range(x.shape[0]):
        total += abs(x[i])
        if total > threshold:
            return i
    return -1


@numba.njit
def first_exceeding_njit(x, threshold):
    total = 0.0
    for i in range(x.shape[0]):
        total += abs(x[i])
        if total > threshold:
            return i
    return -1


def make_jax():
    jax, jnp, lax = _jax.load()

    @jax.jit
    def first_exceeding_jax(x, threshold):
        n = x.shape[0]

        def cond(state):
            i, total = state
            return (i < n) & (total <= threshold)

        def body(state):
            i, total = state
            return i + 1, total + jnp.abs(x[i])

        i, total = lax.while_loop(cond, body, (jnp.int64(0), jnp.float64(0.0)))
        return jnp.where(total > threshold, i - 1, -1)

    return first_exceeding_jax


eager = first_exceeding
njit = first_exceeding_njit


def make_inputs(size: int = 10_000_000):
    rng = np.random.default_rng(2)
    x = rng.standard_normal(size)
    # The running sum passes the threshold at about 60% of the array.
    threshold = float(np.sum(np.abs(x[: int(0.6 * size)])))
    return x, threshold
