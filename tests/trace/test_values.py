"""Values are recorded as changes and as summaries, never as copies of arrays."""

import tracemalloc

import numpy as np
import programs

from nbgraph.trace import ArraySummary, ObjectSummary, step
from nbgraph.trace.summary import STATS_FULL_MAX, summarize


def test_only_changes_are_stored():
    recording = step(programs.branches, 4)
    per_step = {}
    for index, _, name, _ in recording.changes:
        per_step.setdefault(index, []).append(name)
    # Each step stores at most the one variable its previous line bound.
    assert all(len(names) == 1 for index, names in per_step.items() if index > 0)
    assert len(recording.changes) < 2 * len(recording.steps)


def test_array_summary():
    summary = summarize(np.array([[1.0, np.nan], [np.inf, -2.0]]))
    assert isinstance(summary, ArraySummary)
    assert (summary.shape, summary.dtype, summary.nbytes) == ((2, 2), "float64", 32)
    assert summary.head == ("1", "nan", "inf", "-2") and summary.tail == ()
    assert (summary.min, summary.max, summary.mean) == (-2.0, 1.0, -0.5)
    assert (summary.nan_count, summary.inf_count, summary.sampled) == (1, 1, None)


def test_large_arrays_are_summarized_from_a_sample_and_labelled_so():
    big = np.arange(STATS_FULL_MAX * 10, dtype=np.float64)
    summary = summarize(big)
    assert summary.sampled is not None and summary.sampled < big.size
    assert summary.head == ("0", "1", "2", "3", "4")
    assert summary.tail[-1] == str(big.size - 1)
    assert summary.to_json()["sampled"] == summary.sampled


def test_other_values_are_bounded_reprs():
    summary = summarize(list(range(10_000)))
    assert isinstance(summary, ObjectSummary)
    assert summary.type == "list" and summary.length == 10_000
    assert len(summary.text) < 200
    assert summarize(np.float32(1.5)).number == 1.5


def test_recording_a_large_array_does_not_copy_it():
    big = np.ones(4_000_000)  # 32 MB

    def uses(a):
        b = a
        b[0] = 2.0
        return b

    tracemalloc.start()
    recording = step(uses, big)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2_000_000
    assert recording.steps[-1].locals["b"].head[0] == "2"


def test_changes_in_place_are_seen_through_aliases():
    recording = step(programs.aliases)
    last = recording.steps[-1].locals
    assert last["a"].head[0] == "7" and last["b"].head[0] == "7"


def test_item_assignment_into_a_large_array_is_a_change():
    recording = step(programs.fills, 300_000)
    changed_out = [s for s in recording.steps if "out" in s.changed]
    assert len(changed_out) >= 5
    assert recording.steps[-1].locals["out"].tail[-1] == "149999.5"
