# ruff: noqa
"""A `raise` in a `try` body skipped the `finally` clause's prints after an earlier print.

With a `finally` and no `except`, and something printed before the `try`.

Found by the fuzzer. Eager prints "before", then "finally", then raises ValueError.
Graph mode (every backend) stages the raise as an effect (it comes after a print), then
the finally's print after it: when the graph runs, the raise ends the run first. The
value and the exception are eager's; the finally's output was missing. Fixed: a raise in
the body of such a `try` happens while tracing (as in a `try` with `except`), so the
finally clause is traced first, and the raise is staged after it. A raise inside a graph
branch in the `try` body is still staged before the finally: see
staged_raise_in_try_skips_the_finally.py.
"""

import numpy as np


def f(x):
    print("before")
    try:
        raise ValueError("r1")
    finally:
        print("finally")
    return x


ARGS = (np.array([1.0], dtype=np.float64),)
BACKENDS = ("interpret", "cpu", "cuda")
XFAIL = {}
