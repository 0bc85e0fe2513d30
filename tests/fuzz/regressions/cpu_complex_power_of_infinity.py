# ruff: noqa
"""A complex infinity to the power 1 is itself on the CPU backend, as in NumPy.

Found by the fuzzer as `x[0] = np.power(x[0], n)` with x[0] = 0+infj and n = 1: eager
gives 0+infj, the CPU backend gave inf+infj, a different value: Numba multiplied 1+0j
by 0+infj (0 * inf is NaN) or went through exp and log. NumPy returns the base itself
for the exponent 1, and multiplies the base by itself for 2 and 3.
"""

import numpy as np


def f(x, n):
    x[0] = np.power(x[0], n)
    x[1] = x[1] ** (n + 1)
    return x


ARGS = (np.array([complex(0.0, np.inf), complex(np.inf, 1.0)]), 1)
BACKENDS = ("interpret", "cpu")
