# ruff: noqa
"""An unused integer power that raises eagerly must raise in graph mode too.

Found by the fuzzer as `v0 = np.power(y, y)` with y = [-1] (int64), its result unused.
Eager: ValueError (Integers to negative integer powers are not allowed). Dead-code
elimination used to drop the unused node, so graph mode (every backend) returned 1.0;
fixed in a72bdf7.
"""

import numpy as np


def f(y):
    v = np.power(y, y)
    return 1.0


ARGS = (np.array([-1], dtype=np.int64),)
BACKENDS = ("interpret", "cpu", "cuda")
