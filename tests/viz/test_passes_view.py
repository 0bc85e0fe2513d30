"""The graph as traced, kept from before the optimisation passes: what each pass took
out is marked in its drawing, and ``passes_view`` shows it beside the graph as
optimised."""

import numpy as np

import nbgraph as ng
from nbgraph.graph.ir import Op
from nbgraph.viz.dot import to_dot
from nbgraph.viz.graph_widget import GraphWidget


def wasteful(x, n):
    a = x * 2.0
    b = x * 2.0  # the same as a: merged
    unused = np.sum(x)  # noqa: F841 (nothing uses it: removed)
    for _ in range(n):
        a = a + b
    return a


def test_the_traced_graph_marks_what_the_passes_took_out():
    graph = ng.function(wasteful, backend="interpret").graph(np.ones(3), 2)
    traced = graph.traced
    first = wasteful.__code__.co_firstlineno
    removed = {
        (n.label(), n.loc.lineno): why for n, why in traced.removed.items() if n.op is Op.CALL
    }
    assert removed == {("*", first + 2): "cse", ("np.sum", first + 3): "dce"}
    calls = lambda g: sorted(n.label() for n in g.all_nodes() if n.op is Op.CALL)  # noqa: E731
    assert calls(traced) == sorted([*calls(graph), "*", "np.sum"])  # (left as it was)
    assert not set(traced.all_nodes()) & set(graph.all_nodes())
    drawing = to_dot(traced).source
    assert "merged into an equal one" in drawing and "removed: unused" in drawing
    assert "merged into" not in to_dot(graph).source


def test_passes_view_puts_the_two_side_by_side():
    graph = ng.function(wasteful, backend="interpret").graph(np.ones(3), 2)
    view = graph.passes_view()
    before, after = view.children
    assert isinstance(before, GraphWidget) and isinstance(after, GraphWidget)
    assert before.graph is graph.traced and after.graph is graph
    count = len(graph.traced.removed)  # (the calls above and constants of the loop's)
    assert before.title == f"graph wasteful as traced ({count} taken out by the passes)"
    assert after.title == "graph wasteful after dce, cse, fold, dce"
