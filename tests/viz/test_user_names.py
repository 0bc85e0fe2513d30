"""The graph reads with the user's names: the function's arguments (and loop variables)
in the listing, the DOT/SVG labels and the widget's node records, which its search
matches."""

from __future__ import annotations

import inspect

import numpy as np

import nbgraph as ng
from nbgraph.graph.variables import assigned_variables
from nbgraph.viz.dot import to_dot


def centroid_shift(points, centers, steps):
    moved = 0.0
    for _ in range(steps):
        shift = np.abs(points - centers).sum()
        moved = moved + shift
    return moved


def test_arguments_and_loop_variables_carry_the_users_names():
    graph = ng.function(centroid_shift).graph(np.ones(3), np.zeros(3), 2)
    listing = str(graph)
    assert "params %0 (points), %1 (centers), %2 (steps)" in listing
    assert "(moved)" in listing  # the loop's variable
    source = to_dot(graph).source
    for name in ("points", "centers", "steps", "moved"):
        assert f"<b>{name}</b>" in source
    assert "param[" not in source.split("tooltip")[0]
    view = graph.widget()
    ops = {info["op"] for info in view.nodes.values()}
    assert {"points", "centers", "steps", "moved"} <= ops  # what the view's search reads


def test_a_structured_argument_names_its_leaves():
    def spread(pair):
        return pair[0] - pair[1]

    graph = ng.function(spread).graph((np.ones(2), np.ones(2)))
    assert "params %0 (pair (leaf 1 of 2)), %1 (pair (leaf 2 of 2))" in str(graph)


def normalized(v):
    return v / np.linalg.norm(v)


def assign_points(points, centers):
    total = 0.0
    for k in range(centers.shape[0]):
        offsets = points - centers[k]
        dist = np.sqrt(np.sum(offsets**2, axis=1))
        total += dist.min()
        unit = normalized(offsets[0])
        a, b = unit[0], unit[1]  # a tuple target names nothing
        total = total + a * b
    return total


def test_operations_carry_the_variable_their_line_assigns():
    graph = ng.function(assign_points).graph(np.ones((5, 2)), np.zeros((3, 2)), inspect=True)
    listing = str(graph)
    lines = {line.split("#")[0].strip() for line in listing.splitlines()}
    assert any(t.startswith("%") and "(offsets) = call -(" in t for t in lines)
    assert any("(dist) = call sqrt(" in t for t in lines)
    assert any("(total) = call +(" in t for t in lines)  # `total += ...` and `total = ...`
    assert sum("(total) = call +(" in t for t in lines) == 2
    assert any("(unit) = call /(" in t for t in lines)  # the helper's own line
    assert "(a)" not in listing and "(b)" not in listing
    # One name per line: `sqrt(np.sum(offsets ** 2))` computes its sum unnamed.
    assert not any("(dist) = call np.sum(" in t for t in lines)

    source = to_dot(graph).source
    assert "<b>offsets = -</b>" in source
    assert "<b>dist = sqrt</b>" in source
    view = graph.widget()
    ops = [info["op"] for info in view.nodes.values()]
    assert "unit = /" in ops
    assert sum(op.startswith("total = ") for op in ops) == 2  # what the search finds


def scaled_unit(v):
    w = v * 2.0
    return w / np.sqrt(np.sum(w * w))


def unrolled_helper_calls(x):
    for k in range(3):  # unrolled while tracing
        x = scaled_unit(x * (k + 1.0))
    return x


def test_each_unrolled_call_of_a_helper_names_its_own_last_operation():
    graph = ng.function(unrolled_helper_calls).graph(np.arange(1.0, 4.0))
    named = assigned_variables(graph)
    # `x = scaled_unit(...)`: each iteration's call ends in its `/`, which is x; the
    # `x * (k + 1.0)` that the line computes first is not.
    lines, first = inspect.getsourcelines(unrolled_helper_calls)
    loop = first + next(i for i, text in enumerate(lines) if "for k" in text)
    xs = sorted((n.label(), n.loc.unrolled) for n, name in named.items() if name == "x")
    assert xs == [("/", ((loop, k),)) for k in (1, 2, 3)]
    assert sum(name == "w" for name in named.values()) == 3  # the helper's own line
