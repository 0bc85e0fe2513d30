# ruff: noqa
"""An `assert` that fails while tracing comes before the prints that precede it eagerly.

Eager prints "before", then raises AssertionError. Graph mode (every backend) decided the
assert while tracing (its condition is a constant) and raised AssertionError without
printing; fixed in 70c1564 (the failing assert is a graph effect after the print).
"""

import numpy as np


def f(x):
    print("before")
    assert False, "no"
    return x


ARGS = (np.array([0.5], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
