"""The Numba CPU backend: what it generates, where it keeps buffers, and its cache.

Results are covered by the differential suite (every case runs on this backend too);
these tests check the properties behind the speed and the safety of compiled code.
"""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
import textwrap
import threading

import numba
import numpy as np
import pytest
from numba.core import event

import nbgraph as ng


def source_of(g: ng.GraphFunction) -> str:
    """The generated source of the graph function's only compiled signature."""
    (entry,) = g.specializations.values()
    return entry.run.__self__.source


def fill_squares(n):
    out = np.zeros(n)
    for i in range(n):
        out[i] = i * i
    return out


def pairwise(points):
    n = points.shape[0]
    out = np.empty((n, n))
    for i in range(n):
        for j in range(n):
            total = 0.0
            for k in range(points.shape[1]):
                diff = points[i, k] - points[j, k]
                total += diff * diff
            out[i, j] = np.sqrt(total)
    return out


def bump_input(x, times):
    for _ in range(times):
        x[0] += 1.0
    return x


def keep_old_value(n):
    a = np.zeros(n)
    old = a.copy()
    b = a
    a[0] = 5.0
    return old, b


def fused(a, b, c):
    return np.maximum(a * b + c, 0) * (a - 0.5 * c)


def transcendental(a, b, c):
    return np.tanh(a * b + c) * np.exp(-a)


def out_of_bounds(x, n):
    total = 0.0
    for i in range(n):
        total += x[i]
    return total


def int_division(a, b):
    return a // b


def printing_loop(n):
    for i in range(n):
        print("step", i, f"{i * 0.5:.1f}")
    print("done")
    return n


def unsupported_by_numba(x):
    return np.median(x, axis=0) + x.mean(axis=1, keepdims=True)


def f32_loop(x, n):
    for _ in range(n):
        x = x * 0.5 + 1.0
    return x


def test_filling_an_array_in_a_loop_updates_in_place():
    g = ng.function(fill_squares)
    np.testing.assert_array_equal(g(5), fill_squares(5))
    assert ".copy()" not in source_of(g)


def test_nested_loops_write_the_output_in_place():
    g = ng.function(pairwise)
    points = np.random.default_rng(0).random((7, 3))
    np.testing.assert_allclose(g(points), pairwise(points))
    assert ".copy()" not in source_of(g)


def test_a_caller_array_is_written_in_place_as_eagerly():
    g = ng.function(bump_input)
    x = np.zeros(3)
    out = g(x, 4)
    assert out is x and x[0] == 4.0
    assert ".copy()" not in source_of(g)


def test_aliases_and_copies_keep_eager_semantics():
    g = ng.function(keep_old_value)
    old, b = g(3)
    eager_old, eager_b = keep_old_value(3)
    np.testing.assert_array_equal(old, eager_old)
    np.testing.assert_array_equal(b, eager_b)


def test_elementwise_chain_is_one_loop():
    g = ng.function(fused)
    a, b, c = np.random.default_rng(1).random((3, 1000))
    np.testing.assert_allclose(g(a, b, c), fused(a, b, c), rtol=1e-15)
    src = source_of(g)
    # One kernel (its loops: contiguous and broadcasting), no temporaries, no call back
    # into Python; the graph function itself only calls it.
    main = src.split("def graph_function")[1]
    assert src.count("\ndef _kernel") == 1 and main.count("_kernel") == 1
    assert src.count("helpers.advise_huge") == 1 and "with objmode" not in src
    assert "helpers.maximum(" in src.split("for ")[1] and "for " not in main


def test_mismatched_shapes_raise_like_numpy():
    g = ng.function(fused)
    with pytest.raises(ValueError):
        fused(np.ones(3), np.ones(4), 1.0)
    with pytest.raises(ValueError):
        g(np.ones(3), np.ones(4), 1.0)


@pytest.mark.parametrize("shapes", [((3, 1), (4,), ()), ((2, 3), (2, 3), (3,))])
def test_broadcasting_and_strided_inputs(shapes):
    g = ng.function(fused)
    rng = np.random.default_rng(2)
    args = [rng.random(s) if s else 0.25 for s in shapes]
    np.testing.assert_allclose(g(*args), fused(*args))
    a = rng.random(20)[::2]  # not contiguous
    np.testing.assert_allclose(g(a, a, a), fused(a, a, a))


def centered_and_scaled(x, column, row):
    return (x - column) * row + 1.0


@pytest.mark.parametrize("n0, n1", [(5000, 3), (40, 130), (3, 1), (1, 7), (0, 4), (4, 0)])
def test_2d_broadcasting_gives_numpys_values_exactly(n0, n1):
    """C-contiguous operands are read in place at their own offsets (a step of 0 along
    a broadcast axis); Fortran-ordered ones and rows with gaps take the general loops."""
    rng = np.random.default_rng(n0 + n1)
    x = rng.standard_normal((n0, n1))
    g = ng.function(centered_and_scaled)
    for args in [
        (x, rng.standard_normal((n0, 1)), rng.standard_normal(n1)),
        (x, rng.standard_normal((1, n1)), rng.standard_normal((n0, 1))),
        (np.asfortranarray(x), 2.0, rng.standard_normal((1, 1))),
        (np.pad(x, 1)[1:-1, 1:-1], rng.standard_normal((n0, 1)), 0.5),
    ]:
        eager, graph = centered_and_scaled(*args), g(*args)
        assert (eager.dtype, eager.shape) == (graph.dtype, graph.shape)
        assert np.array_equal(eager, graph)


def test_transcendental_groups_give_numpys_values():
    g = ng.function(transcendental)
    for size in (10, 50_000):  # per element, and by NumPy blocks
        a, b, c = np.random.default_rng(3).random((3, size))
        np.testing.assert_allclose(g(a, b, c), transcendental(a, b, c), rtol=1e-14)


def test_out_of_bounds_raises_index_error():
    g = ng.function(out_of_bounds)
    assert g(np.ones(3), 3) == 3.0
    with pytest.raises(IndexError):
        g(np.ones(3), 4)


def test_integer_division_by_zero_raises():
    g = ng.function(int_division)
    assert g(7, 2) == 3
    with pytest.raises(ZeroDivisionError):
        g(7, 0)


def test_print_in_compiled_loop_keeps_eager_text_and_order(capsys):
    g = ng.function(printing_loop)
    printing_loop(3)
    eager = capsys.readouterr().out
    g(3)
    assert capsys.readouterr().out == eager == "step 0 0.0\nstep 1 0.5\nstep 2 1.0\ndone\n"


def test_operations_numba_lacks_call_back_into_numpy(recwarn):
    g = ng.function(unsupported_by_numba)
    x = np.arange(6.0).reshape(2, 3)
    np.testing.assert_array_equal(g(x), unsupported_by_numba(x))
    src = source_of(g)
    assert src.count("with objmode") == 1  # np.median(axis=); mean(axis=) is native
    assert not [w for w in recwarn if issubclass(w.category, ng.NbgraphPerformanceWarning)]
    (reason,) = g.specializations[next(iter(g.specializations))].run.__self__.python_nodes.values()
    # Plain words instead of Numba's typing error: the operation, its operand types, line.
    assert reason.startswith("Numba does not support np.median on (float64 2-d array)")
    assert f"line {inspect.getsourcelines(unsupported_by_numba)[1] + 1} of {__file__}" in reason


def medians_of_three(x, y, z):
    print("x", x)
    print("y", y)
    print("z", z)
    return np.median(x, axis=0) + np.median(y, axis=0) + np.median(z, axis=0)


class _GraphCompiles(event.Listener):
    """Counts Numba's compiles of a graph's own function (each try of the whole graph) on
    this thread (the compile thread may meanwhile compile a graph of an earlier test)."""

    def __init__(self) -> None:
        self.count = 0
        self.thread = threading.get_ident()

    def on_start(self, ev: event.Event) -> None:
        if (
            ev.data["dispatcher"].py_func.__name__ == "graph_function"
            and threading.get_ident() == self.thread
        ):
            self.count += 1

    def on_end(self, ev: event.Event) -> None:
        pass


def test_repeated_calls_numba_lacks_go_to_python_after_one_try(capsys, monkeypatch):
    """Numba failing on one np.median(axis=) takes the others like it to Python too (one
    failed try, not one per call), and call sites with the same types share one compiled
    objmode function (the prints one, the medians another)."""
    x, y, z = np.random.default_rng(7).random((3, 4, 3))
    want = medians_of_three(x, y, z)
    eager = capsys.readouterr().out
    monkeypatch.setattr(ng.config, "background_compile", False)  # compile on this call
    g = ng.function(medians_of_three)
    tries = _GraphCompiles()
    with event.install_listener("numba:compile", tries):
        got = g(x, y, z)
    np.testing.assert_array_equal(got, want)
    assert capsys.readouterr().out == eager
    assert tries.count == 3  # a look in the disk cache, the failed try, the compile
    program = g.specializations[next(iter(g.specializations))].run.__self__
    assert len(program.python_nodes) == 3
    assert source_of(g).count("with objmode") == 2


def broadcast_rows(x, v):
    return np.sqrt(np.sum(x * x, axis=1)) + (x * v)[:, 0], np.exp(x - v)


def test_parallel_option_uses_prange_with_the_same_results():
    g = ng.function(fused, parallel=True)
    a, b, c = np.random.default_rng(4).random((3, 5000))
    np.testing.assert_allclose(g(a, b, c), fused(a, b, c), rtol=1e-15)
    assert "prange(" in source_of(g)
    # Rows, broadcasting and fused reductions compile natively in parallel kernels too.
    g = ng.function(broadcast_rows, parallel=True)
    x, v = np.random.default_rng(5).random((40, 30)), np.arange(30.0)
    for graph, eager in zip(g(x, v), broadcast_rows(x, v)):
        np.testing.assert_allclose(graph, eager, rtol=1e-15)  # libm's exp: ulps apart
    assert "objmode" not in source_of(g).split("def graph_function")[1]
    assert "prange(" in source_of(g)


def statistics(x, y):
    d = x - y
    return (
        np.sum(d * d, axis=1),
        d.mean(axis=0),
        np.var(x, axis=-1),
        np.sum(x),
        np.exp(d) * 0.5 + y,
    )


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="one thread on this machine")
def test_parallel_results_do_not_depend_on_the_number_of_threads(monkeypatch):
    """The same bits with 1 and 2 threads, and reductions eager's bits (NumPy's pairwise
    summation, in float32 too): a result never depends on the machine it ran on."""
    monkeypatch.setattr(ng.config, "background_compile", False)  # every call compiled
    g = ng.function(statistics, parallel=True)
    rng = np.random.default_rng(11)
    x, y = (rng.standard_normal((300, 700)).astype(np.float32) * 3 for _ in range(2))
    runs = []
    for threads in (1, 2, 1):
        numba.set_num_threads(threads)
        try:
            runs.append(g(x, y))
        finally:
            numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert "prange(" in source_of(g)
    for one, two, again in zip(*runs):
        assert one.tobytes() == two.tobytes() == again.tobytes()
    for graph, eager in zip(runs[0][:4], statistics(x, y)[:4]):
        assert graph.dtype == eager.dtype
        assert graph.tobytes() == eager.tobytes()


def test_float32_stays_float32_in_compiled_loops():
    g = ng.function(f32_loop)
    x = np.ones(4, dtype=np.float32)
    out = g(x, 3)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out, f32_loop(x, 3))


_CHILD = textwrap.dedent("""
    import json, sys, numpy as np
    sys.path.insert(0, {tests!r})
    import nbgraph as ng
    from backend.test_numba_cpu import pairwise
    g = ng.function(pairwise)
    g(np.ones((3, 2)))
    (entry,) = g.specializations.values()
    stats = entry.run.__self__.dispatcher.stats
    print(json.dumps({{"hits": sum(stats.cache_hits.values()),
                       "misses": sum(stats.cache_misses.values())}}))
""")


def test_a_new_process_loads_the_compiled_graph_from_disk(tmp_path):
    env = {**os.environ, "NBGRAPH_CACHE_DIR": str(tmp_path)}
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _CHILD.format(tests=tests)
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(2)
    ]
    assert runs[0]["hits"] == 0 and runs[0]["misses"] >= 1  # (a look into the cache missed)
    assert runs[1] == {"hits": 1, "misses": 0}


def test_the_shared_numba_cache_is_forgotten_when_a_backend_source_changes(tmp_path):
    """Numba keys a cached function by its own file; the backends' shared functions link
    in helpers of other files, so a change to any backend source drops them all."""
    from nbgraph.backend import generated

    cache = tmp_path / "numba_cpu" / "__pycache__"
    cache.mkdir(parents=True)
    stale = [
        cache / "array_reductions.rows-214.py311.nbi",
        cache / "array_reductions.rows-214.py311.1.nbc",
    ]
    for path in stale:
        path.write_bytes(b"old machine code")
    (cache / "array_reductions.cpython-311.pyc").write_bytes(b"bytecode")
    (cache / "nbgraph-backend.digest").write_text("the digest of other sources")
    generated.forget_stale_shared_code(tmp_path)
    assert not any(path.exists() for path in stale)
    assert (cache / "array_reductions.cpython-311.pyc").exists()
    digest = (cache / "nbgraph-backend.digest").read_text()
    assert digest == generated._backend_digest()
    # Unchanged sources: what Numba caches from now on stays.
    stale[0].write_bytes(b"new machine code")
    generated.forget_stale_shared_code(tmp_path)
    assert stale[0].read_bytes() == b"new machine code"


def fresh_arrays(x, n):
    """Arrays made from nothing, of every creator (their values matter too)."""
    return (
        np.zeros_like(x),
        np.ones_like(x, dtype=np.float32),
        np.zeros((n, 3), np.int64),
        np.ones(n),
        np.empty_like(x).shape,
        np.empty((n, 2)).dtype == np.float64,
    )


def test_new_arrays_are_advised_to_huge_pages_before_anything_touches_them():
    """``np.zeros``/``np.ones``/``np.empty`` (and ``_like``) allocate empty and give the
    huge-page advice before filling: Numba's own ``zeros`` writes every page first and
    pays a page fault for each."""
    g = ng.function(fresh_arrays, backend="cpu")
    x = np.arange(6.0).reshape(2, 3)
    for e, r in zip(fresh_arrays(x, 4), g(x, 4)):
        if isinstance(e, np.ndarray):
            assert e.dtype == r.dtype
            np.testing.assert_array_equal(e, r)
        else:
            assert e == r
    src = source_of(g).split("def graph_function")[1]
    assert src.count("helpers.advise_huge(np.empty") == 6
    assert src.count("helpers.filled(") == 4 and "np.zeros" not in src and "np.ones" not in src
