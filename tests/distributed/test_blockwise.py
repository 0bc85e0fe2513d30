"""Which functions run block by block, checked on the graph before anything runs (Dask's
local threaded scheduler; the cluster tests are in test_cluster.py)."""

import dask_functions as f
import numpy as np
import pytest

import nbgraph as ng

da = pytest.importorskip("dask.array")

X = np.random.default_rng(1).uniform(1.0, 9.0, size=(40, 3))


@ng.function
def running_total(x):
    out = np.zeros(x.shape[0])
    total = 0.0
    for i in range(x.shape[0]):
        total += x[i]
        out[i] = total  # carries row i-1 into row i
    return out


@ng.function
def row_lists(x):
    rows = []
    for row in x:
        rows.append(row.max() - row.min())
    return np.array(rows)


@ng.function
def by_length(x):
    return x / len(x)


@ng.function
def transposed_first(x):
    return x.T[0] + np.where(x[:, 1] > 5.0, 1.0, 0.0)


@ng.function
def total(x):
    return x.sum()


@pytest.mark.parametrize(
    "fn, x",
    [
        (running_total, X[:, 0]),
        (f.differences, X[:, 0]),
        (by_length, X),
        (f.centered, X),
        (f.column_sums, X),
    ],
)
def test_functions_that_need_the_whole_axis_are_refused(fn, x):
    with pytest.raises(ng.distributed.BlockwiseError, match="needs the whole of axis 0"):
        fn(da.from_array(x, chunks=10))


@pytest.mark.parametrize("fn", [row_lists, transposed_first, f.halvings])
def test_row_wise_functions_run_block_by_block(fn):
    np.testing.assert_array_equal(fn(da.from_array(X, chunks=(7, 3))).compute(), fn.eager(X))


def test_reducing_an_axis_that_is_not_split_is_fine():
    y = f.column_sums(da.from_array(X, chunks=(40, 1)))
    assert y.chunks == ((1, 1, 1),)
    np.testing.assert_array_equal(y.compute(), X.sum(axis=0))


def test_a_scalar_result_asks_for_map_reduce():
    with pytest.raises(ng.distributed.BlockwiseError, match="map_reduce"):
        total(da.from_array(X, chunks=10))


def test_map_reduce_with_plain_functions_and_one_block():
    x = da.from_array(X, chunks=(40, 3))
    out = ng.distributed.map_reduce(lambda b: b.max(axis=0), lambda p: p.max(axis=0), x)
    np.testing.assert_array_equal(out.compute(), X.max(axis=0))
