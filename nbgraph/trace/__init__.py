"""Eager step-through: run code while recording every line, then look at any step.

``step(fn, *args)`` records one call; ``%%step`` (``nbgraph.kernel.step_magic``) records
a notebook cell. A ``Recording`` holds the steps with each frame's variables as value
summaries, and shows as a stepper widget in a notebook.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..config import eagerly
from .recorder import Limits, record_run
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
    """Call ``fn(*args, **kwargs)`` eagerly, recording every line it runs, and the lines
    of the user's own functions it calls.  Graph functions among them run as their
    Python code (``f.eager``), so their lines are recorded too.

    The ``Recording`` shows as a stepper in a notebook. If ``fn`` raises, the recording
    ends at the failing step and keeps the exception in ``.exception`` (it is not
    raised again); the return value is in ``.result``.
    """
    return record(lambda: fn(*args, **kwargs))


def record(run: Callable[[], Any], limits: Limits | None = None) -> Recording:
    """Call ``run()`` under the recorder with the given limits (see ``Limits``); graph
    functions called in it run as their Python code."""
    with eagerly():
        return Recording(record_run(run, limits or Limits()))
