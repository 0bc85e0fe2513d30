"""Differential tests for Python scalars meeting NumPy values (NumPy 2, NEP 50).

A Python int that does not fit an array's integer dtype raises OverflowError in every
operation that converts it (arithmetic, ufuncs, item assignment, fills, NumPy scalar
constructors); Python scalars are converted to the dtype of the ufunc loop NumPy runs
(``int32_array / 2**40`` divides in float64). Comparisons take any Python int.
"""

import numpy as np
import pytest
from harness import case_id, check

I32 = np.array([7, -1, 3], dtype=np.int32)
I32_DIVISORS = np.array([7, -2, 3], dtype=np.int32)  # (INT32_MIN // -1: regressions/)
U8 = np.array([7, 1, 250], dtype=np.uint8)
I8 = np.array([7, -1, 3], dtype=np.int8)
BOOLS = np.array([True, False, True])
F32 = np.array([1.5, -2.0, 0.5], dtype=np.float32)
SCALARS = [5, -1, 2**31 - 1, -(2**31), 2**31, -(2**40), 2**62, 300, -129]


def arithmetic(x, s):
    return x + s, s - x, x * s, x // 3 + s


def division(x, s):
    return x / s, x[0] / s


def floor_division(x, s):
    return s // x, s % x


def test_floor_division_by_array():
    for s in SCALARS:
        check(floor_division, I32_DIVISORS, s)


def ufuncs(x, s):
    return np.add(x, s), np.maximum(x, s), np.minimum(s, x)


def bitwise(x, s):
    return x & s, x | s


def element(x, s):
    return x[0] + s, x[1] * s


def fused_chain(x, s):
    return (x + s) * 2 - x


def in_a_loop(x, s):
    t = x.copy()
    for _ in range(3):
        t = t + s
    return t


def set_item(x, s):
    y = x.copy()
    y[0] = s
    return y


def add_in_place(x, s):
    y = x.copy()
    y += s
    return y


def fills(x, s):
    return np.full(3, s, dtype=x.dtype), np.full_like(x, s)


def fill_method(x, s):
    y = x.copy()
    y.fill(s)
    return y


def array_of(x, s):
    return np.array([s, 1], dtype=x.dtype)


def int32_of(s):
    return np.int32(s)


def uint8_of(s):
    return np.uint8(s)


def compare(x, s):
    return x < s, x == s, x[0] >= s


def where(x, s):
    return np.where(x > 0, x, s)


FUNCTIONS = [
    arithmetic,
    division,
    ufuncs,
    bitwise,
    element,
    fused_chain,
    in_a_loop,
    set_item,
    add_in_place,
    fills,
    fill_method,
    array_of,
    compare,
    where,
]


@pytest.mark.parametrize("s", SCALARS, ids=case_id)
@pytest.mark.parametrize("x", [I32, U8, I8], ids=case_id)
@pytest.mark.parametrize("fn", FUNCTIONS)
def test_python_int_meets_integer_array(fn, x, s):
    check(fn, x, s)


@pytest.mark.parametrize("s", SCALARS, ids=case_id)
@pytest.mark.parametrize("fn", [int32_of, uint8_of])
def test_numpy_scalar_constructors(fn, s):
    check(fn, s)


@pytest.mark.parametrize("s", [5, -(2**40), 2**62], ids=case_id)
@pytest.mark.parametrize("x", [BOOLS, F32], ids=case_id)
@pytest.mark.parametrize("fn", [arithmetic, division, ufuncs, element, set_item, fills])
def test_python_int_meets_bool_and_float_arrays(fn, x, s):
    check(fn, x, s)


def compare_with_float(x, s):
    return np.cumsum(x) < s, x[0] <= s, x == s, x != s


@pytest.mark.parametrize("s", [1e-300, 1e-46, -1e-300, 0.5, 1e300, 2.0**40, -(2**40)], ids=case_id)
@pytest.mark.parametrize(
    "x", [F32, np.array([0.0, 1e-46, 3e38], dtype=np.float32), I32], ids=case_id
)
def test_python_scalar_compared_in_the_arrays_dtype(x, s):
    """NumPy compares a float32 array with a Python float in float32 (1e-300 is 0.0)."""
    check(compare_with_float, x, s)


def literal_out_of_range(x):
    print("before")
    return x + 2**40


def test_literal_out_of_range_raises_after_the_print():
    check(literal_out_of_range, I32)


def lengths_of_ranges(n):
    return len(range(1, n, 2)), len(range(n, 0, -3)), len(range(n)), len([1, 2])


@pytest.mark.parametrize("n", [0, 1, 7, -2])
def test_len_of_a_range_of_graph_bounds(n):
    check(lengths_of_ranges, n)


def ranges_of_graph_bounds(n):
    """Each loop's index is a Python int whatever the bounds (eager's range yields
    ints): the sums stay Python ints, as the returned types show."""
    down, odd, offset = 0, 0, 0
    for i in range(n, 0, -2):
        down = down * 10 + i
    for i in range(1, n, 2):
        odd = odd * 10 + i
    for i in range(n, n + 3):
        offset += i
    return down, odd, offset


@pytest.mark.parametrize("n", [np.int64(5), np.int32(4), np.int64(0), 6])
def test_a_ranges_items_are_python_ints(n):
    check(ranges_of_graph_bounds, n)
