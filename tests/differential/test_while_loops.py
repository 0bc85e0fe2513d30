"""Differential tests for while loops: data-dependent trip counts, break, continue, return."""

import numpy as np
import pytest
from harness import case_id, check


def collatz_steps(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@pytest.mark.parametrize(
    "n",
    [1, 2, 3, 27, np.int64(6), np.int32(9)],
    ids=["zero_iters", "one_iter", "many_iters", "long", "np_int64", "np_int32"],
)
def test_collatz(n):
    check(collatz_steps, n)


def halve_until_below(x, tol):
    steps = 0
    while np.max(np.abs(x)) > tol:
        x = x / 2
        steps += 1
    return x, steps


@pytest.mark.parametrize(
    "x",
    [
        np.array([0.1, -0.2]),
        np.array([1.5, -0.5]),
        np.array([[100.0, -3.0], [7.0, 0.0]]),
        0.25,
        40.0,
    ],
    ids=["zero_iters", "one_iter", "many_iters_2d", "scalar_zero_iters", "scalar_many"],
)
def test_data_dependent_while(x):
    check(halve_until_below, x, 1.0)


def first_index_above(x, t):
    i = 0
    found = -1
    while i < len(x):
        if x[i] > t:
            found = i
            break
        i += 1
    return found


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([5.0]), np.array([0.0, 1.0, 3.0, 9.0]), np.array([1, 2, 0])],
    ids=["empty", "first", "later", "never"],
)
def test_while_break(x):
    check(first_index_above, x, 2.5)


def sum_odd_entries(x):
    i = 0
    total = np.int64(0)
    while i < len(x):
        v = x[i]
        i += 1
        if v % 2 == 0:
            continue
        total += v
    return total


@pytest.mark.parametrize(
    "x",
    [np.array([], dtype=np.int64), np.array([3]), np.array([2, 4]), np.array([1, 2, 3, 4, 5, -7])],
    ids=["empty", "one_odd", "all_even", "mixed"],
)
def test_while_continue(x):
    check(sum_odd_entries, x)


def count_pairs_below(n, limit):
    count = 0
    i = 0
    while i < n:
        j = i + 1
        while j < n:
            if i * j < limit:
                count += 1
            j += 1
        i += 1
    return count


@pytest.mark.parametrize("n", [0, 1, 2, 6])
def test_nested_while(n):
    check(count_pairs_below, n, 6)


def find_first(x, value):
    i = 0
    while i < len(x):
        if x[i] == value:
            return i
        i += 1
    return -1


@pytest.mark.parametrize(
    "x",
    [np.array([], dtype=np.int64), np.array([4]), np.array([1, 4, 4]), np.array([1.0, 2.0, 3.0])],
    ids=["empty", "first", "middle", "absent"],
)
def test_return_inside_while(x):
    check(find_first, x, 4)


def newton_sqrt(a, tol):
    x = a
    while np.max(np.abs(x * x - a)) > tol:
        x = 0.5 * (x + a / x)
    return x


@pytest.mark.parametrize(
    "a",
    [1.0, 2.0, 1e6, np.array([1.0, 4.0, 10.0]), np.array([1.0])],
    ids=["zero_iters", "two", "large", "array", "array_zero_iters"],
)
def test_newton_iteration(a):
    check(newton_sqrt, a, 1e-9)


def gcd_break(a, b):
    while True:
        if b == 0:
            break
        a, b = b, a % b
    return a


def gcd_truthy(a, b):
    while b:
        a, b = b, a % b
    return a


@pytest.mark.parametrize(
    "a, b", [(12, 0), (12, 18), (17, 5), (np.int64(48), np.int64(36))], ids=case_id
)
@pytest.mark.parametrize("fn", [gcd_break, gcd_truthy], ids=lambda f: f.__name__)
def test_gcd(fn, a, b):
    check(fn, a, b)


def doublings_to_exceed(x, target):
    count = 0
    while np.sum(x) < target:
        x = x * 2
        count += 1
    return count, x


@pytest.mark.parametrize(
    "x",
    [np.array([10.0, 20.0]), np.array([3, 4]), np.array([0.5, 0.25, 0.125]), np.float64(1.0)],
    ids=["zero_iters", "int_one_iter", "many", "scalar"],
)
def test_while_tuple_result(x):
    check(doublings_to_exceed, x, 8.0)


def shrink_to_tolerance(x, tol):
    while x > tol:
        delta = x / 3
        x = x - delta
    return x


@pytest.mark.parametrize("x", [0.001, 0.5, 100.0, np.float32(3.0)])
def test_variable_local_to_loop_body(x):
    check(shrink_to_tolerance, x, 0.01)


def fibonacci_table(n):
    out = np.zeros(n, dtype=np.int64)
    i = 0
    while i < n:
        if i < 2:
            out[i] = i
        else:
            out[i] = out[i - 1] + out[i - 2]
        i += 1
    return out


@pytest.mark.parametrize("n", [0, 1, 2, 12])
def test_while_with_setitem(n):
    check(fibonacci_table, n)


def bisect_root(lo, hi, tol):
    iters = 0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid - 2.0 * mid - 5.0 > 0:
            hi = mid
        else:
            lo = mid
        iters += 1
    return 0.5 * (lo + hi), iters


@pytest.mark.parametrize("tol", [10.0, 0.5, 1e-10])
def test_bisection(tol):
    check(bisect_root, 2.0, 3.0, tol)


def running_max_until_drop(x):
    i = 1
    best = x[0]
    while i < len(x) and x[i] >= best:
        best = x[i]
        i += 1
    return best, i


@pytest.mark.parametrize(
    "x",
    [np.array([5.0]), np.array([1.0, 2.0, 3.0]), np.array([1, 3, 2, 8])],
    ids=["single", "monotone", "drop"],
)
def test_while_compound_condition(x):
    check(running_max_until_drop, x)


# A test that assigns a name (:=): the body and the code after the loop see it.
def walrus_in_test(x, n):
    s = 0.0
    i = 0
    while (v := x[i % 3] * i) < n:
        s += v
        i += 1
    return s, v, i


def walrus_in_test_with_else(x, n):
    s = 0.0
    i = 0
    while (v := x[i % 3] * i) < n:
        s += v
        i += 1
        if s > 4:
            break
    else:
        s = -s
    return s, v


def walrus_else_continues_the_outer_loop(x, n):
    found = 0
    for k in range(3):
        i = 0
        while (j := i * (k + 1)) < n:
            i += 1
        else:
            if k == 2:
                break
            continue
        found = 100  # never reached: the else clause continues or breaks
    return found, j


X3 = np.array([0.5, 1.25, -0.75])


@pytest.mark.parametrize(
    "fn", [walrus_in_test, walrus_in_test_with_else, walrus_else_continues_the_outer_loop]
)
@pytest.mark.parametrize("n", [0, 3, 30])
def test_assignment_in_the_test(fn, n):
    check(fn, X3, n)
