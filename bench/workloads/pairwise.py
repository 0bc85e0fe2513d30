"""Pairwise Euclidean distances written as three nested loops."""

from __future__ import annotations

import numba
import numpy as np

from . import _jax

NAME = "pairwise"
DESCRIPTION = "pairwise distances, 3 nested loops, 1000 points x 3 dims -> 1000x1000"


def pairwise_distances(points):
    n = points.shape[0]
    dims = points.shape[1]
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(dims):
                diff = points[i, k] - points[j, k]
                total += diff * diff
            out[i, j] = np.sqrt(total)
    return out


@numba.njit
def pairwise_distances_njit(points):
    n = points.shape[0]
    dims = points.shape[1]
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(dims):
                diff = points[i, k] - points[j, k]
                total += diff * diff
            out[i, j] = np.sqrt(total)
    return out


def make_jax():
    jax, jnp, _ = _jax.load()

    def distance(p, q):
        return jnp.sqrt(jnp.sum((p - q) ** 2))

    @jax.jit
    def pairwise_distances_jax(points):
        rows = jax.vmap(distance, in_axes=(None, 0))
        return jax.vmap(rows, in_axes=(0, None))(points, points)

    return pairwise_distances_jax


eager = pairwise_distances
njit = pairwise_distances_njit


def make_inputs(size: int = 1000):
    rng = np.random.default_rng(3)
    return (rng.standard_normal((size, 3)),)
