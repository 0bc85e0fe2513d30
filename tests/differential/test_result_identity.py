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
