"""Python semantics that graph mode used to miss on programs written for another
AutoGraph-style system: in-place operators on container items, methods of local
classes reading loop variables, constants first assigned in a loop, and namedtuple
classes made inside the function.

* ``y = [b]; y[0] += 1`` applies the item's own ``+=``: the array ``b`` (an argument)
  changes in place, as for ``t = b; t += 1``; an array's own item is updated as before.
* A method of a class defined in the function reads the function's current value of a
  variable a loop or branch changes, as a nested ``def`` does.
* ``v = np.zeros(3)`` inside a loop is a constant while tracing; after the loop it has
  its value if the loop ran (before, graph mode said it had none).
* ``collections.namedtuple`` made in the function belongs to the user's module.
"""

from __future__ import annotations

import collections

import numpy as np
import pytest
from harness import backend, check, check_writes

import nbgraph as ng


def item_of_list(b):
    y = [b]
    y[0] += 1
    return y


def item_of_dict(b):
    y = {"b": b, "n": 2}
    y["b"] *= 3
    y["n"] -= 1
    return y


def item_of_list_in_loop(b, n):
    y = [b]
    for _ in range(n):
        y[0] -= 1
    return y


def item_of_nested_list(b):
    y = [[b], [1]]
    y[0][0] += 2
    y[1][0] += 5
    return y


def array_items(x):
    x[0] += 1.5
    x[1:] *= 2
    return x


@pytest.mark.parametrize(
    "fn, args",
    [
        (item_of_list, (np.array([3, 4]),)),
        (item_of_list, (np.array(3),)),
        (item_of_dict, (np.array([1.0, 2.0]),)),
        (item_of_dict, (np.array(2.0),)),
        (item_of_list_in_loop, (np.array([5.0, 6.0]), 3)),
        (item_of_list_in_loop, (np.array([5.0, 6.0]), 0)),
        (item_of_nested_list, (np.array([1, 2]),)),
        (array_items, (np.array([1.0, 2.0, 3.0]),)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_in_place_operators_on_items(fn, args):
    check_writes(fn, *args)


def method_reads_loop_variable(n):
    i = 0

    class Reader:
        def __call__(self):
            return i

    read = Reader()
    s = 0
    while i < n:
        s = s * 10 + read() + 1
        i += 1
    return s


def method_reads_branch_variable(x):
    scale = 1.0

    class Scaler:
        def apply(self, v):
            return v * scale

    scaler = Scaler()
    if x.sum() > 0:
        scale = 3.0
    return scaler.apply(x)


@pytest.mark.parametrize(
    "fn, args",
    [
        (method_reads_loop_variable, (np.int64(3),)),
        (method_reads_loop_variable, (np.int64(0),)),
        (method_reads_branch_variable, (np.array([1.0, 2.0]),)),
        (method_reads_branch_variable, (np.array([-1.0, -2.0]),)),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_methods_of_local_classes_see_variables_change(fn, args):
    check(fn, *args)


def make_pair(x):
    Pair = collections.namedtuple("Pair", ("a", "b"))
    return Pair(a=1, b=x * 2)


def test_namedtuple_made_inside_belongs_to_the_users_module():
    x = np.array([1.0, 2.0])
    graph = ng.function(make_pair, backend=backend())
    for _ in range(2):  # (each call makes a class of its own, eagerly too)
        result, expected = graph(x), make_pair(x)
        assert type(result).__module__ == type(expected).__module__ == __name__
        assert type(result).__name__ == "Pair" and result._fields == expected._fields
        assert result.a == expected.a
        np.testing.assert_array_equal(result.b, expected.b)


def doubled_through_a_changing_dict(b):
    y = {"b": b}
    while y["b"] <= 10:
        y["a"] = y["b"] + 1
        y["b"] *= 2
    return y


def test_in_place_write_through_a_changing_container_in_a_loop_is_refused():
    # (it traced the loop again for ever: each trace met the item as a new array)
    with pytest.raises(ng.StagingError, match=r"dict 'y' gets different keys") as err:
        ng.function(doubled_through_a_changing_dict, backend=backend())(np.array(10))
    assert err.value.loc is not None and err.value.loc.lineno > 0
