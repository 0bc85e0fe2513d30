# ruff: noqa
"""The CPU backend copied an argument written through an alias in a graph loop on every write, and warned.

Found by the fuzzer (10,000-program run; not minimized: smaller programs with the same
loop do not copy). In the last `while` loop, `a15 = y; a15[-1] = x[1]` writes into the
argument `y` through an alias while `y` is printed; the CPU backend copies the whole array
on each write and says so with an NbgraphPerformanceWarning (the fuzzer treats the
warning as a failure). Values and printed output equalled eager's; the interpret backend
did not copy. Now `a15` and `y` are one loop variable's twins, carried once, and the
write is in place.
"""

import numpy as np


def h0(a0_0, a0_1):
    d0 = {"a": float(np.minimum(10, -0.25))}
    if d0["a"] > 0.5:
        d0["a"] = float(np.floor(a0_0))
    else:
        d0["a"] = float(a0_1.sum())
    print("k1", d0, d0.get("b", -1.0), len(d0))
    a0_0 = np.round(a0_1[-1], 1)
    print("k3", a0_0)
    return a0_1


def h1(a1_0, a1_1):
    v4 = (a1_1 / a1_0)
    print("k5", v4)
    return float(np.sign(a1_1))


def f(x, y, n, s):
    c6 = float((1e10 == 0))
    def g7():
        return c6 * 2.0 + 2.0
    w9 = 0
    while w9 < n and (n == n):
        w9 += 1
        c6 = c6 + -2.0
        print("k8", g7())
    print("k8", g7(), c6)
    v10 = np.prod(np.ones_like(y))
    w11 = 0
    while w11 < n:
        w11 += 1
        v12 = y[1]
        s = np.float32(0)
        y[0] = v12
    w14 = 0
    while w14 < 3:
        w14 += 1
        a15 = y
        a15[-1] = x[1]
        print("k16", y)
        print("p17 %.3f %s" % (len(y), x.sum()))
        if np.all(a15 < n):
            break
    return v10


ARGS = (np.array([2, 1, 4611686018427387904, -2147483648], dtype=np.int64), np.array([-5, 2147483647, 2, 4611686018427387904], dtype=np.int64), -1, np.float32(np.inf))
BACKENDS = ("interpret", "cpu")
