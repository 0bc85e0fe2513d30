# ruff: noqa
"""np.where with a Python int out of the array's range wraps it on every backend, as NumPy does.

Found by the differential tests of Python ints meeting integer arrays: NumPy's
`np.where(x > 0, x, 2**31)` with x an int32 array converts the Python int without a range
check (the result is int32, the value wrapped). The CUDA backend's simulator raised
OverflowError (its kernel converted a Python int with NumPy), the GPU wrapped; kernels now
take Python ints as int64 on both, as the GPU does.
"""

import numpy as np


def f(x, s):
    return np.where(x > 0, x, s)


ARGS = (np.array([7, -1, 3], dtype=np.int32), 2147483648)
BACKENDS = ("interpret", "cpu", "cuda")
