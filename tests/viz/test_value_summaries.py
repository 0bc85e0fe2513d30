"""Value summaries of one run (``f.graph(x, inspect=True)``), from the interpret
backend: the compiled function and its cached graph stay as they are."""

import inspect
import json

import numpy as np
import pytest
from graph_samples import nested, scaled_item

import nbgraph as ng
from nbgraph.backend.inspection import summarize
from nbgraph.graph.ir import Op


def test_summaries_of_values():
    array = summarize(np.array([[1.0, 2.0], [3.0, 6.0]]), runs=3)
    assert (array.text, array.shape, array.dtype) == ("float64[2, 2]", (2, 2), "float64")
    assert (array.min, array.max, array.mean, array.runs) == (1.0, 6.0, 3.0, 3)
    assert array.brief() == "float64[2, 2] min 1 max 6 mean 3"
    assert summarize(np.array([True, False, False, False])).mean == 0.25
    scalar = summarize(np.float32(2.5))
    assert (scalar.text, scalar.shape, scalar.min) == ("float32 2.5", None, 2.5)
    assert scalar.brief() == "float32 2.5"
    assert summarize(7).brief() == "int 7"
    assert summarize(np.zeros((0, 3))).min is None
    assert summarize(np.array([1j])).min is None
    assert summarize([1, 2]).brief() == "list of 2"
    # NaNs and infinities are counted; the statistics are of the finite values.
    odd = summarize(np.array([1.0, np.nan, np.inf, -np.inf, 3.0]))
    assert (odd.min, odd.max, odd.mean, odd.nan, odd.inf) == (1.0, 3.0, 2.0, 1, 2)
    assert odd.brief() == "float64[5] min 1 max 3 mean 2 1 NaN 2 Inf"
    only_nan = summarize(np.array([np.nan, np.nan]))
    assert only_nan.min is None and only_nan.brief() == "float64[2] 2 NaN"
    assert summarize(np.complex128(complex(np.nan, 1))).nan == 1
    json.dumps(odd.to_json(), allow_nan=False)  # as Jupyter's messages are sent


def test_inspected_graph_has_each_nodes_last_value():
    f = ng.function(nested)
    x = np.array([-1.0, 2.0, 3.0, 4.0])
    graph = f.graph(x, 3, inspect=True)
    assert f.graph(x, 3) is not graph and f.graph(x, 3).values is None
    assert graph.body is f.graph(x, 3).body  # the same nodes
    values = graph.values
    x_param, n_param = graph.body.params
    assert values[x_param].brief() == "float64[4] min -1 max 4 mean 2"
    assert values[n_param].text == "int 3"
    outer, inner = graph.find(Op.WHILE)
    body = outer.arg[1]
    (increment,) = [n for n in body.nodes if n.label() == "+" and n.loc.lineno == 28]
    assert (values[increment].runs, values[increment].text) == (3, "int 3")
    # The inner loop ran in iterations 2 and 3 (i = 1, 2): 1 + 2 times in all.
    (double,) = [n for n in inner.arg[1].nodes if n.label() == "*"]
    assert values[double].runs == 3 and values[double].text == "float64 4.0"
    total = graph.body.results[0]  # the first value returned: the outer loop's total
    assert total.op is Op.PROJ and total.inputs[0] is outer
    assert values[total].text == "float64 1.0" and f(x, 3)[0] == 1.0


def test_a_branch_not_taken_has_no_values():
    graph = ng.function(nested).graph(np.array([1.0, 2.0]), 2, inspect=True)
    (cond,) = graph.find(Op.COND)
    then, other = cond.arg
    assert all(node in graph.values for node in then.nodes)
    assert not any(node in graph.values for node in other.nodes)


def test_a_failing_run_keeps_the_values_before_and_marks_the_node():
    g = ng.function(scaled_item)
    line = inspect.getsourcelines(scaled_item)[1] + 3
    with pytest.warns(UserWarning, match=f"raised IndexError at line {line}: index 3 is out"):
        graph = g.graph(np.arange(3.0), 2, inspect=True)
    assert graph.failed_node.label() == "getitem"
    assert graph.failed_node not in graph.values
    assert graph.values[graph.body.params[1]].text == "int 2"
    assert g.graph(np.arange(3.0), 2).failed_node is None  # the cached graph is untouched
