"""Which steps a recording has: every line of the recorded function and of the user's
functions it calls, with frames, depths, the call stack and return values."""

import numpy as np
import programs

from nbgraph.trace import step


def lines(recording):
    return [(s.function, s.lineno, s.kind) for s in recording.steps]


def line_of(fn, text):
    """The line number of the line of ``fn``'s file that holds ``text``."""
    source = open(fn.__code__.co_filename).read().splitlines()
    first = fn.__code__.co_firstlineno
    return next(i for i, line in enumerate(source, 1) if i >= first and text in line)


def test_every_line_and_the_lines_of_called_user_functions():
    recording = step(programs.caller, np.arange(3.0))
    at = lambda text, fn=programs.caller: line_of(fn, text)  # noqa: E731
    assert lines(recording) == [
        ("caller", at("b = scale(a, 2)"), "line"),
        ("scale", at("w = v * k", programs.scale), "line"),
        ("scale", at("return w", programs.scale), "line"),
        ("scale", at("return w", programs.scale), "return"),
        ("caller", at("c = b + 1"), "line"),
        ("caller", at("return c"), "line"),
        ("caller", at("return c"), "return"),
    ]
    assert [s.frame.depth for s in recording.steps] == [0, 1, 1, 1, 0, 0, 0]
    assert recording.steps[1].stack == [
        ("caller", at("b = scale(a, 2)")),
        ("scale", at("w = v * k", programs.scale)),
    ]
    assert recording.steps[3].locals["return"].text.startswith("float64[3] [0, 2, 4]")
    np.testing.assert_array_equal(recording.result, [1.0, 3.0, 5.0])
    assert recording.exception is None and recording.error is None


def test_library_code_is_run_through_not_recorded():
    recording = step(programs.with_calls, np.array([4.0, 9.0]), 2)
    assert {s.function for s in recording.steps} == {"with_calls"}
    assert recording.steps[0].filename == programs.__file__


def test_a_step_holds_the_state_before_its_line_runs():
    recording = step(programs.caller, np.arange(3.0))
    first, after_call = recording.steps[0], recording.steps[4]
    assert set(first.locals) == {"a"}
    assert after_call.changed == ["b"]
    assert after_call.locals["b"].text == "float64[3] [0, 2, 4]"
    assert recording.steps[1].changed == []  # a frame's first values are no change


def test_generators_are_stepped_into_at_each_resume():
    recording = step(programs.sums_squares, 3)
    functions = [s.function for s in recording.steps]
    assert functions.count("squares") >= 6
    yields = [
        s.locals["return"].text
        for s in recording.steps
        if s.function == "squares" and s.kind == "return"
    ][:3]
    assert yields == ["0", "1", "4"]
    assert recording.result == 5


def test_printed_output_belongs_to_the_step_that_printed_it():
    recording = step(programs.prints, 2)
    printing = [(s.lineno, s.output) for s in recording.steps if s.output]
    at = line_of(programs.prints, 'print("i =", i)')
    assert printing == [(at, "i = 0\n"), (at, "i = 1\n")]


def test_deleted_variables_leave_the_frame():
    recording = step(programs.deletes)
    assert "x" in recording.steps[2].locals
    assert "x" not in recording.steps[3].locals
    assert recording.steps[3].changed == ["x"]


def test_a_graph_function_made_and_called_while_recording_steps_through_its_graph():
    recording = step(programs.calls_a_graph_function, np.arange(3.0))
    at = lambda text: line_of(programs.calls_a_graph_function, text)  # noqa: E731
    inner = line_of(programs.doubled_plus_one, "return x * 2 + 1")
    # No nbgraph code under the user's file name (conversion, tracing, the error
    # boundary) is stepped into: the graph's run is its line and its return.
    assert [(s.function, s.lineno) for s in recording.steps] == [
        ("calls_a_graph_function", at("import nbgraph")),
        ("calls_a_graph_function", at("graph = ng.function")),
        ("calls_a_graph_function", at("y = graph(x)")),
        ("doubled_plus_one", inner),
        ("doubled_plus_one", inner),
        ("calls_a_graph_function", at("return y + 1")),
        ("calls_a_graph_function", at("return y + 1")),
    ]


def test_graph_functions_are_recorded_as_their_graphs_run():
    """A graph function runs its graph on the interpret backend under the recorder: the
    lines that compute something are the steps (a helper's in a frame of its own, after
    the calling line), with the graph's values."""
    import nbgraph as ng

    graph_caller = ng.function(programs.caller)
    recording = step(graph_caller, np.arange(3.0))
    at = lambda text, fn=programs.caller: line_of(fn, text)  # noqa: E731
    assert lines(recording) == [
        ("caller", at("b = scale(a, 2)"), "line"),
        ("scale", at("w = v * k", programs.scale), "line"),
        ("scale", at("return w", programs.scale), "return"),
        ("caller", at("c = b + 1"), "line"),
        ("caller", at("return c"), "return"),
    ]
    assert [s.frame.depth for s in recording.steps] == [0, 1, 1, 0, 0]
    assert recording.steps[3].locals["b"].text.startswith("float64[3] [0, 2, 4]")
    np.testing.assert_array_equal(recording.result, [1.0, 3.0, 5.0])
    assert graph_caller.trace_count == 1
