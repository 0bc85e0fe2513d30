"""Eager step-through: run code while recording every line, then look at any step.

``step(fn, *args)`` records one call; ``%%step`` (``nbgraph.kernel.step_magic``) records
a notebook cell. A ``Recording`` holds the steps with each frame's variables as value
summaries, and shows as a stepper widget in a notebook.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from ..api import GraphFunction, register_stopped_call
from ..staging.statements import register_recording_stop
from .recorder import Limits, record_run, stop_recording_here
from .recording import Frame, RecordedError, Recording, Source, Step
from .summary import ArraySummary, ObjectSummary, Summary

__all__ = [
    "ArraySummary",
    "Frame",
    "Limits",
    "ObjectSummary",
    "RecordedError",
    "Recording",
    "Source",
    "Step",
    "Summary",
    "record",
    "step",
]


def step(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Recording:
    """Call ``fn(*args, **kwargs)``, recording every line it runs, and the lines of the
    user's own functions it calls.  A graph function (``fn`` itself, or one it calls)
    runs its graph on the interpret backend, recorded at the user's lines with the
    graph's values (``graph_steps``); with ``nbgraph.config.run_eagerly``, or through
    ``f.eager``, its Python code is recorded instead.

    The ``Recording`` shows as a stepper in a notebook. If ``fn`` raises, the recording
    ends at the failing step and keeps the exception in ``.exception`` (it is not
    raised again); the return value is in ``.result``.
    """
    return record(lambda: fn(*args, **kwargs))


def record(run: Callable[[], Any], limits: Limits | None = None) -> Recording:
    """Call ``run()`` under the recorder with the given limits (see ``Limits``)."""
    return Recording(record_run(run, limits or Limits()))


def _stopped_call(fn: GraphFunction, args: tuple, kwargs: dict) -> Any:
    """A call whose graph reached ``nbgraph.breakpoint()``: run again, recorded step by
    step (the graph on the interpret backend, on the arguments as they were), its
    stepper shown opened at the breakpoint; returns what it returned (or raises what it
    raised)."""
    recording = record(lambda: fn(*args, **kwargs))
    fn.last_recording = recording
    _show(recording)
    if recording.exception is not None:
        raise recording.exception
    return recording.result


def _show(recording: Recording) -> None:
    """The stepper in a notebook; a line of text elsewhere."""
    shell = sys.modules.get("IPython") and sys.modules["IPython"].get_ipython()
    if shell is not None and getattr(shell, "kernel", None) is not None:
        from IPython.display import display

        display(recording)
        return
    where = recording.steps[recording.stop] if recording.stop is not None else None
    at = f" at line {where.lineno} of {where.function}" if where is not None else ""
    print(f"nbgraph.breakpoint() reached{at}: {recording!r} (its .last_recording)")


register_recording_stop(stop_recording_here)
register_stopped_call(_stopped_call)
