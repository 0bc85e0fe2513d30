# ruff: noqa
"""A compiled loop that never runs leaves its variable in the Python type eager code gives it.

Found while testing loops over arrays: `total = 0; for e in x: total += e` over an empty
int64 array returns the Python int 0 eagerly (the loop body never ran) and returned
np.int64(0) on the CPU and CUDA backends, whose loop variable has one type for the whole
loop. Now a loop variable that may hold a number of another Python type carries a flag
beside it saying which one it holds, and the result gets eager's type
(staging/flavors.py; tests/differential/test_number_types.py covers the family).
"""

import numpy as np


def f(x):
    total = 0
    for e in x:
        total += e
    return total


ARGS = (np.array([], dtype=np.int64),)
BACKENDS = ("interpret", "cpu", "cuda")
