"""A graph of 2000+ nodes starts folded and stays quick to lay out as it unfolds."""

import importlib.util
import time

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.viz import GraphWidget
from nbgraph.viz.dot import LARGE_GRAPH
from nbgraph.viz.folding import VISIBLE_BUDGET, Nesting

LOOPS, STEPS = 10, 50  # 10 loops, each a cond of 2 x 50 statements: 2100 nodes
# Generous bounds: the point is seconds, not the minute a plain `dot` run takes.
FIRST_VIEW_S, UNFOLD_S = 5.0, 20.0


@pytest.fixture(scope="module")
def big_graph(tmp_path_factory):
    lines = ["def big(x, n):"]
    for k in range(LOOPS):
        lines += ["    i = 0", "    while i < n:", f"        if x[{k % 3}] > {k}:"]
        lines += [f"            x = x * 1.01 + {s}.5" for s in range(STEPS)]
        lines += ["        else:"]
        lines += [f"            x = x * 0.99 - {s}.5" for s in range(STEPS)]
        lines += ["        i += 1"]
    lines += ["    return x"]
    path = tmp_path_factory.mktemp("big") / "big_graph.py"
    path.write_text("\n".join(lines) + "\n")
    spec = importlib.util.spec_from_file_location("big_graph", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return ng.function(module.big).graph(np.ones(3), 2)


def test_a_large_graph_starts_folded_and_unfolds_quickly(big_graph):
    assert len(big_graph.all_nodes()) > 2000
    start = time.perf_counter()
    widget = GraphWidget(big_graph)
    assert time.perf_counter() - start < FIRST_VIEW_S
    nesting = Nesting(big_graph)
    unfolded = {widget._by_id[i] for i in widget.unfolded}
    assert {n.op.value for n in unfolded} == {"while"}  # the conds inside start folded
    assert nesting.visible_count(unfolded) <= VISIBLE_BUDGET
    assert widget.svg.count('class="node"') < VISIBLE_BUDGET

    conds = [i for i, info in widget.nodes.items() if info["kind"] == "cond"]
    start = time.perf_counter()
    widget.unfolded = [*widget.unfolded, *conds]  # everything open: 2100 nodes
    assert time.perf_counter() - start < UNFOLD_S
    assert widget.svg.count('class="node"') > 2000
    assert nesting.visible_count({widget._by_id[i] for i in widget.unfolded}) > LARGE_GRAPH
