# ruff: noqa
"""The CPU backend wraps a Python int argument that NumPy finds out of an int32 range.

Found by the fuzzer as `s // x` with s = -2**40 (a Python int argument) and x an int32
array. NumPy 2 (NEP 50) raises OverflowError (Python integer -1099511627776 out of bounds
for int32) for `s // x`, `x + s`, `x * s`, `x[0] + s`, `s // x[0]`; so do the interpret
and CUDA backends. The CPU backend wrapped the value to int32 and returned. Fixed: it converts Python
scalars as NumPy's ufunc loops do and raises the same OverflowError
(nbgraph/backend/numba_cpu/python_ints.py).
"""

import numpy as np


def f(x, s):
    return x + s


ARGS = (np.array([7, -1], dtype=np.int32), -1099511627776)
BACKENDS = ("interpret", "cpu", "cuda")
