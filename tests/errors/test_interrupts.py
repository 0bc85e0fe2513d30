"""Ctrl-C (SIGINT, Jupyter's stop button) stops a running graph loop on every backend,
with the KeyboardInterrupt shown at the loop's line.  (In a real kernel:
tests/kernel/test_interrupt.py.)"""

import os
import signal
import traceback

import pytest

import nbgraph as ng


def spin(n):
    k = 0
    while n > 0:
        k += 1
    return k


def nested(n):
    total = 0.0
    for _ in range(3):
        while n > 0:
            total += 1.0
    return total


@pytest.mark.parametrize("backend", ["interpret", "cpu", "cuda"])
@pytest.mark.parametrize("fn, line", [(spin, "while n > 0:"), (nested, "while n > 0:")])
def test_ctrl_c_stops_a_graph_loop_at_the_loops_line(backend, fn, line):
    graph_fn = ng.function(fn, backend=backend)
    graph_fn(-1)  # compiled before the interrupt
    # A signal in half a second, handled as SIGINT is: compiled loops hold the GIL, so
    # only a real signal (not another thread) can interrupt them.
    previous = signal.signal(signal.SIGALRM, signal.default_int_handler)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(KeyboardInterrupt) as info:
            graph_fn(1)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    frames = traceback.extract_tb(info.value.__traceback__)
    assert frames[-1].line == line and frames[-1].name == fn.__name__
    package = os.path.dirname(ng.__file__)
    assert not any(f.filename.startswith(package) for f in frames)  # user frames only
    notes = info.value.__notes__
    assert f"in graph '{fn.__name__}'" in notes[0]
    reached = [
        note
        for note in notes
        if note.startswith("in iteration ") and f"of the loop at line {frames[-1].lineno}" in note
    ]
    assert reached, notes  # the iteration it had reached, on every backend
    assert int(reached[0].split()[2]) > 1  # half a second of an endless loop
    assert graph_fn(-1) in (0, 0.0)  # the graph function still works
