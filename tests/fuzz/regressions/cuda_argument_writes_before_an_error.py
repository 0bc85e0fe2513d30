# ruff: noqa
"""On the CUDA backend, writes into an argument array before an error do not reach the caller.

Found by the fuzzer (as `x -= x; x[0] = x[1]` with x of length 1) on the interpret backend,
since fixed there and on the CPU backend: eagerly the in-place subtraction changes the
caller's array, then the indexing raises IndexError. The CUDA backend (the simulator)
raised the IndexError and left the caller's array unchanged. Fixed: after an error the
CUDA backend copies the written arguments' device copies back into the caller's arrays.
"""

import numpy as np


def f(x, i):
    x -= 1.0
    x[i] = 0.0
    return x


ARGS = (np.array([1.0, 2.0], dtype=np.float64), 5)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
