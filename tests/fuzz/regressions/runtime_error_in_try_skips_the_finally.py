# ruff: noqa
"""A run-time error of a graph operation in a `try` body skips the `finally` clause.

Found by the fuzzer (shrunk by hand). Eager code reads `y[0]` of an empty array, runs
the `finally` clause (its print) and raises IndexError. Graph mode raises the same
IndexError at the same line, but the graph stopped at the failing operation: the
`finally` clause's print, staged after it, never ran. Fixed: a failing operation in the
body of a try statement runs the finally clause's nodes before the error goes on
(backend/failures/finally_clauses.py).
"""

import numpy as np


def f(y):
    print("before")
    try:
        v = y[0]
        print("read", v)
    finally:
        print("finally")
    return y


ARGS = (np.array([], dtype=np.float64),)
BACKENDS = ("interpret", "cpu")
