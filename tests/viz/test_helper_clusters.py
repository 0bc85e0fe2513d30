"""Each call of a user's helper is a cluster of the graph view named after the call, a
gradient's backward half a cluster inside the call that took it; they fold like loops,
and a graph of many calls starts folded to a screenful."""

import inspect
import re

import numpy as np

import nbgraph as ng
from nbgraph.graph.printer import node_names
from nbgraph.viz import GraphWidget, to_dot
from nbgraph.viz.folding import VISIBLE_BUDGET, Group, Nesting


def scale(v):
    return v * 2.0  # one node: no cluster of its own


def normalize(v):
    s = np.sqrt(np.sum(v * v))
    return scale(v) / s


def standardize(v):
    w = normalize(v)
    return (w - w.mean()) / (w.std() + 1.0)


def calls(x, n):
    a = normalize(x)
    b = standardize(x + 1.0)
    for _ in range(n):
        a = normalize(a + b)
    return a, b


def loss(w, x):
    y = normalize(x) * w
    return np.sum(y * y)


def step(w, x):
    value, grad = ng.value_and_grad(loss)(w, x)
    return w - 0.1 * grad, value


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def group_named(nesting, label):
    (group,) = [g for g in nesting.groups if g.label == label]
    return group


def members(nesting, group):
    return [n for n, owners in nesting.owners.items() if group in owners]


X = np.array([1.0, -2.0, 0.5, 3.0])


def test_each_helper_call_is_a_cluster_named_after_the_call():
    graph = ng.function(calls).graph(X, 2)
    nesting = Nesting(graph)
    first = line_of(calls, "a = normalize(x)")
    second = line_of(calls, "b = standardize")
    inner = line_of(standardize, "w = normalize(v)")
    looped = line_of(calls, "a = normalize(a + b)")
    labels = sorted(g.label for g in nesting.groups)
    assert labels == sorted(
        [
            f"normalize(…) · line {first}",
            f"standardize(…) · line {second}",
            f"normalize(…) · line {inner}",  # inside standardize's
            f"normalize(…) · line {looped}",  # inside the loop's body
        ]
    )
    outer = group_named(nesting, f"standardize(…) · line {second}")
    nested = group_named(nesting, f"normalize(…) · line {inner}")
    assert nesting.above[nested] == (outer,)
    (loop,) = [c for c in nesting.controls if c.op.value == "while"]
    assert nesting.above[group_named(nesting, f"normalize(…) · line {looped}")] == (loop,)
    # A group holds the nodes its call made, and only those (scale's one node included).
    group = group_named(nesting, f"normalize(…) · line {first}")
    inside = members(nesting, group)
    assert {n.loc.function for n in inside} == {"normalize", "scale"}
    assert len(inside) == nesting.inside[group] >= 4
    assert all(n.loc.stack()[0].lineno == first for n in inside)
    assert not any("scale" in g.label for g in nesting.groups)


def test_groups_draw_as_clusters_and_fold_into_one_node():
    graph = ng.function(calls).graph(X, 2)
    nesting = Nesting(graph)
    names = node_names(graph)
    group = group_named(nesting, f"normalize(…) · line {line_of(calls, 'a = normalize(x)')}")
    ident = f"g{names[group.first][1:]}_1"

    opened = to_dot(graph, unfolded=nesting.clusters).source
    assert re.search(rf'subgraph cluster_{ident} {{[^}}]*label="▾ normalize\(…\)', opened)

    folded = to_dot(graph, unfolded=[c for c in nesting.clusters if c != group]).source
    assert not re.search(rf"cluster_{ident}\b", folded)
    assert re.search(
        rf"^\s*{ident} \[.*▸ normalize\(…\).*{nesting.inside[group]} nodes", folded, re.M
    )
    inside = {"n" + names[n][1:] for n in members(nesting, group)}
    drawn = set(re.findall(r"^\s*(n\d+) \[", folded, re.M))
    assert not inside & drawn  # its nodes are the one box
    edges = re.findall(r"^\s*(\w+) -> (\w+)", folded, re.M)
    assert ("n0", ident) in edges  # x goes in
    assert any(tail == ident for tail, _ in edges)  # its result comes out
    assert (ident, ident) not in edges


def test_a_gradient_has_its_backward_half_inside_the_call_that_took_it():
    graph = ng.function(step).graph(np.ones(4), X)
    nesting = Nesting(graph)
    call = group_named(nesting, f"loss(…) · line {line_of(step, 'value_and_grad')}")
    backward = group_named(nesting, "∂ backward")
    assert backward.kind == "grad" and nesting.above[backward] == (call,)
    inside = members(nesting, backward)
    assert inside and all(n.loc.gradient for n in inside)
    forward = [n for n in members(nesting, call) if n not in inside]
    assert forward and not any(n.loc.gradient for n in forward)
    # Every gradient node of the call is in the backward group.
    assert {n for n in members(nesting, call) if n.loc.gradient} == set(inside)
    source = to_dot(graph, unfolded=nesting.clusters).source
    assert 'label="▾ ∂ backward"' in source


def many_calls(x):
    y = standardize(x)
    y = standardize(y + 1.0)
    y = standardize(y * 3.0)
    y = standardize(y - 1.0)
    y = standardize(y / 2.0)
    y = standardize(y + 2.0)
    y = standardize(y * 0.5)
    y = standardize(y - 3.0)
    return y


def test_a_graph_of_many_calls_starts_folded_to_a_screenful():
    graph = ng.function(many_calls).graph(X)
    nesting = Nesting(graph)
    assert nesting.visible_count(nesting.clusters) > VISIBLE_BUDGET  # all open: too many
    widget = GraphWidget(graph)
    assert widget.unfolded == []  # each call folded: 8 boxes and the argument
    assert widget.svg.count('class="node"') <= VISIBLE_BUDGET
    assert len(widget.groups) == len(nesting.groups) == 16  # 8 calls, each with one inside
    ident = next(i for i, g in widget.groups.items() if g["label"].startswith("standardize"))
    widget.unfolded = [ident]  # unfold one call: its cluster is laid out
    assert f'id="cluster_{ident}"' in widget.svg
    # The nodes inside it name it among the clusters around them (the view's search
    # unfolds them).
    assert any(info.get("in") == ident for info in widget.nodes.values())


def unrolled_calls(x):
    for _ in range(3):  # a Python loop: unrolled while tracing
        x = standardize(x)  # nothing of this function's own between the calls
    return x


def test_calls_in_iterations_of_an_unrolled_loop_are_clusters_of_their_own():
    graph = ng.function(unrolled_calls).graph(X)
    nesting = Nesting(graph)
    line = line_of(unrolled_calls, "x = standardize(x)")
    calls = [g for g in nesting.groups if g.label == f"standardize(…) · line {line}"]
    assert len(calls) == 3
    assert len({nesting.inside[g] for g in calls}) == 1  # the same call three times
    called = [n for n in graph.all_nodes() if n.loc and n.loc.caller]
    assert sorted(map(id, called)) == sorted(id(n) for g in calls for n in members(nesting, g))
    # each holds its own call of normalize
    assert [sum(nesting.above[g][-1:] == (c,) for g in nesting.groups) for c in calls] == [1, 1, 1]
    # ... and the three sit in the loop's cluster (an iteration that is one call is no
    # cluster of its own)
    (loop,) = [g for g in nesting.groups if g.kind == "loop"]
    assert loop.label == f"unrolled loop · line {line - 1} · 3 iterations"
    assert [nesting.above[c] for c in calls] == [(loop,)] * 3


def test_groups_are_the_same_in_every_nesting_of_a_graph():
    graph = ng.function(calls).graph(X, 2)
    first, second = Nesting(graph), Nesting(graph)
    assert first.groups == second.groups and all(isinstance(g, Group) for g in first.groups)
    assert (
        to_dot(graph, unfolded=first.clusters).source
        == to_dot(graph, unfolded=second.clusters).source
    )
