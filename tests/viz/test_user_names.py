"""The graph reads with the user's names: the function's arguments (and loop variables)
in the listing, the DOT/SVG labels and the widget's node records, which its search
matches."""

from __future__ import annotations

import numpy as np

import nbgraph as ng
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
