"""Loops that carry tuples, lists of tuples, traced slice steps and promoted extrema."""

import numpy as np
import pytest
from harness import check

V = np.array([1.5, -2.0, 0.0, 3.25, -0.5])
M = np.arange(12.0).reshape(3, 4) - 5


def first_above(x, t):
    for i in range(len(x)):
        if x[i] > t:
            return i, x[i]
    return -1, np.float64(0.0)


def first_cell_above(m, t):
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] > t:
                return i, j
    return -1, -1


def indexed_pairs(x):
    out = []
    for i in range(len(x)):
        out.append((i, x[i]))
    return out


def pairs_to_array(x):
    rows = []
    for i in range(len(x)):
        rows.append((x[i], x[i] * 2))
    return np.array(rows) if len(x) else np.zeros((0, 2))


def running_pair(x):
    pair = (0.0, 0.0)
    for v in x:
        pair = (pair[0] + v, pair[1] - v)
    return pair


def traced_slice(x, i, j, k):
    return x[i:j:k], x[::k]


def larger(a, b):
    return max(a, b), min(a, b)


@pytest.mark.parametrize("t", [1.0, 10.0])
def test_return_a_tuple_from_a_loop(t):
    check(first_above, V, t)


@pytest.mark.parametrize("t", [1.0, 100.0])
def test_return_a_tuple_from_nested_loops(t):
    check(first_cell_above, M, t)


@pytest.mark.parametrize("x", [V, V[:0]], ids=["many", "none"])
def test_list_of_tuples_built_in_a_loop(x):
    check(indexed_pairs, x)
    check(pairs_to_array, x)


def test_tuple_loop_variable():
    check(running_pair, V)


@pytest.mark.parametrize("bounds", [(1, 4, 2), (-1, 0, -1), (4, -6, -2), (10, 20, 1)])
def test_slice_with_traced_step(bounds):
    check(traced_slice, V, *bounds)


@pytest.mark.parametrize("args", [(1.5, 2.5), (3, 7), (np.float32(1.0), np.float32(2.0))])
def test_builtin_extrema(args):
    check(larger, *args)


I8 = np.array([100, -100, 127, -128, 5], dtype=np.int8)
U8 = np.array([250, 3, 128, 0, 255], dtype=np.uint8)


def scalar_division_by_zero(x):
    return x / 0.0, x // 0.0, x % 0.0


def doubling_wraps(x):
    s = x[0]
    for _ in range(3):
        s = s + s
    return s, x[3] - x[0]


def compare_with_negative(x):
    return x > -1, x == 300


def int_fmod(x):
    return np.fmod(x, 3), np.fmod(x, -3)


def print_scalars_in_containers(x):
    print([x[0], x[1]], (x[0], 1))
    return 0


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("x", [np.float64(3.0), np.float32(-1.0)])
def test_numpy_scalar_division_by_zero_gives_inf_and_nan(x):
    check(scalar_division_by_zero, x)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("x", [I8, U8], ids=["int8", "uint8"])
def test_small_integers_wrap_around(x):
    check(doubling_wraps, x)
    check(compare_with_negative, x)
    check(int_fmod, x)


def test_print_shows_numpy_scalars_as_eager_does():
    check(print_scalars_in_containers, np.array([1.5, -2.0]))


def float_total(x):
    total = 0.0
    for v in x:
        total += v
    return total


def sum_or_zero(x):
    return x.sum() if len(x) > 0 else 0.0


@pytest.mark.parametrize("x", [np.array([]), np.array([1.5, 2.0])], ids=["none", "two"])
def test_each_path_keeps_eagers_kind_of_scalar(x):
    # Eager code returns 0.0 for no iterations and np.float64 after: so does every
    # backend (tests/differential/test_number_types.py has the family).
    check(float_total, x)
    check(sum_or_zero, x)


def countdown_flag(x, a, b):
    y = [a, b]
    while x > 0:
        x -= 1
        y[0] += 1
    return y, x


def flag_then_count(x, n):
    for _ in range(n):
        x += 1
    print(x)
    return x


def count_then_flag(n, m):
    x = 0
    for i in range(n):
        x = i > m
    return x, x + 1


@pytest.mark.parametrize(
    "fn, args",
    [
        (countdown_flag, (True, 7, 0)),
        (countdown_flag, (False, 7, 0)),
        (countdown_flag, (True, np.int64(7), 0)),
        (flag_then_count, (True, 0)),
        (flag_then_count, (True, 2)),
        (flag_then_count, (False, 3)),
        (count_then_flag, (0, 1)),
        (count_then_flag, (3, 1)),
        (count_then_flag, (3, 5)),
    ],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_python_bool_and_int_loop_variable(fn, args):
    """A Python bool that a loop makes an int (or back) is eager's: the graph computes
    in int (True is 1) and gives back a bool where the value still is one."""
    check(fn, *args)
