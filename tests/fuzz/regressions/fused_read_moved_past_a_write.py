# ruff: noqa
"""Fuzzer regression (failure on cpu).

Disagreement: [cpu] [f, second graph call] printed output differs
eager: 'p4 [0.5] [0.5]\\nk6 [0.] [0.5]\\n'
graph: 'p4 [0.5] [0.]\\nk6 [0.] [0.5]\\n'
"""

# Python constructs: argument writes
import numpy as np


def h0(a0_0, a0_1):
    v0 = a0_0
    print("k1", v0)
    return a0_0


def f(x, y, n, s):
    v2 = (-x)
    x[0] = np.float64(0.5)
    b3 = np.zeros_like(x)
    print("p4", x, (v2 + x))
    v5 = x.copy()
    print("k6", b3, v5)
    return np.sum(x)


ARGS = (np.array([0.0], dtype=np.float64), np.array([0.0], dtype=np.float64), 0, 0.0)
BACKENDS = ('interpret', 'cpu')
