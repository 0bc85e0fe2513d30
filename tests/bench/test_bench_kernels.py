"""The benchmark's vectorized kernels compute the same thing in every variant it times,
and its result check catches what it must (so a wrong variant is never timed)."""

from __future__ import annotations

import sys
from pathlib import Path

import numba
import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

from measure import mismatch
from workloads import fixed_point, kmeans, vectorized

import nbgraph as ng

SCALE = 0.02  # a few hundred elements per kernel
KERNELS = [pytest.param(k, id=k.name) for k in vectorized.KERNELS]


def test_there_are_at_least_fifteen_kernels():
    assert len({k.name for k in vectorized.KERNELS}) >= 15


@pytest.mark.parametrize("k", KERNELS)
def test_graph_mode_agrees_with_eager(k):
    args = k.make_inputs(SCALE)
    expected = k.eager(*args)
    assert mismatch(expected, ng.function(k.eager)(*args)) is None


@pytest.mark.parametrize("k", KERNELS)
def test_njit_of_the_same_source_agrees_where_it_compiles(k):
    args = k.make_inputs(SCALE)
    try:
        got = numba.njit(k.eager)(*args)
    except numba.core.errors.TypingError:
        pytest.skip("Numba does not compile this source (the benchmark reports n/a)")
    assert mismatch(k.eager(*args), got) is None


@pytest.mark.parametrize("k", KERNELS)
def test_jax_twin_agrees(k):
    pytest.importorskip("jax")
    functions = vectorized.jax_functions()
    args = k.make_inputs(SCALE)
    assert mismatch(k.eager(*args), functions[k.name](*args)) is None


# The convergence loops of the first-call table, on small inputs: every variant runs
# the same iterations to the same values.
LOOPS = [
    pytest.param(kmeans, {"points": 2000}, id="kmeans"),
    pytest.param(fixed_point, {"size": 3000}, id="fixed_point"),
]


@pytest.mark.parametrize("module, small", LOOPS)
def test_convergence_loops_agree_in_every_variant(module, small):
    args = module.make_inputs(**small)
    expected = module.eager(*args)
    assert expected[1] > 3  # it iterates
    assert mismatch(expected, ng.function(module.eager)(*args)) is None
    assert mismatch(expected, module.njit(*args)) is None
    try:
        twin = module.make_jax()
    except ImportError:
        return
    assert mismatch(expected, twin(*args)) is None


def test_inputs_are_seeded():
    for k in vectorized.KERNELS:
        first, second = k.make_inputs(SCALE), k.make_inputs(SCALE)
        assert all(np.array_equal(a, b) for a, b in zip(first, second))


def test_mismatch_checks_dtype_shape_values_and_tuples():
    x = np.linspace(0.0, 1.0, 10)
    assert mismatch(x, x.copy()) is None
    assert mismatch(x, x * (1 + 1e-12)) is None
    assert "dtype" in mismatch(x, x.astype(np.float32))
    assert "shape" in mismatch(x, x[:5])
    assert "differ" in mismatch(x, x + 1e-3)
    assert "element 1" in mismatch((x, x), (x, x + 1.0))
    assert "tuple of 2" in mismatch((x, x), x)
    assert "differ" in mismatch(np.arange(3), np.arange(3) + 1)
    assert mismatch(np.float64(np.nan), np.float64(np.nan)) is None
    # float32 results are held to float32 accuracy, not float64's
    y = x.astype(np.float32)
    assert mismatch(y, y * np.float32(1 + 1e-6)) is None
    assert mismatch(y, y * np.float32(1 + 1e-3)) is not None
