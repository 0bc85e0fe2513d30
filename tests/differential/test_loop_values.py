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
