"""An array held in a list or dict that a graph loop or ``if`` changes.

When another item changes (``y[0] += 1`` on a number), the loop carries the container's
items; an array item written in place (``y[1] *= 2``) is still the array the container
held: eagerly the writes reach it (an argument: the caller's array) and every other name
for it sees them, and after the statement the item is that same array object.
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import backend, check_writes

import nbgraph as ng
from nbgraph.errors.exceptions import StagingError


def list_while(a, b):
    y = [a, b]
    while y[1] <= 10:
        y[0] += 1
        y[1] *= 2
    return y


def list_for(n, b):
    y = [0.5, b]
    for _ in range(n):
        y[0] = y[0] * 2
        y[1] += 1
    return y[0], b


def dict_items(n, b):
    d = {"count": 0, "values": b}
    for i in range(n):
        d["count"] += 1
        d["values"][i % b.shape[0]] = d["count"]
    return d


def seen_by_its_own_name(n, b):
    y = [0, b]
    total = 0.0
    for _ in range(n):
        y[0] += 1
        y[1] += 1
        total += b.sum()  # the write through y[1] is seen through b
    return total, y[0]


def local_array(n, x):
    b = np.zeros_like(x)
    y = [0, b]
    for i in range(n):
        y[0] += 1
        y[1][i] = x[i] * y[0]
    return b, y[0]


def replaced_not_written(n, b):
    y = [0, b]
    for _ in range(n):
        y[0] += 1
        y[1] = y[1] * 2  # a new array each time: b stays as it was
    return y, b


def in_a_branch(c, b):
    d = {"count": 0, "values": b}
    if c > 0:
        d["values"][0] = 5.0
        d["count"] = 1
    return d, b


def in_both_branches(c, b):
    y = [0, b]
    if c > 0:
        y[1] *= 2
        y[0] = 1
    else:
        y[1][1:] = -1.0
    return y, b


@pytest.mark.parametrize(
    "fn, args",
    [
        (list_while, (0, np.array(3))),
        (list_while, (0, np.array(20))),  # no iteration
        (list_for, (3, np.arange(3.0))),
        (list_for, (0, np.arange(3.0))),
        (dict_items, (5, np.zeros(3))),
        (seen_by_its_own_name, (3, np.ones(4))),
        (local_array, (3, np.arange(4.0))),
        (replaced_not_written, (3, np.ones(2))),
        (in_a_branch, (1, np.ones(2))),
        (in_a_branch, (0, np.ones(2))),
        (in_both_branches, (1, np.ones(3))),
        (in_both_branches, (0, np.ones(3))),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_array_items_of_carried_containers(fn, args):
    check_writes(fn, *args)


def test_the_item_after_the_statement_is_the_array_itself():
    b = np.array(3)
    y = ng.function(list_while, backend=backend())(0, b)
    assert y[1] is b and b == 12
    b = np.ones(2)
    y, _ = ng.function(in_both_branches, backend=backend())(np.int64(1), b)
    assert y[1] is b
    np.testing.assert_array_equal(b, [2.0, 2.0])


def written_then_replaced(n, b):
    y = [0, b]
    for _ in range(n):
        y[0] += 1
        y[1] *= 2
        y[1] = y[1] + 1
    return y


def test_a_write_then_another_array_in_the_item_is_refused():
    with pytest.raises(StagingError, match="also puts another array in that item"):
        ng.function(written_then_replaced, backend=backend())(3, np.ones(2))
