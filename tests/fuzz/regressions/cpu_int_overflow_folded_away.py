# ruff: noqa
"""An int64 sum that wraps around to 0 is 0 on the CPU backend, as in NumPy.

Found by the fuzzer as `np.logical_not(x + x)` with x = [-2**63]: eager gives [True]
(the sum wraps to 0), the CPU backend gave [False], a different value. Numba marks
signed integer arithmetic "no signed wrap", and LLVM folded `x + x == 0` to `x == 0`.
NumPy integers are now added, subtracted, multiplied and negated without that flag
(`wrapping.py`).
"""

import numpy as np


def f(x, y, n, s):
    x = (x + x)
    if False:
        raise ValueError("r0")
    return np.logical_not(x).astype(np.int64), (x - 1) > x


ARGS = (np.array([-9223372036854775808], dtype=np.int64), np.array([0.0], dtype=np.float64), 0, 0.0)
BACKENDS = ('interpret', 'cpu', 'cuda')
