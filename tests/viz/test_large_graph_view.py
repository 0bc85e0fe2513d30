"""A graph of 2000+ nodes starts folded and stays quick to lay out as it unfolds.

What keeps it quick is checked, not the wall time (the machines are shared): the first
view lays out only the folded drawing (its folded boxes' edge labels placed after the
layout), and an unfolded large drawing asks ``dot`` for the cheap placement
(``nslimit``, edge labels as ``xlabel``) that turns a minute into seconds.
"""

import importlib.util
import re

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.viz import GraphWidget, to_dot
from nbgraph.viz.dot import LARGE_GRAPH
from nbgraph.viz.folding import VISIBLE_BUDGET, Nesting

LOOPS, STEPS = 10, 50  # 10 loops, each a cond of 2 x 50 statements: 2100 nodes


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
    widget = GraphWidget(big_graph)
    nesting = Nesting(big_graph)
    unfolded = {widget._clusters[i] for i in widget.unfolded}
    assert "cond" not in {n.op.value for n in unfolded}  # the conds inside start folded
    assert nesting.visible_count(unfolded) <= VISIBLE_BUDGET
    assert widget.svg.count('class="node"') < VISIBLE_BUDGET

    assert "nslimit" not in to_dot(big_graph, unfolded).source  # small: the full search
    # Each edge meets a folded cond: labelled after the layout, which many edges into
    # one box made several times slower.
    assert edge_label_keys(to_dot(big_graph, unfolded).source) == {"xlabel"}

    controls = [i for i, info in widget.nodes.items() if info["kind"] in ("cond", "while")]
    widget.unfolded = controls  # everything open: 2100 nodes
    assert widget.svg.count('class="node"') > 2000
    everything = {widget._clusters[i] for i in widget.unfolded}
    assert nesting.visible_count(everything) > LARGE_GRAPH
    source = to_dot(big_graph, everything).source
    assert "nslimit=1" in source
    assert edge_label_keys(source) == {"xlabel"}


def edge_label_keys(source: str) -> set[str]:
    """How the DOT source's edges carry their labels (``label`` or ``xlabel``)."""
    return set(re.findall(r"->.*\[.*?\b(x?label)=", source))
