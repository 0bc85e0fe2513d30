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
