# ruff: noqa
"""Python's max/min of two bools return a bool in graph mode, as eagerly.

Found by the fuzzer as `max((a < a), np.bool_(a))` printed in a helper: eager prints
False, graph mode printed 0. Eager max/min return one of their arguments, so a bool
(Python or NumPy); every backend returned an int (np.int64 for NumPy bools, int for
Python bools). Now the result carries, beside the promoted value, which argument won,
and is returned and printed in that argument's type (staging/flavors.py).
"""

import numpy as np


def f(x, a):
    print(max(x[0] < 0, np.bool_(a)), min(a > 0, x[0]))
    return max(x[0] > 0, x[0] < 0), min(x[0] > 0, x[0] < 0), max(a > 0, a < 0)


ARGS = (np.array([0.5], dtype=np.float64), 0.5)
BACKENDS = ("interpret", "cpu", "cuda")
