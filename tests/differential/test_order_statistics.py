"""Differential tests for order statistics: NaN anywhere and integers near the int64 limits.

NumPy's median of an array holding a NaN is NaN whatever the length, and it averages the
middle values of an integer array in float64 (no wrapping near +-2**63); percentiles,
quantiles and sorts place NaN last.
"""

import numpy as np
import pytest
from harness import case_id, check

NAN = np.nan
BIG = 2**62
INPUTS = [
    np.array([0.0, 0.0, NAN]),  # odd length, NaN last
    np.array([NAN, 0.0, 0.0]),  # odd length, NaN first
    np.array([NAN, 1.0]),
    np.array([3.0, NAN, 1.0, 2.0, NAN]),
    np.array([1.5, NAN, 0.5], dtype=np.float32),
    np.array([2.5, 0.5, 1.5], dtype=np.float32),
    np.array([-1, -(2**63)]),  # middle values' int64 sum wraps
    np.array([BIG, BIG]),
    np.array([2**63 - 1, 2**63 - 1, 0, 5]),
    np.array([3, 1, 2], dtype=np.int32),
    np.array([2**31 - 1, 2**31 - 1], dtype=np.int32),
    np.array([200, 100], dtype=np.uint8),
    np.array([True, False, True, True]),
    np.array([1 + 1j, NAN + 0j, 1 - 1j]),
    np.array([1 + 1j, 2 + 0j, 1 - 1j, 0j]),
    np.array([0.0, -0.0, 1.0]),
]


def median(x):
    return np.median(x)


def nanmedian(x):
    return np.nanmedian(x)


def percentiles(x):
    return np.percentile(x, 50), np.percentile(x, 30.0), np.quantile(x, 0.25)


def nan_percentiles(x):
    return np.nanpercentile(x, 40), np.nanquantile(x, 0.75)


def sorts(x):
    """(The order of equal items in an unstable argsort is NumPy's implementation's.)"""
    return np.sort(x), np.argsort(x, kind="mergesort"), np.sort(x)[::-1], np.unique(x)


def median_of_parts(x):
    """Medians of pieces computed in a graph loop: NaN in some, not others."""
    out = []
    for i in range(len(x)):
        out.append(np.median(x[: i + 1]))
    return np.array(out)


def median_in_expression(x):
    return np.median(x) + x


REAL = [x for x in INPUTS if x.dtype.kind != "c"]


@pytest.mark.parametrize("x", INPUTS, ids=case_id)
@pytest.mark.parametrize("fn", [median, sorts, median_in_expression])
def test_median_and_sorts(fn, x):
    check(fn, x)


@pytest.mark.parametrize("x", REAL, ids=case_id)
@pytest.mark.parametrize("fn", [nanmedian, percentiles, nan_percentiles, median_of_parts])
def test_nan_and_percentiles(fn, x):
    check(fn, x)


def test_median_of_empty_is_nan():
    check(median, np.array([], dtype=np.float64))
    check(median, np.array([], dtype=np.int64))
