"""Graph -> DOT/SVG: stable ids, clusters for nested cond/while, folding, edge labels,
source locations, and the marks of Python-fallback and failing nodes."""

import inspect
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from graph_samples import collatz, medians, nested, noisy, scaled_item

import nbgraph as ng
from nbgraph.graph.ir import Op
from nbgraph.graph.printer import node_names
from nbgraph.viz import LayoutUnavailable, to_dot, to_svg
from nbgraph.viz.dot import FAILED_COLOR, PYTHON_COLOR
from nbgraph.viz.folding import DRAWING_BUDGET, Nesting


def nested_graph():
    return ng.function(nested).graph(np.arange(4.0), 3)


def ident(graph, node):
    return "n" + node_names(graph)[node][1:]


def lines_of(drawing):
    return drawing.source.splitlines()


def test_node_ids_are_the_listing_names_and_stable():
    graph = nested_graph()
    first, second = to_dot(graph).source, to_dot(graph).source
    assert first == second
    listed = set(re.findall(r"%(\d+)", str(graph)))
    drawn = set(re.findall(r"^\s*n(\d+) \[", first, re.M))
    assert drawn and drawn <= listed
    assert {"n0", "n1"} <= {f"n{k}" for k in drawn}  # the arguments
    # A fresh trace of the same function draws the same ids.
    assert to_dot(ng.function(nested).graph(np.arange(4.0), 3)).source == first


def test_nested_cond_and_while_are_nested_clusters():
    graph = nested_graph()
    outer, inner = graph.find(Op.WHILE)
    (cond,) = graph.find(Op.COND)
    source = to_dot(graph).source
    depth = {
        m.group(2): len(m.group(1))
        for m in re.finditer(r"^(\t*)subgraph (cluster_\w+) \{", source, re.M)
    }
    o, c, i = ident(graph, outer), ident(graph, cond), ident(graph, inner)
    assert depth == {
        f"cluster_{o}": 1,
        f"cluster_{o}_test": 2,
        f"cluster_{o}_body": 2,
        f"cluster_{c}": 3,
        f"cluster_{c}_then": 4,
        f"cluster_{c}_else": 4,
        f"cluster_{i}": 5,
        f"cluster_{i}_test": 6,
        f"cluster_{i}_body": 6,
    }
    # The body's loop variables are named; values flow through entry and exit nodes.
    assert re.search(r"label=<<b>total</b>", source)
    assert f"{i}_end -> {c}_end" in source
    assert f"{c}_end -> {o}_end" in source


def test_source_locations_are_attached():
    graph = nested_graph()
    start = inspect.getsourcelines(nested)[1]
    svg = to_svg(graph, everything=True)
    for node in graph.all_nodes():
        if node.loc is None or node.op is Op.PROJ:
            continue
        assert node.loc.filename.endswith("graph_samples.py")
        where = f"graph_samples.py, line {node.loc.lineno}, in nested"
        block = re.search(rf'<g id="{ident(graph, node)}" class="node">.*?</g>', svg, re.S)
        assert block and where in block.group(0)
    (multiply,) = [n for n in graph.all_nodes() if n.label() == "*"]
    assert multiply.loc.lineno == start + 7  # total += x[j] * 2.0


def test_svg_has_the_ids_and_clusters():
    graph = ng.function(collatz).graph(27)
    svg = to_svg(graph)
    (loop,) = graph.find(Op.WHILE)
    (cond,) = graph.find(Op.COND)
    for name in (ident(graph, loop), ident(graph, cond)):
        assert f'<g id="cluster_{name}" class="cluster">' in svg
        assert f'<g id="{name}" class="node">' in svg
        assert f'<g id="{name}_end" class="node">' in svg
    assert "▾ while · line" in svg


def test_folded_cluster_is_one_node_with_the_edges_of_its_contents():
    graph = nested_graph()
    outer = graph.find(Op.WHILE)[0]
    o = ident(graph, outer)
    source = to_dot(graph, unfolded=[]).source
    assert "subgraph" not in source
    nesting = Nesting(graph)
    inside = [n for n, owners in nesting.owners.items() if outer in owners]
    assert len(inside) == nesting.inside[outer] > 20
    for node in inside:
        assert not re.search(rf"^\s*{ident(graph, node)} \[", source, re.M)
    assert re.search(rf"^\s*{o} \[.*shape=box3d", source, re.M)
    assert f'▸ while</b><br/><font point-size="8" color="#4b5563">%{o[1:]} · L' in source
    # The argument x is read inside the loop: its edge enters the folded node.
    assert f"n0 -> {o}" in source
    assert f"{o} -> results" in source


def test_large_graphs_start_folded_below_a_depth():
    graph = nested_graph()
    outer, inner = graph.find(Op.WHILE)
    (cond,) = graph.find(Op.COND)
    nesting = Nesting(graph)
    assert nesting.initial_unfolded(DRAWING_BUDGET) == {outer, cond, inner}  # small: all open
    top = sum(1 for owners in nesting.owners.values() if not owners)
    first = top + nesting.direct[outer]
    assert nesting.initial_unfolded(budget=first) == {outer}
    assert nesting.initial_unfolded(budget=first + nesting.direct[cond]) == {outer, cond}
    assert nesting.initial_unfolded(budget=first - 1) == set()
    assert nesting.visible_count({outer}) == first
    assert f"cluster_{ident(graph, inner)}" not in to_dot(graph, unfolded={outer}).source


def test_edges_are_labeled_with_dtype_and_shape():
    f = ng.function(nested)
    x = np.arange(4.0) - 1
    plain = to_dot(f.graph(x, 3)).source
    assert "n0 -> " in plain and 'label="float64[?]"' in plain
    assert re.search(r"label=int\b", plain)
    assert "label=" not in "\n".join(
        line for line in lines_of(to_dot(f.graph(x, 3), types=False)) if "->" in line
    )
    run = to_dot(f.graph(x, 3, inspect=True)).source
    assert 'label="float64[4]"' in run and 'label="float64[?]"' not in run
    assert "float64[4] min -1 max 2 mean 0.5" in run


def test_python_fallback_and_last_error_are_marked():
    f = ng.function(medians)
    x = np.arange(6.0).reshape(2, 3)
    f(x)
    graph = f.graph(x)
    (median,) = graph.python_nodes
    assert "np.median" in graph.python_nodes[median]
    line = next(s for s in lines_of(to_dot(graph)) if s.strip().startswith(ident(graph, median)))
    assert f'color="{PYTHON_COLOR}"' in line and "dashed" in line and "runs in Python" in line

    g = ng.function(scaled_item)
    with pytest.raises(IndexError):
        g(np.arange(3.0), 2)
    graph = g.graph(np.arange(3.0), 2)
    assert graph.failed_node is not None and graph.failed_node.label() == "getitem"
    failed = ident(graph, graph.failed_node)
    line = next(s for s in lines_of(to_dot(graph)) if s.strip().startswith(failed + " "))
    assert f'color="{FAILED_COLOR}"' in line and "last error here" in line


def test_folded_cluster_shows_the_error_inside():
    g = ng.function(nested)
    x = np.arange(4.0)
    graph = g.graph(x, 3)
    graph.failed_node = next(n for n in graph.all_nodes() if n.label() == "*")
    outer = ident(graph, graph.find(Op.WHILE)[0])
    line = next(s for s in lines_of(to_dot(graph, unfolded=[])) if s.strip().startswith(outer))
    assert f'color="{FAILED_COLOR}"' in line


def test_without_dot_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    graph = ng.function(collatz).graph(27)
    with pytest.raises(LayoutUnavailable, match="apt-get install graphviz"):
        to_svg(graph)
    assert "digraph collatz" in to_dot(graph).source  # DOT needs no Graphviz


def test_text_from_user_code_is_escaped():
    graph = ng.function(noisy).graph(np.arange(3.0))
    svg = ET.fromstring(to_svg(graph).split("\n", 3)[3])  # after the XML prolog
    titles = [
        a.get("{http://www.w3.org/1999/xlink}title")
        for a in svg.iter()
        if a.get("{http://www.w3.org/1999/xlink}title")
    ]
    assert any("""'a<b> & "q" """ in t and "{x} é'" in t for t in titles)
    assert any("""there "quoted" <b>'""" in t for t in titles)
