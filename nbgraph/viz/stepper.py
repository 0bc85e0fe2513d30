"""The stepper: a recording (``nbgraph.trace``) shown as an anywidget.

The whole recording is in the widget's synced state, so stepping happens in the
browser without the kernel, and a notebook saved with its widget state can be stepped
through later. In JupyterLab the step's line is also highlighted in its cell's editor:
the widget dispatches an ``nbgraph:highlight`` DOM event that nbgraph's JupyterLab
extension handles (see labextension/src/stepEvents.ts).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import anywidget
import traitlets

if TYPE_CHECKING:
    from ..trace.recording import Recording

HERE = Path(__file__).parent


class Stepper(anywidget.AnyWidget):
    """Step through ``recording``: ``step`` is the step shown (set it to move), and
    ``watch`` the variable whose changes and values the widget follows."""

    _esm = HERE / "stepper.js"
    _css = HERE / "stepper.css"

    recording = traitlets.Dict().tag(sync=True)  # Recording.to_json()
    step = traitlets.Int(0).tag(sync=True)
    watch = traitlets.Unicode("").tag(sync=True)

    def __init__(self, recording: Recording) -> None:
        start = recording.error.step if recording.error is not None else 0
        if recording.stop is not None:  # nbgraph.breakpoint()
            start = recording.stop
        super().__init__(recording=recording.to_json(), step=start)
        self._text = f"nbgraph stepper: {recording!r}"

    def __repr__(self) -> str:  # what front ends without widgets show
        return self._text
