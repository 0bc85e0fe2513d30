"""Vectorized NumPy kernels, written the way NumPy users write them.

Each kernel is a plain NumPy function (the eager variant; graph mode is
``nbgraph.function`` of it and the njit variant is ``numba.njit`` of the very same
function), a ``jax.numpy`` twin of the same algorithm (jitted by ``jax_functions``) and a
seeded input factory.  ``make_inputs(scale)`` scales the problem: ``scale=1`` is the
benchmark's size (each call takes milliseconds), small scales are for tests.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

DESCRIPTION = (
    "vectorized NumPy kernels: reductions, norms, softmax, distances, layer norm, polynomials, ..."
)

# jax.numpy, bound by jax_functions(); the twins below are only called after that.
jnp: Any = None


@dataclass(frozen=True)
class Kernel:
    name: str
    eager: Callable[..., Any]
    twin: Callable[..., Any]
    make_inputs: Callable[[float], tuple[Any, ...]]
    what: str


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _n(size: int, scale: float, least: int = 4) -> int:
    return max(least, int(size * scale))


# ----------------------------------------------------------------------- the kernels


def row_sums_col_means(x):
    return np.sum(x, axis=1), np.mean(x, axis=0)


def row_sums_col_means_jax(x):
    return jnp.sum(x, axis=1), jnp.mean(x, axis=0)


def row_norms(x):
    return np.sqrt(np.sum(x * x, axis=1))


def row_norms_jax(x):
    return jnp.sqrt(jnp.sum(x * x, axis=1))


def point_norms(p):
    return np.sqrt(np.sum(p * p, axis=1))


def point_norms_jax(p):
    return jnp.sqrt(jnp.sum(p * p, axis=1))


def standardize_columns(x):
    return (x - x.mean(0)) / x.std(0)


def standardize_columns_jax(x):
    return (x - x.mean(0)) / x.std(0)


def logsumexp_rows(x):
    m = np.max(x, axis=1, keepdims=True)
    return m[:, 0] + np.log(np.sum(np.exp(x - m), axis=1))


def logsumexp_rows_jax(x):
    m = jnp.max(x, axis=1, keepdims=True)
    return m[:, 0] + jnp.log(jnp.sum(jnp.exp(x - m), axis=1))


def softmax_float32(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def softmax_float32_jax(x):
    e = jnp.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def line_fit(x, y):
    dx = x - x.mean()
    dy = y - y.mean()
    slope = np.sum(dx * dy) / np.sum(dx * dx)
    return slope, y.mean() - slope * x.mean()


def line_fit_jax(x, y):
    dx = x - x.mean()
    dy = y - y.mean()
    slope = jnp.sum(dx * dy) / jnp.sum(dx * dx)
    return slope, y.mean() - slope * x.mean()


def pairwise_distances(p, q):
    d = p[:, None, :] - q[None, :, :]
    return np.sqrt(np.sum(d * d, axis=-1))


def pairwise_distances_jax(p, q):
    d = p[:, None, :] - q[None, :, :]
    return jnp.sqrt(jnp.sum(d * d, axis=-1))


def l1_distances(a, b):
    return np.sum(np.abs(a[:, None, :] - b[None, :, :]), axis=-1)


def l1_distances_jax(a, b):
    return jnp.sum(jnp.abs(a[:, None, :] - b[None, :, :]), axis=-1)


def layer_norm_gelu(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * gamma + beta
    return 0.5 * y * (1.0 + np.tanh(0.7978845608 * (y + 0.044715 * y**3)))


def layer_norm_gelu_jax(x, gamma, beta):
    mu = x.mean(axis=-1, keepdims=True)
    var = ((x - mu) ** 2).mean(axis=-1, keepdims=True)
    y = (x - mu) / jnp.sqrt(var + 1e-5) * gamma + beta
    return 0.5 * y * (1.0 + jnp.tanh(0.7978845608 * (y + 0.044715 * y**3)))


def horner(x, coeffs):
    out = np.zeros_like(x)
    for c in coeffs:
        out = out * x + c
    return out


def horner_jax(x, coeffs):
    out = jnp.zeros_like(x)
    for i in range(coeffs.shape[0]):
        out = out * x + coeffs[i]
    return out


def moving_average(x, w):
    c = np.cumsum(x)
    return (c[w:] - c[:-w]) / w


def moving_average_jax(x, w):
    c = jnp.cumsum(x)
    return (c[w:] - c[:-w]) / w


def clip_scaled(x, lo, hi):
    return np.clip(2.5 * x - 0.5, lo, hi)


def clip_scaled_jax(x, lo, hi):
    return jnp.clip(2.5 * x - 0.5, lo, hi)


def cosine_similarity(a, b):
    dot = np.sum(a * b, axis=1)
    return dot / (np.sqrt(np.sum(a * a, axis=1)) * np.sqrt(np.sum(b * b, axis=1)))


def cosine_similarity_jax(a, b):
    dot = jnp.sum(a * b, axis=1)
    return dot / (jnp.sqrt(jnp.sum(a * a, axis=1)) * jnp.sqrt(jnp.sum(b * b, axis=1)))


def rms_norm_float32(x, weight):
    return x / np.sqrt(np.mean(x * x, axis=-1, keepdims=True) + 1e-6) * weight


def rms_norm_float32_jax(x, weight):
    return x / jnp.sqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * weight


def max_abs_diff(a, b):
    return np.max(np.abs(a - b))


def max_abs_diff_jax(a, b):
    return jnp.max(jnp.abs(a - b))


def var_last_axis(x):
    return np.var(x, axis=-1)


def var_last_axis_jax(x):
    return jnp.var(x, axis=-1)


def column_ranges(x):
    return x.max(axis=0) - x.min(axis=0)


def column_ranges_jax(x):
    return x.max(axis=0) - x.min(axis=0)


def mean_squared_error(pred, target):
    return np.mean((pred - target) ** 2)


def mean_squared_error_jax(pred, target):
    return jnp.mean((pred - target) ** 2)


def sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def sigmoid_jax(x):
    return 1.0 / (1.0 + jnp.exp(-x))


def leaky_relu(x):
    return np.where(x > 0, x, 0.01 * x)


def leaky_relu_jax(x):
    return jnp.where(x > 0, x, 0.01 * x)


# ----------------------------------------------------------------------- inputs


def _matrix(rows: int, cols: int, seed: int, scale: float, dtype: Any = np.float64) -> np.ndarray:
    return _rng(seed).standard_normal((_n(rows, scale), _n(cols, scale))).astype(dtype)


def _vector(size: int, seed: int, scale: float, dtype: Any = np.float64) -> np.ndarray:
    return _rng(seed).standard_normal(_n(size, scale, 16)).astype(dtype)


def _layer_norm_inputs(scale: float) -> tuple[Any, ...]:
    x = _matrix(4096, 512, 20, scale, np.float32)
    rng = _rng(21)
    gamma = (1.0 + 0.1 * rng.standard_normal(x.shape[1])).astype(np.float32)
    beta = (0.1 * rng.standard_normal(x.shape[1])).astype(np.float32)
    return x, gamma, beta


def _line_inputs(scale: float) -> tuple[Any, ...]:
    x = _vector(2_000_000, 30, scale)
    y = 3.0 * x + 1.0 + _rng(31).standard_normal(x.shape[0])
    return x, y


def _rms_inputs(scale: float) -> tuple[Any, ...]:
    x = _matrix(4096, 512, 40, scale, np.float32)
    return x, (1.0 + 0.1 * _rng(41).standard_normal(x.shape[1])).astype(np.float32)


KERNELS: tuple[Kernel, ...] = (
    Kernel(
        "row_sums_col_means",
        row_sums_col_means,
        row_sums_col_means_jax,
        lambda s: (_matrix(2000, 1000, 1, s),),
        "np.sum(x, axis=1), np.mean(x, axis=0); 2000x1000 f64",
    ),
    Kernel(
        "row_norms",
        row_norms,
        row_norms_jax,
        lambda s: (_matrix(3000, 1000, 2, s),),
        "np.sqrt(np.sum(x * x, axis=1)); 3000x1000 f64",
    ),
    Kernel(
        "point_norms",
        point_norms,
        point_norms_jax,
        lambda s: (_matrix(1_000_000, 3, 25, s),),
        "np.sqrt(np.sum(p * p, axis=1)) of 3-d points: many short rows; 1e6x3 f64",
    ),
    Kernel(
        "standardize_columns",
        standardize_columns,
        standardize_columns_jax,
        lambda s: (_matrix(2000, 500, 3, s),),
        "(x - x.mean(0)) / x.std(0); 2000x500 f64",
    ),
    Kernel(
        "logsumexp_rows",
        logsumexp_rows,
        logsumexp_rows_jax,
        lambda s: (_matrix(1000, 1000, 4, s),),
        "row logsumexp (max, exp, sum, log); 1000x1000 f64",
    ),
    Kernel(
        "softmax_float32",
        softmax_float32,
        softmax_float32_jax,
        lambda s: (3.0 * _matrix(2048, 1000, 5, s, np.float32),),
        "row softmax; 2048x1000 f32",
    ),
    Kernel(
        "line_fit",
        line_fit,
        line_fit_jax,
        _line_inputs,
        "least-squares slope and intercept, np.sum(dx * dy) / np.sum(dx * dx); 2e6 f64",
    ),
    Kernel(
        "pairwise_distances",
        pairwise_distances,
        pairwise_distances_jax,
        lambda s: (_matrix(400, 3, 6, s), _matrix(500, 3, 7, s)),
        "sqrt(sum((p[:, None] - q[None]) ** 2, -1)); 400x3 vs 500x3 f64",
    ),
    Kernel(
        "l1_distances",
        l1_distances,
        l1_distances_jax,
        lambda s: (_matrix(200, 16, 8, s), _matrix(300, 16, 9, s)),
        "sum(abs(a[:, None] - b[None]), -1); 200x16 vs 300x16 f64",
    ),
    Kernel(
        "layer_norm_gelu",
        layer_norm_gelu,
        layer_norm_gelu_jax,
        _layer_norm_inputs,
        "layer norm then tanh-GELU; 4096x512 f32",
    ),
    Kernel(
        "horner",
        horner,
        horner_jax,
        lambda s: (
            _vector(1_000_000, 10, s),
            np.array([0.5, -1.0, 0.25, 2.0, -0.75, 1.5, 0.1, -0.3]),
        ),
        "degree-7 polynomial by Horner's rule (loop over coefficients); 1e6 f64",
    ),
    Kernel(
        "moving_average",
        moving_average,
        moving_average_jax,
        lambda s: (_vector(2_000_000, 11, s), 50),
        "moving average of width 50 via np.cumsum; 2e6 f64",
    ),
    Kernel(
        "clip_scaled",
        clip_scaled,
        clip_scaled_jax,
        lambda s: (_vector(4_000_000, 12, s), -1.0, 1.0),
        "np.clip(2.5 * x - 0.5, lo, hi); 4e6 f64",
    ),
    Kernel(
        "cosine_similarity",
        cosine_similarity,
        cosine_similarity_jax,
        lambda s: (_matrix(2000, 500, 13, s), _matrix(2000, 500, 14, s)),
        "row cosine similarity of two matrices; 2000x500 f64",
    ),
    Kernel(
        "rms_norm_float32",
        rms_norm_float32,
        rms_norm_float32_jax,
        _rms_inputs,
        "x / sqrt(mean(x * x, -1) + eps) * w; 4096x512 f32",
    ),
    Kernel(
        "max_abs_diff",
        max_abs_diff,
        max_abs_diff_jax,
        lambda s: (_vector(4_000_000, 15, s), _vector(4_000_000, 16, s)),
        "np.max(np.abs(a - b)); 4e6 f64",
    ),
    Kernel(
        "var_last_axis",
        var_last_axis,
        var_last_axis_jax,
        lambda s: (_matrix(2000, 1000, 17, s),),
        "np.var(x, axis=-1); 2000x1000 f64",
    ),
    Kernel(
        "column_ranges",
        column_ranges,
        column_ranges_jax,
        lambda s: (_matrix(2000, 1000, 18, s),),
        "x.max(axis=0) - x.min(axis=0); 2000x1000 f64",
    ),
    Kernel(
        "mean_squared_error",
        mean_squared_error,
        mean_squared_error_jax,
        lambda s: (_vector(4_000_000, 19, s), _vector(4_000_000, 22, s)),
        "np.mean((pred - target) ** 2); 4e6 f64",
    ),
    Kernel(
        "sigmoid",
        sigmoid,
        sigmoid_jax,
        lambda s: (_vector(2_000_000, 23, s),),
        "1 / (1 + np.exp(-x)); 2e6 f64",
    ),
    Kernel(
        "leaky_relu",
        leaky_relu,
        leaky_relu_jax,
        lambda s: (_vector(4_000_000, 24, s),),
        "np.where(x > 0, x, 0.01 * x); 4e6 f64",
    ),
)

# Arguments that fix shapes (sizes, slice widths): static for jax.jit.
STATIC_ARGNUMS: dict[str, tuple[int, ...]] = {"moving_average": (1,)}


def kernel(name: str) -> Kernel:
    for k in KERNELS:
        if k.name == name:
            return k
    raise KeyError(f"no vectorized kernel named {name!r}")


def jax_functions() -> dict[str, Callable[..., Any]]:
    """``jax.jit`` of every kernel's twin, 64-bit types enabled; ImportError without JAX."""
    global jnp
    from . import _jax

    jax, jnp, _ = _jax.load()
    return {k.name: jax.jit(k.twin, static_argnums=STATIC_ARGNUMS.get(k.name, ())) for k in KERNELS}
