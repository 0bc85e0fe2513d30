"""The stepper: a recording (``nbgraph.trace``) shown as an anywidget.

The whole recording is in the widget's synced state, so stepping happens in the
browser without the kernel, and a notebook saved with its widget state can be stepped
through later. In JupyterLab the step's line is also highlighted in its cell's editor:
the widget dispatches an ``nbgraph:highlight`` DOM event that nbgraph's JupyterLab
extension handles (see labextension/src/stepEvents.ts).
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
        shown = start if recording.error or recording.stop is not None else -1
        self._html = static_html(recording, shown if recording.steps else None)

    def __repr__(self) -> str:  # what front ends without widgets show
        return self._text

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, Any], dict[str, Any]]:
        """The widget, with a static listing for where widgets do not run (exported
        HTML, GitHub) and a line of text for terminals."""
        data, metadata = super()._repr_mimebundle_(**kwargs)
        data["text/plain"] = self._text
        data["text/html"] = self._html
        return data, metadata


CONTEXT_LINES = 12  # source lines shown around the step's, each way


def static_html(recording: Recording, index: int | None) -> str:
    """The recording at one step (``-1``: the last), as HTML without scripts: the
    source around the step's line, marked, and the variables there."""
    if index is None:
        return f"<pre>{html.escape(repr(recording))}</pre>"
    index %= len(recording.steps)
    step = recording.steps[index]
    source = step.frame.source
    first = max(1, step.lineno - CONTEXT_LINES)
    lines = []
    for number, text in enumerate(source.lines[first - 1 : step.lineno + CONTEXT_LINES], first):
        here = number == step.lineno
        marker = "&#9654;" if here else "&nbsp;"
        style = ' style="background:#fde68a"' if here else ""
        lines.append(f"<span{style}>{marker} {number:4d}  {html.escape(text)}</span>")
    variables = "".join(
        f"<tr><td><code>{html.escape(name)}</code></td><td><code>"
        f"{html.escape(value.text if value is not None else 'unbound')}</code></td></tr>"
        for name, value in step.locals.items()
    )
    where = "the last step"
    if index == recording.stop:
        where = "stopped at nbgraph.breakpoint()"
    elif recording.error is not None and index == recording.error.step:
        where = f"raised {recording.error.text}"
    return (
        '<div class="nbgraph-stepper-static">'
        f"<p><b>nbgraph stepper</b>, step {index + 1} of {len(recording.steps)}, "
        f"{html.escape(source.name)}, line {step.lineno}, in {html.escape(step.function)} "
        f"({html.escape(where)})</p>"
        f'<pre style="line-height:1.3">{"<br>".join(lines)}</pre>'
        f"<table>{variables}</table></div>"
    )
