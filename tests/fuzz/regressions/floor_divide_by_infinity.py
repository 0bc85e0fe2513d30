# ruff: noqa
"""The CPU backend's float floor division by an infinity of the other sign gives -0.0.

Found by the fuzzer as `x = (np.power(y, y) // x).astype(np.float32)` in a loop, with
x = [0.0, 0.0, -inf]. NumPy (like Python) gives 1.0 // -inf == -1.0 and
-1.0 // inf == -1.0: the quotient is floored. The CPU backend gives -0.0 (for arrays and
NumPy scalars; Python floats are right). `%` agrees.
"""

import numpy as np


def f(x, y):
    return x // y, x[0] // y[0]


ARGS = (np.array([1.0, -1.0, 1.0, -1.0], dtype=np.float64),
        np.array([-np.inf, -np.inf, np.inf, np.inf], dtype=np.float64))
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {"cpu": "float // an infinity of the other sign gives -0.0, not -1.0"}
SIGNATURE = {"source": r"//", "kind": "floored"}
