"""The step and memory limits stop the recording, not the run, and say so."""

from functools import partial

import programs

from nbgraph.trace import Limits, record, step


def test_step_limit():
    recording = record(
        partial(programs.calls_helper, 10**4), Limits(max_steps=300, keep_first=10**9)
    )
    assert 300 <= len(recording.steps) <= 302
    assert "step limit (300)" in recording.notes[-1]
    assert recording.result == sum(i * i for i in range(10**4))


def test_memory_limit():
    recording = record(
        partial(programs.calls_helper, 10**4), Limits(max_memory=200_000, keep_first=10**9)
    )
    assert "memory limit" in recording.notes[-1]
    assert len(recording.steps) < 2000


def test_long_loops_stay_small():
    recording = step(programs.branches, 10**5)
    assert len(recording.steps) < 60
    assert recording.result == programs.branches(10**5)


def test_printed_output_counts_against_the_memory_limit(capsys):
    recording = record(partial(programs.prints, 10**5), Limits(max_memory=100_000))
    assert "memory limit" in recording.notes[-1]
    assert recording.result == 10**5
