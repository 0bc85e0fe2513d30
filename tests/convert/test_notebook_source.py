"""Functions defined in notebook cells: run real cells in an in-process IPython shell and
check that nbgraph reads the cell's source, computes what eager Python computes, and
points graph nodes and errors back at the cell and line the user wrote."""

import textwrap

import numpy as np
import pytest
from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

import nbgraph as ng

IMPORTS = """
import numpy as np
import nbgraph as ng
"""

DEFINE_HALVE = """
def halve_until_small(x):
    steps = 0
    while x.sum() > 1.0:
        x = x / 2
        steps += 1
    return steps, x
"""

CALL_HALVE = """
f = ng.function(halve_until_small, backend="interpret")
data = np.full(4, 10.0)
got = f(data)
want = halve_until_small(data)
code = ng.to_code(halve_until_small)
graph = f.graph(data)
"""


@pytest.fixture
def shell(tmp_path, monkeypatch):
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    InteractiveShell.clear_instance()
    config = Config()
    config.HistoryManager.hist_file = ":memory:"
    sh = InteractiveShell.instance(config=config)
    try:
        yield sh
    finally:
        InteractiveShell.clear_instance()


def run_cell(sh, source):
    """Run one cell; fail the test with the cell's exception if it raised."""
    result = sh.run_cell(textwrap.dedent(source).lstrip("\n"), store_history=True)
    if result.error_before_exec is not None:
        raise result.error_before_exec
    if result.error_in_exec is not None:
        raise result.error_in_exec
    return result


def cell_line(source, text):
    """1-based line of text within a cell's (dedented, stripped) source."""
    lines = textwrap.dedent(source).lstrip("\n").splitlines()
    found = [i + 1 for i, line in enumerate(lines) if text in line]
    assert len(found) == 1
    return found[0]


def test_cell_function_runs_like_eager(shell):
    run_cell(shell, IMPORTS)
    run_cell(shell, DEFINE_HALVE)
    run_cell(shell, CALL_HALVE)
    ns = shell.user_ns
    steps, x = ns["got"]
    want_steps, want_x = ns["want"]
    assert steps == want_steps == 6
    assert type(steps) is int
    np.testing.assert_array_equal(x, want_x)
    assert ns["f"].trace_count == 1


def test_cell_function_to_code(shell):
    run_cell(shell, IMPORTS)
    run_cell(shell, DEFINE_HALVE)
    run_cell(shell, CALL_HALVE)
    code = shell.user_ns["code"]
    assert code.startswith("def halve_until_small(x):")
    assert "ag__.while_stmt" in code
    assert "while x.sum() > 1.0" not in code


def test_cell_function_graph_points_at_its_cell(shell):
    run_cell(shell, IMPORTS)
    run_cell(shell, DEFINE_HALVE)
    run_cell(shell, CALL_HALVE)
    ns = shell.user_ns
    g = ns["graph"]
    filename = ns["halve_until_small"].__code__.co_filename
    assert filename != __file__
    (loop,) = g.find(ng.Op.WHILE)
    assert loop.loc.filename == filename
    assert loop.loc.lineno == cell_line(DEFINE_HALVE, "while x.sum() > 1.0")
    (divide,) = [n for n in g.find(ng.Op.CALL) if n.label() == "/"]
    assert divide.loc.filename == filename
    assert divide.loc.lineno == cell_line(DEFINE_HALVE, "x = x / 2")
    for node in g.all_nodes():
        if node.op in (ng.Op.CALL, ng.Op.WHILE):
            assert node.loc.filename == filename


def test_graph_points_at_defining_cell_not_calling_cell(shell):
    run_cell(shell, IMPORTS)
    run_cell(shell, DEFINE_HALVE)
    run_cell(shell, "def marker():\n    pass\n")
    run_cell(shell, CALL_HALVE)
    ns = shell.user_ns
    define_file = ns["halve_until_small"].__code__.co_filename
    other_file = ns["marker"].__code__.co_filename
    assert define_file != other_file
    files = {n.loc.filename for n in ns["graph"].find(ng.Op.CALL)}
    assert files == {define_file}


def test_redefined_function_uses_new_cell(shell):
    run_cell(shell, IMPORTS)
    run_cell(shell, DEFINE_HALVE)
    run_cell(shell, CALL_HALVE)
    first_file = shell.user_ns["halve_until_small"].__code__.co_filename
    run_cell(
        shell,
        """
        def halve_until_small(x):
            steps = 0
            while x.sum() > 1.0:
                x = x / 4
                steps += 1
            return steps, x
    """,
    )
    run_cell(shell, CALL_HALVE)
    ns = shell.user_ns
    assert ns["halve_until_small"].__code__.co_filename != first_file
    assert "x = x / 4" in ns["code"]
    assert ns["got"][0] == ns["want"][0] == 3
    np.testing.assert_array_equal(ns["got"][1], ns["want"][1])
    (divide,) = [n for n in ns["graph"].find(ng.Op.CALL) if n.label() == "/"]
    assert divide.loc.filename == ns["halve_until_small"].__code__.co_filename
    assert divide.arg.args[1] == 4


def test_decorated_cell_function_calling_earlier_cell(shell):
    run_cell(shell, IMPORTS)
    run_cell(
        shell,
        """
        def scale(x):
            if x.sum() > 0:
                x = x * 3
            return x
    """,
    )
    run_cell(
        shell,
        """
        @ng.function(backend="interpret")
        def total(x, n):
            t = 0.0
            for i in range(n):
                t += scale(x)[i]
            return t
    """,
    )
    run_cell(
        shell,
        """
        data = np.arange(5.0)
        got = [total(data, n) for n in range(6)]
        want = [total.eager(data, n) for n in range(6)]
        graph = total.graph(data, 3)
    """,
    )
    ns = shell.user_ns
    assert ns["got"] == ns["want"]
    assert ns["total"].trace_count == 1
    scale_file = ns["scale"].__code__.co_filename
    total_file = ns["total"].python_function.__code__.co_filename
    assert scale_file != total_file
    (times,) = [n for n in ns["graph"].find(ng.Op.CALL) if n.label() == "*" and n.type.ndim == 1]
    assert times.loc.filename == scale_file
    assert times.loc.lineno == 3


def test_error_in_cell_function_names_cell_and_line(shell):
    run_cell(shell, IMPORTS)
    source = """
        def average(n):
            x = 0
            for i in range(n):
                x = x + 0.5
            return x
    """
    run_cell(shell, source)
    result = shell.run_cell('ng.function(average, backend="interpret")(3)', store_history=True)
    err = result.error_in_exec
    assert isinstance(err, ng.LoopTypeError)
    filename = shell.user_ns["average"].__code__.co_filename
    assert err.loc.filename == filename
    assert err.loc.lineno == cell_line(source, "for i in range(n)")
    assert f"Cell In[{shell.execution_count - 2}], line 3" in str(err)  # as IPython names it
    assert "'x'" in str(err)
