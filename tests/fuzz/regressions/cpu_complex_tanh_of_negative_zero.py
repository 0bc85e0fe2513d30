# ruff: noqa
"""np.tanh of a complex -0j is -0j on the CPU backend, as in NumPy.

Found by the fuzzer as `np.tanh(x[0])` printed in a graph loop with x[0] = 0-0j: eager
printed -0j, the CPU backend 0j. Numba computes complex functions with its own
formulas; NumPy with the C library's (ctanh, cexp, ...). Compiled code now calls
NumPy's own complex loops too (`numpy_loops.py`).
"""

import numpy as np


def f(x, y, n, s):
    lst0 = []
    for i1 in range(n):
        v2 = np.tanh(x[0])
        lst0.append(s)
        print("k3", v2, np.exp(x[0] * 2), np.arcsinh(x)[0])
    print("k10", np.array(lst0), x)
    return x


ARGS = (np.array([complex(0.0, -0.0)], dtype=np.complex128), np.array([0.0], dtype=np.float64), 1, 0.0)
BACKENDS = ('interpret', 'cpu')
