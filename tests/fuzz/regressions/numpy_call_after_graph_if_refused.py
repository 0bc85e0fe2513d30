# ruff: noqa
"""`np.sort(x)` after a graph `if` that returns is refused as an in-place change of `np`.

Found by the fuzzer as `if len(x) > 2: return y, x` ... `return y, np.sort(x)`: graph mode
(every backend) raises StagingError "'np' is changed in place inside a graph if or loop,
but it is not a local variable of the function" at the `np.sort` line; eagerly the
function returns the sorted copy. `np.sort` does not change `np`. Fixed: a module is
not a container the call could change.
"""

import numpy as np


def f(x):
    if len(x) > 2:
        return x
    return np.sort(x)


ARGS = (np.array([2.0, 1.0], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
