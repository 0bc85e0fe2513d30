# ruff: noqa
"""Float floor division by an infinity of the other sign is -1.0 on the CPU backend, as in NumPy.

Found by the fuzzer as `x = (np.power(y, y) // x).astype(np.float32)` in a loop, with
x = [0.0, 0.0, -inf]. NumPy (like Python) gives 1.0 // -inf == -1.0 and
-1.0 // inf == -1.0: the quotient is floored. The CPU backend gave -0.0 (for arrays and
NumPy scalars; Python floats were right): Numba's floor division is not NumPy's. It now
calls NumPy's own floor_divide and remainder loops (`numpy_loops.py`).
"""

import numpy as np


def f(x, y):
    return x // y, x[0] // y[0]


ARGS = (np.array([1.0, -1.0, 1.0, -1.0], dtype=np.float64),
        np.array([-np.inf, -np.inf, np.inf, np.inf], dtype=np.float64))
BACKENDS = ("interpret", "cpu", "cuda")
