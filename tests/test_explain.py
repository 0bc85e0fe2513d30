"""``nbgraph.explain``: every trace with its cause (dtype, rank, Python scalar type,
static value, redefined helper), nodes run in Python inside loops, copies inside loops,
fused operations, builds loaded from the disk cache; and the RetracingWarning with the
actual cause."""

from __future__ import annotations

import logging
import os
import re
import warnings

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.explain import graph_facts

BACKENDS = os.environ.get("NBGRAPH_TEST_BACKENDS", "interpret,cpu,cuda").split(",")


def helper(v):
    return v * 2.0


def scaled(x, k, mode="a"):
    return helper(x) * k


def test_each_trace_names_its_cause(monkeypatch):
    f = ng.function(scaled, static_argnames="mode")
    f(np.ones(3), 2)
    f(np.ones(3, np.float32), 2)
    f(np.ones((2, 2)), 2)
    f(np.ones(3), 2.5)
    f(np.ones(3), 2, mode="b")
    monkeypatch.setitem(globals(), "helper", lambda v: v * 3.0)  # a cell run again
    assert f(np.ones(3), 2).tolist() == [6.0, 6.0, 6.0]
    text = repr(ng.explain(f))
    lines = text.splitlines()
    assert lines[0] == "scaled (backend cpu): 6 traces"
    reasons = [line.split(": ", 1)[1] for line in lines if line.startswith("  trace ")]
    assert reasons == [
        "first call",
        "x is a float32 1-d array (before: float64 1-d array)",
        "x is a float64 2-d array (before: float64 1-d array)",
        "k is a Python float (before: Python int)",
        "static mode='b' (before: 'a')",
        "helper redefined since the last trace",
    ]
    assert "(float64 1-d array, Python int)" in text
    assert all("built in" in line for line in lines if line.startswith("    built"))


def not_in_numba(x, n):
    total = 0.0
    for _ in range(n):
        total = total + np.median(x, axis=0).sum()  # Numba lacks median(axis=)
    return total


def test_nodes_run_in_python_inside_a_loop_are_named_with_their_line():
    f = ng.function(not_in_numba, backend="cpu")
    f(np.arange(6.0).reshape(2, 3), 2)
    text = repr(ng.explain(f))
    line = not_in_numba.__code__.co_firstlineno + 3
    assert (
        f"line {line}: np.median runs in Python, inside the graph loop at line {line - 1}: "
        "once per iteration (Numba does not support np.median" in text
    )


def writes_view(y, n):
    for i in range(n):
        v = y[1:]
        v[0] = i
    return 0


def test_copies_inside_loops_are_listed():
    f = ng.function(writes_view, backend="cpu")
    with pytest.warns(ng.NbgraphPerformanceWarning):
        f(np.zeros(5), 3)
    line = writes_view.__code__.co_firstlineno + 3
    assert f"line {line}: " in repr(ng.explain(f)) and "copies an array inside a loop" in repr(
        ng.explain(f)
    )


def test_retracing_warns_once_with_the_cause_at_the_callers_line():
    f = ng.function(scaled)
    dtypes = [np.float64, np.float32, np.int64, np.int32, np.int16, np.int8, np.uint8]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for dtype in dtypes:
            f(np.ones(3, dtype), 2)  # the line the warning points at
    retraces = [w for w in caught if w.category is ng.RetracingWarning]
    assert len(retraces) == 1
    (w,) = retraces
    assert "traced 6 times" in str(w.message)
    assert "x is a int8 1-d array" in str(w.message)
    assert w.filename == __file__


def test_explain_needs_a_graph_function():
    with pytest.raises(TypeError, match="graph function"):
        ng.explain(scaled)
    assert "not been traced" in repr(ng.explain(ng.function(scaled)))


def fusable(x, y):
    z = np.exp(x) * y + 1.0
    s = np.sum(z * z)
    return z, s


@pytest.mark.parametrize("backend", ["cpu", "cuda"])
def test_fused_operations_and_the_disk_cache_are_named(backend):
    if backend not in BACKENDS:
        pytest.skip(f"NBGRAPH_TEST_BACKENDS leaves out {backend}")
    first = ng.function(fusable, backend=backend)
    first(np.ones(4), np.ones(4))
    text = repr(ng.explain(first))
    line = fusable.__code__.co_firstlineno + 1
    assert f"line {line}: 3 operations fused into one pass over the elements (exp, *, +)" in text
    if backend == "cpu":  # the reduction computes its operand's elements as they come
        assert f"line {line + 1}: 2 operations fused into one pass" in text
        first(np.ones(4), np.ones(4))  # (waits for a compile after the first call)
        again = ng.function(fusable, backend=backend)  # a new function: the same code
        again(np.ones(4), np.ones(4))
        # (On the interpreter first while another compile runs; then loaded.)
        assert "loaded from the disk cache: nothing compiled" in repr(ng.explain(again))


def test_the_interpret_backend_fuses_nothing():
    f = ng.function(fusable, backend="interpret")
    f(np.ones(4), np.ones(4))
    assert "fused" not in repr(ng.explain(f))


def test_builds_and_retraces_go_to_the_nbgraph_logger(caplog):
    caplog.set_level(logging.INFO, logger="nbgraph")
    f = ng.function(scaled)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ng.RetracingWarning)
        for dtype in [np.float64, np.float32, np.int64, np.int32, np.int16, np.int8]:
            f(np.ones(3, dtype), 2)
    records = [r for r in caplog.records if r.name == "nbgraph"]
    builds = [r.getMessage() for r in records if r.levelno == logging.INFO]
    assert len(builds) == 6
    assert builds[0].startswith("scaled traced for (float64 1-d array, Python int): first call")
    assert "x is a float32 1-d array (before: float64 1-d array)" in builds[1]
    assert all("built (convert" in b for b in builds)
    assert all(
        re.search("from the disk cache|Numba compiled|first call on the interpreter", b)
        for b in builds
    )
    (retrace,) = [r.getMessage() for r in records if r.levelno == logging.WARNING]
    assert "traced 6 times" in retrace and "x is a int8 1-d array" in retrace


def nested_python_loops(x):
    for i in range(3):
        for _ in range(i):
            x = x * 2.0
    return x


def test_python_loops_unrolled_while_tracing_are_counted():
    """Each Python loop's line with the iterations it ran while tracing, nested loops'
    counted over every iteration of the loop around them (here 0 + 1 + 2)."""
    f = ng.function(nested_python_loops)
    f(np.ones(2))
    text = repr(ng.explain(f))
    outer = nested_python_loops.__code__.co_firstlineno + 1
    assert f"line {outer}: a Python loop ran 3 times while tracing" in text
    assert f"line {outer + 1}: a Python loop ran 3 times while tracing" in text


def scaled_rows(x):
    for k in range(3):
        x = fusable(x, x * k)[0]
    return x


def test_alike_fused_passes_are_one_line_with_their_count_and_nodes():
    """A helper's fused pass made once per unrolled iteration is one line, 'N times',
    about the nodes of every pass (the graph view highlights them all)."""
    f = ng.function(scaled_rows)
    f(np.ones(4))
    lines = (fusable.__code__.co_firstlineno + 1, scaled_rows.__code__.co_firstlineno + 2)
    text = repr(ng.explain(f))
    fused = (
        f"lines {lines[0]}, {lines[1]}: 4 operations fused into one pass over the elements "
        "(*, exp, *, +), 3 times"
    )
    assert fused in text
    graph = f.graph(np.ones(4))
    fact = next(fact for fact in graph_facts(graph) if fact.text == fused)
    assert len(fact.nodes) == 12 and {n.loc.lineno for n in fact.nodes} == set(lines)
    assert graph.trace[0] == "trace 1 (float64 1-d array): first call"


def with_waste(x):
    a = x * 2.0
    b = x * 2.0
    unused = np.sum(x)  # noqa: F841 (what is tested)
    return a + b


def test_what_the_optimisation_passes_took_out_is_listed():
    f = ng.function(with_waste, backend="interpret")
    f(np.ones(3))
    text = repr(ng.explain(f))
    first = with_waste.__code__.co_firstlineno
    assert (
        f"pass dce: removed 1 operation whose values nothing uses (np.sum at line {first + 3})"
        in text
    )
    assert (
        f"pass cse: merged 1 operation into an equal one computed before (* at line {first + 2})"
        in text
    )
