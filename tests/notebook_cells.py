"""What executed notebook cells show, as the kernel and notebook tests read it."""

from __future__ import annotations

import nbformat


def printed(cell: nbformat.NotebookNode) -> str:
    """All the text a cell printed: a busy kernel may send one print in several outputs."""
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")


def cell(nb: nbformat.NotebookNode, name: str) -> nbformat.NotebookNode:
    """The cell with id ``name``."""
    return next(c for c in nb.cells if c.id == name)


def recording_of(nb: nbformat.NotebookNode, name: str) -> dict:
    """The recording the ``%%step`` cell ``name`` shows, from the widget state saved."""
    state = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    (view,) = [
        o.data["application/vnd.jupyter.widget-view+json"]["model_id"]
        for o in cell(nb, name).outputs
        if o.output_type == "display_data" and "application/vnd.jupyter.widget-view+json" in o.data
    ]
    return state[view]["state"]["recording"]
