# ruff: noqa
"""On the CPU backend, a printed `abs(np.outer(x, y))` of int64 and float32 showed float32 values.

Found by the fuzzer: eager prints `[[2.14748365e+09]]` (a float64 product of
2147483647 and 1.0); graph mode printed `[[2.1474836e+09]]`: in compiled code Numba's
np.outer multiplied the int64 by the float32 in float32. Fixed: both operands are
converted to the result's type first, as NumPy converts them.
"""

import numpy as np


def f(x, y):
    v = abs(np.outer(x, y))
    print("k2", v)
    return x


ARGS = (np.array([2147483647], dtype=np.int64), np.array([1.0], dtype=np.float32))
BACKENDS = ("interpret", "cpu")
