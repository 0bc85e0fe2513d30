"""Differential harness: run a function eagerly and as an nbgraph graph, then compare.

Graph mode promises to be indistinguishable from plain Python execution.  ``check`` makes
that promise testable: it runs the original function and its graph-compiled version on
independent deep copies of the same arguments and compares everything a caller can observe:

* the text written to stdout (``print`` calls, in order);
* the exception type, when the eager run raises;
* the returned value, recursively: container types and lengths, array dtype/shape/values,
  and the exact Python type of every leaf (a Python ``int`` must not come back as a
  ``numpy.int64``, a ``numpy.float64`` must not come back as a Python ``float``).

The graph function is called twice, so that a result served from the trace cache is held to
the same standard as the result of the call that traced it (a ``print`` that only happens
while tracing, for example, is caught by the second call).
"""

from __future__ import annotations

import contextlib
import copy
import importlib.util
import io
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import nbgraph as ng
from nbgraph.backend.numba_cuda.program import DeviceUnsupportedError

# The backend under test; conftest.py runs every test once per backend.
BACKEND = "interpret"


def backend() -> str:
    """The backend the current test runs against."""
    return BACKEND


# Floating point results are compared with a tight relative tolerance: graph execution may
# legitimately reorder a reduction, but nothing more.  The tiny absolute tolerance only
# matters for values that should be exactly zero.  Dtypes less precise than float64 are
# allowed a few units in the last place instead (a compiled backend may round float32 math
# functions differently from NumPy, equally correctly).
RTOL = 1e-12
ATOL = 1e-14


@dataclass
class Outcome:
    """What one call produced: its return value or exception, and its printed output."""

    value: Any
    error: Exception | None
    stdout: str

    def describe(self) -> str:
        if self.error is not None:
            return f"raised {type(self.error).__name__}: {self.error}"
        return f"returned {type(self.value).__name__}: {self.value!r}"


def run_captured(fn: Callable, args: tuple, kwargs: dict) -> Outcome:
    """Call ``fn`` on deep copies of the arguments, capturing stdout and any exception.

    Deep copies keep the two modes independent: a function that mutates an argument in
    place must not change the input the other mode sees.
    """
    return run_on(fn, copy.deepcopy(args), copy.deepcopy(kwargs))


def run_on(fn: Callable, args: tuple, kwargs: dict | None = None) -> Outcome:
    """Call ``fn`` on the arguments themselves (the caller sees what it does to them),
    capturing stdout and any exception."""
    buffer = io.StringIO()
    value, error = None, None
    with contextlib.redirect_stdout(buffer):
        try:
            value = fn(*args, **(kwargs or {}))
        except Exception as exc:
            error = exc
    return Outcome(value=value, error=error, stdout=buffer.getvalue())


def check(
    fn: Callable,
    *args: Any,
    backend: str | None = None,
    static_argnames: tuple[str, ...] = (),
    kwargs: dict | None = None,
) -> Any:
    """Assert that ``fn(*args, **kwargs)`` behaves the same eagerly and in graph mode.

    Returns the eager result so that a test can make further assertions on it.
    """
    kwargs = dict(kwargs or {})
    eager = run_captured(fn, args, kwargs)
    graph_fn = ng.function(fn, backend=backend or BACKEND, static_argnames=static_argnames)
    for call in ("first graph call", "second graph call"):
        graph = run_captured(graph_fn, args, kwargs)
        compare_outcomes(eager, graph, f"{fn.__name__}, {call}", backend or BACKEND)
    return eager.value


def check_writes(fn: Callable, *args: Any, calls: int = 2) -> tuple:
    """``check``, and the arguments agree after the call too: each graph call (the first
    one tracing) on a new copy of them, compared with eager's copy.  Returns the arguments
    of the last graph call."""
    eager_args = copy.deepcopy(args)
    eager = run_on(fn, eager_args)
    graph_fn = ng.function(fn, backend=BACKEND)
    for call in range(1, calls + 1):
        graph_args = copy.deepcopy(args)
        graph = run_on(graph_fn, graph_args)
        compare_outcomes(eager, graph, f"{fn.__name__}, graph call {call}", BACKEND)
        for k, (want, got) in enumerate(zip(eager_args, graph_args)):
            if isinstance(want, np.ndarray):
                assert got.dtype == want.dtype
                np.testing.assert_array_equal(
                    got, want, err_msg=f"{fn.__name__}: argument {k + 1} after graph call {call}"
                )
    return graph_args


def check_program(
    source: str,
    path: Path,
    calls: list[tuple],
    allowed: Callable[[BaseException | None], bool] = lambda refusal: False,
    checker: Callable[..., Any] = check,
) -> None:
    """Run ``checker`` (``check`` by default) on the function ``f`` that the generated
    program ``source`` defines (written to ``path``: graph mode reads the source), once
    per argument tuple in ``calls``.  A failure whose cause ``allowed`` accepts (a
    refusal the test expects) is skipped; any other names the program."""
    path.write_text(source)
    namespace: dict = {"np": np}
    exec(compile(source, str(path), "exec"), namespace)
    for args in calls:
        try:
            checker(namespace["f"], *args)
        except AssertionError as failure:
            if allowed(failure.__cause__):
                continue
            raise AssertionError(f"{failure}\n{source}") from failure.__cause__


# A number as Python and NumPy print it.
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:e[-+]?\d+)?|[-+]?(?:inf|nan)")


def same_print(eager: str, graph: str, backend: str) -> bool:
    """Whether graph mode printed what eager printed.  Exactly, except on the CUDA
    backend: its float math functions are CUDA's (the host's ``math`` on the simulator),
    which round otherwise than NumPy's SIMD loops in the last bit, so its printed numbers
    are compared as its values are, within a few float32 units in the last place (the
    text around them alike, up to the spaces NumPy pads columns with)."""
    if eager == graph:
        return True
    if backend != "cuda":
        return False
    texts = [[" ".join(part.split()) for part in _NUMBER.split(out)] for out in (eager, graph)]
    numbers = [_NUMBER.findall(out) for out in (eager, graph)]
    if texts[0] != texts[1] or len(numbers[0]) != len(numbers[1]):
        return False
    rtol = 4 * float(np.finfo(np.float32).eps)
    return all(
        a == b or np.isclose(float(a), float(b), rtol=rtol, atol=0.0) for a, b in zip(*numbers)
    )


def compare_outcomes(eager: Outcome, graph: Outcome, label: str, backend: str = "") -> None:
    """Assert that a graph-mode outcome (of ``backend``) matches the eager outcome."""
    if isinstance(graph.error, DeviceUnsupportedError):
        # The CUDA backend refuses, before running, what it cannot run on the GPU: only
        # what tests/backend/cuda/refusals.py lists.
        kind = cuda_refusal(graph.error)
        if kind is None:
            raise AssertionError(
                f"[{label}] the CUDA backend refused what it is not known "
                f"to refuse (tests/backend/cuda/refusals.py): {graph.error}"
            )
        pytest.skip(f"not on the GPU ({kind}): {graph.error}")
    if graph.error is not None and eager.error is None:
        raise AssertionError(
            f"[{label}] graph mode {graph.describe()}; eager {eager.describe()}"
        ) from graph.error
    if eager.error is not None:
        if graph.error is None:
            raise AssertionError(
                f"[{label}] eager {eager.describe()}; graph mode {graph.describe()}"
            )
        if not isinstance(graph.error, type(eager.error)):
            raise AssertionError(
                f"[{label}] eager raised {type(eager.error).__name__}, "
                f"graph mode raised {type(graph.error).__name__}: {graph.error}"
            ) from graph.error
    assert same_print(eager.stdout, graph.stdout, backend), (
        f"[{label}] printed output differs\neager: {eager.stdout!r}\ngraph: {graph.stdout!r}"
    )
    if eager.error is None:
        assert_same(eager.value, graph.value, path=f"[{label}] result")


def cuda_refusal(error: BaseException) -> str | None:
    """Which listed refusal of the CUDA backend ``error`` is (None: not a listed one)."""
    global _REFUSALS
    if _REFUSALS is None:
        path = Path(__file__).resolve().parents[1] / "backend" / "cuda" / "refusals.py"
        spec = importlib.util.spec_from_file_location("cuda_refusals", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # (dataclasses look their module up there)
        spec.loader.exec_module(module)
        _REFUSALS = module
    return _REFUSALS.expected(error)


_REFUSALS: Any = None


def assert_same(expected: Any, actual: Any, path: str = "result") -> None:
    """Recursively assert that ``actual`` is indistinguishable from ``expected``.

    Types must be identical (``type(a) is type(b)``), which separates Python scalars from
    NumPy scalars from arrays, and tuples from lists.  Arrays and NumPy scalars must agree
    in dtype and shape; inexact values are compared with ``RTOL``/``ATOL`` (NaNs equal),
    everything else exactly.
    """
    assert type(actual) is type(expected), (
        f"{path}: type {type(actual).__name__} != expected {type(expected).__name__} "
        f"(value {actual!r}, expected {expected!r})"
    )
    if isinstance(expected, (tuple, list)):
        assert len(actual) == len(expected), (
            f"{path}: length {len(actual)} != expected {len(expected)}"
        )
        for i, (e, a) in enumerate(zip(expected, actual)):
            assert_same(e, a, path=f"{path}[{i}]")
    elif isinstance(expected, dict):
        assert list(actual) == list(expected), (
            f"{path}: keys {list(actual)} != expected {list(expected)}"
        )
        for key in expected:
            assert_same(expected[key], actual[key], path=f"{path}[{key!r}]")
    elif isinstance(expected, (np.ndarray, np.generic)):
        assert actual.dtype == expected.dtype, (
            f"{path}: dtype {actual.dtype} != expected {expected.dtype}"
        )
        assert actual.shape == expected.shape, (
            f"{path}: shape {actual.shape} != expected {expected.shape}"
        )
        assert_values_equal(expected, actual, path)
    elif isinstance(expected, (bool, int, float, complex)):
        assert_values_equal(expected, actual, path)
    else:
        assert actual == expected, f"{path}: {actual!r} != expected {expected!r}"


def assert_values_equal(expected: Any, actual: Any, path: str) -> None:
    """Compare numeric values: within tolerance for inexact kinds, exactly otherwise."""
    expected_arr, actual_arr = np.asarray(expected), np.asarray(actual)
    try:
        if expected_arr.dtype.kind in "fc":
            rtol = max(RTOL, 4 * float(np.finfo(expected_arr.dtype).eps))
            np.testing.assert_allclose(
                actual_arr, expected_arr, rtol=rtol, atol=ATOL, equal_nan=True
            )
        else:
            np.testing.assert_array_equal(actual_arr, expected_arr)
    except AssertionError as exc:
        detail = str(exc).strip()
        raise AssertionError(
            f"{path}: values differ (got {actual!r}, expected {expected!r})\n{detail}"
        ) from None


def case_id(value: Any) -> str:
    """A short, type-revealing test id for a parameter value (for ``parametrize(ids=...)``).

    Python scalars show as their repr (``2``, ``2.5``, ``True``), NumPy scalars with their
    type (``float32(0.5)``) and arrays by dtype and shape (``int64[2x3]``), so that ids tell
    apart inputs whose printed values coincide.
    """
    if isinstance(value, np.ndarray):
        return f"{value.dtype}[{'x'.join(str(d) for d in value.shape)}]"
    if isinstance(value, np.generic):
        return f"{type(value).__name__}({value})"
    return repr(value)
