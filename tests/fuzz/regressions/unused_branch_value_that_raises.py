# ruff: noqa
"""An operation that may fail, in a graph `if` whose values nothing uses, was dropped.

Found by the fuzzer (shrunk by hand). Eagerly `x[-1]` of an empty array raises
IndexError; `s` is assigned again after the `if`, so the graph `if` had no value anyone
used, and dead-code elimination dropped it with the indexing in it: graph mode returned
a value. Fixed: a branch or loop holding an operation that may raise (or print) is kept,
as such an operation is outside one.
"""

import numpy as np


def f(x, n):
    s = 0.0
    if not np.any(x > x):
        s = np.abs(x[-1])
    s = np.int64(n)
    return float(s)


ARGS = (np.array([], dtype=np.int64), 1)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
