"""A graph function called while recording runs its graph on the interpret backend,
recorded at the user's lines: its steps are the eager recording's steps of the lines
that compute something, in the same frames, showing the same values (here the graph and
eager code agree), with loops, helpers, prints, a failure and a breakpoint."""

import graph_programs as programs
import numpy as np
import pytest

import nbgraph as ng
from nbgraph.trace import Limits, record, step


def shown(summary):
    """What a step shows of a value, compared across the two recordings (a Python float
    and a NumPy float64 of one value are shown alike)."""
    if hasattr(summary, "head"):
        return (summary.shape, summary.dtype, summary.head, summary.tail)
    return summary.number if summary.number is not None else summary.text


def key(s):
    return (s.function, s.lineno, s.kind)


def matched(graph_steps, eager_steps):
    """Each graph step with the eager step it stands for: the graph's steps are the
    eager ones in order, less the lines that compute nothing (``break``, ``return w``)."""
    pairs, k = [], 0
    for g in graph_steps:
        while k < len(eager_steps) and key(eager_steps[k]) != key(g):
            k += 1
        assert k < len(eager_steps), f"graph step {key(g)} is not among eager's next steps"
        pairs.append((g, eager_steps[k]))
        k += 1
    return pairs


@pytest.mark.parametrize("name", sorted(programs.PROGRAMS))
def test_graph_steps_are_eagers_steps_with_the_same_values(name):
    fn, make = programs.PROGRAMS[name]
    f = ng.function(fn)
    args, eager_args = make(), make()
    graph = step(f, *args)
    with_python = step(fn, *eager_args)
    assert f.trace_count == 1  # (the graph ran, not the Python function)
    assert any("ran as its graph" in note for note in graph.notes)
    pairs = matched(graph.steps, with_python.steps)
    assert len(pairs) >= len(with_python.steps) // 2  # (most lines compute something)
    for g, e in pairs:
        assert g.frame.depth == e.frame.depth and g.stack == e.stack
        eager_values = e.locals
        for variable, value in g.locals.items():
            assert variable in eager_values, (key(g), variable)
            assert shown(value) == shown(eager_values[variable]), (key(g), variable)
        assert g.output == e.output
    assert key(graph.steps[-1]) == key(with_python.steps[-1])  # (the return)
    np.testing.assert_equal(graph.result, with_python.result)
    for a, b in zip(args, eager_args):
        np.testing.assert_array_equal(a, b)  # arguments written as eagerly


def test_the_loop_variable_and_loop_state_show_per_iteration():
    f = ng.function(programs.loop_with_helper)
    recording = step(f, np.arange(3.0), 8)
    y_line = [s for s in recording.steps if s.line.strip().startswith("y = smooth")]
    assert [s.locals["i"].number for s in y_line] == [0, 1, 2, 3, 4, 5]  # (breaks at 5)
    helper = [s for s in recording.steps if s.function == "smooth"]
    assert {s.frame.depth for s in helper} == {1}
    assert len({s.frame.index for s in helper}) == 6  # a frame per call
    assert recording.steps[-1].locals["return"].number == 22.5  # 2.25 * (0 + 1 + ... + 4)


def test_long_loops_keep_their_first_and_last_iterations():
    f = ng.function(programs.fails_in_a_loop)
    limits = Limits(keep_first=2, keep_last=2)
    recording = record(lambda: f(np.arange(100.0), 100), limits)
    eager = record(lambda: programs.fails_in_a_loop(np.arange(100.0), 100), limits)
    skipped = [s for s in recording.steps if s.kind == "skipped"]
    assert [s.note for s in skipped] == [s.note for s in eager.steps if s.kind == "skipped"]
    assert len(skipped) == 1 and "iterations 3 to 98" in skipped[0].note
    totals = [s.locals["total"].number for s in recording.steps if "total" in s.locals]
    assert totals[-1] == sum(range(100))  # the skipped iterations' changes are kept
    i_values = [s.locals["i"].number for s in recording.steps if "i" in s.locals]
    assert {0, 1, 98, 99} <= set(i_values) and 50 not in i_values


def test_a_failing_graph_ends_at_its_line_and_iteration():
    f = ng.function(programs.fails_in_a_loop)
    recording = step(f, np.arange(3.0), 5)
    assert isinstance(recording.exception, IndexError)
    failing = recording.steps[recording.error.step]
    assert failing.line.strip() == "total += x[i]"
    assert failing.locals["i"].number == 3 and failing.locals["total"].number == 3.0
    assert "IndexError" in failing.raised
    eager = step(programs.fails_in_a_loop, np.arange(3.0), 5)
    assert key(failing) == key(eager.steps[eager.error.step])


def test_a_breakpoint_marks_where_the_stepper_opens():
    f = ng.function(programs.stops_at_a_breakpoint, backend="interpret")
    recording = step(f, np.arange(5.0), 5)
    stop = recording.steps[recording.stop]
    assert stop.line.strip() == "ng.breakpoint()"
    assert stop.locals["i"].number == 2 and stop.locals["total"].number == 3.0
    assert recording.result == 10.0  # the run went on to the end


def test_run_eagerly_records_the_python_code_instead():
    f = ng.function(programs.loop_with_helper)
    try:
        ng.config.run_eagerly = True
        recording = step(f, np.arange(3.0), 8)
    finally:
        ng.config.run_eagerly = False
    assert f.trace_count == 0
    assert not any("ran as its graph" in note for note in recording.notes)
    assert any(s.line.strip() == "break" for s in recording.steps)  # (no graph op there)


def test_a_failing_bookkeeping_stops_the_recording_not_the_run(monkeypatch):
    from nbgraph.trace import graph_steps

    def broken(self, depth, name, value):
        raise RuntimeError("bookkeeping bug")

    monkeypatch.setattr(graph_steps.StepInterpreter, "_bind", broken)
    f = ng.function(programs.loop_with_helper)
    recording = step(f, np.arange(3.0), 8)
    assert recording.result == programs.loop_with_helper(np.arange(3.0), 8)
    assert recording.exception is None
    assert any("the recorder failed (RuntimeError: bookkeeping bug)" in n for n in recording.notes)
