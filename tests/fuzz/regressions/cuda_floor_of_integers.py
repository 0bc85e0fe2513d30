# ruff: noqa
"""np.floor of an integer array runs on the CUDA backend (NumPy gives the integers back).

Found by the fuzzer as `np.floor(x).astype(np.float64)` with x an int64 array: the CUDA
backend refused it ("cannot run astype on (int64 1-d array)"), a refusal no entry of
tests/backend/cuda/refusals.py lists. floor, ceil, trunc and rint of integers are now
the integers themselves on the GPU too.
"""

import numpy as np


def f(x, y, n, s):
    print("k11", y)
    return np.floor(x).astype(np.float64), np.rint(x) * 2


ARGS = (np.array([3, -4], dtype=np.int64), np.array([], dtype=np.float64), 0, 0.0)
BACKENDS = ('interpret', 'cpu', 'cuda')
