# ruff: noqa
"""The compiled backends pick the other zero than NumPy in min/max of 0.0 and -0.0.

Found by the fuzzer as `print("k2", np.min(y.astype(np.float64)))` with y = [0.0, -0.0]:
eager prints -0.0, the CPU backend 0.0. The values compare equal, the printed output (and
anything divided by them) differs. NumPy: np.min([0.0, -0.0]) is -0.0, np.min([-0.0, 0.0])
is 0.0, np.max([0.0, -0.0]) and np.maximum(0.0, -0.0) are -0.0; the CPU backend gives the
other zero in each case, the CUDA backend (simulator) 0.0 in each. The interpret backend
agrees with NumPy.
"""

import numpy as np


def f(y):
    print(np.min(y), np.max(y), np.minimum(y[0], y[1]), np.maximum(y[0], y[1]))
    return 1.0 / np.min(y)


ARGS = (np.array([0.0, -0.0], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {
    "cpu": "min/max of 0.0 and -0.0 give the other zero than NumPy",
    "cuda": "min/max of 0.0 and -0.0 give the other zero than NumPy",
}
SIGNATURE = {"source": r"\b(max|min|maximum|minimum|fmax|fmin|amax|amin)\(", "kind": "signed zero"}
