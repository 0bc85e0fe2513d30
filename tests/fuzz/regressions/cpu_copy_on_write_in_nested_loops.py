# ruff: noqa
"""The CPU backend copies an array on each write inside nested graph loops, and warns.

Found by the fuzzer twice in 2,000 programs (also as "copies an array each time the loop
starts"): the values are eager's, but the ownership analysis cannot tell that the array
written (`b6 = np.zeros_like(x)`, made in the loop and carried by it) is used nowhere
else, so each write copies it and the first call warns NbgraphPerformanceWarning.
The cause: common-subexpression elimination merged the inner loop's `np.zeros_like(x)`
with the equal `b3 = np.zeros_like(x)` of the outer loop, so the inner loop wrote into
an array still printed later. Fixed: two equal calls of which one is updated stay apart.
"""

import numpy as np


def f(x, y, n, s):
    if np.any(x > x):
        print("p0", (x + x), x)
        v1 = x
        for i2 in range(n):
            b3 = np.zeros_like(x)
            print("p4", (x + x), (n + np.float64(0.5)), (x + np.float64(0.5)))
            for i5 in range(n):
                b6 = np.zeros_like(x)
                b6[0] = 0.5
                v7 = x
                v8 = x
                print("k9", b6, v7, v8)
            print("k10", b3)
        print("k11", v1)
    return x, x, x


ARGS = (np.array([], dtype=np.float64), np.array([], dtype=np.float64), 0, 0.0)
BACKENDS = ("interpret", "cpu")
XFAIL = {}
