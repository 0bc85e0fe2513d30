# ruff: noqa
"""The CUDA backend raises OverflowError for np.where with a Python int out of the array's range.

Found by the differential tests of Python ints meeting integer arrays: NumPy's
`np.where(x > 0, x, 2**31)` with x an int32 array converts the Python int without a range
check (the result is int32, the value wrapped); the CUDA backend (simulator) checks it
against int32's range and raises OverflowError. The interpret and CPU backends agree with
NumPy.
"""

import numpy as np


def f(x, s):
    return np.where(x > 0, x, s)


ARGS = (np.array([7, -1, 3], dtype=np.int32), 2147483648)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {"cuda": "np.where with a Python int out of the array's range raises OverflowError"}
SIGNATURE = {"source": r"np\.where\(", "kind": "refused"}
