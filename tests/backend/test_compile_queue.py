"""Compiles after a first call go through one queue (backend/numba_cpu/compile_queue.py).

Numba compiles under one global lock that is not taken in turn: with a thread per graph,
a call that waits for its own graph could wait behind every other graph's compile, and a
first call that only wanted to look in the disk cache waited for the compile in progress.
"""

from __future__ import annotations

import os
import signal
import threading

import numpy as np
import pytest
from numba.core.compiler_lock import global_compiler_lock

import nbgraph as ng
from nbgraph.backend.numba_cpu.compile_queue import QUEUE, CompileQueue, Job

WAIT_S = 300  # for what should take well under a second, on a busy machine


def blocked(release: threading.Event, log: list | None = None, name: str = "") -> Job:
    """A job that runs until ``release`` is set."""

    def run() -> None:
        if log is not None:
            log.append((name, threading.current_thread()))
        assert release.wait(WAIT_S)

    return Job(run)


def logged(log: list, name: str) -> Job:
    return Job(lambda: log.append((name, threading.current_thread())))


def test_compiles_run_in_the_order_they_were_asked_for():
    queue, release, log = CompileQueue(), threading.Event(), []
    jobs = [blocked(release, log, "first"), *(logged(log, n) for n in ("a", "b", "c"))]
    for job in jobs:
        queue.submit(job)
    assert queue.busy() and not jobs[1].finished()
    release.set()
    jobs[-1].wait_finished()
    assert [name for name, _ in log] == ["first", "a", "b", "c"]
    assert len({thread for _, thread in log}) == 1  # one thread for all of them
    assert threading.current_thread() not in {thread for _, thread in log}


def test_waiting_for_a_compile_not_started_runs_it_on_the_callers_thread():
    queue, release, log = CompileQueue(), threading.Event(), []
    first, wanted = blocked(release, log, "first"), logged(log, "wanted")
    queue.submit(first)
    queue.submit(wanted)
    queue.wait(wanted)  # does not wait for ``first``
    assert log[-1] == ("wanted", threading.current_thread()) and not first.finished()
    release.set()
    queue.wait(first)
    assert first.finished() and not queue.busy()
    queue.wait(wanted)  # done: returns at once


def test_the_end_of_the_process_finishes_the_compile_in_progress_and_drops_the_rest():
    queue, release, log = CompileQueue(), threading.Event(), []
    running, dropped = blocked(release, log, "running"), logged(log, "dropped")
    queue.submit(running)
    queue.submit(dropped)
    closing = threading.Thread(target=queue.close)
    closing.start()
    closing.join(0.2)
    assert closing.is_alive()  # waits for the compile in progress
    release.set()
    closing.join(WAIT_S)
    assert not closing.is_alive() and running.finished()
    assert [name for name, _ in log] == ["running"]
    queue.submit(logged(log, "late"))  # after the end: not run
    assert not queue.busy() and [name for name, _ in log] == ["running"]


def test_a_forked_process_runs_the_compiles_it_needs_itself():
    release = threading.Event()
    running = blocked(release, name="running in the parent")
    QUEUE.submit(running)
    try:
        pid = os.fork()
        if pid == 0:  # the child: no compile thread came along
            signal.alarm(60)  # (a hang ends the child with SIGALRM)
            release.set()  # (the child's copy of the event)
            QUEUE.wait(running)
            os._exit(0 if running.finished() and not QUEUE.busy() else 1)
        _, status = os.waitpid(pid, 0)
        assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0
        assert not running.finished()  # the parent's compile still runs
    finally:
        release.set()


# Graphs in no other test file: one another test compiled in the same worker would be
# loaded from that test's cache folder (its generated module stays loaded).
def damped_ratio(x):
    return np.tanh(x) / (1.5 + np.abs(x).sum(axis=0))


def centred_cubes(x):
    y = x - x.mean(axis=1, keepdims=True)
    return y * y * y


@pytest.fixture
def fresh_cache(monkeypatch, tmp_path):
    monkeypatch.setattr(ng.config, "background_compile", True)
    monkeypatch.setenv("NBGRAPH_CACHE_DIR", str(tmp_path))


def program_of(g: ng.GraphFunction):
    (entry,) = g.specializations.values()
    return entry.program


def test_a_first_call_does_not_wait_for_another_graphs_compile(fresh_cache):
    """Another graph's compile holds Numba's lock: a graph of array work still gets its
    first result at once (on the interpreter, eager's values), and compiles after."""
    release, holding = threading.Event(), threading.Event()

    def other_compile() -> None:
        with global_compiler_lock:
            holding.set()
            release.wait(WAIT_S)

    QUEUE.submit(Job(other_compile))
    x = np.random.default_rng(3).standard_normal((64, 48))
    g = ng.function(damped_ratio)
    first: dict = {}
    try:
        assert holding.wait(WAIT_S)
        call = threading.Thread(target=lambda: first.update(value=g(x)))
        call.start()
        call.join(WAIT_S)
        assert not call.is_alive(), "the first call waited for Numba's lock"
    finally:
        release.set()
    np.testing.assert_array_equal(first["value"], damped_ratio(x))
    assert g.last_compiled is None  # ran on the interpreter
    np.testing.assert_allclose(g(x), damped_ratio(x), rtol=1e-15)
    assert program_of(g).compiled


def test_the_next_call_compiles_its_graph_itself_if_the_queue_has_not_got_to_it(fresh_cache):
    release = threading.Event()
    ahead = blocked(release, name="a long compile ahead")
    QUEUE.submit(ahead)
    x = np.random.default_rng(4).standard_normal((80, 30))
    g = ng.function(centred_cubes)
    try:
        np.testing.assert_array_equal(g(x), centred_cubes(x))
        job = program_of(g)._background
        assert job is not None and not job.finished()
        np.testing.assert_allclose(g(x), centred_cubes(x), rtol=1e-15)
        assert program_of(g).compiled and job.finished()
        assert not ahead.finished()  # it did not wait for the compile ahead of it
    finally:
        release.set()
