# ruff: noqa
"""Fuzzer regression (failure on cuda).

Disagreement: [cuda] [f, first graph call] graph mode raised ValueError: tid=[0, 0, 0] ctaid=[0, 0, 0]: math domain error; eager returned float: 0.4636476090008061
"""

# Python constructs: held, tuple
import numpy as np


def h0(a0_0, a0_1):
    t0 = (float(np.hypot(0.5, a0_0)), 0)
    if np.any(a0_1 > a0_0):
        t0 = (0.5, 1)
    v1, v2 = t0
    return float(np.arctan(v1))


def f(x, y, n, s):
    y = np.sin(x)
    b3 = x.copy()
    c4 = [float(1), b3]
    for i5, e6 in enumerate(b3):
        c4[0] += 0.0
        c4[1] -= np.mean(x)
    print("k7", b3, c4[1], c4[0])
    x = b3
    v8 = np.cos(np.conj(s))
    print("k9", x, y, v8)
    return h0(float(s), b3)


ARGS = (np.array([np.inf], dtype=np.float64), np.array([0.0], dtype=np.float64), 0, np.float32(0.0))
BACKENDS = ('interpret', 'cpu', 'cuda')
