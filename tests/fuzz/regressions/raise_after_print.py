# ruff: noqa
"""A `raise` that always happens comes after the effects that precede it eagerly.

Found by the fuzzer as `assert np.any(x > x)` followed by `if True: raise ValueError(...)`:
eager raises AssertionError, graph mode raised ValueError. The raise ran while the function
was traced, before the print (or failing assert) before it; fixed in ea85e0c.
"""

import numpy as np


def f(x):
    print("before")
    raise ValueError("r")


ARGS = (np.array([0.5], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
