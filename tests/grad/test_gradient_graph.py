"""The gradient as a graph: its backward nodes, their lines, the graph view, the CUDA
backend, and loops."""

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.graph.ir import Op
from nbgraph.viz import GraphWidget


def squares(x):
    y = np.sin(x) * 2.0
    return np.sum(y * y)


def running(x, n):
    total = 0.0
    i = 0
    while i < n:
        total = total + np.sum(np.cos(x) * i)
        x = x * 1.5
        i += 1
    return total


def reads_its_list(x, n):
    parts = []
    for i in range(n):
        parts.append(x * i)
        x = x + len(parts)
    return np.sum(x)


X = np.array([0.3, -0.7, 1.1])


def test_backward_nodes_point_at_the_forward_lines():
    graph = ng.grad(squares).graph(X)
    lines = {n.loc.lineno for n in graph.all_nodes() if n.loc and n.loc.gradient}
    first = squares.__code__.co_firstlineno
    assert lines == {first + 1, first + 2}  # the sin line and the sum line
    listing = str(graph)
    assert f"# gradient of line {first + 1}" in listing
    assert f"# line {first + 1}" in listing  # the forward node itself


def test_the_graph_view_marks_gradient_nodes():
    graph = ng.grad(squares).graph(X)
    first = squares.__code__.co_firstlineno
    view = GraphWidget(graph)
    details = [view.details(i) for i in view.nodes]
    gradient = [d for d in details if d["location"] and d["location"]["gradient"]]
    assert gradient
    assert all(d["location"]["text"].startswith("gradient of ") for d in gradient)
    assert f"∂L{first + 1}" in graph.to_dot().source


def test_a_loop_runs_backwards_as_a_graph_loop():
    graph = ng.grad(running, backend="cpu").graph(X, 3)
    loops = [n for n in graph.all_nodes() if n.op is Op.WHILE]
    assert len(loops) == 2  # the forward loop (saving its states) and the backward one
    assert not graph.python_nodes
    value, grad = ng.value_and_grad(running, backend="cpu")(X, 4)
    assert value == pytest.approx(running(X, 4))
    eps = 1e-6
    for i in range(X.size):
        e = np.zeros_like(X)
        e[i] = eps
        fd = (running(X + e, 4) - running(X - e, 4)) / (2 * eps)
        assert grad[i] == pytest.approx(fd, rel=1e-6)


def test_zero_iterations_give_a_zero_gradient():
    assert np.array_equal(ng.grad(running)(X, 0), np.zeros(3))


def test_a_loop_reading_a_list_it_carries_is_refused_at_its_line():
    with pytest.raises(ng.NotDifferentiableError) as info:
        ng.grad(reads_its_list)(X, 3)
    assert f"line {reads_its_list.__code__.co_firstlineno + 4}" in str(info.value)


def test_a_gradient_made_anew_each_step_is_compiled_once():
    first = ng.grad(squares, backend="cpu")
    first(X)
    again = ng.grad(squares, backend="cpu")
    again(X)
    assert again.function is first.function
    assert first.function.trace_count == 1


def test_cuda_runs_elementwise_gradients():
    grad = ng.grad(lambda_free_loss, backend="cuda")(X, np.array([1.0, 2.0, -0.5]))
    expected = ng.grad(lambda_free_loss, backend="interpret")(X, np.array([1.0, 2.0, -0.5]))
    np.testing.assert_allclose(grad, expected, rtol=1e-12)


def lambda_free_loss(x, y):
    return np.sum(np.tanh(x * y) + x**2) / 3.0
