"""``%%step`` in a real kernel on a cell that calls graph functions: the graph's own run
(on the interpret backend) is recorded at the user's lines, its loop's iterations, a
helper's call in a frame of its own and the graph's values; a graph that fails ends the
recording at its line and iteration, and the error is raised as usual."""

from __future__ import annotations

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_cells import cell, printed, recording_of

CELLS = {
    "load": "%load_ext nbgraph\nimport numpy as np",
    "helper": "def shrink(v):\n    w = v * 0.5\n    return w",
    "walk": (
        "%%autograph\n"
        "def walk(x, n):\n"
        "    total = 0.0\n"
        "    for i in range(n):\n"
        "        y = shrink(x) * i\n"
        "        total += y.sum()\n"
        "    return total"
    ),
    "pick": (
        "%%autograph\n"
        "def pick(x, n):\n"
        "    total = 0.0\n"
        "    for i in range(n):\n"
        "        total += x[i]\n"
        "    return total"
    ),
    "step": "%%step\nx = np.arange(3.0)\nt = walk(x, 3)\nprint('t', t)",
    "fails": "%%step\nbad = pick(np.arange(3.0), 5)",
}


@pytest.fixture(scope="module")
def notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source, id=name) for name, source in CELLS.items()]
    NotebookClient(nb, timeout=180, kernel_name="python3", allow_errors=True).execute()
    return nb


def values_of(recording: dict, function: str, variable: str) -> list:
    """The values ``variable`` of ``function``'s frames took, as shown, in step order."""
    frames = recording["frames"]
    names = recording["names"]
    shown = []
    for _, frame, name, value in recording["changes"]:
        if frames[frame]["function"] == function and names[name] == variable and value >= 0:
            summary = recording["values"][value]
            shown.append(summary.get("number", summary.get("head")))
    return shown


def test_a_graph_function_in_a_stepped_cell_shows_its_graphs_run(notebook):
    assert printed(cell(notebook, "step")) == "t 4.5\n"
    recording = recording_of(notebook, "step")
    frames = recording["frames"]
    steps = [(frames[f]["function"], line) for f, line, _ in recording["steps"]]
    cell_lines = [line for function, line in steps if function == "<cell>"]
    assert cell_lines[:2] == [2, 3]  # x = ..., t = walk(x, 3)
    walk_lines = [line for function, line in steps if function == "walk"]
    # (the cell's line 1 is %%autograph) for, y = shrink(x) * i, total += y.sum()
    assert walk_lines[:3] == [4, 5, 6]
    assert walk_lines.count(5) == 3  # one step per iteration
    assert [f for f, _ in steps].count("shrink") >= 3 * 2  # a frame per call: line, return
    assert len({f for f, _, _ in recording["steps"] if frames[f]["function"] == "shrink"}) == 3
    assert values_of(recording, "walk", "i") == [0, 1, 2]
    assert values_of(recording, "walk", "total")[-1] == 4.5  # the graph's value
    assert any("ran as its graph" in note for note in recording["notes"])


def test_a_failing_graph_ends_the_recording_at_its_line(notebook):
    errors = [o for o in cell(notebook, "fails").outputs if o.output_type == "error"]
    assert errors[0].ename == "IndexError"
    recording = recording_of(notebook, "fails")
    step, line, _ = recording["steps"][recording["error"]["step"]]
    assert recording["frames"][step]["function"] == "pick" and line == 5
    assert "IndexError" in recording["error"]["text"]
    assert values_of(recording, "pick", "i")[-1] == 3  # the iteration that failed
