"""Recording installs its tracer only while it runs and puts back the one before."""

import sys

import programs

from nbgraph.trace import step


def test_no_tracer_outside_a_recording():
    previous = sys.gettrace()
    step(programs.branches, 10)
    assert sys.gettrace() is previous


def test_the_previous_tracer_is_restored_and_traces_again():
    seen = []

    def debugger(frame, event, arg):
        seen.append((frame.f_code.co_name, event))
        return None

    previous = sys.gettrace()
    sys.settrace(debugger)
    try:
        step(programs.branches, 10)
        assert sys.gettrace() is debugger
        programs.square(3)
    finally:
        sys.settrace(previous)
    assert ("square", "call") in seen
    assert ("branches", "call") not in seen  # the recording had the tracer meanwhile


def test_tracer_and_stdout_are_restored_after_an_exception():
    stdout = sys.stdout
    previous = sys.gettrace()
    recording = step(programs.fails_late, 10)
    assert recording.exception is not None
    assert sys.gettrace() is previous and sys.stdout is stdout
