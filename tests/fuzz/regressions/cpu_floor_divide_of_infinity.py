# ruff: noqa
"""inf // x is NaN on the CPU backend, as NumPy's floor division gives it.

Found by the fuzzer as `np.power(s, v6) // (0.0 - s)` printed, with the power inf:
eager printed nan (NumPy's npy_divmod: fmod(inf, x) is NaN), the CPU backend -inf. It
now calls NumPy's own floor_divide loop (`numpy_loops.py`).
"""

import numpy as np


def f(x, s):
    v10 = np.power(s, x[0]) // (0.0 - s)
    print("k12", v10, x // -2.0, x % 3.0)
    return v10


ARGS = (np.array([1e10, np.inf, -np.inf, 2.5]), 1e10)
BACKENDS = ('interpret', 'cpu', 'cuda')
