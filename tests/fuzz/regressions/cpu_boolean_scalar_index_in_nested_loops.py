# ruff: noqa
"""Fuzzer regression (hang on cpu).

A boolean scalar index (``v[s > 0]``, which Numba rejects) repeated by unrolled loops
and an inlined helper: the CPU backend tried the whole graph once per repeat, half a
minute each, before taking them all to Python at once (and before it knew to).
"""

import numpy as np


def h0(a0_0, a0_1):
    print("k3", a0_0[a0_1 > 0])
    return a0_0


def f(x, y, n, s):
    v20 = abs(x % y)
    for i21 in range(3):
        for i22 in range(3):
            print("p28", v20[s > 0], sep="; ", end="|\n")
            v20[s > i21] = h0(v20, i22 - s)
            if len(x) > 1:
                print("k33", np.var(x) * i22)
    return np.max(x)


ARGS = (np.array([np.nan, 0.1, np.inf, 2.0, 0.0], dtype=np.float32), np.array([100, -7, 2147483647, 1, 3], dtype=np.int32), 0, 1)
BACKENDS = ('interpret', 'cpu')
