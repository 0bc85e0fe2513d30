# ruff: noqa
"""A compiled loop that never runs returns its variable as a NumPy scalar where eager keeps the Python number.

Found while testing loops over arrays: `total = 0; for e in x: total += e` over an empty
int64 array returns the Python int 0 eagerly (the loop body never ran) and np.int64(0) on
the CPU and CUDA backends, whose loop variable has one type for the whole loop. The value is the
same; its type (`isinstance(total, int)`, JSON) is not. Until it is fixed: start from the
loop's type (`total = np.int64(0)`) or convert after the loop.
"""

import numpy as np


def f(x):
    total = 0
    for e in x:
        total += e
    return total


ARGS = (np.array([], dtype=np.int64),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {
    "cpu": "the loop variable comes back as the loop's NumPy scalar type",
    "cuda": "the loop variable comes back as the loop's NumPy scalar type",
}
SIGNATURE = {"source": r"(\w+) = 0\.?0?\n[\s\S]*(for|while) [\s\S]*\b\1 [-+*/]?= ", "kind": "result type"}
