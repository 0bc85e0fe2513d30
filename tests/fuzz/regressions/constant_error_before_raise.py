# ruff: noqa
"""An error of a value known while tracing comes before a `raise` that precedes it eagerly.

Found by the fuzzer in a helper. In a loop over a constant range, a staged `if ...: break`
is followed by a `raise` that always happens, so nothing is appended to the list: eager
raises ValueError in the first iteration. Graph mode (every backend) traces on to
`np.array(lst)[0]`, with the list empty while tracing, and raises IndexError (index 0 is
out of bounds) while tracing, before the staged raise. Same cause as
constant_error_while_tracing_skips_prints.py.
Fixed with constant_error_while_tracing_skips_prints.py.
"""

import numpy as np


def f(x, s):
    lst = []
    for i in range(3):
        if s > 100.0:
            break
        if i < 5:
            raise ValueError("r2")
        lst.append(float(s))
    return np.array(lst)[0]


ARGS = (np.array([1.0], dtype=np.float64), 0.0)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
