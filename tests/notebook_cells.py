"""What executed notebook cells show, as the kernel and notebook tests read it."""

from __future__ import annotations

import nbformat


def printed(cell: nbformat.NotebookNode) -> str:
    """All the text a cell printed: a busy kernel may send one print in several outputs."""
    return "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
