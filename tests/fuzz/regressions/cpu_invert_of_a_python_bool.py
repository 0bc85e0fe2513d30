# ruff: noqa
"""`~` of a Python bool is the int's complement on the CPU backend, as eagerly.

Found by the fuzzer as `np.float32(~(False > n))` printing `1.0` where eager printed
`-1.0`. Python's `~True` is `-2` and `~False` is `-1` (a bool is an int); the CPU
backend negated the bool logically, as `~` does for NumPy bools. It now complements
the bool's int value.
"""

import numpy as np


def f(n, x):
    print(np.float32(~(False > n)), ~(n > 0))
    return ~(x[0] > 0), ~(False > n)


ARGS = (-1, np.array([0.5]))
BACKENDS = ("interpret", "cpu", "cuda")
