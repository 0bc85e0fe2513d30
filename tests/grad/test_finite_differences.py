"""Gradients against central finite differences, on the interpret, CPU and CUDA backends.

Every case is a plain NumPy function defined here (graph mode converts its source) with
float64 inputs chosen away from kinks and branch thresholds, so that finite differences
are accurate to far below the tolerances.  Each case runs on each backend in one of the
ways a user can ask for a gradient: ``grad`` or ``value_and_grad``, of the plain function
with ``backend=`` or of an ``nbgraph.function`` of it.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from gradcheck import BACKENDS, assert_grads_close, finite_difference_grad

import nbgraph as ng

# ------------------------------------------------------------------ elementwise, scalar


def polynomial(x):
    return x**3 - 2.0 * x * x + 3.0 / x - x**-2


def scalar_pair(x, y):
    return np.sin(x) * y + x / y - np.exp(x * y) + np.tanh(y) ** 2


def unary_chain(x):
    return np.sum(np.exp(x) * np.sin(x) + np.cos(x) / (1.0 + x * x) - -x)


def logarithms(x):
    return np.sum(np.log(x) * np.log1p(x) + np.expm1(0.5 * x))


def hyperbolic(x):
    return np.sum(np.tanh(x) + np.sinh(x) * np.cosh(x) + np.arctan(3.0 * x))


def roots_and_squares(x):
    return np.sum(np.sqrt(x) + np.square(x) * 0.5 + np.reciprocal(x))


def absolute(x):
    return np.sum(np.abs(x) * -x + abs(x - 0.05))


def powers(x, y):
    return np.sum(np.power(x, y) + x**2.5 + 2.0**y)


def maximum_minimum(x, y):
    return np.sum(np.maximum(x, y) * 2.0 + np.minimum(x, y) ** 2 + np.maximum(x, 0.0))


def where_select(x):
    return np.sum(np.where(x > 0.0, x**2, np.sin(x)))


def clipped(x):
    return np.sum(np.clip(x, -1.0, 1.0) ** 3 + x)


def division(x, y):
    return np.sum(x / y - y / (x + 3.0))


def scalar_times_array(a, x):
    return np.sum(a * x**2 + np.exp(-a) * x)


def broadcasting(x, b):
    return np.sum(np.tanh(x + b) * b) + np.sum(x * b[0])


def integer_values(x):
    count = np.sum(x > 0.0)  # an integer: carries no gradient
    k = x.shape[0]
    return count * np.sum(x**2) + k * np.sum(x)


# ------------------------------------------------------------------ reductions


def sum_over_axis(x):
    s = np.sum(x**2, axis=0)
    return np.sum(np.sin(s))


def mean_keepdims(x):
    centred = x - np.mean(x, axis=1, keepdims=True)
    return np.sum(centred**2 * np.arange(1.0, 5.0))


def max_min_reductions(x):
    return np.sum(np.max(x, axis=1) ** 2) + np.min(x) * 3.0 + np.max(x)


def min_keepdims(x):
    return np.sum(x / np.min(x, axis=0, keepdims=True))


def std_var(x):
    return np.std(x) + np.sum(np.var(x, axis=0)) * 2.0


def reduction_methods(x):
    return x.sum() * x.mean() + x.max(axis=0).sum() - x.min(axis=1).mean()


# ------------------------------------------------------------------ linear algebra


def matrix_product(a, b):
    return np.sum(np.tanh(a @ b))


def matrix_vector(w, x):
    return np.sum((w @ x) ** 2) + np.dot(x, x)


def dot_and_matmul(a, b):
    return np.sum(np.dot(a, b) ** 2) + np.sum(np.matmul(b, a) * a)


# ------------------------------------------------------------------ indexing


def slices_1d(x):
    return np.sum(x[1:-1] * x[:-2]) + x[0] * x[-1] + np.sum(x[::2] ** 3)


def slices_2d(x):
    return np.sum(x[1:, :2] ** 2) + np.sum(x[0]) * x[2, 3] + np.sum(np.sin(x[:, 1]))


def repeated_fancy_index(x):
    idx = np.array([0, 2, 2, 4, 0, 0])
    return np.sum(x[idx] ** 2) + np.sum(x[idx] * np.arange(6.0))


def index_argument(x, idx):
    return np.sum(np.sin(x[idx]) * x[idx])


def setitem_on_copy(x):
    y = x.copy()
    y[1] = x[0] * 3.0
    y[2:4] = np.sin(x[2:4])
    return np.sum(y**2)


def setitem_on_zeros(x):
    out = np.zeros(x.shape[0])
    out[0] = x[1] ** 2
    out[1:] = x[:-1] * 2.0
    return np.sum(out * x)


# ------------------------------------------------------------------ shapes


def reshape_transpose(x):
    y = x.reshape(3, 4).T
    return np.sum(np.sin(y) * np.arange(12.0).reshape(4, 3))


def transpose_product(x):
    return np.sum(np.transpose(x) @ x) + np.sum(x.T[0] ** 2)


def concatenate_stack(a, b):
    c = np.concatenate([a, b * 2.0])
    s = np.stack([a, b])
    return np.sum(c**2) + np.sum(s[0] * s[1]) + np.sum(np.stack([a, b], axis=1)[:, 0] ** 3)


def concatenate_axis1(x):
    y = np.concatenate([x, np.tanh(x)], axis=1)
    return np.sum(y @ np.arange(6.0))


# ------------------------------------------------------------------ control flow


def branch(x):
    if np.sum(x) > 0.0:
        return np.sum(x**2)
    return np.sum(np.sin(x))


def nested_branches(x, t):
    if x[0] > t:
        if x[1] > t:
            y = x * x
        else:
            y = np.exp(x)
    elif x[1] > t:
        y = np.sin(x) * t
    else:
        y = x * t * t
    return np.sum(y)


def while_halving(x):
    while np.sum(x * x) > 1.0:
        x = x * 0.5
    return np.sum(x**3)


def while_scalar(a):
    x = a
    n = 0
    while x < 10.0:
        x = x * 1.5 + 0.1
        n += 1
    return x * n


def for_range(x, n):
    for i in range(n):
        x = np.tanh(x) * 1.1 + 0.1 * i
    return np.sum(x)


def for_with_break(x):
    acc = 0.0
    for i in range(10):
        acc = acc + np.sum(x * x) * (i + 1)
        if acc > 5.0:
            break
    return acc


def while_with_break(x):
    y = x
    i = 0
    while i < 100:
        y = y * 1.5 + 0.2 * np.sin(y)
        if np.max(y) > 20.0:
            break
        i += 1
    return np.sum(y)


def recurrent(xs, w):
    h = np.zeros(3)
    for t in range(xs.shape[0]):
        h = np.tanh(w @ h + xs[t])
    return np.sum(h**2)


def loop_carried_scalar_and_array(x, n):
    total = 0.0
    y = x
    i = 0
    while i < n:
        y = np.sin(y) + y * 0.5
        total = total + np.sum(y) * i
        i += 1
    return total


def loop_setitem(x):
    out = np.zeros(x.shape[0])
    for i in range(x.shape[0]):
        out[i] = x[i] * (i + 1) ** 2
    return np.sum(out**2)


def zeros_like_buffer(x):
    out = np.zeros_like(x)  # depends on x's shape only: no gradient flows through it
    out[1:] = x[:-1] * x[1:]
    return np.sum(out * x)


def conditional_expression(x, s):
    y = x * 2.0 if s > 0.0 else x * s
    return np.sum(y**2) * s


# ------------------------------------------------------------------ own functions, arguments


def dense(x, w):
    return np.tanh(x @ w)


def nested_dense(x, w):
    return np.sum(dense(dense(x, w), w.T))


def three_arguments(a, b, c):
    return np.sum(a * b) + np.sum(np.exp(c) * a) + np.sum(b**2)


def tuple_params(params, x):
    w, b = params
    return np.sum(np.tanh(x @ w + b))


def dict_params(params, x):
    return np.sum((x @ params["w"] + params["b"]) ** 2)


def list_params(params, x):
    y = x
    for w in params:  # a Python list: unrolled while tracing
        y = np.tanh(y @ w)
    return np.sum(y)


def mlp_cross_entropy(params, x, labels):
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    logits = h @ w2 + b2
    m = np.max(logits, axis=1, keepdims=True)
    lse = m + np.log(np.sum(np.exp(logits - m), axis=1, keepdims=True))
    return np.mean(np.sum(labels * (lse - logits), axis=1))


def mlp_squared_error(params, x, y):
    w1, b1, w2, b2 = params
    h = np.tanh(x @ w1 + b1)
    out = h @ w2 + b2
    return np.mean((out - y) ** 2)


# ------------------------------------------------------------------ the cases


def uniform(seed: int, shape: tuple[int, ...], lo: float = -1.0, hi: float = 1.0):
    return np.random.default_rng(seed).uniform(lo, hi, shape)


def away_from(values: np.ndarray, points: tuple[float, ...], gap: float = 0.05):
    """``values`` with every entry within ``gap`` of a point moved ``gap`` away from it."""
    out = values.copy()
    for p in points:
        near = np.abs(out - p) < gap
        out[near] = p + np.where(out[near] >= p, gap, -gap)
    return out


def mlp_inputs(seed: int, classes: int = 3):
    rng = np.random.default_rng(seed)
    params = (
        rng.normal(0, 0.5, (4, 5)),
        rng.normal(0, 0.1, 5),
        rng.normal(0, 0.5, (5, classes)),
        rng.normal(0, 0.1, classes),
    )
    x = rng.normal(size=(6, 4))
    labels = np.eye(classes)[rng.integers(0, classes, 6)]
    return params, x, labels


@dataclass(frozen=True)
class Case:
    fn: Callable
    inputs: tuple[tuple[Any, ...], ...]  # argument tuples, all traced with one signature
    argnums: int | tuple[int, ...] = 0

    @property
    def name(self) -> str:
        return self.fn.__name__


CASES: list[Case] = [
    Case(polynomial, ((1.3,), (-0.7,))),
    Case(scalar_pair, ((0.4, 1.7),), argnums=(0, 1)),
    Case(unary_chain, ((uniform(1, (5,)),),)),
    Case(logarithms, ((uniform(2, (4,), 0.2, 2.0),),)),
    Case(hyperbolic, ((uniform(3, (2, 3)),),)),
    Case(roots_and_squares, ((uniform(4, (5,), 0.3, 3.0),),)),
    Case(absolute, ((away_from(uniform(5, (6,)), (0.0, 0.05)),),)),
    Case(powers, ((uniform(6, (4,), 0.5, 2.0), uniform(7, (4,), -1.5, 1.5)),), argnums=(0, 1)),
    Case(
        maximum_minimum,
        ((np.array([0.3, -0.8, 1.2, -0.1, 0.6]), np.array([0.5, -1.1, 0.2, 0.4, -0.3])),),
        argnums=(0, 1),
    ),
    Case(where_select, ((away_from(uniform(8, (6,)), (0.0,)),),)),
    Case(clipped, ((np.array([-1.7, -0.6, 0.2, 0.9, 1.4, -0.95]),),)),
    Case(division, ((uniform(9, (4,)), uniform(10, (4,), 0.5, 2.0)),), argnums=(0, 1)),
    Case(scalar_times_array, ((0.7, uniform(11, (5,))),), argnums=(0, 1)),
    Case(broadcasting, ((uniform(12, (3, 4)), uniform(13, (4,))),), argnums=(0, 1)),
    Case(integer_values, ((away_from(uniform(14, (5,)), (0.0,)),),)),
    Case(sum_over_axis, ((uniform(15, (3, 4)),),)),
    Case(mean_keepdims, ((uniform(16, (3, 4)),),)),
    Case(max_min_reductions, ((uniform(17, (4, 5)),),)),
    Case(min_keepdims, ((uniform(18, (3, 4), 0.5, 2.0),),)),
    Case(std_var, ((uniform(19, (4, 3)),),)),
    Case(reduction_methods, ((uniform(20, (3, 4)),),)),
    Case(matrix_product, ((uniform(21, (3, 4)), uniform(22, (4, 2))),), argnums=(0, 1)),
    Case(matrix_vector, ((uniform(23, (3, 4)), uniform(24, (4,))),), argnums=(0, 1)),
    Case(dot_and_matmul, ((uniform(25, (3, 3)), uniform(26, (3, 3))),), argnums=(0, 1)),
    Case(slices_1d, ((uniform(27, (7,)),),)),
    Case(slices_2d, ((uniform(28, (4, 5)),),)),
    Case(repeated_fancy_index, ((uniform(29, (5,)),),)),
    Case(index_argument, ((uniform(30, (5,)), np.array([4, 1, 1, 3, 1])),)),
    Case(setitem_on_copy, ((uniform(31, (5,)),),)),
    Case(setitem_on_zeros, ((uniform(32, (5,)),),)),
    Case(reshape_transpose, ((uniform(33, (12,)),),)),
    Case(transpose_product, ((uniform(34, (4, 3)),),)),
    Case(concatenate_stack, ((uniform(35, (3,)), uniform(36, (3,))),), argnums=(0, 1)),
    Case(concatenate_axis1, ((uniform(37, (2, 3)),),)),
    Case(branch, ((np.array([0.5, 0.3, -0.2]),), (np.array([-0.5, 0.3, -0.2]),))),
    Case(
        nested_branches,
        (
            (np.array([0.8, 0.9, 0.1]), 0.5),
            (np.array([0.8, 0.2, 0.1]), 0.5),
            (np.array([0.2, 0.9, 0.1]), 0.5),
            (np.array([0.2, 0.3, 0.1]), 0.5),
        ),
        argnums=(0, 1),
    ),
    Case(while_halving, ((np.array([1.5, -2.0, 0.7]),), (np.array([0.3, 0.2, -0.1]),))),
    Case(while_scalar, ((0.9,), (7.3,))),
    Case(for_range, ((uniform(38, (4,)), 5), (uniform(39, (4,)), 0))),
    Case(for_with_break, ((np.array([0.6, -0.3]),), (np.array([0.1, 0.05]),))),
    Case(while_with_break, ((np.array([0.5, 0.9, -0.4]),),)),
    Case(recurrent, ((uniform(40, (5, 3)), uniform(41, (3, 3))),), argnums=(0, 1)),
    Case(loop_carried_scalar_and_array, ((uniform(42, (3,)), 4),)),
    Case(loop_setitem, ((uniform(43, (4,)),),)),
    Case(zeros_like_buffer, ((uniform(64, (4,)),),)),
    Case(
        conditional_expression,
        ((uniform(44, (3,)), 0.8), (uniform(45, (3,)), -0.6)),
        argnums=(0, 1),
    ),
    Case(nested_dense, ((uniform(46, (2, 3)), uniform(47, (3, 3))),), argnums=(0, 1)),
    Case(
        three_arguments,
        ((uniform(48, (3,)), uniform(49, (3,)), uniform(50, (3,))),),
        argnums=(0, 2),
    ),
    Case(tuple_params, (((uniform(51, (3, 2)), uniform(52, (2,))), uniform(53, (4, 3))),)),
    Case(dict_params, (({"w": uniform(54, (3, 2)), "b": uniform(55, (2,))}, uniform(56, (4, 3))),)),
    Case(
        list_params,
        (([uniform(57, (3, 3)), uniform(58, (3, 2))], uniform(59, (2, 3))),),
        argnums=(0, 1),
    ),
    Case(mlp_cross_entropy, (mlp_inputs(60),), argnums=(0, 1)),
    Case(mlp_squared_error, ((mlp_inputs(61)[0], uniform(62, (6, 4)), uniform(63, (6, 3))),)),
]


@functools.cache
def differentiated(case_index: int, backend: str) -> Callable:
    """``grad`` or ``value_and_grad`` of a case on ``backend``: cases alternate between the
    two, and between an ``nbgraph.function`` and a plain function with ``backend=``
    (left out for "interpret", the default).  Kept, so that the tests below reuse what
    the first one compiled."""
    case = CASES[case_index]
    transform = ng.value_and_grad if case_index % 2 else ng.grad
    if (case_index // 2) % 2 == 0:
        return transform(ng.function(case.fn, backend=backend), argnums=case.argnums)
    if backend == "interpret":
        return transform(case.fn, argnums=case.argnums)
    return transform(case.fn, argnums=case.argnums, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_gradient_matches_finite_differences(case, backend):
    index = CASES.index(case)
    gradient = differentiated(index, backend)
    for args in case.inputs:
        expected = finite_difference_grad(case.fn, args, case.argnums)
        call = copy.deepcopy(args)
        out = gradient(*call)
        if index % 2:  # value_and_grad
            value, grads = out
            assert np.ndim(value) == 0
            np.testing.assert_allclose(value, case.fn(*args), rtol=1e-12, atol=1e-14)
        else:
            grads = out
        assert_grads_close(grads, expected)
        for before, after in zip(args, call):  # the arguments are left as they were
            np.testing.assert_equal(after, before)


@pytest.mark.skipif("cpu" not in BACKENDS, reason="the CPU backend is not tested")
@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cpu_gradient_runs_compiled(case):
    """The CPU backend compiles the whole backward pass: no node that computes a gradient
    runs in Python (the forward pass may hold operations Numba cannot compile, such as
    the builtin ``abs`` of an array, which run in Python as in any graph)."""
    gradient = differentiated(CASES.index(case), "cpu")
    args = case.inputs[0]
    gradient(*copy.deepcopy(args))
    python_nodes = {
        node: why
        for node, why in gradient.graph(*args).python_nodes.items()
        if node.loc is None or getattr(node.loc, "gradient", True)
    }
    assert not python_nodes, "\n".join(f"{node}: {why}" for node, why in python_nodes.items())


def test_enough_cases():
    assert len(CASES) >= 45
    assert len({c.name for c in CASES}) == len(CASES)
