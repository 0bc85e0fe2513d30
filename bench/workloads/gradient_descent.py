"""Linear regression by plain gradient descent, with the step loop inside the function."""

from __future__ import annotations

import numba
import numpy as np

from . import _jax

NAME = "gradient_descent"
DESCRIPTION = "200 steps of gradient descent, linear regression, X 10000x50"


def linreg_gd(X, y, lr, steps):
    n = X.shape[0]
    w = np.zeros(X.shape[1])
    for _ in range(steps):
        grad = X.T @ (X @ w - y) / n
        w = w - lr * grad
    return w


@numba.njit
def linreg_gd_njit(X, y, lr, steps):
    n = X.shape[0]
    w = np.zeros(X.shape[1])
    Xt = np.ascontiguousarray(X.T)
    for _ in range(steps):
        residual = X @ w - y
        grad = Xt @ residual
        for j in range(w.shape[0]):
            w[j] -= lr * grad[j] / n
    return w


def make_jax():
    jax, jnp, lax = _jax.load()

    @jax.jit
    def linreg_gd_jax(X, y, lr, steps):
        n = X.shape[0]

        def step(_, w):
            return w - lr * (X.T @ (X @ w - y) / n)

        return lax.fori_loop(0, steps, step, jnp.zeros(X.shape[1]))

    return linreg_gd_jax


eager = linreg_gd
njit = linreg_gd_njit


def make_inputs(rows: int = 10_000, cols: int = 50, steps: int = 200):
    rng = np.random.default_rng(7)
    X = rng.standard_normal((rows, cols))
    w_true = rng.standard_normal(cols)
    y = X @ w_true + 0.1 * rng.standard_normal(rows)
    return X, y, 0.05, steps
