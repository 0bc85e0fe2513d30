"""An exception ends the recording at the step that raised it."""

from functools import partial

import programs

from nbgraph.trace import Limits, record, step


def test_exception_ends_the_recording_at_the_failing_step():
    recording = step(programs.fails_late, 1000)
    assert isinstance(recording.exception, ZeroDivisionError)
    failing = recording.steps[recording.error.step]
    assert failing is recording.steps[-1]
    assert failing.line.strip() == "total += 1.0 / (n - 1 - i)"
    assert failing.locals["i"].text == "999"
    assert recording.error.text == "ZeroDivisionError: float division by zero"


def test_exception_after_the_step_limit_still_shows_the_failing_step():
    recording = record(partial(programs.fails_late, 1000), Limits(max_steps=100, keep_first=10**9))
    failing = recording.steps[recording.error.step]
    assert failing.kind == "error"
    assert failing.line.strip() == "total += 1.0 / (n - 1 - i)"
    assert failing.locals["i"].text == "999"


def test_exception_in_a_called_function_shows_the_inner_line():
    def outer():
        return inner(0)

    def inner(d):
        return 1 // d

    recording = step(outer)
    failing = recording.steps[recording.error.step]
    assert (failing.function, failing.line.strip()) == ("inner", "return 1 // d")
    assert [f for f, _ in failing.stack] == ["outer", "inner"]
