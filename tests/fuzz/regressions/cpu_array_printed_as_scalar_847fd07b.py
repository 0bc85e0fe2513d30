# ruff: noqa
"""The CPU backend prints an array computed in a graph loop as a scalar (fuzzer finding, fixed: printed
as the array since fused groups and reductions became kernels).

Disagreement: [cpu] [f, first graph call] printed output differs
eager: 'k1 [-9223372036854775808                    4]\\nk1 [-9223372036854775808                    4]\\np12 [200   2]\\nk13 0.0 0.0 101 [0 0]\\np12 [200   2]\\nk13 0.0 0.0 101 [0 0]\\np12 [200   2]\
graph: 'k1 [-9223372036854775808                    4]\\nk1 [-9223372036854775808                    4]\\np12 [200   2]\\nk13 0.0 0.0 101 [0 0]\\np12 [200   2]\\nk13 0.0 0.0 101 [0 0]\\np12 1\\nk13 0.
"""

import numpy as np


def h0(a0_0, a0_1):
    v0 = (np.fmax(1, 1) + a0_0)
    print("k1", v0)
    return 0.0


def f(x, y, n, s):
    v2 = h0(y, y)
    v3 = h0(y, y)
    for e5, e6 in zip(x, x):
        for i7 in range(3):
            v8 = np.sum(x)
            for e10 in x:
                b11 = np.zeros_like(x)
                print("p12", (x + x))
                print("k13", v2, v3, v8, b11)
                break
            s = v3
        v14 = x[0]
        v15 = (h0(y, x) - v2)
        print("p16 %.3f %s" % (min(e5, e6), h0(x, y)))
        print("k17", v14, v15)
    s = v3
    if np.any(y > -1.5):
        raise ValueError("r18")
    v20 = x[5 > 0]
    print("k21", s, v20)
    return x


ARGS = (np.array([100, 1], dtype=np.int64), np.array([9223372036854775807, 3], dtype=np.int64), 3, 0.5)
BACKENDS = ('interpret', 'cpu')
XFAIL = {}
