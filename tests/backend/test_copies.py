"""Array copies the CPU backend's generated code makes, counted per loop pattern.

A functional update (``y[i] = v``) may reuse its array only when nothing sees the old
value; otherwise the generated code copies the whole array, which inside a loop makes
the loop quadratic.  Each pattern below is counted in the generated source (not timed),
and a copy that remains inside a loop is reported at the user's line and marked on the
graph.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.errors.exceptions import NbgraphPerformanceWarning
from nbgraph.viz import GraphWidget


def compiled(g: ng.GraphFunction):
    """The only compiled signature of g."""
    (entry,) = g.specializations.values()
    return entry


def copies(g: ng.GraphFunction) -> int:
    """How many array copies the generated code makes (outside NumPy calls)."""
    return compiled(g).program.source.count(".copy()")


# --- the patterns: each writes an argument and a local array ------------------------------


def branches(y, z):
    for i in range(y.shape[0]):
        if z[i] > 1.0:
            y[i] = 1.0
        else:
            y[i] = z[i]
    return 0


def elif_chain(z):
    y = np.empty_like(z)
    for i in range(z.shape[0]):
        if z[i] > 2.0:
            y[i] = 2.0
        elif z[i] < 0.0:
            y[i] = 0.0
        elif z[i] == 1.0:
            y[i] = -1.0
        else:
            y[i] = z[i]
    return y


def one_branch(y, z):
    for i in range(y.shape[0]):
        if z[i] < 0.0:
            y[i] = 0.0
    return 0


def nested(m):
    out = np.zeros_like(m)
    for i in range(m.shape[0]):
        for j in range(m.shape[1]):
            if m[i, j] > 0:
                out[i, j] = m[i, j]
            m[i, j] = 0.0
    return out


def while_loop(y, tol):
    i = 0
    while i < y.shape[0] and y[i] > tol:
        y[i] = tol
        i += 1
    return i


def loop_in_branch(y, flag):
    if flag > 0:
        for i in range(y.shape[0]):
            y[i] = i
    else:
        k = 0
        while k < y.shape[0]:
            y[k] = -k
            k += 1
    return 0


def while_around_branches(y, z, n):
    k = 0
    while k < n:
        for i in range(y.shape[0]):
            if z[i] > 1.0:
                y[i] = 1.0
            else:
                y[i] = z[i] + k
        k += 1
    return y


def alias_in_loop(b, n):
    for _ in range(n):
        tmp = b
        tmp -= 1
    return b


def augmented_in_loop(x, n):
    for i in range(n):
        x *= 0.5
        x += i
        if x[0] > 1.0:
            x[0] = 0.0
    return x


def appends(n):
    out = []
    for i in range(n):
        if i % 2:
            out.append(i)
        else:
            out.append(-i)
    return np.array(out)


PATTERNS = [
    (branches, (np.zeros(5), np.arange(5.0))),
    (elif_chain, (np.array([3.0, -1.0, 1.0, 0.5]),)),
    (one_branch, (np.zeros(4), np.array([1.0, -1.0, 2.0, -2.0]))),
    (nested, (np.arange(12.0).reshape(3, 4) - 5,)),
    (while_loop, (np.array([5.0, 4.0, 0.5, 6.0]), 1.0)),
    (loop_in_branch, (np.zeros(4), 1)),
    (while_around_branches, (np.zeros(5), np.arange(5.0), 3)),
    (alias_in_loop, (np.zeros(3), 2)),
    (augmented_in_loop, (np.arange(4.0), 3)),
    (appends, (5,)),
]


@pytest.mark.parametrize("fn, args", PATTERNS, ids=[f.__name__ for f, _ in PATTERNS])
def test_loop_writes_make_no_copy(fn, args):
    g = ng.function(fn, backend="cpu")
    eager_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
    with warnings.catch_warnings():
        warnings.simplefilter("error", NbgraphPerformanceWarning)
        result = g(*args)
    np.testing.assert_array_equal(result, fn(*eager_args))
    for got, want in zip(args, eager_args):
        np.testing.assert_array_equal(got, want)
    assert copies(g) == 0, compiled(g).program.source
    assert compiled(g).program.copies == {}


def snapshots_then_write(x, n):
    for _ in range(n):
        before = x.copy()
        running = x.cumsum()
        x += x
        print(before, running, x.round())
    return x


def test_a_method_that_makes_a_new_array_does_not_hold_the_old_one():
    """``x.copy()`` or ``x.cumsum()`` read later does not keep ``x += x`` from writing
    in place (a view of ``x`` read later would, as it sees the write)."""
    g = ng.function(snapshots_then_write, backend="cpu")
    with warnings.catch_warnings():
        warnings.simplefilter("error", NbgraphPerformanceWarning)
        g(np.arange(3.0), 2)
    assert compiled(g).program.copies == {}


def test_reading_an_argument_copies_nothing():
    """No write, no copy: the argument is neither copied in nor written back."""

    def total(x):
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i]
        return s

    g = ng.function(total, backend="cpu")
    g(np.arange(4.0))
    assert copies(g) == 0 and compiled(g).graph.writes == ()


def via_view(y, n):
    for i in range(n):
        v = y[1:]
        v[0] = i  # writes y[1]: a copy of the view per iteration
    return 0


VIEW_WRITE = via_view.__code__.co_firstlineno + 3


def test_a_copy_left_in_a_loop_is_reported_once_at_its_line():
    g = ng.function(via_view, backend="cpu")
    y = np.zeros(5)
    with pytest.warns(
        NbgraphPerformanceWarning,
        match=f"line {VIEW_WRITE}: this update inside a loop copies the whole array",
    ) as record:
        g(y, 3)
    assert y.tolist() == [0.0, 2.0, 0.0, 0.0, 0.0]  # still as eagerly
    assert [w.lineno for w in record if w.category is NbgraphPerformanceWarning] == [VIEW_WRITE]
    assert copies(g) == 1
    (node,) = compiled(g).program.copies
    assert node.loc.lineno == VIEW_WRITE
    with warnings.catch_warnings():
        warnings.simplefilter("error", NbgraphPerformanceWarning)
        g(y, 3)  # once per graph: not again


def test_the_graph_view_marks_copies():
    g = ng.function(via_view, backend="cpu")
    with pytest.warns(NbgraphPerformanceWarning):
        g(np.zeros(5), 2)
    graph = compiled(g).annotated_graph()
    assert "copies in a loop" in graph.to_dot().source
    view = GraphWidget(graph)
    details = [view.details(i) for i in view.nodes]
    assert [d["copy"] for d in details if d["copy"]] == list(graph.copies.values())
