"""Bad input never crashes, hangs or silently corrupts: each case gets the error eager
code gives, a clear error naming the argument or line, or a correct fallback."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.backend.numba_cuda import DeviceUnsupportedError
from nbgraph.errors.exceptions import ConversionError, NbgraphPerformanceWarning

BACKENDS = ["interpret", "cpu", "cuda"]


def plus_one(x):
    return x + 1


def outcome(fn, *args):
    """(exception type or None, value) of a call."""
    try:
        return None, fn(*args)
    except Exception as exc:
        return type(exc), None


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "value",
    [object(), "text", {"a": 1.0}, None, [np.ones(2), np.ones(3)], b"bytes"],
    ids=["object", "str", "dict", "None", "ragged", "bytes"],
)
def test_arguments_that_are_not_numbers_fail_as_eagerly(backend, value):
    eager, _ = outcome(plus_one, value)
    graph, _ = outcome(ng.function(plus_one, backend=backend), value)
    assert eager is not None and graph is eager


@pytest.mark.parametrize(
    "array",
    [
        np.array([1, "a"], dtype=object),
        np.array(["2020-01-01"], dtype="datetime64[D]"),
        np.ones(3, dtype=np.float16),
        np.arange(3.0, dtype=">f8"),
    ],
    ids=["object", "datetime64", "float16", "big-endian"],
)
def test_arrays_numba_cannot_compile_run_correctly_and_say_why(array):
    eager_error, expected = outcome(plus_one, array)
    with pytest.warns(NbgraphPerformanceWarning, match="its argument 1 is"):
        graph_error, got = outcome(ng.function(plus_one, backend="cpu"), array)
    assert graph_error is eager_error
    if expected is not None:
        np.testing.assert_array_equal(got, expected)
        assert got.dtype == expected.dtype


@pytest.mark.parametrize(
    "array",
    [
        np.array(["2020-01-01"], dtype="datetime64[D]"),
        np.arange(3.0, dtype=">f8"),
        np.ones(2, complex),
    ],
    ids=["datetime64", "big-endian", "complex"],
)
def test_the_gpu_refuses_arrays_it_cannot_take_before_running(array):
    """Named by the argument, or by the operation and line that cannot take it."""
    with pytest.raises(DeviceUnsupportedError, match=r"the CUDA backend cannot (take|run)"):
        ng.function(plus_one, backend="cuda")(array)


def zeros_plus(x, n):
    return np.zeros(n) + x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n, error", [(10**13, MemoryError), (-5, ValueError)])
def test_impossible_allocations_raise_what_numpy_raises(backend, n, error):
    f = ng.function(zeros_plus, backend=backend)
    with pytest.raises(error):
        f(1.0, n)
    assert f(1.0, 2).tolist() == [1.0, 1.0]  # and the function carries on


def doubled(x):
    return x * 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_0d_and_1d_arguments_keep_their_kinds(backend):
    f = ng.function(doubled, backend=backend)
    for value in (np.float64(2.0), np.array(2.0), np.array([2.0]), 2.0):
        result = f(value)
        assert type(result) is type(doubled(value))
        assert np.shape(result) == np.shape(doubled(value))
    assert f.trace_count == 4  # one graph per kind, none confused with another


def countdown(n):
    return 0 if n <= 0 else countdown(n - 1)


def numbers(n):
    yield from range(n)


def sums_a_generator(n):
    return sum(numbers(n))


def sums_its_own_generator(n):
    def squares(k):
        for i in range(k):
            yield i * i

    return sum(squares(n))


def test_recursion_and_generators_are_refused_at_their_line():
    with pytest.raises(ConversionError, match="recursive call to countdown"):
        ng.function(countdown)(3)
    with pytest.raises(ConversionError, match="numbers is a generator function"):
        ng.function(sums_a_generator)(3)
    # defined inside the graph function: refused too (converted, it returned None)
    with pytest.raises(ConversionError, match=r"squares \(defined in sums_its_own_generator\)"):
        ng.function(sums_its_own_generator)(3)


def test_a_function_without_source_is_refused_with_the_reason():
    namespace = {}
    exec("def made(x):\n    return x + 1", namespace)
    with pytest.raises(ConversionError, match="cannot read the source of made"):
        ng.function(namespace["made"])(1.0)


HELPER_MODULE = """
def helper(x):
    return x * 2


def uses_helper(x):
    return helper(x) + 1
"""


def test_redefining_a_helper_retraces_the_graph_that_called_it(tmp_path, monkeypatch):
    """As when a notebook cell defining the helper runs again."""
    (tmp_path / "cells.py").write_text(HELPER_MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import cells

    f = ng.function(cells.uses_helper)
    assert f(np.ones(2)).tolist() == [3.0, 3.0]
    namespace = {}
    (tmp_path / "again.py").write_text("def helper(x):\n    return x * 10\n")
    exec(
        compile((tmp_path / "again.py").read_text(), str(tmp_path / "again.py"), "exec"), namespace
    )
    cells.helper = namespace["helper"]
    assert f(np.ones(2)).tolist() == [11.0, 11.0]
    assert f.trace_count == 2
    assert f(np.ones(2)).tolist() == [11.0, 11.0] and f.trace_count == 2


PROGRAM = """
import numpy as np
import nbgraph as ng


def total(x):
    s = 0.0
    for i in range(x.shape[0]):
        s += x[i] * 2
    return s


with __import__("warnings").catch_warnings():
    __import__("warnings").simplefilter("error")
    print(ng.function(total)(np.arange(4.0)))
"""


@pytest.mark.parametrize("damage", ["generated source", "numba index", "numba data"])
def test_a_damaged_compile_cache_is_rebuilt(tmp_path, damage):
    program = tmp_path / "program.py"
    program.write_text(textwrap.dedent(PROGRAM))
    env = dict(os.environ, NBGRAPH_CACHE_DIR=str(tmp_path / "cache"))

    def run() -> subprocess.CompletedProcess:
        return subprocess.run(
            [sys.executable, str(program)], env=env, capture_output=True, text=True, timeout=120
        )

    assert run().stdout.strip() == "12.0"
    pattern = {
        "generated source": "graph_*.py",
        "numba index": "graph_*.nbi",
        "numba data": "graph_*.nbc",
    }[damage]
    damaged = list((tmp_path / "cache").glob(f"**/{pattern}"))
    assert damaged
    for path in damaged:
        path.write_bytes(path.read_bytes()[: len(path.read_bytes()) // 3] + b"\x00\xff")
    again = run()
    assert again.returncode == 0, again.stderr[-2000:]
    assert again.stdout.strip() == "12.0"
