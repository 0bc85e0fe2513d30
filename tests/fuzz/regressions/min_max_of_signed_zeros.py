# ruff: noqa
"""min/max of 0.0 and -0.0 pick the zero NumPy picks, on every backend.

Found by the fuzzer as `print("k2", np.min(y.astype(np.float64)))` with y = [0.0, -0.0]:
eager printed -0.0, the CPU backend 0.0. NumPy: np.min([0.0, -0.0]) is -0.0, np.min([-0.0,
0.0]) is 0.0 (of equal values a reduction keeps the last, in runs shorter than its vector
width), np.maximum(0.0, -0.0) is -0.0 (the second). The compiled backends kept the first.
"""

import numpy as np


def f(y):
    print(np.min(y), np.max(y), np.minimum(y[0], y[1]), np.maximum(y[0], y[1]))
    return 1.0 / np.min(y)


ARGS = (np.array([0.0, -0.0], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
