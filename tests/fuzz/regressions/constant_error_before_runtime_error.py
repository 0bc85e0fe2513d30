# ruff: noqa
"""An error in constant arithmetic comes before a run-time error that precedes it eagerly.

Eager raises IndexError at `x[5]`. Graph mode (every backend) computes `1.0 / 0.0` while
tracing and raises ZeroDivisionError instead. Same cause as
constant_error_while_tracing_skips_prints.py.
Fixed with constant_error_while_tracing_skips_prints.py.
"""

import numpy as np


def f(x):
    print(x[5])
    v = 1.0 / 0.0
    return v


ARGS = (np.array([1.0], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
