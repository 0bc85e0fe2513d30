# ruff: noqa
"""The mean of an empty complex array is nan+nanj on the CPU backend, as in NumPy.

Found by the fuzzer as `np.mean(x + x)` printed with x an empty complex128 array:
eager printed (nan+nanj), the CPU backend (nan+0j): Numba divides the complex sum by
zero its own way, and adds complex numbers in order where NumPy adds pairwise. Sums,
means, variances and standard deviations of complex arrays now run in NumPy.
"""

import numpy as np


def f(x, y, n, s):
    x = (x + x)
    v23 = np.mean(x)
    print("k24", v23, np.mean(y), y.var(), np.sum(y * 1j))
    return y


ARGS = (np.array([], dtype=np.complex128), np.array([1 + 2j, 3 - 1j, 0.5j]), 1, 0.0)
BACKENDS = ('interpret', 'cpu')
