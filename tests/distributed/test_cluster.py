"""Graph functions on Dask arrays, run by a real 2-process dask.distributed cluster:
the results of the plain Python functions run eagerly on the whole arrays, and errors at
the user's line."""

import inspect
import os
import traceback

import dask_functions as f
import numpy as np
import pytest

import nbgraph as ng

da = pytest.importorskip("dask.array")

rng = np.random.default_rng(0)
X = rng.uniform(0.5, 40.0, size=(203, 4))
DX = da.from_array(X, chunks=(50, 4))


def test_elementwise_runs_blockwise_on_workers(client):
    y = f.scaled(DX, 1.5)
    assert isinstance(y, da.Array) and y.chunks == DX.chunks
    np.testing.assert_array_equal(y.compute(), f.scaled.eager(X, 1.5))


def test_elementwise_chunked_along_both_axes(client):
    dx = da.from_array(X, chunks=(60, 2))
    dy = da.from_array(X[0], chunks=2)  # broadcast along the rows
    np.testing.assert_array_equal(f.scaled(dx, dy).compute(), f.scaled.eager(X, X[0]))


def test_data_dependent_loop_per_row(client):
    y = f.halvings(DX)
    assert y.chunks == (DX.chunks[0],)
    np.testing.assert_array_equal(y.compute(), f.halvings.eager(X))


def test_data_dependent_loop_per_element(client):
    x = np.arange(1, 2001, dtype=np.int64)
    y = f.collatz_steps(da.from_array(x, chunks=300)).compute()
    np.testing.assert_array_equal(y, f.collatz_steps.eager(x))
    assert y[26] == 111  # 27 takes 111 steps


def test_helper_function_and_numpy_argument_passed_whole(client):
    w = rng.normal(size=(4, 3))
    y = f.dense(DX, w)
    # the rows follow the chunks; the width comes from w, known once computed
    assert y.chunks[0] == DX.chunks[0] and np.isnan(y.shape[1])
    np.testing.assert_allclose(y.compute(), f.dense.eager(X, w), rtol=1e-12)


def test_workers_share_the_compile_cache_folder(client):
    f.halvings(DX).compute()
    folders = set(client.run(lambda: os.environ["NBGRAPH_CACHE_DIR"]).values())
    assert folders == {os.environ["NBGRAPH_CACHE_DIR"]}
    cached = [name for _, _, names in os.walk(os.environ["NBGRAPH_CACHE_DIR"]) for name in names]
    assert any(name.endswith(".nbi") for name in cached)  # Numba's index of machine code


def test_error_on_a_worker_reaches_the_client_at_the_users_line(client):
    x = np.arange(200) % 7  # 5 and 6 are past the end of the table
    table = np.linspace(0.0, 1.0, 5)
    with pytest.raises(IndexError) as info:
        f.lookup(da.from_array(x, chunks=50), table).compute()
    exc = info.value
    line = next(
        i
        for i, text in enumerate(inspect.getsource(f).splitlines(), 1)
        if "# the failing line" in text
    )
    last = traceback.extract_tb(exc.__traceback__)[-1]
    assert (os.path.basename(last.filename), last.lineno) == ("dask_functions.py", line)
    assert "table[x[i]]" in "".join(traceback.format_exception(exc))
    notes = "\n".join(getattr(exc, "__notes__", []))
    assert "in graph 'lookup'" in notes and "operands: %1 = float64[5]" in notes
    assert "of the loop at line" in notes and "one block" in notes


def test_reduction_over_a_chunked_axis_is_refused_at_its_line(client):
    with pytest.raises(ng.distributed.BlockwiseError) as info:
        f.centered(DX)
    message = str(info.value)
    assert "centered needs the whole of axis 0 of 'x'" in message
    assert "split into 5 chunks" in message and "`x.mean(axis=0)`" in message
    assert "rechunk" in message and "map_reduce" in message
    last = traceback.extract_tb(info.value.__traceback__)[-1]
    assert last.filename.endswith("dask_functions.py") and "x.mean" in last.line
    # one chunk along the reduced axis: fine
    y = f.centered(DX.rechunk({0: -1, 1: 2}))
    np.testing.assert_allclose(y.compute(), f.centered.eager(X))


def test_stencil_over_rows_is_refused(client):
    with pytest.raises(ValueError, match=r"needs the whole of axis 0"):
        f.differences(DX[:, 0])


def test_map_reduce_opts_into_a_reduction(client):
    total = ng.distributed.map_reduce(f.column_sums, f.add_up, DX, split_every=2)
    np.testing.assert_allclose(total.compute(), X.sum(axis=0), rtol=1e-12)


def test_graph_function_goes_through_client_submit(client):
    f.halvings(X)  # traced here; the worker gets the graph
    future = client.submit(f.halvings, X)
    np.testing.assert_array_equal(future.result(), f.halvings.eager(X))


def test_compare_reports_distributed_next_to_single_machine(client):
    result = ng.compare(f.halvings, DX, rounds=2)
    assert result.distributed is not None and result.distributed.agreement.agree
    assert "2 workers" in result.distributed.where and "5 blocks" in result.distributed.where
    text, html = str(result), result._repr_html_()
    assert "on Dask: median" in text and "Dask vs one machine" in text
    assert "graph on Dask" in html
    numbers = result.as_dict()["distributed"]
    assert numbers["median_s"] > 0 and numbers["agreement"]["agree"]
