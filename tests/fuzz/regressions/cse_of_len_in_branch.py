# ruff: noqa
"""Common-subexpression elimination breaks a repeated `len(x)` expression in a graph branch.

Found by the fuzzer in a helper: `if len(a) > 0: ... else: for i in range(3): b =
np.full(len(a), 1.5); print(b)` (the loop is unrolled while tracing, so the branch holds
the same `np.full(len(a), 1.5)` three times). Any expression of `len(x)` computed twice in
a staged branch will do, `np.zeros(len(x))` as well as `len(x) + 1`: every backend raised
VerificationError (after cse: <print : effect> uses <+ : int> before it is defined) where
eager prints and returns. Fixed in 70c1564 (substitution follows rebuilt nodes).
"""

import numpy as np


def f(x):
    if len(x) > 0:
        print("a")
    else:
        print("k4", len(x) + 1)
        print("k5", len(x) + 1)
    return x


ARGS = (np.array([], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
