"""The graph view's fusion overlay: the operations the CPU backend computes in one pass
over the elements, outlined a colour per group, listed in each one's details."""

import re

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.graph.printer import node_names
from nbgraph.viz import GraphWidget, to_dot
from nbgraph.viz.dot import FUSED_COLORS


def norms_and_scaled(x, y):
    norms = np.sqrt(np.sum(x * x, axis=1))
    scaled = np.exp(y) * 2.0 + 1.0
    return norms, scaled


X, Y = np.ones((4, 3)), np.arange(5.0)


@pytest.fixture(scope="module")
def graph():
    return ng.function(norms_and_scaled, backend="cpu").graph(X, Y)


def ident(graph, node):
    return "n" + node_names(graph)[node][1:]


def test_the_cpu_backend_reports_its_fused_groups(graph):
    labels = sorted(sorted(n.label() for n in group) for group in graph.fused)
    assert labels == [["*", "+", "exp"], ["*", "np.sum"]]


def test_fused_operations_are_outlined_a_colour_per_group(graph):
    plain = to_dot(graph).source
    assert "fused pass" not in plain
    source = to_dot(graph, fusion=True).source
    for k, group in enumerate(graph.fused):
        color = FUSED_COLORS[k]
        for node in group:
            line = re.search(rf"^\s*{ident(graph, node)} \[.*$", source, re.M).group(0)
            assert f"fused pass {k + 1}" in line and f'color="{color}"' in line
    fused = {n for group in graph.fused for n in group}
    others = [n for n in graph.all_nodes() if n not in fused]
    assert not any(
        re.search(rf"^\s*{ident(graph, n)} \[.*fused pass", source, re.M) for n in others
    )


def test_the_view_toggles_the_overlay_and_lists_each_groups_members(graph):
    widget = GraphWidget(graph)
    assert widget.has_fusion and not widget.show_fusion
    assert "fused pass" not in widget.svg
    widget.show_fusion = True
    assert widget.svg.count("fused pass") == sum(len(g) for g in graph.fused)
    total = next(n for n in graph.all_nodes() if n.label() == "np.sum")
    info = widget.details(ident(graph, total))
    assert info["fused"]["pass"] in (1, 2)
    assert [ref["op"] for ref in info["fused"]["with"]] == ["*"]
    sqrt = [i for i, info in widget.nodes.items() if info["op"].endswith("sqrt")]
    assert sqrt and not any(widget.nodes[i].get("fused") for i in sqrt)
    assert all(widget.details(i)["fused"] is None for i in sqrt)


def test_the_interpreter_fuses_nothing():
    graph = ng.function(norms_and_scaled, backend="interpret").graph(X, Y)
    assert graph.fused == () and not GraphWidget(graph).has_fusion
