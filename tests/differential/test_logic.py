"""Differential tests for and/or/not, short-circuit evaluation and chained comparisons."""

import numpy as np
import pytest
from harness import case_id, check


def count_leading_positive(x):
    i = 0
    while i < len(x) and x[i] > 0:
        i += 1
    return i


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([-1.0, 2.0]), np.array([3.0, 1.0, -2.0]), np.array([1, 2, 3])],
    ids=["empty", "none", "some", "all_positive_guard_matters"],
)
def test_and_guards_index(x):
    check(count_leading_positive, x)


def describe_start(x):
    if len(x) == 0 or x[0] == 0:
        return 0
    return 1 if x[0] > 0 else -1


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([0.0, 1.0]), np.array([2.5]), np.array([-3, 1])],
    ids=["empty_guard_matters", "zero", "positive", "negative"],
)
def test_or_guards_index(x):
    check(describe_start, x)


def finite_flag(x):
    if not np.all(np.isfinite(x)):
        return -1
    return 1


@pytest.mark.parametrize(
    "x",
    [np.array([1.0, 2.0]), np.array([1.0, np.nan]), np.array([np.inf]), 3.0],
    ids=["finite", "nan", "inf", "scalar"],
)
def test_not(x):
    check(finite_flag, x)


def bucket(v, a, b):
    if 0 < v < a:
        return 1
    elif a <= v < b:
        return 2
    return 3


@pytest.mark.parametrize(
    "v", [-1.0, 0.5, 2.0, 3.5, 10.0, 2, np.float64(2.5), np.int32(7)], ids=case_id
)
def test_chained_comparison(v):
    check(bucket, v, 2.0, 5.0)


def in_open_interval(a, lo, hi):
    return lo < a < hi


@pytest.mark.parametrize(
    "a, lo, hi",
    [(0.5, 0.0, 1.0), (-0.5, 0.0, 1.0), (1.5, 0.0, 1.0), (3, 1, 5), (np.float64(0.5), 0.0, 1.0)],
    ids=["inside", "below", "above", "ints", "np_scalar"],
)
def test_chained_comparison_value(a, lo, hi):
    check(in_open_interval, a, lo, hi)


def _checked_positive(v):
    print("checked", v)
    return v > 0


def guarded(x, flag):
    if flag and _checked_positive(x):
        return 1
    return 0


def guarded_or(x, flag):
    if flag or _checked_positive(x):
        return 1
    return 0


@pytest.mark.parametrize("flag", [True, False])
@pytest.mark.parametrize("x", [2.0, -1.0, np.float64(0.5)], ids=["pos", "neg", "np_scalar"])
@pytest.mark.parametrize("fn", [guarded, guarded_or], ids=["and", "or"])
def test_short_circuit_skips_side_effect(fn, x, flag):
    check(fn, x, flag)


def sign3(x):
    return 1 if x > 0 else (-1 if x < 0 else 0)


@pytest.mark.parametrize("x", [4.0, -4.0, 0.0, np.float64(-0.1), np.array(3)], ids=case_id)
def test_nested_ternary(x):
    check(sign3, x)


def both(a, b):
    return a and b


def either(a, b):
    return a or b


def neither(a, b):
    return not a and not b


@pytest.mark.parametrize("b", [True, False])
@pytest.mark.parametrize("a", [True, False])
@pytest.mark.parametrize("fn", [both, either, neither], ids=lambda f: f.__name__)
def test_bool_operators_on_bool_arguments(fn, a, b):
    check(fn, a, b)


@pytest.mark.parametrize("a, b", [(0, 5), (3, 5), (0, 0), (-2, 0)], ids=case_id)
@pytest.mark.parametrize("fn", [both, either], ids=lambda f: f.__name__)
def test_bool_operators_return_operand(fn, a, b):
    check(fn, a, b)


def steps_until_small_or_limit(x, tol, max_steps):
    steps = 0
    while not (np.max(np.abs(x)) < tol or steps >= max_steps):
        x = x * 0.5
        steps += 1
    return x, steps


@pytest.mark.parametrize("max_steps", [0, 3, 100])
@pytest.mark.parametrize(
    "x", [np.array([0.01]), np.array([8.0, -2.0]), 5.0], ids=["small", "array", "float"]
)
def test_or_in_while_condition(x, max_steps):
    check(steps_until_small_or_limit, x, 0.1, max_steps)


def elementwise_logic(x):
    inside = (x > -1) & (x < 1)
    outside = (x <= -1) | (x >= 1)
    return inside, outside, ~inside, np.logical_xor(inside, x > 0)


@pytest.mark.parametrize(
    "x", [np.array([-2.0, -0.5, 0.0, 0.5, 2.0]), np.arange(-3, 3).reshape(2, 3)], ids=["1d", "2d"]
)
def test_elementwise_logic(x):
    check(elementwise_logic, x)


def any_all_branches(x):
    if np.any(x < 0) and not np.all(x < 0):
        return 0
    if np.all(x < 0):
        return -1
    return 1


@pytest.mark.parametrize(
    "x",
    [np.array([-1.0, 2.0]), np.array([-1.0, -2.0]), np.array([0.0, 3.0]), np.array([[1, -1]])],
    ids=["mixed", "negative", "non_negative", "2d"],
)
def test_any_all(x):
    check(any_all_branches, x)


def mode_in_tuple(x, mode):
    if mode in (1, 2):
        return x * mode
    return x


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
def test_membership_in_tuple(mode):
    check(mode_in_tuple, np.array([1.0, 2.0]), mode)


def clamp_with_logic(x, lo, hi):
    if x < lo or x > hi:
        x = lo if x < lo else hi
    return x


@pytest.mark.parametrize(
    "x, lo, hi",
    [(-5.0, -1.0, 1.0), (0.5, -1.0, 1.0), (5.0, -1.0, 1.0), (-3, -1, 1), (4, -1, 1), (0, -1, 1)],
    ids=case_id,
)
def test_or_then_ternary(x, lo, hi):
    check(clamp_with_logic, x, lo, hi)


# any() and all() of a 1-d array: over the truth of its elements, a Python bool.
def any_and_all(x, n):
    return any(x > n), all(x < n), any(x), all(x * 0), any(x[:0]), all(x[:0])


def any_in_a_condition(x, n):
    if any(x > n) and not all(x > n):
        return 1
    return 0


def any_of_rows(x, n):
    return any(np.outer(x, x) > n)  # eagerly: a row's truth value is ambiguous


@pytest.mark.parametrize("fn", [any_and_all, any_in_a_condition, any_of_rows])
@pytest.mark.parametrize("n", [-5.0, 0.0, 1.0, 5.0])
def test_builtin_any_and_all_of_arrays(fn, n):
    check(fn, np.array([0.5, 1.25, -0.75, 0.0]), n)
