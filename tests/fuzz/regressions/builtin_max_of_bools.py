# ruff: noqa
"""Python's max/min of two bools return an int in graph mode.

Found by the fuzzer as `max((a < a), np.bool_(a))` printed in a helper: eager prints
False, graph mode 0. Eager max/min return one of their arguments, so a bool (Python or
NumPy); every backend returns an int (np.int64 for NumPy bools, int for Python bools).
"""

import numpy as np


def f(x, a):
    return max(x[0] > 0, x[0] < 0), min(x[0] > 0, x[0] < 0), max(a > 0, a < 0)


ARGS = (np.array([0.5], dtype=np.float64), 0.5)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {
    "interpret": "max/min of bools return an int",
    "cpu": "max/min of bools return an int",
    "cuda": "max/min of bools return an int",
}
SIGNATURE = {"source": r"\b(max|min)\(", "kind": "result type"}
