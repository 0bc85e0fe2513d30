# ruff: noqa
"""Ordering complex values (NumPy's lexicographic order) fails on the CPU backend.

Found by the fuzzer as `max(np.sum(x), np.sum(x))` with x a complex128 array: the CPU
backend cannot compile the graph (Numba: No definition for lowering gt(complex128,
complex128)) and warns NbgraphPerformanceWarning, running the interpret backend instead.
`x < x * 2` on complex arrays raises TypeError ('<' not supported between instances of
'complex' and 'NoneType'). NumPy orders complex numbers by real, then imaginary part; the
interpret backend agrees; the CUDA backend refuses complex numbers. Fixed: the CPU backend
has NumPy order complex numbers (comparisons, max/min, np.maximum...) and keeps
those nodes out of its fused loops.
"""

import numpy as np


def f(x):
    return max(np.sum(x), np.sum(x) * 2), x < x * 2


ARGS = (np.array([1 + 1j, 2 - 1j], dtype=np.complex128),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
