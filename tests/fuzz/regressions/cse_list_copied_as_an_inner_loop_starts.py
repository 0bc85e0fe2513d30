# ruff: noqa
"""Fuzzer regression (failure on cpu).

Disagreement: [cpu] [f, first graph call] graph mode raised NbgraphPerformanceWarning: nbgraph: graph 'f' at line 20: this update inside a loop copies an array each time the loop starts (the value it 
"""

import numpy as np


def f(x, y, n, s):
    x = np.zeros_like(x, dtype=np.float64)
    for i0 in range(n):
        for i1 in range(len(x)):
            if (x[i1] < 0.5):
                raise ValueError("r2")
            v3 = (np.sum(x) + n)
            print("k4", v3)
        if True:
            v5 = (max(n, n) + x)
            print("k6", v5)
        v7 = n
        print("k8", v7)
    lst9 = []
    for e11, e12 in zip(x, x):
        lst13 = []
        for i14 in range(n):
            v15 = x
            lst13.append(0.0)
            print("k16", v15)
        v17 = np.array(lst13)
        lst9.append(0.0)
        print("k19", v17)
    v20 = np.array(lst9)
    print("k22", v20)
    return x, np.float64(0), bool(n)


ARGS = (np.array([], dtype=np.float64), np.array([], dtype=np.float32), 0, 0)
BACKENDS = ('interpret', 'cpu')
