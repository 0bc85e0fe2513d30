"""with statements in graph functions: the manager is entered and left as eagerly (its
value bound, several managers, a generator-based one); one that may swallow an exception
(``contextlib.suppress``) refuses graph operations in its block, whose errors would
happen when the graph runs, after the block is gone; and no manager swallows a refusal
of graph mode, which would make the graph silently skip the rest of the block."""

from __future__ import annotations

import contextlib
import inspect

import numpy as np
import pytest
from harness import backend, check

import nbgraph as ng
from nbgraph.errors.exceptions import StagingError

X = np.array([1.5, -2.0, 0.25])
ENTERED: list[str] = []


@contextlib.contextmanager
def noted(name):
    ENTERED.append(f"enter {name}")
    try:
        yield name.upper()
    finally:
        ENTERED.append(f"exit {name}")


def managers_entered_as_eagerly(x, n):
    with noted("a") as a, noted("b") as b, np.errstate(divide="ignore"):
        y = x / (x - x) + n
        print(a, b)
    return y


def suppressed_while_tracing(x, n):
    s = x * 2
    with contextlib.suppress(KeyError):
        {}["missing"]  # raised while tracing: suppressed as eagerly
        s = s + 100.0
    return s + n


def graph_operation_under_suppress(x, n):
    s = x * 1
    with contextlib.suppress(ValueError):
        for i in range(n):
            s = s + i
            if s[0] > 5:
                raise ValueError("big")
    return s


def refusal_under_suppress(x, n):
    total = 0.0
    with contextlib.suppress(Exception):
        total = int(x.sum())  # refused: int() of a graph value
    return total + n


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


@pytest.mark.parametrize("n", [0, 3])
def test_managers_are_entered_and_left_as_eagerly(n):
    ENTERED.clear()
    check(managers_entered_as_eagerly, X, n)
    # once eagerly, and once while tracing (the second graph call reuses the trace)
    assert ENTERED == ["enter a", "enter b", "exit b", "exit a"] * 2


@pytest.mark.parametrize("n", [0, 2])
def test_an_exception_raised_while_tracing_is_suppressed_as_eagerly(n):
    check(suppressed_while_tracing, X, n)


def test_graph_operations_whose_errors_suppress_would_swallow_are_refused():
    """Eagerly the raise is swallowed; a graph raises when it runs, after the with
    statement is gone: refused at the operation, naming the with block."""
    fn = ng.function(graph_operation_under_suppress, backend=backend())
    with pytest.raises(StagingError, match=r"whose contextlib.suppress would swallow") as caught:
        fn(X, 10)
    message, fn = str(caught.value), graph_operation_under_suppress
    assert f"with block at line {line_of(fn, 'with contextlib')}," in message
    assert f"line {line_of(fn, 'for i in')})" in message


def test_no_manager_swallows_a_refusal():
    fn = ng.function(refusal_under_suppress, backend=backend())
    with pytest.raises(StagingError) as caught:
        fn(X, 1)
    assert f"line {line_of(refusal_under_suppress, 'int(x.sum())')}" in str(caught.value)


def not_a_manager(x):
    with 3:
        x = x + 1
    return x


def test_an_object_that_is_no_manager_raises_eagers_type_error():
    check(not_a_manager, X)
