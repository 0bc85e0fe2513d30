"""The text listing (``print(graph)``) of nested cond/while: the structure, the names
the drawings use as ids, and the user's line of every node."""

import re

import numpy as np
from graph_samples import nested

import nbgraph as ng
from nbgraph.graph.printer import node_names
from nbgraph.viz.dot import node_id


def test_listing_nests_regions_and_names_lines():
    graph = ng.function(nested).graph(np.arange(4.0), 3)
    text = graph.listing(everything=True)
    assert text == ng.function(nested).graph(np.arange(4.0), 3).listing(everything=True)
    indents = [
        (len(line) - len(line.lstrip()), line.strip().split(" ")[-1])
        for line in text.splitlines()
        if line.strip().endswith(":")
    ]
    # while > body > cond > then > while > test/body, and the cond's else.
    assert [name for _, name in indents] == ["test:", "body:", "then:", "test:", "body:", "else:"]
    assert [depth for depth, _ in indents] == [4, 4, 8, 12, 12, 8]
    names = node_names(graph)
    # `%7 = call ...`, or `%7 (total) = call ...` where the line assigns a variable
    lines = {
        line.strip().split(" ")[0]: line
        for line in text.splitlines()
        if re.match(r"%\d+( \(\w+\))? = ", line.strip())
    }
    for node in graph.all_nodes():
        line = lines[names[node]]
        if node.loc is not None:
            assert line.endswith(f"# line {node.loc.lineno}")
        assert re.fullmatch(r"n\d+", node_id(names[node]))
