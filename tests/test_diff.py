"""``nbgraph.diff``: the first line and loop iteration where graph mode and eager code
part, found in functions with planted divergences (documented limitations of graph
mode: an empty list's dtype, 64-bit Python ints, a Python float entering a float32
loop variable, complex products fused on the CPU), and agreement reported otherwise."""

from __future__ import annotations

import numpy as np
import pytest

import nbgraph as ng


def python_zero_per_iteration(x, n):
    total = 0
    for i in range(n):
        t = 0
        for j in range(abs(i - 2)):
            t = x[j]
        part = np.array([t])
        total = total + part.sum()
    return total


def empty_list_per_iteration(x, n):
    total = 0.0
    for i in range(n):
        items = []
        for j in range(abs(i - 2)):
            items.append(x[j])
        part = np.array(items)
        total = total + part.sum()
    return total


def float32_accumulator(x, n):
    acc = 0.1
    for i in range(n):
        acc = acc + x[i]
    return acc


def grows(n):
    s = 1
    for _ in range(n):
        s = s * 3
    return s


def smooth(x):
    y = np.sin(x) * 2.0
    total = 0.0
    for v in y:
        total = total + v * v
    return total


@pytest.mark.parametrize("backend", ["interpret", "cpu"])
def test_dtype_divergence_at_its_line_and_iteration(backend):
    """A Python 0 left by an inner loop that never runs is eagerly an int64 array's
    item; the graph computes in the int32 the loop assigns (a documented limitation)."""
    x = np.arange(4, dtype=np.int32)
    report = ng.diff(ng.function(python_zero_per_iteration, backend=backend), x, 4)
    assert not report.agree
    first = report.first
    assert first.line == python_zero_per_iteration.__code__.co_firstlineno + 6
    assert first.run == 3  # the third iteration: the first whose inner loop never runs
    assert first.variable == "part" and first.reason == "dtypes"
    assert first.eager.dtype == np.int64 and first.graph.dtype == np.int32
    assert "part = np.array([t])" in repr(report)


def test_graph_error_where_eager_returns_is_a_difference():
    """np.array of a list left empty is refused where the graph goes on with it: the
    report says the graph raised, not that the runs agree."""
    x = np.arange(4, dtype=np.int32)
    report = ng.diff(ng.function(empty_list_per_iteration, backend="interpret"), x, 4)
    assert not report.agree
    assert report.first.reason == "error"
    assert isinstance(report.first.graph, ng.errors.LoopTypeError)
    assert "graph mode (interpret) raised LoopTypeError where eager code" in repr(report)


def test_float32_accumulator_that_never_ran_differs_at_the_results():
    x = np.ones(3, np.float32)
    report = ng.diff(float32_accumulator, x, 0)
    assert report.first is not None and report.first.line == 0
    assert report.first.eager == 0.1 and report.first.graph == np.float32(0.1)
    assert "the graph differs in a value no compared line assigns" in repr(report)
    assert ng.diff(float32_accumulator, x, 3).agree


def test_backend_difference_is_told_apart_from_the_graphs():
    report = ng.diff(grows, 50)  # 3**50 wraps in the compiled code's 64 bits
    assert report.first.reason == "values" and report.first.backend == "cpu"
    assert report.compared == 50  # every iteration's `s = s * 3` agreed on interpret
    assert "the interpret backend agrees" in repr(report)
    assert ng.diff(ng.function(grows, backend="interpret"), 50).agree


def test_agreement_reports_the_largest_difference():
    report = ng.diff(smooth, np.linspace(0.0, 3.0, 50))
    assert report.agree and report.compared == 1 + 50
    assert "agrees with eager code: 51 line runs compared" in repr(report)
    assert report.largest_ulps <= 4


def test_tolerance_in_ulps():
    """A last-bit difference (complex products, fused on the CPU where NumPy rounds the
    parts) is reported with ulps=0 and accepted with the default tolerance."""

    def product(x, y):
        z = x * y
        return z

    rng = np.random.default_rng(0)
    x, y = (rng.standard_normal(1000) + 1j * rng.standard_normal(1000) for _ in range(2))
    eager = x * y
    if np.array_equal(ng.function(product)(x, y), eager):
        pytest.skip("this processor's complex products agree bit for bit")
    exact = ng.diff(product, x, y, ulps=0)
    assert exact.first is not None and exact.first.line == 0
    assert "most at index" in repr(exact)
    assert ng.diff(product, x, y).agree
