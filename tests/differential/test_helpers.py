"""Differential tests for calls to helpers with control flow, nested defs and lambdas."""

import numpy as np
import pytest
from harness import case_id, check


def _soft_threshold(v, t):
    if v > t:
        return v - t
    elif v < -t:
        return v + t
    return v * 0


def shrink_all(x, t):
    out = np.zeros_like(x)
    for i in range(len(x)):
        out[i] = _soft_threshold(x[i], t)
    return out


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([0.2]), np.array([-3.0, -0.5, 0.0, 0.5, 3.0])],
    ids=["empty", "one", "many"],
)
def test_helper_with_branches_in_loop(x):
    check(shrink_all, x, 1.0)


def soft_threshold_scalar(v, t):
    return _soft_threshold(v, t) * 2


@pytest.mark.parametrize("v", [2.5, -2.5, 0.1, np.float64(4.0), np.float32(-0.5)], ids=case_id)
def test_helper_with_branches_on_scalar(v):
    check(soft_threshold_scalar, v, 1.0)


def _count_steps(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


def total_steps(a, b):
    return _count_steps(a) + _count_steps(b)


@pytest.mark.parametrize("a, b", [(1, 1), (2, 7), (27, 9), (np.int64(6), 3)], ids=case_id)
def test_helper_with_loop_called_twice(a, b):
    check(total_steps, a, b)


def make_and_apply(x, k):
    def scale(v):
        return v * k

    return scale(x) + scale(1.0)


@pytest.mark.parametrize("k", [2, 0.5])
@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), 3.0, np.arange(3)], ids=["f", "py", "i"])
def test_nested_def_closure(x, k):
    check(make_and_apply, x, k)


def apply_piecewise(x):
    def f(v):
        if v > 0:
            return v * v
        return -v

    out = np.zeros_like(x)
    for i in range(len(x)):
        out[i] = f(x[i])
    return out


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([-2.0]), np.array([3.0, -1.0, 0.0, 2.0]), np.array([1, -4])],
    ids=["empty", "one", "many", "int"],
)
def test_nested_def_with_branches(x):
    check(apply_piecewise, x)


def _apply_twice(f, x):
    return f(f(x))


def twice_lambda(x):
    return _apply_twice(lambda v: v * 2 + 1, x)


@pytest.mark.parametrize("x", [np.array([0.0, 1.5]), 2, 0.5], ids=["array", "int", "float"])
def test_lambda_passed_to_helper(x):
    check(twice_lambda, x)


def lambda_with_ternary(x):
    ops = [lambda v: v if v > 0 else v * 0, lambda v: v * v]
    out = np.zeros_like(x)
    for i in range(len(x)):
        for op in ops:
            out[i] = out[i] + op(x[i])
    return out


@pytest.mark.parametrize(
    "x", [np.array([]), np.array([-2.0]), np.array([1.0, -1.0, 3.0])], ids=["empty", "one", "many"]
)
def test_lambdas_in_list(x):
    check(lambda_with_ternary, x)


def sorted_by_key(x):
    return np.array(sorted([3.0, 1.0, 2.0], key=lambda v: -v)) * x


@pytest.mark.parametrize("x", [np.float64(2.0), np.array([[1.0], [2.0]])], ids=["scalar", "2d"])
def test_lambda_in_python_builtin(x):
    check(sorted_by_key, x)


def _min_max(x):
    lo = x[0]
    hi = x[0]
    for v in x:
        if v < lo:
            lo = v
        if v > hi:
            hi = v
    return lo, hi


def range_width(x):
    lo, hi = _min_max(x)
    return hi - lo


@pytest.mark.parametrize(
    "x", [np.array([5.0]), np.array([3.0, -1.0, 8.0]), np.array([2, 9, 4])], ids=["one", "f", "i"]
)
def test_helper_returning_tuple(x):
    check(range_width, x)


def _normalize(x, eps=1e-12, center=True):
    if center:
        x = x - np.mean(x)
    return x / (np.std(x) + eps)


def standardize_both(a, b):
    return _normalize(a), _normalize(b, eps=1e-6, center=False)


@pytest.mark.parametrize(
    "a, b",
    [(np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0])), (np.arange(4.0), np.array([1.0, -1.0]))],
    ids=["a", "b"],
)
def test_helper_with_keyword_arguments(a, b):
    check(standardize_both, a, b)


def _log_step(i, value):
    print("step", i, "value", value)


def logged_cumprod(x):
    acc = np.ones_like(x[0])
    for i in range(len(x)):
        acc = acc * x[i]
        _log_step(i, acc)
    return acc


@pytest.mark.parametrize(
    "x", [np.array([2.0]), np.array([1.0, 2.0, 3.0]), np.array([[1, 2], [3, 4]])], ids=case_id
)
def test_helper_that_prints(x):
    check(logged_cumprod, x)


def _index_of(x, value):
    for i in range(len(x)):
        if x[i] == value:
            return i
    return -1


def positions(x, a, b):
    return _index_of(x, a), _index_of(x, b)


@pytest.mark.parametrize(
    "x", [np.array([], dtype=np.int64), np.array([4, 7, 9]), np.array([9.0])], ids=case_id
)
def test_helper_with_return_in_loop(x):
    check(positions, x, 7, 9)


def _poly(x, coeffs):
    result = np.zeros_like(x)
    for c in coeffs:
        result = result * x + c
    return result


def two_polys(x):
    return _poly(x, (1.0, 0.0, -1.0)) - _poly(x, [2.0, 1.0])


@pytest.mark.parametrize("x", [np.linspace(-2.0, 2.0, 5), np.float64(0.5)], ids=["array", "scalar"])
def test_helper_unrolled_over_argument_sequence(x):
    check(two_polys, x)


def _newton_step(x, a):
    return 0.5 * (x + a / x)


def sqrt_fixed_iterations(a, iters):
    x = np.ones_like(a)
    for _ in range(iters):
        x = _newton_step(x, a)
    return x


@pytest.mark.parametrize("iters", [0, 1, 8])
@pytest.mark.parametrize("a", [np.array([4.0, 9.0]), np.array([[2.0]])], ids=["1d", "2d"])
def test_helper_in_range_loop(a, iters):
    check(sqrt_fixed_iterations, a, iters)
