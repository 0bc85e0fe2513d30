"""Self-tests for the differential harness: it must reject every observable difference."""

import numpy as np
import pytest
from harness import Outcome, assert_same, compare_outcomes


@pytest.mark.parametrize(
    "expected, actual",
    [
        (1, np.int64(1)),
        (1.0, np.float64(1.0)),
        (np.float64(1.0), np.float32(1.0)),
        (True, 1),
        (np.float64(2.0), np.array(2.0)),
        ((1, 2), [1, 2]),
        ((1, 2), (1, 2, 3)),
        (np.zeros(3), np.zeros(3, dtype=np.float32)),
        (np.zeros(3), np.zeros((3, 1))),
        (np.array([1, 2]), np.array([1, 3])),
        (np.array([1.0, 2.0]), np.array([1.0, 2.0 + 1e-9])),
        (np.array([np.nan, 1.0]), np.array([0.0, 1.0])),
        (0.5, 0.25),
        ((np.int64(1), 2.0), (np.int64(1), 2)),
    ],
    ids=lambda v: type(v).__name__,
)
def test_assert_same_rejects_differences(expected, actual):
    with pytest.raises(AssertionError):
        assert_same(expected, actual)


@pytest.mark.parametrize(
    "value",
    [
        3,
        2.5,
        np.int32(4),
        np.array([np.nan, 1.0]),
        (np.zeros((2, 0)), [1, (True, None)]),
        np.array([1 + 2j]),
    ],
    ids=lambda v: type(v).__name__,
)
def test_assert_same_accepts_identical_values(value):
    assert_same(value, value)


def test_float_tolerance_is_tight_but_nonzero():
    assert_same(np.array([1.0, 1e6]), np.array([1.0 + 1e-15, 1e6 * (1 + 1e-13)]))


def test_compare_outcomes_rejects_print_difference():
    with pytest.raises(AssertionError, match="printed output"):
        compare_outcomes(Outcome(1, None, "a\n"), Outcome(1, None, "a"), label="t")


def test_cuda_prints_are_compared_as_its_values_are():
    """The CUDA backend's float math rounds as CUDA does: printed numbers a float32 unit
    apart are the same print there (columns padded otherwise too), nowhere else; other
    differences are differences on every backend."""
    eager, near = "k [-0.21460187  1.5 ] 3\n", "k [-0.2146018  1.5] 3\n"
    compare_outcomes(Outcome(1, None, eager), Outcome(1, None, near), "t", "cuda")
    for backend in ("cpu", "interpret"):
        with pytest.raises(AssertionError, match="printed output"):
            compare_outcomes(Outcome(1, None, eager), Outcome(1, None, near), "t", backend)
    for other in ("k [-0.2146  1.5] 3\n", "j [-0.21460187  1.5] 3\n", "k [-0.21460187] 3\n"):
        with pytest.raises(AssertionError, match="printed output"):
            compare_outcomes(Outcome(1, None, eager), Outcome(1, None, other), "t", "cuda")


def test_compare_outcomes_rejects_missing_exception():
    with pytest.raises(AssertionError, match="eager raised"):
        compare_outcomes(Outcome(None, ValueError("x"), ""), Outcome(1, None, ""), label="t")


def test_compare_outcomes_rejects_other_exception_type():
    with pytest.raises(AssertionError, match="graph mode raised TypeError"):
        compare_outcomes(
            Outcome(None, ValueError("x"), ""), Outcome(None, TypeError("x"), ""), label="t"
        )


def test_compare_outcomes_accepts_exception_subclass():
    compare_outcomes(
        Outcome(None, LookupError("x"), ""), Outcome(None, KeyError("x"), ""), label="t"
    )


def test_compare_outcomes_rejects_unexpected_exception():
    with pytest.raises(AssertionError, match="graph mode raised RuntimeError"):
        compare_outcomes(Outcome(1, None, ""), Outcome(None, RuntimeError("x"), ""), label="t")
