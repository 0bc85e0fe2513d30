# ruff: noqa
"""The CPU backend's np.median: NaN ignored in odd lengths, int64 middle values overflow.

Found by the fuzzer as `np.median(x) + x`:
- x = [0.0, 0.0, nan]: NumPy returns nan (a NaN anywhere makes the median NaN); the CPU
  backend returned 0.0 (with an even length, [nan, 1.0], it is right).
- x = [-1, -2**63] (int64): NumPy averages the middle values as float64, -4.6e18; the CPU
  backend added them as int64, which wraps, +4.6e18 (likewise [2**62, 2**62]).
Fixed: the CPU backend returns the NaN that sorts last and takes integer medians in
float64 (nbgraph/backend/numba_cpu/order_statistics.py). The CUDA backend refuses np.median.
"""

import numpy as np


def f(x, k):
    return np.median(x), np.median(k)


ARGS = (np.array([0.0, 0.0, np.nan], dtype=np.float64),
        np.array([-1, -9223372036854775808], dtype=np.int64))
BACKENDS = ("interpret", "cpu", "cuda")
