# ruff: noqa
"""np.stack of an empty list raises ValueError, as NumPy does.

Found by the fuzzer as a list appended to in a `for i in range(n)` loop with n = 0, then
`np.stack(lst)`. Eager NumPy raises ValueError (need at least one array to stack); the CPU
backend returned array([], shape=(0, 0)) (fixed in ea85e0c). The CUDA backend refuses lists
of arrays.
"""

import numpy as np


def f(x, n):
    lst = []
    for i in range(n):
        lst.append(x)
    return np.stack(lst)


ARGS = (np.array([1.0], dtype=np.float64), 0)
BACKENDS = ("interpret", "cpu", "cuda")
