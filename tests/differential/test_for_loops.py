"""Differential tests for for loops: range forms, arrays, enumerate, zip, Python sequences."""

import numpy as np
import pytest
from harness import backend, check

import nbgraph as ng
from nbgraph.errors.exceptions import StagingError


def sum_of_squares(n):
    total = 0
    for i in range(n):
        total += i * i
    return total


@pytest.mark.parametrize("n", [0, 1, 2, 10, np.int64(4)])
def test_range_one_arg(n):
    check(sum_of_squares, n)


def partial_sum(x, start):
    total = np.float64(0.0)
    for i in range(start, len(x)):
        total = total + x[i]
    return total


@pytest.mark.parametrize("start", [0, 2, 3, 5])
@pytest.mark.parametrize(
    "x", [np.array([1.0, 2.0, 4.0]), np.array([1, 2, 3, 4, 5], dtype=np.int32)], ids=["f64", "i32"]
)
def test_range_two_args(x, start):
    check(partial_sum, x, start)


def countdown_sum(n):
    total = 0
    for i in range(n, 0, -2):
        total += i
    return total


@pytest.mark.parametrize("n", [0, 1, 2, 7])
def test_range_negative_step(n):
    check(countdown_sum, n)


def every_third(x):
    out = np.zeros(len(x))
    for i in range(1, len(x), 3):
        out[i] = x[i] * 10
    return out


@pytest.mark.parametrize(
    "x", [np.array([]), np.array([1.0, 2.0]), np.arange(10.0)], ids=["empty", "one", "many"]
)
def test_range_three_args(x):
    check(every_third, x)


def reverse_copy(x):
    n = len(x)
    out = np.zeros_like(x)
    for i in range(n - 1, -1, -1):
        out[n - 1 - i] = x[i]
    return out


@pytest.mark.parametrize(
    "x",
    [np.array([], dtype=np.int64), np.array([3.5]), np.array([1, 2, 3, 4]), np.ones((3, 2))],
    ids=["empty", "one", "many", "rows"],
)
def test_range_reverse(x):
    check(reverse_copy, x)


def sum_rows(m):
    acc = np.zeros(m.shape[1], dtype=m.dtype)
    for row in m:
        acc = acc + row
    return acc


@pytest.mark.parametrize(
    "m",
    [np.zeros((0, 3)), np.array([[1.0, 2.0]]), np.arange(12).reshape(4, 3)],
    ids=["no_rows", "one_row", "int_rows"],
)
def test_iterate_rows(m):
    check(sum_rows, m)


def row_maxima(m):
    out = np.zeros(len(m), dtype=m.dtype)
    i = 0
    for row in m:
        out[i] = np.max(row)
        i += 1
    return out


@pytest.mark.parametrize(
    "m",
    [np.array([[1.0, 5.0, 2.0]]), np.array([[3, -1], [0, 7], [2, 2]])],
    ids=["one_row", "int_rows"],
)
def test_iterate_rows_with_counter(m):
    check(row_maxima, m)


def argmax_manual(x):
    best_i = 0
    best = x[0]
    for i, v in enumerate(x):
        if v > best:
            best = v
            best_i = i
    return best_i, best


@pytest.mark.parametrize(
    "x",
    [np.array([4.0]), np.array([1.0, 9.0, 3.0, 9.5, -2.0]), np.array([7, 7, 1], dtype=np.int32)],
    ids=["one", "many", "ties_int32"],
)
def test_enumerate(x):
    check(argmax_manual, x)


def weighted_positions(x):
    out = np.zeros_like(x)
    for i, v in enumerate(x, 1):
        out[i - 1] = i * v
    return out


@pytest.mark.parametrize(
    "x", [np.array([]), np.array([2.0]), np.array([1.0, -1.0, 0.5])], ids=["empty", "one", "many"]
)
def test_enumerate_with_start(x):
    check(weighted_positions, x)


def dot_manual(a, b):
    total = np.float64(0.0)
    for x, y in zip(a, b):
        total += x * y
    return total


@pytest.mark.parametrize(
    "a, b",
    [
        (np.array([]), np.array([])),
        (np.array([2.0]), np.array([3.0])),
        (np.array([1.0, 2.0, 3.0]), np.array([4.0, -5.0, 6.0])),
        (np.array([1, 2, 3]), np.array([1.5, 0.5, 2.0, 9.0])),
    ],
    ids=["empty", "one", "many", "unequal_lengths"],
)
def test_zip(a, b):
    check(dot_manual, a, b)


def horner(x):
    result = np.zeros_like(x)
    for c in [1.0, -2.0, 0.5]:
        result = result * x + c
    return result


@pytest.mark.parametrize(
    "x", [np.array([0.0, 1.0, 2.0]), np.array([[1.5]]), np.float64(3.0)], ids=["1d", "2d", "scalar"]
)
def test_iterate_python_list(x):
    check(horner, x)


def apply_each(x):
    outs = []
    for f in (np.sin, np.cos, np.tanh):
        outs.append(f(x))
    return tuple(outs)


@pytest.mark.parametrize("x", [np.linspace(-1.0, 1.0, 5), 0.3], ids=["array", "float"])
def test_iterate_tuple_of_functions(x):
    check(apply_each, x)


def mlp_forward(x, w1, b1, w2, b2):
    h = x
    for w, b in [(w1, b1), (w2, b2)]:
        h = np.tanh(h @ w + b)
    return h


@pytest.mark.parametrize("batch", [1, 4])
def test_iterate_list_of_pairs(batch):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, 3))
    w1, b1 = rng.standard_normal((3, 5)), rng.standard_normal(5)
    w2, b2 = rng.standard_normal((5, 2)), rng.standard_normal(2)
    check(mlp_forward, x, w1, b1, w2, b2)


def first_exceeding(x, t):
    idx = -1
    for i in range(len(x)):
        if x[i] > t:
            idx = i
            break
    return idx


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([9.0]), np.array([0.0, 1.0, 6.0, 7.0]), np.array([1, 2, 3])],
    ids=["empty", "first", "later", "never"],
)
def test_for_break(x):
    check(first_exceeding, x, 5.0)


def sum_skip_negative(x):
    total = np.float64(0.0)
    for v in x:
        if v < 0:
            continue
        total += v
    return total


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([-1.0]), np.array([2.0, -3.0, 4.0, -0.5, 1.0])],
    ids=["empty", "one_skipped", "many"],
)
def test_for_continue(x):
    check(sum_skip_negative, x)


def contains(x, value):
    for v in x:
        if v == value:
            return True
    return False


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([3.0]), np.array([1, 2, 3, 4]), np.array([5.0, 6.0])],
    ids=["empty", "only", "middle", "absent"],
)
def test_return_inside_for(x):
    check(contains, x, 3)


def outer_manual(a, b):
    out = np.zeros((len(a), len(b)))
    for i in range(len(a)):
        for j in range(len(b)):
            out[i, j] = a[i] * b[j]
    return out


@pytest.mark.parametrize(
    "a, b",
    [
        (np.array([]), np.array([1.0, 2.0])),
        (np.array([2.0]), np.array([3.0])),
        (np.array([1.0, 2.0, 3.0]), np.array([4, 5])),
    ],
    ids=["empty", "one", "many"],
)
def test_nested_for(a, b):
    check(outer_manual, a, b)


def collatz_lengths(n):
    lengths = np.zeros(n, dtype=np.int64)
    for k in range(1, n + 1):
        m = k
        steps = 0
        while m != 1:
            m = m // 2 if m % 2 == 0 else 3 * m + 1
            steps += 1
        lengths[k - 1] = steps
    return lengths


@pytest.mark.parametrize("n", [0, 1, 2, 12])
def test_while_inside_for(n):
    check(collatz_lengths, n)


def count_rows_with_negative(m):
    count = 0
    for row in m:
        for v in row:
            if v < 0:
                count += 1
                break
    return count


@pytest.mark.parametrize(
    "m",
    [np.zeros((0, 2)), np.array([[1.0, -1.0, -2.0]]), np.array([[-1, 2], [3, 4], [5, -6]])],
    ids=["no_rows", "one_row", "many_rows"],
)
def test_break_in_inner_loop(m):
    check(count_rows_with_negative, m)


def compound(principal, rate, years):
    for _ in range(years):
        principal = principal * (1 + rate)
    return principal


@pytest.mark.parametrize("years", [0, 1, 10])
@pytest.mark.parametrize("principal", [100.0, np.array([100.0, 250.0])], ids=["float", "array"])
def test_range_over_int_argument(principal, years):
    check(compound, principal, 0.05, years)


def smooth_until_flat(x, sweeps):
    for _ in range(sweeps):
        if np.max(x) - np.min(x) < 0.1:
            break
        i = 1
        while i < len(x) - 1:
            x[i] = 0.5 * x[i] + 0.25 * (x[i - 1] + x[i + 1])
            i += 1
    return x


@pytest.mark.parametrize("sweeps", [0, 1, 50])
@pytest.mark.parametrize(
    "x", [np.array([0.0, 5.0, 0.0]), np.array([1.0, 1.05])], ids=["peak", "flat"]
)
def test_while_inside_for_with_break(x, sweeps):
    check(smooth_until_flat, x, sweeps)


def trailing_zeros(x):
    count = 0
    for i in range(len(x) - 1, -1, -1):
        if x[i] != 0:
            return count
        count += 1
    return count


@pytest.mark.parametrize(
    "x",
    [np.array([], dtype=np.int64), np.array([0, 0]), np.array([1, 0, 0]), np.array([0.0, 2.0])],
    ids=["empty", "all_zero", "two", "none"],
)
def test_return_inside_reverse_range(x):
    check(trailing_zeros, x)


# --- a loop over an array its body writes into -----------------------------------------
# Eagerly `for e in b` reads each item from the array when the loop gets to it, so the
# body's writes into later items are seen (and regressions/array_written_while_iterated).


def push_forward(x):
    b = x.copy()
    total = 0
    for i, e in enumerate(b):
        print(i, e)
        if e > 1 and i + 1 < len(b):
            b[i + 1] = b[i + 1] + e
        total += e
    return total, b


def zip_with_writes(x):
    b = x.copy()
    total = 0.0
    for e, y in zip(x, b):
        b[-1] = e + y
        total += y
    return total, b


def rows_written_ahead(m):
    b = m.copy()
    total = 0.0
    for row in b:
        b[-1] = row * 2
        total += row.sum()
    return total, b


def argument_written_ahead(x):
    for e in x:
        x[-1] = e + 1
    return x


def rebound_not_written(x):
    b = x.copy()
    total = 0
    for e in b:
        total += e
        b = b * 2
    return total, b


@pytest.mark.parametrize(
    "fn, x",
    [
        (push_forward, np.array([0, 2, 1, 5, 1])),
        (zip_with_writes, np.array([1.0, 2.0, 3.0])),
        (rows_written_ahead, np.arange(6.0).reshape(3, 2)),
        (argument_written_ahead, np.array([3, 1, 4, 1, 5])),
        (rebound_not_written, np.array([1, 2, 3])),
        (argument_written_ahead, np.array([], dtype=np.int64)),
    ],
    ids=["enumerate", "zip", "rows", "argument", "rebound", "empty"],
)
def test_loop_sees_writes_into_the_array_it_runs_over(fn, x):
    check(fn, x)


def written_then_rebound(x):
    b = x.copy()
    for e in b:
        b[0] = e
        b = b * 2
    return b


def written_or_rebound(x):
    b = x.copy()
    for e in b:
        if e > 1:
            b[-1] = 100
        else:
            b = b + 1
    return b


@pytest.mark.parametrize("fn", [written_then_rebound, written_or_rebound])
def test_loop_that_writes_and_rebinds_the_array_it_runs_over_is_refused(fn):
    with pytest.raises(StagingError, match=r"runs over the array 'b'.*range\(len\(b\)\)"):
        ng.function(fn, backend=backend())(np.array([1, 2, 3]))
