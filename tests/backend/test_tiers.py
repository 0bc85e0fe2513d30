"""The CPU backend's first call of a graph of array work runs on the interpreter, and the
compile runs after it on a background thread (backend/numba_cpu/tiers.py).

The first call gets eager's values at about eager's speed instead of waiting for Numba;
the next call waits for the compile and runs compiled code.  Graphs whose loops do
scalar work, the disk cache's graphs and ``config.background_compile = False`` compile
first, as before.  Values are checked against eager on both calls by the differential
suite (its ``check`` calls every graph twice); these tests check which tier ran.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
import warnings

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.backend.numba_cpu import tiers


# In no other test file: a graph another test compiled in the same worker would load
# from that test's cache folder (its generated module stays loaded).
def tempered_softmax(x):
    e = np.exp(2.0 * (x - x.max(axis=1, keepdims=True)))
    return e / e.sum(axis=1, keepdims=True)


def descend(a, b, steps):
    w = np.zeros(a.shape[1])
    for _ in range(steps):
        w = w - 0.01 * (a.T @ (a @ w - b))
    return w


def count_up(x, n):
    total = 0.0
    i = 0
    while i < n:
        total += x[i % x.shape[0]] * 0.5
        i += 1
    return total


def assign_to_centres(points, centres, steps):
    for _ in range(steps):  # array work, and a loop over the centres, not the elements
        d = np.sum((points[:, None, :] - centres[None, :, :]) ** 2, axis=2)
        labels = np.argmin(d, axis=1)
        for k in range(centres.shape[0]):
            members = points[labels == k]
            if members.shape[0] > 0:
                centres[k] = members.mean(axis=0)
    return centres


def clip_each(x, steps):
    for _ in range(steps):
        x = np.tanh(x) * 2.0
        for i in range(x.shape[0]):  # a loop over the elements
            if x[i] > 1.0:
                x[i] = 1.0
    return x


def program_of(g: ng.GraphFunction):
    (entry,) = g.specializations.values()
    return entry.program


@pytest.fixture
def background_compile(monkeypatch):
    monkeypatch.setattr(ng.config, "background_compile", True)


def test_first_call_of_array_work_runs_on_the_interpreter(
    background_compile, monkeypatch, tmp_path
):
    monkeypatch.setenv("NBGRAPH_CACHE_DIR", str(tmp_path))  # nothing cached
    g = ng.function(tempered_softmax)
    x = np.random.default_rng(0).random((50, 40))
    np.testing.assert_array_equal(g(x), tempered_softmax(x))  # the interpreter: NumPy's values
    program = program_of(g)
    # None: the build deferred the compile (``program.compiled`` may already be true
    # here, as the background thread can finish before this line runs).
    assert g.last_compiled is None
    second = g(x)
    assert program.compiled
    np.testing.assert_allclose(second, tempered_softmax(x), rtol=1e-15)
    assert program.background_s is not None and program.functions_compiled > 0
    assert "first call ran on the interpreter" in repr(ng.explain(g))


@pytest.mark.parametrize(
    "fn, args, interpreted",
    [
        (tempered_softmax, (np.ones((3, 3)),), True),  # no loop: any size
        (descend, (np.ones((200, 30)), np.ones(200), 5), True),  # array work in a loop
        (descend, (np.ones((6, 3)), np.ones(6), 5), False),  # ... on tiny arrays
        (count_up, (np.ones(10_000), 7), False),  # scalar work in a loop
        (assign_to_centres, (np.ones((3000, 2)), np.ones((4, 2)), 3), True),
        (clip_each, (np.ones(10_000), 3), False),
    ],
    ids=["no loop", "array loop", "tiny arrays", "scalar loop", "loop of rows", "element loop"],
)
def test_which_graphs_run_on_the_interpreter_first(fn, args, interpreted):
    graph = ng.function(fn).graph(*args)
    assert tiers.interprets_first(graph, args) is interpreted


def test_scalar_loops_and_the_setting_off_compile_first(monkeypatch):
    g = ng.function(count_up)
    assert g(np.ones(10_000), 7) == count_up(np.ones(10_000), 7)
    assert program_of(g).compiled and program_of(g).background_s is None
    monkeypatch.setattr(ng.config, "background_compile", False)
    h = ng.function(tempered_softmax)
    h(np.ones((4, 4)))
    assert program_of(h).compiled and program_of(h).background_s is None


def test_argument_writes_reach_the_caller_on_both_tiers(background_compile):
    def scale_into(x, y):
        y[:] = x * 2.0
        return y.sum()

    g = ng.function(scale_into)
    for call in range(2):
        x, y = np.arange(5.0) + call, np.zeros(5)
        assert g(x, y) == scale_into(x.copy(), np.zeros(5))
        np.testing.assert_array_equal(y, x * 2.0)
    assert program_of(g).compiled


_CHILD = textwrap.dedent("""
    import json, sys, numpy as np
    sys.path.insert(0, {tests!r})
    import nbgraph as ng
    from backend.test_tiers import tempered_softmax
    g = ng.function(tempered_softmax)
    g(np.ones((3, 4)))
    (entry,) = g.specializations.values()
    if entry.program.compiled:  # (this process ends with the compile still running)
        print(json.dumps({{"compiled": True, "functions": entry.program.functions_compiled}}))
    else:
        print(json.dumps({{"compiled": False}}))
""")


def test_a_process_that_ends_waits_for_the_compile_and_the_next_loads_it(tmp_path):
    """The compile after the first call is not lost when the process ends: the next
    process's first call loads it from the disk cache and runs compiled code."""
    env = {**os.environ, "NBGRAPH_CACHE_DIR": str(tmp_path), "NBGRAPH_BACKGROUND_COMPILE": "1"}
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    code = _CHILD.format(tests=tests)
    first, second = (
        json.loads(
            subprocess.run(
                [sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True
            ).stdout
        )
        for _ in range(2)
    )
    assert first == {"compiled": False}  # ran on the interpreter
    assert second == {"compiled": True, "functions": 0}  # loaded from the disk cache


def test_a_background_compile_leaves_the_users_warnings_alone(
    background_compile, monkeypatch, tmp_path
):
    """Numba's compiler swaps the warnings module's state, which threads share: during
    a compile on the background thread, the user's thread still gets its own warnings,
    in its own ``catch_warnings`` blocks, and finds the filters as it left them."""
    monkeypatch.setenv("NBGRAPH_CACHE_DIR", str(tmp_path))

    def long_graph(x):  # (in no other test: nothing compiled in this process)
        y = x
        for k in range(1, 3):
            y = np.tanh(y * k) + np.exp(-y) / (y.sum(axis=0) + k)
        return y

    filters, show = warnings.filters[:], warnings.showwarning
    g = ng.function(long_graph)
    x = np.random.default_rng(2).random((50, 40))
    g(x)
    compile_job = program_of(g)._background
    blocks = 0
    while not compile_job.finished() or blocks == 0:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            warnings.warn("the user's own", UserWarning, stacklevel=1)
            np.float64(1e308) * 10.0  # NumPy's overflow warning
        assert [str(w.message) for w in caught][:1] == ["the user's own"]
        assert [w.category for w in caught] == [UserWarning, RuntimeWarning]
        blocks += 1
        time.sleep(0.01)  # (a busy loop here would slow the compile a hundredfold)
    g(x)
    assert program_of(g).compiled and program_of(g).functions_compiled > 0
    assert warnings.filters == filters and warnings.showwarning is show
