"""NaN and Inf hunting: with ``check_numerics``, a call whose results hold a NaN or an
infinity raises ``FloatingPointError`` at the line that made the first one, with the
loop iteration, on every backend; without it, graph mode gives eager's NaNs silently."""

from __future__ import annotations

import inspect
import os
import traceback

import numpy as np
import pytest

import nbgraph as ng

BACKENDS = os.environ.get("NBGRAPH_TEST_BACKENDS", "interpret,cpu,cuda").split(",")


def line_of(fn, text: str) -> int:
    lines, first = inspect.getsourcelines(fn)
    return first + next(k for k, line in enumerate(lines) if text in line)


def raised_at(call) -> tuple[FloatingPointError, int, str]:
    with pytest.raises(FloatingPointError) as info:
        call()
    frame = traceback.extract_tb(info.value.__traceback__)[-1]
    notes = "\n".join(getattr(info.value, "__notes__", []))
    return info.value, frame.lineno, notes


def normalize_rows(a):
    norms = np.sqrt((a * a).sum(axis=1, keepdims=True))
    return a / norms  # a zero row: 0 / 0


def walk_down(x, n):
    y = x
    for _ in range(n):
        x = x - 0.5
        y = np.log(x)  # log(0) at the fourth iteration
    return y


def shifted_log(x, n):
    total = np.zeros_like(x)
    for k in range(n):
        total = total + np.log(x - k)  # log of a negative once k passes x
    return total


def blow_up(x):
    big = np.exp(x)  # overflows for x > 709
    return big * 0.0


def times(x, y):
    return x * y  # 0 * inf: a NaN from an infinity


@pytest.mark.parametrize("backend", BACKENDS)
def test_division_by_zero_is_found_at_its_line(backend):
    a = np.ones((3, 2))
    a[1] = 0.0
    g = ng.function(normalize_rows, backend=backend, check_numerics=True)
    exc, line, _ = raised_at(lambda: g(a))
    assert line == line_of(normalize_rows, "return a / norms")
    assert "made 2 NaN of 6 values" in str(exc)
    assert "from 0.0 to" in str(exc)  # the operands' ranges show the zeros


LOOPS = [  # function, arguments, its failing line, what the node made, the iteration
    (walk_down, (np.array([2.0, 3.0]), 6), "y = np.log(x)", "log made 1 Inf of 2 values", 4),
    (shifted_log, (np.array([2.5, 7.5]), 5), "np.log(x - k)", "log made 1 NaN of 2 values", 4),
]


@pytest.mark.parametrize("fn, args, text, made, iteration", LOOPS, ids=["log0", "log-1"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_log_in_a_loop_names_the_iteration(backend, fn, args, text, made, iteration):
    g = ng.function(fn, backend=backend, check_numerics=True)
    exc, line, notes = raised_at(lambda: g(*args))
    assert line == line_of(fn, text)
    assert made in str(exc)
    assert f"in iteration {iteration} of the loop" in notes


@pytest.mark.parametrize("backend", BACKENDS)
def test_overflow_is_found_before_the_nan_it_leads_to(backend):
    g = ng.function(blow_up, backend=backend, check_numerics=True)
    exc, line, _ = raised_at(lambda: g(np.array([1.0, 800.0])))
    assert line == line_of(blow_up, "big = np.exp(x)") and "exp made 1 Inf" in str(exc)


@pytest.mark.parametrize("backend", BACKENDS)
def test_zero_times_an_infinite_argument_makes_a_new_nan(backend):
    g = ng.function(times, backend=backend, check_numerics=True)
    exc, line, _ = raised_at(lambda: g(np.array([0.0, 1.0]), np.array([np.inf, 2.0])))
    assert line == line_of(times, "return x * y") and "made 1 NaN" in str(exc)


def passes_through(x):
    return np.full(x.shape, np.inf), x * 2.0


def test_what_came_in_or_is_written_as_infinity_is_no_finding():
    g = ng.function(passes_through, check_numerics=True)
    inf, doubled = g(np.array([np.nan, 1.0]))
    assert np.isinf(inf).all() and np.isnan(doubled[0]) and doubled[1] == 2.0


def test_off_by_default_and_switched_on_for_all_by_the_config():
    a = np.zeros((2, 2))
    g = ng.function(normalize_rows)
    with np.errstate(invalid="ignore"):
        assert np.isnan(g(a)).all()  # as eagerly: NaNs, no error
    ng.config.check_numerics = True
    try:
        with pytest.raises(FloatingPointError):
            g(a)
    finally:
        ng.config.check_numerics = False
