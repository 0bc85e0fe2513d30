# ruff: noqa
"""An error in constant arithmetic comes before the prints that precede it eagerly.

Eager prints "before", then raises ZeroDivisionError at `1.0 / 0.0`. Graph mode (every
backend) computes constants while tracing, so it raises ZeroDivisionError without
printing. The same holds for other errors of values known while tracing: `np.int32(2**40)`
(OverflowError), `1 // (i - 1)` in a loop over a constant range.
Fixed: an error of the user's code raised while tracing, after something the graph does
(a print, an operation that may raise), is raised when the graph runs, at that point.
"""

import numpy as np


def f(x):
    print("before")
    v = 1.0 / 0.0
    return x


ARGS = (np.array([0.5], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
