# ruff: noqa
"""A tuple returned inside a graph `if`, holding a value computed in that `if`.

Found by the fuzzer in many shapes: `if np.sum(x) < n: return x, float(n)`, elif and else
branches, a loop inside the `if`, a value assigned in the branch and then returned. Every
backend raised VerificationError (after tracing: result <+ : float> is not defined) where
eager returns (fixed in ea85e0c).
"""

import numpy as np


def f(x, s):
    if np.sum(x) < 1.0:
        return x, s + 1.0
    return x, s


ARGS = (np.array([0.5], dtype=np.float64), 0.5)
BACKENDS = ("interpret", "cpu", "cuda")
