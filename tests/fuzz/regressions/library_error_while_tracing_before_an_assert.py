# ruff: noqa
"""A library's error on values known while tracing came before an `assert` that fails
first eagerly.

Found by the fuzzer in this shape: eager fails the assert (AssertionError). Graph mode
(every backend) staged the assert to run after the operation before it (which may
raise), traced on, and raised NumPy's ValueError from `np.stack` of the empty list while
tracing. Fixed: an error raised by a library the user's code called with values known
while tracing is staged at its place, as the user's own code's errors are.
"""

import numpy as np


def f(x, s):
    x = np.zeros_like(x, dtype=np.float64)
    assert s > 100.0, "first"
    items = []
    return np.stack(items), x


ARGS = (np.array([1.0, 2.0], dtype=np.float64), 0.0)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
