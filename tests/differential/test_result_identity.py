"""A result is the argument object itself exactly where it is eagerly.

``return x`` and ``np.asarray(x)`` give the caller's array back; ``x[:, :]`` and
``x.reshape(x.shape)`` give a new view of it (setting its ``shape`` leaves ``x`` alone).
Numba hands back the argument object for any array that looks like it, so the CPU
backend makes such results new views again; the CUDA backend hands back a parameter
returned as it came as the caller's object (other results are new host arrays).
"""

from __future__ import annotations

import numpy as np
import pytest
from harness import backend, check

import nbgraph as ng


def same(x):
    return x


def as_array(x):
    return np.asarray(x)


def picked(x, c):
    return x if c > 0 else x * 2


def full_slice(x):
    return x[:, :]


def same_shape(x):
    return x.reshape(x.shape)


def ellipsis(x):
    return x[...]


def transposed_twice(x):
    return x.T.T


@pytest.mark.parametrize(
    "fn", [same, as_array, picked, full_slice, same_shape, ellipsis, transposed_twice]
)
def test_a_result_is_the_argument_where_it_is_eagerly(fn):
    if backend() == "cuda" and fn in (as_array, picked):
        pytest.skip("the CUDA backend hands back what the device computed as new arrays")
    x = np.eye(3)
    args = (x,) if fn is not picked else (x, np.int64(1))
    graph = ng.function(fn, backend=backend())
    expected = fn(*args) is x
    for _ in range(2):  # the call that traced, and one from the trace cache
        result = graph(*args)
        np.testing.assert_array_equal(result, fn(*args))
        assert (result is x) == expected


def ellipses(x, v):
    return x[...], x[0, ...], x[..., 1], x[1:, ..., None], v[...], v[0, ...]


def test_ellipsis_indexing_as_eagerly():
    check(ellipses, np.arange(12.0).reshape(3, 4), np.arange(3))


# --- containers of the arguments ------------------------------------------------------


def whole(c):
    return c


def in_a_tuple(c, y):
    return (c, y * 2)


def copied(c):
    return list(c) if isinstance(c, list) else dict(c) if isinstance(c, dict) else tuple(c)


def inner(c):
    return c[0] if isinstance(c, list | tuple) else c["inner"]


def by_name(*, c):
    return c


CONTAINERS = {
    "list": lambda: [np.arange(3.0), 2.0, [np.ones(2)]],
    "tuple": lambda: (np.arange(3.0), 2, (np.ones(2),)),
    "dict": lambda: {"a": np.arange(3.0), "inner": [1.0, np.ones(2)]},
    "nested": lambda: [[np.arange(3.0)], {"b": 1}],
}


@pytest.mark.parametrize("fn", [whole, in_a_tuple, copied, inner, by_name])
@pytest.mark.parametrize("kind", list(CONTAINERS))
def test_a_container_argument_comes_back_as_the_callers_object(fn, kind):
    """A tuple, list or dict argument returned as it came is the caller's object, at
    every depth and inside a new result structure; a copy of it is a new object."""
    graph = ng.function(fn, backend=backend())
    for _ in range(2):  # the call that traced, and one from the trace cache
        given = CONTAINERS[kind]()
        args, kwargs = (
            ((), {"c": given}) if fn is by_name else ((given, 1.5)[: 1 + (fn is in_a_tuple)], {})
        )
        result, expected = graph(*args, **kwargs), fn(*args, **kwargs)
        got, want = (result[0], expected[0]) if fn is in_a_tuple else (result, expected)
        assert type(got) is type(want)
        originals = {id(c) for c in containers(given)}
        if id(want) in originals:
            assert got is want
        else:
            assert id(got) not in originals


def containers(value):
    """value and the tuples, lists and dicts inside it."""
    if isinstance(value, tuple | list | dict):
        yield value
        for item in value.values() if isinstance(value, dict) else value:
            yield from containers(item)
