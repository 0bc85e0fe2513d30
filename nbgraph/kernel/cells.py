"""Which notebook cell is running: IPython's name for it (``In[n]``)."""

from __future__ import annotations

import sys


def running_cell_number(shell: object) -> int:
    """The execution count of the cell running this magic (its ``In[n]``), from the
    frame of the cell's code, which IPython's compiler named."""
    names = getattr(shell.compile, "_filename_map", {})
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_filename in names:
            return names[frame.f_code.co_filename]
        frame = frame.f_back
    return shell.execution_count


def cell_code(shell: object, magic_line: str, cell: str) -> tuple[str, str]:
    """A cell magic's cell as code: the body with IPython's syntax transformed and every
    line where the cell shows it (line 1 is the magic's own line, blank lines kept), and
    the code name IPython gives the running cell (``Cell In[n]``) with the whole cell's
    text behind it for tracebacks and source lookups."""
    lines = cell.splitlines(keepends=True)
    blank = next((i for i, text in enumerate(lines) if text.strip()), len(lines))
    source = "\n" * (1 + blank) + shell.transform_cell("".join(lines[blank:]))
    filename = shell.compile.cache(
        f"{magic_line}\n{cell}", running_cell_number(shell), raw_code=f"{magic_line}\n{cell}"
    )
    return source, filename
