"""``%%step`` in a real kernel: the cell runs as usual, its recording maps to the
cell's own lines, and the stepper's state (with the whole recording) is saved with the
notebook's widget state."""

from __future__ import annotations

import re

import nbformat
import pytest
from nbclient import NotebookClient
from notebook_cells import cell, printed, recording_of

CELLS = {
    "load": "from nbgraph.kernel.step_magic import StepMagics\n"
    "get_ipython().register_magics(StepMagics)\nimport numpy as np",
    "define": "def double(v):\n    w = v * 2\n    return w",
    "step": "%%step\nx = np.arange(4.0)\ny = double(x)\nprint('sum', y.sum())\ny.sum() + 1",
    "after": "print(x.tolist(), y.tolist())",
    "error": "%%step --max-steps 50\nz = 1\nw = z / 0\nprint('never')",
    "help": "print(get_ipython().magics_manager.magics['cell']['step'].__doc__)",
}


@pytest.fixture(scope="module")
def notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source, id=name) for name, source in CELLS.items()]
    NotebookClient(nb, timeout=120, kernel_name="python3", allow_errors=True).execute()
    return nb


def outputs(nb: nbformat.NotebookNode, name: str) -> list:
    return cell(nb, name).outputs


def test_the_cell_runs_as_usual(notebook):
    assert printed(cell(notebook, "step")) == "sum 12.0\n"
    results = [o for o in outputs(notebook, "step") if o.output_type == "execute_result"]
    assert results[0].data["text/plain"] == "np.float64(13.0)"
    assert printed(cell(notebook, "after")) == "[0.0, 1.0, 2.0, 3.0] [0.0, 2.0, 4.0, 6.0]\n"


def test_steps_map_to_the_cells_lines(notebook):
    recording = recording_of(notebook, "step")
    cell, helper = recording["sources"]
    assert cell["lines"][0] == "%%step" and cell["name"].startswith("Cell In[")
    assert helper["lines"] == CELLS["define"].splitlines()
    assert cell["executionCount"] == 3 and helper["executionCount"] == 2
    frames = recording["frames"]
    steps = [(frames[f]["function"], line) for f, line, _ in recording["steps"]]
    assert steps == [
        ("<cell>", 2),
        ("<cell>", 3),
        ("double", 2),
        ("double", 3),
        ("double", 3),
        ("<cell>", 4),
        ("<cell>", 5),
        ("<cell>", 5),
    ]
    names = recording["names"]
    shown = {names[name] for _, _, name, _ in recording["changes"]}
    assert shown == {"x", "y", "v", "w", "return"}  # no hidden or IPython names
    assert recording["output"] == [[5, "sum 12.0\n"]]


def test_an_error_ends_the_recording_and_is_raised(notebook):
    errors = [o for o in outputs(notebook, "error") if o.output_type == "error"]
    assert errors[0].ename == "ZeroDivisionError"
    traceback = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(errors[0].traceback))
    assert (
        "Cell In[5], line 3\n      1 %%step --max-steps 50\n      2 z = 1\n"
        "----> 3 w = z / 0" in traceback
    )
    assert "step_magic" not in traceback and "recorder" not in traceback
    recording = recording_of(notebook, "error")
    assert recording["error"] == {"step": 1, "text": "ZeroDivisionError: division by zero"}
    assert recording["steps"][-1][1] == 3


def test_help(notebook):
    text = printed(cell(notebook, "help"))
    assert "Run the cell eagerly, recording every line" in text
    assert "--max-steps" in text and "--max-memory" in text
