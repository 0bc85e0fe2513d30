# ruff: noqa
"""A staged `raise` in a `try` body skipped the `finally` clause's prints when it ran.

Eager prints "before", then "finally 3", then raises ValueError. Graph mode (every
backend) staged the raise inside the graph `if`, before the finally clause's print, and a
graph has no try/finally of its own: when the raise happened, the run ended there. Now a
copy of the finally clause is traced before the staged raise, in the branch
(convert/converters/try_blocks.py). (A raise directly in the `try` body is traced before
the finally: raise_in_try_with_finally_after_a_print.py.)
"""

import numpy as np


def f(x, n):
    print("before")
    try:
        if n > 2:
            raise ValueError("big")
        y = x + 1
    finally:
        print("finally", n)
    return y


ARGS = (np.array([1.0], dtype=np.float64), 3)
BACKENDS = ("interpret", "cpu", "cuda")
