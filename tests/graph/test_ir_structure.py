"""The shape of traced graphs: which statements become WHILE/COND nodes, which are
decided at trace time, how often a function is traced, and where nodes point back to."""

import inspect

import numpy as np
import pytest

import nbgraph as ng


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def constant_range_loop(x):
    for i in range(3):
        x = x + i
    return x


def argument_range_loop(x, n):
    for i in range(n):
        x = x + i
    return x


def static_flag_branch(x, flag):
    if flag:
        x = x + 1
    else:
        x = x - 1
    return x


def constant_branch(x):
    k = 3
    if k > 2:
        x = x * 2
    else:
        x = x - 2
    return x


def data_branch(x):
    if x.sum() > 0:
        x = x * 2
    else:
        x = x - 2
    return x


def array_total(x):
    total = 0.0
    for v in x:
        total += v
    return total


def triangle(n):
    s = 0
    for i in range(n):
        s += i
    return s


def graph_fn(fn, **options):
    return ng.function(fn, backend="interpret", **options)


def line_of(fn, text):
    """The file line number of the only line of fn's source that contains text."""
    lines, start = inspect.getsourcelines(fn)
    found = [start + i for i, line in enumerate(lines) if text in line]
    assert len(found) == 1, f"{text!r} occurs {len(found)} times in {fn.__name__}"
    return found[0]


def top_level(graph, op):
    return [n for n in graph.body.nodes if n.op is op]


# --- collatz: one loop with a branch inside -----------------------------------------


def test_collatz_is_one_while_at_top_level():
    g = graph_fn(collatz).graph(27)
    whiles = top_level(g, ng.Op.WHILE)
    assert len(whiles) == 1
    assert top_level(g, ng.Op.COND) == []


def test_collatz_while_regions_are_test_and_body():
    g = graph_fn(collatz).graph(27)
    (loop,) = top_level(g, ng.Op.WHILE)
    test_region, body_region = loop.arg
    assert isinstance(test_region, ng.Region)
    assert isinstance(body_region, ng.Region)
    assert loop.regions() == (test_region, body_region)
    conds = [n for n in body_region.nodes if n.op is ng.Op.COND]
    assert len(conds) == 1
    assert not any(n.op is ng.Op.COND for n in test_region.nodes)
    assert len(test_region.results) == 1


def test_collatz_cond_regions_hold_each_branch():
    g = graph_fn(collatz).graph(27)
    (loop,) = top_level(g, ng.Op.WHILE)
    (cond,) = [n for n in loop.arg[1].nodes if n.op is ng.Op.COND]
    then_region, else_region = cond.arg
    then_labels = [n.label() for n in then_region.nodes]
    else_labels = [n.label() for n in else_region.nodes]
    assert "//" in then_labels and "*" not in then_labels
    assert "*" in else_labels and "+" in else_labels and "//" not in else_labels


def test_collatz_graph_runs_like_python():
    f = graph_fn(collatz)
    for n in (1, 2, 6, 27, 97):
        result = f(n)
        assert result == collatz(n)
        assert type(result) is int


def test_collatz_to_code_uses_staged_operators():
    code = ng.to_code(collatz)
    assert "ag__.while_stmt" in code
    assert "ag__.if_stmt" in code
    assert "while n != 1" not in code
    assert "def collatz(n):" in code


def test_to_code_accepts_a_graph_function():
    assert ng.to_code(graph_fn(collatz)) == ng.to_code(collatz)


# --- what is staged and what is decided while tracing -------------------------------


def test_loop_over_constant_range_is_unrolled():
    f = graph_fn(constant_range_loop)
    x = np.arange(4.0)
    g = f.graph(x)
    assert g.find(ng.Op.WHILE) == []
    adds = [n for n in g.all_nodes() if n.op is ng.Op.CALL and n.label() == "+"]
    assert len(adds) == 3
    np.testing.assert_array_equal(f(x), constant_range_loop(x))


def test_loop_over_argument_range_is_a_while():
    f = graph_fn(argument_range_loop)
    x = np.arange(4.0)
    g = f.graph(x, 5)
    assert len(g.find(ng.Op.WHILE)) == 1
    np.testing.assert_array_equal(f(x, 5), argument_range_loop(x, 5))
    np.testing.assert_array_equal(f(x, 0), argument_range_loop(x, 0))


def test_loop_over_array_argument_is_a_while():
    g = graph_fn(array_total).graph(np.ones(3))
    assert len(g.find(ng.Op.WHILE)) == 1


@pytest.mark.parametrize("flag", [True, False])
def test_branch_on_static_argument_is_decided_at_trace_time(flag):
    f = graph_fn(static_flag_branch, static_argnames=("flag",))
    x = np.arange(3.0)
    g = f.graph(x, flag)
    assert g.find(ng.Op.COND) == []
    labels = [n.label() for n in g.find(ng.Op.CALL)]
    assert labels == (["+"] if flag else ["-"])
    np.testing.assert_array_equal(f(x, flag), static_flag_branch(x, flag))


def test_static_argument_values_get_their_own_trace():
    f = graph_fn(static_flag_branch, static_argnames="flag")
    x = np.arange(3.0)
    f(x, True)
    f(x + 1, True)
    assert f.trace_count == 1
    f(x, False)
    assert f.trace_count == 2
    f(x, True)
    assert f.trace_count == 2


def test_branch_on_python_constant_is_decided_at_trace_time():
    f = graph_fn(constant_branch)
    g = f.graph(np.ones(3))
    assert g.find(ng.Op.COND) == []
    assert [n.label() for n in g.find(ng.Op.CALL)] == ["*"]


def test_branch_on_array_value_is_a_cond():
    f = graph_fn(data_branch)
    g = f.graph(np.ones(3))
    assert len(top_level(g, ng.Op.COND)) == 1
    for x in (np.ones(3), -np.ones(3)):
        np.testing.assert_array_equal(f(x), data_branch(x))


# --- the trace cache ------------------------------------------------------------------


def test_new_array_lengths_reuse_the_trace():
    f = graph_fn(array_total)
    for length in (3, 5, 0, 17):
        x = np.arange(float(length))
        assert f(x) == array_total(x)
    assert f.trace_count == 1


def test_new_int_values_reuse_the_trace():
    f = graph_fn(triangle)
    for n in (0, 3, 10, 100):
        assert f(n) == triangle(n)
    assert f.trace_count == 1


def test_new_dtype_or_rank_retraces():
    f = graph_fn(data_branch)
    f(np.ones(3))
    f(np.ones(3, dtype=np.float32))
    assert f.trace_count == 2
    x = -np.ones((2, 2))
    np.testing.assert_array_equal(f(x), data_branch(x))
    assert f.trace_count == 3
    f(np.ones(7, dtype=np.float32))
    f(np.ones((5, 1)))
    assert f.trace_count == 3


def test_graph_does_not_run_or_trace_twice():
    f = graph_fn(collatz)
    g1 = f.graph(27)
    g2 = f.graph(5)
    assert g1 is g2
    assert f.trace_count == 1
    assert f(27) == 111
    assert f.trace_count == 1


# --- source locations -------------------------------------------------------------------


def test_nodes_point_at_the_users_file():
    g = graph_fn(collatz).graph(27)
    computed = [n for n in g.all_nodes() if n.op in (ng.Op.CALL, ng.Op.COND, ng.Op.WHILE)]
    assert computed
    for node in computed:
        assert node.loc is not None, node
        assert node.loc.filename == collatz.__code__.co_filename == __file__


def test_nodes_point_at_the_users_lines():
    g = graph_fn(collatz).graph(27)
    (loop,) = g.find(ng.Op.WHILE)
    (cond,) = g.find(ng.Op.COND)
    assert loop.loc.lineno == line_of(collatz, "while n != 1")
    assert cond.loc.lineno == line_of(collatz, "if n % 2 == 0")

    def line_of_op(label):
        found = {n.loc.lineno for n in g.find(ng.Op.CALL) if n.label() == label}
        assert len(found) == 1, (label, found)
        return found.pop()

    assert line_of_op("!=") == line_of(collatz, "while n != 1")
    assert line_of_op("%") == line_of(collatz, "if n % 2 == 0")
    assert line_of_op("//") == line_of(collatz, "n = n // 2")
    assert line_of_op("*") == line_of(collatz, "n = 3 * n + 1")
    assert str(cond.loc) == f"{__file__}:{line_of(collatz, 'if n % 2 == 0')}"


def test_unrolled_loop_nodes_point_at_the_loop_body():
    g = graph_fn(constant_range_loop).graph(np.ones(2))
    lines = {n.loc.lineno for n in g.find(ng.Op.CALL)}
    assert lines == {line_of(constant_range_loop, "x = x + i")}
