"""Differential tests for if/elif/else, nested ifs, ternaries and early returns."""

import numpy as np
import pytest
from harness import check

DEBUG = False
SCALE = 2.0


def sign_label(x):
    if x > 0:
        s = 1
    elif x < 0:
        s = -1
    else:
        s = 0
    return s


@pytest.mark.parametrize(
    "x",
    [3.5, -2.0, 0.0, 7, -1, np.float64(1.5), np.int32(-4), np.float32(0.0), np.array(2.5)],
    ids=["float+", "float-", "float0", "int+", "int-", "f64", "i32", "f32_zero", "0d_array"],
)
def test_sign_label(x):
    check(sign_label, x)


def scale_if_large(x, limit):
    total = np.sum(x)
    if total > limit:
        x = x * (limit / total)
    return x


@pytest.mark.parametrize(
    "x, limit",
    [
        (np.array([1.0, 2.0, 3.0]), 3.0),
        (np.array([1.0, 2.0, 3.0]), 10.0),
        (np.array([[4.0, 4.0], [1.0, 1.0]]), 5.0),
        (np.float64(8.0), 2.0),
        (np.float64(1.0), 2.0),
    ],
    ids=["array_scaled", "array_kept", "matrix_scaled", "scalar_scaled", "scalar_kept"],
)
def test_scale_if_large(x, limit):
    check(scale_if_large, x, limit)


def classify(x, lo, hi):
    m = np.mean(x)
    if m < lo:
        label = 0
    else:
        if m > hi:
            label = 2
        else:
            label = 1
    return label


@pytest.mark.parametrize(
    "x",
    [np.array([-5.0, -1.0]), np.array([0.0, 1.0, 2.0]), np.array([9.0, 12.0]), -3.0, 0.5, 4.0],
    ids=["array_low", "array_mid", "array_high", "scalar_low", "scalar_mid", "scalar_high"],
)
def test_nested_if(x):
    check(classify, x, 0.0, 3.0)


def constant_conditions(x):
    if DEBUG:
        print("debug", x)
    if SCALE != 1.0:
        x = x * SCALE
    return x


@pytest.mark.parametrize(
    "x",
    [np.arange(4), np.array([0.5, -1.5]), 3, 2.5],
    ids=["int_array", "float_array", "int", "float"],
)
def test_python_constant_conditions(x):
    check(constant_conditions, x)


def apply_flag(x, negate):
    if negate:
        x = -x
    return x


@pytest.mark.parametrize("negate", [True, False])
@pytest.mark.parametrize("x", [np.array([1.0, -2.0]), 4.0, 3], ids=["array", "float", "int"])
def test_condition_on_bool_argument(x, negate):
    check(apply_flag, x, negate)


def ternary_scale(x):
    factor = 2.0 if np.sum(x) > 0 else 0.5
    return x * factor


@pytest.mark.parametrize(
    "x",
    [np.array([1.0, 2.0]), np.array([-1.0, -2.0]), np.array([[1, -3], [0, 1]]), np.float64(-4.0)],
    ids=["positive", "negative", "int_matrix", "scalar"],
)
def test_ternary(x):
    check(ternary_scale, x)


def split_stats(x):
    if x.size > 3:
        lo = x.min()
        hi = x.max()
    else:
        lo = x[0]
        hi = x[-1]
    return lo, hi


@pytest.mark.parametrize(
    "x",
    [np.array([3.0, 1.0]), np.array([5.0, -1.0, 2.0, 8.0, 0.0]), np.array([7, 2, 9, 1, 4])],
    ids=["small", "large_float", "large_int"],
)
def test_assigned_in_both_branches(x):
    check(split_stats, x)


def safe_normalize(x):
    norm = np.sqrt(np.sum(x * x))
    if norm == 0:
        return x
    return x / norm


@pytest.mark.parametrize(
    "x",
    [np.zeros(3), np.array([3.0, 4.0]), np.array([[1.0, 1.0], [1.0, 1.0]]), np.float64(-2.0)],
    ids=["zeros", "vector", "matrix", "scalar"],
)
def test_early_return(x):
    check(safe_normalize, x)


def piecewise(t):
    if t < 0:
        return 0.0
    elif t < 1:
        return t * t
    else:
        return 2 * t - 1


@pytest.mark.parametrize("t", [-1.0, 0.0, 0.5, 1.0, 3.0])
def test_early_return_every_branch(t):
    check(piecewise, t)


def count_positive_ends(x):
    count = 0
    if x[0] > 0:
        count += 1
    if x[-1] > 0:
        count += 1
    return count


@pytest.mark.parametrize(
    "x",
    [np.array([1.0, 2.0]), np.array([-1.0, 2.0]), np.array([-1, 0, -3]), np.array([5])],
    ids=["both", "last", "none", "single"],
)
def test_if_without_else(x):
    check(count_positive_ends, x)


def pad_to_even(x):
    if len(x) % 2 == 1:
        x = np.concatenate([x, np.zeros(1, dtype=x.dtype)])
    return x


@pytest.mark.parametrize(
    "x",
    [np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0]), np.array([4], dtype=np.int32)],
    ids=["odd", "even", "int32_single"],
)
def test_branches_with_different_shapes(x):
    check(pad_to_even, x)


def threshold_count(x, k):
    if k > 0:
        out = np.sum(x > k)
    else:
        out = np.sum(x < k)
    return out


@pytest.mark.parametrize("k", [2, -1, 0])
@pytest.mark.parametrize(
    "x", [np.array([-3, -1, 0, 2, 5]), np.array([[0.5, 3.0], [-2.0, 4.0]])], ids=["int", "float2d"]
)
def test_condition_on_int_argument(x, k):
    check(threshold_count, x, k)


def select_op(x, mode):
    if mode == 0:
        y = x + 1
    elif mode == 1:
        y = x * 2
    elif mode == 2:
        y = x**2
    else:
        y = -x
    return y


@pytest.mark.parametrize("mode", [0, 1, 2, 3])
@pytest.mark.parametrize("x", [np.array([1.5, -2.0, 3.0]), 2.5], ids=["array", "float"])
def test_elif_chain(x, mode):
    check(select_op, x, mode)


def quadrant(p):
    if p[0] >= 0:
        if p[1] >= 0:
            return 1
        return 4
    if p[1] >= 0:
        return 2
    return 3


@pytest.mark.parametrize(
    "p",
    [np.array([1.0, 1.0]), np.array([1.0, -1.0]), np.array([-1.0, 1.0]), np.array([-1, -1])],
    ids=["q1", "q4", "q2", "q3_int"],
)
def test_return_inside_nested_if(p):
    check(quadrant, p)


def add_bias(x, bias=None):
    if bias is None:
        return x
    return x + bias


@pytest.mark.parametrize("bias", [None, np.array([1.0, 2.0]), 0.5], ids=["none", "array", "float"])
def test_is_none_condition(bias):
    check(add_bias, np.array([10.0, 20.0]), bias)


def ensure_2d(x):
    if x.ndim == 1:
        x = x[np.newaxis, :]
    return x


@pytest.mark.parametrize(
    "x", [np.arange(3.0), np.ones((2, 3)), np.arange(1)], ids=["1d", "2d", "1d_single"]
)
def test_condition_on_ndim(x):
    check(ensure_2d, x)


def leaky_relu_sum(x):
    total = np.float64(0.0)
    for v in x:
        if v > 0:
            total = total + v
        else:
            total = total + 0.1 * v
    return total


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([-2.0]), np.array([1.0, -3.0, 2.0, -0.5])],
    ids=["empty", "one", "many"],
)
def test_if_inside_loop(x):
    check(leaky_relu_sum, x)


def returns_before_restacking(c):
    t = np.array(1)
    if c:
        return t
    t = np.stack([t, t])
    return np.sum(t)


def restacked_then_replaced(c, x):
    t = x.sum()
    if c:
        t = np.stack([x, x])
    t = x * 2
    return t


def keys_then_replaced(a):
    d = {"a": a}
    if a > 0:
        d["b"] = 1
    d = {"c": a * 2}
    return d


@pytest.mark.parametrize(
    "fn, args",
    [
        *((returns_before_restacking, (c,)) for c in (True, False, np.array(True), np.bool_(0))),
        *((restacked_then_replaced, (c, np.arange(3.0))) for c in (True, np.array(False))),
        *((keys_then_replaced, (a,)) for a in (1, np.int64(-1))),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_variable_of_another_rank_or_keys_on_one_path_that_is_never_used(fn, args):
    """A variable whose two paths' values cannot be one graph value is no concern where
    nothing uses it after the if (both paths returned, or it is assigned again)."""
    check(fn, *args)


# An operation that may fail, in a graph branch whose values nothing uses: it still
# raises (as eagerly) when the branch runs, in a loop too.
def unused_branch_value(x, n):
    s = 0.0
    if n > 0:
        s = np.abs(x[-1])
    s = 1.0
    return s


def unused_branch_value_in_a_loop(x, n):
    i = 0
    while i < n:
        if i > 1:
            top = np.max(x)  # noqa: F841 (what is tested)
        i += 1
    return i


@pytest.mark.parametrize("fn", [unused_branch_value, unused_branch_value_in_a_loop])
@pytest.mark.parametrize("x", [np.array([]), np.array([2.0, -1.0])], ids=["empty", "two"])
@pytest.mark.parametrize("n", [0, 3])
def test_unused_branch_values_still_raise(fn, x, n):
    check(fn, x, n)
