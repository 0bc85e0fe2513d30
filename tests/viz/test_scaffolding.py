"""What conversion adds (the flags of break, continue and return and of Python types,
the effect token) is left out of the listing and the drawing unless asked for: the loop
says how it exits early, an if which flag it sets, the branch skipping the rest of a
body once one is set says so; ``everything=True`` shows the compiler's whole graph.
The fuzzer's random programs check the listing's consistency
(tests/fuzz/test_listing_fuzz.py)."""

import inspect
import re

import numpy as np

import nbgraph as ng
from nbgraph.graph.ir import Op
from nbgraph.graph.printer import node_names
from nbgraph.graph.scaffolding import scaffolding
from nbgraph.viz.dot import node_id, to_dot


def exits_early(x, n):
    s = 0.0
    for i in range(n):
        if x[i] < 0:
            continue
        if s > 10:
            break
        s += x[i]
        print("s", s)
    return s


def returns_inside(x):
    i = 0
    while i < x.shape[0]:
        if x[i] < 0:
            return i
        i += 1
    return -1


def line_of(fn, text):
    lines, start = inspect.getsourcelines(fn)
    return start + next(k for k, line in enumerate(lines) if text in line)


def graph_of(fn, *args):
    return ng.function(fn, backend="interpret").graph(*args)


def test_the_listing_leaves_the_flags_and_token_out():
    graph = graph_of(exits_early, np.array([1.0, -3.0]), 2)
    text = str(graph)
    everything = graph.listing(everything=True)
    assert "not(" in everything and "None() : effect" in everything
    assert "not(" not in text and "None()" not in text
    loop = line_of(exits_early, "for i")
    assert re.search(rf"= while\(.*\) : \(int, np.float64\)  # line {loop}, exits: break\n", text)
    assert "params %" in text and " (i), " in text and " (s)" in text  # the loop's variables
    assert f"# line {loop + 1}, continue\n" in text  # the if that continues
    assert "cond(unless continue)" in text and "cond(unless break)" in text
    assert "call print('s', %" in text  # (its token left out)
    # Every line listed is the whole listing's line for that node, by the same name.
    names = set(node_names(graph).values())
    listed = re.findall(r"^\s*(%\d+)", text, re.M)
    assert listed and set(listed) <= names


def test_a_return_inside_a_loop():
    graph = graph_of(returns_inside, np.array([1.0, -3.0]))
    text = str(graph)
    loop = line_of(returns_inside, "while")
    assert f"# line {loop}, exits: return" in text
    assert text.count("cond(unless return)") == 2  # the rest of the body; after the loop
    assert "-1() : int" in text


def test_the_drawing_leaves_them_out_and_titles_the_loop():
    graph = graph_of(exits_early, np.array([1.0, -3.0]), 2)
    hidden = scaffolding(graph).hidden
    names = node_names(graph)
    (loop,) = graph.find(Op.WHILE)
    unfolded = [n for n in graph.all_nodes() if n.regions()]
    drawn = to_dot(graph, unfolded).source
    whole = to_dot(graph, unfolded, everything=True).source
    brk = line_of(exits_early, "break")
    assert f"while · line {loop.loc.lineno} · break at line {brk}" in drawn
    assert f"unless continue · line {brk - 3}" in drawn
    assert "unless" not in whole and "▾ while · line" in whole
    for node in hidden:
        ident = node_id(names[node])
        if node.op is not Op.PROJ:
            assert f"\t{ident} [" in whole or node.op is Op.PARAM or node.op is Op.CONST
            assert f"\t{ident} [" not in drawn
    assert "#d97706" in whole  # the token's edges
    assert "#d97706" not in drawn
