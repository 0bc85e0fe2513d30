"""The eager switch: ``nbgraph.config.run_eagerly`` (``NBGRAPH_RUN_EAGERLY``) and
``f.eager`` run graph functions as their Python code, helpers included; graph mode
refuses ``breakpoint()`` with the way to stop in the function."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.errors.exceptions import StagingError

CALLS: list[str] = []


@ng.function
def helper(x):
    CALLS.append("helper")  # a Python effect: graph mode refuses it (once per trace)
    return x * 2.0


@ng.function
def outer(x):
    return helper(x).sum()


@pytest.fixture
def eager_mode():
    ng.config.run_eagerly = True
    yield
    ng.config.run_eagerly = False


def test_run_eagerly_calls_the_python_code_helpers_included(eager_mode):
    CALLS.clear()
    x = np.arange(4.0)
    assert outer(x) == 12.0 and outer(x) == 12.0
    assert CALLS == ["helper", "helper"]  # each call ran it
    assert outer.trace_count == 0 and helper.trace_count == 0  # nothing traced


def test_eager_runs_the_helpers_eagerly_too():
    CALLS.clear()
    x = np.arange(4.0)
    outer.eager(x)
    outer.eager(x)
    assert CALLS == ["helper", "helper"]  # each call ran the helper's Python code
    assert not ng.config.run_eagerly  # .eager switched nothing globally
    # Graph mode would change the global once, while tracing: refused, unchanged.
    with pytest.raises(StagingError, match="'CALLS' is a global variable"):
        outer(x)
    assert CALLS == ["helper", "helper"]


def test_gradients_still_run_as_graphs(eager_mode):
    def loss(w):
        return np.sum(w * w)

    np.testing.assert_allclose(ng.grad(loss)(np.arange(3.0)), [0.0, 2.0, 4.0])


def test_the_environment_variable_sets_it():
    code = "import nbgraph as ng; print(ng.config.run_eagerly)"
    env = {**os.environ, "NBGRAPH_RUN_EAGERLY": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)
    assert out.stdout.strip() == "True", out.stderr


@ng.function
def stops(x):
    breakpoint()
    return x + 1


def test_graph_mode_refuses_breakpoint_with_the_fix():
    with pytest.raises(StagingError, match=r"%autograph off") as info:
        stops(np.ones(2))
    assert "breakpoint()" in str(info.value)
