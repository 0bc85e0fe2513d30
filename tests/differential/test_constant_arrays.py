"""Arrays made from constants while tracing, and names that loops point at other arrays.

``x = np.zeros(4)`` with a constant shape is a NumPy array while the function is traced,
not a graph value: reads and writes of numbers known then happen during the trace.
Graph mode must still give eager's result: a graph read of such an array sees it as it
was at that point (a later write does not leak back), it can be read at an index known
only when the graph runs, and a write that several names of it would see eagerly either
reaches them all or is refused, never lost or made once while tracing. The same holds
for graph arrays that a loop writes through a name and then points at another array
(a view, another name's array, a swap with an array another name keeps).
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import backend, check, check_writes

import nbgraph as ng
from nbgraph.errors.exceptions import StagingError

# --- agree with eager ---------------------------------------------------------------------


def read_at_graph_index(n):
    coeffs = np.array([1.0, 2.0, 4.0, 8.0])
    s = 0.0
    for i in range(n):
        s += coeffs[i % 4]
    return s


def read_then_written(x):
    c = np.ones(3)
    y = x + c
    c[0] = 5.0
    return y, c


def summed_in_loop_then_written(x, n):
    c = np.ones(3)
    s = 0.0
    for _ in range(n):
        s += (x * c).sum()
    c[0] = 5.0
    return s, c


def one_name_written_in_loop(n):
    x = np.zeros(4)
    for i in range(n):
        x[i % 4] = i
    return x


def one_name_written_in_branch(c):
    x = np.zeros(4)
    if c > 0:
        x += 1.0
        x[0] = c
    return x


def updated_with_graph_value(t):
    b = np.arange(4.0)
    b += t
    b[0] = t
    return b


def fresh_each_iteration(n):
    s = 0.0
    for _ in range(n):
        t = np.zeros(3)
        t[0] = 1.0
        t += 2.0
        s += t.sum()
    return s


def swapped_buffers(x, n):
    a = x.copy()
    b = np.zeros_like(x)
    for _ in range(n):
        b[1:-1] = (a[:-2] + a[2:]) / 2
        a, b = b, a
    return a, b


@pytest.mark.parametrize(
    "fn, args",
    [
        (read_at_graph_index, (0,)),
        (read_at_graph_index, (6,)),
        (read_then_written, (np.zeros(3),)),
        (summed_in_loop_then_written, (np.ones(3), 2)),
        (one_name_written_in_loop, (3,)),
        (one_name_written_in_branch, (2.5,)),
        (one_name_written_in_branch, (-1.0,)),
        (updated_with_graph_value, (2.0,)),
        (fresh_each_iteration, (3,)),
        (swapped_buffers, (np.arange(6.0), 3)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_agrees_with_eager(fn, args):
    check_writes(fn, *args)


# --- refused: the write would not reach every name ----------------------------------------


def second_name_written_in_loop(n):
    x = np.zeros(4)
    v = x
    for i in range(n):
        v[i] = 1.0
    return x


def row_written_in_loop(n):
    x = np.zeros((2, 4))
    row = x[0]
    for i in range(n):
        row[i] += 1.0
    return x


def second_name_written_in_branch(c):
    x = np.zeros(4)
    v = x
    if c > 0:
        v[0] = 1.0
    return x


def one_of_two_constants_written(c):
    x = np.zeros(4)
    y = np.ones(4)
    v = x if c > 0 else y
    v[0] = 7.0
    return x, y


def view_updated_in_place_in_loop(n):
    b = np.arange(4.0)
    for _ in range(n):
        v = b[1:]
        v += 1.0
    return b


def view_written_at_graph_index(i):
    b = np.arange(4.0)
    v = b[1:]
    v[i] = 7.0
    return b


def written_then_pointed_at_a_view(x, n):
    v = x[:2]
    for _ in range(n):
        v[0] += 1
        v = x[1:3]
    return x


def written_then_pointed_at_another_array(n, z):
    x = np.zeros_like(z)
    y = np.ones_like(z)
    v = x
    for i in range(n):
        v[i] = 5.0
        v = y
    return x, y


def swapped_while_another_name_keeps_one(x, n):
    a = x.copy()
    b = np.zeros_like(x)
    c = a
    for _ in range(n):
        b[1:-1] = (a[:-2] + a[2:]) / 2
        a, b = b, a
    return c


@pytest.mark.parametrize(
    "fn, args, words",
    [
        (second_name_written_in_loop, (3,), "that 'x' also names"),
        (row_written_in_loop, (3,), "that 'x' also names"),
        (second_name_written_in_branch, (1,), "that 'x' also names"),
        (one_of_two_constants_written, (1,), "on one path of the if"),
        (view_updated_in_place_in_loop, (2,), r"several variables name \('b', 'v'\)"),
        (view_written_at_graph_index, (1,), r"several variables name \('b', 'v'\)"),
        (written_then_pointed_at_a_view, (np.zeros(4), 3), "assigned a view of another"),
        (written_then_pointed_at_another_array, (3, np.arange(4.0)), "another name names"),
        (swapped_while_another_name_keeps_one, (np.arange(6.0), 3), "'c' also names"),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_refused_where_a_write_would_miss_a_name(fn, args, words):
    with pytest.raises(StagingError, match=words):
        ng.function(fn, backend=backend())(*args)


def test_the_refusal_names_the_line_and_the_way_out():
    with pytest.raises(StagingError) as caught:
        ng.function(second_name_written_in_loop, backend=backend())(3)
    message = str(caught.value)
    assert ".copy()" in message and ".eager(...)" in message
    assert f"line {second_name_written_in_loop.__code__.co_firstlineno + 3}" in message


def test_eager_value_of_an_unaliased_constant_is_unchanged_by_tracing():
    """Tracing twice (two argument types) must not apply a constant write twice."""
    graph = ng.function(fresh_each_iteration, backend=backend())
    assert graph(3) == fresh_each_iteration(3)
    check(fresh_each_iteration, np.int32(2))
