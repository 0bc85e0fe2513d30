"""The IPython extension in a real kernel: %load_ext nbgraph, %%autograph, %compare.

One notebook runs once (nbclient); each test reads the outputs of its cells.
"""

from __future__ import annotations

import json
import re

import nbformat
import pytest
from nbclient import NotebookClient

CELLS = {
    "load": "%load_ext nbgraph\n%load_ext nbgraph\nimport numpy as np",
    "autograph": '''%%autograph
def collatz(n):
    """Steps until n reaches 1."""
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    print("collatz steps", steps)
    return steps
collatz(27)''',
    "kinds": "import nbgraph as ng\n"
             "print(isinstance(collatz, ng.GraphFunction), collatz.__doc__, "
             "collatz.backend, collatz.trace_count)",
    "options": '''%%autograph --backend interpret --static k --show-code
def first_sum(x, k):
    t = 0.0
    for i in range(k):
        t += x[i]
    return t

def double(x):
    return first_sum(x, 2) * 2
print(first_sum.backend, first_sum.static_argnames, double(np.arange(4.0)))''',
    "error": "first_sum(np.arange(3.0), 5)",
    "show_graph": "%%autograph --show-graph\ndef halve(x):\n    return x / 2\n"
                  "halve(np.ones(2))\nhalve(np.ones(3))",
    "compare_object": "r = %compare -o -r 3 collatz(27)\n"
                      "print(json.dumps({'agree': r.agreement.agree, 'speedup': r.speedup, "
                      "'rounds': len(r.eager.rounds), 'stages': sorted(r.first_call)}))",
    "compare_shown": "%compare -r 3 double(np.arange(4.0))",
    "no_function": "%%autograph\nx = 1",
    "bad_static": "%%autograph --static nope\ndef g(a):\n    return a",
    "progress": "from nbgraph.kernel import extension\n"
                "extension._loaded[id(get_ipython())].delay = 0.0\n"
                "ng.function(lambda v: v * 2)(np.ones(3))",
    "unload": "%unload_ext nbgraph\n%load_ext nbgraph",
}
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.fixture(scope="module")
def cells() -> dict[str, nbformat.NotebookNode]:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("import json")] + [
        nbformat.v4.new_code_cell(source) for source in CELLS.values()]
    NotebookClient(notebook, timeout=300, kernel_name="python3", allow_errors=True).execute()
    return dict(zip(CELLS, notebook.cells[1:]))


def stream(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def error(cell: nbformat.NotebookNode) -> nbformat.NotebookNode | None:
    return next((o for o in cell.outputs if o.output_type == "error"), None)


def data(cell: nbformat.NotebookNode, mime: str) -> list[str]:
    return [o.data[mime] for o in cell.outputs if mime in o.get("data", {})]


def test_loading_twice_is_harmless(cells):
    assert error(cells["load"]) is None
    assert "already loaded" in stream(cells["load"])


def test_autograph_replaces_functions_and_runs_the_cell(cells):
    cell = cells["autograph"]
    assert error(cell) is None
    assert stream(cell) == "collatz steps 111\n"  # print inside the graph, once
    assert data(cell, "text/plain")[-1] == "111"  # the last expression's value
    assert stream(cells["kinds"]) == "True Steps until n reaches 1. cpu 1\n"


def test_autograph_options(cells):
    cell = cells["options"]
    assert error(cell) is None
    assert stream(cell) == "interpret ('k',) 2.0\n"
    code = "\n".join(data(cell, "text/plain"))
    assert "ag__.for_stmt" in code and "def double" in code  # --show-code, per function


def test_errors_point_at_the_autograph_cell_line(cells):
    out = error(cells["error"])
    assert out.ename == "IndexError"
    assert out.evalue == "index 3 is out of bounds for axis 0 with size 3"
    text = ANSI.sub("", "\n".join(out.traceback))
    number = cells["options"].execution_count
    headers = re.findall(r"Cell In\[\d+\], line \d+", text)
    assert headers[-1] == f"Cell In[{number}], line 5"  # t += x[i], as the cell shows it
    assert "t += x[i]" in text and "site-packages" not in text


def test_show_graph_displays_the_graph_after_the_first_call_only(cells):
    cell = cells["show_graph"]
    assert error(cell) is None
    views = data(cell, "application/vnd.jupyter.widget-view+json")
    assert len(views) == 1  # the second call shows nothing more
    assert "graph halve" in data(cell, "text/plain")[0]  # the listing, for text front ends


def test_compare_returns_the_numbers(cells):
    result = json.loads(stream(cells["compare_object"]))
    assert result["agree"] is True and result["speedup"] > 0
    assert result["rounds"] == 3
    assert result["stages"] == ["compile", "convert", "first_run", "trace"]


def test_compare_shows_a_table_and_a_chart(cells):
    cell = cells["compare_shown"]
    assert error(cell) is None
    (html,) = data(cell, "text/html")
    assert "<table>" in html and "<svg" in html and "speedup" in html
    (text,) = data(cell, "text/plain")
    assert "eager" in text and "graph (interpret)" in text and "results agree" in text


def test_autograph_without_a_function_says_so(cells):
    out = error(cells["no_function"])
    assert out.ename == "ValueError" and "defines no function" in out.evalue


def test_unknown_static_name_is_named(cells):
    out = error(cells["bad_static"])
    assert out.ename == "ValueError" and "nope" in out.evalue


def test_slow_builds_show_their_progress_then_remove_it(cells):
    cell = cells["progress"]
    assert error(cell) is None
    shown = [o for o in cell.outputs if o.output_type == "display_data"]
    assert shown and shown[0].data["text/html"] == ""  # shown, then emptied when done
    assert "array([2., 2., 2.])" in data(cell, "text/plain")[-1]


def test_unload_and_load_again(cells):
    assert error(cells["unload"]) is None
