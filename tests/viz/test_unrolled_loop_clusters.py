"""A Python loop unrolled while tracing is a cluster of the graph view: its iterations
in ranges of 10, 100, ..., each iteration a cluster where it is more than one helper
call; loops of a helper sit inside the helper's call, loops around a call outside it."""

import inspect

import numpy as np

import nbgraph as ng
from nbgraph.viz import GraphWidget
from nbgraph.viz.folding import VISIBLE_BUDGET, Nesting

X = np.array([1.0, -2.0, 0.5])


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def smooth(v, times):
    for _ in range(times):  # a helper's own unrolled loop
        v = v * 0.5 + 1.0
    return v


def nested(x):
    for i in range(3):
        for j in range(25):
            x = x * 1.5 - (i + j)
    return x


def around_and_inside(x):
    for k in range(4):
        x = smooth(x, 2) + k
    return x


def labels(nesting, node):
    return [c.label if hasattr(c, "label") else c.op.value for c in nesting.owners[node]]


def test_iterations_fold_into_ranges_and_each_node_sits_in_its_own_iteration():
    graph = ng.function(nested).graph(X)
    nesting = Nesting(graph)
    outer, inner = line_of(nested, "for i"), line_of(nested, "for j")
    loops = [g for g in nesting.groups if g.kind == "loop"]
    assert [g.label for g in loops] == [f"unrolled loop · line {outer} · 3 iterations"] + [
        f"unrolled loop · line {inner} · 25 iterations"
    ] * 3  # the inner loop once per outer iteration
    ranges = [g.label for g in nesting.groups if g.kind == "range"]
    assert ranges == ["iterations 1-10", "iterations 11-20", "iterations 21-25"] * 3
    # Every operation made in the loops sits in its outer iteration, the inner loop,
    # the range and the inner iteration (2 operations each: more than one call).
    made = [n for n in graph.all_nodes() if n.loc and n.loc.unrolled]
    assert len(made) == 3 * 25 * 2
    last = made[-1]
    assert labels(nesting, last) == [
        f"unrolled loop · line {outer} · 3 iterations",
        "iteration 3",
        f"unrolled loop · line {inner} · 25 iterations",
        "iterations 21-25",
        "iteration 25",
    ]
    for node in made:
        _, (_, k) = node.loc.unrolled
        assert labels(nesting, node)[-1] == f"iteration {k}"
        assert sum(1 for c in nesting.owners[node] if c.kind == "range") == 1
    # Started folded to a screenful, the outer loop open.
    view = GraphWidget(graph)
    assert nesting.visible_count({view._clusters[i] for i in view.unfolded}) <= VISIBLE_BUDGET
    assert any(view.groups[i]["label"].startswith("unrolled loop") for i in view.unfolded)


def test_a_helpers_loop_is_inside_its_call_and_the_callers_loop_around_it():
    graph = ng.function(around_and_inside).graph(X)
    nesting = Nesting(graph)
    caller, helper = line_of(around_and_inside, "for k"), line_of(smooth, "for _")
    call = f"smooth(…) · line {caller + 1}"
    inside = [n for n in graph.all_nodes() if n.loc and n.loc.function == "smooth"]
    assert len(inside) == 4 * 2 * 2
    for node in inside:
        (_, k), (_, t) = node.loc.unrolled
        assert labels(nesting, node) == [
            f"unrolled loop · line {caller} · 4 iterations",
            f"iteration {k}",
            call,
            f"unrolled loop · line {helper} · 2 iterations",
            f"iteration {t}",
        ]
    # The caller's `+ k` is in its iteration, beside the call.
    adds = [n for n in graph.all_nodes() if n.loc and n.loc.function == "around_and_inside"]
    assert {tuple(labels(nesting, n)) for n in adds} >= {
        (f"unrolled loop · line {caller} · 4 iterations", f"iteration {k}") for k in (1, 4)
    }


def test_an_iteration_that_is_one_call_is_no_cluster_of_its_own():
    def one_call(x):
        for _ in range(12):
            x = smooth(x, 1)
        return x

    graph = ng.function(one_call).graph(X)
    nesting = Nesting(graph)
    assert not [g for g in nesting.groups if g.kind == "iteration" and g.calls == 0]
    # ranges of 10 (1-10, 11-12): the second holds two calls, still a range
    ranges = [g.label for g in nesting.groups if g.kind == "range"]
    assert ranges == ["iterations 1-10", "iterations 11-12"]
    calls = [g for g in nesting.groups if g.kind == "call"]
    assert len(calls) == 12
    assert [nesting.above[c][-1].label for c in calls] == ["iterations 1-10"] * 10 + [
        "iterations 11-12"
    ] * 2


def test_each_graph_of_a_function_has_its_own_groups():
    function = ng.function(smooth, static_argnames=("times",))
    short, long = function.graph(X, 3), function.graph(X, 12)
    first, second = Nesting(short), Nesting(long)  # both in use at once
    assert [g.label for g in first.groups if g.kind == "loop"] == [
        f"unrolled loop · line {line_of(smooth, 'for _')} · 3 iterations"
    ]
    assert [g.label for g in second.groups if g.kind == "loop"] == [
        f"unrolled loop · line {line_of(smooth, 'for _')} · 12 iterations"
    ]
    assert {g.first for g in first.groups} <= set(short.all_nodes())
    assert Nesting(short).groups == first.groups
