"""The notebooks run clean in a real kernel, and graph mode works on cell-defined code."""

from __future__ import annotations

import copy
import functools
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbconvert import HTMLExporter
from notebook_cells import printed

NOTEBOOKS_DIR = Path(__file__).resolve().parents[2] / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"


@functools.cache
def execute(path: Path) -> nbformat.NotebookNode:
    """The notebook after running it in a real kernel (once per test session)."""
    notebook = nbformat.read(path, as_version=4)
    NotebookClient(
        notebook,
        timeout=300,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    return notebook


def shown_text(cell: nbformat.NotebookNode) -> str:
    """What a cell displayed and returned, as text."""
    return "".join(o.get("data", {}).get("text/plain", "") for o in cell.outputs)


def shown_outputs(cell: nbformat.NotebookNode) -> list:
    """The cell's outputs, without the lines of finished builds (a progress line is
    emptied when its build is done, e.g. a call waiting for a compile started after the
    first call)."""
    return [o for o in cell.outputs if o.get("data", {}).get("text/plain", None) != ""]


def expected_to_raise(cell: nbformat.NotebookNode) -> bool:
    return "raises-exception" in cell.get("metadata", {}).get("tags", [])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_clean(path):
    notebook = execute(path)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    errors = [
        o for c in code if not expected_to_raise(c) for o in c.outputs if o.output_type == "error"
    ]
    assert not errors
    for cell in filter(expected_to_raise, code):  # they fail as they say they do
        assert [o.output_type for o in shown_outputs(cell)] == ["error"]


def test_tour_failing_cell_points_at_the_helper_line():
    tour = execute(NOTEBOOKS_DIR / "tour.ipynb")
    (cell,) = [c for c in tour.cells if expected_to_raise(c) and "window_sum" in c.source]
    (error,) = shown_outputs(cell)
    assert (error.ename, error.evalue) == (
        "IndexError",
        "index 6 is out of bounds for axis 0 with size 6",
    )
    text = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error.traceback))
    where = re.findall(r"Cell In\[\d+\], line (\d+)", text)
    assert where[-2:] == ["11", "4"]  # the graph function's loop line, then the helper's
    assert "total += x[start + i]" in text and "in iteration 3 of the loop" in text
    assert "nbgraph/" not in text


def test_graph_mode_notebook_outputs():
    cells = [c for c in execute(NOTEBOOKS_DIR / "graph_mode.ipynb").cells if c.cell_type == "code"]
    texts = [printed(c) for c in cells]
    assert "111 111 118 1" in texts[2]  # eager == graph, and no retrace for a new n
    assert "ag__.while_stmt" in texts[3] and "ag__.if_stmt" in texts[3]
    graph_dump = texts[4]
    assert "while(" in graph_dump and "cond(" in graph_dump
    assert "# line 3" in graph_dump  # the while's line in the cell that defined collatz
    assert texts[5] == "peak at 1\npeak at 3\n[1 3]\n"


def test_tour_dask_section_runs_on_a_local_cluster():
    pytest.importorskip("distributed")
    cells = [c for c in execute(NOTEBOOKS_DIR / "tour.ipynb").cells if c.cell_type == "code"]
    (run,) = [c for c in cells if "LocalCluster(" in c.source]
    assert printed(run).splitlines()[-1] == "True"
    (refused,) = [c for c in cells if "map_reduce" in c.source]
    assert "needs the whole of axis 0 of 'x'" in printed(refused)
    assert printed(refused).splitlines()[-1] == "True"
    (timed,) = [c for c in cells if c.source.startswith("%compare") and "rows" in c.source]
    text = "".join(o.get("data", {}).get("text/plain", "") for o in timed.outputs)
    assert "on Dask: median" in text and "2 workers" in text


def test_debugging_notebook():
    """The NaN found at its line, the retrace explained, where graph and eager part, the
    graph's run stepped through, the gradient checked, and the function run as Python
    with the graphs switched off."""
    notebook = execute(NOTEBOOKS_DIR / "debugging.ipynb")
    cells = [c for c in notebook.cells if c.cell_type == "code"]
    (nan,) = [c for c in cells if "normalize_rows(rows)" in c.source and "rows[1]" in c.source]
    (error,) = shown_outputs(nan)
    assert error.ename == "FloatingPointError" and "made 2 NaN of 6 values" in error.evalue
    text = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(error.traceback))
    assert "return a / norms" in text
    (explained,) = [c for c in cells if "%explain" in c.source]
    assert "a is a float32 2-d array (before: float64 2-d array)" in shown_text(explained)
    (parted,) = [c for c in cells if "%compare --diff" in c.source]
    assert "first difference at line 8 (run 3): part = np.array([t])" in shown_text(parted)
    (stepped,) = [c for c in cells if c.source.startswith("%%step")]
    (shown,) = [o for o in stepped.outputs if o.output_type == "display_data"]
    assert "Recording of" in shown.data["text/plain"]  # the graph's run, step by step
    (checked,) = [c for c in cells if "ng.check_grad" in c.source]
    assert "agrees with central differences" in shown_text(checked)
    (switched,) = [c for c in cells if "%autograph off" in c.source]
    text = printed(switched)
    assert "run_eagerly = True" in text and "nan" in text and "run_eagerly = False" in text


def test_tour_exports_to_html_with_static_outputs():
    """Saved as JupyterLab saves by default (no widget state) and exported with
    nbconvert, every widget output shows a static version: graphs as SVG, recordings as
    their source with the last step marked, %compare as its table and chart."""
    notebook = copy.deepcopy(execute(NOTEBOOKS_DIR / "tour.ipynb"))
    notebook.metadata.pop("widgets", None)
    outputs = [o for c in notebook.cells if c.cell_type == "code" for o in c.outputs]
    widgets = [o for o in outputs if WIDGET in o.get("data", {})]
    assert widgets
    for output in widgets:  # a static version beside each widget
        assert {"image/svg+xml", "text/html"} & set(output["data"]), set(output["data"])
    html, _ = HTMLExporter().from_notebook_node(notebook)
    assert "widget-view" not in html  # no placeholder of a widget that cannot show
    graphs = [o for o in widgets if "image/svg+xml" in o["data"]]
    assert graphs
    assert html.count('data-mime-type="image/svg+xml"') >= len(graphs)
    (recording,) = [o for o in widgets if "nbgraph stepper" in o["data"].get("text/html", "")]
    assert "(the last step)" in recording["data"]["text/html"]
    assert "<b>nbgraph stepper</b>, step" in html and "(the last step)</p>" in html
    assert re.search(r'<span style="background:#fde68a">▶ +\d+  steps</span>', html)
    compared = [
        o
        for c in notebook.cells
        if c.cell_type == "code" and c.source.startswith("%compare -r")
        for o in c.outputs
        if "nbgraph-compare" in o.get("data", {}).get("text/html", "")
    ]
    assert len(compared) >= 5
    for output in compared:  # the table and its bar chart
        assert "<table" in output["data"]["text/html"] and "<svg" in output["data"]["text/html"]
    assert html.count("<table") >= len(compared) and html.count("<svg") >= len(compared)
