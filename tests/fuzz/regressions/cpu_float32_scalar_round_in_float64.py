# ruff: noqa
"""float() of np.round of a float32 scalar shows float32's value on every backend.

Found by the fuzzer as `float(np.round(np.arctan2(v0, n), 1))` with v0 a float32: eager
gives 1.600000023841858 (float32's 1.6), the CPU backend gave 1.6: Numba rounds a float32
scalar in float64, and the value kept float64's bits until it was returned. The CPU
backend now casts every scalar to its NumPy dtype where it is computed.
"""

import numpy as np


def f(x, y, n, s):
    v0 = (np.float32(0.5) + n)
    b1 = np.zeros_like(x)
    v2 = np.round(np.arctan2(v0, n), 1)
    print("k3", b1)
    return float(v2)


ARGS = (np.array([], dtype=np.float64), np.array([], dtype=np.float64), 0, 0.0)
BACKENDS = ('interpret', 'cpu')
