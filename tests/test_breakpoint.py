"""``nbgraph.breakpoint()``: a graph run that reaches it runs the call again as Python,
recorded, opened at that line, and returns (and leaves its argument arrays) as eager
code does; one that does not reach it is an ordinary graph run. Run as Python it stops
in the caller's frame (pdb; through a real kernel's stdin in tests/kernel), or marks
the step a recording opens at."""

from __future__ import annotations

import os

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.staging import statements

BACKENDS = os.environ.get("NBGRAPH_TEST_BACKENDS", "interpret,cpu,cuda").split(",")


def walk(x, n):
    total = 0.0
    for i in range(n):
        total = total + x[i]
        if total > 2.5:
            ng.breakpoint()
        x[i] = -1.0
    return total


BREAKPOINT_LINE = walk.__code__.co_firstlineno + 5


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("n", [2, 5])
def test_a_graph_run_stops_as_eager_code_would(backend, n, capsys, monkeypatch):
    f = ng.function(walk, backend=backend)
    eager_x, x = np.arange(5.0), np.arange(5.0)
    with monkeypatch.context() as patched:  # eagerly, pdb would stop
        patched.setattr(statements, "stop_in", lambda frame: None)
        expected = walk(eager_x, n)
    assert f(x, n) == expected
    np.testing.assert_array_equal(x, eager_x)  # written as eagerly, once
    printed = capsys.readouterr().out
    if n == 2:  # total never passes 2.5: no stop
        assert f.last_recording is None and "breakpoint" not in printed
        return
    recording = f.last_recording
    step = recording.steps[recording.stop]
    assert (step.lineno, step.function) == (BREAKPOINT_LINE, "walk")
    assert f"nbgraph.breakpoint() reached at line {BREAKPOINT_LINE} of walk" in printed
    assert recording.widget().step == recording.stop  # the stepper opens there


def test_a_recording_opens_at_the_first_breakpoint():
    recording = ng.step(walk, np.arange(5.0), 5)
    assert recording.steps[recording.stop].lineno == BREAKPOINT_LINE
    assert recording.result == 10.0


def test_run_as_python_it_stops_in_the_callers_frame(monkeypatch):
    frames = []
    monkeypatch.setattr(statements, "stop_in", frames.append)
    assert ng.function(walk).eager(np.arange(5.0), 5) == 10.0
    assert [f.f_code for f in frames] == [walk.__code__] * 3  # i = 2, 3, 4
