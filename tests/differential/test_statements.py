"""Differential tests for assert, raise, print, augmented assignment and other statements."""

import numpy as np
import pytest
from harness import case_id, check


def checked_mean(x):
    assert len(x) > 0, "empty input"
    return np.mean(x)


@pytest.mark.parametrize(
    "x", [np.array([1.0, 2.0]), np.array([]), np.array([3])], ids=["passes", "fails", "int"]
)
def test_assert_on_length(x):
    check(checked_mean, x)


def checked_sqrt(x):
    assert np.all(x >= 0), "negative values"
    return np.sqrt(x)


@pytest.mark.parametrize(
    "x",
    [np.array([1.0, 4.0]), np.array([1.0, -4.0]), 9.0, -1.0],
    ids=["array_passes", "array_fails", "float_passes", "float_fails"],
)
def test_assert_on_values(x):
    check(checked_sqrt, x)


def normalized_rows(m):
    sums = m.sum(axis=1)
    assert np.all(sums != 0)
    return m / sums[:, None]


@pytest.mark.parametrize(
    "m",
    [np.array([[1.0, 3.0], [2.0, 2.0]]), np.array([[1.0, -1.0], [2.0, 2.0]])],
    ids=["passes", "fails"],
)
def test_assert_without_message(m):
    check(normalized_rows, m)


def safe_log(x):
    if np.any(x <= 0):
        raise ValueError("log of non-positive value")
    return np.log(x)


@pytest.mark.parametrize(
    "x",
    [np.array([1.0, np.e]), np.array([1.0, 0.0]), 2.0, -2.0],
    ids=["array_ok", "array_raises", "float_ok", "float_raises"],
)
def test_raise_in_data_dependent_branch(x):
    check(safe_log, x)


def validate_count(n):
    if n < 0:
        raise ValueError("n must be non-negative")
    return n * 2


@pytest.mark.parametrize("n", [0, 5, -1])
def test_raise_on_int_argument(n):
    check(validate_count, n)


def find_or_raise(x, value):
    for i in range(len(x)):
        if x[i] == value:
            return i
    raise KeyError(value)


@pytest.mark.parametrize(
    "x", [np.array([1, 2, 3]), np.array([], dtype=np.int64), np.array([5, 6])], ids=case_id
)
def test_raise_after_loop(x):
    check(find_or_raise, x, 2)


def raise_inside_loop(x):
    total = np.float64(0.0)
    for v in x:
        if np.isnan(v):
            raise ValueError("nan encountered")
        total += v
    return total


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([1.0, 2.0]), np.array([1.0, np.nan, 2.0])],
    ids=["empty", "clean", "nan"],
)
def test_raise_inside_loop(x):
    check(raise_inside_loop, x)


def report(x):
    print("values:", x)
    print("sum", x.sum(), sep="=")
    print("done", end="!\n")
    print()
    return x.sum()


@pytest.mark.parametrize(
    "x",
    [np.array([1.0, 2.5]), np.arange(6).reshape(2, 3), np.array([True, False])],
    ids=["float", "int2d", "bool"],
)
def test_print_sep_end(x):
    check(report, x)


def print_scalars(n, t, flag):
    print("n =", n, "t =", t, "flag =", flag)
    print(n + 1, t * 2, not flag, sep=", ")
    return n


@pytest.mark.parametrize(
    "n, t, flag", [(3, 0.25, True), (-7, 1e-3, False), (0, 2.0, True)], ids=["a", "b", "c"]
)
def test_print_python_scalars(n, t, flag):
    check(print_scalars, n, t, flag)


def trace_iterations(x, n):
    for i in range(n):
        x = x * 0.5
        print(f"iter {i}: {np.sum(x):.3f}")
    return x


@pytest.mark.parametrize("n", [0, 1, 4])
@pytest.mark.parametrize("x", [np.array([1.0, 3.0]), 10.0], ids=["array", "float"])
def test_print_fstring_in_loop(x, n):
    check(trace_iterations, x, n)


def fstring_formats(x, n):
    print(f"n={n:3d}|mean={np.mean(x):.2f}|max={np.max(x)}|{n}")
    print(f"{'label':>8}: {x}")
    return n


@pytest.mark.parametrize("x", [np.array([1.5, 2.25]), np.array([[1, 2], [3, 4]])], ids=["1d", "2d"])
def test_print_fstring_formats(x):
    check(fstring_formats, x, 7)


def repr_and_format(a, x):
    print(repr(a), repr(x[0]), format(a, ">6"), format(x[0], ".3f"))
    label = repr(a) + "|" + format(x.sum(), "")
    print(label)
    return a


@pytest.mark.parametrize(
    "a, x",
    [
        (np.int64(7), np.array([1.5, 2.0])),
        (7, np.array([1.5])),
        (np.float32(2.5), np.array([1.0], np.float32)),
    ],
    ids=case_id,
)
def test_repr_and_format_of_graph_values(a, x):
    """repr() shows eager's repr (``np.int64(7)``), not the tracer's."""
    check(repr_and_format, a, x)


def warn_if_negative(x):
    if np.min(x) < 0:
        print("warning: negative values")
    else:
        print("ok", np.min(x))
    return np.abs(x)


@pytest.mark.parametrize(
    "x", [np.array([1.0, -2.0]), np.array([3.0, 4.0]), -1.5], ids=["warns", "ok", "scalar"]
)
def test_print_in_branch(x):
    check(warn_if_negative, x)


def print_then_fail(x):
    print("checking", len(x), "values")
    if np.any(x < 0):
        raise ValueError("negative")
    print("all good")
    return x


@pytest.mark.parametrize(
    "x", [np.array([1.0, 2.0]), np.array([1.0, -2.0])], ids=["passes", "raises"]
)
def test_print_before_raise(x):
    check(print_then_fail, x)


def augmented_scalars(a, b):
    a += b
    a -= 1
    a *= 3
    b **= 2
    c = a
    c //= 2
    d = a
    d %= 5
    return a, b, c, d


@pytest.mark.parametrize(
    "a, b", [(4, 3), (-7, 2), (2.5, 1.5), (np.int64(9), 2)], ids=["ints", "neg", "floats", "np"]
)
def test_augmented_assignment_scalars(a, b):
    check(augmented_scalars, a, b)


def augmented_arrays(x, y):
    x += y
    x *= 2
    x -= 1
    z = x / 4
    z /= 2
    return x, z


@pytest.mark.parametrize(
    "x, y",
    [
        (np.array([1.0, 2.0]), np.array([0.5, 0.5])),
        (np.array([1, 2, 3]), 4),
        (np.ones((2, 2)), np.array([1.0, -1.0])),
    ],
    ids=["float", "int_broadcast_scalar", "broadcast_row"],
)
def test_augmented_assignment_arrays(x, y):
    check(augmented_arrays, x, y)


def fibonacci_pair(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


@pytest.mark.parametrize("n", [0, 1, 2, 20])
def test_tuple_swap(n):
    check(fibonacci_pair, n)


def multiple_targets(x):
    lo = hi = x[0]
    for v in x:
        lo = min(lo, v)
        hi = max(hi, v)
    return lo, hi


@pytest.mark.parametrize(
    "x", [np.array([2.0]), np.array([3.0, -1.0, 7.0]), np.array([4, 4, 1])], ids=["one", "f", "i"]
)
def test_chained_assignment_and_builtin_min_max(x):
    check(multiple_targets, x)


def safe_ratio(a, b):
    """Elementwise a / b with zero where b is zero."""
    with np.errstate(divide="ignore", invalid="ignore"):
        r = a / b
    return np.where(b == 0, 0.0, r)


@pytest.mark.parametrize(
    "a, b",
    [(np.array([1.0, 2.0, 0.0]), np.array([2.0, 0.0, 0.0])), (np.array([3.0]), np.array([4.0]))],
    ids=["zeros", "no_zeros"],
)
def test_with_errstate_and_docstring(a, b):
    check(safe_ratio, a, b)


def unpack_shape(m):
    rows, cols = m.shape
    total = 0
    for i in range(rows):
        for j in range(cols):
            if m[i, j] > 0:
                total += 1
    return rows, cols, total


@pytest.mark.parametrize(
    "m",
    [np.zeros((0, 3)), np.array([[1.0, -2.0]]), np.array([[1, 2], [-3, 4], [5, 0]])],
    ids=["empty", "one_row", "many"],
)
def test_unpack_shape(m):
    check(unpack_shape, m)


def pass_and_noop(x):
    if np.sum(x) > 0:
        pass
    else:
        x = -x
    return x


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([-3.0]), 2.0], ids=case_id)
def test_pass_statement(x):
    check(pass_and_noop, x)


def percent_formatting(x, n):
    print("%d items, mean %.3f" % (n, x.mean()))
    print("%5.1f%%" % (x[0] * 100))
    for i in range(n):
        print("step %d: %s" % (i, x[i % len(x)]))
    return "%s-%d" % ("tag", 3)


@pytest.mark.parametrize("n", [0, 2])
def test_percent_formatting(n):
    check(percent_formatting, np.array([0.25, 1.5]), n)
