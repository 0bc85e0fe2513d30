"""The graph widget's kernel side: layout on folding, selection, the detail records,
how a graph displays, and the browser's layout where Graphviz is missing."""

import inspect

import numpy as np
from graph_samples import collatz, nested

import nbgraph as ng
from nbgraph.graph.ir import Op
from nbgraph.graph.printer import node_names
from nbgraph.viz import GraphWidget
from nbgraph.viz.folding import DRAWING_BUDGET
from nbgraph.viz.graph_widget import BROWSER_GRAPHVIZ

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def nested_graph(**kwargs):
    return ng.function(nested).graph(np.array([-1.0, 2.0, 3.0, 4.0]), 3, **kwargs)


def ident(graph, node):
    return "n" + node_names(graph)[node][1:]


def test_folding_lays_out_the_visible_part_again():
    graph = nested_graph()
    widget = GraphWidget(graph, budget=DRAWING_BUDGET)  # small enough to open whole
    controls = [ident(graph, n) for n in graph.all_nodes() if n.regions()]
    assert widget.engine == "kernel" and sorted(widget.unfolded) == sorted(controls)
    opened = widget.svg
    assert all(f'id="cluster_{c}"' in opened for c in controls)
    widget.unfolded = []
    assert 'class="cluster"' not in widget.svg and "▸ while" in widget.svg
    widget.unfolded = controls
    assert widget.svg == opened
    widget.show_types = False
    assert "float64[?]" not in widget.svg and "float64[?]" in opened


def test_selection_names_a_node_of_the_listing():
    graph = ng.function(collatz).graph(27)
    widget = GraphWidget(graph)
    assert widget.selected == "" and widget.selected_node is None
    modulo = next(n for n in graph.all_nodes() if n.label() == "%")
    widget.selected = node_names(graph)[modulo]
    assert widget.selected_node is modulo


def test_detail_records():
    graph = nested_graph(inspect=True)
    widget = GraphWidget(graph)
    assert widget.has_values and widget.show_values
    start = inspect.getsourcelines(nested)[1]
    double = next(n for n in graph.all_nodes() if n.label() == "*")
    info = widget.details(ident(graph, double))
    assert info["listing"].startswith(f"%{ident(graph, double)[1:]} = call *(%")
    assert info["family"] == "elementwise" and info["constants"] == ["2.0"]
    assert [i["type"] for i in info["inputs"]] == ["float64[]"]
    assert [u["op"] for u in info["users"]] == ["total = +"]  # `total += ...`
    assert info["location"]["line"] == start + 7
    assert info["location"]["text"].endswith(f"graph_samples.py, line {start + 7}, in nested")
    assert info["value"]["text"] == "float64 4.0" and info["value"]["runs"] == 3
    outer, inner = graph.find(Op.WHILE)
    (cond,) = graph.find(Op.COND)
    assert info["clusters"] == [ident(graph, c) for c in (outer, cond, inner)]
    lines = widget.sources[double.loc.filename]
    assert lines[str(start + 7)].strip() == "total += x[j] * 2.0"
    assert str(start + 5) in lines and str(start + 9) in lines
    loop = widget.details(ident(graph, outer))
    assert loop["regions"] == ["test", "body"] and loop["size"] > 20
    projection = next(n for n in graph.all_nodes() if n.op is Op.PROJ)
    assert widget.details(ident(graph, projection))["via"] == ident(graph, projection.inputs[0])
    assert not widget.details(ident(graph, projection))["drawn"]
    # The index the browser searches and folds by holds the same, in brief.
    entry = widget.nodes[ident(graph, double)]
    assert entry["name"] == info["name"] and entry["op"] == info["op"]
    assert entry["line"] == start + 7 and entry["in"] == ident(graph, inner) and entry["drawn"]
    assert widget.nodes[ident(graph, projection)]["via"] == ident(graph, projection.inputs[0])
    assert "drawn" not in widget.nodes[ident(graph, projection)]


def test_a_graph_displays_as_text_outside_a_kernel():
    graph = ng.function(collatz).graph(27)
    assert graph._repr_mimebundle_() == {"text/plain": str(graph)}


def test_the_widget_carries_an_svg_and_the_listing_for_other_front_ends():
    graph = ng.function(collatz).graph(27)
    data, _ = graph.widget()._repr_mimebundle_()
    assert set(data) == {WIDGET_VIEW, "image/svg+xml", "text/plain"}
    assert data["text/plain"] == str(graph)
    assert data["image/svg+xml"].lstrip().startswith("<?xml")


def test_without_dot_the_browser_lays_out(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    graph = ng.function(collatz).graph(27)
    widget = GraphWidget(graph)
    assert widget.engine == "browser" and widget.svg == ""
    assert widget.dot.startswith("digraph collatz")
    assert "apt-get install graphviz" in widget.layout_help
    data, _ = widget._repr_mimebundle_()
    assert set(data) == {WIDGET_VIEW, "text/plain"}
    widget.unfolded = []
    assert "subgraph" not in widget.dot
    sent = []
    monkeypatch.setattr(widget, "send", sent.append)
    widget._message(widget, {"type": "graphviz-module"}, [])
    assert sent == [{"type": "graphviz-module", "source": BROWSER_GRAPHVIZ.read_text()}]
