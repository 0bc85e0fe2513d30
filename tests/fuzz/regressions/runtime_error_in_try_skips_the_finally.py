# ruff: noqa
"""A run-time error of a graph operation in a `try` body skips the `finally` clause.

Found by the fuzzer (shrunk by hand). Eager code reads `y[0]` of an empty array, runs
the `finally` clause (its print) and raises IndexError. Graph mode raises the same
IndexError at the same line, but the graph stops at the failing operation: the
`finally` clause's print, staged after it, never runs. An explicit `raise` in the body
runs the `finally` first (raise_in_try_with_finally_after_a_print.py); an operation
failing at run time has no such path yet.
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
XFAIL = {
    "interpret": "a graph operation failing at run time skips the finally clause",
    "cpu": "a graph operation failing at run time skips the finally clause",
}
SIGNATURE = {"source": r"finally:", "kind": "error order"}
