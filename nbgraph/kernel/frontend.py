"""Line highlights in the notebook's cell editors, requested from the kernel.

The nbgraph JupyterLab extension listens on the comm target ``nbgraph`` and
draws a highlight of a given kind on a line of a given cell. Python code knows
code by filename and line (frames, tracebacks, graph-node origins), while the
front end knows cells by id, so :func:`install` records the id of every cell
IPython runs and :func:`highlight_line` maps a cell's filename back to it.

Where no extension is listening (a terminal, another front end) nothing is
drawn and nothing fails.
"""

from __future__ import annotations

from typing import Any

import comm
from IPython import get_ipython

COMM_TARGET = "nbgraph"
# error: where an exception was raised; step: the line a recording shows; node: the
# source line of a graph node. Each is drawn with the CSS class nbgraph-line-<kind>.
KINDS = ("error", "step", "node")


class _CellIds:
    """Which cell id each execution count belongs to, for the cells run since install."""

    def __init__(self, shell: Any) -> None:
        self.shell = shell
        self.by_count: dict[int, str] = {}

    def pre_run_cell(self, info: Any) -> None:
        cell_id = getattr(info, "cell_id", None)
        if cell_id and info.store_history:
            # IPython has already advanced the counter for a cell stored in history.
            self.by_count[self.shell.execution_count - 1] = cell_id

    def cell_id(self, filename: str) -> str | None:
        # IPython's compiler maps each cell's code name (its filename) to its execution
        # count; the name itself differs between IPython and ipykernel.
        count = getattr(self.shell.compile, "_filename_map", {}).get(filename)
        return None if count is None else self.by_count.get(count)


_cells: _CellIds | None = None


def install(shell: Any) -> None:
    """Start recording cell ids in ``shell`` so that cell lines can be highlighted."""
    global _cells
    if _cells is not None and _cells.shell is shell:
        return
    uninstall()
    _cells = _CellIds(shell)
    shell.events.register("pre_run_cell", _cells.pre_run_cell)


def uninstall(shell: Any = None) -> None:
    """Stop recording cell ids (in ``shell``, or wherever :func:`install` started it)."""
    global _cells
    if _cells is None or (shell is not None and _cells.shell is not shell):
        return
    _cells.shell.events.unregister("pre_run_cell", _cells.pre_run_cell)
    _cells = None


def highlight_line(filename: str, lineno: int, kind: str = "node") -> bool:
    """Highlight line ``lineno`` (1-based) of the cell whose code has ``filename``.

    Returns False, sending nothing, outside a kernel or when the file is not a cell
    that ran since :func:`install`.
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS}, not {kind!r}")
    cell_id = _cells.cell_id(filename) if _cells is not None else None
    if cell_id is None:
        return False
    return _send({"action": "highlight", "cell_id": cell_id, "line": int(lineno), "kind": kind})


def clear_highlights(kind: str | None = None) -> bool:
    """Remove the highlights of ``kind`` (all kinds for None) from the notebook.

    Returns False outside a kernel.
    """
    if kind is not None and kind not in KINDS:
        raise ValueError(f"kind must be one of {KINDS} or None, not {kind!r}")
    return _send({"action": "clear", "kind": kind})


def _send(message: dict[str, Any]) -> bool:
    """Deliver one message to the front ends connected to this kernel."""
    if getattr(get_ipython(), "kernel", None) is None:
        return False
    # Each message opens (with the message as its data) and closes its own comm, so a
    # front end that connected after an earlier message still gets this one.
    channel = comm.create_comm(target_name=COMM_TARGET, data=message)
    channel.close()
    return True
