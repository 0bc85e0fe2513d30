# ruff: noqa
"""The CPU backend prints an array computed in a graph loop as a scalar (fuzzer finding, fixed: printed
as the array since fused groups and reductions became kernels).

Disagreement: [cpu] [f, first graph call] printed output differs
eager: 'k12 1.0\\nk13 [ 2. 20.]\\nk19 [ 1. 10.] [inf inf]\\nk20 1 [0 0] [0.]\\n'
graph: 'k12 1.0\\nk13 [ 2. 20.]\\nk19 [ 1. 10.] 0\\nk20 1 [0 0] [0.]\\n'
"""

import numpy as np


def h0(a0_0, a0_1):
    v0 = a0_0[0]
    print("k1", v0)
    return a0_1


def h1(a1_0):
    v2 = (a1_0 + a1_0)
    print("k3", v2)
    return np.minimum(a1_0, a1_0)


def f(x, y, n, s):
    v4 = n
    b5 = np.zeros(len(x), dtype=np.int64)
    lst6 = []
    for i7 in range(n):
        v8 = (x + x)
        if (np.any(x > x) and True):
            v9 = ((x + x) % y)
            print("k10", v9)
        else:
            v11 = x[0]
            print("k12", v11)
        lst6.append(0.0)
        print("k13", v8)
    v14 = np.array(lst6)
    x = x
    if True:
        for i16 in range(min(n, 4)):
            v17 = x
            v18 = (np.inf + y)
            print("k19", v17, v18)
    print("k20", v4, b5, v14)
    return float(s)


ARGS = (np.array([1.0, 10.0], dtype=np.float64), np.array([7, 0], dtype=np.int64), 1, 0)
BACKENDS = ('interpret', 'cpu', 'cuda')
XFAIL = {}
