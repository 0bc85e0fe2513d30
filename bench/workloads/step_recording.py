"""Step recording: how much slower ``nbgraph.step`` runs a line-heavy loop of 10^6
iterations than the plain eager run, and the memory the recording takes.

Three loops: integer arithmetic with a branch (four cheap lines per iteration, the
worst case for a line tracer), a running min/max/mean over a NumPy array, and the
integer loop at a cell's top level (its variables are the cell's globals). Plain and
recorded runs alternate; the medians are compared. Peak memory is measured in runs of
its own (``tracemalloc`` slows Python down) and compared with the recording's cap.
"""

from __future__ import annotations

import linecache
import statistics
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np

from nbgraph.trace import Limits, record

NAME = "step_recording"
DESCRIPTION = "recording overhead of nbgraph.step on 10^6-iteration loops"
ITERATIONS = 10**6
ROUNDS = 5
RATIO_TARGET = 15.0
MEMORY_CAP = Limits().max_memory


def branches(n):
    total = 0
    for i in range(n):
        x = i * 3
        if x % 2:
            total += x
        else:
            total -= 1
    return total


def running_stats(a):
    lo = hi = a[0]
    total = 0.0
    for i in range(len(a)):
        x = a[i]
        total += x
        if x < lo:
            lo = x
        elif x > hi:
            hi = x
    return lo, hi, total / len(a)


# The integer loop as a cell runs it: module-level code, compiled under a file name of
# its own that linecache holds (as IPython holds its cells).
_CELL = """\
total = 0
for i in range(n):
    x = i * 3
    if x % 2:
        total += x
    else:
        total -= 1
"""
_CELL_FILE = "nbgraph-bench-cell.py"
linecache.cache[_CELL_FILE] = (len(_CELL), None, _CELL.splitlines(True), _CELL_FILE)
_CELL_CODE = compile(_CELL, _CELL_FILE, "exec")


def cell_loop(n):
    namespace = {"n": n}
    exec(_CELL_CODE, namespace)
    return namespace["total"]


def make_loops() -> dict[str, Callable[[], Any]]:
    values = np.random.default_rng(0).random(ITERATIONS)
    return {
        "integer loop": partial(branches, ITERATIONS),
        "array statistics loop": partial(running_stats, values),
        "cell-level integer loop": partial(cell_loop, ITERATIONS),
    }


def _timed(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def _peak(fn: Callable[[], Any]) -> tuple[int, Any]:
    tracemalloc.start()
    try:
        result = fn()
        return tracemalloc.get_traced_memory()[1], result
    finally:
        tracemalloc.stop()


def measure(rounds: int = ROUNDS) -> dict[str, Any]:
    """Time and memory of every loop, plain and recorded."""
    loops = {}
    for name, run in make_loops().items():
        recording = record(run)
        assert recording.result == run() or np.allclose(recording.result, run())
        plain, recorded = [], []
        for _ in range(rounds):
            plain.append(_timed(run))
            recorded.append(_timed(partial(record, run)))
        peak, _ = _peak(partial(record, run))
        ratio = statistics.median(recorded) / statistics.median(plain)
        loops[name] = {
            "plain_median_s": statistics.median(plain),
            "recorded_median_s": statistics.median(recorded),
            "plain_s": plain,
            "recorded_s": recorded,
            "ratio": ratio,
            "ratio_target": RATIO_TARGET,
            "ratio_passed": ratio <= RATIO_TARGET,
            "peak_memory_bytes": peak,
            "memory_cap_bytes": MEMORY_CAP,
            "memory_passed": peak <= MEMORY_CAP,
            "steps_kept": len(recording.steps),
            "notes": recording.notes,
        }
    return {"description": DESCRIPTION, "iterations": ITERATIONS, "rounds": rounds, "loops": loops}


def table(result: dict[str, Any]) -> dict[str, Any]:
    """The table ``bench/run.py`` prints for this row."""
    mark = {True: "PASS", False: "FAIL"}
    return {
        "title": f"Step recording (nbgraph.step), median of {result['rounds']} interleaved rounds",
        "headers": [
            "loop (10^6 iterations)",
            "plain",
            "recorded",
            "ratio",
            f"<={RATIO_TARGET:g}x",
            "peak memory",
            f"<={MEMORY_CAP / 2**20:g} MiB",
            "steps kept",
        ],
        "rows": [
            [
                name,
                f"{r['plain_median_s'] * 1e3:.1f} ms",
                f"{r['recorded_median_s']:.3f} s",
                f"{r['ratio']:.1f}x",
                mark[r["ratio_passed"]],
                f"{r['peak_memory_bytes'] / 2**20:.2f} MiB",
                mark[r["memory_passed"]],
                str(r["steps_kept"]),
            ]
            for name, r in result["loops"].items()
        ],
    }


def bench() -> dict[str, Any]:
    """The row's measurements, and the table to print."""
    result = measure()
    result["table"] = table(result)
    return result
