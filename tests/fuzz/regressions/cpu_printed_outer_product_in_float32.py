# ruff: noqa
"""On the CPU backend, a printed `abs(np.outer(x, y))` of int64 and float32 shows float32 values.

Found by the fuzzer: eager prints `[[2.14748365e+09]]` (a float64 product of
2147483647 and 1.0); graph mode prints `[[2.1474836e+09]]`, although the same value
returned, not printed, is right.
"""

import numpy as np


def f(x, y):
    v = abs(np.outer(x, y))
    print("k2", v)
    return x


ARGS = (np.array([2147483647], dtype=np.int64), np.array([1.0], dtype=np.float32))
BACKENDS = ("interpret", "cpu")
XFAIL = {"cpu": "a printed outer product of int64 and float32 is rounded to float32"}
SIGNATURE = {"source": r"np\.outer", "kind": "last digits"}
