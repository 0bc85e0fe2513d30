"""The contract of ``nbgraph.grad`` and ``nbgraph.value_and_grad`` beyond the values:
the structure, shapes and dtypes of gradients, errors for what has no gradient, and a
training step that compiles to one graph."""

from __future__ import annotations

import inspect
import re
import traceback

import numpy as np
import pytest
from gradcheck import (
    BACKENDS,
    assert_grads_close,
    assert_same_structure,
    finite_difference_grad,
)

import nbgraph as ng


def structured(params, scale):
    w = params["w"]
    bias, shift = params["pair"]
    first, second = params["layers"]
    out = np.sum(w * 2.0) + np.sum(np.tanh(bias) * shift) * scale  # float32, then float64
    return out + np.sum(first @ second) * shift + scale**2


def structured_inputs():
    rng = np.random.default_rng(0)
    params = {
        "w": rng.uniform(-1, 1, (3, 2)).astype(np.float32),
        "pair": (rng.uniform(-1, 1, 2), 0.7),
        "layers": [rng.uniform(-1, 1, (2, 3)), rng.uniform(-1, 1, 3)],
    }
    return params, 0.5


@pytest.mark.parametrize("backend", BACKENDS)
def test_gradient_has_the_arguments_structure_shapes_and_dtypes(backend):
    params, scale = structured_inputs()
    g_params, g_scale = ng.grad(structured, argnums=(0, 1), backend=backend)(params, scale)
    assert isinstance(g_params, dict) and list(g_params) == ["w", "pair", "layers"]
    assert g_params["w"].dtype == np.float32 and g_params["w"].shape == (3, 2)
    assert isinstance(g_params["pair"], tuple) and isinstance(g_params["layers"], list)
    assert isinstance(g_params["pair"][1], float) and isinstance(g_scale, float)
    assert not isinstance(g_scale, np.ndarray)
    # The float32 leaf enters only through a term of its own: its finite differences are
    # taken in float64 (a float32 step of 1e-6 is too coarse), the others' as it is.
    params64 = {**params, "w": params["w"].astype(np.float64)}
    np.testing.assert_allclose(
        g_params["w"], finite_difference_grad(structured, (params64, scale))["w"], rtol=1e-6
    )
    expected = finite_difference_grad(structured, (params, scale), (0, 1))
    expected[0]["w"] = g_params["w"]
    assert_same_structure((g_params, g_scale), expected)
    assert_grads_close((g_params, g_scale), expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_single_argnum_gives_one_gradient_and_a_tuple_gives_a_tuple(backend):
    params, scale = structured_inputs()
    g = ng.grad(structured, argnums=1, backend=backend)(params, scale)
    assert isinstance(g, float)
    (g_tuple,) = ng.grad(structured, argnums=(1,), backend=backend)(params, scale)
    assert g_tuple == pytest.approx(g, rel=1e-12)
    value, g_default = ng.value_and_grad(structured, backend=backend)(params, scale)
    assert value == pytest.approx(structured(params, scale), rel=1e-12)
    assert isinstance(g_default, dict)


def sum_of_squares(x):
    return np.sum(x * x)


def square(x):
    return x * x


def scaled_sum(x, k):
    return np.sum(x) * k


@pytest.mark.parametrize("backend", BACKENDS)
def test_integer_argument_is_a_clear_error(backend):
    with pytest.raises((TypeError, ValueError), match=r"(?i)int"):
        ng.grad(sum_of_squares, backend=backend)(np.arange(3))
    with pytest.raises((TypeError, ValueError), match=r"(?i)int"):
        ng.grad(square, backend=backend)(3)
    # An integer argument that is not differentiated is fine.
    assert_grads_close(ng.grad(scaled_sum, backend=backend)(np.ones(3), 4), np.full(3, 4.0))


@pytest.mark.parametrize("backend", BACKENDS)
def test_non_scalar_result_is_an_error(backend):
    with pytest.raises((TypeError, ValueError)):
        ng.grad(square, backend=backend)(np.ones(3))


def maximum_sum(a, b):
    return np.sum(np.maximum(a, b))


def abs_sum(x):
    return np.sum(np.abs(x))


def clip_sum(x):
    return np.sum(np.clip(x, -1.0, 1.0))


def max_of_rows_and_min(x):
    return np.sum(np.max(x, axis=1)) + np.min(x)


@pytest.mark.parametrize("backend", BACKENDS)
def test_subgradient_conventions_at_kinks(backend):
    """Where finite differences cannot decide: maximum sends the gradient to its first
    argument on ties, abs'(0) = 0, clip passes it at the bounds, and max/min split it
    equally between tied extremes."""
    tie = np.array([1.0, 2.0, -0.5])
    ga, gb = ng.grad(maximum_sum, argnums=(0, 1), backend=backend)(tie, tie.copy())
    np.testing.assert_array_equal(ga, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(gb, [0.0, 0.0, 0.0])
    np.testing.assert_array_equal(
        ng.grad(abs_sum, backend=backend)(np.array([0.0, -2.0, 3.0])), [0.0, -1.0, 1.0]
    )
    np.testing.assert_array_equal(
        ng.grad(clip_sum, backend=backend)(np.array([-1.0, 1.0, 1.5, 0.0, -3.0])),
        [1.0, 1.0, 0.0, 1.0, 0.0],
    )
    x = np.array([[3.0, 1.0, 3.0, 2.0], [0.0, 5.0, -1.0, -1.0]])
    np.testing.assert_allclose(
        ng.grad(max_of_rows_and_min, backend=backend)(x),
        [[0.5, 0.0, 0.5, 0.0], [0.0, 1.0, 0.5, 0.5]],
        rtol=1e-15,
    )


def sorted_weights(x):
    w = np.arange(1.0, x.shape[0] + 1.0)
    y = np.sort(x)
    return np.sum(y * w)


def _line_of(fn, text: str) -> int:
    lines, start = inspect.getsourcelines(fn)
    return start + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("wrap", [False, True], ids=["plain", "graph_function"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_not_differentiable_error_names_the_op_and_line(backend, wrap):
    fn = ng.function(sorted_weights, backend=backend) if wrap else sorted_weights
    gradient = ng.grad(fn) if wrap else ng.grad(fn, backend=backend)
    with pytest.raises(ng.NotDifferentiableError) as info:
        gradient(np.array([0.3, -0.2, 0.9]))
    message = str(info.value)
    line = _line_of(sorted_weights, "np.sort(x)")
    assert "sort" in message
    assert re.search(rf"\b{line}\b", message), message
    frames = traceback.extract_tb(info.tb)
    assert any(f.filename == __file__ and f.lineno == line for f in frames), frames


# ------------------------------------------------------------------ gradients in graphs


def mse_loss(w, x, y):
    r = x @ w - y
    return np.mean(r * r)


def train_step(w, x, y):
    loss, g = ng.value_and_grad(mse_loss)(w, x, y)
    return w - 0.1 * g, loss


def fit(w, x, y, steps):
    for _ in range(steps):
        w = w - 0.1 * ng.grad(mse_loss)(w, x, y)
    return w


def fit_compiled_loss(w, x, y, steps):
    loss_grad = ng.grad(COMPILED_LOSS)
    for _ in range(steps):
        w = w - 0.1 * loss_grad(w, x, y)
    return w


COMPILED_LOSS = ng.function(mse_loss, backend="cpu")


def regression_data(seed: int, n: int):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3))
    return rng.normal(size=3), x, x @ np.array([0.5, -1.0, 2.0])


def reference_step(w, x, y):
    r = x @ w - y
    return w - 0.1 * (2.0 / x.shape[0]) * (x.T @ r), np.mean(r * r)


@pytest.mark.parametrize("backend", BACKENDS)
def test_training_step_compiles_to_one_graph(backend):
    step = ng.function(train_step, backend=backend)
    for seed, n in ((0, 8), (1, 8), (2, 13)):  # a new batch length does not retrace
        w, x, y = regression_data(seed, n)
        new_w, loss = step(w, x, y)
        ref_w, ref_loss = reference_step(w, x, y)
        np.testing.assert_allclose(new_w, ref_w, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(loss, ref_loss, rtol=1e-12)
        eager_w, eager_loss = step.eager(w, x, y)
        np.testing.assert_allclose(eager_w, ref_w, rtol=1e-12, atol=1e-14)
        np.testing.assert_allclose(eager_loss, ref_loss, rtol=1e-12)
    assert step.trace_count == 1
    graph = step.graph(w, x, y)
    assert step.trace_count == 1
    assert not graph.python_nodes, graph.python_nodes


@pytest.mark.parametrize("loop", [fit, fit_compiled_loss], ids=["plain_loss", "graph_loss"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_gradient_inside_a_graph_loop(backend, loop):
    w, x, y = regression_data(3, 10)
    expected = w
    for _ in range(5):
        expected = reference_step(expected, x, y)[0]
    fitted = ng.function(loop, backend=backend)
    np.testing.assert_allclose(fitted(w, x, y, 5), expected, rtol=1e-10)
    np.testing.assert_allclose(fitted(w, x, y, 0), w, rtol=0)
    np.testing.assert_allclose(loop(w, x, y, 5), expected, rtol=1e-10)
    assert fitted.trace_count == 1
    assert not fitted.graph(w, x, y, 5).python_nodes
