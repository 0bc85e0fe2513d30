"""Static arguments and trace caching.

Static arguments are Python values baked into the graph at trace time (so loops over them
unroll and they may be strings); every other argument is traced, so calling again with
another value of the same kind must reuse the graph.
"""

import numpy as np
import pytest
from harness import assert_same, backend, case_id, check

import nbgraph as ng


def power_static(x, n):
    result = np.ones_like(x)
    for _ in range(n):
        result = result * x
    return result


@pytest.mark.parametrize("n", [0, 1, 4])
@pytest.mark.parametrize("x", [np.array([1.5, -2.0]), np.float64(3.0), 2], ids=case_id)
def test_static_int_unrolls_loop(x, n):
    check(power_static, x, n, static_argnames=("n",))


def static_shape(x, n):
    out = np.zeros((n, len(x)))
    for i in range(n):
        out[i] = x * i
    return out


@pytest.mark.parametrize("n", [0, 1, 3])
def test_static_int_as_shape(n):
    check(static_shape, np.array([1.0, 2.0]), n, static_argnames=("n",))


def activation(x, kind):
    if kind == "relu":
        return np.maximum(x, 0)
    elif kind == "tanh":
        return np.tanh(x)
    return x


@pytest.mark.parametrize("kind", ["relu", "tanh", "identity"])
def test_static_string(kind):
    check(activation, np.array([-1.0, 0.5, 2.0]), kind, static_argnames=("kind",))


def maybe_normalize(x, normalize, eps):
    if normalize:
        x = (x - x.mean()) / (x.std() + eps)
    return x


@pytest.mark.parametrize("normalize", [True, False])
def test_static_bool_with_traced_float(normalize):
    check(
        maybe_normalize,
        np.array([1.0, 2.0, 4.0]),
        normalize,
        1e-8,
        static_argnames=("normalize",),
    )


def window_sums(x, width):
    out = np.zeros(len(x) - width + 1)
    for i in range(len(out)):
        total = x[i]
        for k in range(1, width):
            total = total + x[i + k]
        out[i] = total
    return out


@pytest.mark.parametrize("width", [1, 2, 3])
@pytest.mark.parametrize("x", [np.arange(3.0), np.array([1.0, -1.0, 2.0, 5.0, 0.5])], ids=case_id)
def test_static_inner_loop_in_traced_loop(x, width):
    check(window_sums, x, width, static_argnames=("width",))


def test_static_argument_by_keyword():
    check(
        power_static,
        np.array([2.0, 3.0]),
        kwargs={"n": 3},
        static_argnames=("n",),
    )


# Trace counting.


def scaled_sum(x, k):
    total = 0.0 * x[0]
    for v in x:
        total = total + k * v
    return total


def graph_of(fn, **options):
    return ng.function(fn, backend=backend(), **options)


def test_dynamic_length_does_not_retrace():
    g = graph_of(scaled_sum)
    for n in [3, 1, 7, 0]:
        x = np.arange(float(n + 1))
        assert_same(scaled_sum(x, 2.0), g(x, 2.0))
    assert g.trace_count == 1


def test_python_scalar_values_do_not_retrace():
    g = graph_of(scaled_sum)
    x = np.array([1.0, 2.0])
    for k in [2.0, -1.5, 0.0]:
        assert_same(scaled_sum(x, k), g(x, k))
    assert g.trace_count == 1


def test_python_int_values_do_not_retrace():
    g = graph_of(power_static)
    x = np.array([1.5, 2.0])
    g(x, 2)
    g(x, 5)
    assert g.trace_count == 1


def test_new_dtype_retraces():
    g = graph_of(scaled_sum)
    g(np.array([1.0, 2.0]), 2.0)
    assert g.trace_count == 1
    x32 = np.array([1.0, 2.0], dtype=np.float32)
    assert_same(scaled_sum(x32, 2.0), g(x32, 2.0))
    assert g.trace_count == 2
    xi = np.array([1, 2, 3])
    assert_same(scaled_sum(xi, 2.0), g(xi, 2.0))
    assert g.trace_count == 3
    g(np.array([5.0]), 3.0)
    assert g.trace_count == 3


def test_new_python_scalar_type_retraces():
    g = graph_of(scaled_sum)
    x = np.array([1, 2, 3])
    assert_same(scaled_sum(x, 2), g(x, 2))
    assert g.trace_count == 1
    assert_same(scaled_sum(x, 2.5), g(x, 2.5))
    assert g.trace_count == 2
    g(x, 7)
    assert g.trace_count == 2


def test_new_ndim_retraces():
    g = graph_of(scaled_sum)
    g(np.array([1.0, 2.0]), 2.0)
    m = np.arange(6.0).reshape(3, 2)
    assert_same(scaled_sum(m, 2.0), g(m, 2.0))
    assert g.trace_count == 2
    g(np.arange(8.0).reshape(4, 2), 1.0)
    assert g.trace_count == 2


def test_new_static_value_retraces():
    g = graph_of(power_static, static_argnames=("n",))
    x = np.array([2.0, 3.0])
    assert_same(power_static(x, 2), g(x, 2))
    assert_same(power_static(x, 2), g(x, 2))
    assert g.trace_count == 1
    assert_same(power_static(x, 3), g(x, 3))
    assert g.trace_count == 2
    g(np.array([4.0]), 3)
    assert g.trace_count == 2


def test_graph_traces_without_running():
    g = graph_of(power_static)
    x = np.array([2.0, 3.0])
    assert g.trace_count == 0
    assert g.graph(x, 2) is not None
    assert g.trace_count == 1
    g(x, 2)
    g(np.array([1.0]), 4)
    assert g.trace_count == 1


def test_eager_is_the_original_function():
    g = graph_of(power_static)
    x = np.array([2.0, 3.0])
    assert_same(power_static(x, 3), g.eager(x, 3))
    assert g.trace_count == 0


@ng.function(backend="interpret")
def decorated_clip_count(x, limit):
    count = 0
    for v in x:
        if v > limit:
            count += 1
    return count


@pytest.mark.parametrize(
    "x", [np.array([]), np.array([5.0]), np.array([1.0, 3.0, 4.0])], ids=["empty", "one", "many"]
)
def test_decorator_form(x):
    assert_same(decorated_clip_count.eager(x, 2.0), decorated_clip_count(x, 2.0))
    assert decorated_clip_count.trace_count == 1
