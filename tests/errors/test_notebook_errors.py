"""Errors of graph functions defined in notebook cells, as a real kernel shows them.

One notebook runs once in a kernel: a cell defines a helper and a graph function per
backend, later cells call them successfully, with inputs that fail when the graph runs,
eagerly (for the reference error), and with a variable defined in one branch only
(fails while tracing).  The error outputs must read like eager ones: eager's exception
type and message, ``Cell In[n], line k`` headers ending at the failing line of the
defining cell with that line's text under an arrow, and no nbgraph or Numba paths.
"""

from __future__ import annotations

import re

import nbformat
import pytest
from nbclient import NotebookClient
from nbformat.v4 import new_code_cell, new_notebook
from notebook_cells import printed

BACKENDS = ["cpu", "interpret"]
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
INTERNAL_PATHS = ("nbgraph/", "numba/", "llvmlite/", "site-packages")

DEFINE = """\
SCALE = 2.0


def row_sum(x, n):
    t = 0.0
    for i in range(n):
        t = t + x[i]
    return t


@ng.function
def model_cpu(x, n):
    s = row_sum(x, n)
    return s * SCALE


@ng.function(backend="interpret")
def model_interpret(x, n):
    s = row_sum(x, n)
    return s * SCALE
"""

DEFINE_ONE_BRANCH = """\
LIMIT = 0.0


@ng.function
def one_branch_cpu(x):
    if x.sum() > LIMIT:
        y = x * 2.0
    return y + 1.0


@ng.function(backend="interpret")
def one_branch_interpret(x):
    if x.sum() > LIMIT:
        y = x * 2.0
    return y + 1.0
"""

DEFINE_GENERATOR = """\
WIDTH = 3


@ng.function
def squares(x):
    for v in x:
        yield v * v
"""

CELLS = {
    "import": "import numpy as np, nbgraph as ng",
    "define": DEFINE,
    "works": "print(model_cpu(np.arange(3.0), 3), model_interpret(np.arange(3.0), 3))",
    "eager": "row_sum(np.arange(3.0), 5) * SCALE",
    "run_cpu": "model_cpu(np.arange(3.0), 5)",
    "run_interpret": "model_interpret(np.arange(3.0), 5)",
    "define_one_branch": DEFINE_ONE_BRANCH,
    "eager_one_branch": "one_branch_cpu.python_function(-np.arange(3.0))",
    "trace_cpu": "one_branch_cpu(-np.arange(3.0))",
    "trace_interpret": "one_branch_interpret(-np.arange(3.0))",
    "catch": (
        "for f in (one_branch_cpu, one_branch_interpret):\n"
        "    try:\n"
        "        f(-np.arange(3.0))\n"
        "    except UnboundLocalError as e:\n"
        "        print('caught', type(e).__name__)"
    ),
    "works_again": "print(model_cpu(np.arange(3.0), 2), model_interpret(np.arange(3.0), 2))",
    "define_generator": DEFINE_GENERATOR,
    "generator": "squares(np.arange(3.0))",
}


@pytest.fixture(scope="module")
def cells() -> dict[str, nbformat.NotebookNode]:
    notebook = new_notebook(cells=[new_code_cell(source) for source in CELLS.values()])
    NotebookClient(notebook, timeout=120, kernel_name="python3", allow_errors=True).execute()
    return dict(zip(CELLS, notebook.cells))


def line_in(source: str, text: str, after: str | None = None) -> int:
    """The 1-based line of the only line of ``source`` containing ``text`` (searched
    from the line containing ``after``, if given)."""
    lines = source.splitlines()
    start = 0 if after is None else line_in(source, after) - 1
    found = [i + 1 for i, line in enumerate(lines) if i >= start and text in line]
    assert found, text
    if after is None:
        assert len(found) == 1, text
    return found[0]


def error(cell: nbformat.NotebookNode) -> nbformat.NotebookNode:
    errors = [o for o in cell.outputs if o.output_type == "error"]
    assert len(errors) == 1, cell.outputs
    return errors[0]


def traceback_text(cell: nbformat.NotebookNode) -> str:
    return ANSI.sub("", "\n".join(error(cell).traceback))


def headers(text: str) -> list[str]:
    return re.findall(r"Cell In\[\d+\], line \d+", text)


def arrow_line(text: str, header: str) -> str | None:
    """The source text IPython marks with its arrow in the section under ``header``."""
    section = text.split(header, 1)[1]
    section = re.split(r"\nCell In\[|\n\S+Error|\n\S+Exception", section, maxsplit=1)[0]
    marked = re.search(r"^-+>\s*\d+\s(.*)$", section, flags=re.MULTILINE)
    return marked.group(1) if marked else None


def test_graph_functions_work_and_keep_working_after_errors(cells):
    assert printed(cells["works"]) == "6.0 6.0\n"
    assert printed(cells["works_again"]) == "2.0 2.0\n"
    assert not [o for o in cells["works_again"].outputs if o.output_type == "error"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_time_error_is_eagers(cells, backend):
    eager, graph = error(cells["eager"]), error(cells[f"run_{backend}"])
    assert eager.ename == "IndexError"
    assert graph.ename == eager.ename
    assert graph.evalue == eager.evalue


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_time_traceback_points_at_the_cells(cells, backend):
    cell, define = cells[f"run_{backend}"], cells["define"]
    text = traceback_text(cell)
    d = define.execution_count
    assert headers(text) == [
        f"Cell In[{cell.execution_count}], line 1",
        f"Cell In[{d}], line {line_in(DEFINE, f'def model_{backend}') - 1}",  # decorator
        f"Cell In[{d}], line {line_in(DEFINE, 's = row_sum(x, n)', f'def model_{backend}')}",
        f"Cell In[{d}], line {line_in(DEFINE, 't = t + x[i]')}",
    ], text
    assert "t = t + x[i]" in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_time_traceback_shows_the_failing_line(cells, backend):
    text = traceback_text(cells[f"run_{backend}"])
    last = headers(text)[-1]
    assert arrow_line(text, last).strip() == "t = t + x[i]", text


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_time_traceback_shows_the_calling_line(cells, backend):
    text = traceback_text(cells[f"run_{backend}"])
    caller = headers(text)[-2]
    assert arrow_line(text, caller).strip() == "s = row_sum(x, n)", text


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_time_traceback_has_notes_and_no_internal_paths(cells, backend):
    text = traceback_text(cells[f"run_{backend}"])
    for path in INTERNAL_PATHS:
        assert path not in text, text
    assert f"in graph 'model_{backend}'" in text
    assert "operands: %0 = float64[3]" in text
    loop = line_in(DEFINE, "for i in range(n)")
    assert f"in iteration 4 of the loop at line {loop}" in text


@pytest.mark.parametrize("backend", BACKENDS)
def test_trace_time_error_points_at_the_use(cells, backend):
    cell, define = cells[f"trace_{backend}"], cells["define_one_branch"]
    out = error(cell)
    assert out.ename == "UndefinedValueError"
    assert "'y'" in out.evalue
    assert (
        f"line {line_in(DEFINE_ONE_BRANCH, 'if x.sum() > LIMIT', f'_{backend}(x)')}" in out.evalue
    )
    text = traceback_text(cell)
    use = line_in(DEFINE_ONE_BRANCH, "return y + 1.0", f"_{backend}(x)")
    last = headers(text)[-1]
    assert last == f"Cell In[{define.execution_count}], line {use}", text
    assert arrow_line(text, last).strip() == "return y + 1.0", text
    for path in INTERNAL_PATHS:
        assert path not in text, text


def test_trace_time_error_is_eagers_type(cells):
    eager = error(cells["eager_one_branch"])
    assert eager.ename == "UnboundLocalError"
    assert printed(cells["catch"]) == "caught UndefinedValueError\n" * 2


def test_conversion_error_points_at_the_construct(cells):
    cell, define = cells["generator"], cells["define_generator"]
    out = error(cell)
    assert out.ename == "ConversionError"
    assert "generator" in out.evalue
    text = traceback_text(cell)
    yield_line = line_in(DEFINE_GENERATOR, "yield v * v")
    assert headers(text)[-1] == f"Cell In[{define.execution_count}], line {yield_line}", text
    assert "yield v * v" in text


def test_conversion_error_has_no_internal_paths(cells):
    text = traceback_text(cells["generator"])
    for path in INTERNAL_PATHS:
        assert path not in text, text
