"""Fused elementwise kernels of the CPU backend compute NumPy's values, bit for bit where
NumPy's loop is exact: ``np.clip`` (NaNs and signed zeros included) and powers."""

from __future__ import annotations

import numpy as np
import pytest

import nbgraph as ng

SPECIAL = [np.nan, -np.inf, np.inf, -0.0, 0.0, -1.0, 1.0, 0.5, -2.5, 3.0]


def same_bits(eager: np.ndarray, graph: np.ndarray) -> None:
    """Equal dtypes, shapes and bit patterns (NaN payloads aside, signs of zeros kept)."""
    assert (eager.dtype, eager.shape) == (graph.dtype, graph.shape)
    nan = np.isnan(eager)
    assert np.array_equal(nan, np.isnan(graph))
    assert np.array_equal(eager[~nan], graph[~nan])
    assert np.array_equal(np.signbit(eager[~nan]), np.signbit(graph[~nan]))


def source_of(g) -> str:
    entry = next(iter(g._cache.values()))
    return entry.run.__self__.source


def clip_scaled(x, lo, hi):
    return np.clip(2.0 * x, lo, hi)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_clip_of_special_values_is_numpys_to_the_bit(dtype):
    x = np.array(SPECIAL, dtype)
    g = ng.function(clip_scaled)
    for lo in SPECIAL:
        for hi in SPECIAL:
            same_bits(clip_scaled(x, lo, hi), g(x, lo, hi))
    assert "np.clip" not in source_of(g)  # fused into the kernel


def test_clip_with_array_bounds_and_integer_operands():
    """NumPy's loop for array bounds orders its comparisons differently (signed zeros)."""
    rng = np.random.default_rng(3)
    values = np.array(SPECIAL)
    x = rng.choice(values, (30, 8))
    lo = rng.choice(values, 8)
    hi = rng.choice(values, (30, 1))
    g = ng.function(clip_scaled)
    same_bits(clip_scaled(x, lo, hi), g(x, lo, hi))
    ints = rng.integers(-5, 5, (30, 8))
    same_bits(clip_scaled(ints, -2.5, 3.0), g(ints, -2.5, 3.0))
    narrow = x.astype(np.float32)
    same_bits(clip_scaled(narrow, lo.astype(np.float32), np.float32(1.0)),
              g(narrow, lo.astype(np.float32), np.float32(1.0)))


def cubes(x):
    return x ** 3 + 0.5 * x ** 2, (x - 1.0) ** 0.5


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-15), (np.float32, 1e-6)])
def test_small_powers_within_numpys_accuracy(dtype, rtol):
    x = np.random.default_rng(5).uniform(0.5, 40.0, 10_000).astype(dtype)
    eager, graph = cubes(x), ng.function(cubes)(x)
    for e, g in zip(eager, graph):
        assert e.dtype == g.dtype
        np.testing.assert_allclose(g, e, rtol=rtol)


def gelu_cubes(x):
    """A transcendental group (NumPy evaluates it by blocks) with a cube inside."""
    return np.tanh(0.79 * (x + 0.044715 * x ** 3)), np.exp(x ** 2 * -0.5) + x ** 0.5


@pytest.mark.parametrize("dtype, rtol", [(np.float64, 1e-15), (np.float32, 1e-6)])
def test_small_powers_in_numpy_evaluated_groups(dtype, rtol):
    x = np.random.default_rng(6).uniform(0.0, 3.0, (200, 300)).astype(dtype)
    g = ng.function(gelu_cubes)
    for e, r in zip(gelu_cubes(x), g(x)):
        assert e.dtype == r.dtype
        np.testing.assert_allclose(r, e, rtol=rtol)


def selections(c, x, y):
    return (np.where(c, x, y), np.where(x > 0.5, x, 0.01 * x), np.where(c, 1, x),
            np.where(x != x, -0.0, y), np.where(c, 2**40, 3), np.where(x > 0, True, c))


def test_where_is_fused_with_numpys_dtypes_and_values():
    rng = np.random.default_rng(7)
    values = np.array(SPECIAL)
    x = rng.choice(values, (30, 8))
    y = rng.choice(values, 8).astype(np.float32)
    c = rng.random((30, 1)) < 0.5
    g = ng.function(selections)
    for e, r in zip(selections(c, x, y), g(c, x, y)):
        e, r = np.asarray(e), np.asarray(r)
        if e.dtype.kind == "f":
            same_bits(e, r)
        else:
            assert e.dtype == r.dtype and np.array_equal(e, r)
    assert "np.where" not in source_of(g)  # each one a loop of the kernels
