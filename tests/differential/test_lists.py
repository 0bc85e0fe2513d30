"""Differential tests for Python lists built in loops and turned into arrays."""

import numpy as np
import pytest
from harness import backend, check

import nbgraph as ng


def squares_list(n):
    out = []
    for i in range(n):
        out.append(i * i)
    return np.array(out, dtype=np.int64)


@pytest.mark.parametrize("n", [0, 1, 6])
def test_append_ints_then_array(n):
    check(squares_list, n)


def running_states(x, n):
    states = []
    for _ in range(n):
        x = x * 0.9 + 1
        states.append(x)
    return np.stack(states)


@pytest.mark.parametrize("n", [1, 5])
@pytest.mark.parametrize(
    "x", [np.array([0.0, 10.0]), np.ones((2, 2)), np.float64(3.0)], ids=["1d", "2d", "scalar"]
)
def test_append_arrays_then_stack(x, n):
    check(running_states, x, n)


def positive_values(x):
    vals = []
    for v in x:
        if v > 0:
            vals.append(v)
    return np.array(vals, dtype=x.dtype)


@pytest.mark.parametrize(
    "x",
    [np.array([]), np.array([-1.0]), np.array([2.0]), np.array([3, -1, 4, -1, 5], dtype=np.int32)],
    ids=["empty", "none_kept", "one_kept", "int32_many"],
)
def test_conditional_append(x):
    check(positive_values, x)


def count_appended(x, t):
    above = []
    for i in range(len(x)):
        if x[i] > t:
            above.append(i)
    return len(above)


@pytest.mark.parametrize(
    "x", [np.array([]), np.array([1.0, 5.0, 7.0]), np.array([0, 0])], ids=["empty", "two", "none"]
)
def test_len_of_built_list(x):
    check(count_appended, x, 2.0)


def collatz_sequence(n):
    seq = [n]
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        seq.append(n)
    return np.array(seq)


@pytest.mark.parametrize("n", [1, 2, 7, 27])
def test_append_in_while(n):
    check(collatz_sequence, n)


def chunks_concatenated(x, k):
    parts = []
    for i in range(k):
        parts.append(x * i)
    parts.append(np.zeros(1, dtype=x.dtype))
    return np.concatenate(parts)


@pytest.mark.parametrize("k", [0, 1, 3])
@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([4])], ids=["float", "int"])
def test_append_then_concatenate(x, k):
    check(chunks_concatenated, x, k)


def static_coefficients(x):
    coeffs = [1.0, 0.5]
    coeffs.append(0.25)
    total = np.zeros_like(x)
    for c in coeffs:
        total = total + c * x
    return total, len(coeffs)


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.float64(4.0)], ids=["array", "scalar"])
def test_python_list_of_constants(x):
    check(static_coefficients, x)


def last_appended(x, n):
    history = [x]
    for _ in range(n):
        x = np.sqrt(x)
        history.append(x)
    return history[-1], history[0]


@pytest.mark.parametrize("n", [0, 1, 4])
@pytest.mark.parametrize(
    "x", [np.array([16.0, 81.0]), np.float64(256.0)], ids=["array", "np_scalar"]
)
def test_index_built_list(x, n):
    check(last_appended, x, n)


def pairwise_gaps(x):
    gaps = []
    for i in range(1, len(x)):
        gaps.append(x[i] - x[i - 1])
    return np.array(gaps, dtype=np.float64)


@pytest.mark.parametrize(
    "x",
    [np.array([1.0]), np.array([1.0, 4.0]), np.array([1, 3, 8, 8, 2])],
    ids=["no_gaps", "one_gap", "int_many"],
)
def test_append_differences(x):
    check(pairwise_gaps, x)


def static_comprehension(x):
    return np.stack([x * i for i in range(3)])


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.float64(2.0)], ids=["array", "scalar"])
def test_comprehension_over_constant_range(x):
    check(static_comprehension, x)


def dynamic_comprehension(n):
    return np.array([i * i for i in range(n)], dtype=np.int64)


@pytest.mark.parametrize("n", [0, 1, 5])
def test_comprehension_over_argument_range(n):
    check(dynamic_comprehension, n)


def nested_lists(m):
    rows = []
    for row in m:
        cells = []
        for v in row:
            cells.append(v * v)
        rows.append(np.array(cells))
    return np.stack(rows)


@pytest.mark.parametrize(
    "m", [np.array([[1.0, 2.0]]), np.arange(6).reshape(3, 2)], ids=["one_row", "int_rows"]
)
def test_nested_list_building(m):
    check(nested_lists, m)


def rows_of_zeros(m, n):
    rows = []
    for _ in range(m):
        rows.append(np.zeros(n))
    return np.array(rows)


def numbers_in_a_loop(n):
    found = []
    for i in range(n):
        found.append(i * 2)
    return np.asarray(found), np.array(found, dtype=np.int32)


@pytest.mark.parametrize(
    "fn, args",
    [
        (rows_of_zeros, (np.int64(2), 3)),
        (rows_of_zeros, (np.int64(0), 3)),
        (numbers_in_a_loop, (np.int64(3),)),
        (numbers_in_a_loop, (np.int64(0),)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_returned_array_of_a_list_left_empty_is_eagers(fn, args):
    check(fn, *args)


def type_tests(c, x):
    kinds = [isinstance(c, list), isinstance(c, tuple | dict), isinstance(x, np.ndarray)]
    if isinstance(c, list):
        return list(c), kinds
    return c, kinds


@pytest.mark.parametrize(
    "c", [[np.arange(3.0), 2.0], [[1.0]], (np.ones(2),), {"a": np.ones(2)}], ids=repr
)
def test_isinstance_of_a_container_holding_graph_values(c):
    check(type_tests, c, np.ones(2))


def extremes_of_values(x, n):
    found = []
    for i in range(n):
        found.append(x[i % len(x)])
    return max(found), min(found)


@pytest.mark.parametrize("n", [0, 1, 2, 5])
@pytest.mark.parametrize(
    "x",
    [
        np.array([2.0, -1.0, 3.0, 3.0]),
        np.array([np.nan, 1.0, -2.0]),  # a NaN wins where it comes first, as eagerly
        np.array([1.0, np.nan, -2.0]),  # and loses where it comes later
        np.array([5, -7, 5], dtype=np.int32),
    ],
    ids=["float", "nan_first", "nan_later", "int32"],
)
def test_max_and_min_of_a_built_list(x, n):
    check(extremes_of_values, x, n)


def extremes_of_python_numbers(n):
    found = [3]
    for i in range(n):
        found.append(i * 2)
    return max(found), min(found)


@pytest.mark.parametrize("n", [0, 1, 4])
def test_max_and_min_of_a_list_of_python_ints(n):
    check(extremes_of_python_numbers, n)


def stacked_both_ways(x, n):
    rows = []
    for i in range(n):
        rows.append(x * i)
    return np.vstack(rows), np.hstack(rows)


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize(
    "x", [np.float64(2.0), np.arange(3.0), np.ones((2, 2))], ids=["scalar", "1d", "2d"]
)
def test_vstack_and_hstack_of_a_built_list(x, n):
    check(stacked_both_ways, x, n)


def stacked_numbers(n):
    found = []
    for i in range(n):
        found.append(np.float64(i))
    return np.stack(found)


@pytest.mark.parametrize("n", [0, 2])
def test_stack_of_a_list_of_numbers_left_empty_raises(n):
    check(stacked_numbers, n)


def shape_of_rows(n):
    rows = []
    for i in range(n):
        rows.append(np.full(3, float(i)))
    return np.array(rows).shape


def doubled_ints(n):
    found = []
    for i in range(n):
        found.append(i)
    return np.array(found) * 2


@pytest.mark.parametrize("fn", [shape_of_rows, doubled_ints], ids=lambda f: f.__name__)
def test_array_of_a_list_left_empty_is_refused_where_it_is_used(fn):
    """Eagerly np.array of an empty list is float64 of shape (0,), not the items' type:
    a graph that goes on computing with it says so at the line, rather than computing
    with another array (returned as it is, it is eager's: the test above)."""
    check(fn, 3)
    with pytest.raises(ng.errors.LoopTypeError, match=r"np\.array\(\) of a list that stays empty"):
        ng.function(fn, backend=backend())(0)


def doubled_typed_ints(n):
    found = []
    for i in range(n):
        found.append(i)
    return np.array(found, dtype=np.int64) * 2


@pytest.mark.parametrize("n", [0, 3])
def test_array_of_a_list_with_its_dtype_is_eagers_when_empty(n):
    check(doubled_typed_ints, n)


def max_of_arrays(n):
    rows = []
    for i in range(n):
        rows.append(np.full(2, float(i)))
    return max(rows)


def test_max_of_a_list_of_arrays_is_refused():
    with pytest.raises(ng.errors.StagingError, match=r"max\(\) of a graph list of .*1-d"):
        ng.function(max_of_arrays, backend=backend())(2)
