# ruff: noqa
"""Fuzzer regression (failure on cuda): a float32 `np.arctan2` printed one unit apart.

Disagreement: [cuda] [f, first graph call] printed output differs
eager: 'k8 [1.  3.  0.5] [[0. 0. 1.]] [1.  3.  0.5] [-0.21460187 -0.21460187 -0.21460187]\\n'
graph: 'k8 [1.  3.  0.5] [[0. 0. 1.]] [1.  3.  0.5] [-0.21460181 -0.21460181 -0.21460181]\\n'

With AVX-512, NumPy's float32 `arctan2` is SIMD code whose last bit differs from the
correctly rounded value the CUDA backend computed (the simulator's host `math`). The
values were within the harness's float32 tolerance; the printed text was compared
exactly. The CUDA backend's printed numbers are now compared as its values are.
"""

import numpy as np


def h0(a0_0):
    if ((a0_0 == a0_0) >= np.int32(0)):
        raise ValueError("r0")
    v1 = (abs(10) if (a0_0 <= a0_0) else int((0.0 > a0_0)))
    a0_0 -= np.power(-0.25, a0_0)
    print("k2", a0_0)
    return np.float32(v1)


def f(x, y, n, s):
    v5 = y.T[np.ceil(2.0) > 0]
    y = (s + np.arctan2(x, x))
    v6 = x
    x = x
    v7 = y
    print("k8", x, v5, v6, v7)
    return s, np.float32(0), s


ARGS = (np.array([1.0, 3.0, 0.5], dtype=np.float32), np.array([0.0, 0.0, 1.0], dtype=np.float32), 0, -1.0)
BACKENDS = ('interpret', 'cpu', 'cuda')
