# ruff: noqa
"""np.std and np.var of an empty array give NaN, as NumPy does.

Found by the fuzzer as `v0 = np.std(x)` with x = [] (float64). Eager NumPy returns nan
(with a RuntimeWarning); the CPU backend raised ZeroDivisionError (fixed in ea85e0c).
"""

import numpy as np


def f(x):
    return np.std(x), np.var(x)


ARGS = (np.array([], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
