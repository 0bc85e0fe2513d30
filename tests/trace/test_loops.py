"""Long loops keep their first and last iterations, and those reaching a new line or
raising; the skipped ones leave one step saying so, and later values stay right."""

from functools import partial

import numpy as np
import programs
import pytest

from nbgraph.trace import Limits, record, step

EVERYTHING = Limits(max_steps=10**7, keep_first=10**9)


def described(recording):
    return [
        (
            s.function,
            s.lineno,
            s.kind,
            {k: v.text if hasattr(v, "text") else v for k, v in s.locals.items()},
        )
        for s in recording.steps
    ]


def assert_kept_steps_are_true(compact, full):
    """Every step kept shows what the full recording shows at that point."""
    everything = described(full)
    position = 0
    for kept in described(compact):
        if kept[2] == "skipped":
            continue
        while position < len(everything) and everything[position] != kept:
            position += 1
        assert position < len(everything), f"not in the full recording: {kept}"
    assert described(compact)[-1] == everything[-1]


CASES = [
    (programs.branches, (1000,)),  # known length, fast
    (programs.counting_down, (999,)),  # while: fast with a snapshot per iteration
    (programs.with_calls, (np.array([4.0, 9.0, 16.0]), 300)),  # calls, arrays around
    (programs.fills, (200,)),  # item assignment: not fast
    (programs.accumulates, ([np.ones(3)] * 100,)),  # acc += row in place
    (programs.calls_helper, (200,)),  # a user function called in each iteration
    (programs.stops_early, (1000, 50_000)),  # break long before the known end
    (programs.prints, (100,)),
    (programs.nested, (40, 30)),
    (programs.sums_squares, (200,)),
    (programs.catches, (200,)),
]


@pytest.mark.parametrize(("fn", "args"), CASES, ids=[fn.__name__ for fn, _ in CASES])
def test_compacted_recording_agrees_with_the_full_one(fn, args, capsys):
    compact = step(fn, *args)
    full = record(partial(fn, *args), EVERYTHING)
    assert_kept_steps_are_true(compact, full)
    assert len(compact.steps) < len(full.steps)


def test_first_and_last_iterations_are_kept():
    recording = step(programs.branches, 100)
    i_values = [
        s.locals["i"].text for s in recording.steps if s.kind == "line" and "i" in s.changed
    ]
    assert i_values == ["0", "1", "2", "3", "4", "95", "96", "97", "98", "99"]
    skipped = [s for s in recording.steps if s.kind == "skipped"]
    assert len(skipped) == 1
    assert skipped[0].note.startswith("iterations 6 to 95 of the loop at line")
    assert "90 loop iterations were not recorded" in recording.notes[0]


def test_iterations_reaching_a_new_line_or_raising_are_kept():
    recording = step(programs.catches, 200)
    raised = [s.locals["i"].text for s in recording.steps if s.raised]
    assert raised == ["0", "50", "100", "150"]
    assert all(s.raised.startswith("ZeroDivisionError") for s in recording.steps if s.raised)


def test_keep_limits_are_options():
    recording = record(partial(programs.branches, 100), Limits(keep_first=1, keep_last=0))
    i_values = [
        s.locals["i"].text for s in recording.steps if s.kind == "line" and "i" in s.changed
    ]
    assert i_values == ["0"]
