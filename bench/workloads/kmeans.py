"""k-means: Lloyd's iterations until the centroids stop moving (a while loop over array
work, with a loop over the clusters inside)."""

from __future__ import annotations

import numba
import numpy as np

from . import _jax

NAME = "kmeans"
DESCRIPTION = "k-means until converged, 20000 points in 2-d, 8 clusters"


def kmeans(points, centroids, tol, max_iter):
    it = 0
    shift = tol + 1.0
    while shift > tol and it < max_iter:
        d = np.sum((points[:, None, :] - centroids[None, :, :]) ** 2, axis=2)
        labels = np.argmin(d, axis=1)
        new = centroids.copy()
        for k in range(centroids.shape[0]):
            members = points[labels == k]
            if members.shape[0] > 0:
                new[k] = members.mean(axis=0)
        shift = np.max(np.abs(new - centroids))
        centroids = new
        it += 1
    return centroids, it


@numba.njit
def kmeans_njit(points, centroids, tol, max_iter):
    n, dim = points.shape
    clusters = centroids.shape[0]
    it = 0
    shift = tol + 1.0
    while shift > tol and it < max_iter:
        sums = np.zeros((clusters, dim))
        counts = np.zeros(clusters, np.int64)
        for i in range(n):
            best, best_d = 0, np.inf
            for k in range(clusters):
                d = 0.0
                for j in range(dim):
                    t = points[i, j] - centroids[k, j]
                    d += t * t
                if d < best_d:
                    best, best_d = k, d
            counts[best] += 1
            for j in range(dim):
                sums[best, j] += points[i, j]
        new = centroids.copy()
        for k in range(clusters):
            if counts[k] > 0:
                for j in range(dim):
                    new[k, j] = sums[k, j] / counts[k]
        shift = np.max(np.abs(new - centroids))
        centroids = new
        it += 1
    return centroids, it


def make_jax():
    jax, jnp, lax = _jax.load()

    @jax.jit
    def kmeans_jax(points, centroids, tol, max_iter):
        clusters = jnp.arange(centroids.shape[0])

        def cond(state):
            _, it, shift = state
            return (shift > tol) & (it < max_iter)

        def body(state):
            c, it, _ = state
            d = jnp.sum((points[:, None, :] - c[None, :, :]) ** 2, axis=2)
            member = jnp.argmin(d, axis=1)[:, None] == clusters[None, :]
            counts = member.sum(axis=0)
            sums = jnp.where(member[:, :, None], points[:, None, :], 0.0).sum(axis=0)
            new = jnp.where(counts[:, None] > 0, sums / jnp.maximum(counts, 1)[:, None], c)
            return new, it + 1, jnp.max(jnp.abs(new - c))

        c, it, _ = lax.while_loop(cond, body, (centroids, 0, jnp.inf))
        return c, it

    return kmeans_jax


eager = kmeans
njit = kmeans_njit


def make_inputs(points: int = 20_000, clusters: int = 8):
    rng = np.random.default_rng(11)
    centres = rng.uniform(-10.0, 10.0, (clusters, 2))
    x = centres[rng.integers(0, clusters, points)] + rng.standard_normal((points, 2))
    return x, x[rng.choice(points, clusters, replace=False)].copy(), 1e-10, 100
